"""How one engine's logs are told apart and read: what each engine folder hands the entry (`parser.py`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from fastload_constructs.coldstart.report import ColdStartReport


@dataclass(frozen=True)
class EngineLog:
    """An engine's log reader: its name (and as users spell it), a test that one line is this engine's, the
    parser of its lines, and the line it prints once a server is ready (what reports and timelines quote)."""

    name: str
    title: str
    recognises: Callable[[str], bool]
    parse_lines: Callable[[Iterable[str], str, datetime | None], ColdStartReport]
    ready_line: str
