"""For a start that never got ready: the phase that was running when the log ends, and the root cause.

A failure line that names its phase (patterns.FAILURES: "Not enough memory ... --mem-fraction-static" is
the KV pool's) places it; otherwise the phase the last start-up line left running (`PHASE_AFTER`).
"""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.coldstart.report import Evidence, ended_without_error
from fastload_constructs.coldstart.sglang.scanner import Scan

# The phase under way after each line: where a start that never got ready stopped.
PHASE_AFTER = {
    "weight_begin": "weight_load",
    "weight_end": "kv_cache_profiling",
    "kv_allocated": "kv_cache_profiling",
    "pool_end": "cuda_graph",
    "capture_begin": "cuda_graph",
    "capture_end": "api_server",
}


@dataclass(frozen=True)
class Stopped:
    phase: str
    cause: str
    evidence: Evidence | None


def failure(scan: Scan) -> Stopped:
    phase = PHASE_AFTER.get(scan.events[-1].kind, "engine_init")
    if scan.failure is None:
        return Stopped(phase, ended_without_error(phase), None)
    phase = scan.failure.phase or phase
    return Stopped(phase, scan.failure.text, Evidence(phase, scan.failure.line_number, scan.failure.text, "failure"))
