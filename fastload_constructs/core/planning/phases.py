"""Predicted seconds per start-up phase of a server pod: the streamer's transfer here, the rest the engine's.

How fast the weights reach the GPUs depends on the streamer, the network, the disks and PCIe, not on
the engine: `weight_transfer` models it. The engine (`core.engines`, by the plan's engine name) adds
its own costs around it: process start, its set-up of the model, compile, CUDA graphs, KV and server.
"""

from __future__ import annotations

from fastload_constructs.core.catalog import GpuInstance
from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.engines.phases import PhaseEstimate, PhaseInputs
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.assumptions import MB
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.serving import StreamSource
from fastload_constructs.core.planning.streamer import StreamerSettings, load_network_mb_s


def _transfer_seconds(nbytes: float, rate_mb_s: float, sustained_mb_s: float, window_s: float) -> float:
    """Seconds to move `nbytes` at `rate` while burst credit lasts (`window_s`), then at min(rate, sustained)."""
    rate = rate_mb_s * MB
    if nbytes <= rate * window_s:
        return nbytes / rate
    return window_s + (nbytes - rate * window_s) / (min(rate_mb_s, sustained_mb_s) * MB)


def weight_transfer(
    model: ModelProfile,
    instance: GpuInstance,
    tp: int,
    streamer: StreamerSettings,
    opts: TuningOptions,
    source: StreamSource,
) -> tuple[float, float]:
    """(seconds, MB/s) for the streamer to move the weights onto the GPUs, without the engine's set-up.

    S3: rate = min(concurrency x TP x 120 MB/s per CRT unit, the pod's NIC x 0.65, PCIe x TP); the
    NIC is the burst for the first 5 minutes on "up to" sizes, the baseline after. Local NVMe:
    min(devices x per-device rate, PCIe x TP). A calibrated throughput for this instance type and
    source replaces the modelled rate. Without distributed streaming every rank reads the whole
    model, so the node moves TP times the bytes.
    """
    a = opts.assumptions
    bytes_moved = model.total_bytes if (streamer.distributed or tp == 1) else model.total_bytes * tp
    pcie = a.pcie_mb_per_gpu * tp
    measured = a.measured_throughput(instance.name, source)
    if measured is not None:
        return bytes_moved / (measured * MB), measured
    if source == "local":
        threads = streamer.concurrency * tp * a.streamer_local_mb_per_thread
        rate = min(a.nvme_mb_per_device * max(1, instance.nvme_count), threads, pcie)
        return bytes_moved / (rate * MB), rate
    burst_mb, sustained_mb = load_network_mb_s(instance, opts)
    rate = min(streamer.concurrency * tp * a.streamer_mb_per_unit, burst_mb, pcie)
    seconds = _transfer_seconds(bytes_moved, rate, sustained_mb, a.burst_window_s)
    return seconds, bytes_moved / seconds / MB


def phase_inputs(
    model: ModelProfile,
    instance: GpuInstance,
    tp: int,
    streamer: StreamerSettings,
    opts: TuningOptions,
    *,
    source: StreamSource | None = None,
    warm_compile: bool | None = None,
) -> PhaseInputs:
    """What the plan's engine needs to predict one start-up: the transfer, the model, GPU and options."""
    seconds, rate = weight_transfer(model, instance, tp, streamer, opts, source or opts.serving.stream_source)
    return PhaseInputs(
        model=model,
        instance=instance,
        release=opts.serving.engine_version,
        options=opts,
        figures=opts.assumptions.figures_for(opts.serving.engine),
        warm_compile=opts.compile_cache_warm if warm_compile is None else warm_compile,
        transfer_s=seconds,
        transfer_mb_s=rate,
        tensor_parallel_size=tp,
    )


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
    """Seconds per phase of the pod, from bytes over the narrowest pipe and the engine's own model."""
    inputs = phase_inputs(model, instance, tp, streamer, opts, source=source, warm_compile=warm_compile)
    return engine_named(opts.serving.engine).predict_phases(inputs)


def pod_phases(estimate: PhaseEstimate) -> tuple[tuple[str, float], ...]:
    return (
        ("process_start", estimate.process_start_s),
        ("weight_load", estimate.weight_load_s),
        ("compile", estimate.compile_s),
        ("cuda_graph", estimate.cuda_graph_s),
        ("kv_and_server", estimate.kv_and_server_s),
    )
