"""What the scanner keeps from a vLLM log, and what a report is made of.

`scanner.py` fills a `Timeline` with `LogEvent`s (one per recognised start-up line)
and `Problem`s (error records and exception lines); the modules in `phases/` read
it, one phase each, and return seconds with the `Evidence` lines they came from;
`parser.py` puts them together into a `ColdStartReport`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from fastload_constructs.coldstart.patterns import LineKind

GIB = 2**30
PHASE_ORDER = (
    "process_start",
    "engine_init",
    "weight_load",
    "dynamo_transform",
    "graph_compile",
    "cuda_graph",
    "kv_cache_profiling",
    "api_server",
)


@dataclass(frozen=True)
class LogEvent:
    """One recognised line: when, which process, what, and the line itself (for evidence)."""

    at: datetime
    process: str
    kind: LineKind
    values: dict[str, str]
    line_number: int
    text: str = ""
    # Ray de-duplicates identical worker lines: "[repeated 7x across cluster]" means 7 more workers said it.
    repeated: int = 0


@dataclass(frozen=True)
class Phase:
    name: str
    seconds: float


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

    `total_bytes` is over all GPUs. Recent releases print the load only from the
    rank-0 worker; then the total is that worker's share times the worker count
    and `total_is_estimated` is True (`per_gpu_bytes` is what the log printed).
    """

    seconds: float
    total_bytes: int | None
    gib_per_s: float | None
    # Where the throughput came from: "runai_streamer" (its own summary line) or "vllm".
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


@dataclass
class Problem:
    """An ERROR record or a bare exception line, kept as a candidate root cause."""

    is_exception: bool
    text: str
    line_number: int
    at: datetime | None = None


@dataclass
class Timeline:
    """What one pass over a log kept: bounded by the start-up section, not by the file."""

    events: list[LogEvent] = field(default_factory=list)
    first_at: datetime | None = None
    last_at: datetime | None = None
    # ERROR records and bare exception lines after the last start-up line, plus the one before it.
    problems: list[Problem] = field(default_factory=list)
    problems_after_last_event: int = 0
    # Bare traceback frames after the last start-up line (ERROR-record frames are among `problems`).
    frames: list[Problem] = field(default_factory=list)
    server_signal: bool = False
    world_sizes: set[int] = field(default_factory=set)
    parallel_config: int = 0
    worker_pids: set[str] = field(default_factory=set)
    v0_worker_processes: bool = False
    clock: str = "undecided"
    lines_read: int = 0
    stopped_at_ready: bool = False

    def of_kind(self, *kinds: LineKind) -> list[LogEvent]:
        return [e for e in self.events if e.kind in kinds]


def seconds_of(event: LogEvent) -> float:
    """The duration a line prints (0 when it prints none)."""
    values = event.values
    return float(values.get("seconds") or values.get("seconds2") or values.get("seconds3") or 0.0)


def by_process(events: list[LogEvent], *kinds: LineKind) -> dict[str, list[LogEvent]]:
    grouped: dict[str, list[LogEvent]] = defaultdict(list)
    for event in events:
        if event.kind in kinds:
            grouped[event.process].append(event)
    return grouped


CompileCache = Literal["hit", "miss", "partial", "disabled", "not_compiled", "unknown"]  # unknown: SGLang
Mode = Literal["server", "offline"]
