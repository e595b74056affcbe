"""Predicted seconds per start-up phase of a vLLM pod: process, weights, compile, CUDA graphs, server."""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.core.catalog import GpuInstance
from fastload_constructs.core.model import DTYPE_BYTES, ModelProfile
from fastload_constructs.core.planning.assumptions import MB
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.releases import captured_graphs, default_capture_sizes, release_family
from fastload_constructs.core.planning.serving import StreamSource
from fastload_constructs.core.planning.streamer import StreamerSettings, load_network_mb_s


@dataclass(frozen=True)
class PhaseEstimate:
    """Predicted seconds per start-up phase of the pod; `total_s` is their sum."""

    process_start_s: float
    weight_load_s: float
    compile_s: float
    cuda_graph_s: float
    kv_and_server_s: float
    load_throughput_mb_s: float

    @property
    def total_s(self) -> float:
        return self.process_start_s + self.weight_load_s + self.compile_s + self.cuda_graph_s + self.kv_and_server_s

    @property
    def dominant_phase(self) -> str:
        phases = {
            "process_start": self.process_start_s,
            "weight_load": self.weight_load_s,
            "compile": self.compile_s,
            "cuda_graph": self.cuda_graph_s,
            "kv_and_server": self.kv_and_server_s,
        }
        return max(phases, key=phases.__getitem__)


def estimated_layers(model: ModelProfile) -> int:
    """Decoder layers: from config.json, else a rule of thumb from the parameter count.

    Llama 3.x configs (huggingface.co/meta-llama: 1B 16, 3B 28, 8B 32, 70B 80, 405B 126 layers)
    follow layers ~ 16 x (parameters / 1e9) ^ 0.33 within 20%.
    """
    if model.architecture is not None:
        return model.architecture.num_layers
    params = float(model.parameter_count or model.total_bytes / DTYPE_BYTES.get(model.dtype, 2))
    scaled: float = 16.0 * (params / 1e9) ** 0.33
    return max(1, round(scaled))


def _transfer_seconds(nbytes: float, rate_mb_s: float, sustained_mb_s: float, window_s: float) -> float:
    """Seconds to move `nbytes` at `rate` while burst credit lasts (`window_s`), then at min(rate, sustained)."""
    rate = rate_mb_s * MB
    if nbytes <= rate * window_s:
        return nbytes / rate
    return window_s + (nbytes - rate * window_s) / (min(rate_mb_s, sustained_mb_s) * MB)


def weight_load(
    model: ModelProfile,
    instance: GpuInstance,
    tp: int,
    streamer: StreamerSettings,
    opts: TuningOptions,
    source: StreamSource,
) -> tuple[float, float]:
    """(seconds, MB/s) to get the weights onto the GPUs.

    S3: rate = min(concurrency x TP x 120 MB/s per CRT unit, the pod's NIC x 0.65, PCIe x TP); the
    NIC is the burst for the first 5 minutes on "up to" sizes, the baseline after. Local NVMe:
    min(devices x per-device rate, PCIe x TP). A calibrated throughput for this instance type and
    source replaces the modelled rate. Without distributed streaming every rank reads the whole
    model, so the node moves TP times the bytes. Plus vLLM's fixed model set-up.
    """
    a = opts.assumptions
    bytes_moved = model.total_bytes if (streamer.distributed or tp == 1) else model.total_bytes * tp
    pcie = a.pcie_mb_per_gpu * tp
    measured = a.measured_throughput(instance.name, source)
    if measured is not None:
        return a.weight_load_fixed_s + bytes_moved / (measured * MB), measured
    if source == "local":
        threads = streamer.concurrency * tp * a.streamer_local_mb_per_thread
        rate = min(a.nvme_mb_per_device * max(1, instance.nvme_count), threads, pcie)
        return a.weight_load_fixed_s + bytes_moved / (rate * MB), rate
    burst_mb, sustained_mb = load_network_mb_s(instance, opts)
    rate = min(streamer.concurrency * tp * a.streamer_mb_per_unit, burst_mb, pcie)
    seconds = _transfer_seconds(bytes_moved, rate, sustained_mb, a.burst_window_s)
    return a.weight_load_fixed_s + seconds, bytes_moved / seconds / MB


