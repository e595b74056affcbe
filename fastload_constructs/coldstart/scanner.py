"""One pass over a log's lines: recognise the start-up lines, keep only those (and the errors).

Memory is bounded by the start-up section, not by the file: lines are fed one at a
time and only recognised events and error lines are kept; reading stops at
"Application startup complete.".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta
from typing import IO

from fastload_constructs.coldstart import patterns
from fastload_constructs.coldstart.patterns import LineKind
from fastload_constructs.coldstart.records import LogEvent, Problem, Timeline

# vLLM's datefmt "%m-%d %H:%M:%S" has no year; a leap year lets "02-29" parse.
_BASE_YEAR = 2000
# Longer lines are cut here (a 200 MB line without a newline must not be held whole).
MAX_LINE_CHARS = 64 * 1024
_EVIDENCE_CHARS = 400
# A log's events and the errors after its last start-up line are capped (a crash loop can print millions).
_MAX_EVENTS = 100_000
_MAX_PROBLEMS = 1_000

_LEVELS = re.compile(r"(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\s")
_VLLM_TIME = re.compile(r"^(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$")


def parse_time(text: str, previous: datetime | None) -> datetime:
    """Read "MM-DD HH:MM:SS" in the year of `previous`, moving on a year when the clock wraps past New Year."""
    year = previous.year if previous is not None else _BASE_YEAR
    found = _VLLM_TIME.match(text)
    if found is None:
        raise ValueError(f"not MM-DD HH:MM:SS: {text!r}")
    month, day, hour, minute, second = (int(g) for g in found.groups())
    try:
        at = datetime(year, month, day, hour, minute, second)
    except ValueError:  # 02-29 outside a leap year
        at = datetime(_BASE_YEAR, month, day, hour, minute, second)
    if previous is not None:
        if previous - at > timedelta(days=180):
            at = _with_year(at, at.year + 1)
        elif at - previous > timedelta(days=180):
            at = _with_year(at, at.year - 1)
    return at


def _with_year(moment: datetime, year: int) -> datetime:
    try:
        return moment.replace(year=year)
    except ValueError:  # 02-29
        return moment.replace(year=year, day=28)


def nearest_year(moment: datetime, anchor: datetime) -> datetime:
    """`moment` moved to the year that puts it closest to `anchor` (vLLM's times carry no year)."""
    candidates = []
    for year in (anchor.year - 1, anchor.year, anchor.year + 1):
        try:
            candidates.append(moment.replace(year=year))
        except ValueError:  # 02-29 outside a leap year
            continue
    return min(candidates, key=lambda c: abs(c - anchor))


def _collector_time(found: re.Match[str]) -> datetime:
    """A collector's line-start timestamp as naive UTC (as given when it names no zone)."""
    fraction = (found["fraction"] or "0")[:6].ljust(6, "0")
    at = datetime.strptime(f"{found['date']} {found['clock']}.{fraction}", "%Y-%m-%d %H:%M:%S.%f")
    zone = found["zone"]
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        at -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
    return at


def _process_key(process: str | None, pid: str | None) -> str:
    """One name per process: the vLLM prefix, with its pid so V0's identical worker names stay apart."""
    return f"{process} pid={pid}" if process else "main"


def _innermost_prefix(line: str) -> tuple[str | None, str | None]:
    found = list(patterns.PROCESS_PREFIX.finditer(line))
    return (found[-1]["process"], found[-1]["pid"]) if found else (None, None)


# Events after which the start has made progress: an error before one of them was survived.
_MILESTONES = frozenset(LineKind) - {LineKind.VERSION}


class _Scanner:
    """Feeds lines one at a time; keeps only what the report needs."""

    def __init__(self) -> None:
        self.timeline = Timeline()
        # The vLLM time of the last record that mattered to nothing, parsed only when needed.
        self.lazy_time: str | None = None

    def _settle(self) -> None:
        if self.lazy_time is not None:
            self._advance(parse_time(self.lazy_time, self.timeline.last_at))
            self.lazy_time = None

    def _note_signals(self, process: str | None, pid: str | None, source: str, message: str) -> None:
        t = self.timeline
        if (process or "").startswith(patterns.SERVER_PROCESS) or patterns.SERVER_SOURCE.search(source):
            t.server_signal = True
        if process and pid and patterns.WORKER_PROCESS.match(process):
            t.worker_pids.add(pid)
            if process.startswith("VllmWorkerProcess"):
                t.v0_worker_processes = True
        if "world" in message:
            size = patterns.WORLD_SIZE.search(message)
            if size:
                t.world_sizes.add(int(size["a"] or size["b"]))
        if "tensor_parallel_size=" in message:
            config = patterns.PARALLEL_CONFIG.search(message)
            if config:
                t.parallel_config = max(t.parallel_config, int(config["tp"]) * int(config["pp"]))

    def _add_problem(self, is_exception: bool, text: str, number: int) -> None:
        t = self.timeline
        if t.problems_after_last_event < _MAX_PROBLEMS:
            t.problems.append(Problem(is_exception, text[:_EVIDENCE_CHARS], number))
            t.problems_after_last_event += 1

    def _add_event(
        self, at: datetime, process: str, found: tuple[LineKind, re.Match[str]], number: int, text: str, repeated: int
    ) -> None:
        t = self.timeline
        kind, match = found
        if len(t.events) >= _MAX_EVENTS:
            return
        values = {k: v for k, v in match.groupdict().items() if v is not None}
        t.events.append(LogEvent(at, process, kind, values, number, text[:_EVIDENCE_CHARS], repeated))
        if kind in _MILESTONES:
            # Errors before this line were survived; keep only the latest as a last resort.
            t.problems = t.problems[-1:]
            t.problems_after_last_event = 0
        if kind is LineKind.SERVER_READY:
            t.server_signal = True
            t.stopped_at_ready = True

    def _advance(self, at: datetime) -> None:
        t = self.timeline
        t.first_at = t.first_at or at
        if t.last_at is None or at >= t.last_at:
            t.last_at = at

    def feed(self, raw: str, number: int) -> None:
        t = self.timeline
        t.lines_read = number
        line = raw[:MAX_LINE_CHARS].rstrip("\r\n")
        if any(hint in line for hint in patterns.ANSI_HINTS):
            line = patterns.ANSI_ESCAPE.sub("", line)
        line = line.strip(patterns.FRAME_CHARS)
        collector_at: datetime | None = None
        stamp = patterns.COLLECTOR_TIMESTAMP.match(line)
        # One clock per log, decided by its first timed line: a collector prefix there means every
        # line has one (kubectl --timestamps, docker -t), and that clock wins over vLLM's.
        if stamp and t.clock != "vllm":
            collector_at = _collector_time(stamp)
            line = line[stamp.end() :].strip(patterns.FRAME_CHARS)
            t.clock = "collector"
        repeated = 0
        if "repeated" in line:
            ray = patterns.RAY_REPEATED.search(line)
            if ray:
                repeated, line = int(ray["times"]), line[: ray.start()]
        # Cheap substring tests first: most lines of a long log are request lines that match nothing.
        record = patterns.RECORD.search(line) if _LEVELS.search(line) else None
        if record is None and "] " in line and "," in line:
            record = patterns.STREAMER_RECORD.search(line)
        if record and t.clock == "undecided":
            t.clock = "vllm"
        if record:
            process, pid = record["process"], record["pid"]
            message = record["message"].strip()
            source = record.groupdict().get("source") or ""
            self._note_signals(process, pid, source, message)
            found = patterns.classify(message)
            failing = record["level"] in ("ERROR", "CRITICAL")
            if t.clock == "collector":
                at = collector_at or t.last_at or parse_time(record["time"], None)
            elif found is None and not failing and t.first_at is not None:
                self.lazy_time = record["time"]  # most lines: parse the time only if a later line needs it
                return
            else:
                self._settle()
                at = parse_time(record["time"], t.last_at)
            self._advance(at)
            if failing:
                self._add_problem(patterns.EXCEPTION_LINE.match(message) is not None, message, number)
            if found is not None:
                self._add_event(at, _process_key(process, pid), found, number, line, repeated)
            return
        self._settle()
        if collector_at is not None:
            self._advance(collector_at)
        bare = patterns.classify_bare(line) if ("RunAI" in line or "Capturing" in line) else None
        if bare is not None:
            inner = patterns.ANY_DATETIME.search(line)
            bare_at = collector_at or (parse_time(inner["time"].replace("T", " "), t.last_at) if inner else t.last_at)
            if bare_at is not None:
                process, pid = _innermost_prefix(line)
                self._note_signals(process, pid, "", "")
                self._advance(bare_at)
                self._add_event(bare_at, _process_key(process, pid), bare, number, line, repeated)
            return
        untimed = patterns.UNTIMED.match(line)
        exception = patterns.EXCEPTION_LINE.match(line) if ("Error" in line or "Exception" in line) else None
        if exception and not untimed:
            self._add_problem(True, exception["message"].strip(), number)
            return
        if not untimed or t.last_at is None:
            return
        message = untimed["message"].strip()
        if untimed["level"] == "ERROR":
            self._add_problem(patterns.EXCEPTION_LINE.match(message) is not None, message, number)
        found = patterns.classify(message)
        if found is not None:
            at = collector_at or t.last_at
            self._add_event(at, _process_key(untimed["process"], untimed["pid"]), found, number, line, repeated)


def scan(lines: Iterable[str]) -> Timeline:
    """Recognise every start-up line; all other lines are ignored. Stops after the server is ready."""
    scanner = _Scanner()
    for number, raw in enumerate(lines, start=1):
        scanner.feed(raw, number)
        if scanner.timeline.stopped_at_ready:
            break
    scanner._settle()
    return scanner.timeline


def iter_text_lines(stream: IO[bytes]) -> Iterator[str]:
    """Decode a byte stream line by line (invalid UTF-8 replaced, never raised), holding one line at a time.

    A line longer than MAX_LINE_CHARS is cut there and the rest of it skipped.
    """
    limit = MAX_LINE_CHARS * 4  # bytes: a UTF-8 character is at most 4
    while True:
        piece = stream.readline(limit)
        if not piece:
            return
        if not piece.endswith(b"\n") and len(piece) >= limit:
            while True:  # skip the rest of an over-long line
                rest = stream.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
        yield piece.decode("utf-8", errors="replace")
