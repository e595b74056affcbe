"""The forms a vLLM log arrives in, reduced to vLLM's own line and the collector's clock.

    plain                    vLLM's lines as the process wrote them (docker logs, a file)
    collector prefix         `kubectl logs --timestamps` / `docker logs -t`: an RFC 3339 time (to the
                             nanosecond, "Z" or an offset such as +08:00) before each line; docker compose
                             and other collectors' prefixes (see patterns.COLLECTOR_TIMESTAMP)
    one JSON object a line   a log shipper's record around the line:
                               Fluent Bit (Amazon CloudWatch Container Insights, EKS):
                                 {"log": "<line>\\n", "stream": "stderr", "kubernetes": {...}, "time": "..."}
                               a CloudWatch Logs event (export, subscription, `aws logs filter-log-events`):
                                 {"timestamp": <ms since epoch>, "message": "<the Fluent Bit record as a string>"}
                               a Google Cloud Logging entry (a sink's export, `gcloud logging read` one per line):
                                 {"textPayload": "<line>", "timestamp": "<RFC 3339>", "resource": {...}, ...}
                                 or {"jsonPayload": {"message": ...}, ...} when the container logged JSON
                               vLLM's own JSON logging (VLLM_LOGGING_CONFIG_PATH with python-json-logger),
                               alone or behind vLLM's process prefix, or inside any of the above:
                                 {"message": "<message>"} (+ "levelname", "filename", "lineno" when configured)

An envelope's time is the collector's clock (to the millisecond or better, in UTC), which wins over
vLLM's whole-second local time the way a `--timestamps` prefix does.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from fastload_constructs.coldstart import patterns

# Where a record keeps the line, outermost first; a value that is itself a JSON object is opened in turn.
_TEXT_KEYS = ("log", "textPayload", "message", "msg", "MESSAGE")
_PAYLOAD_KEYS = ("jsonPayload", "log_processed")
# A logger's record keeps the message under these (python-json-logger: "message"); a shipper's line under "log".
_LOGGED_KEYS = ("message", "msg")
_SHIPPER_KEYS = ("timestamp", "ingestionTime", "eventId", "id", "logStreamName")
_TIME_KEYS = ("time", "timestamp", "@timestamp")
_LEVEL_KEYS = ("levelname", "level", "severity")
# Envelopes nest (a CloudWatch event holds a Fluent Bit record holding vLLM's JSON record); no deeper than this.
_MAX_DEPTH = 4
_RFC3339 = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<clock>\d{2}:\d{2}:\d{2})(?:[.,](?P<fraction>\d+))?"
    r"(?P<zone>Z|[+-]\d{2}:?\d{2})?$"
)
_LEVELS = {"WARN": "WARNING", "FATAL": "CRITICAL", "ERR": "ERROR"}
# A JSON record behind vLLM's process prefix(es).
_PREFIXED_JSON = re.compile(r"^(?P<prefix>(?:\([A-Za-z][^()]* pid=\d+[^()]*\)\s*)+)(?P<json>\{.*\})$")


@dataclass(frozen=True)
class Unwrapped:
    """A line freed of its collector's envelope: the text vLLM wrote, and the collector's time if it gave one."""

    line: str
    at: datetime | None


def collector_time(found: re.Match[str]) -> datetime | None:
    """A collector's timestamp (date, clock, fraction, zone groups) as naive UTC (as given when it names no zone);
    None for a date that does not exist (month 13) or falls outside the calendar once moved to UTC."""
    fraction = (found["fraction"] or "0")[:6].ljust(6, "0")
    try:
        at = datetime.strptime(f"{found['date']} {found['clock']}.{fraction}", "%Y-%m-%d %H:%M:%S.%f")
        zone = found["zone"]
        if zone and zone != "Z":
            sign = 1 if zone[0] == "+" else -1
            digits = zone[1:].replace(":", "")
            at -= sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0))
    except (ValueError, OverflowError):
        return None
    return at


def _epoch(value: float) -> datetime | None:
    """Seconds, milliseconds, microseconds or nanoseconds since the epoch, told apart by size."""
    for scale in (1, 1e3, 1e6, 1e9):
        seconds = value / scale
        if seconds < 1e10:
            try:
                return datetime.fromtimestamp(seconds, timezone.utc).replace(tzinfo=None)
            except (OverflowError, OSError, ValueError):
                return None
    return None


def _envelope_time(record: dict[str, object]) -> datetime | None:
    for key in _TIME_KEYS:
        value = record.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            return _epoch(float(value))
        if isinstance(value, str):
            found = _RFC3339.match(value.strip())
            if found:
                return collector_time(found)
    return None


def _is_whole_line(text: str) -> bool:
    """A line that reads as written: vLLM's record, an exception or traceback line, a progress bar or print."""
    return bool(
        patterns.RECORD.search(text)
        or patterns.UNTIMED.match(text)
        or patterns.EXCEPTION_LINE.match(text)
        or patterns.TRACEBACK_FRAME.search(text)
        or patterns.classify_bare(text)
        or patterns.classify_progress(text)
    )


