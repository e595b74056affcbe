"""The forms a log arrives in, reduced to the engine's own line and the collector's clock.

    plain                    the engine's lines as the process wrote them (docker logs, a file)
    collector prefix         `kubectl logs --timestamps` / `docker logs -t`: an RFC 3339 time (to the
                             nanosecond, "Z" or an offset such as +08:00) before each line; docker compose
                             and other collectors' prefixes (COLLECTOR_TIMESTAMP)
    terminal copies          ANSI colours, with or without their ESC byte; box drawing around each line
    one JSON object a line   a log shipper's record around the line:
                               Fluent Bit (Amazon CloudWatch Container Insights, EKS):
                                 {"log": "<line>\\n", "stream": "stderr", "kubernetes": {...}, "time": "..."}
                               a CloudWatch Logs event (export, subscription, `aws logs filter-log-events`):
                                 {"timestamp": <ms since epoch>, "message": "<the Fluent Bit record as a string>"}
                               a Google Cloud Logging entry (a sink's export, `gcloud logging read` one per line):
                                 {"textPayload": "<line>", "timestamp": "<RFC 3339>", "resource": {...}, ...}
                                 or {"jsonPayload": {"message": ...}, ...} when the container logged JSON
                               the engine's own JSON logging (vLLM's VLLM_LOGGING_CONFIG_PATH with
                               python-json-logger), alone or behind a process prefix, or inside any of the above:
                                 {"message": "<message>"} (+ "levelname", "filename", "lineno" when configured)

An envelope's time is the collector's clock (to the millisecond or better, in UTC), which wins over
the engine's whole-second local time the way a `--timestamps` prefix does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

from fastload_constructs.coldstart.figures import bounded
from fastload_constructs.coldstart.timestamps import collector_time

# A line that reads as written (the engine's record, an exception line, a progress bar): what an engine's
# scanner says of a JSON record's text, so that it is not rebuilt as a logged message.
WholeLine = Callable[[str], bool]

# ANSI colours: vLLM 0.8-0.11 wrap the "(Worker pid=N)" prefix in them, and 0.34 colours the level, time and
# file when logging to a terminal. Logs pasted into web pages often lose the ESC byte and keep "[1;36m" as text.
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m|\[[0-9][0-9;]*m")
# Substrings without which a line holds no ANSI colour code (with or without its ESC byte).
ANSI_HINTS = ("\x1b[", "[0;", "[1;", "[0m")

# A line-start clock written by the log collector, with a date (and often a zone):
#   kubectl logs --timestamps / docker logs -t: "2026-12-02T17:00:05.123456789Z "
#   docker compose, Portainer: "2026-05-01 20:54:16.988 | "; TorchServe: "2024-09-13T22:26:20,870 "
#   bracketed collectors: "[2025-08-12T08:42:31Z] "
# A stamp alone on its line is kept too: kubectl prints one before each tqdm redraw (the bar follows
# a carriage return, and copies of the log put it on the next line).
# This clock wins over the engine's own (no year, no zone, the container's local time).
COLLECTOR_TIMESTAMP = re.compile(
    r"^\[?(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<clock>\d{2}:\d{2}:\d{2})(?:[.,](?P<fraction>\d+))?"
    r"(?P<zone>Z|[+-]\d{2}:?\d{2})?\]?(?:\s+\|)?(?:\s|$)"
)

# Box drawing that terminal UIs (k9s, lazydocker) put around copied lines.
FRAME_CHARS = " \t\r\n\f\v│┃|"

# Where a record keeps the line, outermost first; a value that is itself a JSON object is opened in turn.
_TEXT_KEYS = ("log", "textPayload", "message", "msg", "MESSAGE")
_PAYLOAD_KEYS = ("jsonPayload", "log_processed")
# A logger's record keeps the message under these (python-json-logger: "message"); a shipper's line under "log".
_LOGGED_KEYS = ("message", "msg")
_SHIPPER_KEYS = ("timestamp", "ingestionTime", "eventId", "id", "logStreamName")
_TIME_KEYS = ("time", "timestamp", "@timestamp")
_LEVEL_KEYS = ("levelname", "level", "severity")
# Envelopes nest (a CloudWatch event holds a Fluent Bit record holding the engine's JSON record); no deeper than this.
_MAX_DEPTH = 4
_RFC3339 = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})[T ](?P<clock>\d{2}:\d{2}:\d{2})(?:[.,](?P<fraction>\d+))?"
    r"(?P<zone>Z|[+-]\d{2}:?\d{2})?$"
)
_LEVELS = {"WARN": "WARNING", "FATAL": "CRITICAL", "ERR": "ERROR"}
# A JSON record behind a process prefix (vLLM's stdout wrapper: "(EngineCore_DP0 pid=7) "), maybe nested.
_PREFIXED_JSON = re.compile(r"^(?P<prefix>(?:\([A-Za-z][^()]* pid=\d+[^()]*\)\s*)+)(?P<json>\{.*\})$")


@dataclass(frozen=True)
class Unwrapped:
    """A line freed of its collector's envelope: the text the engine wrote, the collector's time if it gave one,
    and the time field it gave that is no time (a 400-digit integer, NaN, a negative: its key and value)."""

    line: str
    at: datetime | None
    rejected: tuple[str, object] | None = None


# An epoch time in nanoseconds stays below this until the year 2286; any larger number is no time.
_LATEST_EPOCH = 1e19


def _epoch(value: int | float) -> datetime | None:
    """Seconds, milliseconds, microseconds or nanoseconds since the epoch, told apart by size; None for a number
    that is none of them (negative, not finite, too large for any)."""
    number = bounded(value, _LATEST_EPOCH)
    if number is None:
        return None
    for scale in (1, 1e3, 1e6, 1e9):
        seconds = number / scale
        if seconds < 1e10:
            try:
                return datetime.fromtimestamp(seconds, timezone.utc).replace(tzinfo=None)
            except (OverflowError, OSError, ValueError):
                return None
    return None


def _envelope_time(record: dict[str, object]) -> tuple[datetime | None, tuple[str, object] | None]:
    """The record's time, and its time field when that holds a number that is no time."""
    for key in _TIME_KEYS:
        value = record.get(key)
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float):
            at = _epoch(value)
            return at, (None if at is not None else (key, value))
        if isinstance(value, str):
            found = _RFC3339.match(value.strip())
            if found:
                return collector_time(found), None
    return None, None


