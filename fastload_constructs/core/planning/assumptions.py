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
    # --- fresh node: a pending pod -> a GPU node Karpenter launched offers `nvidia.com/gpu` --------------
    # Fitted from published GPU-node start-ups (tests/fixtures/gpu_node_startups.json, each row with its
    # address; bench/node_phase_fit.py, one vote per author group, geometric mean of the votes;
    # tests/test_node_phase_fit.py recomputes them). docs/planning.md "GPU nodes" has the rows, the
    # leave-one-source-out error and where sources disagree.
    # Karpenter batches pending pods before it creates a NodeClaim: BATCH_IDLE_DURATION, default 1 s (at
    # most BATCH_MAX_DURATION, 10 s; Karpenter settings, kubernetes-sigs/karpenter pkg/operator/options).
    karpenter_batch_s: float = 1.0
    # NodeClaim created -> instance launched: 2.817 s (Karpenter log, github.com/gnosia93/training-on-eks
    # chapter/c6-fsdp.md) and 2.516 s (Karpenter log, omniarcs.notion.site "How to manage GPU instances using
    # Karpenter and Bottlerocket"): 2.66 s.
    nodeclaim_launch_s: float = 2.66
    # Bottlerocket NVIDIA, launched -> registered: pooled with EKS Auto Mode (the same Bottlerocket NVIDIA
    # variant, device plugin built in), no self-managed Bottlerocket GPU row gives a point value. Votes 39.3 s
    # (gnosia93 Auto Mode), 25.3 s (EKS user guide ml-inference-load-serve-model and ml-inference-gpu-nodepool-cli:
    # 30 and 36 s Nominated -> Scheduled), 49.3 s (AWS Containers blog "How to run AI model inference with GPUs
    # on Amazon EKS Auto Mode": 57 s), less 2.66 s and 5 s: 36.64 s. Upper bounds agree (self-managed
    # Bottlerocket g4dn.xlarge <= 88.5 s, Omniarcs; Auto Mode g6e.2xlarge NodeClaim Ready <= 76 s, EKS user guide
    # auto-accelerated).
    bottlerocket_launch_to_ready_s: float = 36.64
    # Bottlerocket, registered -> GPU allocatable: a prior, no row isolates it. The plugin is a host service
    # that registers in the same second as kubelet's socket appears (bottlerocket-os/bottlerocket#4250): no
    # pull, no scheduling: 5 s.
    bottlerocket_ready_to_gpu_s: float = 5.0
    # AL2023 NVIDIA, launched -> registered/Ready: 76.5 s (gnosia93 g6.12xlarge Karpenter log), 99.7 s (Packt
    # "Kubernetes for Generative AI Solutions" ch6, g6.4xlarge), 40.0 s (awslabs data-on-eks ray-batch-inference,
    # g6e.2xlarge): 67.32 s. The AL2023 NVIDIA boot varies with the AMI release (awslabs/amazon-eks-ami#1751,
    # #2210; PR #2733: "DKMS by default trigger dracut that takes long time").
    al2023_launch_to_ready_s: float = 67.32
    # AL2023, registered -> GPU allocatable with the device plugin as a DaemonSet whose affinity needs no
    # Node Feature Discovery label (infra.nvidia_device_plugin): a prior, no EKS row isolates it. The
    # plugin's image pull (6.1 s for v0.20.0's 55 MB) and start (~3 s) and the kubelet reporting
    # allocatable: 15 s. With NFD's label wait, 36-61 s were measured (gnosia93, data-on-eks).
    al2023_ready_to_gpu_s: float = 15.0
    # Calibrated from your own scale-outs (`fastload calibrate --timeline`): pending -> registered and
    # registered -> GPU allocatable, replacing the family's figures above. None: the fitted figures.
    node_launch_s: float | None = None
    gpu_registration_s: float | None = None
    # --- the image on a fresh node, per pull mode (tests/fixtures/image_phase.json, same fit) ------------
    # containerd's own pull and unpack on fast storage (NVMe RAID0, or gp3 at 1,000 MiB/s): 77.9 MB/s
    # (aws-samples/karpenter-blueprints blueprints/soci-snapshotter, the vLLM DLC, three pulls: 71.5, 96.0,
    # 77.9) and 91.0 MB/s (awslabs data-on-eks ray-batch-inference): 84.2 MB/s. On default gp3 (125 MiB/s) it
    # is about 37 MB/s: the disk sets the pace.
    image_pull_mb_s: float = 84.2
    # SOCI parallel pull and unpack (AL2023 nodeadm FastImagePull): 236.5 (karpenter-blueprints), 95.9
    # (data-on-eks: one 4.74 GB layer unpacks on one core), 182.0 (EKS user guide, Auto Mode -soci image),
    # 162.2 MB/s (AWS Containers blog, Auto Mode): 160.8 MB/s, 1.91x containerd's.
    fast_image_pull_speedup: float = 1.91
    # SOCI lazy loading: the pull itself is a manifest and index, 1.8 s (vLLM v0.26.0, 8.91 GB, llm-d
    # guides/gke-pod-snapshots/benchmark-results/vllm-qwen3-32b-h100.md), 2.6 s (vllm-openai:v0.19.1,
    # 9.61 GB, llm-d guides/pod-snapshot/README.md), 4.5 s (5.59 GB, ai-on-gke tutorial events): 2.6 s.
    lazy_image_pull_s: float = 2.6
    # ... but every file vLLM imports is fetched when first read: "Python & CUDA library imports
    # (on-demand via gcfs) 73s" before "Loading model from scratch" (same llm-d benchmark, GKE image
    # streaming, the published lazy-loading measurement for a vLLM image), of which process_start's
    # 25 s is what imports from a local disk cost anyway: 48 s more.
    lazy_import_extra_s: float = 48.0
    # The image already on an EBS data volume restored from a snapshot, per restore mode
    # (core.cluster.image_cache.RestoreMode):
    # - fsr, Fast Snapshot Restore: "the pod starts up in less than 5 seconds" for a 9.5 GB (20.4 GB unpacked)
    #   image (aws-ia/terraform-aws-eks-blueprints patterns/ml-container-cache, FSR on): 5 s, the bound.
    snapshot_image_s: float = 5.0
    # - rate, a provisioned initialization rate: "300 MiB/s -> ~32s" from instance boot to the application ready
    #   on g5/g6, lazy loading "never reached ComfyUI-ready in the 300s grace" (github.com/AndrewNguyenn/
    #   comfyui-aws-queue infra/lib/config.ts; ECS, a golden AMI's root volume): 32 s at 300 MiB/s, and in
    #   proportion to 300 / rate below it (AWS: the volume initializes in snapshot data / rate, "within 10
    #   percent of the volume initialization rate that you specify for 99 percent of the time").
    snapshot_rate_image_s: float = 32.0
    snapshot_rate_reference_mibps: float = 300.0
    # - lazy, no initialization: blocks load from S3 when first read, ~26 MB/s (the same comfyui measurement)
    #   and ~5 MiB/s "on first touch" (github-aws-runners/terraform-aws-github-runner PR 5165): 11.7 MB/s, over
    #   the image's compressed size (a 15 GB image's application "takes 10+ minutes to start",
    #   aws-samples/bottlerocket-images-cache#13). Never on a critical path.
    snapshot_lazy_mb_s: float = 11.7
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

    def node_phases(self, family: str) -> tuple[float, float]:
        """(node launch, GPU registration) of a new node of AMI `family`: a pending pod -> the node registered
        (Karpenter's batch, the NodeClaim's launch, the boot), then registered -> `nvidia.com/gpu` allocatable.
        Calibrated figures replace the fitted ones."""
        boot, gpu = {
            "bottlerocket": (self.bottlerocket_launch_to_ready_s, self.bottlerocket_ready_to_gpu_s),
            "al2023": (self.al2023_launch_to_ready_s, self.al2023_ready_to_gpu_s),
        }[family]
        launch = self.karpenter_batch_s + self.nodeclaim_launch_s + boot
        return (
            launch if self.node_launch_s is None else self.node_launch_s,
            gpu if self.gpu_registration_s is None else self.gpu_registration_s,
        )

    def figures_for(self, engine: str) -> EngineFigures:
        """The figures of `engine`: calibrated ones, else the engine's cited defaults."""
        found = self.engine_figures.get(engine)
        return found if found is not None else engine_named(engine).default_figures

    def measured_throughput(self, instance_type: str, source: str) -> float | None:
        for name, src, mb_s in self.measured_throughput_mb_s:
            if name == instance_type and src == source:
                return mb_s
        return None
