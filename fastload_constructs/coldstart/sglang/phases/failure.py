"""For a start that never got ready: the phase that was running when it failed, and the root cause.

The root cause, strongest first: a failure line that names its cause (patterns.FAILURES: the KV pool does
not fit, the capture failed, CUDA out of memory), else the error line that ends the first traceback ("RuntimeError:
NCCL error: unhandled system error", deep under "Scheduler hit an exception: Traceback"), else any error line.
The phase, strongest first: the one that failure line names, else the innermost frame of the traceback that
belongs to one phase's work (patterns.FAILING_CALLS: `init_torch_distributed` is distributed init,
`init_memory_pool` the KV pool), else the phase the last start-up line left running (`PHASE_AFTER`).
"""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.coldstart.report import Evidence, ended_without_error
from fastload_constructs.coldstart.sglang.patterns import FAILING_CALLS
from fastload_constructs.coldstart.sglang.phases.warmup import capturing
from fastload_constructs.coldstart.sglang.scanner import Scan, Traceback

# The phase under way after each line: where a start that never got ready stopped.
PHASE_AFTER = {
    "dist_begin": "distributed_init",
    "nccl": "distributed_init",
    "dist_end": "weight_load",
    "weight_begin": "weight_load",
    "weight_end": "kv_cache_profiling",
    "kv_allocated": "kv_cache_profiling",
    "pool_end": "cuda_graph",
    "capture_begin": "cuda_graph",
    "capture_end": "api_server",
    "http_up": "warmup",
    "warmup_begin": "warmup",
}


@dataclass(frozen=True)
class Stopped:
    phase: str
    cause: str
    evidence: Evidence | None


def _left_running(scan: Scan, warming_up: bool) -> str:
    """The phase the last start-up line (by time) left running: a capture that began and did not end, or the
    warm-up once it began, is still running; a JIT compile on its own says neither."""
    if capturing(scan):
        return "cuda_graph"
    if warming_up:
        return "warmup"
    events = sorted((e for e in scan.events if e.kind != "jit"), key=lambda e: (e.at, e.line_number))
    return PHASE_AFTER.get(events[-1].kind, "engine_init") if events else "engine_init"


def _named_by_traceback(traceback: Traceback | None) -> str | None:
    """The phase of the innermost frame or code line that belongs to one phase's own work."""
    for line in reversed(traceback.lines if traceback else []):
        for phase, call in FAILING_CALLS:
            if call.search(line):
                return phase
    return None


def _cause(scan: Scan) -> tuple[str | None, str, int] | None:
    """(the phase the cause names, its text, its line): a failure line that names its cause, else the
    traceback's error line, else the line that says a failure happened."""
    failure, traceback = scan.failure, scan.traceback
    if failure is not None and failure.names_its_cause:
        return failure.phase, failure.text, failure.line_number
    if traceback is not None and traceback.error is not None:
        return None, traceback.error, traceback.error_line
    if failure is None:
        return (None, "a traceback whose error line is not in the log", traceback.line_number) if traceback else None
    if failure.text.startswith("Scheduler hit an exception"):
        return None, "Scheduler hit an exception; its error line is not in the log", failure.line_number
    return None, failure.text, failure.line_number


def _placed(scan: Scan, cause: tuple[str | None, str, int] | None, warming_up: bool) -> str:
    phase = (cause[0] if cause else None) or _named_by_traceback(scan.traceback) or _left_running(scan, warming_up)
    if phase == "engine_init" and cause is not None and "NCCL error" in cause[1]:
        return "distributed_init"  # before any later phase began, NCCL's communicators are being made
    return phase


def failure(scan: Scan, warming_up: bool) -> Stopped:
    """`warming_up`: the warm-up had begun (phases.warmup.warmup_from)."""
    cause = _cause(scan)
    phase = _placed(scan, cause, warming_up)
    if cause is None:
        return Stopped(phase, ended_without_error(phase), None)
    _, text, line_number = cause
    return Stopped(phase, text, Evidence(phase, line_number, text, "failure"))
