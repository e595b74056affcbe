"""What each lever saves on a brand-new GPU node, one step at a time, for the reference app's model.

From the slowest path the planner knows (AL2023 NVIDIA nodes, whose device plugin is a DaemonSet pulled after
the node joins, and the image pulled from its registry) through the stack's default path, then beyond it
(a warm shared compile cache, capture sizes bounded by `max_num_seqs`) and the paths that skip the new
node (a buffered node, a warm spare, a standby). Every bar is the planner's total for that step's settings,
which are `fastload plan` flags (`Bar.flags`); nothing here is a figure of its own.

The image steps come before the node family because SOCI's parallel pull is AL2023's (nodeadm
FastImagePull). Node and image phases add up independently, so the order changes no step's saving. A step
on a path that skips the node starts from the last fresh-node step's settings and does not carry over.

`markdown(bars())` is the README's generated "lever-waterfall" block (docs/generate.py) and
`draw(bars(), path)` the picture, so the table and the picture cannot disagree.

    .venv/bin/python bench/lever_waterfall.py [--png docs/lever_waterfall.png]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fastload_constructs.core.planning import Serving, ServingPlan, TuningOptions, plan  # noqa: E402
from fastload_constructs.core.planning.scale_out import ScaleOutPath  # noqa: E402
from fastload_constructs.core.settings import Setting, settings_of  # noqa: E402
from stacks.config import ModelSpec, parse_reference_config  # noqa: E402

GOAL_S = 150.0  # the fresh-node goal the picture draws a line at
BOUNDED_MAX_NUM_SEQS = 32  # the capture-size step: a server that never runs more than 32 sequences at once


@dataclass(frozen=True)
class Step:
    """One lever: the settings it changes (Serving and TuningOptions fields) and the path it is read on."""

    lever: str
    serving: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    path: str = "fresh_node"


STEPS = (
    Step("slowest path", serving={"ami_family": "al2023", "pull_mode": "plain"}),
    Step("image", serving={"pull_mode": "parallel", "fast_image_pull": True}),
    # pull_mode None is the default, the node image snapshot.
    Step("image", serving={"pull_mode": None, "fast_image_pull": False, "image_restore": "lazy"}),
    Step("snapshot restore", serving={"image_restore": "rate"}),
    Step("snapshot restore", serving={"image_restore": "fsr"}),
    Step("node family", serving={"ami_family": "bottlerocket"}),
    Step("compile cache", serving={"shared_compile_cache": True}),
    Step("capture sizes", options={"max_num_seqs": BOUNDED_MAX_NUM_SEQS}),
    Step("skips the node", serving={"buffered_nodes": 1}, path="buffered_node"),
    Step("skips the node", serving={"warm_spares": 1}, path="warm_spare"),
    Step("skips the node", serving={"standbys": 1}, path="standby"),
)


@dataclass(frozen=True)
class Bar:
    """One step as planned: what it is, the flags that plan it, its path's total and what it saved."""

    lever: str
    label: str
    flags: str
    path: str
    total_s: float
    saved_s: float | None  # against the bar before it; None for the first
    default: bool  # the reference app's own fresh-node path
    phases: tuple[tuple[str, float], ...]


def reference_model() -> ModelSpec:
    """The first model of cdk.json, parsed as `cdk synth` parses it."""
    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    return parse_reference_config(context).models[0]


def _flag_text(record: Setting, value: Any) -> str:
    assert record.flag is not None, f"{record.name} has no fastload plan flag"
    if isinstance(value, bool):
        return record.flag.option if value else "--no-" + record.flag.option.removeprefix("--")
    return f"{record.flag.option} {value}"


def plan_flags(options: TuningOptions) -> str:
    """The `fastload plan` flags that give `options`, beyond --instance and the model's own."""
    flags = []
    for owner, defaults in ((options.serving, Serving()), (options, TuningOptions())):
        for record in settings_of(type(owner)):
            value = getattr(owner, record.name)
            if record.name == "serving" or value == getattr(defaults, record.name):
                continue
            if record.name == "fast_image_pull" and options.serving.pull_mode is not None:
                continue  # --pull-mode decides it
            flags.append(_flag_text(record, value))
    return " ".join(flags)


