"""Regenerate the docs' generated parts from the code: `make docs` (tests/test_docs.py checks them).

A generated part sits between `<!-- generated: NAME -->` and `<!-- end generated -->` in README.md or
docs/*.md; NAME is a function of GENERATORS below. `docs/api.md` is written whole from the docstrings
of every name the package root exports. Figures in the README come only from here, so they cannot go
stale: a test regenerates every part and fails when the file says something else.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)
DOCUMENTS = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
API_PAGE = ROOT / "docs" / "api.md"


def _reference_plans() -> list[tuple[str, object]]:
    """(model name, plan) of every model of cdk.json, parsed as `cdk synth` parses them."""
    from stacks.config import parse_reference_config

    context = json.loads((ROOT / "cdk.json").read_text())["context"]
    config = parse_reference_config(context)
    return [(m.name, m.serving_plan()) for m in config.models]


def reference_plan() -> str:
    """The reference app's models, phase by phase per scale-out path (seconds), as planned now."""
    rows: list[str] = []
    for name, p in _reference_plans():
        paths = p.scale_out_paths  # type: ignore[attr-defined]
        names: list[str] = []
        for path in paths.as_tuple():
            names += [n for n, _ in path.phases if n not in names]
        header = "| " + name + " on " + p.instance.name + " (vLLM " + p.engine_version + ") | "  # type: ignore[attr-defined]
        header += " | ".join(path.name.replace("_", " ") for path in paths.as_tuple()) + " |"
        rows += [header, "| --- |" + " ---: |" * len(paths.as_tuple())]
        for phase in names:
            cells = [
                f"{path.seconds(phase):.1f}" if any(n == phase for n, _ in path.phases) else "-"
                for path in paths.as_tuple()
            ]
            rows.append(f"| {phase.replace('_', ' ')} | " + " | ".join(cells) + " |")
        rows.append("| **total (s)** | " + " | ".join(f"**{path.total_s:.1f}**" for path in paths.as_tuple()) + " |")
        rows.append("")
    return "\n".join(rows)


def burst_simulation() -> str:
    """The 1 -> 10 burst (core.scaling.simulation) for the reference app's first model, before and after
    one-step scale-up; bench/burst_simulation.py prints the same table, the window sweep and the picture."""
    from dataclasses import replace

    from fastload_constructs.core.planning.plan import plan
    from fastload_constructs.core.scaling.simulation import burst_comparison, comparison_table
    from stacks.config import parse_reference_config

    model = parse_reference_config(json.loads((ROOT / "cdk.json").read_text())["context"]).models[0]
    snapshot = replace(model.serving, pull_mode="snapshot", fast_image_pull=False)
    snapshot_plan = plan(model.profile, model.instance_type, replace(model.options, serving=snapshot))
    return comparison_table(burst_comparison(model.serving_plan(), snapshot_plan)) + "\n"


