"""vLLM log lines -> a typed `ColdStartReport`: where start-up time went.

Durations come from the numbers vLLM prints ("took 20.51 seconds") wherever it
prints one, because vLLM's timestamps only have whole seconds; timestamps fill
the gaps no line reports (the API server coming up, and everything else).
Workers load and compile in parallel, so a phase lasts as long as its slowest
worker. The phases do not overlap, and they add up to the time to ready:

    process_start      container start -> first log line (only with `started_at`)
    engine_init        everything no line reports: config, process spawn,
                       distributed init, gaps (the remainder of the total)
    weight_load        "Model loading took ... seconds" (slowest worker); for a start
                       that died while loading, "Starting to load model" -> the end
    dynamo_transform   "Dynamo bytecode transform time"
    graph_compile      the rest of "torch.compile took ... in total": Inductor
                       compiling graphs, or loading them from the compile cache
    cuda_graph         "Graph capturing finished in ... secs"
    kv_cache_profiling the rest of "init engine (profile, create kv cache, warmup
                       model) took ...": memory profiling, KV-cache allocation, warmup
    api_server         engine ready -> "Application startup complete."

The log is read line by line (`parse_lines`, `parse_stream`) and only the
recognised start-up lines are kept, so memory is bounded by the start-up
section, not by the file; reading stops at "Application startup complete.".
"""

from __future__ import annotations

import io
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import IO, Literal