def _path(p: ServingPlan, name: str) -> ScaleOutPath:
    found = {path.name: path for path in p.scale_out_paths.as_tuple()}
    return found[name]


def _label(step: Step, p: ServingPlan, default_capture: int) -> str:
    """What the step is, in a few words; counts from the plan."""
    serving = p.serving
    if step.lever == "slowest path":
        return "AL2023 nodes, image pulled from its registry"
    if step.lever == "image" and serving.pull_mode == "parallel":
        return "SOCI parallel pull (AL2023 FastImagePull)"
    if step.lever in ("image", "snapshot restore"):
        restore = {"lazy": "restored lazily", "rate": "provisioned rate", "fsr": "Fast Snapshot Restore"}
        return f"node image snapshot, {restore[serving.image_restore]}"
    if step.lever == "node family":
        return "Bottlerocket NVIDIA nodes"
    if step.lever == "compile cache":
        return "shared compile cache, warm"
    if step.lever == "capture sizes":
        assert p.capture is not None
        return f"max_num_seqs {p.capture.max_num_seqs}: {len(p.capture.sizes)} capture sizes, not {default_capture}"
    spare = p.scale_out_paths.spare_holds
    return {
        "buffered_node": "buffered node: no launch",
        "warm_spare": "warm spare: " + ", ".join(spare.warmed) + " on the node",
        "standby": "standby: a sleeping vLLM woken",
    }[step.path]


def bars(model: ModelSpec | None = None) -> list[Bar]:
    """Every step of STEPS planned for `model` (default: cdk.json's first model) on its instance type."""
    model = model or reference_model()
    reference = _path(model.serving_plan(), "fresh_node")
    default_capture = model.serving_plan().capture
    assert default_capture is not None
    base = model.options
    found: list[Bar] = []
    for step in STEPS:
        serving = dataclasses.replace(base.serving, **step.serving)
        options = dataclasses.replace(base, serving=serving, **step.options)
        p = plan(model.profile, model.instance_type, options)
        path = _path(p, step.path)
        if step.path == "fresh_node":
            base = options
        previous = found[-1].total_s if found else None
        is_default = step.path == "fresh_node" and path.phases == reference.phases and not any(b.default for b in found)
        found.append(
            Bar(
                lever=step.lever,
                label=_label(step, p, len(default_capture.sizes)),
                flags=plan_flags(options),
                path=step.path,
                total_s=path.total_s,
                saved_s=None if previous is None else previous - path.total_s,
                default=is_default,
                phases=path.phases,
            )
        )
    if not any(b.default for b in found):
        raise SystemExit("lever_waterfall: no step is the reference app's default path any more; update STEPS")
    return found


def markdown(found: list[Bar]) -> str:
    """The steps as a Markdown table: lever, what changes, the flags, seconds saved and the total."""
    rows = [
        "| lever | step | `fastload plan` flags | path | saves (s) | total (s) |",
        "| --- | --- | --- | --- | ---: | ---: |",
    ]
    for b in found:
        flags = f"`{b.flags}`" if b.flags else "(none: the default)"
        saved = "" if b.saved_s is None else f"{b.saved_s:.1f}"
        total = f"**{b.total_s:.1f}**" if b.default else f"{b.total_s:.1f}"
        step = f"**{b.label}: the default path**" if b.default else b.label
        rows.append(f"| {b.lever} | {step} | {flags} | {b.path.replace('_', ' ')} | {saved} | {total} |")
    return "\n".join(rows) + "\n"


LEVER_COLOURS = {
    "slowest path": "#9e9e9e",
    "image": "#4c72b0",
    "snapshot restore": "#64b5cd",
    "node family": "#8172b2",
    "compile cache": "#dd8452",
    "capture sizes": "#c44e52",
    "skips the node": "#55a868",
}


def _axis_limit(found: list[Bar]) -> float:
    """Where the bars' axis ends: past the slowest bar, unless that one is far beyond the others (a lazily
    restored snapshot): then past the next, and the far one is cut, its true total written beside it."""
    totals = sorted(b.total_s for b in found)
    if len(totals) > 1 and totals[-1] > 2.5 * totals[-2]:
        return totals[-2] * 1.1
    return totals[-1] * 1.02


