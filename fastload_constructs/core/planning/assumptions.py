"""The throughput and fixed-cost figures every prediction rests on, each with its source.

The platform's figures (streamer, network, NVMe, PCIe, node launch, GPU registration, image pull) are
here; each engine's own (process start, compile, CUDA graphs, server) are its `EngineFigures`
(`core.engines.vllm.phases.VllmFigures`, `core.engines.sglang.phases.SglangFigures`). Override any of
them, or load a calibrated set fitted to your own logs (`fastload calibrate`, `planning.calibration`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType

from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.engines.phases import EngineFigures
from fastload_constructs.core.errors import require
from fastload_constructs.core.planning.figure_bounds import FIGURE_RANGES, check_figure, check_rate

MB = 1000**2


@dataclass(frozen=True)
class LoadAssumptions:
    """Throughput and fixed-cost figures a prediction rests on, each from a cited source.

    Override any of them, or load a calibrated set fitted to your own logs (`fastload calibrate`,
    `calibration.assumptions_from_dict`). The formulas that use them are documented where they are applied.
    `engine_figures`: an engine's own figures by engine name, e.g. `{"vllm": VllmFigures(compile_scale=1.3)}`;
    an engine left out uses its cited defaults (`figures_for`).
    """

    # --- Run:ai streamer on S3 -------------------------------------------------------------------
    # One concurrency unit is an AWS CRT S3 client (runai-model-streamer cpp/s3/client/client.cc:
    # Aws::S3Crt::S3CrtClient per unit), which opens many connections of its own; a unit is NOT one
    # 90 MB/s HTTP connection. Per unit, the streamer's published S3 sweep (Llama-3-8B, 16.06 GB,
    # g5.12xlarge; github.com/run-ai/runai-model-streamer docs/src/benchmarks.md, Appendix C) gives
    # 16.06e9 / 28.24 s / 4 = 142, / 8.45 s / 16 = 119, / 4.88 s / 32 = 103 MB/s: 120 MB/s mid-range.
    streamer_mb_per_unit: float = 120.0
    # Share of the pod's network an S3 stream reaches. The same sweep saturates at 3.2-3.3 GB/s
    # (concurrency 32: 4.88 s, 64: 5.01 s) on g5.12xlarge's 40 Gbps (5,000 MB/s): 0.65.
    network_efficiency: float = 0.65
    # "Up to" sizes burst "for a limited time, typically from 5 to 60 minutes" (EC2 User Guide,
    # instance network bandwidth): plan the burst for the first 5 minutes only, the baseline after.
    burst_window_s: float = 300.0
    # --- node-local NVMe and PCIe --------------------------------------------------------------
    # Sequential read of one instance-store NVMe device, MB/s: assumed (AWS publishes IOPS, not MB/s,
    # for g5/g6/g6e instance store); bench/gpu_load.py measures it on a real node.
    nvme_mb_per_device: float = 2000.0
    # One streamer thread reading a local file: 16.06e9 B in 47.56 s (gp3) and 43.71 s (io2) at
    # concurrency 1 in the streamer's sweep (docs/src/benchmarks.md, Appendices A-B): 350 MB/s.
    streamer_local_mb_per_thread: float = 350.0
    # Host-to-device copy per GPU, MB/s: PCIe Gen4 x16 is 31.5 GB/s raw (PCI-SIG); pinned copies reach
    # ~20-25 GB/s; 12 GB/s leaves margin for pageable buffers. bench/gpu_load.py measures it.
    pcie_mb_per_gpu: float = 12000.0
    # --- fresh node -----------------------------------------------------------------------------
    # Pending pod to a registered GPU node (Karpenter: NodeClaim created -> launched -> registered).
    # GPU nodes boot slower than CPU nodes (the 26-40 s of karpenter.sh's NodeClaim example is a
    # c5a.2xlarge): g6.12xlarge created -> launched 2.8 s, launched -> registered 76.5 s (Karpenter
    # controller log, gnosia93/training-on-eks, Karpenter 1.8-era, EKS 1.34); "~70 seconds vs ~80 seconds
    # from instance launch to node registration" (aws/karpenter-provider-aws issue #6128): 78 s.
    node_launch_s: float = 78.0
    # Registered -> initialized: the NVIDIA device plugin starts on the node and registers
    # `nvidia.com/gpu`, and only then does kube-scheduler bind the pod (karpenter-provider-aws #1914):
    # 61.0 s on the g6.12xlarge above (`allocatable` shows `nvidia.com/gpu: 4`); a GPU node "may show
    # as ready but still require about a minute to allocate GPU resources" (cloudpilot-ai/
    # karpenter-provider-gcp PR #148): 60 s.
    gpu_registration_s: float = 60.0
    # Image pull + unpack of the AWS vLLM DLC, 9,354,342,327 B: 2m10.8s with containerd's default
    # pull, 39.6 s with SOCI parallel pull on AL2023 (nodeadm FastImagePull) (aws-samples/
    # karpenter-blueprints, blueprints/soci-snapshotter/README.md): 71.5 MB/s, 3.3x faster in parallel.
    image_pull_mb_s: float = 71.5
    fast_image_pull_speedup: float = 3.3
    # SOCI lazy loading: the pull itself is a manifest and index, 1.8 s (vLLM v0.26.0, 8.91 GB, llm-d
    # guides/gke-pod-snapshots/benchmark-results/vllm-qwen3-32b-h100.md), 2.6 s (vllm-openai:v0.19.1,
    # 9.61 GB, llm-d guides/pod-snapshot/README.md), 4.5 s (5.59 GB, ai-on-gke tutorial events): 2.6 s.
    lazy_image_pull_s: float = 2.6
    # ... but every file vLLM imports is fetched when first read: "Python & CUDA library imports
    # (on-demand via gcfs) 73s" before "Loading model from scratch" (same llm-d benchmark, GKE image
    # streaming, the published lazy-loading measurement for a vLLM image), of which process_start's
    # 25 s is what imports from a local disk cost anyway: 48 s more.
    lazy_import_extra_s: float = 48.0
    # The image already on an EBS data volume restored from a snapshot with Fast Snapshot Restore:
    # "pod starts up in less than 5 seconds" for a 9.5 GB (20.4 GB unpacked) image (aws-ia.github.io/
    # terraform-aws-eks-blueprints/patterns/machine-learning/ml-container-cache): 5 s, the bound.
    snapshot_image_s: float = 5.0
    # --- calibration (fastload calibrate) --------------------------------------------------------
    # Measured stream throughput per (instance type, source), replacing the modelled one.
    measured_throughput_mb_s: tuple[tuple[str, str, float], ...] = ()
    engine_figures: Mapping[str, EngineFigures] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Every figure in its range (`figure_bounds`): a rate of 0 or a figure of 1e308 fails here, named,
        # not as a ZeroDivisionError or an OverflowError in a plan.
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in FIGURE_RANGES and value is not None:
                check_figure(f.name, value, f"assumptions.{f.name}")
        for i, (_, _, mb_s) in enumerate(self.measured_throughput_mb_s):
            check_rate(mb_s, f"assumptions.measured_throughput_mb_s[{i}]")
        require(
            isinstance(self.engine_figures, Mapping),
            "assumptions.engine_figures",
            self.engine_figures,
            "a mapping of engine name to its figures",
        )
        calibrated = {}
        for name, figures in self.engine_figures.items():
            engine = engine_named(name, "assumptions.engine_figures")
            if engine.figures(figures) != engine.default_figures:  # an engine's defaults are no calibration
                calibrated[name] = figures
        object.__setattr__(self, "engine_figures", MappingProxyType(calibrated))

    def figures_for(self, engine: str) -> EngineFigures:
        """The figures of `engine`: calibrated ones, else the engine's cited defaults."""
        found = self.engine_figures.get(engine)
        return found if found is not None else engine_named(engine).default_figures

    def measured_throughput(self, instance_type: str, source: str) -> float | None:
        for name, src, mb_s in self.measured_throughput_mb_s:
            if name == instance_type and src == source:
                return mb_s
        return None
