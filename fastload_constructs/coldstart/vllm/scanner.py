"""One pass over a log's lines: recognise the start-up lines, keep only those (and the errors).

Memory is bounded by the start-up section, not by the file: lines are fed one at a
time and only recognised events and error lines are kept; reading stops at
"Application startup complete.".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import datetime

from fastload_constructs.coldstart import forms
from fastload_constructs.coldstart.clock import Clock
from fastload_constructs.coldstart.figures import GIB, MAX_BYTES, MAX_SECONDS, MAX_WORKERS, bounded, out_of_range, whole
from fastload_constructs.coldstart.lines import EVIDENCE_CHARS, MAX_LINE_CHARS
from fastload_constructs.coldstart.streamer import streamed_bytes
from fastload_constructs.coldstart.timestamps import collector_time, parse_time
from fastload_constructs.coldstart.vllm import patterns
from fastload_constructs.coldstart.vllm.patterns import LineKind
from fastload_constructs.coldstart.vllm.records import LogEvent, Problem, Timeline

# A log's events and the errors after its last start-up line are capped (a crash loop can print millions).
_MAX_EVENTS = 100_000
_MAX_PROBLEMS = 1_000
# Substrings without which a line holds no bare start-up event (see patterns.classify_bare).
_BARE_HINTS = ("RunAI", "Capturing", "checkpoint shards")

_LEVELS = re.compile(r"(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\s")
# JSON records around vLLM's lines (forms.py), told apart from logged messages by vLLM's own line forms.
_ENVELOPES = forms.Envelopes(patterns.is_whole_line)
# The figures a start-up line carries (patterns.py group names) and their bounds (coldstart/figures.py).
_FIGURE_BOUNDS = {
    "seconds": MAX_SECONDS,
    "seconds2": MAX_SECONDS,
    "seconds3": MAX_SECONDS,
    "warmup": MAX_SECONDS,
    "gib": MAX_BYTES / GIB,
    "percent": 100.0,
}


def _absurd_figure(values: dict[str, str]) -> tuple[str, object] | None:
    """The first figure of a start-up line out of its bound (the streamer's size in its own unit)."""
    found = out_of_range(values, _FIGURE_BOUNDS)
    if (
        found is None
        and "size" in values
        and bounded(streamed_bytes(values["size"], values["size_unit"]), MAX_BYTES) is None
    ):
        return "size", values["size"]
    return found


def _vllm_time(text: str, previous: datetime | None) -> datetime | None:
    """`parse_time`, or None for a date no calendar has (month 13, February 30): that line is read untimed."""
    try:
        return parse_time(text, previous)
    except ValueError:
        return None


def _process_key(process: str | None, pid: str | None) -> str:
    """One name per process: the vLLM prefix, with its pid so V0's identical worker names stay apart."""
    return f"{process} pid={pid}" if process else "main"


def _innermost_prefix(line: str) -> tuple[str | None, str | None]:
    found = list(patterns.PROCESS_PREFIX.finditer(line))
    return (found[-1]["process"], found[-1]["pid"]) if found else (None, None)


def _compared(process: str | None, repeated: int) -> bool:
    """Whether a line's time is compared with the others' to find a clock step (clock.py): not the lines Ray
    prints for its workers, late ("(RayWorkerWrapper pid=..)", "[repeated 3x across cluster]")."""
    return not repeated and not (process or "").startswith("Ray")


# Events after which the start has made progress: an error before one of them was survived.
_MILESTONES = frozenset(LineKind) - {LineKind.VERSION}


class _Scanner:
    """Feeds lines one at a time; keeps only what the report needs."""

    def __init__(self) -> None:
        self.timeline = Timeline()
        self.clock: Clock = self.timeline.steps
        # The vLLM time of the last record that mattered to nothing (its line, and whether it is compared with
        # the others: see clock.py), parsed only when needed.
        self.lazy_time: tuple[str, int, bool] | None = None
        # Events seen before any line carried a time, held until one does.
        self.untimed: list[tuple[str, LineKind, dict[str, str], int, str, int]] = []
        # The last line that carried a collector's stamp.
        self.stamped_line = 0

    def _settle(self) -> None:
        if self.lazy_time is not None:
            text, number, compared = self.lazy_time
            at = _vllm_time(text, self.timeline.last_at)
            if at is not None:
                self._advance(self.clock.read(at, number, compared))
            self.lazy_time = None

    def _note_signals(self, process: str | None, pid: str | None, source: str, message: str, number: int = 0) -> None:
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
                self._worker_figure("world_size", size["a"] or size["b"], number, t.world_sizes.add)
        if "tensor_parallel_size=" in message:
            config = patterns.PARALLEL_CONFIG.search(message)
            tp, pp = (whole(config[k], MAX_WORKERS) for k in ("tp", "pp")) if config else (None, None)
            if config and (tp is None or pp is None or tp * pp > MAX_WORKERS):
                t.skipped.add(
                    number, "tensor_parallel_size x pipeline_parallel_size", f"{config['tp']} x {config['pp']}"
                )
            elif tp is not None and pp is not None:
                t.parallel_config = max(t.parallel_config, tp * pp)

    def _worker_figure(self, field: str, text: str, number: int, use: Callable[[int], object]) -> None:
        """A count of GPU workers (a world size, Ray's repeat count): used when in range, else counted."""
        count = whole(text, MAX_WORKERS)
        if count is None:
            self.timeline.skipped.add(number, field, text)
        else:
            use(count)

    def _add_problem(
        self, is_exception: bool, text: str, number: int, at: datetime | None, context: bool = False
    ) -> None:
        t = self.timeline
        if t.problems_after_last_event < _MAX_PROBLEMS:
            t.problems.append(Problem(is_exception, text[:EVIDENCE_CHARS], number, at, context))
            t.problems_after_last_event += 1

    def _add_frame(self, line: str, number: int) -> None:
        """A bare traceback frame ('File "...", line N, in f'): it names what was running when a start failed."""
        t = self.timeline
        if len(t.frames) < _MAX_PROBLEMS:  # emptied at every start-up line, as the errors are
            t.frames.append(Problem(False, line[:EVIDENCE_CHARS], number, None))

    def _add_event(
        self,
        at: datetime | None,
        process: str,
        found: tuple[LineKind, re.Match[str]],
        number: int,
        text: str,
        repeated: int,
    ) -> None:
        t = self.timeline
        kind, match = found
        if len(t.events) + len(self.untimed) >= _MAX_EVENTS:
            return
        values = {k: v for k, v in match.groupdict().items() if v is not None and k not in ("process", "pid")}
        absurd = _absurd_figure(values)
        if absurd is not None:
            t.skipped.add(number, *absurd)
            return
        if at is None:
            # A progress bar before the log's first timed line: it takes that line's time.
            self.untimed.append((process, kind, values, number, text[:EVIDENCE_CHARS], repeated))
        else:
            self._flush_untimed(at)
            t.events.append(LogEvent(at, process, kind, values, number, text[:EVIDENCE_CHARS], repeated))
        if kind in _MILESTONES:
            # Errors before this line were survived; keep only the latest as a last resort.
            t.problems = t.problems[-1:]
            t.frames = []
            t.problems_after_last_event = 0
        if kind is LineKind.SERVER_READY:
            t.server_signal = True
            t.stopped_at_ready = True

    def _advance(self, at: datetime) -> None:
        t = self.timeline
        t.first_at = t.first_at or at
        if t.last_at is None or at >= t.last_at:
            t.last_at = at
        self._flush_untimed(at)

    def _flush_untimed(self, at: datetime) -> None:
        if self.untimed:
            held, self.untimed = self.untimed, []
            self.timeline.events.extend(LogEvent(at, *fields) for fields in held)

    def _unwrap(self, raw: str, number: int) -> tuple[str, datetime | None]:
        """The line vLLM wrote, and the collector's time when the log has a collector clock (see forms.py)."""
        t = self.timeline
        line = raw[:MAX_LINE_CHARS].rstrip("\r\n")
        if any(hint in line for hint in forms.ANSI_HINTS):
            line = forms.ANSI_ESCAPE.sub("", line)
        line = line.strip(forms.FRAME_CHARS)
        collector_at: datetime | None = None
        envelope = _ENVELOPES.unwrap_json(line) if line.endswith("}") else None
        if envelope is not None:
            line, collector_at = envelope.line.strip(forms.FRAME_CHARS), envelope.at
            if envelope.rejected is not None:
                t.skipped.add(number, *envelope.rejected)
        stamp = forms.COLLECTOR_TIMESTAMP.match(line) if collector_at is None else None
        if stamp:
            collector_at = collector_time(stamp)  # None for an impossible date: the line is read untimed
            line = line[stamp.end() :].strip(forms.FRAME_CHARS)
        # One clock per log, decided by its first timed line: a collector's time there means every
        # line has one (kubectl --timestamps, docker -t, a JSON envelope), and that clock wins over vLLM's.
        if collector_at is not None and t.clock != "vllm":
            t.clock = "collector"
            return line, self.clock.read(collector_at, number)
        return line, None

    def feed(self, raw: str, number: int) -> None:
        self.timeline.lines_read = number
        line, collector_at = self._unwrap(raw, number)
        if collector_at is not None:
            self.stamped_line = number
        repeated = 0
        if "repeated" in line:
            ray = patterns.RAY_REPEATED.search(line)
            if ray:
                self._worker_figure("repeated", ray["times"], number, lambda times: times)
                repeated, line = whole(ray["times"], MAX_WORKERS) or 0, line[: ray.start()]
        # Cheap substring tests first: most lines of a long log are request lines that match nothing.
        record = patterns.RECORD.search(line) if _LEVELS.search(line) else None
        if record is None and "] " in line and "," in line:
            record = patterns.STREAMER_RECORD.search(line)
        if record:
            self._record(record, collector_at, number, line, repeated)
            return
        self._settle()
        if collector_at is not None:
            self._advance(collector_at)
        if not self._bare(line, collector_at, number, repeated):
            self._untimed(line, collector_at, number, repeated)

    def _record_time(
        self, record: re.Match[str], collector_at: datetime | None, number: int, compared: bool
    ) -> datetime | None:
        t = self.timeline
        if t.clock == "collector" or record["time"] is None:
            if collector_at or t.last_at or not record["time"]:
                return collector_at or t.last_at
            at = _vllm_time(record["time"], None)
        else:
            self._settle()
            at = _vllm_time(record["time"], t.last_at)
        return None if at is None else self.clock.read(at, number, compared)

    def _record(
        self, record: re.Match[str], collector_at: datetime | None, number: int, line: str, repeated: int
    ) -> None:
        """A line in vLLM's record envelope (or the streamer's): signals, a start-up event, an error."""
        t = self.timeline
        if t.clock == "undecided" and record["time"] is not None:
            t.clock = "vllm"
        process, pid = record["process"], record["pid"]
        compared = _compared(process, repeated)
        message = record["message"].strip()
        self._note_signals(process, pid, record.groupdict().get("source") or "", message, number)
        found = patterns.classify(message)
        failing = record["level"] in ("ERROR", "CRITICAL")
        if t.clock != "collector" and record["time"] and found is None and not failing and t.first_at is not None:
            self.lazy_time = (record["time"], number, compared)  # parsed only if a later line needs it
            return
        at = self._record_time(record, collector_at, number, compared)
        if at is not None:
            self._advance(at)
        if failing:
            context = patterns.TRACEBACK_CONTEXT.match(record["message"]) is not None
            self._add_problem(patterns.EXCEPTION_LINE.match(message) is not None, message, number, at, context)
        if found is not None:
            self._add_event(at, _process_key(process, pid), found, number, line, repeated)

    def _bare(self, line: str, collector_at: datetime | None, number: int, repeated: int) -> bool:
        """A start-up event printed without an envelope (progress bars, the streamer's print)."""
        t = self.timeline
        bare = None
        if any(hint in line for hint in _BARE_HINTS):
            bare = patterns.classify_bare(line) or patterns.classify_progress(line)
        if bare is None:
            return False
        inner = patterns.ANY_DATETIME.search(line)
        process, pid = _innermost_prefix(line)
        own = _vllm_time(inner["time"].replace("T", " "), t.last_at) if inner and collector_at is None else None
        at = collector_at or (self.clock.read(own, number, _compared(process, repeated)) if own else None) or t.last_at
        if t.clock == "collector" and collector_at is None and self.stamped_line != number - 1:
            # Under a collector's clock a bar redrawn after "\r" follows its stamp on the line before; with
            # that line cut from the copy, the bar is held for the next stamp (not the last one, maybe long before).
            at = None
        self._note_signals(process, pid, "", "")
        if at is not None:
            self._advance(at)
        self._add_event(at, _process_key(process, pid), bare, number, line, repeated)
        return True

    def _unenveloped_error(self, line: str, collector_at: datetime | None, number: int) -> None:
        """An exception line, a Python or C++ traceback frame, or torch's C++ error log line, printed bare."""
        if "Error" in line or "Exception" in line:
            exception = patterns.EXCEPTION_LINE.match(line)
            if exception:
                self._add_problem(True, exception["message"].strip(), number, collector_at)
        elif patterns.is_frame(line):
            self._add_frame(line, number)
        elif line.startswith(("[E", "[F")):
            cpp = patterns.TORCH_CPP_ERROR.match(line)
            if cpp:
                self._add_problem(False, cpp["message"].strip(), number, collector_at)

    def _untimed(self, line: str, collector_at: datetime | None, number: int, repeated: int) -> None:
        """uvicorn's lines ("INFO:     Application startup complete."), exception lines and traceback frames."""
        t = self.timeline
        untimed = patterns.UNTIMED.match(line)
        if untimed is None:
            self._unenveloped_error(line, collector_at, number)
            return
        if t.last_at is None:
            return
        message = untimed["message"].strip()
        if untimed["level"] == "ERROR":
            self._add_problem(patterns.EXCEPTION_LINE.match(message) is not None, message, number, collector_at)
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
