"""cuda_graph: the slowest rank's printed capture time ("Capture cuda graph end. Time elapsed: N s").

Decode and prefill captures add up per rank. A rank's capture ended no earlier than its begin line plus
that time (both lines are cut to the second): the engine is done then, which the server phase starts from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from fastload_constructs.coldstart.report import Evidence
from fastload_constructs.coldstart.sglang.scanner import Scan

# Printed lines kept as evidence, at most.
_SHOWN = 8


@dataclass(frozen=True)
class Capture:
    seconds: float | None
    evidence: list[Evidence]
    # Per rank: when its capture began (an excerpt that starts mid-capture still counts it), and ended.
    began: list[datetime] = field(default_factory=list)
    done: list[datetime] = field(default_factory=list)


def cuda_graphs(scan: Scan, ready: bool) -> Capture:
    captures, begins = scan.of("capture_end"), scan.of("capture_begin")
    if not captures:
        if begins and not ready and scan.last_at is not None:  # the log ends while capturing
            seconds = (scan.last_at - begins[0].at).total_seconds()
            return Capture(seconds, [Evidence("cuda_graph", begins[0].line_number, begins[0].text, "begins")])
        return Capture(None, [])
    per_rank: dict[str, float] = {}
    for e in captures:
        per_rank[e.rank] = per_rank.get(e.rank, 0.0) + float(e.values[0] or 0)
    began: list[datetime] = []
    done: list[datetime] = []
    for rank, seconds in per_rank.items():
        last_end = max(e.at for e in captures if e.rank == rank)
        first_begin = min((e.at for e in begins if e.rank == rank), default=None)
        began.append(first_begin or last_end - timedelta(seconds=seconds))
        done.append(max(last_end, first_begin + timedelta(seconds=seconds)) if first_begin else last_end)
    evidence = [Evidence("cuda_graph", e.line_number, e.text, "") for e in captures][:_SHOWN]
    return Capture(max(per_rank.values()), evidence, began, done)
