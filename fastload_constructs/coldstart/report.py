"""What a cold-start report says, whatever engine wrote the log: phases, evidence, weights.

Each engine folder (`vllm/`, `sglang/`) reads its own log lines into a `ColdStartReport`; `render`, `plot`,
`timeline` and `fastload calibrate` read only this module's types.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

GIB = 2**30
# Every phase a report may hold, in start-up order; an engine's log shows some of them. They do not
# overlap and add up to the time to ready. distributed_init: the process groups (NCCL, Gloo) of a
# multi-GPU server; warmup: the engine's own first request and the kernels it JIT-compiles, after the
# server is up and before it says it is ready.
PHASE_ORDER = (
    "process_start",
    "engine_init",
    "distributed_init",
    "weight_load",
    "dynamo_transform",
    "graph_compile",
    "cuda_graph",
    "kv_cache_profiling",
    "api_server",
    "warmup",
)
# The plan predicts five coarser phases (core.engines.phases.PhaseEstimate's fields, less "_s"); each
# covers these measured ones, so a comparison adds like for like (`fastload coldstart --instance`,
# `fastload timeline`, `fastload calibrate`).
PLAN_PHASES: dict[str, tuple[str, ...]] = {
    "process_start": ("process_start", "engine_init", "distributed_init"),
    "weight_load": ("weight_load",),
    "compile": ("dynamo_transform", "graph_compile"),
    "cuda_graph": ("cuda_graph",),
    "kv_and_server": ("kv_cache_profiling", "api_server", "warmup"),
}

# "unknown": the engine compiles but logs no cache hit or miss.
CompileCache = Literal["hit", "miss", "partial", "disabled", "not_compiled", "unknown"]
# "server": ready when the HTTP server is; "offline": an in-process run, ready when the engine is.
Mode = Literal["server", "offline"]


@dataclass(frozen=True)
class Phase:
    name: str
    seconds: float


def phases_in_order(seconds: Mapping[str, float | None], span_s: float) -> tuple[Phase, ...]:
    """Every phase the log timed (None: it has none of it), in PHASE_ORDER, with engine_init the part of
    `span_s` (container or first line -> the end) that no line reports. Never negative: lines of different
    processes stamped to the second may be a second out of order (coldstart/clock.py takes out larger steps)."""
    named = sum(max(0.0, v) for name, v in seconds.items() if v is not None and name != "engine_init")
    timed = {**seconds, "engine_init": max(0.0, span_s - named)}
    return tuple(
        Phase(name, round(max(0.0, value), 3)) for name in PHASE_ORDER if (value := timed.get(name)) is not None
    )


def ended_without_error(phase: str) -> str:
    """A start that never got ready and logged no error: what a report says instead of a root cause."""
    return (
        f"the log ends during {phase} with no error after the last start-up line "
        "(cut off, still starting, or killed: see the pod's events)"
    )


@dataclass(frozen=True)
class Evidence:
    """Which log line gave which number: what a user checks to trust or dispute a phase."""

    phase: str
    line_number: int
    line: str
    note: str


@dataclass(frozen=True)
class WeightLoad:
    """Bytes of weights on the GPUs, and how fast they arrived.

    `total_bytes` is one copy of the model over the GPUs it is split across (`workers`: its
    tensor- x pipeline-parallel shards; data-parallel replicas hold it again). When only some
    ranks log the load (rank 0 on recent vLLM), the missing shards count as the
    largest one printed and `total_is_estimated` is True (`per_gpu_bytes` is what the log printed).
    """

    seconds: float
    total_bytes: int | None
    gib_per_s: float | None
    # Where the throughput came from: "runai_streamer" (its own summary line) or the engine's name.
    throughput_source: str | None
    per_gpu_bytes: int | None = None
    reporting_workers: int = 0
    total_is_estimated: bool = False
    workers: int = 1

    @property
    def gib(self) -> float | None:
        return None if self.total_bytes is None else self.total_bytes / GIB

    @property
    def per_gpu_gib(self) -> float | None:
        return None if self.per_gpu_bytes is None else self.per_gpu_bytes / GIB

    @property
    def per_gpu_gib_per_s(self) -> float | None:
        return None if self.gib_per_s is None else self.gib_per_s / max(self.workers, 1)


@dataclass(frozen=True)
class ColdStartReport:
    """Where one launch's start-up time went."""

    label: str
    # The engine whose log this is ("vllm", "sglang"), and its release when the log names it.
    engine: str
    engine_version: str | None
    phases: tuple[Phase, ...]
    total_s: float
    ready: bool
    failure: str | None
    # For a start that never got ready: the phase it was in when the log ends.
    failed_in: str | None
    worker_count: int
    compile_cache: CompileCache
    compile_cache_dir: str | None
    torch_compile_s: float | None
    weights: WeightLoad | None
    # Which clock timed the log: "collector" (kubectl --timestamps, docker -t, a JSON envelope) or the
    # engine's own (its name).
    clock: str
    mode: Mode = "server"
    # Which signal gave the worker count: "world_size", "tensor_parallel_size", "worker prefixes", ...
    worker_count_source: str = ""
    evidence: tuple[Evidence, ...] = ()
    lines_read: int = 0
    # What the reader had to set aside or correct to make sense of the log (figures out of range, a clock that
    # stepped): one sentence each, printed with the report.
    notes: tuple[str, ...] = ()
    # The steps the log's clock took (coldstart/clock.py), taken out of the phases: (line, seconds; negative
    # back). Such a log's phases are not measurements across a step: `fastload calibrate` refuses it.
    clock_steps: tuple[tuple[int, float], ...] = ()

    def seconds(self, phase: str) -> float:
        """Seconds of `phase`, 0 when this log has none of it."""
        return next((p.seconds for p in self.phases if p.name == phase), 0.0)

    @property
    def phase_seconds(self) -> dict[str, float]:
        """Every phase present, in PHASE_ORDER: the figures `fastload calibrate` reads."""
        return {p.name: p.seconds for p in self.phases}

    @property
    def weights_gib(self) -> float | None:
        return None if self.weights is None else self.weights.gib

    @property
    def weights_gib_per_s(self) -> float | None:
        return None if self.weights is None else self.weights.gib_per_s

    @property
    def dominant_phase(self) -> str:
        return max(self.phases, key=lambda p: p.seconds).name

    def evidence_for(self, phase: str) -> tuple[Evidence, ...]:
        return tuple(e for e in self.evidence if e.phase == phase)

    @property
    def plan_phase_seconds(self) -> dict[str, float | None]:
        """Seconds regrouped under the plan's phases (PLAN_PHASES); None where the log has none of its parts."""
        measured = self.phase_seconds
        return {
            name: sum(measured[p] for p in parts if p in measured) if any(p in measured for p in parts) else None
            for name, parts in PLAN_PHASES.items()
        }
