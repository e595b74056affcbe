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

The log is read line by line (`parse_lines`, `parse_stream`, in `scanner.py`) and only the
recognised start-up lines are kept, so memory is bounded by the start-up
section, not by the file; reading stops at "Application startup complete.".

Each phase is worked out by its own module in `phases/` (see its docstring); this
module puts them together and is the entry point (`parse_log`, `parse_lines`,
`parse_stream`, `ColdStartReport`).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO

from fastload_constructs.coldstart.patterns import LineKind
from fastload_constructs.coldstart.phases.compile import compile_cache, torch_compile, xla_still_compiling
from fastload_constructs.coldstart.phases.engine import api_server, kv_cache
from fastload_constructs.coldstart.phases.failure import failure
from fastload_constructs.coldstart.phases.graphs import cuda_graphs
from fastload_constructs.coldstart.phases.start import container_start, process_start, readiness
from fastload_constructs.coldstart.phases.weights import died_while_loading, weight_load
from fastload_constructs.coldstart.phases.workers import count_workers
from fastload_constructs.coldstart.records import (
    GIB,
    PHASE_ORDER,
    CompileCache,
    Evidence,
    LogEvent,
    Mode,
    Phase,
    Timeline,
    WeightLoad,
)
from fastload_constructs.coldstart.scanner import MAX_LINE_CHARS, iter_text_lines, parse_time, scan
from fastload_constructs.core.errors import FastloadConfigError

__all__ = [
    "GIB",
    "MAX_LINE_CHARS",
    "PHASE_ORDER",
    "ColdStartReport",
    "CompileCache",
    "Evidence",
    "LogEvent",
    "Mode",
    "Phase",
    "WeightLoad",
    "iter_text_lines",
    "parse_lines",
    "parse_log",
    "parse_started_at",
    "parse_stream",
    "scan",
]


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


def parse_started_at(text: str) -> datetime:
    """A container start time: "MM-DD HH:MM:SS" (as vLLM prints) or ISO 8601 (as Kubernetes does), as naive UTC."""
    value = text.strip()
    try:
        return parse_time(value, None)
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


def _require_start_up_lines(timeline: Timeline, label: str) -> tuple[datetime, datetime]:
    """The log's first and last timed moments; refused when it holds no start-up line and no error."""
    has_phase = any(e.kind is not LineKind.VERSION for e in timeline.events)
    if (not has_phase and not timeline.problems) or timeline.first_at is None or timeline.last_at is None:
        raise FastloadConfigError(
            "log",
            label,
            "a vLLM server log with at least one start-up line (e.g. 'Model loading took', "
            "'torch.compile takes', 'init engine', 'Application startup complete.')",
        )
    return timeline.first_at, timeline.last_at


@dataclass
class _Phases:
    """Seconds per phase (None: this log has none of it) and the lines they came from, in report order."""

    seconds: dict[str, float | None]
    evidence: list[Evidence]

    def add(self, phase: str, found: tuple[float | None, list[Evidence]]) -> None:
        self.seconds[phase], lines = found
        self.evidence += lines

    def in_order(self, span: float) -> tuple[Phase, ...]:
        """Every phase present, engine_init being what no line reports (the remainder of the span)."""
        named = sum(v for v in self.seconds.values() if v is not None)
        self.seconds["engine_init"] = max(0.0, span - named)
        return tuple(
            Phase(name, round(value, 3)) for name in PHASE_ORDER if (value := self.seconds.get(name)) is not None
        )


def _ran_to_the_end(found: _Phases, events: list[LogEvent], end: datetime) -> None:
    """A start that never got ready: a load or an XLA precompile it died in ran until the end of the log."""
    if found.seconds["weight_load"] is None:
        stopped_loading = died_while_loading(events, end)
        if stopped_loading is not None:
            found.add("weight_load", (stopped_loading[0], [stopped_loading[1]]))
    still_compiling = xla_still_compiling(events, end)
    if still_compiling is not None:
        found.seconds["graph_compile"] = (found.seconds["graph_compile"] or 0.0) + still_compiling[0]
        found.evidence.append(still_compiling[1])


def _report(timeline: Timeline, label: str, started_at: datetime | None) -> ColdStartReport:
    first_at, last_at = _require_start_up_lines(timeline, label)
    events = timeline.events
    started_at = container_start(started_at, timeline, first_at)
    ready = readiness(timeline, last_at)
    workers = count_workers(timeline)
    found = _Phases({}, [])
    load = weight_load(events, workers.count)
    found.add("weight_load", (load.seconds, load.evidence))
    compiled = torch_compile(events)
    found.add("dynamo_transform", (compiled.dynamo, compiled.evidence))
    found.seconds["graph_compile"] = compiled.graphs
    if not ready.ready:
        _ran_to_the_end(found, events, ready.end)
    found.add("cuda_graph", cuda_graphs(events))
    found.add("kv_cache_profiling", kv_cache(events, ready.engine, compiled, found.seconds["cuda_graph"]))
    found.add("api_server", api_server(ready))
    if load.weights is not None:
        found.evidence += load.rate_evidence
    stopped = None if ready.ready else failure(timeline)
    if stopped is not None and stopped.evidence is not None:
        found.evidence.append(stopped.evidence)
    if started_at is not None:
        found.seconds["process_start"], start_line = process_start(started_at, timeline, first_at)
        found.evidence.insert(0, start_line)
    phases = found.in_order((ready.end - (started_at or first_at)).total_seconds())
    cache, cache_dir = compile_cache(events)
    return ColdStartReport(
        label=label,
        phases=phases,
        total_s=round(sum(p.seconds for p in phases), 3),
        ready=ready.ready,
        failure=stopped.cause if stopped else None,
        failed_in=stopped.phase if stopped else None,
        worker_count=workers.count,
        compile_cache=cache,
        compile_cache_dir=cache_dir,
        torch_compile_s=compiled.total,
        weights=load.weights,
        vllm_version=_version(events),
        recognised_lines=len(events),
        mode=ready.mode,
        clock="collector" if timeline.clock == "collector" else "vllm",
        worker_count_source=workers.source,
        evidence=tuple(found.evidence),
        lines_read=timeline.lines_read,
    )


def _version(events: list[LogEvent]) -> str | None:
    return next(
        (e.values.get("version") or e.values.get("version2") for e in events if e.kind is LineKind.VERSION), None
    )