def bar_text(b: Bar) -> str:
    """The label beside a bar: its total, and what the step saved (-) or cost (+)."""
    text = f"{b.total_s:.1f} s"
    if b.saved_s is not None:
        text += f"  ({'-' if b.saved_s >= 0 else '+'}{abs(b.saved_s):.1f} s)"
    return text


def _cut(ax: Any, x: float, row: int) -> None:
    """A break mark across a bar the axis cuts."""
    for dx in (-0.012, 0.0):
        ax.plot([x * (0.985 + dx), x * (0.995 + dx)], [row + 0.42, row - 0.42], color="black", linewidth=1.2)


def _separators(ax: Any, found: list[Bar], width: float) -> None:
    """Thin lines after the default path and where the paths that skip the new node begin, with captions."""
    default = next(i for i, b in enumerate(found) if b.default)
    skip = next((i for i, b in enumerate(found) if b.path != "fresh_node"), len(found))
    for row, caption in ((default, "beyond the default"), (skip - 1, "paths that skip the new node")):
        if row + 1 < len(found):
            ax.axhline(row + 0.5, color="#999999", linewidth=0.8, linestyle=":")
            ax.text(width, row + 0.55, caption, ha="right", va="top", fontsize=8.5, color="#555555", style="italic")


def draw(found: list[Bar], path: Path, title: str = "") -> Any:
    """The waterfall, one row per bar from the slowest path down; returns the matplotlib figure (also saved
    to `path`). A light bar is the step's total, the hatched part what the step saved against the row above."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    limit = _axis_limit(found)
    width = limit * 1.38
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(found) + 2.0))
    ax.axvline(GOAL_S, color="black", linestyle="--", linewidth=1, zorder=0)
    label_box = {"facecolor": "white", "edgecolor": "none", "pad": 2.0}
    ax.text(GOAL_S, -0.75, f"{GOAL_S:.0f} s goal", ha="center", va="bottom", fontsize=9.5, bbox=label_box)
    for row, b in enumerate(found):
        colour = LEVER_COLOURS[b.lever]
        shown = min(b.total_s, limit)
        ax.barh(row, shown, color=colour, alpha=0.35, height=0.66, edgecolor=colour)
        end = shown
        if b.saved_s is not None and b.saved_s > 0:
            end = min(b.total_s + b.saved_s, limit)
            ax.barh(row, end - shown, left=shown, color=colour, height=0.66, hatch="//", edgecolor="white")
        if b.total_s > limit or b.total_s + (b.saved_s or 0) > limit:
            _cut(ax, limit, row)
        weight = "bold" if b.default else "normal"
        ax.text(end + limit * 0.01, row, bar_text(b), va="center", fontsize=9.5, weight=weight, bbox=label_box)
    _separators(ax, found, width)
    ax.set_yticks(range(len(found)))
    ax.set_yticklabels([b.label + (" (default)" if b.default else "") for b in found], fontsize=9.5)
    for tick, b in zip(ax.get_yticklabels(), found, strict=True):
        tick.set_fontweight("bold" if b.default else "normal")
    ax.set_xlim(0, width)
    ax.set_ylim(len(found) - 0.5, -1.0)
    ax.set_xlabel("seconds until a new replica serves, as planned (hatched: what the step saves)", fontsize=9.5)
    ax.spines[["top", "right"]].set_visible(False)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c, alpha=0.7) for c in LEVER_COLOURS.values()]
    # Below the axes: inside, it would cover bars or their labels.
    fig.legend(handles, list(LEVER_COLOURS), loc="lower center", ncol=len(handles), fontsize=8.5, frameon=False)
    if title:
        fig.suptitle(title, fontsize=10.5)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    # The table the bars were drawn from, in the PNG itself: a test compares it with the plan's.
    fig.savefig(path, dpi=100, metadata={"Description": markdown(found)})
    return fig


def title(model: ModelSpec) -> str:
    return f"{model.name} on a brand-new {model.instance_type}: what each lever saves (fastload plan)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--png", type=Path, default=None, help="where to draw (default: no picture)")
    args = parser.parse_args(argv)
    found = bars()
    model = reference_model()
    print(f"{model.name} on {model.instance_type}: each row is `fastload plan` with its flags\n")
    print(markdown(found))
    if args.png is not None:
        draw(found, args.png, title(model))
        print(f"picture: {args.png}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
