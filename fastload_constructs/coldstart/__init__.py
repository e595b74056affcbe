"""Cold-start reports from inference-engine logs: which start-up phase took the time.

`parser` tells which engine wrote a log and hands its lines to that engine's folder (`vllm/`,
`sglang/`: patterns -> scanner -> phases/* -> assemble), which builds a `report.ColdStartReport`.
Shared by both: `forms` (collector prefixes, JSON envelopes), `timestamps`, `lines` (bounded reading),
`streamer` (the Run:ai streamer's summary). `render` prints tables and JSON, `plot` draws stacked bars
(imports matplotlib), `kubectl` reads pod logs. `events`, `timeline` and `diagnose` read Kubernetes
events into a scale-out timeline and a pod's blocking reason.
"""

from fastload_constructs.coldstart.parser import parse_lines, parse_log, parse_stream
from fastload_constructs.coldstart.render import render_table, report_as_dict
from fastload_constructs.coldstart.report import PHASE_ORDER, ColdStartReport, Evidence, Phase, WeightLoad
from fastload_constructs.coldstart.timestamps import parse_started_at

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
