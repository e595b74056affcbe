"""vLLM server log text -> a typed `ColdStartReport`: where start-up time went.

Durations come from the numbers vLLM prints ("took 20.51 seconds") wherever it
prints one, because log timestamps only have whole seconds; timestamps fill the
gaps no line reports (the API server coming up, and everything else).
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
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Literal

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
CompileCache = Literal["hit", "miss", "partial", "disabled", "not_compiled"]
_UNIT_BYTES = {"Byte": 1, "Bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
# vLLM's datefmt "%m-%d %H:%M:%S" has no year; a leap year lets "02-29" parse.
_BASE_YEAR = 2000


@dataclass(frozen=True)
class LogEvent:
    """One recognised line: when, which process, what."""

    at: datetime
    process: str
    kind: LineKind
    values: dict[str, str]
    line_number: int


@dataclass(frozen=True)
class Phase:
    name: str
    seconds: float


@dataclass(frozen=True)
class WeightLoad:
    """Bytes of weights on the GPUs, and how fast they arrived."""

    seconds: float
    total_bytes: int | None
    gib_per_s: float | None
    # Where the throughput came from: "runai_streamer" (its own summary line) or "vllm".
    throughput_source: str | None


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

    def seconds(self, phase: str) -> float:
        """Seconds of `phase`, 0 when this log has none of it."""
        return next((p.seconds for p in self.phases if p.name == phase), 0.0)

    @property
    def dominant_phase(self) -> str:
        return max(self.phases, key=lambda p: p.seconds).name


@dataclass
class _Timeline:
    events: list[LogEvent] = field(default_factory=list)
    first_at: datetime | None = None
    last_at: datetime | None = None
    # ERROR records and bare exception lines, in log order: (is an exception line, text).
    problems: list[tuple[bool, str]] = field(default_factory=list)


def _parse_time(text: str, previous: datetime | None) -> datetime:
    """Read "MM-DD HH:MM:SS", moving into the next year when the clock wraps past New Year."""
    at = datetime.strptime(f"{_BASE_YEAR}-{text}", "%Y-%m-%d %H:%M:%S")
    while previous is not None and previous - at > timedelta(days=180):
        at = at.replace(year=at.year + 1)
    return at


def _nearest_year(moment: datetime, anchor: datetime) -> datetime:
    """`moment` moved to the year that puts it closest to `anchor` (log times carry no year)."""
    candidates = []
    for year in (anchor.year - 1, anchor.year, anchor.year + 1):
        try:
            candidates.append(moment.replace(year=year))
        except ValueError:  # 02-29 outside a leap year
            continue
    return min(candidates, key=lambda c: abs(c - anchor))


def parse_started_at(text: str) -> datetime:
    """A container start time: "MM-DD HH:MM:SS" (as vLLM prints) or ISO 8601 (as Kubernetes does, UTC)."""
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
    if parsed.tzinfo is not None:  # vLLM logs the container's clock, UTC on EKS images
        parsed = parsed.astimezone(timezone.utc).replace(tzinfo=None)
    return _parse_time(parsed.strftime("%m-%d %H:%M:%S"), None)


def _process_key(process: str | None, pid: str | None) -> str:
    """One name per process: the vLLM prefix, with its pid so V0's identical worker names stay apart."""
    return f"{process} pid={pid}" if process else "main"


def scan(text: str) -> _Timeline:
    """Recognise every start-up line in `text`; all other lines are ignored."""
    timeline = _Timeline()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = patterns.ANSI_ESCAPE.sub("", raw).rstrip("\r")
        line = patterns.KUBECTL_TIMESTAMP.sub("", line, count=1)
        record = patterns.RECORD.search(line) or patterns.STREAMER_RECORD.search(line)
        if record:
            at = _parse_time(record["time"], timeline.last_at)
            timeline.first_at = timeline.first_at or at
            timeline.last_at = at
            process, level, message = _process_key(record["process"], record["pid"]), record["level"], record["message"]
        else:
            untimed = patterns.UNTIMED.match(line)
            exception = patterns.EXCEPTION_LINE.match(line)
            if exception and not untimed:
                timeline.problems.append((True, exception["message"].strip()))
                continue
            if not untimed or timeline.last_at is None:
                continue
            at = timeline.last_at
            process, level, message = (
                _process_key(untimed["process"], untimed["pid"]),
                untimed["level"],
                untimed["message"],
            )
        message = message.strip()
        if level in ("ERROR", "CRITICAL"):
            is_exception = patterns.EXCEPTION_LINE.match(message) is not None
            timeline.problems.append((is_exception, message))
        found = patterns.classify(message)
        if found is None:
            continue
        kind, match = found
        values = {k: v for k, v in match.groupdict().items() if v is not None}
        timeline.events.append(LogEvent(at, process, kind, values, number))
    return timeline


