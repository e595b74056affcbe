"""One pass over an SGLang log's lines: keep the timed start-up lines, the strongest failure line, the first
traceback, the streamer's summaries and the server_args line; every other line is dropped as it is read."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from fastload_constructs.coldstart.clock import Clock
from fastload_constructs.coldstart.figures import MAX_BYTES, MAX_SECONDS, MAX_WORKERS, Skipped, bounded, whole
from fastload_constructs.coldstart.lines import EVIDENCE_CHARS, MAX_LINE_CHARS
from fastload_constructs.coldstart.sglang.patterns import (
    ERROR_LINE,
    FAILURES,
    FIGURES,
    NAMED_FAILURES,
    PARALLEL_SIZES,
    PATTERNS,
    PREFIX,
    TRACEBACK_FRAME,
    TRACEBACK_START,
    UNIFIED_MEMORY,
)
from fastload_constructs.coldstart.streamer import STREAMER_SUMMARY, streamed_bytes

# Distinct rank tags kept (a DP x TP x EP run has hundreds; a runaway log must not grow this).
_MAX_RANKS = 4096
# Frames and code lines kept of a traceback (the innermost are the last).
_MAX_FRAMES = 200


@dataclass(frozen=True)
class Event:
    """One recognised line: when, which rank ("TP0", "DP1 TP3"; "" for none), what, its numbers, the line."""

    at: datetime
    rank: str
    kind: str
    values: tuple[str | None, ...]
    line_number: int
    text: str


@dataclass(frozen=True)
class Failure:
    """The strongest failure line seen: the phase it names (None: whichever was running), its text."""

    phase: str | None
    text: str
    line_number: int
    strength: int  # its place in FAILURES: lower is more specific

    @property
    def names_its_cause(self) -> bool:
        return self.strength < len(NAMED_FAILURES)


@dataclass
class Traceback:
    """The first traceback of the log: its frames and code lines (innermost last), and its error line (None
    while the log has not shown it: cut, or still to come)."""

    line_number: int
    lines: list[str] = field(default_factory=list)
    error: str | None = None
    error_line: int = 0

    def add(self, line: str, number: int) -> None:
        text = line.strip()
        if not text or TRACEBACK_START.search(text):
            return
        if ERROR_LINE.match(line) and not TRACEBACK_FRAME.match(line):
            self.error, self.error_line = _with_context(text, self.lines), number
        elif len(self.lines) < _MAX_FRAMES:
            self.lines.append(text[:EVIDENCE_CHARS])
        else:
            self.lines = [*self.lines[1:], text[:EVIDENCE_CHARS]]


def _with_context(error: str, lines: list[str]) -> str:
    """A bare error ("AssertionError") with the code line that raised it; any other error as printed."""
    if ":" in error or not lines or TRACEBACK_FRAME.match(lines[-1]):
        return error[:EVIDENCE_CHARS]
    return f"{error} at: {lines[-1]}"[:EVIDENCE_CHARS]


@dataclass(frozen=True)
class Streamed:
    """A Run:ai streamer summary line: bytes streamed and in how long."""

    bytes: float
    seconds: float
    line_number: int
    text: str


@dataclass
class Scan:
    events: list[Event] = field(default_factory=list)
    first_at: datetime | None = None
    last_at: datetime | None = None
    failure: Failure | None = None
    streamed: list[Streamed] = field(default_factory=list)
    lines_read: int = 0
    server_args: str | None = None
    ranks: set[str] = field(default_factory=set)  # every rank tag seen on a prefixed line
    traceback: Traceback | None = None
    capture_bar_line: int = 0  # the last capture progress bar ("Capturing batches (bs=.."), printed bare
    # Figures out of range the log carried (coldstart/figures.py): their lines are left out, counted in one note.
    skipped: Skipped = field(default_factory=Skipped)
    # The steps the log's clock took, taken out of every time above (coldstart/clock.py).
    steps: Clock = field(default_factory=Clock)
    # The first line naming a device with unified CPU-GPU memory (patterns.UNIFIED_MEMORY): (its name, the line).
    unified_memory: tuple[str, int] | None = None

    def of(self, *kinds: str) -> list[Event]:
        return [e for e in self.events if e.kind in kinds]


def _failure(line: str, number: int, strongest: Failure | None) -> Failure | None:
    """The most specific failure so far: this line's, when it is stronger than the one kept."""
    bound = len(FAILURES) if strongest is None else strongest.strength
    for strength, (phase, pattern) in enumerate(FAILURES[:bound]):
        found = pattern.search(line)
        if found:
            return Failure(phase, found.group(0)[:EVIDENCE_CHARS], number, strength)
    return strongest


