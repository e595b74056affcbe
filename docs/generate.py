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
        from fastload_constructs.core.planning.scale_out import PHASE_ORDER

        found = {n for path in paths.as_tuple() for n, _ in path.phases}
        # The paths' phases in the order they happen (core.planning.scale_out.PHASE_ORDER), others after them.
        names = [n for n in PHASE_ORDER if n in found] + sorted(found - set(PHASE_ORDER))
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


def gpu_node_path() -> str:
    """The reference app's default path on a brand-new node, phase by phase, each with its kind and sources
    (`fastload plan --json`: scale_out_paths.fresh_node.sources), and the buffered node beside it."""
    from fastload_constructs.cli.plan_command import path_sources

    name, p = _reference_plans()[0]
    paths = p.scale_out_paths  # type: ignore[attr-defined]
    fresh, buffered = paths.fresh_node, paths.buffered_node
    rows = [
        f"| {name} on {p.instance.name}, {paths.ami_family}, image {paths.pull_mode} ({paths.restore_mode}) "  # type: ignore[attr-defined]
        "| fresh node (s) | buffered node (s) | figure | sources |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    sources = path_sources(p, fresh)  # type: ignore[arg-type]
    for phase, seconds in fresh.phases:
        kind = sources[phase].split("(", 1)[1].split(")", 1)[0]
        urls = [w for w in sources[phase].split() if w.startswith("https://")]
        links = ", ".join(f"[{i + 1}]({u})" for i, u in enumerate(urls))
        held = f"{buffered.seconds(phase):.1f}" if any(n == phase for n, _ in buffered.phases) else "-"
        rows.append(f"| {phase.replace('_', ' ')} | {seconds:.1f} | {held} | {kind} | {links} |")
    rows.append(f"| **total** | **{fresh.total_s:.1f}** | **{buffered.total_s:.1f}** | | |")
    return "\n".join(rows)


def burst_simulation() -> str:
    """The 1 -> 10 burst (core.scaling.simulation) for the reference app's first model, before and after
    one-step scale-up; bench/burst_simulation.py prints the same table, the window sweep and the picture."""
    from dataclasses import replace

    from fastload_constructs.core.planning.plan import plan
    from fastload_constructs.core.scaling.simulation import burst_comparison, comparison_table
    from stacks.config import parse_reference_config

    model = parse_reference_config(json.loads((ROOT / "cdk.json").read_text())["context"]).models[0]
    # The same nodes without the image snapshot: the image pulled whole from its registry.
    pulled = replace(model.serving, pull_mode="plain", fast_image_pull=False)
    pulled_plan = plan(model.profile, model.instance_type, replace(model.options, serving=pulled))
    return comparison_table(burst_comparison(model.serving_plan(), pulled_plan)) + "\n"


def lever_waterfall() -> str:
    """What each lever saves on a brand-new node for the reference app's model, step by step: the table
    bench/lever_waterfall.py prints and draws docs/lever_waterfall.png from."""
    waterfall = _bench_script("lever_waterfall")
    return waterfall.markdown(waterfall.bars())  # type: ignore[attr-defined,no-any-return]


# A real fresh-node scale-out on EKS with Karpenter (tests/fixtures/k8s_events/SOURCES.md names its source).
TIMELINE_EVENTS = (
    "tests/fixtures/k8s_events/get-events-custom-columns-eks-karpenter-vllm-v0.28.0-coldstart-workshop.txt"
)


def timeline_example() -> str:
    """`fastload timeline` on a real EKS + Karpenter event dump, beside the plan of the path its nodes took, as
    the command prints it now."""
    import contextlib
    import io

    from fastload_constructs.cli.main import main

    flags = ["--instance", "g6e.2xlarge", "--params", "8.03e9", "--ami", "al2023", "--pull-mode", "plain"]
    flags += ["--image", "vllm/vllm-openai:v0.28.0"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["timeline", str(ROOT / TIMELINE_EVENTS), *flags])
    assert status == 0, f"fastload timeline exited {status}"
    command = " ".join([".venv/bin/fastload timeline", TIMELINE_EVENTS, "\\\n   ", *flags])
    return f"```\n$ {command}\n{out.getvalue().rstrip()}\n```"


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


def _bench_script(name: str) -> object:
    """bench/<name>.py, loaded as a module (a script beside the package, not part of it)."""
    import importlib.util

    path = ROOT / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = sys.modules.get(spec.name)
    if module is None:
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return module


def engine_phase_fits() -> str:
    """The engine figures fitted to the published rows, their in-sample and leave-one-source-out errors,
    then each left-out source's error (bench/engine_phase_fits.py)."""
    fits = _bench_script("engine_phase_fits")
    reports = fits.all_reports()  # type: ignore[attr-defined]
    return fits.markdown(reports) + "\n\n" + fits.loso_detail(reports)  # type: ignore[attr-defined]


def _reference_8b(**serving: object) -> object:
    from fastload_constructs.core.model import ModelProfile
    from fastload_constructs.core.planning import Serving, TuningOptions, plan

    model = ModelProfile.from_numbers(parameter_count=8_030_261_248)
    return plan(model, "g6e.2xlarge", TuningOptions(serving=Serving(**serving)))  # type: ignore[arg-type]


def plan_example() -> str:
    """`fastload plan --instance g6e.2xlarge --params 8.03e9`'s scale-out table, as it prints it now."""
    paths = _reference_8b().scale_out_paths  # type: ignore[attr-defined]
    names: list[str] = []
    for path in paths.as_tuple():
        names += [n for n, _ in path.phases if n not in names]
    lines = [
        "```",
        "scale-out paths (seconds):",
        f"  {'phase':<18}" + "".join(f"{p.name:>12}" for p in paths.as_tuple()),
    ]
    for phase in names:
        cells = "".join(
            f"{p.seconds(phase):>12.1f}" if any(n == phase for n, _ in p.phases) else f"{'-':>12}"
            for p in paths.as_tuple()
        )
        lines.append(f"  {phase:<18}{cells}")
    lines.append(f"  {'total':<18}" + "".join(f"{p.total_s:>12.1f}" for p in paths.as_tuple()))
    return "\n".join([*lines, "```"])


def warm_spare_paths() -> str:
    """The fresh node, the warm node and a warm spare for each cache choice, 8B on g6e.2xlarge: what a spare
    saves follows what it leaves on the node."""
    rows = [
        "| path | node launch + GPU registration | image pull | vLLM start | total |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    default = _reference_8b(warm_spares=1).scale_out_paths  # type: ignore[attr-defined]
    fresh = default.fresh_node
    node = fresh.seconds("node_launch") + fresh.seconds("gpu_registration")
    image = fresh.seconds("image_pull")
    rows.append(
        f"| fresh node (S3 stream, cold compile) | {node:.0f} | {image:.0f} | {fresh.total_s - node - image:.0f} "
        f"| {fresh.total_s:.0f} |"
    )
    local = _reference_8b(warm_spares=1, model_cache="node-local").scale_out_paths  # type: ignore[attr-defined]
    rows.append(
        f"| warm node (repeat on a node: node-local copy, host-path compile cache) | 0 | 0 | "
        f"{local.warm_node.total_s:.0f} | {local.warm_node.total_s:.0f} |"
    )
    for label, serving in (
        ("warm spare, image only (the default caches)", {}),
        ("warm spare, image + `sharedCompileCache` (S3 stream, warm compile)", {"shared_compile_cache": True}),
        ("warm spare, `nodeLocalModelCache` (cold compile)", {"model_cache": "node-local"}),
        (
            "warm spare, `nodeLocalModelCache` + `sharedCompileCache`",
            {"model_cache": "node-local", "shared_compile_cache": True},
        ),
    ):
        spare = _reference_8b(warm_spares=1, **serving).scale_out_paths.warm_spare  # type: ignore[attr-defined]
        rows.append(f"| {label} | 0 | 0 | {spare.total_s:.0f} | {spare.total_s:.0f} |")
    return "\n".join(rows)


def capture_examples() -> str:
    """The 8B reference model's planned default CUDA-graph capture on a few GPUs."""
    from fastload_constructs.core.model import ModelProfile
    from fastload_constructs.core.planning import plan

    model = ModelProfile.from_numbers(parameter_count=8_030_261_248)
    rows = [
        "  | instance (GPU) | capture sizes | graphs | max_num_seqs | planned capture (s) |",
        "  | --- | ---: | ---: | ---: | ---: |",
    ]
    for instance in ("g6.2xlarge", "g6e.2xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge"):
        p = plan(model, instance)
        assert p.capture is not None
        rows.append(
            f"  | {instance} ({p.instance.gpu_model}) | {len(p.capture.sizes)} | {p.capture.graphs} | "
            f"{p.capture.max_num_seqs} | {p.predicted.cuda_graph_s:.1f} |"
        )
    return "\n".join(rows)


def h200_comparison() -> str:
    """bench/results/graph_capture-NVIDIA_H200*.json beside the plan's figures for the same model and sizes."""
    from fastload_constructs.core.catalog import lookup
    from fastload_constructs.core.model import ModelProfile
    from fastload_constructs.core.planning import TuningOptions, plan
    from fastload_constructs.core.planning.standby import StandbyAssumptions, wake_seconds

    rows = [
        "| capture sizes | PyTorch: full graphs (warm-up) | PyTorch: piecewise graphs (warm-up) | PyTorch: capture"
        " | plan: graphs | plan: capture (s) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    instance = lookup("p5e.48xlarge")
    for name in ("graph_capture-NVIDIA_H200.json", "graph_capture-NVIDIA_H200-sizes-to-128.json"):
        run = json.loads((ROOT / "bench" / "results" / name).read_text())
        model = ModelProfile.from_numbers(parameter_count=int(run["model"]["parameters"]))
        sizes = tuple(int(size) for size in run["sizes"])
        p = plan(model, instance, TuningOptions(cudagraph_capture_sizes=sizes))
        assert p.capture is not None
        full, piecewise = run["full"], run["piecewise"]
        rows.append(
            f"| {len(sizes)} (1..{max(sizes)}) | {full['capture_s']:.2f} s ({full['warmup_s']:.2f} s) | "
            f"{piecewise['capture_s']:.2f} s ({piecewise['warmup_s']:.2f} s) | "
            f"{full['capture_s'] + piecewise['capture_s']:.2f} s | {p.capture.graphs} | "
            f"{p.predicted.cuda_graph_s:.1f} |"
        )
    run = json.loads((ROOT / "bench" / "results" / "graph_capture-NVIDIA_H200.json").read_text())
    wake = run["sleep_wake"]
    planned = wake_seconds(ModelProfile.from_numbers(total_bytes=int(wake["bytes"])), 1, StandbyAssumptions(), instance)
    rows += [
        "",
        f"Sleep/wake proxy, {wake['bytes'] / 1e9:.2f} GB: copied back in {wake['wake_s']:.2f} s "
        f"({wake['wake_gb_s']:.1f} GB/s); the plan's level-1 wake for the same bytes on an H200: {planned:.2f} s "
        "(its fixed cost included).",
    ]
    return "\n".join(rows)


def autoscaling_example() -> str:
    """`fastload plan`'s autoscaling block for the 8B reference model, with what each figure derives from."""
    from fastload_constructs.core.scaling.autoscaling import scaling_behavior

    p = _reference_8b()
    b = scaling_behavior(p)  # type: ignore[arg-type]
    fresh = p.scale_out_paths.fresh_node  # type: ignore[attr-defined]
    node = fresh.seconds("node_launch") + fresh.seconds("gpu_registration")
    image = sum(s for name, s in fresh.phases if name in ("image_pull", "lazy_imports"))
    pod = fresh.total_s - node - image
    return "\n".join(
        [
            "```",
            "autoscaling:                      # fastload plan --instance g6e.2xlarge --params 8.03e9",
            f"  from_predicted_startup_seconds: {b.startup_s:.1f}   # fresh node: node {node:.0f} + image {image:.0f}"
            f" + pod {pod:.1f}",
            f"  scale_up_stabilization_seconds: {b.scale_up_window_s}  # demand seen in two scrapes, then every pod"
            " the queue asks for at once",
            f"  scale_up_period_seconds: {b.scale_up_period_s}     # Pods: 100 per 15 s never binds: maxReplicas is"
            " the only bound",
            f"  scale_down_stabilization_seconds: {b.scale_down_window_s}   # max(HPA default 300, 2 x start-up): no"
            " flapping during a start",
            f"  scale_down_period_seconds: {b.scale_down_period_s}  # then one pod at a time",
            f"  polling_interval_seconds: {b.polling_interval_s}",
            "```",
        ]
    )


def fresh_node_floor() -> str:
    """The 8B reference model's fresh-node total on the default path, with a short capture list as well, and on
    AL2023 nodes with the same snapshot: how the 150 s goal is met and by how much."""
    from dataclasses import replace

    from fastload_constructs.core.model import ModelProfile
    from fastload_constructs.core.planning import Serving, TuningOptions, plan

    model = ModelProfile.from_numbers(parameter_count=8_030_261_248)
    base = TuningOptions()
    fresh = plan(model, "g6e.2xlarge", base).scale_out_paths.fresh_node  # type: ignore[union-attr]
    short = plan(model, "g6e.2xlarge", replace(base, cudagraph_capture_sizes=(1, 2, 4, 8, 16, 24, 32)))
    al2023 = plan(model, "g6e.2xlarge", TuningOptions(serving=Serving(ami_family="al2023")))
    parts = " + ".join(f"{name.replace('_', ' ')} {seconds:.1f}" for name, seconds in fresh.phases)
    return (
        f"The default path plans {fresh.total_s:.1f} s ({parts}); with capture sizes 1..32 as well, "
        f"{short.scale_out_paths.fresh_node.total_s:.1f} s; on AL2023 nodes with the same snapshot, "  # type: ignore[union-attr]
        f"{al2023.scale_out_paths.fresh_node.total_s:.1f} s."  # type: ignore[union-attr]
    )


PULL_MODE_TEXT = {
    "plain": "containerd pulls and unpacks layer by layer (84.2 MB/s on fast storage, fitted)",
    "parallel": "SOCI parallel pull (nodeadm FastImagePull; 1.91x containerd's, fitted)",
    "lazy": 'SOCI lazy loading: 2.6 s "pull", then vLLM\'s imports fetch files on demand (73 s of imports in'
    " llm-d's GKE benchmark, 48 s more than from a local disk)",
    "snapshot": "the image is already on an EBS volume restored from a snapshot with Fast Snapshot Restore"
    ' ("pod starts up in less than 5 seconds")',
}


def pull_modes() -> str:
    """The fresh node of the 8B reference model by pull mode and node family: the image phases and the total
    (SOCI's modes are AL2023's)."""
    rows = [
        "| pull mode | what happens | image phases | fresh node, AL2023 | fresh node, Bottlerocket |",
        "| --- | --- | --- | ---: | ---: |",
    ]
    for mode, text in PULL_MODE_TEXT.items():
        serving = {"pull_mode": mode, "fast_image_pull": mode == "parallel"}
        al2023 = _reference_8b(ami_family="al2023", **serving).scale_out_paths.fresh_node  # type: ignore[attr-defined]
        image = " + ".join(f"{s:.1f}" for name, s in al2023.phases if name in ("image_pull", "lazy_imports"))
        bottlerocket = "refused"
        if mode in ("plain", "snapshot"):
            bottlerocket = f"{_reference_8b(**serving).scale_out_paths.fresh_node.total_s:.1f}"  # type: ignore[attr-defined]
        rows.append(f"| {mode} | {text} | {image} | {al2023.total_s:.1f} | {bottlerocket} |")
    return "\n".join(rows)


def planner_accuracy() -> str:
    """bench/planner_accuracy.py's summary: per phase, the median factor over all rows and the held-out ones."""
    import importlib.util
    import math

    path = ROOT / "bench" / "planner_accuracy.py"
    spec = importlib.util.spec_from_file_location("planner_accuracy", path)
    assert spec is not None and spec.loader is not None
    accuracy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(accuracy)
    table = accuracy.ratios(accuracy.load_rows())
    lines = ["```", f"{'phase':<16} {'rows':>4} {'factor':>7} {'held-out rows':>13} {'held-out factor':>15}"]
    for phase in sorted({r[1] for r in table}):
        every = accuracy.median_abs_log_ratio(table, phase, False)
        held = accuracy.median_abs_log_ratio(table, phase, True)
        n = sum(1 for r in table if r[1] == phase)
        n_held = sum(1 for r in table if r[1] == phase and r[4])
        held_text = f"{math.exp(held):>15.2f}" if held is not None else f"{'-':>15}"
        lines.append(f"{phase:<16} {n:>4} {math.exp(every):>7.2f} {n_held:>13} {held_text}")
    return "\n".join([*lines, "```"])


def standby_path_table() -> str:
    """The standby path of the 8B reference model on g6e.2xlarge, phase by phase with each phase's source."""
    standby = _reference_8b(standbys=1).scale_out_paths.standby  # type: ignore[attr-defined]
    rows = ["| phase | seconds | kind | source |", "| --- | --- | --- | --- |"]
    for phase in standby.phases:
        kind = "measured" if phase.measured else "estimate"
        rows.append(f"| {phase.name} | {phase.seconds:.1f} | {kind} | {phase.source} |")
    estimated = standby.total_s - standby.measured_s
    kinds = f"{standby.measured_s:.1f} s measured, {estimated:.1f} s estimated"
    rows.append(f"| **total** | **{standby.total_s:.1f}** | {kinds} | |")
    return "\n".join(rows)


GENERATORS: dict[str, Callable[[], str]] = {
    "model-keys": model_keys,
    "context-keys": context_keys,
    "standby-path": standby_path_table,
    "planner-accuracy": planner_accuracy,
    "pull-modes": pull_modes,
    "fresh-node-floor": fresh_node_floor,
    "autoscaling-example": autoscaling_example,
    "capture-examples": capture_examples,
    "h200-comparison": h200_comparison,
    "engine-phase-fits": engine_phase_fits,
    "plan-example": plan_example,
    "warm-spare-paths": warm_spare_paths,
    "standby-tradeoffs": standby_tradeoffs,
    "warm-start-tradeoffs": warm_start_tradeoffs,
    "reference-plan": reference_plan,
    "lever-waterfall": lever_waterfall,
    "timeline-example": timeline_example,
    "gpu-node-path": gpu_node_path,
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
