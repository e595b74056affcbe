"""Readiness (the moment the start ended, ready or not) and process start (container start -> first line)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from fastload_constructs.coldstart.report import Evidence
from fastload_constructs.coldstart.sglang.scanner import Event, Scan
from fastload_constructs.core.errors import FastloadConfigError


@dataclass(frozen=True)
class Readiness:
    """Whether and when the start ended: "The server is fired up and ready to roll!", which SGLang prints once
    its warm-up request has returned (http_server.py `_wait_and_warmup`, the same from 0.2 to 0.5.23); or a
    warm-up end line after the HTTP server came up (the line that follows it was cut). Uvicorn's lines alone
    are a server still warming up: not ready, timed to the log's last line."""

    ready: bool
    end: datetime
    line: Event | None


def readiness(scan: Scan, last_at: datetime) -> Readiness:
    up = next(iter(scan.of("http_up")), None)
    ready = scan.of("ready")
    if ready:
        return Readiness(True, ready[0].at, ready[0])
    warmed = [e for e in scan.of("warmup_end") if up is not None and e.line_number > up.line_number]
    if warmed:
        return Readiness(True, warmed[0].at, warmed[0])
    return Readiness(False, last_at, None)


def container_start(started_at: datetime | None, first_at: datetime) -> None:
    """Refuses a container start later than the log's first line (SGLang's clock has a year: none to guess)."""
    if started_at is not None and started_at > first_at:
        raise FastloadConfigError(
            "started_at", f"{started_at:%Y-%m-%d %H:%M:%S}", "a moment before the log's first line"
        )


def process_start(started_at: datetime, scan: Scan, first_at: datetime) -> tuple[float, Evidence]:
    """Container start -> first timed line."""
    evidence = Evidence(
        "process_start",
        scan.events[0].line_number if scan.events else 0,
        f"container started {started_at:%Y-%m-%d %H:%M:%S} UTC; first timed line {first_at:%H:%M:%S}",
        "",
    )
    return (first_at - started_at).total_seconds(), evidence
