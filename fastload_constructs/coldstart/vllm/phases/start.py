"""Process start (container start -> first log line) and the moment the start ended (ready or not)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from fastload_constructs.coldstart.report import Evidence, Mode
from fastload_constructs.coldstart.timestamps import nearest_year
from fastload_constructs.coldstart.vllm.patterns import LineKind
from fastload_constructs.coldstart.vllm.records import LogEvent, Timeline
from fastload_constructs.core.errors import FastloadConfigError


@dataclass(frozen=True)
class Readiness:
    """Whether and when the start ended: "Application startup complete." (server), the engine (offline `LLM()`),
    or the log's last timed line (never ready)."""

    ready: bool
    end: datetime
    mode: Mode
    engine: LogEvent | None
    server_ready: LogEvent | None


def readiness(timeline: Timeline, last_at: datetime) -> Readiness:
    engine = next(iter(timeline.of_kind(LineKind.ENGINE_INITIALISED)), None)
    server_ready = next(iter(timeline.of_kind(LineKind.SERVER_READY)), None)
    if server_ready is not None:
        return Readiness(True, server_ready.at, "server", engine, server_ready)
    if engine is not None and not timeline.server_signal:
        # An offline LLM()/AsyncLLMEngine run: no API server; ready when the engine is.
        return Readiness(True, engine.at, "offline", engine, None)
    return Readiness(False, last_at, "server", engine, None)


def container_start(started_at: datetime | None, timeline: Timeline, first_at: datetime) -> datetime | None:
    """`started_at` in the log's year (vLLM's clock has none); refused when later than the first line."""
    if started_at is None:
        return None
    started_at = nearest_year(started_at, first_at)
    if started_at > first_at:
        raise FastloadConfigError(
            "started_at",
            started_at.strftime("%m-%d %H:%M:%S"),
            f"a time no later than the first log line ({first_at:%m-%d %H:%M:%S}, "
            f"{'the collector clock, UTC' if timeline.clock == 'collector' else 'vLLM clock'})",
        )
    return started_at


def process_start(started_at: datetime, timeline: Timeline, first_at: datetime) -> tuple[float, Evidence]:
    """Container start -> first timed line."""
    first = timeline.events[0] if timeline.events else None
    evidence = Evidence(
        "process_start",
        first.line_number if first else 0,
        f"container started {started_at:%Y-%m-%d %H:%M:%S} UTC; first timed line {first_at:%H:%M:%S}",
        "",
    )
    return (first_at - started_at).total_seconds(), evidence
