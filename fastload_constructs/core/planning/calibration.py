"""Fit the planner's assumptions to a user's own launches.

`fastload calibrate LOG...` parses vLLM logs (coldstart.parse_log) into `MeasuredLaunch`es and calls
`fit_assumptions`; it writes them as an assumptions file (`assumptions_file`), which `fastload plan
--assumptions FILE` and the reference app's `fastload:assumptions` read back. The fit:

* stream throughput per (instance type, source) = median of bytes / (weight load - vLLM's fixed
  set-up): it replaces the modelled rate for that instance type and source only;
* process start (container start + everything before the load) = median; KV + server per decoder
  layer = median of each launch's KV + server over its model's layers;
* cold compile and CUDA-graph capture = medians of measured / modelled for each launch's model, GPU, TP
  and capture sizes, kept as scale factors so they still follow layers, GPUs and capture sizes;
* warm compile = median of warm launches less Dynamo's per-layer re-trace (the fixed cost), or the
  whole hit for releases that load the AOT artefact.

Each launch's own figure, and the fitted one, must lie in the figure's range (`figure_bounds`): a log
whose weight load is a nanosecond longer than vLLM's set-up, or whose compile took 1e300 s, is refused,
named, rather than written as `Infinity` or as a figure `plan` would refuse.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from fastload_constructs.core.catalog import CATALOG
from fastload_constructs.core.cluster.ami_family import DEFAULT_AMI_FAMILY
from fastload_constructs.core.engines.vllm.phases import VllmFigures, compile_seconds, cuda_graph_seconds
from fastload_constructs.core.engines.vllm.releases import release_family, uses_aot_compile
from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.model import ModelProfile, estimated_layers
from fastload_constructs.core.planning.assumptions import MB, LoadAssumptions
from fastload_constructs.core.planning.assumptions_file import vllm_figures, with_vllm_figures
from fastload_constructs.core.planning.figure_bounds import FIGURE_RANGES, RATE_MB_S, FigureRange
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.pull_modes import PullMode


@dataclass(frozen=True)
class MeasuredLaunch:
    """One launch's measured phases, in the planner's five phases (seconds; None = not in the log)."""

    label: str
    instance_type: str
    source: str  # "s3" or "local"
    model: ModelProfile
    options: TuningOptions  # vLLM release, capture sizes: how the launch was configured
    process_start_s: float | None
    weight_load_s: float | None
    compile_s: float | None
    compile_warm: bool
    cuda_graph_s: float | None
    kv_and_server_s: float | None


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


# What a launch's stream rate is called in a message, and its range.
STREAM_RATE = "stream throughput"


def _checked(
    name: str, value: float, labels: Sequence[str], bound: FigureRange | None = None, *, source: str = "log"
) -> float:
    """`value`, when figure `name` may take it; else FastloadConfigError naming the logs (or timelines) it
    came from."""
    bound = bound or FIGURE_RANGES[name]
    if not bound.holds(value):
        raise FastloadConfigError(
            f"{source} " + ", ".join(labels), f"{name} {value:g}", f"{source}s that give a {name} of {bound.accepted}"
        )
    return value


def _fitted(
    name: str,
    measured: Sequence[tuple[str, float]],
    digits: int,
    bound: FigureRange | None = None,
    *,
    source: str = "log",
) -> float | None:
    """The median of the launches' figures [(label, value)], rounded to `digits`: each launch's, then the
    median, checked against the range of `name` (None: no launch measured it)."""
    for label, value in measured:
        _checked(name, value, [label], bound, source=source)
    if not measured:
        return None
    fitted = round(statistics.median(v for _, v in measured), digits)
    return _checked(name, fitted, [label for label, _ in measured], bound, source=source)


def _stream_rates(launches: list[MeasuredLaunch], fixed_s: float) -> tuple[tuple[str, str, float], ...]:
    """Median MB/s per (instance type, source): bytes over the weight load less vLLM's own set-up."""
    rates: dict[tuple[str, str], list[tuple[str, float]]] = {}
    for launch in launches:
        if launch.weight_load_s is not None and launch.weight_load_s > fixed_s:
            rate = launch.model.total_bytes / (launch.weight_load_s - fixed_s) / MB
            rates.setdefault((launch.instance_type, launch.source), []).append((launch.label, rate))
    fitted = {key: _fitted(STREAM_RATE, measured, 1, RATE_MB_S) for key, measured in rates.items()}
    return tuple(sorted((i, s, rate) for (i, s), rate in fitted.items() if rate is not None))


