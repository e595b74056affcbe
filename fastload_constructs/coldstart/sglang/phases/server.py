"""api_server: the engine's last step (capture end, else pool or weights end) -> the HTTP server up (or, in logs
without a warm-up sign, -> "The server is fired up and ready to roll!"); a log cut before either has none."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from fastload_constructs.coldstart.report import Evidence
from fastload_constructs.coldstart.sglang.phases.start import Readiness
from fastload_constructs.coldstart.sglang.scanner import Event, Scan

_ENGINE_STEPS = ("capture_end", "pool_end", "kv_allocated", "weight_end")


@dataclass(frozen=True)
class EngineDone:
    at: datetime
    line: Event


def engine_done(scan: Scan, capture_done: list[datetime]) -> EngineDone | None:
    """When the engine finished its last step; `capture_done`: when each rank's capture ended (later than its
    end line when that line is cut to the second)."""
    steps = scan.of(*_ENGINE_STEPS)
    if not steps:
        return None
    last = max(steps, key=lambda e: e.at)
    return EngineDone(max(capture_done) if capture_done else last.at, last)


def api_server(
    ready: Readiness, done: EngineDone | None, warmup_from: Event | None
) -> tuple[float | None, list[Evidence]]:
    end = warmup_from or ready.line
    if end is None:
        return None, []
    evidence = [Evidence("api_server", end.line_number, end.text, "server up" if warmup_from else "server ready")]
    if done is None:
        return None, evidence
    engine = Evidence("api_server", done.line.line_number, done.line.text, "engine ready")
    return max(0.0, (end.at - done.at).total_seconds()), [engine, *evidence]
