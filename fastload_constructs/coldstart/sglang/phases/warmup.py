"""warmup: the HTTP server up -> "The server is fired up and ready to roll!".

Once uvicorn is up, SGLang's warmup thread waits for /get_model_info and sends one generate request
(http_server.py `_execute_server_warmup`); only when it returns does the server say it is ready. The
first prefill JIT-compiles what the capture did not (DeepGEMM's "Try DeepGEMM JIT Compiling", FlashInfer),
which on a cold JIT cache takes minutes. The warm-up starts at the first sign of it after the engine's
last step: the HTTP server up, a "Start of ... warmup" line, or a JIT compile once the capture is over.
"""

from __future__ import annotations

from fastload_constructs.coldstart.report import Evidence
from fastload_constructs.coldstart.sglang.phases.server import EngineDone
from fastload_constructs.coldstart.sglang.phases.start import Readiness
from fastload_constructs.coldstart.sglang.scanner import Event, Scan

_SIGNS = ("http_up", "warmup_begin", "jit")


def capturing(scan: Scan) -> bool:
    """A capture began (its line, or its progress bar) and has not ended: a JIT compile now is the capture's."""
    begins = [e.line_number for e in scan.of("capture_begin")] + [scan.capture_bar_line] * bool(scan.capture_bar_line)
    ends = [e.line_number for e in scan.of("capture_end")]
    return bool(begins) and max(begins) > max(ends, default=0)


def warmup_from(scan: Scan, ready: Readiness, done: EngineDone | None) -> Event | None:
    """The first sign of the warm-up after the engine's last step; None when the log shows none (or a capture
    is still running: a JIT compile then is the capture's)."""
    if capturing(scan):
        return None
    # A JIT compile is the warm-up's only once the engine is known to be done (an excerpt of JIT lines alone
    # may be inside a capture it does not show); the HTTP server up, or a warmup line, always is (after the
    # engine's last step when the log shows one).
    signs = [
        e for e in scan.of(*_SIGNS) if (done is None and e.kind != "jit") or (done is not None and e.at >= done.at)
    ]
    return min(signs, key=lambda e: (e.at, e.line_number)) if signs else None


def warmup(ready: Readiness, began: Event | None) -> tuple[float | None, list[Evidence]]:
    """Its sign -> ready; for a start that never got ready, -> the log's last line (it died warming up)."""
    if began is None:
        return None, []
    evidence = [Evidence("warmup", began.line_number, began.text, "warm-up begins")]
    if ready.line is not None:
        evidence.append(Evidence("warmup", ready.line.line_number, ready.line.text, "server ready"))
    return max(0.0, (ready.end - began.at).total_seconds()), evidence