def _seconds(event: LogEvent) -> float:
    return float(event.values.get("seconds") or event.values.get("seconds2") or 0.0)


def _by_process(events: list[LogEvent], *kinds: LineKind) -> dict[str, list[LogEvent]]:
    grouped: dict[str, list[LogEvent]] = defaultdict(list)
    for event in events:
        if event.kind in kinds:
            grouped[event.process].append(event)
    return grouped


def _weight_load(events: list[LogEvent]) -> tuple[float | None, WeightLoad | None, int]:
    """Slowest worker's load time, total bytes on the GPUs, throughput, and how many workers loaded."""
    loaded = _by_process(events, LineKind.MODEL_LOADED)
    if not loaded:
        only_weights = [_seconds(e) for e in events if e.kind is LineKind.WEIGHTS_LOADED]
        if not only_weights:
            return None, None, 0
        return max(only_weights), WeightLoad(max(only_weights), None, None, None), 1
    starts = _by_process(events, LineKind.WEIGHTS_START)
    per_worker: list[float] = []
    gib = 0.0
    for process, lines in loaded.items():
        last = lines[-1]
        gib += float(last.values["gib"])
        if "seconds" in last.values:
            per_worker.append(float(last.values["seconds"]))
        elif starts.get(process):  # 0.6.6 prints no seconds: time it from "Starting to load model"
            per_worker.append((last.at - starts[process][-1].at).total_seconds())
    seconds = max(per_worker) if per_worker else 0.0
    total_bytes = round(gib * GIB)
    streamed = [e for e in events if e.kind is LineKind.STREAMER_SUMMARY]
    if streamed:
        streamed_bytes = sum(float(e.values["size"]) * _UNIT_BYTES[e.values["size_unit"]] for e in streamed)
        slowest = max(float(e.values["seconds"]) for e in streamed)
        rate, source = (streamed_bytes / GIB / slowest if slowest > 0 else None), "runai_streamer"
    else:
        weights_only = [_seconds(e) for e in events if e.kind is LineKind.WEIGHTS_LOADED]
        pure = max(weights_only) if weights_only else seconds
        rate, source = (gib / pure if pure > 0 else None), "vllm"
    return seconds, WeightLoad(seconds, total_bytes, rate, source), len(loaded)


def _compile(events: list[LogEvent]) -> tuple[float | None, float | None, float | None]:
    """(dynamo, graph compile or cache load, torch.compile total) of the slowest-compiling worker."""
    per_process: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for event in events:
        slot = {
            LineKind.DYNAMO_TRANSFORM: "dynamo",
            LineKind.GRAPH_COMPILED: "graphs",
            LineKind.GRAPH_FROM_CACHE: "graphs",
            LineKind.COMPILE_TOTAL: "total",
        }.get(event.kind)
        if slot:
            per_process[event.process][slot] += _seconds(event)
    if not per_process:
        return None, None, None
    totals = {p: (v["total"] if v["total"] > 0 else v["dynamo"] + v["graphs"]) for p, v in per_process.items()}
    slowest = max(totals, key=totals.__getitem__)
    dynamo = per_process[slowest]["dynamo"]
    total = max(totals[slowest], dynamo)
    return dynamo, total - dynamo, total


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
    if miss or LineKind.DYNAMO_TRANSFORM in kinds:
        return "miss", directory
    return "not_compiled", directory


