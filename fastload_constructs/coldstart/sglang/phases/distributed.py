"""distributed_init: "Init torch distributed begin." -> "Init torch distributed ends." (its `elapsed=` when printed).

The process groups (Gloo, NCCL, custom all-reduce) of every rank; a rank that inits twice (a speculative
draft model's worker) adds both. Ranks init in parallel: the slowest rank's time wins. A log that ends
after a begin (a hang, a failure in NCCL) runs to its last line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from fastload_constructs.coldstart.report import Evidence
from fastload_constructs.coldstart.sglang.scanner import Event, Scan

# Printed lines kept as evidence, at most.
_SHOWN = 8


@dataclass(frozen=True)
class DistributedInit:
    seconds: float | None
    evidence: list[Evidence]
    # When each rank's init began (an excerpt that starts mid-init still counts a printed elapsed).
    began: list[datetime] = field(default_factory=list)


def _rank_seconds(events: list[Event]) -> tuple[float | None, datetime | None]:
    """One rank's begin/end lines in order -> (its seconds, when it began); an end with neither a printed
    time nor its begin in the log (cut) adds nothing, and a rank with nothing timed is (None, None)."""
    seconds: float | None = None
    began: datetime | None = None
    opened: Event | None = None
    for e in events:
        if e.kind == "dist_begin":
            opened, began = e, began or e.at
            continue
        if e.values[0] is not None:
            took = float(e.values[0])
        elif opened is not None:
            took = (e.at - opened.at).total_seconds()
        else:
            continue
        seconds = (seconds or 0.0) + took
        began, opened = began or e.at - timedelta(seconds=took), None
    return seconds, began


def _still_running(scan: Scan, ready: bool) -> DistributedInit:
    """Begun and never ended: a log that ends there (a hang, an NCCL failure) runs to its last line."""
    begins = scan.of("dist_begin")
    later = scan.of("weight_begin", "weight_end", "pool_end", "capture_begin", "capture_end")
    if ready or not begins or later or scan.last_at is None:
        return DistributedInit(None, [])
    seconds = (scan.last_at - begins[0].at).total_seconds()
    return DistributedInit(
        seconds, [Evidence("distributed_init", begins[0].line_number, begins[0].text, "begins; the log ends")]
    )


def distributed_init(scan: Scan, ready: bool) -> DistributedInit:
    lines = scan.of("dist_begin", "dist_end")
    ends = [e for e in lines if e.kind == "dist_end"]
    if not ends:
        return _still_running(scan, ready)
    per_rank = [_rank_seconds([e for e in lines if e.rank == rank]) for rank in {e.rank for e in ends}]
    timed = [(s, b) for s, b in per_rank if s is not None]
    if not timed:
        return DistributedInit(None, [])
    evidence = [Evidence("distributed_init", e.line_number, e.text, "") for e in ends][:_SHOWN]
    return DistributedInit(max(s for s, _ in timed), evidence, [b for _, b in timed if b is not None])
