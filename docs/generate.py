"""Regenerate the docs' generated parts from the code: `make docs` (tests/test_docs.py checks them).

A generated part sits between `<!-- generated: NAME -->` and `<!-- end generated -->` in README.md or
docs/*.md; NAME is a function of GENERATORS below. `docs/api.md` is written whole from the docstrings
of every name the package root exports. Figures in the README come only from here, so they cannot go
stale: a test regenerates every part and fails when the file says something else.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import json
import re
import sys
import textwrap
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
        "| model, instance | fresh node (s) | warm spare (s) | standby (s) | per standby: GPUs held | GPU-hours a day"
        " | pinned host RAM (GiB) | GPU memory per sleeper (GiB) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for label, params, instance in cases:
        model = ModelProfile.from_numbers(parameter_count=int(params))
        paths = plan(model, instance, TuningOptions(serving=Serving(standbys=1))).scale_out_paths
        assert paths.standby is not None
        idle = paths.standby.idle
        rows.append(
            f"| {label} | {paths.fresh_node.total_s:.0f} | {paths.warm_spare.total_s:.0f} | "
            f"{paths.standby.total_s:.1f} | {idle.gpus} | {idle.gpu_hours_per_day:.0f} | "
            f"{idle.pinned_host_bytes_per_standby / 2**30:.0f} | {idle.gpu_bytes_per_sleeper_per_gpu / 2**30:.0f} |"
        )
    return "\n".join(rows)


def _cell(text: str) -> str:
    """A table cell: pipes escaped."""
    return text.replace("|", "\\|")


def _key_default(setting: object) -> str:
    from stacks.config import REQUIRED

    name, value = setting.name, setting.key_default  # type: ignore[attr-defined]
    if name in REQUIRED:
        return "required"
    if name in ("parameter_count", "total_bytes"):
        return "one of the two"
    return "none" if value is None else f"`{json.dumps(value)}`"


def model_keys() -> str:
    """Every per-model key of `fastload:models`: a setting declared once on its option's field in core
    (core/settings.py), or one only cdk.json has (stacks/config.py)."""
    from stacks.config import MODEL_SETTINGS

    rows = ["| key | accepted | default | what it sets |", "| --- | --- | --- | --- |"]
    for s in MODEL_SETTINGS:
        assert s.key is not None
        key = f"`{s.key.name}`" + (f" (or `{s.key.former}`, its former name)" if s.key.former else "")
        accepted = s.key.accepted or s.accepted
        rows.append(f"| {key} | {_cell(accepted)} | {_key_default(s)} | {_cell(s.doc)} |")
    return "\n".join(rows)


def context_keys() -> str:
    """Every `fastload:*` key (stacks/config.py CONTEXT_KEYS)."""
    from stacks.config import CONTEXT_KEYS, PREFIX

    rows = ["| key | what it sets |", "| --- | --- |"]
    rows += [f"| `{PREFIX}{key}` | {_cell(spec.help)} |" for key, spec in CONTEXT_KEYS.items()]
    return "\n".join(rows)


GENERATORS: dict[str, Callable[[], str]] = {
    "model-keys": model_keys,
    "context-keys": context_keys,
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


def _field_docs(cls: type) -> list[tuple[str, str]]:
    """(field, docstring) of each attribute of dataclass `cls` documented by a string right below it."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs = []
    for field, text in itertools.pairwise(body):
        if (
            isinstance(field, ast.AnnAssign)
            and isinstance(field.target, ast.Name)
            and isinstance(text, ast.Expr)
            and isinstance(text.value, ast.Constant)
            and isinstance(text.value.value, str)
        ):
            docs.append((field.target.id, " ".join(inspect.cleandoc(text.value.value).split())))
    return docs


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
        if inspect.isclass(obj) and dataclasses.is_dataclass(obj):
            fields = _field_docs(obj)
            lines += [f"- `{field}`: {text}" for field, text in fields] + ([""] if fields else [])
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
