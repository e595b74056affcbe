"""Pure serving decisions: (ModelProfile, instance type, options) -> ServingPlan.

Everything a construct or chart needs to know about *how* to run a model is
decided here, in plain typed Python, so it can be tested without CDK and read
in one place. The formulas and the assumptions behind them are documented
next to each decision and returned in `ServingPlan.assumptions`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import re
from dataclasses import dataclass, field
from typing import Literal

from fastload_constructs.core.catalog import CATALOG, GIB, GpuInstance, lookup
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, one_of, require
from fastload_constructs.core.model import DTYPE_BYTES, ModelProfile

MB = 1000**2

# Where AL2023 nodeadm's `localStorage.strategy: RAID0` mounts the array
# (amazon-eks-ami setup-local-disks: `<dir>/0`, dir defaulting to /mnt/k8s-disks).
INSTANCE_STORE_MOUNT = "/mnt/k8s-disks/0"
NODE_CACHE_ROOT = f"{INSTANCE_STORE_MOUNT}/fastload"

StreamSource = Literal["s3", "local"]
ReleaseFamily = Literal["v0", "v1", "recent"]
KvCacheDtype = Literal["auto", "fp8"]

# The pinned vLLM release (vllm_args.DEFAULT_IMAGE is vllm/vllm-openai:v0.34.0).
DEFAULT_VLLM_VERSION = "0.34.0"
# vllm/vllm-openai:v0.34.0, compressed bytes pulled from the registry (assumed: the published EKS
# measurement the fresh-node model uses is "~2 min for an 11.6 GB image"; check the tag's manifest).
DEFAULT_IMAGE_BYTES = 11_600_000_000
HOURS_PER_DAY = 24


@dataclass(frozen=True)
class LoadAssumptions:
    """Throughput and fixed-cost figures a prediction rests on, each from a cited source.

    Override any of them, or load a calibrated set fitted to your own logs (`fastload calibrate`,
    `load_assumptions`). The formulas that use them are documented where they are applied.
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
    # vLLM's own work around the stream (allocating the model, post-processing weights): "Model
    # loading took 0.90 s" for "Loading weights took 0.69 s" (vllm issue #20264); 31.73 s for a
    # 30.41 s stream (v0.34 log in tests/fixtures). Seconds added to every weight load.
    weight_load_fixed_s: float = 1.5
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
    # --- fixed engine costs --------------------------------------------------------------------
    # Container start to the weights starting to load: Python imports, config, engine and worker
    # spawn, distributed init. vLLM 0.34 log (tests/fixtures/vllm_logs/cold_v0.34_s3_tp1.log): 16 s
    # from the first line to "Loading model", plus imports before the first line; vllm issue #20264
    # reports ~30 s it cannot find in its log. 25 s.
    process_start_s: float = 25.0
    # KV-cache profiling and allocation, warmup and the API server: "init engine ... took 34.11 s"
    # less 17 s graphs and 7.51 s compile = 9.6 s (vllm issue #20264); 68.84 - 48.31 - 15 = 5.5 s
    # (v0.34 fixture log). 8 s.
    kv_and_server_s: float = 8.0
    # --- torch.compile (cold) ------------------------------------------------------------------
    # Dynamo traces every decoder layer: 4.60 s for Llama-3-8B's 32 layers (vllm PR #11005 log,
    # 0.144 s/layer) and 10 s on L40S (tensorfuse.io/docs/blogs/reducing_gpu_cold_start, 0.31 s/layer):
    # 0.21 s/layer (geometric mean).
    dynamo_s_per_layer: float = 0.21
    # Inductor compiles the piecewise graphs, shape-generic, so its cost grows with the number of
    # layers, not their width: 14.77 s / 32 layers (PR #11005) and 42 s / 32 layers (tensorfuse):
    # 0.78 s per layer (geometric mean), after a fixed 2 s of setup.
    inductor_s_per_layer: float = 0.78
    inductor_fixed_s: float = 2.0
    # torch.compile on a cache hit ("Directly load the compiled graph"): ~8 s on the v1 releases
    # before 0.11 ("torch.compile takes 7.51 s in total", vllm issue #20264, 0.9) and ~2-3 s on recent
    # releases that load the AOT artifact (issue 19's published measurements): 8 and 2.5 s.
    compile_warm_v1_s: float = 8.0
    compile_warm_recent_s: float = 2.5
    # --- CUDA graphs -----------------------------------------------------------------------------
    # Piecewise capture (v1 and later: one graph per piece between attention ops, every layer):
    # Llama-3-8B's 67 sizes took 15 s (PR #11005, -O3: 0.0070 s per size-layer) and 54 s on L40S
    # (tensorfuse: 0.025): 0.013 s per graph per layer (geometric mean).
    cuda_graph_s_per_graph_layer: float = 0.013
    # A full-model graph per size (vLLM 0.x eager-compile path, and the FULL decode graphs recent
    # releases add): 67 sizes in 10 s for Llama-3-8B without torch.compile (PR #11005): 0.0047.
    cuda_graph_full_s_per_graph_layer: float = 0.0047
    cuda_graph_fixed_s: float = 1.0
    # --- fresh node -----------------------------------------------------------------------------
    # Pending pod to a Ready EKS node: "~70 seconds vs ~80 seconds from instance launch to node
    # registration" (Karpenter maintainers, aws/karpenter-provider-aws issue #6128), "1-2 minutes to
    # add new nodes" (aws.amazon.com/blogs/containers/eliminate-kubernetes-node-scaling-lag-with-pod-
    # priority-and-over-provisioning/): 90 s.
    node_launch_s: float = 90.0
    # NVIDIA device plugin DaemonSet pod start and `nvidia.com/gpu` registration on the new node:
    # assumed 30 s (a GPU node "may show as ready but still require about a minute to allocate GPU
    # resources", cloudpilot-ai/karpenter-provider-gcp PR #148; no EKS measurement found).
    gpu_registration_s: float = 30.0
    # Image pull + unpack of the AWS vLLM DLC, 9,354,342,327 B: 2m10.8s with containerd's default
    # pull, 39.6 s with SOCI parallel pull on AL2023 (nodeadm FastImagePull) (aws-samples/
    # karpenter-blueprints, blueprints/soci-snapshotter/README.md): 71.5 MB/s, 3.3x faster in parallel.
    image_pull_mb_s: float = 71.5
    fast_image_pull_speedup: float = 3.3
    # --- calibration (fastload calibrate) --------------------------------------------------------
    # Measured stream throughput per (instance type, source), replacing the modelled one.
    measured_throughput_mb_s: tuple[tuple[str, str, float], ...] = ()
    # Measured / modelled ratios for the architecture-driven phases (1 = as modelled): cold compile
    # and CUDA-graph capture. (A warm compile is calibrated as compile_warm_*_s itself.)
    compile_scale: float = 1.0
    cuda_graph_scale: float = 1.0

    def measured_throughput(self, instance_type: str, source: str) -> float | None:
        for name, src, mb_s in self.measured_throughput_mb_s:
            if name == instance_type and src == source:
                return mb_s
        return None