def _prefix_time(prefix: re.Match[str]) -> datetime | None:
    """The prefix's date and time; None for a date no calendar has (month 13): that line is read untimed."""
    try:
        at = datetime.strptime(prefix["at"], "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None
    return at.replace(microsecond=int(prefix["ms"].ljust(6, "0"))) if prefix["ms"] else at


def _server_args(scan: Scan, message: str, number: int) -> str | None:
    """The server_args line, unless a parallel size in it is out of range (then counted, and no size is read)."""
    sizes = PARALLEL_SIZES.findall(message)
    counts = [whole(v, MAX_WORKERS) for _, v in sizes]
    if any(c is None for c in counts) or math.prod(c or 1 for c in counts) > MAX_WORKERS:
        key, value = next(((k, v) for (k, v), c in zip(sizes, counts, strict=True) if c is None), ("tp x pp x dp", "?"))
        scan.skipped.add(number, key, value)
        return None
    return message


def _absurd_figure(kind: str, values: tuple[str | None, ...]) -> tuple[str, object] | None:
    """The first figure of a start-up line out of its bound, as (its name, its text)."""
    for (name, high), value in zip(FIGURES.get(kind, ()), values, strict=False):
        if value is not None and bounded(value, high) is None:
            return name, value
    return None


def _timed(scan: Scan, line: str, number: int) -> None:
    """A line with SGLang's dated prefix: it moves the clock, and may be a start-up event."""
    prefix = PREFIX.search(line)
    raw = _prefix_time(prefix) if prefix is not None else None
    if prefix is None or raw is None:
        return
    at = scan.steps.read(raw, number)
    scan.first_at = scan.first_at or at
    scan.last_at = at
    message, rank = prefix["msg"], prefix["ranks"].strip()
    if rank and len(scan.ranks) < _MAX_RANKS:
        scan.ranks.add(rank)
    for kind, pattern in PATTERNS:
        found = pattern.search(message)
        if found:
            absurd = _absurd_figure(kind, found.groups())
            if absurd is not None:
                scan.skipped.add(number, *absurd)
                return
            if kind == "server_args" and scan.server_args is None:
                scan.server_args = _server_args(scan, message, number)
            scan.events.append(Event(at, rank, kind, found.groups(), number, line[:EVIDENCE_CHARS]))
            return


def _traced(scan: Scan, line: str, number: int) -> None:
    """Follow the first traceback until its error line (tracebacks print no prefix, other ranks' lines may
    interleave)."""
    tb = scan.traceback
    if tb is None:
        if TRACEBACK_START.search(line):
            scan.traceback = Traceback(number)
        elif TRACEBACK_FRAME.match(line):  # an excerpt that starts inside a traceback
            scan.traceback = Traceback(number, [line.strip()[:EVIDENCE_CHARS]])
        return
    if tb.error is None and PREFIX.search(line) is None:
        tb.add(line, number)


def _streamer_summary(scan: Scan, streamed: re.Match[str], number: int, line: str) -> None:
    size = bounded(streamed_bytes(streamed["size"], streamed["size_unit"]), MAX_BYTES)
    seconds = bounded(streamed["seconds"], MAX_SECONDS)
    if size is None or seconds is None:
        scan.skipped.add(number, "streamed size" if size is None else "streamed seconds", streamed.group(0))
        return
    scan.streamed.append(Streamed(size, seconds, number, line[:EVIDENCE_CHARS]))


def scan(lines: Iterable[str]) -> Scan:
    found = Scan()
    for number, raw in enumerate(lines, start=1):
        found.lines_read = number
        line = raw[:MAX_LINE_CHARS].rstrip("\r\n")
        found.failure = _failure(line, number, found.failure)
        _traced(found, line, number)
        if "Capturing batches" in line:
            found.capture_bar_line = number
        if found.unified_memory is None and ("G" in line or "nified" in line):
            device = UNIFIED_MEMORY.search(line)
            found.unified_memory = (device.group(0), number) if device else None
        streamed = STREAMER_SUMMARY.search(line)
        if streamed:
            _streamer_summary(found, streamed, number, line)
        _timed(found, line, number)
    return found
