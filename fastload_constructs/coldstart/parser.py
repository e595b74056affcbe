"""A start-up log -> its `ColdStartReport`: tell which engine wrote it, and hand the lines to that engine's parser.

Each engine folder (`vllm/`, `sglang/`) says how to recognise its own lines (`EngineLog.recognises`) and
reads them into the same report. Detection reads ahead until a line is one engine's (at most
`DETECT_LINES`) and hands every line on, the ones read included, so a log is still read once and streamed.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from datetime import datetime
from itertools import chain
from typing import IO

from fastload_constructs.coldstart.engine_log import EngineLog
from fastload_constructs.coldstart.lines import MAX_LINE_CHARS, iter_text_lines
from fastload_constructs.coldstart.report import ColdStartReport
from fastload_constructs.coldstart.sglang.assemble import LOG as SGLANG
from fastload_constructs.coldstart.vllm.assemble import LOG as VLLM

# The engines whose logs are read, most specific first: the first that recognises a line wins.
ENGINES: tuple[EngineLog, ...] = (SGLANG, VLLM)
# A log no line of which names its engine (an excerpt) is read as this engine's.
DEFAULT = VLLM
# How many lines detection reads before it settles on DEFAULT.
DETECT_LINES = 2000


def detect(lines: Iterable[str]) -> tuple[EngineLog, Iterator[str]]:
    """The engine that wrote `lines`, and the same lines (the ones read ahead included)."""
    it = iter(lines)
    seen: list[str] = []
    for line in it:
        seen.append(line)
        text = line[:MAX_LINE_CHARS]
        engine = next((e for e in ENGINES if e.recognises(text)), None)
        if engine is not None:
            return engine, chain(seen, it)
        if len(seen) >= DETECT_LINES:
            break
    return DEFAULT, chain(seen, it)


def parse_lines(lines: Iterable[str], label: str = "log", started_at: datetime | None = None) -> ColdStartReport:
    """Build the report from lines read one at a time; raises FastloadConfigError when nothing is recognised."""
    engine, lines = detect(lines)
    return engine.parse_lines(lines, label, started_at)


def parse_stream(stream: IO[bytes], label: str = "log", started_at: datetime | None = None) -> ColdStartReport:
    """Build the report from a byte stream (a file opened "rb", stdin's buffer), in bounded memory."""
    return parse_lines(iter_text_lines(stream), label, started_at)


def parse_log(
    text: str | bytes | Iterable[str], label: str = "log", started_at: datetime | None = None
) -> ColdStartReport:
    """Build the report from a whole log (text, bytes or lines); raises FastloadConfigError when none is recognised."""
    if isinstance(text, bytes):
        return parse_stream(io.BytesIO(text), label, started_at)
    if isinstance(text, str):
        return parse_lines(iter(text.splitlines()), label, started_at)
    return parse_lines(text, label, started_at)