def _failure(timeline: _Timeline, ready: bool) -> str | None:
    """The root cause: the first exception logged, else the first ERROR line."""
    if ready:
        return None
    exceptions = [text for is_exception, text in timeline.problems if is_exception]
    if exceptions:
        return exceptions[0]
    if timeline.problems:
        return timeline.problems[0][1]
    return "the log ends before the API server reported 'Application startup complete.'"


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
    LineKind.KV_CACHE_MEMORY: "cuda_graph",
    LineKind.CUDA_GRAPH: "kv_cache_profiling",
    LineKind.ENGINE_INITIALISED: "api_server",
    LineKind.SERVER_STARTING: "api_server",
    LineKind.SERVER_READY: "api_server",
}


def parse_log(text: str, label: str = "log", started_at: datetime | None = None) -> ColdStartReport:
    """Build the report; raises FastloadConfigError when no start-up phase is recognised."""
    timeline = scan(text)
    events = timeline.events
    phase_events = [e for e in events if e.kind is not LineKind.VERSION]
    if not phase_events or timeline.first_at is None or timeline.last_at is None:
        raise FastloadConfigError(
            "log",
            label,
            "a vLLM server log with at least one start-up line (e.g. 'Model loading took', "
            "'torch.compile takes', 'init engine', 'Application startup complete.')",
        )
    if started_at is not None:
        started_at = _nearest_year(started_at, timeline.first_at)
        if started_at > timeline.first_at:
            raise FastloadConfigError(
                "started_at",
                started_at.strftime("%m-%d %H:%M:%S"),
                f"a time no later than the first log line ({timeline.first_at:%m-%d %H:%M:%S})",
            )
    ready_events = [e for e in events if e.kind is LineKind.SERVER_READY]
    ready = bool(ready_events)
    end = ready_events[0].at if ready else timeline.last_at
    origin = started_at or timeline.first_at

    weight_s, weights, loaders = _weight_load(events)
    load_starts = [e for e in events if e.kind is LineKind.WEIGHTS_START]
    if weight_s is None and not ready and load_starts:
        # Died while loading (OOM, S3 access denied): the load ran until the log ends.
        weight_s = (end - load_starts[0].at).total_seconds()
    dynamo_s, graphs_s, compile_total = _compile(events)
    cuda_graph = [_seconds(e) for e in events if e.kind is LineKind.CUDA_GRAPH]
    cuda_graph_s = max(cuda_graph) if cuda_graph else None
    engine_lines = [e for e in events if e.kind is LineKind.ENGINE_INITIALISED]
    if engine_lines:
        kv_s: float | None = max(0.0, _seconds(engine_lines[0]) - (compile_total or 0.0) - (cuda_graph_s or 0.0))
    else:
        profiling = _by_process(events, LineKind.PROFILING)
        kv_s = max(sum(_seconds(e) for e in lines) for lines in profiling.values()) if profiling else None
    api_s = (end - engine_lines[0].at).total_seconds() if (engine_lines and ready) else None

    named = {
        "process_start": (timeline.first_at - started_at).total_seconds() if started_at else None,
        "weight_load": weight_s,
        "dynamo_transform": dynamo_s,
        "graph_compile": graphs_s,
        "cuda_graph": cuda_graph_s,
        "kv_cache_profiling": kv_s,
        "api_server": api_s,
    }
    span = (end - origin).total_seconds()
    named_sum = sum(v for v in named.values() if v is not None)
    named["engine_init"] = max(0.0, span - named_sum)
    phases = tuple(
        Phase(name, round(named[name], 3))
        for name in PHASE_ORDER
        if named.get(name) is not None and not (name == "process_start" and started_at is None)
    )
    cache, cache_dir = _compile_cache(events)
    workers = max(loaders, len({e.process for e in events if e.kind is LineKind.CUDA_GRAPH}), 1)
    version = next(
        (e.values.get("version") or e.values.get("version2") for e in events if e.kind is LineKind.VERSION), None
    )
    return ColdStartReport(
        label=label,
        phases=phases,
        total_s=round(sum(p.seconds for p in phases), 3),
        ready=ready,
        failure=_failure(timeline, ready),
        failed_in=None if ready else _PHASE_AFTER[events[-1].kind],
        worker_count=workers,
        compile_cache=cache,
        compile_cache_dir=cache_dir,
        torch_compile_s=compile_total,
        weights=weights,
        vllm_version=version,
        recognised_lines=len(events),
    )
