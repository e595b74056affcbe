"""Pure serving decisions: (ModelProfile, instance type, options) -> ServingPlan.

Everything a construct or chart needs to know about *how* to run a model is
decided here, in plain typed Python, so it can be tested without CDK and read
in one place. The formulas and the assumptions behind them are documented
next to each decision and returned in `ServingPlan.assumptions`.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Literal

from fastload_constructs.core.catalog import GIB, GpuInstance, lookup
from fastload_constructs.core.errors import FastloadConfigError, one_of, require
from fastload_constructs.core.model import ModelProfile

MB = 1000**2

# Where AL2023 nodeadm's `localStorage.strategy: RAID0` mounts the array
# (amazon-eks-ami setup-local-disks: `<dir>/0`, dir defaulting to /mnt/k8s-disks).
INSTANCE_STORE_MOUNT = "/mnt/k8s-disks/0"
NODE_CACHE_ROOT = f"{INSTANCE_STORE_MOUNT}/fastload"

StreamSource = Literal["s3", "local"]


@dataclass(frozen=True)
class LoadAssumptions:
    """Throughput and fixed-cost figures a prediction rests on; override any of them."""

    # AWS S3 performance guidelines: one request sustains about 85-90 MB/s.
    s3_mb_per_connection: float = 90.0
    # Share of the NIC an S3 read achieves after TCP/TLS overheads.
    network_efficiency: float = 0.8
    # Sequential read of one instance-store NVMe device (g5/g6/p5 class), MB/s.
    nvme_mb_per_device: float = 2000.0
    # Host-to-device copy over PCIe per GPU, MB/s (pinned-memory Gen4 x16, with margin).
    pcie_mb_per_gpu: float = 12000.0
    # Python imports, CUDA context, engine construction before weights load, seconds.
    process_start_s: float = 25.0
    # torch.compile (Dynamo transform + Inductor compile) on a cold cache, seconds.
    compile_cold_s: float = 60.0
    # torch.compile when the compile cache is hit ("Directly load ..."), seconds.
    compile_warm_s: float = 8.0
    # CUDA graph capture, seconds.
    cuda_graph_s: float = 20.0
    # KV-cache profiling and allocation, API server start, seconds.
    kv_and_server_s: float = 15.0


@dataclass(frozen=True)
class TuningOptions:
    """What a user may decide instead of the defaults; None means 'derive it'."""

    tensor_parallel_size: int | None = None
    gpu_memory_utilization: float = 0.90
    # Share of vLLM's GPU memory kept for KV cache and activations, not weights.
    kv_cache_reserve_fraction: float = 0.20
    source: StreamSource = "s3"
    concurrency: int | None = None
    memory_limit_bytes: int | None = None
    distributed: bool | None = None
    # Share of node RAM the streamers of all processes on a node may buffer.
    streamer_ram_fraction: float = 0.5
    probe_period_seconds: int = 10
    probe_safety_factor: float = 2.0
    # Never below what peers ship (60 x 10 s): a prediction that is off by more than
    # the safety factor must still not kill a loading pod.
    min_startup_budget_seconds: int = 600
    compile_cache_warm: bool = False
    assumptions: LoadAssumptions = field(default_factory=LoadAssumptions)


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
    """Predicted seconds per start-up phase; `total_s` is their sum."""

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

    @property
    def gpus_per_pod(self) -> int:
        return self.tensor_parallel_size

    @property
    def weights_per_gpu_bytes(self) -> int:
        return math.ceil(self.model.total_bytes / self.tensor_parallel_size)


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
            isinstance(opts.concurrency, int) and 1 <= opts.concurrency <= 256,
            "concurrency",
            opts.concurrency,
            "a whole number from 1 to 256",
        )
    if opts.memory_limit_bytes is not None:
        require(
            isinstance(opts.memory_limit_bytes, int) and opts.memory_limit_bytes > 0,
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
        isinstance(opts.probe_period_seconds, int) and 1 <= opts.probe_period_seconds <= 60,
        "probe_period_seconds",
        opts.probe_period_seconds,
        "a whole number from 1 to 60",
    )
    require(
        opts.probe_safety_factor >= 1,
        "probe_safety_factor",
        opts.probe_safety_factor,
        "a number >= 1",
    )
    require(
        isinstance(opts.min_startup_budget_seconds, int) and opts.min_startup_budget_seconds > 0,
        "min_startup_budget_seconds",
        opts.min_startup_budget_seconds,
        "a positive whole number",
    )


def weight_capacity_per_gpu(instance: GpuInstance, opts: TuningOptions) -> int:
    """Bytes of weights one GPU may hold: vLLM's share of GPU memory minus the KV reserve."""
    usable = instance.gpu_memory_bytes * opts.gpu_memory_utilization
    return int(usable * (1 - opts.kv_cache_reserve_fraction))


def tensor_parallel_candidates(instance: GpuInstance) -> list[int]:
    """Powers of two that divide the GPU count: the TP sizes vLLM shards cleanly across."""
    return [tp for tp in (1, 2, 4, 8, 16) if tp <= instance.gpu_count and instance.gpu_count % tp == 0]