from fastload_constructs.coldstart import patterns
from fastload_constructs.coldstart.patterns import LineKind
from fastload_constructs.core.errors import FastloadConfigError

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
CompileCache = Literal["hit", "miss", "partial", "disabled", "not_compiled", "unknown"]  # unknown: SGLang
Mode = Literal["server", "offline"]
_UNIT_BYTES = {"Byte": 1, "Bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
# vLLM's datefmt "%m-%d %H:%M:%S" has no year; a leap year lets "02-29" parse.
_BASE_YEAR = 2000
# Longer lines are cut here (a 200 MB line without a newline must not be held whole).
MAX_LINE_CHARS = 64 * 1024
_EVIDENCE_CHARS = 400
# A log's events and the errors after its last start-up line are capped (a crash loop can print millions).
_MAX_EVENTS = 100_000
_MAX_PROBLEMS = 1_000
# 0.9.2/0.10.0 leave the cache load out of "torch.compile takes ... in total"; the sum is printed to 0.01 s.
_ROUNDING_S = 0.05


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


@dataclass(frozen=True)
class ColdStartReport:
    """Where one launch's start-up time went."""

    label: str
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
    vllm_version: str | None
    recognised_lines: int
    # "server" (ready at "Application startup complete.") or "offline" (an `LLM()` run: ready when the engine is).
    mode: Mode = "server"
    # Which clock timed the log: the collector's line prefix (kubectl --timestamps, docker -t), or vLLM's own.
    clock: str = "vllm"
    # Which signal gave the worker count: "world_size", "tensor_parallel_size", "worker prefixes", ...
    worker_count_source: str = ""
    evidence: tuple[Evidence, ...] = ()
    lines_read: int = 0
    engine: str = "vllm"  # or "sglang" (coldstart/sglang.py)

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


@dataclass
class _Problem:
    is_exception: bool
    text: str
    line_number: int


@dataclass
class _Timeline:
    events: list[LogEvent] = field(default_factory=list)
    first_at: datetime | None = None
    last_at: datetime | None = None
    # ERROR records and bare exception lines after the last start-up line, plus the one before it.
    problems: list[_Problem] = field(default_factory=list)
    problems_after_last_event: int = 0
    server_signal: bool = False
    world_sizes: set[int] = field(default_factory=set)
    parallel_config: int = 0
    worker_pids: set[str] = field(default_factory=set)
    v0_worker_processes: bool = False
    clock: str = "undecided"
    lines_read: int = 0
    stopped_at_ready: bool = False


_LEVELS = re.compile(r"(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\s")
_VLLM_TIME = re.compile(r"^(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$")


def _parse_time(text: str, previous: datetime | None) -> datetime:
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


def _nearest_year(moment: datetime, anchor: datetime) -> datetime:
    """`moment` moved to the year that puts it closest to `anchor` (vLLM's times carry no year)."""
    candidates = []
    for year in (anchor.year - 1, anchor.year, anchor.year + 1):
        try:
            candidates.append(moment.replace(year=year))
        except ValueError:  # 02-29 outside a leap year
            continue
    return min(candidates, key=lambda c: abs(c - anchor))


def parse_started_at(text: str) -> datetime:
    """A container start time: "MM-DD HH:MM:SS" (as vLLM prints) or ISO 8601 (as Kubernetes does), as naive UTC."""
    value = text.strip()
    try:
        return _parse_time(value, None)
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise FastloadConfigError(
            "started_at", text, 'a time as "MM-DD HH:MM:SS" or ISO 8601, e.g. 2026-12-02T17:00:00Z'
        ) from None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(timezone.utc).replace(tzinfo=None)
    return parsed


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
        self.timeline = _Timeline()
        # The vLLM time of the last record that mattered to nothing, parsed only when needed.
        self.lazy_time: str | None = None

    def _settle(self) -> None:
        if self.lazy_time is not None:
            self._advance(_parse_time(self.lazy_time, self.timeline.last_at))
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
            t.problems.append(_Problem(is_exception, text[:_EVIDENCE_CHARS], number))
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
                at = collector_at or t.last_at or _parse_time(record["time"], None)
            elif found is None and not failing and t.first_at is not None:
                self.lazy_time = record["time"]  # most lines: parse the time only if a later line needs it
                return
            else:
                self._settle()
                at = _parse_time(record["time"], t.last_at)
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
            bare_at = collector_at or (_parse_time(inner["time"].replace("T", " "), t.last_at) if inner else t.last_at)
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


def scan(lines: Iterable[str]) -> _Timeline:
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


def _seconds(event: LogEvent) -> float:
    values = event.values
    return float(values.get("seconds") or values.get("seconds2") or values.get("seconds3") or 0.0)


def _by_process(events: list[LogEvent], *kinds: LineKind) -> dict[str, list[LogEvent]]:
    grouped: dict[str, list[LogEvent]] = defaultdict(list)
    for event in events:
        if event.kind in kinds:
            grouped[event.process].append(event)
    return grouped


@dataclass
class _Workers:
    count: int
    source: str


def _workers(timeline: _Timeline) -> _Workers:
    """The GPU worker count from every signal the log carries; the largest wins (ranks that log nothing still ran)."""
    events = timeline.events
    loaded = _by_process(events, LineKind.MODEL_LOADED)
    main_worked = any(
        e.process == "main"
        for e in events
        if e.kind in (LineKind.MODEL_LOADED, LineKind.WEIGHTS_START, LineKind.CUDA_GRAPH, LineKind.WEIGHTS_LOADED)
    )
    # V0's multiprocessing executor runs the driver (rank 0) in the main process
    # (vllm/executor/mp_distributed_executor.py, 0.6.6-0.9.2): it has no prefix.
    prefixed = len(timeline.worker_pids) + (1 if timeline.v0_worker_processes and main_worked else 0)
    signals = {
        "world_size": max(timeline.world_sizes, default=0),
        "tensor_parallel_size x pipeline_parallel_size": timeline.parallel_config,
        "worker prefixes": prefixed,
        "workers that logged the model load": sum(1 + lines[-1].repeated for lines in loaded.values()),
        "workers that logged CUDA graphs": len({e.process for e in events if e.kind is LineKind.CUDA_GRAPH}),
        "Ray's repeated-line count": max((1 + e.repeated for e in events if e.repeated), default=0),
    }
    best = max(signals.values())
    if best <= 0:
        return _Workers(1, "no multi-GPU signal in the log")
    return _Workers(best, next(name for name, value in signals.items() if value == best))


def _weight_load(
    events: list[LogEvent], workers: int
) -> tuple[float | None, WeightLoad | None, list[Evidence], list[Evidence]]:
    """Slowest worker's load time, bytes on the GPUs, throughput, and the lines they came from."""
    loaded = _by_process(events, LineKind.MODEL_LOADED)
    weights_only = [e for e in events if e.kind is LineKind.WEIGHTS_LOADED]
    streamed = [e for e in events if e.kind is LineKind.STREAMER_SUMMARY]
    evidence: list[Evidence] = []
    rate_evidence: list[Evidence] = []
    if not loaded:
        if not weights_only:
            return None, None, [], []
        slowest_weights = max(weights_only, key=_seconds)
        evidence.append(Evidence("weight_load", slowest_weights.line_number, slowest_weights.text, "weights only"))
        seconds = _seconds(slowest_weights)
        return seconds, WeightLoad(seconds, None, None, None, workers=workers), evidence, []
    starts = _by_process(events, LineKind.WEIGHTS_START)
    per_worker: list[tuple[float, LogEvent, LogEvent | None]] = []
    per_gpu_gib = 0.0
    reported_gib = 0.0
    reporting = 0
    for process, lines in loaded.items():
        last = lines[-1]
        gib = float(last.values["gib"])
        per_gpu_gib = max(per_gpu_gib, gib)
        reported_gib += gib * (1 + last.repeated)
        reporting += 1 + last.repeated
        if "seconds" in last.values:
            per_worker.append((float(last.values["seconds"]), last, None))
        else:  # 0.5-0.6.6 print no seconds: time it from this worker's "Starting to load model"
            earlier = [s for s in starts.get(process, []) if s.at <= last.at]
            if earlier:
                per_worker.append(((last.at - earlier[-1].at).total_seconds(), last, earlier[-1]))
    if per_worker:
        seconds, slowest, begun = max(per_worker, key=lambda item: item[0])
        if begun is not None:
            evidence.append(Evidence("weight_load", begun.line_number, begun.text, "load starts"))
        evidence.append(Evidence("weight_load", slowest.line_number, slowest.text, f"slowest worker: {seconds:g} s"))
    else:
        # Starts and ends from different processes (a cut log): the ranks load in parallel, first start -> last end.
        all_starts = [s for lines in starts.values() for s in lines]
        ends = [lines[-1] for lines in loaded.values()]
        last_end = max(ends, key=lambda e: e.at)
        if all_starts:
            first_start = min(all_starts, key=lambda e: e.at)
            seconds = max(0.0, (last_end.at - first_start.at).total_seconds())
            evidence.append(Evidence("weight_load", first_start.line_number, first_start.text, "first load start"))
            evidence.append(Evidence("weight_load", last_end.line_number, last_end.text, "last load end"))
        else:
            seconds = -1.0  # no time printed and no start line: unknown
    estimated = workers > reporting
    total_gib = reported_gib + per_gpu_gib * (workers - reporting) if estimated else reported_gib
    total_bytes = round(total_gib * GIB)
    if streamed:
        by_process: dict[str, list[LogEvent]] = defaultdict(list)
        for e in streamed:
            by_process[e.process].append(e)
        streamed_bytes = sum(float(e.values["size"]) * _UNIT_BYTES[e.values["size_unit"]] for e in streamed)
        # Bare lines carry no prefix: each one is a worker's own summary.
        streamers = sum(len(v) if p == "main" else 1 for p, v in by_process.items())
        if workers > streamers:
            streamed_bytes *= workers / streamers
        slowest_stream = max(streamed, key=_seconds)
        rate = streamed_bytes / GIB / _seconds(slowest_stream) if _seconds(slowest_stream) > 0 else None
        source = "runai_streamer"
        rate_evidence.append(
            Evidence("weight_load", slowest_stream.line_number, slowest_stream.text, "GiB/s from this line")
        )
    else:
        pure_event = max(weights_only, key=_seconds) if weights_only else None
        pure = _seconds(pure_event) if pure_event else seconds
        rate, source = (total_gib / pure if pure > 0 else None), "vllm"
        if pure_event is not None:
            rate_evidence.append(
                Evidence("weight_load", pure_event.line_number, pure_event.text, "GiB/s from this line")
            )
    shown = None if seconds < 0 else seconds
    weights = WeightLoad(
        seconds=max(seconds, 0.0),
        total_bytes=total_bytes,
        gib_per_s=rate,
        throughput_source=source,
        per_gpu_bytes=round(per_gpu_gib * GIB),
        reporting_workers=reporting,
        total_is_estimated=estimated,
        workers=workers,
    )
    return shown, weights, evidence, rate_evidence


@dataclass
class _Compile:
    dynamo: float | None
    graphs: float | None
    total: float | None
    process: str | None
    evidence: list[Evidence]


def _compile(events: list[LogEvent]) -> _Compile:
    """(Dynamo, graph compile or cache load, torch.compile total) of the slowest-compiling worker."""
    slots = {
        LineKind.DYNAMO_TRANSFORM: "dynamo",
        LineKind.GRAPH_COMPILED: "compiled",
        LineKind.GRAPH_FROM_CACHE: "loaded",
        LineKind.COMPILE_TOTAL: "total",
    }
    per_process: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    lines: dict[str, list[LogEvent]] = defaultdict(list)
    for event in events:
        slot = slots.get(event.kind)
        if slot:
            per_process[event.process][slot] += _seconds(event)
            lines[event.process].append(event)
    if not per_process:
        return _Compile(None, None, None, None, [])
    totals: dict[str, float] = {}
    for process, v in per_process.items():
        if v["total"] > 0:
            # 0.9.2/0.10.0 print the cache load but leave it out of the total (see patterns.py).
            excludes_load = v["loaded"] > 0 and v["total"] + _ROUNDING_S < v["dynamo"] + v["loaded"]
            totals[process] = v["total"] + (v["loaded"] if excludes_load else 0.0)
        else:
            totals[process] = v["dynamo"] + v["compiled"] + v["loaded"]
    slowest = max(totals, key=totals.__getitem__)
    kinds = {e.kind for e in lines[slowest]}
    dynamo = per_process[slowest]["dynamo"]
    total = max(totals[slowest], dynamo)
    # A phase whose line is missing (a cut log) is left out rather than shown as 0 s.
    shown_dynamo = dynamo if LineKind.DYNAMO_TRANSFORM in kinds else None
    has_graphs = bool(kinds & {LineKind.GRAPH_COMPILED, LineKind.GRAPH_FROM_CACHE, LineKind.COMPILE_TOTAL})
    evidence = [
        Evidence(
            "dynamo_transform" if e.kind is LineKind.DYNAMO_TRANSFORM else "graph_compile", e.line_number, e.text, ""
        )
        for e in lines[slowest]
    ]
    return _Compile(shown_dynamo, total - dynamo if has_graphs else None, total, slowest, evidence)


def _compile_cache(events: list[LogEvent]) -> tuple[CompileCache, str | None]:
    kinds = {e.kind for e in events}
    directory = next((e.values["path"] for e in events if e.kind is LineKind.COMPILE_CACHE_DIR), None)
    hit = bool(kinds & {LineKind.GRAPH_FROM_CACHE, LineKind.AOT_FROM_CACHE})
    miss = LineKind.GRAPH_COMPILED in kinds
    if hit and miss:
        return "partial", directory
    if hit:
        return "hit", directory
    if LineKind.COMPILE_CACHE_DISABLED in kinds:
        return "disabled", directory
    # A compile with no cache-hit line compiled from scratch (the Dynamo or graph line may be cut from the log).
    if miss or kinds & {LineKind.DYNAMO_TRANSFORM, LineKind.COMPILE_TOTAL}:
        return "miss", directory
    return "not_compiled", directory


def _failure(timeline: _Timeline, ready: bool, phase_now: str) -> tuple[str | None, Evidence | None]:
    """The root cause: the first exception after the last start-up line (errors before it were survived)."""
    if ready:
        return None, None
    after = timeline.problems[-timeline.problems_after_last_event :] if timeline.problems_after_last_event else []
    chosen = next((p for p in after if p.is_exception), None) or (after[0] if after else None)
    if chosen is None and not timeline.events and timeline.problems:
        chosen = next((p for p in timeline.problems if p.is_exception), timeline.problems[0])
    if chosen is None:
        return (
            f"the log ends during {phase_now} with no error after the last start-up line "
            "(cut off, still starting, or killed: see the pod's events)",
            None,
        )
    return chosen.text, Evidence("failure", chosen.line_number, chosen.text, "root cause")


# The phase under way after each event: where a start that never got ready stopped.
_PHASE_AFTER = {
    LineKind.VERSION: "engine_init",
    LineKind.WEIGHTS_START: "weight_load",
    LineKind.STREAMER_SUMMARY: "weight_load",
    LineKind.WEIGHTS_LOADED: "weight_load",
    LineKind.MODEL_LOADED: "dynamo_transform",
    LineKind.COMPILE_CACHE_DIR: "dynamo_transform",
    LineKind.COMPILE_CACHE_DISABLED: "dynamo_transform",
    LineKind.DYNAMO_TRANSFORM: "graph_compile",
    LineKind.GRAPH_COMPILED: "graph_compile",
    LineKind.GRAPH_FROM_CACHE: "graph_compile",
    LineKind.AOT_FROM_CACHE: "graph_compile",
    LineKind.COMPILE_TOTAL: "kv_cache_profiling",
    LineKind.PROFILING: "kv_cache_profiling",
    # vllm/v1/worker/gpu_worker.py logs the KV memory, then the engine sizes and allocates the
    # KV cache (where "max seq len" errors are raised), and only then capture begins.
    LineKind.KV_CACHE_MEMORY: "kv_cache_profiling",
    LineKind.CUDA_GRAPH_START: "cuda_graph",
    LineKind.CUDA_GRAPH: "kv_cache_profiling",
    LineKind.ENGINE_INITIALISED: "api_server",
    LineKind.SERVER_STARTING: "api_server",
    LineKind.SERVER_READY: "api_server",
}


def parse_lines(lines: Iterable[str], label: str = "log", started_at: datetime | None = None) -> ColdStartReport:
    """Build the report from lines read one at a time; raises FastloadConfigError when nothing is recognised."""
    from fastload_constructs.coldstart import sglang  # an SGLang log gets SGLang's phases (issue 29)

    engine, lines = sglang.detect(lines)
    if engine == "sglang":
        return sglang.parse_lines(lines, label, started_at)
    return _report(scan(lines), label, started_at)


def parse_stream(stream: IO[bytes], label: str = "log", started_at: datetime | None = None) -> ColdStartReport:
    """Build the report from a byte stream (a file opened "rb", stdin's buffer), in bounded memory."""
    return parse_lines(iter_text_lines(stream), label, started_at)


def parse_log(
    text: str | bytes | Iterable[str], label: str = "log", started_at: datetime | None = None
) -> ColdStartReport:
    """Build the report from a whole log (text, bytes or lines); raises FastloadConfigError when none is recognised."""
    if isinstance(text, bytes):
        return parse_stream(io.BytesIO(text), label, started_at)
    if isinstance(text, str):
        return parse_lines(iter(text.splitlines()), label, started_at)
    return parse_lines(text, label, started_at)


def _report(timeline: _Timeline, label: str, started_at: datetime | None) -> ColdStartReport:
    events = timeline.events
    phase_events = [e for e in events if e.kind is not LineKind.VERSION]
    if (not phase_events and not timeline.problems) or timeline.first_at is None or timeline.last_at is None:
        raise FastloadConfigError(
            "log",
            label,
            "a vLLM server log with at least one start-up line (e.g. 'Model loading took', "
            "'torch.compile takes', 'init engine', 'Application startup complete.')",
        )
    evidence: list[Evidence] = []
    if started_at is not None:
        started_at = _nearest_year(started_at, timeline.first_at)
        if started_at > timeline.first_at:
            raise FastloadConfigError(
                "started_at",
                started_at.strftime("%m-%d %H:%M:%S"),
                f"a time no later than the first log line ({timeline.first_at:%m-%d %H:%M:%S}, "
                f"{'the collector clock, UTC' if timeline.clock == 'collector' else 'vLLM clock'})",
            )
    engine_lines = [e for e in events if e.kind is LineKind.ENGINE_INITIALISED]
    ready_events = [e for e in events if e.kind is LineKind.SERVER_READY]
    mode: Mode = "server"
    if ready_events:
        ready, end = True, ready_events[0].at
    elif engine_lines and not timeline.server_signal:
        # An offline LLM()/AsyncLLMEngine run: no API server; ready when the engine is.
        ready, end, mode = True, engine_lines[0].at, "offline"
    else:
        ready, end = False, timeline.last_at
    origin = started_at or timeline.first_at
    workers = _workers(timeline)

    weight_s, weights, load_evidence, rate_evidence = _weight_load(events, workers.count)
    evidence += load_evidence
    load_starts = [e for e in events if e.kind is LineKind.WEIGHTS_START]
    if weight_s is None and not ready and load_starts and not [e for e in events if e.kind is LineKind.MODEL_LOADED]:
        # Died while loading (OOM, S3 access denied): the load ran until the log ends.
        weight_s = (end - load_starts[0].at).total_seconds()
        evidence.append(Evidence("weight_load", load_starts[0].line_number, load_starts[0].text, "load starts"))
    compiled = _compile(events)
    evidence += compiled.evidence
    cuda_graphs = [e for e in events if e.kind is LineKind.CUDA_GRAPH]
    cuda_graph_s = max(_seconds(e) for e in cuda_graphs) if cuda_graphs else None
    if cuda_graphs:
        slowest_capture = max(cuda_graphs, key=_seconds)
        evidence.append(Evidence("cuda_graph", slowest_capture.line_number, slowest_capture.text, ""))
    compile_total = compiled.total or 0.0
    kv_s: float | None = None
    if engine_lines:
        engine = engine_lines[0]
        kv_s = max(0.0, _seconds(engine) - compile_total - (cuda_graph_s or 0.0))
        evidence.append(
            Evidence(
                "kv_cache_profiling",
                engine.line_number,
                engine.text,
                f"{_seconds(engine):g} s less torch.compile {compile_total:g} s"
                f" and CUDA graphs {cuda_graph_s or 0:g} s",
            )
        )
    else:
        profiled: dict[str, float] = defaultdict(float)
        for e in events:
            if e.kind is not LineKind.PROFILING:
                continue
            if "warmup" in e.values:  # 0.34: logged after torch.compile, excluding it
                profiled[e.process] += float(e.values["warmup"])
            else:  # "Memory profiling": the first forward, which runs torch.compile
                own = compile_total if e.process == compiled.process else 0.0
                profiled[e.process] += max(0.0, _seconds(e) - own)
            evidence.append(Evidence("kv_cache_profiling", e.line_number, e.text, ""))
        kv_s = max(profiled.values()) if profiled else None
    api_s = None
    if engine_lines and ready and mode == "server":
        api_s = (end - engine_lines[0].at).total_seconds()
        evidence.append(Evidence("api_server", engine_lines[0].line_number, engine_lines[0].text, "engine ready"))
        evidence.append(Evidence("api_server", ready_events[0].line_number, ready_events[0].text, "server ready"))
    if weights is not None:
        evidence += rate_evidence

    named = {
        "process_start": (timeline.first_at - started_at).total_seconds() if started_at else None,
        "weight_load": weight_s,
        "dynamo_transform": compiled.dynamo,
        "graph_compile": compiled.graphs,
        "cuda_graph": cuda_graph_s,
        "kv_cache_profiling": kv_s,
        "api_server": api_s,
    }
    span = (end - origin).total_seconds()
    named_sum = sum(v for v in named.values() if v is not None)
    named["engine_init"] = max(0.0, span - named_sum)
    phases = tuple(
        Phase(name, round(value, 3))
        for name in PHASE_ORDER
        if (value := named.get(name)) is not None and not (name == "process_start" and started_at is None)
    )
    cache, cache_dir = _compile_cache(events)
    version = next(
        (e.values.get("version") or e.values.get("version2") for e in events if e.kind is LineKind.VERSION), None
    )
    failed_in: str | None = None
    failure: str | None = None
    if not ready:
        failed_in = _PHASE_AFTER[phase_events[-1].kind] if phase_events else "engine_init"
        failure, failure_evidence = _failure(timeline, ready, failed_in)
        if failure and patterns.KV_CACHE_FAILURE.search(failure):
            failed_in = "kv_cache_profiling"
        if failure_evidence is not None:
            evidence.append(failure_evidence)
    if started_at is not None:
        first = events[0] if events else None
        evidence.insert(
            0,
            Evidence(
                "process_start",
                first.line_number if first else 0,
                f"container started {started_at:%Y-%m-%d %H:%M:%S} UTC; first timed line {timeline.first_at:%H:%M:%S}",
                "",
            ),
        )
    return ColdStartReport(
        label=label,
        phases=phases,
        total_s=round(sum(p.seconds for p in phases), 3),
        ready=ready,
        failure=failure,
        failed_in=failed_in,
        worker_count=workers.count,
        compile_cache=cache,
        compile_cache_dir=cache_dir,
        torch_compile_s=compiled.total,
        weights=weights,
        vllm_version=version,
        recognised_lines=len(events),
        mode=mode,
        clock="collector" if timeline.clock == "collector" else "vllm",
        worker_count_source=workers.source,
        evidence=tuple(evidence),
        lines_read=timeline.lines_read,
    )
