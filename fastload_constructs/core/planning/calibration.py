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
"""

from __future__ import annotations

import dataclasses
import statistics
from dataclasses import dataclass

from fastload_constructs.core.catalog import CATALOG
from fastload_constructs.core.cluster.ami_family import DEFAULT_AMI_FAMILY
from fastload_constructs.core.engines.vllm.phases import VllmFigures, compile_seconds, cuda_graph_seconds
from fastload_constructs.core.engines.vllm.releases import release_family, uses_aot_compile
from fastload_constructs.core.errors import require
from fastload_constructs.core.model import ModelProfile, estimated_layers
from fastload_constructs.core.planning.assumptions import MB, LoadAssumptions
from fastload_constructs.core.planning.assumptions_file import vllm_figures, with_vllm_figures
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


def _stream_rates(launches: list[MeasuredLaunch], fixed_s: float) -> tuple[tuple[str, str, float], ...]:
    """Median MB/s per (instance type, source): bytes over the weight load less vLLM's own set-up."""
    rates: dict[tuple[str, str], list[float]] = {}
    for launch in launches:
        if launch.weight_load_s is not None and launch.weight_load_s > fixed_s:
            seconds = launch.weight_load_s - fixed_s
            rates.setdefault((launch.instance_type, launch.source), []).append(launch.model.total_bytes / seconds / MB)
    return tuple(sorted((i, s, round(statistics.median(v), 1)) for (i, s), v in rates.items()))


def _fixed_costs(launches: list[MeasuredLaunch]) -> dict[str, float]:
    """Process start (a median) and KV + server per decoder layer (the median over launches)."""
    changes: dict[str, float] = {}
    start = _median([x.process_start_s for x in launches if x.process_start_s is not None])
    if start is not None:
        changes["process_start_s"] = round(start, 3)
    kv = _median([x.kv_and_server_s / estimated_layers(x.model) for x in launches if x.kv_and_server_s is not None])
    if kv is not None:
        changes["kv_and_server_s_per_layer"] = round(kv, 4)
    return changes


def _compile_and_graphs(launches: list[MeasuredLaunch], figures: VllmFigures) -> dict[str, float]:
    """Cold compile and CUDA graphs as medians of measured / modelled; a warm compile as its fixed cost
    (beyond Dynamo's per-layer re-trace; the whole hit where the release loads the AOT artefact)."""
    unscaled = dataclasses.replace(figures, compile_scale=1.0, cuda_graph_scale=1.0)
    cold: list[float] = []
    graphs: list[float] = []
    warm: dict[str, list[float]] = {}
    for x in launches:
        release = x.options.serving.engine_version
        if x.compile_s is not None and x.compile_s > 0 and release_family(release) != "v0":
            if x.compile_warm and uses_aot_compile(release):
                warm.setdefault("compile_warm_aot_s", []).append(x.compile_s)
            elif x.compile_warm:
                dynamo = figures.compile_warm_s_per_layer * estimated_layers(x.model)
                warm.setdefault("compile_warm_fixed_s", []).append(max(0.0, x.compile_s - dynamo))
            else:
                tp = x.options.tensor_parallel_size or 1
                cold.append(x.compile_s / compile_seconds(x.model, release, False, unscaled, tp))
        if x.cuda_graph_s is not None and x.cuda_graph_s > 0:
            sizes, seqs = x.options.cudagraph_capture_sizes, x.options.max_num_seqs
            tp = x.options.tensor_parallel_size or 1
            modelled = cuda_graph_seconds(x.model, release, sizes, seqs, CATALOG.get(x.instance_type), unscaled, tp)
            if modelled > 0:
                graphs.append(x.cuda_graph_s / modelled)
    changes: dict[str, float] = {}
    if cold:
        changes["compile_scale"] = round(statistics.median(cold), 4)
    if graphs:
        changes["cuda_graph_scale"] = round(statistics.median(graphs), 4)
    for key, values in warm.items():
        changes[key] = round(statistics.median(values), 3)
    return changes


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

    `family`: the AMI family of the measured nodes, whose fitted split applies until both are measured.
    """
    require(bool(nodes), "timelines", [], "at least one `fastload timeline --json` output")
    a = base or LoadAssumptions()
    changes: dict[str, float] = {}
    launch = _median([n.node_launch_s for n in nodes if n.node_launch_s is not None])
    registration = _median([n.gpu_registration_s for n in nodes if n.gpu_registration_s is not None])
    fitted_launch, fitted_registration = a.node_phases(family)
    node_launch = launch if launch is not None else fitted_launch
    gpu_registration = registration if registration is not None else fitted_registration
    whole = _median([n.node_s for n in nodes if n.node_s is not None and n.node_launch_s is None])
    if whole is not None and (launch is None or registration is None):
        share = node_launch / (node_launch + gpu_registration)
        node_launch, gpu_registration = whole * share, whole * (1 - share)
    if launch is not None or whole is not None:
        changes["node_launch_s"] = round(node_launch, 3)
    if registration is not None or whole is not None:
        changes["gpu_registration_s"] = round(gpu_registration, 3)
    for mode in ("plain", "parallel"):
        rates = [
            n.image_bytes / n.image_pull_s / MB
            for n in nodes
            if n.pull_mode == mode and n.image_pull_s and n.image_bytes
        ]
        rate = _median(rates)
        if rate is not None:
            changes["image_pull_mb_s"] = round(rate / (a.fast_image_pull_speedup if mode == "parallel" else 1.0), 3)
    for mode, key in (("lazy", "lazy_image_pull_s"), ("snapshot", "snapshot_image_s")):
        seconds = _median([n.image_pull_s for n in nodes if n.pull_mode == mode and n.image_pull_s is not None])
        if seconds is not None:
            changes[key] = round(seconds, 3)
    return dataclasses.replace(a, **changes)  # type: ignore[arg-type]