def compile_seconds(model: ModelProfile, opts: TuningOptions, warm: bool) -> float:
    """torch.compile: none before 0.7; a cache hit costs Dynamo again (per layer, it is not cached)
    plus the artifact load (a release-family constant); a miss costs Dynamo (per layer) + Inductor
    (fixed + per layer), scaled by a calibration factor."""
    family = release_family(opts.serving.engine_version)
    a = opts.assumptions
    if family == "v0":
        return 0.0
    layers = estimated_layers(model)
    if warm:
        load = a.compile_warm_recent_s if family == "recent" else a.compile_warm_v1_s
        return load + a.compile_warm_dynamo_s_per_layer * layers
    cold = a.dynamo_s_per_layer * layers + a.inductor_fixed_s + a.inductor_s_per_layer * layers
    return cold * a.compile_scale


def capture_sizes_for(opts: TuningOptions) -> tuple[int, ...]:
    family = release_family(opts.serving.engine_version)
    if opts.cudagraph_capture_sizes is not None:
        return opts.cudagraph_capture_sizes
    return default_capture_sizes(family, opts.max_num_seqs)


def is_hopper_or_newer(instance: GpuInstance | None) -> bool:
    """CUDA capability 9.0 or above (H100, H200, B200): the GPUs whose published graph captures are fast."""
    if instance is None:
        return False
    major = instance.cuda_capability.split(".", 1)[0]
    return major.isdigit() and int(major) >= 9


def cuda_graph_seconds(model: ModelProfile, opts: TuningOptions, instance: GpuInstance | None = None) -> float:
    """CUDA-graph capture = fixed + graphs x layers x per-graph-layer cost, piecewise or full; on Hopper
    and newer GPUs the per-graph cost times `cuda_graph_hopper_factor`. `instance` None: GPU not known.

    v0: one full-model graph per size. v1: one piecewise graph set per size. Recent (>= 0.11,
    FULL_AND_PIECEWISE): piecewise for every size plus a full decode graph per size <= max_num_seqs.

    Trade-off of a shorter capture-size list: start-up drops roughly in proportion (54 s -> 7 s for
    Llama-3.1-8B with 1..64, tensorfuse), but a batch larger than the largest size, or between two
    sizes, runs padded to the next size or eagerly: decode throughput at high concurrency falls.
    """
    family = release_family(opts.serving.engine_version)
    sizes = capture_sizes_for(opts)
    if not sizes:
        return 0.0
    a = opts.assumptions
    layers = estimated_layers(model)
    full = captured_graphs(family, sizes, opts.max_num_seqs) - len(sizes) if family == "recent" else 0
    if family == "v0":
        per_size = len(sizes) * layers * a.cuda_graph_full_s_per_graph_layer
    else:
        per_size = len(sizes) * layers * a.cuda_graph_s_per_graph_layer
    per_full = full * layers * a.cuda_graph_full_s_per_graph_layer
    gpu = a.cuda_graph_hopper_factor if is_hopper_or_newer(instance) else 1.0
    return (a.cuda_graph_fixed_s + gpu * (per_size + per_full)) * a.cuda_graph_scale


def predict_phases(
    model: ModelProfile,
    instance: GpuInstance,
    tp: int,
    streamer: StreamerSettings,
    opts: TuningOptions,
    *,
    source: StreamSource | None = None,
    warm_compile: bool | None = None,
) -> PhaseEstimate:
    """Seconds per phase of the pod, from bytes over the narrowest pipe and the architecture."""
    a = opts.assumptions
    warm = opts.compile_cache_warm if warm_compile is None else warm_compile
    if opts.serving.engine == "sglang":  # SGLang's own phases (issue 29)
        from fastload_constructs.core.planning import sglang_phases

        return sglang_phases.predict(
            model, instance, tp, streamer, opts, source=source or opts.serving.stream_source, warm_compile=warm
        )
    seconds, rate = weight_load(model, instance, tp, streamer, opts, source or opts.serving.stream_source)
    return PhaseEstimate(
        process_start_s=a.process_start_s,
        weight_load_s=seconds,
        compile_s=compile_seconds(model, opts, warm),
        cuda_graph_s=cuda_graph_seconds(model, opts, instance),
        kv_and_server_s=a.kv_and_server_s,
        load_throughput_mb_s=rate,
    )


def pod_phases(estimate: PhaseEstimate) -> tuple[tuple[str, float], ...]:
    return (
        ("process_start", estimate.process_start_s),
        ("weight_load", estimate.weight_load_s),
        ("compile", estimate.compile_s),
        ("cuda_graph", estimate.cuda_graph_s),
        ("kv_and_server", estimate.kv_and_server_s),
    )
