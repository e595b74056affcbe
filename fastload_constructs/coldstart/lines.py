"""A log read as lines in bounded memory: however long a line or a file, one line is held at a time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

# Longer lines are cut here (a 200 MB line without a newline must not be held whole).
MAX_LINE_CHARS = 64 * 1024
# A line kept as evidence (or as a failure's text) is cut here.
EVIDENCE_CHARS = 400


def iter_text_lines(stream: IO[bytes]) -> Iterator[str]:
    """Decode a byte stream line by line (invalid UTF-8 replaced, never raised), holding one line at a time.

    A line longer than MAX_LINE_CHARS is cut there and the rest of it skipped.
    """
    limit = MAX_LINE_CHARS * 4  # bytes: a UTF-8 character is at most 4
    while True:
        piece = stream.readline(limit)
        if not piece:
            return
        if not piece.endswith(b"\n") and len(piece) >= limit:
            while True:  # skip the rest of an over-long line
                rest = stream.readline(limit)
                if not rest or rest.endswith(b"\n"):
                    break
        yield piece.decode("utf-8", errors="replace")
