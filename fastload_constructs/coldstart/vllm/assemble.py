"""vLLM log lines -> a typed `ColdStartReport`: where start-up time went.

Durations come from the numbers vLLM prints ("took 20.51 seconds") wherever it
prints one, because vLLM's timestamps only have whole seconds; timestamps fill
the gaps no line reports (the API server coming up, and everything else).
Workers load and compile in parallel, so a phase lasts as long as its slowest
worker. The phases do not overlap, and they add up to the time to ready:

    process_start      container start -> first log line (only with `started_at`)
    engine_init        everything no line reports: config, process spawn,
                       gaps (the remainder of the total)
    distributed_init   the first distributed-init line ("world_size=.. distributed_init_method=",
                       "vLLM is using nccl==") -> "rank N in world size M is assigned as" (slowest worker)
    weight_load        "Model loading took ... seconds" (slowest worker); for a start
                       that died while loading, "Starting to load model" -> the end
    dynamo_transform   "Dynamo bytecode transform time"
    graph_compile      the rest of "torch.compile took ... in total": Inductor
                       compiling graphs, or loading them from the compile cache
    cuda_graph         "Graph capturing finished in ... secs"
    kv_cache_profiling the rest of "init engine (profile, create kv cache, warmup
                       model) took ...": memory profiling, KV-cache allocation, warmup
    api_server         engine ready -> "Application startup complete."

The log is read line by line (`scanner.py`) and only the recognised start-up lines
are kept, so memory is bounded by the start-up section, not by the file; reading
stops at "Application startup complete.".

Each phase is worked out by its own module in `phases/` (see its docstring); this
module puts them together (`parse_lines`, which `coldstart/parser.py` hands a vLLM log to).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from fastload_constructs.coldstart.engine_log import EngineLog
from fastload_constructs.coldstart.report import ColdStartReport, Evidence, phases_in_order
from fastload_constructs.coldstart.vllm.patterns import MARKERS, LineKind
from fastload_constructs.coldstart.vllm.phases.compile import compile_cache, torch_compile, xla_still_compiling
from fastload_constructs.coldstart.vllm.phases.distributed import died_in_distributed_init, distributed_init
from fastload_constructs.coldstart.vllm.phases.engine import api_server, kv_cache
from fastload_constructs.coldstart.vllm.phases.failure import failure
from fastload_constructs.coldstart.vllm.phases.graphs import cuda_graphs
from fastload_constructs.coldstart.vllm.phases.start import container_start, process_start, readiness
from fastload_constructs.coldstart.vllm.phases.weights import died_while_loading, weight_load
from fastload_constructs.coldstart.vllm.phases.workers import count_workers
from fastload_constructs.coldstart.vllm.records import LogEvent, Timeline
from fastload_constructs.coldstart.vllm.scanner import scan
from fastload_constructs.core.errors import FastloadConfigError

ENGINE = "vllm"


def parse_lines(lines: Iterable[str], label: str = "log", started_at: datetime | None = None) -> ColdStartReport:
    """The report of one vLLM start-up; raises FastloadConfigError when no start-up line is found."""
    return _report(scan(lines), label, started_at)


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


def _ran_to_the_end(found: _Phases, events: list[LogEvent], end: datetime) -> None:
    """A start that never got ready: the distributed init, load or XLA precompile it died in ran until the end
    of the log."""
    if found.seconds["distributed_init"] is None:
        stopped_joining = died_in_distributed_init(events, end)
        if stopped_joining is not None:
            found.add("distributed_init", (stopped_joining[0], [stopped_joining[1]]))
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
    found.add("distributed_init", distributed_init(events))
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
    phases = phases_in_order(found.seconds, (ready.end - (started_at or first_at)).total_seconds())
    cache, cache_dir = compile_cache(events)
    return ColdStartReport(
        label=label,
        engine=ENGINE,
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
        engine_version=_version(events),
        mode=ready.mode,
        clock="collector" if timeline.clock == "collector" else ENGINE,
        worker_count_source=workers.source,
        evidence=tuple(found.evidence),
        lines_read=timeline.lines_read,
        notes=tuple(note for note in (timeline.steps.note, timeline.skipped.note) if note),
        clock_steps=tuple(timeline.steps.steps),
    )


def _version(events: list[LogEvent]) -> str | None:
    return next(
        (e.values.get("version") or e.values.get("version2") for e in events if e.kind is LineKind.VERSION), None
    )


def _recognises(line: str) -> bool:
    return MARKERS.search(line) is not None


# What coldstart/parser.py needs to tell a vLLM log apart and read it.
LOG = EngineLog(ENGINE, "vLLM", _recognises, parse_lines, "Application startup complete.")
