"""The plan's reasoning in words: what each predicted figure rests on, for `fastload plan` and the plan's notes.

Kept apart from the arithmetic (`phases`, `fit`, `streamer`, `scale_out`) so the
numbers can be read without the prose and the prose changed without touching them.
"""

from __future__ import annotations

from fastload_constructs.core.catalog import GIB, GpuInstance
from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.engines.phases import PhaseEstimate
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.fit import KvFit
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.phases import phase_inputs
from fastload_constructs.core.planning.pull_modes import describe_pull_mode
from fastload_constructs.core.planning.scale_out import ScaleOutPaths
from fastload_constructs.core.planning.streamer import StreamerSettings, load_network_mb_s


def assumption_notes(
    model: ModelProfile,
    instance: GpuInstance,
    opts: TuningOptions,
    *,
    streamer: StreamerSettings,
    predicted: PhaseEstimate,
    paths: ScaleOutPaths,
    fit: KvFit | None,
) -> tuple[str, ...]:
    """One line per decision: the weight-load rate and its narrowest pipe, the KV fit, compile and graphs,
    the probe budget, and what a fresh node adds."""
    tp = streamer.ranks
    a = opts.assumptions
    engine = engine_named(opts.serving.engine)
    measured = a.measured_throughput(instance.name, opts.serving.stream_source)
    burst_mb, sustained_mb = load_network_mb_s(instance, opts)
    return (
        (
            f"weights at {predicted.load_throughput_mb_s:,.0f} MB/s, calibrated from your logs"
            if measured is not None
            else f"weights at {predicted.load_throughput_mb_s:,.0f} MB/s = min(concurrency {streamer.concurrency}"
            f" x {tp} process(es) x {a.streamer_mb_per_unit:g} MB/s per CRT unit, pod NIC "
            f"{burst_mb:,.0f} MB/s ({a.network_efficiency:.0%} of {instance.pod_burst_gbps:g} Gbps"
            + (
                f" burst, {sustained_mb:,.0f} MB/s baseline after {a.burst_window_s:g} s"
                if instance.network_burst
                else ""
            )
            + f"), PCIe {a.pcie_mb_per_gpu * tp:,.0f} MB/s)"
            if opts.serving.stream_source == "s3"
            else f"weights at {predicted.load_throughput_mb_s:,.0f} MB/s from {max(1, instance.nvme_count)} NVMe "
            f"device(s) at {a.nvme_mb_per_device:g} MB/s (PCIe {a.pcie_mb_per_gpu:g} MB/s per GPU)"
        ),
        (
            f"KV cache: {fit.kv_bytes_per_token:,} B/token/GPU x {fit.max_model_len} tokens x {fit.kv_sequences} "
            f"= {fit.kv_needed_bytes / GIB:.1f} GiB needed, {fit.kv_available_bytes / GIB:.1f} GiB free "
            f"({fit.max_tokens:,} tokens)"
            if fit is not None
            else f"KV cache: architecture unknown, {opts.kv_cache_reserve_fraction:.0%} of vLLM's memory kept for it"
        ),
        engine.phase_note(phase_inputs(model, instance, tp, streamer, opts), predicted),
        f"startup probe budget = max({opts.min_startup_budget_seconds} s, "
        f"{opts.probe_safety_factor:g} x predicted {predicted.total_s:.0f} s)",
        f"fresh {paths.ami_family} node adds node launch {paths.fresh_node.seconds('node_launch'):.0f} s, "
        f"GPU registration {paths.fresh_node.seconds('gpu_registration'):.0f} s, image "
        f"pull {paths.fresh_node.seconds('image_pull'):.0f} s ({opts.image_bytes / 1e9:.1f} GB, "
        + describe_pull_mode(opts.serving.image_pull_mode, opts.serving.image_restore)
        + (
            f", then {paths.fresh_node.seconds('lazy_imports'):.0f} s more imports"
            if opts.serving.image_pull_mode == "lazy"
            else ""
        )
        + "): before the startup probe starts",
    )
