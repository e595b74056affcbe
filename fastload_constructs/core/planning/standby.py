"""The standby path: a scale-out that wakes a sleeping vLLM engine, phase by phase, and what standbys cost idle.

A standby is a vLLM engine started once, warmed up, then put to sleep at level 1
(`--enable-sleep-mode`; weights copied to pinned host RAM, KV cache freed; the
process, CUDA graphs and compiled kernels kept). The controller that wakes it on
scale-out is llm-d-incubation/llm-d-fast-model-actuation (FMA) v0.6.4 in launcher
mode (`core/serving/standby.py`): the model's KEDA-scaled Deployment becomes FMA's
requester Deployment, and a new requester that lands on a GPU holding a sleeper of
the model binds to it and wakes it ("hot start").

Phases from requester creation to the first token, each from a cited figure
(`StandbyAssumptions`); which are published measurements and which are estimates
is recorded per phase (`StandbyPhase.measured`). The wake is the only phase that
moves data: the weights back from pinned host memory, modelled as a fixed cost
plus bytes per GPU over the GPU's host link (fitted to published level-1 wakes;
Gen5 and Gen3 links scale Gen4's rate by their signalling rate).

Pure: no CDK, cdk8s or boto3.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fastload_constructs.core.catalog import GIB, GpuInstance, HostLink, gpu_spec
from fastload_constructs.core.errors import whole_number_in
from fastload_constructs.core.model import ModelProfile

HOURS_PER_DAY = 24
# The vLLM release FMA v0.6.4's launcher image runs (dockerfiles/Dockerfile.launcher.benchmark: FROM
# vllm/vllm-openai:v0.26.0): with standbys every replica of the model runs it, not the Serving image's.
LAUNCHER_VLLM_VERSION = "0.26.0"
# Standbys per model: one bound for the planner, ServedModel and the chart.
MAX_STANDBYS = 100
# A host link's per-lane signalling rate against PCIe Gen4's 16 GT/s: Gen3 8 GT/s, Gen5 32 GT/s (PCI-SIG,
# pcisig.com/specifications); x16 on every catalog GPU (core/catalog.py).
PCIE_RATE_VS_GEN4: dict[HostLink, float] = {"pcie3": 0.5, "pcie4": 1.0, "pcie5": 2.0}


def check_standbys(value: object, field: str = "standbys") -> int:
    """A count of standby engines (sleeping vLLM): a whole number from 0 to MAX_STANDBYS."""
    return whole_number_in(value, field, 0, MAX_STANDBYS)


@dataclass(frozen=True)
class StandbyAssumptions:
    """The figures the standby path rests on, each with its source; override any of them.

    Measured = a published measurement of that very step; estimated = no measurement of
    that step was found, the figure is reasoned from neighbouring ones (said where).
    """

    # --- orchestration (FMA launcher mode), before the wake -----------------------------------------
    # The requester Pod (a tiny image already on the node, no init containers) created by the
    # Deployment, scheduled and its container started. ESTIMATED: "<1 s" scheduling + "~1-2 s" container
    # start with the image cached (reasoned from FMA's design, llm-d-incubation/llm-d-fast-model-actuation
    # docs); the Kubernetes pod-startup SLO bounds it at 5 s p99 for stateless pods with pulled images
    # (kubernetes/community sig-scalability/slos/pod_startup_latency.md). 2 s.
    requester_start_s: float = 2.0
    # The dual-pods controller sees the running requester, GETs its GPU UUIDs from the requester's SPI
    # (`/v1/dual-pods/accelerators`), finds the sleeping instance of the same InferenceServerConfig on
    # those GPUs and binds it. ESTIMATED: "<1 s" (FMA's design; informer events + two HTTP calls
    # to pod IPs). 1 s.
    bind_s: float = 1.0
    # --- the wake (POST /wake_up, level 1) ---------------------------------------------------------
    # vLLM's CuMemAllocator maps every allocation back and copies each weight tensor from its pinned host
    # backup (cudaMemcpy, one per allocation); the KV cache, discarded at sleep, is only re-mapped
    # (vllm/device_allocator/cumem.py). A wake = a fixed cost (the RPC to the workers, re-mapping the KV
    # cache) + each GPU's shard of the weights over its host link, fitted over the level-1 wakes of the
    # sources that name their GPU (tests/fixtures/engine_phase_measurements.json, rows "wake": the vLLM
    # blog's "Zero-Reload Model Switching with vLLM Sleep Mode", 2025-10-26, A100 and RTX A4000;
    # vllm-project/vllm#16663, A800; vllm-project/vllm#48310, H100) by bench/engine_phase_fits.py. MEASURED
    # (fitted). Level-2 wakes (weights re-read from disk) and wakes with LoRA adapters (vllm PR 48337) are kept,
    # not fitted.
    wake_fixed_s: float = 0.15
    # PCIe Gen4 x16 (A100, A800, A4000 above; the L4, L40S and A10G of g6, g6e and g5), GB/s per GPU:
    # fitted with the fixed cost above. Gen5 (H100, H200) and Gen3 (T4, V100) are this rate times the
    # link's per-lane signalling rate against Gen4 (32 and 8 GT/s against 16 GT/s, PCI-SIG): `PCIE_RATE_VS_GEN4`.
    wake_pcie4_gb_s: float = 17.0
    # --- after the wake ------------------------------------------------------------------------------
    # FMA puts the InferenceServerConfig's labels on the launcher Pod once the instance is awake; the
    # EndpointSlice and kube-proxy then route to it. ESTIMATED: "~1 s" (FMA's design); no
    # measurement of this step was found.
    route_s: float = 1.0
    # First request after a wake: 0.54-1.0 s for Qwen3-Coder-30B-A3B on A100 (vLLM blog, above; the
    # engine's CUDA graphs and compiled kernels survive level 1). MEASURED; the upper end, 1.0 s, for
    # a whole short completion, which bounds the first token.
    first_token_s: float = 1.0
    # --- idle cost -------------------------------------------------------------------------------------
    # GPU memory a sleeping engine keeps (CUDA context, CUDA graphs, allocator): 1.0 GiB (Llama-3.2-3B,
    # llm-d-benchmark PR #103), 1.75 GiB (granite-3.2-8b, PR #399); FMA docs/e2e-recipe.md: "a sleeping
    # one takes between 1 and 2 GiB of GPU memory. To be safe, plan on 2 GiB". MEASURED: 2 GiB.
    sleeper_gpu_bytes: int = 2 * GIB
    # Host memory of a sleeping engine besides its weights (Python, CUDA host state, tokenizer).
    # ASSUMED: 4 GiB; no published figure was found. bench/standby_wake.py records the process's RSS
    # asleep on a GPU machine.
    sleeper_process_host_bytes: int = 4 * GIB
    # --- a published end-to-end figure, for the plan's notes (not summed) --------------------------------
    # FMA's own hot start, requester created -> requester Ready, incl. scheduling, container start and a
    # 5 s probe period: min 9 s, max 18 s, avg 13 s (granite-3.3-2b-instruct, H100 node, direct mode,
    # Dec 2025; FMA inference_server/benchmark/benchmark_legacy.md). MEASURED, pessimistic bound.
    published_hot_start_avg_s: float = 13.0
    published_hot_start_range_s: tuple[float, float] = (9.0, 18.0)


@dataclass(frozen=True)
class StandbyPhase:
    name: str
    seconds: float
    measured: bool  # a published measurement of this step (else estimated or assumed)
    source: str


@dataclass(frozen=True)
class StandbyIdleCost:
    """What `standbys` sleeping engines hold while idle; multiply by your prices."""

    standbys: int
    gpus: int  # standby GPUs held (standbys x TP): a requester must be able to take them
    gpu_hours_per_day: float
    instance_hours_per_day: float  # the standby GPUs' share of instances
    host_bytes_per_standby: int  # pinned weights + process, in the launcher Pod's memory
    pinned_host_bytes_per_standby: int  # the level-1 weight backup alone
    gpu_bytes_per_sleeper_per_gpu: int  # what a sleeper keeps on each of its GPUs


@dataclass(frozen=True)
class StandbyPath:
    """The standby path's phases (with their sources) and the standbys' idle cost."""

    phases: tuple[StandbyPhase, ...]
    idle: StandbyIdleCost
    notes: tuple[str, ...] = field(default=())

    @property
    def total_s(self) -> float:
        return sum(p.seconds for p in self.phases)

    @property
    def measured_s(self) -> float:
        return sum(p.seconds for p in self.phases if p.measured)

    def seconds(self, phase: str) -> float:
        return next((p.seconds for p in self.phases if p.name == phase), 0.0)


def wake_rate_gb_s(link: HostLink, a: StandbyAssumptions) -> float:
    """GB/s per GPU a level-1 wake copies back over a host link: Gen4's fitted rate scaled by the link's
    signalling rate (a ceiling check: one pinned 16 GB copy on an H200 ran at 51.7 GB/s,
    bench/results/graph_capture-NVIDIA_H200.json)."""
    return a.wake_pcie4_gb_s * PCIE_RATE_VS_GEN4[link]


def wake_seconds_for(bytes_per_gpu: float, link: HostLink, a: StandbyAssumptions) -> float:
    """Level-1 wake: the fixed cost + one GPU's shard of the weights over its host link."""
    return a.wake_fixed_s + bytes_per_gpu / (wake_rate_gb_s(link, a) * 1e9)


