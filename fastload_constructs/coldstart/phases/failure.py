"""For a start that never got ready: the phase it was in when it stopped, and the root cause."""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.coldstart import patterns
from fastload_constructs.coldstart.patterns import LineKind
from fastload_constructs.coldstart.records import Evidence, Problem, Timeline

# The phase under way after each event: where a start that never got ready stopped.
PHASE_AFTER = {
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


@dataclass(frozen=True)
class Failure:
    phase: str
    cause: str
    evidence: Evidence | None


def _root_cause(timeline: Timeline) -> Problem | None:
    """The first exception after the last start-up line (errors before it were survived), else the first error."""
    after = timeline.problems[-timeline.problems_after_last_event :] if timeline.problems_after_last_event else []
    chosen = next((p for p in after if p.is_exception), None) or (after[0] if after else None)
    if chosen is None and not timeline.events and timeline.problems:
        chosen = next((p for p in timeline.problems if p.is_exception), timeline.problems[0])
    return chosen


def failure(timeline: Timeline) -> Failure:
    """Where a start that never got ready stopped, and why (or that the log says nothing about why)."""
    phase_events = [e for e in timeline.events if e.kind is not LineKind.VERSION]
    phase = PHASE_AFTER[phase_events[-1].kind] if phase_events else "engine_init"
    chosen = _root_cause(timeline)
    if chosen is None:
        cause = (
            f"the log ends during {phase} with no error after the last start-up line "
            "(cut off, still starting, or killed: see the pod's events)"
        )
        return Failure(phase, cause, None)
    if patterns.KV_CACHE_FAILURE.search(chosen.text):
        phase = "kv_cache_profiling"
    return Failure(phase, chosen.text, Evidence("failure", chosen.line_number, chosen.text, "root cause"))
