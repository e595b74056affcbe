"""distributed_init: a worker's process groups, from its first distributed-init line to "rank N in world size M
is assigned as ..." (the slowest worker's).

The start is "world_size=.. distributed_init_method=" (INFO from vLLM 0.17), "vLLM is using nccl==" or
"Found nccl from library"; a log with only the end line (older releases log the start at DEBUG) has no
such phase. A start that never ended, in a log that stops there, runs to the end of the log.
"""

from __future__ import annotations

from datetime import datetime

from fastload_constructs.coldstart.report import Evidence
from fastload_constructs.coldstart.vllm.patterns import LineKind
from fastload_constructs.coldstart.vllm.records import LogEvent, by_process

_LATER = frozenset(LineKind) - {LineKind.VERSION, LineKind.DISTRIBUTED_START, LineKind.DISTRIBUTED_READY}


def distributed_init(events: list[LogEvent]) -> tuple[float | None, list[Evidence]]:
    starts = by_process(events, LineKind.DISTRIBUTED_START)
    timed: list[tuple[float, LogEvent, LogEvent]] = []
    for process, assigned in by_process(events, LineKind.DISTRIBUTED_READY).items():
        earlier = [s for s in starts.get(process, []) if s.at <= assigned[-1].at]
        if earlier:
            timed.append(((assigned[-1].at - earlier[0].at).total_seconds(), earlier[0], assigned[-1]))
    if not timed:
        return None, []
    seconds, first, ended = max(timed, key=lambda item: item[0])
    return seconds, [
        Evidence("distributed_init", first.line_number, first.text, "starts"),
        Evidence("distributed_init", ended.line_number, ended.text, f"slowest worker: {seconds:g} s"),
    ]


def died_in_distributed_init(events: list[LogEvent], end: datetime) -> tuple[float, Evidence] | None:
    """A start that never finished its process groups (an NCCL failure, a rendezvous timeout): from the first
    start line to `end`, when no later phase began."""
    start = next((e for e in events if e.kind is LineKind.DISTRIBUTED_START), None)
    if start is None or any(e.kind in _LATER or e.kind is LineKind.DISTRIBUTED_READY for e in events):
        return None
    return (end - start.at).total_seconds(), Evidence("distributed_init", start.line_number, start.text, "starts")
