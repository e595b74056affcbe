"""distributed_init: "Init torch distributed begin." -> "Init torch distributed ends." (its `elapsed=` when printed).

The process groups (Gloo, NCCL, custom all-reduce) of every rank; a rank that inits twice (a speculative
draft model's worker) adds both. Ranks init in parallel: the slowest rank's time wins. A begin whose end is
not logged closes at that rank's next start-up line (its weights begin); a log that ends after a begin (a
hang, a failure in NCCL) runs to its last line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from fastload_constructs.coldstart.report import Evidence
from fastload_constructs.coldstart.sglang.scanner import Event, Scan

# Printed lines kept as evidence, at most.
_SHOWN = 8
# Lines that close a rank's open init: its end, else its next step.
_CLOSING = ("dist_end", "weight_begin", "weight_end", "pool_end", "kv_allocated", "capture_begin", "capture_end")


@dataclass(frozen=True)
class DistributedInit:
    seconds: float | None
    evidence: list[Evidence]
    # When each rank's init began (an excerpt that starts mid-init still counts a printed elapsed).
    began: list[datetime] = field(default_factory=list)


def _rank_seconds(events: list[Event]) -> tuple[float | None, datetime | None]:
    """One rank's lines in order -> (its init seconds, when it began); an end with neither a printed time
    nor its begin in the log (cut) adds nothing, and a rank with nothing timed is (None, None)."""
    seconds: float | None = None
    began: datetime | None = None
    opened: Event | None = None
    for e in events:
        if e.kind == "dist_begin":
            opened, began = e, began or e.at
            continue
        if e.kind == "dist_end" and e.values[0] is not None:
            took = float(e.values[0])
        elif opened is not None and e.kind in _CLOSING:
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
    lines = scan.of("dist_begin", *_CLOSING)
    marks = [e for e in lines if e.kind in ("dist_begin", "dist_end")]
    ranks = {e.rank for e in marks}
    per_rank = [_rank_seconds([e for e in lines if e.rank == rank]) for rank in ranks]
    timed = [(s, b) for s, b in per_rank if s is not None]
    if not timed:
        return _still_running(scan, ready)
    evidence = [Evidence("distributed_init", e.line_number, e.text, "") for e in marks][-_SHOWN:]
    return DistributedInit(max(s for s, _ in timed), evidence, [b for _, b in timed if b is not None])