@dataclass(frozen=True)
class TuningOptions:
    """What a user may decide instead of the defaults; None means 'derive it'."""

    tensor_parallel_size: int | None = None
    gpu_memory_utilization: float = 0.90
    # When the model's architecture is unknown: share of vLLM's GPU memory kept for activations and
    # KV cache (15% of 0.9 x 45,776 MiB = 5.9 GiB: the 2.5 GiB runtime overhead below plus ~3.4 GiB of
    # KV). With an architecture the KV need for the context is computed instead (see kv_fit).
    kv_cache_reserve_fraction: float = 0.15
    source: StreamSource = "s3"
    concurrency: int | None = None
    memory_limit_bytes: int | None = None
    distributed: bool | None = None
    # Share of node RAM the streamers of all processes on a node may buffer.
    streamer_ram_fraction: float = 0.5
    probe_period_seconds: int = 10
    probe_safety_factor: float = 2.0
    # Never below what peers ship (60 x 10 s): a prediction that is off by more than the safety
    # factor must still not kill a loading pod.
    min_startup_budget_seconds: int = 600
    compile_cache_warm: bool = False
    assumptions: LoadAssumptions = field(default_factory=LoadAssumptions)
    # --- context length and KV cache (needs model.architecture) ---------------------------------
    # vLLM's --max-model-len; None = the model's max_position_embeddings (vLLM's own default).
    max_model_len: int | None = None
    # Full-length sequences the KV cache must hold at once (vLLM refuses to start below one).
    kv_sequences: int = 1
    kv_cache_dtype: KvCacheDtype = "auto"
    # Activations at the profiling batch, non-torch memory and CUDA graphs, per GPU: "PyTorch
    # activation peak memory takes 1.96GiB; non_torch_memory takes 0.10GiB" (vllm issue #13144) and
    # graphs "took 0.31-0.62 GiB" (vllm logs in issue #20264 and tests/fixtures): 2.5 GiB.
    runtime_overhead_bytes: int = int(2.5 * GIB)
    # --- torch.compile and CUDA graphs ---------------------------------------------------------
    vllm_version: str = DEFAULT_VLLM_VERSION
    # vLLM's cudagraph_capture_sizes (--compilation-config); None = vLLM's default list.
    cudagraph_capture_sizes: tuple[int, ...] | None = None
    max_num_seqs: int = 256
    # --- scale-out paths -----------------------------------------------------------------------
    image_bytes: int = DEFAULT_IMAGE_BYTES
    fast_image_pull: bool = True  # nodeadm FastImagePull (SOCI parallel pull), as the reference stack sets
    node_local_model_cache: bool = False  # weights copied to the node's NVMe once per node
    shared_compile_cache: bool = False  # compile cache restored from S3 on a fresh node
    warm_spares: int = 0  # placeholder pods holding a GPU each path-ready


@dataclass(frozen=True)
class StreamerSettings:
    """Run:ai Model Streamer settings, as vLLM's --model-loader-extra-config takes them.

    `memory_limit_bytes` is the buffer of ONE streaming process. The distributed
    streamer (runai-model-streamer 0.17, `DistributedStreamer.rank_memory_limit`)
    reads RUNAI_STREAMER_MEMORY_LIMIT as a node total and divides it by the ranks
    on the node, so for distributed streaming the configured value is the
    per-process limit times the ranks sharing it.
    """

    concurrency: int
    memory_limit_bytes: int
    distributed: bool
    ranks: int = 1  # streaming processes of one pod on a node (the TP size)

    @property
    def configured_memory_limit_bytes(self) -> int:
        """What `memory_limit` / RUNAI_STREAMER_MEMORY_LIMIT must say to give each process its limit."""
        return self.memory_limit_bytes * self.ranks if self.distributed else self.memory_limit_bytes

    def loader_extra_config(self) -> dict[str, object]:
        config: dict[str, object] = {
            "concurrency": self.concurrency,
            "memory_limit": self.configured_memory_limit_bytes,
        }
        if self.distributed:
            config["distributed"] = True
        return config


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


