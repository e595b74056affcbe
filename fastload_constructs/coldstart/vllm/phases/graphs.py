"""cuda_graph: "Graph capturing finished in ... secs" of the slowest-capturing worker."""

from __future__ import annotations

from fastload_constructs.coldstart.report import Evidence
from fastload_constructs.coldstart.vllm.patterns import LineKind
from fastload_constructs.coldstart.vllm.records import LogEvent, seconds_of


def cuda_graphs(events: list[LogEvent]) -> tuple[float | None, list[Evidence]]:
    captures = [e for e in events if e.kind is LineKind.CUDA_GRAPH]
    if not captures:
        return None, []
    slowest = max(captures, key=seconds_of)
    return seconds_of(slowest), [Evidence("cuda_graph", slowest.line_number, slowest.text, "")]