def warm_start_tradeoffs() -> str:
    """Predicted pod start-up (seconds; weight load in brackets) from S3, from the node-local copy, and from it
    with a warm compile cache, for a few model and instance pairs."""
    from fastload_constructs.core.model import ModelProfile
    from fastload_constructs.core.planning import Serving, TuningOptions, plan

    cases = (
        ("8B BF16, g6e.2xlarge", 8.03e9, "g6e.2xlarge"),
        ("70B BF16, g6e.12xlarge", 70.6e9, "g6e.12xlarge"),
        ("70B BF16, p5.48xlarge", 70.6e9, "p5.48xlarge"),
    )
    rows = [
        "| model, instance | from S3 | node-local NVMe | node-local + warm compile cache |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, params, instance in cases:
        model = ModelProfile.from_numbers(parameter_count=int(params))
        cells = []
        for cache, warm in (("s3", False), ("node-local", False), ("node-local", True)):
            p = plan(model, instance, TuningOptions(compile_cache_warm=warm, serving=Serving(model_cache=cache)))
            cells.append(f"{p.predicted.total_s:.0f} (load {p.predicted.weight_load_s:.0f})")
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def standby_tradeoffs() -> str:
    """The standby path beside the fresh-node and warm-spare paths (seconds), and what one standby holds idle,
    for the same model and instance pairs as the warm-start table (core.planning.standby)."""
    from fastload_constructs.core.model import ModelProfile
    from fastload_constructs.core.planning import Serving, TuningOptions, plan

    cases = (
        ("8B BF16, g6e.2xlarge", 8.03e9, "g6e.2xlarge"),
        ("70B BF16, g6e.12xlarge", 70.6e9, "g6e.12xlarge"),
        ("70B BF16, p5.48xlarge", 70.6e9, "p5.48xlarge"),
    )
    rows = [
        "| model, instance | fresh node (s) | warm spare, image only (s) | warm spare + node-local copy + shared"
        " compile cache (s) | standby (s) | per standby: GPUs held | GPU-hours a day | pinned host RAM (GiB)"
        " | GPU memory per sleeper (GiB) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, params, instance in cases:
        model = ModelProfile.from_numbers(parameter_count=int(params))
        paths = plan(model, instance, TuningOptions(serving=Serving(standbys=1))).scale_out_paths
        assert paths.standby is not None
        spare = plan(model, instance, TuningOptions(serving=Serving(warm_spares=1))).scale_out_paths
        warmed = Serving(warm_spares=1, model_cache="node-local", shared_compile_cache=True)
        warmed_spare = plan(model, instance, TuningOptions(serving=warmed)).scale_out_paths
        idle = paths.standby.idle
        rows.append(
            f"| {label} | {paths.fresh_node.total_s:.0f} | {spare.warm_spare.total_s:.0f} | "
            f"{warmed_spare.warm_spare.total_s:.0f} | {paths.standby.total_s:.1f} | {idle.gpus} | "
            f"{idle.gpu_hours_per_day:.0f} | {idle.pinned_host_bytes_per_standby / 2**30:.0f} | "
            f"{idle.gpu_bytes_per_sleeper_per_gpu / 2**30:.0f} |"
        )
    return "\n".join(rows)


GENERATORS: dict[str, Callable[[], str]] = {
    "standby-tradeoffs": standby_tradeoffs,
    "warm-start-tradeoffs": warm_start_tradeoffs,
    "reference-plan": reference_plan,
    "burst-simulation": burst_simulation,
}


def render(text: str) -> str:
    """`text` with every generated part regenerated."""

    def one(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in GENERATORS:
            raise SystemExit(f"docs: no generator named {name!r} (known: {', '.join(GENERATORS)})")
        body = GENERATORS[name]().rstrip("\n") + "\n"
        return match.group(1) + body + match.group(4)

    return BLOCK.sub(one, text)


def _signature(obj: object) -> str:
    try:
        text = str(inspect.signature(obj))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""
    # Default values that are objects print their address, which changes every run.
    return re.sub(r"<([\w.]+) object at 0x[0-9a-f]+>", r"\1(...)", text)


def api_reference() -> str:
    """docs/api.md: every name `fastload_constructs` exports, its signature and docstring."""
    import fastload_constructs

    lines = [
        "# API reference",
        "",
        "Generated from the docstrings by `make docs` (`docs/generate.py`); do not edit by hand.",
        "Every name is importable from the package root: `from fastload_constructs import ServedModel`.",
        "",
    ]
    for name in fastload_constructs.__all__:
        obj = getattr(fastload_constructs, name)
        module = getattr(obj, "__module__", "") or ""
        kind = "class" if inspect.isclass(obj) else "function" if callable(obj) else "value"
        lines.append(f"## `{name}`")
        lines.append("")
        lines.append(f"{kind} in `{module}`" if module else kind)
        lines.append("")
        if kind != "value":
            target = obj.__init__ if inspect.isclass(obj) and "__init__" in vars(obj) else obj  # type: ignore[misc]
            signature = _signature(target).replace("(self, ", "(").replace("(self)", "()")
            if signature:
                lines += ["```python", f"{name}{signature}", "```", ""]
        doc = inspect.getdoc(obj) if kind != "value" else None
        if doc:
            lines += [doc, ""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale: list[str] = []
    for path in DOCUMENTS:
        text = path.read_text()
        new = render(text)
        if new != text:
            stale.append(str(path.relative_to(ROOT)))
            if not check:
                path.write_text(new)
    api = api_reference()
    if not API_PAGE.exists() or API_PAGE.read_text() != api:
        stale.append(str(API_PAGE.relative_to(ROOT)))
        if not check:
            API_PAGE.write_text(api)
    if check and stale:
        print("docs: stale, run `make docs`: " + ", ".join(stale), file=sys.stderr)
        return 1
    print("docs: " + ("up to date" if not stale else "regenerated " + ", ".join(stale)))
    return 0


if __name__ == "__main__":
    from fastload_constructs.jsii_node import use_packaged_node

    use_packaged_node()
    sys.exit(main(sys.argv[1:]))