@dataclass(frozen=True)
class ScaleOutPath:
    """One way a new replica comes up: its phases in order and their sum."""

    name: str
    phases: tuple[tuple[str, float], ...]

    @property
    def total_s(self) -> float:
        return sum(seconds for _, seconds in self.phases)

    def seconds(self, phase: str) -> float:
        return next((s for name, s in self.phases if name == phase), 0.0)


@dataclass(frozen=True)
class ScaleOutPaths:
    """Time to serve for the three ways a replica can start, and what warm spares cost idle.

    fresh_node: a node is launched for it (node, GPU registration, image pull, then the pod cold,
        or with the shared compile cache / node-local copy where enabled).
    warm_node: a repeat on a node that ran the model: image cached, compile cache hit, weights from
        the node-local copy when that is enabled (else S3 again).
    warm_spare: a preempted placeholder already pulled the image, copied the model to NVMe and
        restored the compile cache: only the engine start remains.
    """

    fresh_node: ScaleOutPath
    warm_node: ScaleOutPath
    warm_spare: ScaleOutPath
    warm_spares: int
    spare_gpu_hours_per_day: float

    def as_tuple(self) -> tuple[ScaleOutPath, ScaleOutPath, ScaleOutPath]:
        return (self.fresh_node, self.warm_node, self.warm_spare)