def _is_shipped(record: dict[str, object], depth: int) -> bool:
    """A shipper's event around a whole line (a CloudWatch Logs event: "timestamp", "message", ids) rather than
    a logger's record of one message."""
    return depth == 0 and not any(k in record for k in _LEVEL_KEYS) and any(k in record for k in _SHIPPER_KEYS)


def _parse(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than Python's stack
        return None


@dataclass(frozen=True)
class Envelopes:
    """Opens the JSON records around an engine's lines; `whole_line` (the engine's) tells a line that reads
    as written from a logged message whose level and source the record keeps apart."""

    whole_line: WholeLine

    def unwrap_json(self, line: str) -> Unwrapped | None:
        """The engine's line inside a JSON record, or None when `line` is not one (a plain line starting with "{").

        A JSON record may follow a process prefix ("(EngineCore_DP0 pid=7) {"message": ...}"), which vLLM's
        stdout wrapper adds to whatever a subprocess prints.
        """
        if not line.endswith("}"):
            return None
        if line.startswith("{"):
            return self._open(_parse(line), 0)
        prefixed = _PREFIXED_JSON.match(line) if "pid=" in line else None
        if prefixed is None:
            return None
        inner = self._open(_parse(prefixed["json"]), 1)
        return None if inner is None else Unwrapped(prefixed["prefix"] + inner.line, inner.at, inner.rejected)

    def _as_record(self, record: dict[str, object], message: str) -> str:
        """JSON logging (python-json-logger) keeps the message apart from its level and source: put them back
        as a Python logger prints them. A record that names no level is a logged message all the same (INFO)."""
        if self.whole_line(message):
            return message
        named = next((record[k] for k in _LEVEL_KEYS if isinstance(record.get(k), str)), "INFO")
        level = str(named).upper()
        level = _LEVELS.get(level, level)
        source, number = record.get("filename"), record.get("lineno")
        if isinstance(source, str) and isinstance(number, int) and source.endswith(".py"):
            return f"{level} [{source}:{number}] {message}"
        return f"{level}: {message}"

    def _from_text(self, record: dict[str, object], text: str, depth: int, logged: bool) -> Unwrapped | None:
        """The line a record's text holds: itself, a JSON record in it (maybe behind a process prefix)."""
        text = text.rstrip("\r\n")
        if text.startswith("{"):
            nested = _parse(text)
            if nested is not None:
                return self._open(nested, depth + 1)
        prefixed = _PREFIXED_JSON.match(text) if "pid=" in text else None
        if prefixed:
            inner = self._open(_parse(prefixed["json"]), depth + 1)
            if inner is not None:
                return Unwrapped(prefixed["prefix"] + inner.line, inner.at, inner.rejected)
        return Unwrapped(self._as_record(record, text) if logged else text, None)

    def _open(self, record: object, depth: int) -> Unwrapped | None:
        if not isinstance(record, dict) or depth > _MAX_DEPTH:
            return None
        at, rejected = _envelope_time(record)
        inner: Unwrapped | None = None
        key = next((k for k in _TEXT_KEYS if isinstance(record.get(k), str)), None)
        if key is not None:
            logged = key in _LOGGED_KEYS and not _is_shipped(record, depth)
            inner = self._from_text(record, str(record[key]), depth, logged)
        else:
            payload = next((record[k] for k in _PAYLOAD_KEYS if isinstance(record.get(k), dict)), None)
            inner = self._open(payload, depth + 1)
        if inner is None:
            return None
        # The innermost clock is nearest the line (the container runtime's, before any shipping delay).
        return Unwrapped(inner.line, inner.at or at, inner.rejected or rejected)
