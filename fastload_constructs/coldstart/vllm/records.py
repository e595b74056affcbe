"""What the scanner keeps from a vLLM log.

`scanner.py` fills a `Timeline` with `LogEvent`s (one per recognised start-up line)
and `Problem`s (error records and exception lines); the modules in `phases/` read
it, one phase each, and return seconds with the `Evidence` lines they came from;
`assemble.py` puts them together into a `ColdStartReport`.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from fastload_constructs.coldstart.clock import Clock
from fastload_constructs.coldstart.figures import Skipped
from fastload_constructs.coldstart.vllm.patterns import LineKind


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


@dataclass
class Problem:
    """An ERROR record or a bare exception line, kept as a candidate root cause."""

    is_exception: bool
    text: str
    line_number: int
    at: datetime | None = None
    # A traceback's frame, code or caret line, or its header: it says where, not what went wrong.
    context: bool = False


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
    # Figures out of range the log carried (coldstart/figures.py): not read, counted in one note.
    skipped: Skipped = field(default_factory=Skipped)
    # The steps the log's clock took, taken out of every time above (coldstart/clock.py).
    steps: Clock = field(default_factory=Clock)

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