@dataclass(frozen=True)
class KvFit:
    """The memory one GPU must hold, from the architecture: weights + overhead + KV for the context."""

    usable_bytes: int  # GPU memory x gpu_memory_utilization
    weights_bytes: int  # this rank's slice
    overhead_bytes: int
    kv_bytes_per_token: int  # on one rank
    max_model_len: int
    kv_sequences: int

    @property
    def kv_needed_bytes(self) -> int:
        return self.kv_bytes_per_token * self.max_model_len * self.kv_sequences

    @property
    def kv_available_bytes(self) -> int:
        return self.usable_bytes - self.weights_bytes - self.overhead_bytes

    @property
    def fits(self) -> bool:
        return self.kv_available_bytes >= self.kv_needed_bytes

    @property
    def max_tokens(self) -> int:
        """Tokens the KV cache can hold on this rank (vLLM's "GPU KV cache size")."""
        return max(0, self.kv_available_bytes // self.kv_bytes_per_token)


@dataclass(frozen=True)
class StartupProbe:
    """A startupProbe whose period x failures covers the predicted start-up."""

    period_seconds: int
    failure_threshold: int

    @property
    def budget_seconds(self) -> int:
        return self.period_seconds * self.failure_threshold


@dataclass(frozen=True)
class ServingPlan:
    """Every decision needed to run one model on one instance type."""

    instance: GpuInstance
    model: ModelProfile
    tensor_parallel_size: int
    gpu_memory_utilization: float
    source: StreamSource
    streamer: StreamerSettings
    predicted: PhaseEstimate
    startup_probe: StartupProbe
    shm_bytes: int
    pod_memory_bytes: int
    pod_cpu: int
    assumptions: tuple[str, ...]
    scale_out_paths: ScaleOutPaths | None = None
    kv_fit: KvFit | None = None
    # Passed to vLLM only when the user set them (--max-model-len, --compilation-config).
    max_model_len: int | None = None
    cudagraph_capture_sizes: tuple[int, ...] | None = None
    vllm_version: str = DEFAULT_VLLM_VERSION
    kv_cache_dtype: KvCacheDtype = "auto"  # passed as --kv-cache-dtype when not "auto"

    @property
    def gpus_per_pod(self) -> int:
        return self.tensor_parallel_size

    @property
    def weights_per_gpu_bytes(self) -> int:
        return math.ceil(self.model.total_bytes / self.tensor_parallel_size)


_VERSION = re.compile(r"^v?(\d+)\.(\d+)(\.\d+)?([.+\-a-z0-9]*)$")


def release_family(version: str) -> ReleaseFamily:
    """vLLM releases by what start-up does: "v0" (< 0.7: no torch.compile by default), "v1"
    (0.7-0.10: piecewise compile, warm cache ~8 s, PIECEWISE graphs only), "recent" (>= 0.11:
    FULL_AND_PIECEWISE graphs by default, AOT-loaded warm cache ~2.5 s)."""
    match = _VERSION.match(version.strip()) if isinstance(version, str) else None
    require(match is not None, "vllm_version", version, "a vLLM release such as 0.34.0 or v0.8.5")
    assert match is not None
    major, minor = int(match[1]), int(match[2])
    if major == 0 and minor < 7:
        return "v0"
    if major == 0 and minor < 11:
        return "v1"
    return "recent"


def default_capture_sizes(family: ReleaseFamily, max_num_seqs: int = 256) -> tuple[int, ...]:
    """vLLM's default cudagraph_capture_sizes.

    >= 0.11 (vllm/config/vllm.py `_set_cudagraph_sizes`): [1, 2, 4] + range(8, 256, 8) +
    range(256, max + 1, 16) with max = min(max_num_seqs x 2, 512): 51 sizes at the default 256 seqs.
    Before (0.6-0.10, `_BATCH_SIZES_TO_CAPTURE`): [1, 2, 4] + range(8, 513, 8) up to max_num_seqs x 2,
    67 sizes by default.
    """
    largest = min(max_num_seqs * 2, 512)
    small = [s for s in (1, 2, 4) if s <= largest]
    if family == "recent":
        sizes = small + list(range(8, min(largest + 1, 256), 8)) + list(range(256, largest + 1, 16))
    else:
        sizes = small + list(range(8, largest + 1, 8))
    return tuple(sizes)


def captured_graphs(family: ReleaseFamily, sizes: tuple[int, ...], max_num_seqs: int) -> int:
    """Graphs vLLM captures: one piecewise graph per size; recent releases' default
    FULL_AND_PIECEWISE mode also captures a full decode graph for every size up to max_num_seqs."""
    if family == "recent":
        return len(sizes) + sum(1 for s in sizes if s <= max_num_seqs)
    return len(sizes)


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


# Warm spares per model: one bound for the planner's costing, cdk.json, ServedModel and the chart.
MAX_WARM_SPARES = 1000


def check_spares(value: object, field: str = "warm_spares") -> int:
    """A count of warm spares (placeholder GPU pods): a whole number from 0 to MAX_WARM_SPARES."""
    require(
        is_whole_number(value) and 0 <= value <= MAX_WARM_SPARES,
        field,
        value,
        f"a whole number from 0 to {MAX_WARM_SPARES}",
    )
    assert isinstance(value, int)
    return value


def _validate_options(opts: TuningOptions) -> None:
    require(
        isinstance(opts.gpu_memory_utilization, (int, float))
        and not isinstance(opts.gpu_memory_utilization, bool)
        and 0 < opts.gpu_memory_utilization <= 1,
        "gpu_memory_utilization",
        opts.gpu_memory_utilization,
        "a number in (0, 1]",
    )
    require(
        0 <= opts.kv_cache_reserve_fraction < 1,
        "kv_cache_reserve_fraction",
        opts.kv_cache_reserve_fraction,
        "a number in [0, 1)",
    )
    one_of("source", opts.source, ("s3", "local"))
    if opts.concurrency is not None:
        require(
            is_whole_number(opts.concurrency) and 1 <= opts.concurrency <= 256,
            "concurrency",
            opts.concurrency,
            "a whole number from 1 to 256",
        )
    if opts.memory_limit_bytes is not None:
        require(
            is_whole_number(opts.memory_limit_bytes) and opts.memory_limit_bytes > 0,
            "memory_limit_bytes",
            opts.memory_limit_bytes,
            "a positive whole number of bytes",
        )
    require(
        0 < opts.streamer_ram_fraction <= 0.8,
        "streamer_ram_fraction",
        opts.streamer_ram_fraction,
        "a number in (0, 0.8]",
    )
    require(
        is_whole_number(opts.probe_period_seconds) and 1 <= opts.probe_period_seconds <= 60,
        "probe_period_seconds",
        opts.probe_period_seconds,
        "a whole number from 1 to 60",
    )
    require(opts.probe_safety_factor >= 1, "probe_safety_factor", opts.probe_safety_factor, "a number >= 1")
    require(
        is_whole_number(opts.min_startup_budget_seconds) and opts.min_startup_budget_seconds > 0,
        "min_startup_budget_seconds",
        opts.min_startup_budget_seconds,
        "a positive whole number",
    )
    if opts.max_model_len is not None:
        require(
            is_whole_number(opts.max_model_len) and opts.max_model_len >= 1,
            "max_model_len",
            opts.max_model_len,
            "a positive whole number of tokens",
        )
    require(
        is_whole_number(opts.kv_sequences) and opts.kv_sequences >= 1,
        "kv_sequences",
        opts.kv_sequences,
        "a positive whole number of full-length sequences",
    )
    one_of("kv_cache_dtype", opts.kv_cache_dtype, ("auto", "fp8"))
    require(
        is_whole_number(opts.runtime_overhead_bytes) and opts.runtime_overhead_bytes >= 0,
        "runtime_overhead_bytes",
        opts.runtime_overhead_bytes,
        "a whole number of bytes >= 0",
    )
    release_family(opts.vllm_version)
    if opts.cudagraph_capture_sizes is not None:
        sizes = opts.cudagraph_capture_sizes
        require(
            isinstance(sizes, tuple)
            and all(is_whole_number(s) and 1 <= s <= 8192 for s in sizes)
            and list(sizes) == sorted(set(sizes)),
            "cudagraph_capture_sizes",
            sizes,
            "ascending, distinct whole numbers from 1 to 8192 (an empty list captures none)",
        )
    require(
        is_whole_number(opts.max_num_seqs) and 1 <= opts.max_num_seqs <= 65536,
        "max_num_seqs",
        opts.max_num_seqs,
        "a whole number from 1 to 65536",
    )
    require(
        is_whole_number(opts.image_bytes) and opts.image_bytes > 0,
        "image_bytes",
        opts.image_bytes,
        "a positive whole number of bytes",
    )
    check_spares(opts.warm_spares)


def weight_capacity_per_gpu(instance: GpuInstance, opts: TuningOptions) -> int:
    """Bytes of weights one GPU may hold when the architecture is unknown: vLLM's share less the KV reserve."""
    usable = instance.gpu_memory_bytes * opts.gpu_memory_utilization
    return int(usable * (1 - opts.kv_cache_reserve_fraction))


def tensor_parallel_candidates(instance: GpuInstance) -> list[int]:
    """Powers of two that divide the GPU count: the TP sizes vLLM shards cleanly across."""
    return [tp for tp in (1, 2, 4, 8, 16) if tp <= instance.gpu_count and instance.gpu_count % tp == 0]


def _kv_element_bytes(model: ModelProfile, opts: TuningOptions) -> float:
    """KV-cache element size: vLLM's kv_cache_dtype "auto" follows the model's dtype (FP8 checkpoints
    keep a 16-bit KV cache unless told otherwise); "fp8" is one byte."""
    if opts.kv_cache_dtype == "fp8":
        return 1.0
    return 2.0 if DTYPE_BYTES.get(model.dtype, 2) < 2 else float(DTYPE_BYTES[model.dtype])


def kv_fit(model: ModelProfile, instance: GpuInstance, tp: int, opts: TuningOptions) -> KvFit | None:
    """The memory check vLLM makes at start-up, for one rank; None without an architecture.

    vLLM refuses to start when the KV cache cannot hold one sequence of max_model_len tokens
    ("... is larger than the maximum number of tokens that can be stored in KV cache").
    Per GPU: weights / TP + runtime overhead + KV bytes per token x max_model_len x kv_sequences
    <= GPU memory x gpu_memory_utilization.
    """
    arch = model.architecture
    if arch is None:
        return None
    context = opts.max_model_len if opts.max_model_len is not None else arch.max_position_embeddings
    return KvFit(
        usable_bytes=int(instance.gpu_memory_bytes * opts.gpu_memory_utilization),
        weights_bytes=math.ceil(model.total_bytes / tp),
        overhead_bytes=opts.runtime_overhead_bytes,
        kv_bytes_per_token=arch.kv_bytes_per_token(_kv_element_bytes(model, opts), tp),
        max_model_len=context,
        kv_sequences=opts.kv_sequences,
    )


def _fits(model: ModelProfile, instance: GpuInstance, tp: int, opts: TuningOptions) -> bool:
    fit = kv_fit(model, instance, tp, opts)
    if fit is None:
        return model.total_bytes / tp <= weight_capacity_per_gpu(instance, opts)
    return fit.fits


def _smallest_fitting_tp(model: ModelProfile, instance: GpuInstance, opts: TuningOptions) -> int | None:
    return next((tp for tp in tensor_parallel_candidates(instance) if _fits(model, instance, tp, opts)), None)


def what_would_fit(model: ModelProfile, instance: GpuInstance, opts: TuningOptions) -> list[str]:
    """Ways out of a misfit: a TP, a larger instance type, FP8, a shorter context."""
    ways: list[str] = []
    tp = _smallest_fitting_tp(model, instance, opts)
    if tp is not None:
        ways.append(f"tensor_parallel_size {tp}")
    bigger = []
    for other in CATALOG.values():
        if other.name == instance.name:
            continue
        other_tp = _smallest_fitting_tp(model, other, opts)
        if other_tp is not None:
            bigger.append(
                (
                    other.gpu_count * other.gpu_memory_mib,
                    other.family != instance.family,
                    other.vcpu,
                    other.name,
                    other_tp,
                )
            )
    if bigger:
        *_, name, other_tp = min(bigger)
        ways.append(f"instance type {name} (TP {other_tp})")
    if model.dtype in ("BF16", "F16", "F32"):
        fp8_bytes = int(model.total_bytes / DTYPE_BYTES[model.dtype])
        fp8 = dataclasses.replace(model, total_bytes=fp8_bytes, dtype="F8_E4M3")
        fp8_tp = _smallest_fitting_tp(fp8, instance, dataclasses.replace(opts, kv_cache_dtype="fp8"))
        if fp8_tp is not None:
            ways.append(f"FP8 weights and KV cache (TP {fp8_tp})")
    elif opts.kv_cache_dtype != "fp8" and model.architecture is not None:
        kv8_tp = _smallest_fitting_tp(model, instance, dataclasses.replace(opts, kv_cache_dtype="fp8"))
        if kv8_tp is not None:
            ways.append(f"kv_cache_dtype fp8 (TP {kv8_tp})")
    if model.architecture is not None:
        shortest = None
        for cand in tensor_parallel_candidates(instance):
            fit = kv_fit(model, instance, cand, opts)
            if fit is not None and fit.max_tokens // opts.kv_sequences >= 1:
                shortest = (fit.max_tokens // opts.kv_sequences, cand)
                break
        if shortest is not None and shortest[0] >= 256:
            tokens = shortest[0] // 256 * 256
            ways.append(f"max_model_len <= {tokens} (TP {shortest[1]})")
    return ways


def _misfit_message(model: ModelProfile, instance: GpuInstance, tp: int | None, opts: TuningOptions) -> str:
    fit = kv_fit(model, instance, tp or instance.gpu_count, opts)
    if fit is not None:
        need = (
            f"{fit.weights_bytes / GIB:.1f} GiB weights + {fit.overhead_bytes / GIB:.1f} GiB overhead + "
            f"{fit.kv_needed_bytes / GIB:.1f} GiB KV for {fit.kv_sequences} x {fit.max_model_len} tokens "
            f"> {fit.usable_bytes / GIB:.1f} GiB per GPU"
        )
    else:
        limit = weight_capacity_per_gpu(instance, opts)
        need = (
            f"{model.total_bytes / (tp or instance.gpu_count) / GIB:.1f} GiB weights per GPU > {limit / GIB:.1f} GiB "
            f"({opts.kv_cache_reserve_fraction:.0%} of gpu_memory_utilization {opts.gpu_memory_utilization} "
            "kept for KV cache)"
        )
    ways = what_would_fit(model, instance, opts)
    fix = "; ".join(ways) if ways else "nothing in the catalog fits"
    return f"a model that fits {instance.name} ({instance.gpu_count} x {instance.gpu_model}): {need}; would fit: {fix}"


def choose_tensor_parallel(model: ModelProfile, instance: GpuInstance, opts: TuningOptions) -> int:
    """The user's TP after checks, else the smallest TP whose per-GPU memory fits.

    Smallest, because each extra rank costs all-reduce traffic on every token
    and leaves fewer GPUs for other replicas on the node. "Fits" means weights plus the
    KV cache for max_model_len x kv_sequences (see kv_fit) when the architecture is known.
    """
    if opts.tensor_parallel_size is not None:
        tp = opts.tensor_parallel_size
        require(
            is_whole_number(tp) and 1 <= tp <= instance.gpu_count and instance.gpu_count % tp == 0,
            "tensor_parallel_size",
            tp,
            f"a divisor of {instance.name}'s {instance.gpu_count} GPUs: "
            + ", ".join(str(d) for d in range(1, instance.gpu_count + 1) if instance.gpu_count % d == 0),
        )
        if not _fits(model, instance, tp, opts):
            raise FastloadConfigError("tensor_parallel_size", tp, _misfit_message(model, instance, tp, opts))
        return tp
    tp_fit = _smallest_fitting_tp(model, instance, opts)
    if tp_fit is None:
        field_name = "max_model_len" if model.architecture is not None else "model.total_bytes"
        value: object = (
            (opts.max_model_len or model.architecture.max_position_embeddings)
            if model.architecture is not None
            else model.total_bytes
        )
        raise FastloadConfigError(field_name, value, _misfit_message(model, instance, None, opts))
    return tp_fit


def _load_network_mb_s(instance: GpuInstance, opts: TuningOptions) -> tuple[float, float]:
    """(burst, sustained) MB/s one pod's S3 stream can reach: the pod's NIC figures x efficiency."""
    eff = opts.assumptions.network_efficiency
    return instance.pod_burst_gbps * 125 * eff, instance.pod_network_gbps * 125 * eff


def streamer_concurrency(instance: GpuInstance, opts: TuningOptions, tp: int = 1) -> int:
    """Streamer concurrency units per process.

    S3: enough CRT clients to fill the NIC a scaling pod gets, which is the whole node's for the
    first pod on a fresh node (one-GPU pod alone on a 4-GPU node included): ceil(pod NIC while
    bursting x efficiency / TP processes / 120 MB/s per unit), between 4 and 64 (the streamer's sweep
    gains nothing past 32-64). Local NVMe: 16 per device (the streamer's best local setting for one
    disk) shared by the TP processes, at least 8.
    """
    if opts.concurrency is not None:
        return opts.concurrency
    processes = max(1, tp)
    if opts.source == "local":
        return max(8, min(64, math.ceil(16 * max(1, instance.nvme_count) / processes)))
    burst_mb, _ = _load_network_mb_s(instance, opts)
    wanted = math.ceil(burst_mb / processes / opts.assumptions.streamer_mb_per_unit)
    return max(4, min(wanted, 64))


def streamer_memory_limit(
    model: ModelProfile, instance: GpuInstance, tp: int, distributed: bool, opts: TuningOptions
) -> int:
    """Bytes of host buffer per streaming process.

    Bounded by `streamer_ram_fraction` of node RAM split over the processes a
    packed node runs (one per GPU), so TP ranks together never exhaust host
    RAM; no larger than the bytes this process reads; never below the largest
    tensor, which the streamer must hold whole.
    """
    largest = model.largest_tensor_bytes or 0
    budget = int(instance.memory_bytes * opts.streamer_ram_fraction / instance.gpu_count)
    if opts.memory_limit_bytes is not None:
        ceiling = instance.memory_bytes // instance.gpu_count
        require(
            largest <= opts.memory_limit_bytes <= ceiling,
            "memory_limit_bytes",
            opts.memory_limit_bytes,
            f"{largest}..{ceiling} bytes (largest tensor .. node RAM per GPU process)",
        )
        return opts.memory_limit_bytes
    reads = math.ceil(model.total_bytes / tp) if distributed else model.total_bytes
    limit = min(budget, reads)
    require(
        largest <= budget,
        "memory_limit_bytes",
        budget,
        f"at least the largest tensor ({largest} bytes); {instance.name} has too little RAM per GPU",
    )
    return max(limit, largest)


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
    burst_mb, sustained_mb = _load_network_mb_s(instance, opts)
    rate = min(streamer.concurrency * tp * a.streamer_mb_per_unit, burst_mb, pcie)
    seconds = _transfer_seconds(bytes_moved, rate, sustained_mb, a.burst_window_s)
    return a.weight_load_fixed_s + seconds, bytes_moved / seconds / MB


def compile_seconds(model: ModelProfile, opts: TuningOptions, warm: bool) -> float:
    """torch.compile: none before 0.7; a cache hit costs a release-family constant; a miss costs
    Dynamo (per layer) + Inductor (fixed + per layer), scaled by a calibration factor."""
    family = release_family(opts.vllm_version)
    a = opts.assumptions
    if family == "v0":
        return 0.0
    if warm:
        return a.compile_warm_recent_s if family == "recent" else a.compile_warm_v1_s
    layers = estimated_layers(model)
    cold = a.dynamo_s_per_layer * layers + a.inductor_fixed_s + a.inductor_s_per_layer * layers
    return cold * a.compile_scale


def capture_sizes_for(opts: TuningOptions) -> tuple[int, ...]:
    family = release_family(opts.vllm_version)
    if opts.cudagraph_capture_sizes is not None:
        return opts.cudagraph_capture_sizes
    return default_capture_sizes(family, opts.max_num_seqs)


def cuda_graph_seconds(model: ModelProfile, opts: TuningOptions) -> float:
    """CUDA-graph capture = fixed + graphs x layers x per-graph-layer cost, piecewise or full.

    v0: one full-model graph per size. v1: one piecewise graph set per size. Recent (>= 0.11,
    FULL_AND_PIECEWISE): piecewise for every size plus a full decode graph per size <= max_num_seqs.

    Trade-off of a shorter capture-size list: start-up drops roughly in proportion (54 s -> 7 s for
    Llama-3.1-8B with 1..64, tensorfuse), but a batch larger than the largest size, or between two
    sizes, runs padded to the next size or eagerly: decode throughput at high concurrency falls.
    """
    family = release_family(opts.vllm_version)
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
    return (a.cuda_graph_fixed_s + per_size + per_full) * a.cuda_graph_scale


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
    seconds, rate = weight_load(model, instance, tp, streamer, opts, source or opts.source)
    warm = opts.compile_cache_warm if warm_compile is None else warm_compile
    return PhaseEstimate(
        process_start_s=a.process_start_s,
        weight_load_s=seconds,
        compile_s=compile_seconds(model, opts, warm),
        cuda_graph_s=cuda_graph_seconds(model, opts),
        kv_and_server_s=a.kv_and_server_s,
        load_throughput_mb_s=rate,
    )


def _pod_phases(estimate: PhaseEstimate) -> tuple[tuple[str, float], ...]:
    return (
        ("process_start", estimate.process_start_s),
        ("weight_load", estimate.weight_load_s),
        ("compile", estimate.compile_s),
        ("cuda_graph", estimate.cuda_graph_s),
        ("kv_and_server", estimate.kv_and_server_s),
    )


def scale_out_paths(
    model: ModelProfile, instance: GpuInstance, tp: int, streamer: StreamerSettings, opts: TuningOptions
) -> ScaleOutPaths:
    """The three ways a replica starts (see ScaleOutPaths), phase by phase.

    Fresh node: node launch + GPU registration + image pull (bytes / 71.5 MB/s, 3.3x faster with
    FastImagePull) + the pod: weights streamed from S3 (with the node-local cache: copied from S3 to
    NVMe first, then read locally), compile cold unless the shared compile cache restores it.
    Warm node: the pod only, compile warm, weights from NVMe if the node-local cache is on.
    Warm spare: the pod only, compile warm, weights from NVMe (the placeholder copied them).
    Idle cost of N spares: N x TP GPUs x 24 h GPU-hours a day.
    """
    a = opts.assumptions
    pull_rate = a.image_pull_mb_s * (a.fast_image_pull_speedup if opts.fast_image_pull else 1.0)
    node = (
        ("node_launch", a.node_launch_s),
        ("gpu_registration", a.gpu_registration_s),
        ("image_pull", opts.image_bytes / (pull_rate * MB)),
    )
    local_streamer = dataclasses.replace(
        streamer, concurrency=streamer_concurrency(instance, dataclasses.replace(opts, source="local"), tp)
    )
    s3_streamer = dataclasses.replace(
        streamer, concurrency=streamer_concurrency(instance, dataclasses.replace(opts, source="s3"), tp)
    )
    if opts.concurrency is not None:
        local_streamer = s3_streamer = streamer
    cold = predict_phases(model, instance, tp, s3_streamer, opts, source="s3", warm_compile=opts.shared_compile_cache)
    fresh_pod = _pod_phases(cold)
    if opts.node_local_model_cache:
        copy_s, _ = weight_load(model, instance, 1, dataclasses.replace(s3_streamer, distributed=True), opts, "s3")
        local = predict_phases(
            model, instance, tp, local_streamer, opts, source="local", warm_compile=opts.shared_compile_cache
        )
        fresh_pod = (("model_copy", copy_s - a.weight_load_fixed_s), *_pod_phases(local))
    warm_source: StreamSource = "local" if opts.node_local_model_cache else "s3"
    warm_streamer = local_streamer if warm_source == "local" else s3_streamer
    warm = predict_phases(model, instance, tp, warm_streamer, opts, source=warm_source, warm_compile=True)
    spare = predict_phases(model, instance, tp, local_streamer, opts, source="local", warm_compile=True)
    return ScaleOutPaths(
        fresh_node=ScaleOutPath("fresh_node", node + fresh_pod),
        warm_node=ScaleOutPath("warm_node", _pod_phases(warm)),
        warm_spare=ScaleOutPath("warm_spare", _pod_phases(spare)),
        warm_spares=opts.warm_spares,
        spare_gpu_hours_per_day=float(opts.warm_spares * tp * HOURS_PER_DAY),
    )


def startup_probe(predicted: PhaseEstimate, opts: TuningOptions) -> StartupProbe:
    """Failures x period >= predicted total x safety factor (and >= the floor)."""
    budget = max(opts.min_startup_budget_seconds, math.ceil(predicted.total_s * opts.probe_safety_factor))
    return StartupProbe(
        period_seconds=opts.probe_period_seconds,
        failure_threshold=math.ceil(budget / opts.probe_period_seconds),
    )


def shm_bytes(instance: GpuInstance, tp: int) -> int:
    """/dev/shm for NCCL and vLLM's worker queues: 2 GiB per rank, at most a quarter of the pod's RAM."""
    return int(min(2 * GIB * tp, instance.memory_bytes * tp / instance.gpu_count / 4))


def pod_memory_bytes(instance: GpuInstance, tp: int) -> int:
    """Memory for a pod of `tp` GPUs: its GPU share of what the node can allocate.

    A node allocates less than its nominal RAM: the kernel sees ~3% less, and
    kubelet reserves 255 MiB + 11 MiB per pod, eviction 100 MiB, and the
    DaemonSets (CNI, kube-proxy, device plugin, Pod Identity agent, storage)
    request some more. Keeping max(3 GiB, 10%) off the top lets a full-node
    pod schedule even on a 16 GiB g5.xlarge.
    """
    reserve = max(3 * GIB, 0.1 * instance.memory_bytes)
    return int((instance.memory_bytes - reserve) * tp / instance.gpu_count)


def plan(model: ModelProfile, instance_type: str | GpuInstance, options: TuningOptions | None = None) -> ServingPlan:
    """Decide how to serve `model` on `instance_type`; raises FastloadConfigError on misfits."""
    opts = options or TuningOptions()
    _validate_options(opts)
    instance = instance_type if isinstance(instance_type, GpuInstance) else lookup(instance_type)
    arch = model.architecture
    if arch is not None and opts.max_model_len is not None:
        # vLLM refuses a --max-model-len above the model's max_position_embeddings (unless
        # VLLM_ALLOW_LONG_MAX_MODEL_LEN is set, which risks wrong outputs).
        require(
            opts.max_model_len <= arch.max_position_embeddings,
            "max_model_len",
            opts.max_model_len,
            f"at most the model's max_position_embeddings ({arch.max_position_embeddings})",
        )
    tp = choose_tensor_parallel(model, instance, opts)
    distributed = tp > 1 if opts.distributed is None else bool(opts.distributed)
    streamer = StreamerSettings(
        concurrency=streamer_concurrency(instance, opts, tp),
        memory_limit_bytes=streamer_memory_limit(model, instance, tp, distributed, opts),
        distributed=distributed,
        ranks=tp,
    )
    predicted = predict_phases(model, instance, tp, streamer, opts)
    paths = scale_out_paths(model, instance, tp, streamer, opts)
    fit = kv_fit(model, instance, tp, opts)
    share = tp / instance.gpu_count
    a = opts.assumptions
    family = release_family(opts.vllm_version)
    sizes = capture_sizes_for(opts)
    measured = a.measured_throughput(instance.name, opts.source)
    burst_mb, sustained_mb = _load_network_mb_s(instance, opts)
    notes = (
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
            if opts.source == "s3"
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
        f"vLLM {opts.vllm_version} ({family}): torch.compile {'warm' if opts.compile_cache_warm else 'cold'} "
        f"{predicted.compile_s:.1f} s for {estimated_layers(model)} layers; "
        f"{captured_graphs(family, sizes, opts.max_num_seqs)} CUDA graphs ({len(sizes)} capture sizes) "
        f"{predicted.cuda_graph_s:.1f} s",
        f"startup probe budget = max({opts.min_startup_budget_seconds} s, "
        f"{opts.probe_safety_factor:g} x predicted {predicted.total_s:.0f} s)",
        f"fresh node adds node launch {a.node_launch_s:g} s, GPU registration {a.gpu_registration_s:g} s, image "
        f"pull {paths.fresh_node.seconds('image_pull'):.0f} s ({opts.image_bytes / 1e9:.1f} GB"
        + (", FastImagePull" if opts.fast_image_pull else "")
        + "): before the startup probe starts",
    )
    return ServingPlan(
        instance=instance,
        model=model,
        tensor_parallel_size=tp,
        gpu_memory_utilization=opts.gpu_memory_utilization,
        source=opts.source,
        streamer=streamer,
        predicted=predicted,
        startup_probe=startup_probe(predicted, opts),
        shm_bytes=shm_bytes(instance, tp),
        pod_memory_bytes=pod_memory_bytes(instance, tp),
        pod_cpu=max(1, math.floor(instance.vcpu * 0.9 * share)),
        assumptions=notes,
        scale_out_paths=paths,
        kv_fit=fit,
        max_model_len=opts.max_model_len,
        cudagraph_capture_sizes=opts.cudagraph_capture_sizes,
        vllm_version=opts.vllm_version,
        kv_cache_dtype=opts.kv_cache_dtype,
    )


def compile_cache_key(
    *,
    vllm_version: str,
    model_uri: str,
    tensor_parallel_size: int,
    gpu_model: str,
    extra: dict[str, str] | None = None,
) -> str:
    """A short, stable key for a compile cache folder.

    vLLM's own cache hash covers its version, the model config and every
    VLLM_* factor; sharing one folder between differently configured servers
    makes misses look like hits. Keying the folder by the same inputs keeps
    each configuration in its own place.
    """
    for name, value in (("vllm_version", vllm_version), ("model_uri", model_uri), ("gpu_model", gpu_model)):
        require(isinstance(value, str) and value.strip() != "", name, value, "a non-empty string")
    require(
        isinstance(tensor_parallel_size, int) and tensor_parallel_size >= 1,
        "tensor_parallel_size",
        tensor_parallel_size,
        "a positive whole number",
    )
    parts = [vllm_version, model_uri, str(tensor_parallel_size), gpu_model]
    parts += [f"{k}={v}" for k, v in sorted((extra or {}).items())]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
