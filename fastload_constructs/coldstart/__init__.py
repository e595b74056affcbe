"""Cold-start reports from vLLM server logs: which start-up phase took the time.

`patterns` holds the log-line regexes (with the vLLM release each came from),
`scanner` reads log lines (streamed) into a `records.Timeline`, `phases/` works out
one start-up phase per module, `parser` puts them into a `ColdStartReport` (the entry
points), `render` prints tables and JSON, `plot` draws stacked bars (imports
matplotlib), `kubectl` reads pod logs.
"""

from fastload_constructs.coldstart.parser import (
    PHASE_ORDER,
    ColdStartReport,
    Evidence,
    Phase,
    WeightLoad,
    parse_lines,
    parse_log,
    parse_started_at,
    parse_stream,
)
from fastload_constructs.coldstart.render import render_table, report_as_dict

__all__ = [
    "PHASE_ORDER",
    "ColdStartReport",
    "Evidence",
    "Phase",
    "WeightLoad",
    "parse_lines",
    "parse_log",
    "parse_started_at",
    "parse_stream",
    "render_table",
    "report_as_dict",
]