def _as_vllm_record(record: dict[str, object], message: str) -> str:
    """vLLM's JSON logging (python-json-logger) keeps the message apart from its level and source: put them
    back as vLLM would print them. A record that names no level is a logged message all the same (INFO)."""
    if _is_whole_line(message):
        return message
    named = next((record[k] for k in _LEVEL_KEYS if isinstance(record.get(k), str)), "INFO")
    level = str(named).upper()
    level = _LEVELS.get(level, level)
    source, number = record.get("filename"), record.get("lineno")
    if isinstance(source, str) and isinstance(number, int) and source.endswith(".py"):
        return f"{level} [{source}:{number}] {message}"
    return f"{level}: {message}"


def _is_shipped(record: dict[str, object], depth: int) -> bool:
    """A shipper's event around a whole line (a CloudWatch Logs event: "timestamp", "message", ids) rather than
    a logger's record of one message."""
    return depth == 0 and not any(k in record for k in _LEVEL_KEYS) and any(k in record for k in _SHIPPER_KEYS)


def _from_text(record: dict[str, object], text: str, depth: int, logged: bool) -> Unwrapped | None:
    """The line a record's text holds: itself, a JSON record in it (maybe behind vLLM's process prefix)."""
    text = text.rstrip("\r\n")
    if text.startswith("{"):
        nested = _parse(text)
        if nested is not None:
            return _open(nested, depth + 1)
    prefixed = _PREFIXED_JSON.match(text) if "pid=" in text else None
    if prefixed:
        inner = _open(_parse(prefixed["json"]), depth + 1)
        if inner is not None:
            return Unwrapped(prefixed["prefix"] + inner.line, inner.at)
    return Unwrapped(_as_vllm_record(record, text) if logged else text, None)


def _open(record: object, depth: int) -> Unwrapped | None:
    if not isinstance(record, dict) or depth > _MAX_DEPTH:
        return None
    at = _envelope_time(record)
    inner: Unwrapped | None = None
    key = next((k for k in _TEXT_KEYS if isinstance(record.get(k), str)), None)
    if key is not None:
        inner = _from_text(record, str(record[key]), depth, key in _LOGGED_KEYS and not _is_shipped(record, depth))
    else:
        payload = next((record[k] for k in _PAYLOAD_KEYS if isinstance(record.get(k), dict)), None)
        inner = _open(payload, depth + 1)
    if inner is None:
        return None
    # The innermost clock is nearest the line (the container runtime's, before any shipping delay).
    return Unwrapped(inner.line, inner.at or at)


def _parse(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than Python's stack
        return None


def unwrap_json(line: str) -> Unwrapped | None:
    """The vLLM line inside a JSON record, or None when `line` is not one (a plain line starting with "{").

    vLLM's own JSON records may follow its process prefix ("(EngineCore_DP0 pid=7) {"message": ...}"), which
    its stdout wrapper adds to whatever a subprocess prints.
    """
    if not line.endswith("}"):
        return None
    if line.startswith("{"):
        return _open(_parse(line), 0)
    prefixed = _PREFIXED_JSON.match(line) if "pid=" in line else None
    if prefixed is None:
        return None
    inner = _open(_parse(prefixed["json"]), 1)
    return None if inner is None else Unwrapped(prefixed["prefix"] + inner.line, inner.at)
