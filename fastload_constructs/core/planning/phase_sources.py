"""Where each phase of a scale-out path comes from (pure): the kind of figure and its public sources.

`LoadAssumptions` (core/planning/assumptions.py) and the engines' figures (core/engines/*/phases.py) hold the
numbers with the reasoning beside each; this module names, per phase of the paths `fastload plan` prints, the
addresses a reader can check them against. `fitted` figures come from published start-ups through the fit
tests/test_node_phase_fit.py recomputes; `measured` ones from published measurements of that step; a `prior`
is an estimate no published row isolates (docs/planning.md "GPU nodes" says why each is chosen).
"""

from __future__ import annotations

from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.engines.phases import PhaseSource

KARPENTER_OPTIONS = "https://karpenter.sh/docs/reference/settings/"
NODECLAIM_LAUNCH = (
    "https://github.com/gnosia93/training-on-eks/blob/main/chapter/c6-fsdp.md",
    "https://omniarcs.notion.site/How-to-manage-GPU-instances-using-Karpenter-and-Bottlerocket-d0b3cae1c3074068bff13b098536638a",
)
BOTTLEROCKET_BOOT = (
    "https://docs.aws.amazon.com/eks/latest/userguide/ml-inference-load-serve-model.html",
    "https://docs.aws.amazon.com/eks/latest/userguide/ml-inference-gpu-nodepool-cli.html",
    "https://github.com/gnosia93/training-on-eks/blob/main/chapter/c3-gpu-node-backup-latest.md",
    "https://aws.amazon.com/blogs/containers/",  # "How to run AI model inference with GPUs on Amazon EKS Auto Mode"
)
AL2023_BOOT = (
    "https://github.com/gnosia93/training-on-eks/blob/main/chapter/c6-fsdp.md",
    "https://github.com/PacktPublishing/Kubernetes-for-Generative-AI-Solutions/tree/main/ch6",
    "https://github.com/awslabs/data-on-eks/blob/main/website/docs/ai-ml/ray-batch-inference.md",
)
BOTTLEROCKET_PLUGIN = ("https://github.com/bottlerocket-os/bottlerocket/issues/4250",)
AL2023_PLUGIN = (
    "https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/deployments/helm/nvidia-device-plugin/values.yaml",
)
WARM_POOLS = ("https://docs.aws.amazon.com/eks/latest/userguide/warm-pools-managed-node-groups.html",)
SNAPSHOT_FSR = (
    "https://github.com/aws-ia/terraform-aws-eks-blueprints/blob/main/patterns/ml-container-cache/README.md",
)
SNAPSHOT_RATE = (
    "https://github.com/AndrewNguyenn/comfyui-aws-queue/blob/main/infra/lib/config.ts",
    "https://docs.aws.amazon.com/ebs/latest/userguide/initalize-volume.html",
)
SNAPSHOT_LAZY = (
    "https://github.com/AndrewNguyenn/comfyui-aws-queue/blob/main/infra/lib/config.ts",
    "https://github.com/github-aws-runners/terraform-aws-github-runner/pull/5165",
)
REGISTRY_PULL = (
    "https://github.com/aws-samples/karpenter-blueprints/blob/main/blueprints/soci-snapshotter/README.md",
    "https://github.com/awslabs/data-on-eks/blob/main/website/docs/ai-ml/ray-batch-inference.md",
)
SOCI_LAZY = (
    "https://github.com/llm-d/llm-d/blob/main/guides/gke-pod-snapshots/benchmark-results/vllm-qwen3-32b-h100.md",
)
STREAMER = ("https://github.com/run-ai/runai-model-streamer/blob/master/docs/src/benchmarks.md",)
NVME_COPY = STREAMER


def _node_source(phase: str, family: str) -> PhaseSource | None:
    bottlerocket = family == "bottlerocket"
    if phase == "node_launch":
        boot = "Bottlerocket NVIDIA boot 36.6 s" if bottlerocket else "AL2023 NVIDIA boot 67.3 s"
        return PhaseSource(
            "fitted",
            f"Karpenter's 1 s batch, the NodeClaim's 2.66 s launch, the {boot} (tests/fixtures/gpu_node_startups.json)",
            (KARPENTER_OPTIONS, *NODECLAIM_LAUNCH, *(BOTTLEROCKET_BOOT if bottlerocket else AL2023_BOOT)),
        )
    if phase == "node_start":
        return PhaseSource(
            "prior",
            "no published start of a stopped GPU node: the family's fitted boot, without Karpenter's batch and launch",
            (*WARM_POOLS, *(BOTTLEROCKET_BOOT if bottlerocket else AL2023_BOOT)),
        )
    if phase == "gpu_registration":
        if bottlerocket:
            return PhaseSource("prior", "the built-in plugin registers with the kubelet's socket", BOTTLEROCKET_PLUGIN)
        return PhaseSource("prior", "the device plugin DaemonSet's pull and start on the node", AL2023_PLUGIN)
    return None


def _image_source(phase: str, pull_mode: str, restore: str) -> PhaseSource | None:
    if phase == "lazy_imports":
        return PhaseSource("measured", "imports fetched on first read (GKE image streaming)", SOCI_LAZY)
    if phase != "image_pull":
        return None
    if pull_mode == "snapshot":
        return {
            "fsr": PhaseSource("measured", "Fast Snapshot Restore: the pod starts in under 5 s", SNAPSHOT_FSR),
            "rate": PhaseSource("measured", "a provisioned initialization rate, 32 s at 300 MiB/s", SNAPSHOT_RATE),
            "lazy": PhaseSource("measured", "blocks fetched from S3 on first read, ~11.7 MB/s", SNAPSHOT_LAZY),
        }[restore]
    if pull_mode == "lazy":
        return PhaseSource("measured", "SOCI lazy loading: the manifest and index only", SOCI_LAZY)
    text = "containerd's pull and unpack, 84.2 MB/s" + (", x1.91 with SOCI's parallel pull" * (pull_mode == "parallel"))
    return PhaseSource("fitted", text + " (tests/fixtures/image_phase.json)", REGISTRY_PULL)


def _transfer_source(phase: str) -> PhaseSource | None:
    """The streamer's transfer is the planner's, the same for every engine."""
    return {
        "weight_load": PhaseSource("model", "the Run:ai streamer's published S3 sweep per concurrency unit", STREAMER),
        "model_copy": PhaseSource("model", "the streamer's S3 throughput, to the node-local NVMe", NVME_COPY),
    }.get(phase)


def phase_source(
    phase: str, *, ami_family: str, pull_mode: str, restore: str, engine: str, warm_compile: bool
) -> PhaseSource:
    """The source of `phase` on nodes of `ami_family` whose image comes by `pull_mode` (`restore`: the snapshot's
    restore mode), for `engine` (`warm_compile`: the path's compile reads a restored or local cache)."""
    found = (
        _node_source(phase, ami_family)
        or _image_source(phase, pull_mode, restore)
        or _transfer_source(phase)
        or engine_named(engine).phase_source(phase, warm_compile=warm_compile)
    )
    if found is None:
        raise KeyError(f"no source recorded for phase {phase!r}")
    return found


__all__ = ["PhaseSource", "phase_source"]
