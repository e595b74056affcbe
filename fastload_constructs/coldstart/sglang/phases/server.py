"""api_server: the engine's last step (capture end, else pool or weights end) -> the server ready."""

from __future__ import annotations

from datetime import datetime

from fastload_constructs.coldstart.report import Evidence
from fastload_constructs.coldstart.sglang.phases.start import Readiness
from fastload_constructs.coldstart.sglang.scanner import Scan

_ENGINE_STEPS = ("capture_end", "pool_end", "kv_allocated", "weight_end")


def api_server(scan: Scan, ready: Readiness, capture_done: list[datetime]) -> tuple[float | None, list[Evidence]]:
    """`capture_done`: when each rank's capture ended (later than its end line when that is cut to the second)."""
    if ready.line is None:
        return None, []
    seconds: float | None = None
    evidence: list[Evidence] = []
    steps = [e for e in scan.events if e.kind in _ENGINE_STEPS]
    if steps:
        done = max(capture_done) if capture_done else max(e.at for e in steps)
        seconds = max(0.0, (ready.end - done).total_seconds())
        last = max(steps, key=lambda e: e.at)
        evidence.append(Evidence("api_server", last.line_number, last.text, "engine ready"))
    evidence.append(Evidence("api_server", ready.line.line_number, ready.line.text, "server ready"))
    return seconds, evidence