def _fixed_costs(launches: list[MeasuredLaunch]) -> dict[str, float]:
    """Process start (a median) and KV + server per decoder layer (the median over launches)."""
    changes: dict[str, float] = {}
    starts = [(x.label, x.process_start_s) for x in launches if x.process_start_s is not None]
    start = _fitted("process_start_s", starts, 3)
    if start is not None:
        changes["process_start_s"] = start
    per_layer = [
        (x.label, x.kv_and_server_s / estimated_layers(x.model)) for x in launches if x.kv_and_server_s is not None
    ]
    kv = _fitted("kv_and_server_s_per_layer", per_layer, 4)
    if kv is not None:
        changes["kv_and_server_s_per_layer"] = kv
    return changes


def _compile_and_graphs(launches: list[MeasuredLaunch], figures: VllmFigures) -> dict[str, float]:
    """Cold compile and CUDA graphs as medians of measured / modelled; a warm compile as its fixed cost
    (beyond Dynamo's per-layer re-trace; the whole hit where the release loads the AOT artefact)."""
    unscaled = dataclasses.replace(figures, compile_scale=1.0, cuda_graph_scale=1.0)
    measured: dict[str, list[tuple[str, float]]] = {}
    for x in launches:
        release = x.options.serving.engine_version
        if x.compile_s is not None and x.compile_s > 0 and release_family(release) != "v0":
            if x.compile_warm and uses_aot_compile(release):
                measured.setdefault("compile_warm_aot_s", []).append((x.label, x.compile_s))
            elif x.compile_warm:
                dynamo = figures.compile_warm_s_per_layer * estimated_layers(x.model)
                measured.setdefault("compile_warm_fixed_s", []).append((x.label, max(0.0, x.compile_s - dynamo)))
            else:
                tp = x.options.tensor_parallel_size or 1
                ratio = x.compile_s / compile_seconds(x.model, release, False, unscaled, tp)
                measured.setdefault("compile_scale", []).append((x.label, ratio))
        if x.cuda_graph_s is not None and x.cuda_graph_s > 0:
            sizes, seqs = x.options.cudagraph_capture_sizes, x.options.max_num_seqs
            tp = x.options.tensor_parallel_size or 1
            modelled = cuda_graph_seconds(x.model, release, sizes, seqs, CATALOG.get(x.instance_type), unscaled, tp)
            if modelled > 0:
                measured.setdefault("cuda_graph_scale", []).append((x.label, x.cuda_graph_s / modelled))
    digits = {"compile_scale": 4, "cuda_graph_scale": 4}
    fitted = {name: _fitted(name, values, digits.get(name, 3)) for name, values in measured.items()}
    return {name: value for name, value in fitted.items() if value is not None}


def fit_assumptions(launches: list[MeasuredLaunch], base: LoadAssumptions | None = None) -> LoadAssumptions:
    """Assumptions under which plans reproduce `launches` (see the module docstring)."""
    require(bool(launches), "logs", [], "at least one vLLM start-up log")
    a = base or LoadAssumptions()
    figures = vllm_figures(a)
    fitted = with_vllm_figures(a, **_fixed_costs(launches), **_compile_and_graphs(launches, figures))
    return dataclasses.replace(fitted, measured_throughput_mb_s=_stream_rates(launches, figures.weight_load_fixed_s))


