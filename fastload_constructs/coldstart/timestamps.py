"""The clocks a start-up log is timed by: the engine's year-less "MM-DD HH:MM:SS", a collector's RFC 3339
stamp, and a container's start time as a user types it."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

from fastload_constructs.core.errors import FastloadConfigError

# "%m-%d %H:%M:%S" has no year; a leap year lets "02-29" parse.
_BASE_YEAR = 2000
_MONTH_DAY_CLOCK = re.compile(r"^(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$")


def parse_time(text: str, previous: datetime | None) -> datetime:
    """Read "MM-DD HH:MM:SS" in the year of `previous`, moving on a year when the clock wraps past New Year."""
    year = previous.year if previous is not None else _BASE_YEAR
    found = _MONTH_DAY_CLOCK.match(text)
    if found is None:
        raise ValueError(f"not MM-DD HH:MM:SS: {text!r}")
    month, day, hour, minute, second = (int(g) for g in found.groups())
    try:
        at = datetime(year, month, day, hour, minute, second)
    except ValueError:  # 02-29 outside a leap year
        at = datetime(_BASE_YEAR, month, day, hour, minute, second)
    if previous is not None:
        if previous - at > timedelta(days=180):
            at = _with_year(at, at.year + 1)
        elif at - previous > timedelta(days=180):
            at = _with_year(at, at.year - 1)
    return at


def _with_year(moment: datetime, year: int) -> datetime:
    try:
        return moment.replace(year=year)
    except ValueError:  # 02-29
        return moment.replace(year=year, day=28)


def nearest_year(moment: datetime, anchor: datetime) -> datetime:
    """`moment` moved to the year that puts it closest to `anchor` (a year-less clock carries none)."""
    candidates = []
    for year in (anchor.year - 1, anchor.year, anchor.year + 1):
        try:
            candidates.append(moment.replace(year=year))
        except ValueError:  # 02-29 outside a leap year
            continue
    return min(candidates, key=lambda c: abs(c - anchor))


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


def parse_started_at(text: str) -> datetime:
    """A container start time: "MM-DD HH:MM:SS" (as vLLM prints) or ISO 8601 (as Kubernetes does), as naive UTC."""
    value = text.strip()
    try:
        return parse_time(value, None)
    except ValueError:
        pass
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise FastloadConfigError(
            "started_at", text, 'a time as "MM-DD HH:MM:SS" or ISO 8601, e.g. 2026-12-02T17:00:00Z'
        ) from None
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(timezone.utc).replace(tzinfo=None)
    return parsed
