"""The range of every planner figure: what an assumptions file, a calibration fit or a caller may set.

A figure outside its range is a typo, a broken log or an attack, never a measurement, and it breaks the
arithmetic: a rate of 0 divides a size (ZeroDivisionError), 1e308 overflows the first sum or the first
`int()` of a time, `Infinity` and `NaN` make the assumptions file no longer JSON, a 400-digit integer cannot
become a float. The ranges are compared before anything is converted (Python compares an int with a float
exactly, NaN with nothing), so every one of them is refused here, named, in one line.

Why each range:

    RATE_MB_S   0.01 to 1,000,000 MB/s: a rate divides a size. 10 kB/s is below any disk or network that
                serves weights (16 GB would take 18 days); 1 TB/s is above every NIC, NVMe array and PCIe
                link of the catalog (the fastest EC2 network is 3,200 Gbps, 400,000 MB/s).
    SHARE       0.01 to 1: a share of the pod's network that a stream reaches; it multiplies a rate, so 0
                divides by zero too, and more than all of it is no share.
    SPEEDUP     0.1 to 100: FastImagePull's gain over containerd's own pull, dividing a rate (published:
                1.9-3.3x); two orders of magnitude either way is no longer the same pull.
    SECONDS     0 to 86,400 s: one start-up phase or window. A day is far beyond the longest phase published
                (3.2 h of CUDA-graph capture with LoRA) and keeps every sum far from overflow.
    PER_UNIT_S  0 to 3,600 s per decoder layer or graph-layer: multiplied by at most a few thousand layers
                and graphs; a layer compiles in under a second.
    SCALE       0.01 to 100: measured / modelled (calibration) and V0's factor on the fitted graph model;
                beyond two orders of magnitude the model or the log is wrong, and planning on it is not.
    EXPONENT    0 to 4: TP^exponent of the graph capture and the cold compile (fitted: 0.5); 4 already makes
                TP 8 cost 4,096x.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.core.errors import FastloadConfigError, is_whole_number


@dataclass(frozen=True)
class FigureRange:
    """A figure's closed range [low, high] and what it is, for the message."""

    low: float
    high: float
    unit: str

    def holds(self, value: object) -> bool:
        """`value` is a number (not a bool) within the range. NaN is within nothing; an infinity or a huge
        integer is above `high`; nothing is converted before the comparison."""
        if not (is_whole_number(value) or isinstance(value, float)):
            return False
        return self.low <= value <= self.high

    @property
    def accepted(self) -> str:
        return f"a number from {self.low:g} to {self.high:g} ({self.unit})"


RATE_MB_S = FigureRange(0.01, 1_000_000.0, "MB/s; it divides a size")
SHARE = FigureRange(0.01, 1.0, "a share of the network; it multiplies a rate")
SPEEDUP = FigureRange(0.1, 100.0, "times containerd's pull rate")
SECONDS = FigureRange(0.0, 86_400.0, "seconds")
PER_UNIT_S = FigureRange(0.0, 3_600.0, "seconds per layer or graph")
SCALE = FigureRange(0.01, 100.0, "times the modelled phase")
EXPONENT = FigureRange(0.0, 4.0, "the exponent of the tensor-parallel size")

FIGURE_RANGES: dict[str, FigureRange] = {
    # The platform's figures (LoadAssumptions).
    "streamer_mb_per_unit": RATE_MB_S,
    "network_efficiency": SHARE,
    "burst_window_s": SECONDS,
    "nvme_mb_per_device": RATE_MB_S,
    "streamer_local_mb_per_thread": RATE_MB_S,
    "pcie_mb_per_gpu": RATE_MB_S,
    "karpenter_batch_s": SECONDS,
    "nodeclaim_launch_s": SECONDS,
    "bottlerocket_launch_to_ready_s": SECONDS,
    "bottlerocket_ready_to_gpu_s": SECONDS,
    "al2023_launch_to_ready_s": SECONDS,
    "al2023_ready_to_gpu_s": SECONDS,
    "node_launch_s": SECONDS,
    "gpu_registration_s": SECONDS,
    "image_pull_mb_s": RATE_MB_S,
    "fast_image_pull_speedup": SPEEDUP,
    "lazy_image_pull_s": SECONDS,
    "lazy_import_extra_s": SECONDS,
    "snapshot_image_s": SECONDS,
    "snapshot_rate_image_s": SECONDS,
    # The provisioned initialization rate that figure was measured at (the planned rate scales it): a rate.
    "snapshot_rate_reference_mibps": RATE_MB_S,
    "snapshot_lazy_mb_s": RATE_MB_S,
    # vLLM's figures (VllmFigures), the engine `fastload calibrate` fits.
    "process_start_s": SECONDS,
    "weight_load_fixed_s": SECONDS,
    "kv_and_server_s_per_layer": PER_UNIT_S,
    "compile_cold_fixed_s": SECONDS,
    "compile_cold_tp_exponent": EXPONENT,
    "compile_warm_fixed_s": SECONDS,
    "compile_warm_s_per_layer": PER_UNIT_S,
    "compile_warm_aot_s": SECONDS,
    "cuda_graph_fixed_s": SECONDS,
    "cuda_graph_s_per_graph_layer": PER_UNIT_S,
    "cuda_graph_tp_exponent": EXPONENT,
    "cuda_graph_v0_factor": SCALE,
    "compile_scale": SCALE,
    "cuda_graph_scale": SCALE,
}


def check_figure(name: str, value: object, field: str) -> float:
    """`value` as a float when figure `name` may take it (-0.0 read as 0.0), else FastloadConfigError naming
    `field`. A figure without a range is refused too: none is read unchecked."""
    bound = FIGURE_RANGES.get(name)
    if bound is None:
        raise FastloadConfigError(field, value, "a figure of the planner: one of " + ", ".join(FIGURE_RANGES))
    if not bound.holds(value):
        raise FastloadConfigError(field, value, bound.accepted)
    assert isinstance(value, int | float)
    return float(value) + 0.0


def check_rate(value: object, field: str) -> float:
    """A measured throughput in MB/s (`fastload calibrate`'s rows), in the rate range."""
    if not RATE_MB_S.holds(value):
        raise FastloadConfigError(field, value, RATE_MB_S.accepted)
    assert isinstance(value, int | float)
    return float(value) + 0.0