def wake_seconds(model: ModelProfile, tp: int, a: StandbyAssumptions, instance: GpuInstance) -> float:
    """Level-1 wake of `model` split over `tp` GPUs of `instance`."""
    return wake_seconds_for(model.total_bytes / tp, gpu_spec(instance).host_link, a)


def standby_idle_cost(
    model: ModelProfile, instance: GpuInstance, tp: int, standbys: int, a: StandbyAssumptions
) -> StandbyIdleCost:
    """Standby GPUs x 24 h; host RAM per standby = its weights (pinned, level 1) + the process; 2 GiB per GPU."""
    check_standbys(standbys)
    gpus = standbys * tp
    return StandbyIdleCost(
        standbys=standbys,
        gpus=gpus,
        gpu_hours_per_day=float(gpus * HOURS_PER_DAY),
        instance_hours_per_day=gpus / instance.gpu_count * HOURS_PER_DAY,
        host_bytes_per_standby=model.total_bytes + a.sleeper_process_host_bytes,
        pinned_host_bytes_per_standby=model.total_bytes,
        gpu_bytes_per_sleeper_per_gpu=a.sleeper_gpu_bytes,
    )


def standby_path(
    model: ModelProfile, instance: GpuInstance, tp: int, standbys: int, a: StandbyAssumptions | None = None
) -> StandbyPath:
    """Requester start + bind + wake + route + first token, from requester creation (see the module doc)."""
    a = a if a is not None else StandbyAssumptions()
    wake = wake_seconds(model, tp, a, instance)
    gb_per_gpu = model.total_bytes / tp / 1e9
    link = gpu_spec(instance).host_link
    research = "estimate from FMA's design"
    phases = (
        StandbyPhase("requester_start", a.requester_start_s, False, f"schedule <1 s + cached start 1-2 s ({research})"),
        StandbyPhase("bind", a.bind_s, False, f"FMA controller GPU query + bind <1 s ({research})"),
        StandbyPhase(
            "wake",
            wake,
            True,
            f"{a.wake_fixed_s:g} s + {gb_per_gpu:.1f} GB/GPU at {wake_rate_gb_s(link, a):g} GB/s over {link} "
            "(fitted to level-1 wakes on A100, A800, A4000 and H100: vLLM blog 2025-10-26, "
            "vllm-project/vllm#16663, vllm-project/vllm#48310)",
        ),
        StandbyPhase("route", a.route_s, False, f"routing labels -> EndpointSlice ~1 s ({research})"),
        StandbyPhase(
            "first_token", a.first_token_s, True, "first request after a wake 0.54-1.0 s, A100 (vLLM blog 2025-10-26)"
        ),
    )
    low, high = a.published_hot_start_range_s
    notes = (
        f"standby path: {sum(p.seconds for p in phases):.1f} s from requester creation, "
        f"{sum(p.seconds for p in phases if p.measured):.1f} s of it from published measurements, the rest estimated",
        f"FMA's own published hot start (requester created -> Ready, H100, 2B model, 5 s probe period) averaged "
        f"{a.published_hot_start_avg_s:g} s ({low:g}-{high:g} s): the pessimistic bound until measured here",
        "a requester wakes a standby only if it lands on a GPU holding one (preferred affinity steers it); "
        "otherwise the warm-node or fresh-node path runs",
        f"with standbys every replica's engine runs in FMA's launcher image (vLLM {LAUNCHER_VLLM_VERSION}), "
        "not the serving image",
    )
    return StandbyPath(phases=phases, idle=standby_idle_cost(model, instance, tp, standbys, a), notes=notes)


def standby_host_bytes(model: ModelProfile, a: StandbyAssumptions | None = None) -> int:
    """Host memory one sleeping engine of `model` holds: its weights (pinned) plus the process."""
    a = a if a is not None else StandbyAssumptions()
    return model.total_bytes + a.sleeper_process_host_bytes


def standby_gpu_memory_utilization(utilization: float, gpu_bytes: int, sleepers: int, a: StandbyAssumptions) -> float:
    """The awake engine's --gpu-memory-utilization beside `sleepers` sleeping engines on its GPU.

    FMA docs: each inference server on a GPU of M GiB must use no more than M - N x 2 GiB with N
    sleepers there. Rounded down to 3 decimals so the flag never asks for more than what is left.
    """
    reduced = utilization - sleepers * a.sleeper_gpu_bytes / gpu_bytes
    return math.floor(reduced * 1000) / 1000