@dataclass(frozen=True)
class MeasuredNode:
    """One real scale-out's fresh-node phases (seconds; None = not recorded), from `fastload timeline`.

    `node_s` is launch + GPU registration where the dump has no boundary between them (no NodeClaim
    `Registered` event); `image_pull_s` is the kubelet's own timing of the pull ("Successfully pulled
    image ... in X"), `image_bytes` its "Image size", `pull_mode` how that node pulled.
    """

    label: str
    node_launch_s: float | None = None
    gpu_registration_s: float | None = None
    node_s: float | None = None
    image_pull_s: float | None = None
    image_bytes: int | None = None
    pull_mode: PullMode = "parallel"


def fit_node_phases(
    nodes: list[MeasuredNode], base: LoadAssumptions | None = None, family: str = DEFAULT_AMI_FAMILY
) -> LoadAssumptions:
    """The fresh-node constants from real scale-outs (medians; each constant only from what was recorded).

    * node launch, GPU registration: medians of the split measurements; scale-outs that recorded only
      their sum rescale both so they add up to its median, keeping the split measured (or cited) so far;
    * image pull: a pull mode's own constant: plain and parallel as a rate (bytes over the kubelet's
      seconds; parallel divided by the FastImagePull speed-up, so both modes stay consistent), lazy and
      snapshot as seconds.

    `family`: the AMI family of the measured nodes, whose fitted split applies until both are measured. Each
    scale-out's figure is checked against its range, naming its timeline (`_checked`).
    """
    require(bool(nodes), "timelines", [], "at least one `fastload timeline --json` output")
    a = base or LoadAssumptions()
    launch = _node_launch(nodes, a, family)
    return dataclasses.replace(a, **launch, **_image_arrival(nodes, a))  # type: ignore[arg-type]


def _node_seconds(nodes: list[MeasuredNode], name: str, figure: str) -> float | None:
    """The median of `name` over the scale-outs that recorded it, each checked as figure `figure`."""
    measured = [(n.label, getattr(n, name)) for n in nodes if getattr(n, name) is not None]
    for label, value in measured:
        _checked(figure, value, [label], source="timeline")
    return _median([v for _, v in measured])


def _node_launch(nodes: list[MeasuredNode], a: LoadAssumptions, family: str) -> dict[str, float]:
    """Node launch and GPU registration: their medians, or the median of their sum split as so far."""
    changes: dict[str, float] = {}
    launch = _node_seconds(nodes, "node_launch_s", "node_launch_s")
    registration = _node_seconds(nodes, "gpu_registration_s", "gpu_registration_s")
    fitted_launch, fitted_registration = a.node_phases(family)
    node_launch = launch if launch is not None else fitted_launch
    gpu_registration = registration if registration is not None else fitted_registration
    summed = [n for n in nodes if n.node_launch_s is None]
    whole = _node_seconds(summed, "node_s", "node_launch_s")
    if whole is not None and (launch is None or registration is None):
        share = node_launch / (node_launch + gpu_registration)
        node_launch, gpu_registration = whole * share, whole * (1 - share)
    if launch is not None or whole is not None:
        changes["node_launch_s"] = round(node_launch, 3)
    if registration is not None or whole is not None:
        changes["gpu_registration_s"] = round(gpu_registration, 3)
    return changes


def _image_arrival(nodes: list[MeasuredNode], a: LoadAssumptions) -> dict[str, float]:
    """The image pull rate (plain and parallel, as containerd's own rate) and the lazy and snapshot seconds."""
    changes: dict[str, float] = {}
    for mode in ("plain", "parallel"):
        speedup = a.fast_image_pull_speedup if mode == "parallel" else 1.0
        rates = [
            (n.label, n.image_bytes / n.image_pull_s / MB / speedup)
            for n in nodes
            if n.pull_mode == mode and n.image_pull_s and n.image_bytes
        ]
        rate = _fitted("image_pull_mb_s", rates, 3, source="timeline")
        if rate is not None:
            changes["image_pull_mb_s"] = rate
    for mode, key in (("lazy", "lazy_image_pull_s"), ("snapshot", "snapshot_image_s")):
        seconds = _node_seconds([n for n in nodes if n.pull_mode == mode], "image_pull_s", key)
        if seconds is not None:
            changes[key] = round(seconds, 3)
    return changes