def choose_tensor_parallel(model: ModelProfile, instance: GpuInstance, opts: TuningOptions) -> int:
    """The user's TP after checks, else the smallest TP whose per-GPU slice fits.

    Smallest, because each extra rank costs all-reduce traffic on every token
    and leaves fewer GPUs for other replicas on the node.
    """
    capacity = weight_capacity_per_gpu(instance, opts)
    fitting = [tp for tp in tensor_parallel_candidates(instance) if model.total_bytes / tp <= capacity]
    limit_gib = capacity * instance.gpu_count / GIB
    if opts.tensor_parallel_size is not None:
        tp = opts.tensor_parallel_size
        require(
            isinstance(tp, int) and 1 <= tp <= instance.gpu_count and instance.gpu_count % tp == 0,
            "tensor_parallel_size",
            tp,
            f"a divisor of {instance.name}'s {instance.gpu_count} GPUs: "
            + ", ".join(str(d) for d in range(1, instance.gpu_count + 1) if instance.gpu_count % d == 0),
        )
        if model.total_bytes / tp > capacity:
            smallest = f"at least {fitting[0]}" if fitting else "none fits on this instance type"
            raise FastloadConfigError(
                "tensor_parallel_size",
                tp,
                f"a size whose per-GPU slice fits {capacity / GIB:.1f} GiB ({smallest})",
            )
        return tp
    if not fitting:
        raise FastloadConfigError(
            "model.total_bytes",
            model.total_bytes,
            f"at most {limit_gib:.1f} GiB of weights on {instance.name} "
            f"({instance.gpu_count} x {instance.gpu_model} {instance.gpu_memory_gib:g} GiB at "
            f"gpu_memory_utilization {opts.gpu_memory_utilization} with "
            f"{opts.kv_cache_reserve_fraction:.0%} kept for KV cache); choose a larger instance type",
        )
    return fitting[0]


def streamer_concurrency(instance: GpuInstance, opts: TuningOptions) -> int:
    """Streamer threads per process.

    A packed node runs one process per GPU, so each process owns 1/GPUs of the
    NIC and of the vCPUs. S3: enough connections to fill that NIC share at
    ~90 MB/s each (AWS's per-request guidance), capped at 4 threads per vCPU of
    the share (threads mostly wait on the network, but copy on the CPU)
    and at 64; at least 4. Published setting for comparison: 32 on S3.
    Local NVMe: 16 per device (the published local setting for one disk),
    shared by the processes, at least 16, under the same CPU cap.
    """
    if opts.concurrency is not None:
        return opts.concurrency
    processes = instance.gpu_count  # a packed node: one process per GPU
    cpu_cap = 4 * max(1, instance.vcpu // processes)
    if opts.source == "local":
        wanted = max(16, math.ceil(16 * instance.nvme_count / processes))
    else:
        nic_mb = instance.network_gbps * 1000 / 8 * opts.assumptions.network_efficiency
        wanted = math.ceil(nic_mb / processes / opts.assumptions.s3_mb_per_connection)
    return max(4, min(wanted, cpu_cap, 64))


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


def predict_phases(
    model: ModelProfile, instance: GpuInstance, tp: int, streamer: StreamerSettings, opts: TuningOptions
) -> PhaseEstimate:
    """Seconds per phase, from bytes over the narrowest pipe and the fixed costs.

    Weight load = bytes moved / min(NIC x efficiency, connections x per-connection
    rate, PCIe x GPUs) for S3, or / min(NVMe devices x per-device rate, PCIe) for
    a node-local copy. Without distributed streaming every rank reads the
    whole model, so the node moves TP times the bytes.
    """
    a = opts.assumptions
    readers = tp  # every rank runs its own streamer, whether or not it is distributed
    bytes_moved = model.total_bytes if (streamer.distributed or tp == 1) else model.total_bytes * tp
    pcie = a.pcie_mb_per_gpu * tp
    if opts.source == "local":
        source_mb = a.nvme_mb_per_device * max(1, instance.nvme_count)
    else:
        nic = instance.sustained_network_gbps * 1000 / 8 * a.network_efficiency
        source_mb = min(nic, streamer.concurrency * readers * a.s3_mb_per_connection)
    throughput = min(source_mb, pcie)
    return PhaseEstimate(
        process_start_s=a.process_start_s,
        weight_load_s=bytes_moved / (throughput * MB),
        compile_s=a.compile_warm_s if opts.compile_cache_warm else a.compile_cold_s,
        cuda_graph_s=a.cuda_graph_s,
        kv_and_server_s=a.kv_and_server_s,
        load_throughput_mb_s=throughput,
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
    tp = choose_tensor_parallel(model, instance, opts)
    distributed = tp > 1 if opts.distributed is None else bool(opts.distributed)
    streamer = StreamerSettings(
        concurrency=streamer_concurrency(instance, opts),
        memory_limit_bytes=streamer_memory_limit(model, instance, tp, distributed, opts),
        distributed=distributed,
        ranks=tp,
    )
    predicted = predict_phases(model, instance, tp, streamer, opts)
    share = tp / instance.gpu_count
    a = opts.assumptions
    notes = (
        f"S3 reads at {a.s3_mb_per_connection:g} MB/s per connection, {a.network_efficiency:.0%} of the NIC",
        f"network planned at {instance.sustained_network_gbps:g} Gbps "
        + ("(a quarter of the 'up to' burst)" if instance.network_burst else "(sustained)"),
        f"NVMe at {a.nvme_mb_per_device:g} MB/s per device; PCIe at {a.pcie_mb_per_gpu:g} MB/s per GPU",
        f"torch.compile {'warm' if opts.compile_cache_warm else 'cold'}: "
        f"{predicted.compile_s:g} s; CUDA graphs {a.cuda_graph_s:g} s",
        f"startup probe budget = max({opts.min_startup_budget_seconds} s, "
        f"{opts.probe_safety_factor:g} x predicted {predicted.total_s:.0f} s)",
        "image pull is not counted: it happens before the startup probe starts",
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
