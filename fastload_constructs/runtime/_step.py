"""What every in-pod step shares: its outcome, its log line, and SIGTERM ending it through `finally` blocks.

A helper of the in-pod scripts, shipped beside them in the runtime ConfigMap (standard library only).
"""

from __future__ import annotations

import contextlib
import logging
import signal
from dataclasses import dataclass
from typing import Any

LOG = logging.getLogger("fastload.runtime")
# Outcomes logged as warnings: the pod starts colder than it could (or, for stage-model, not at all).
_WARNED = ("corrupt", "error", "miss")


@dataclass(frozen=True)
class Outcome:
    """What a sync step did, for the log line and the tests."""

    status: str  # restored | miss | corrupt | present | published | exists | staged | error
    detail: str = ""


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    del frame
    raise SystemExit(128 + signum)


def start_step() -> None:
    """Set up a step's process: SIGTERM ends it as SystemExit, and its log lines share one format.

    The kubelet stops a pod's containers with SIGTERM, whose default ends Python at once: as
    SystemExit, `finally` blocks run, so a publish deletes its temporary archive and aborts its upload.
    """
    with contextlib.suppress(ValueError):  # not the main thread (tests calling main from a thread)
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s fastload-cache %(message)s")


def report(command: str, outcome: Outcome) -> None:
    """One line per step: `<command> <status>: <detail>`."""
    level = logging.WARNING if outcome.status in _WARNED else logging.INFO
    LOG.log(level, "%s %s: %s", command, outcome.status, outcome.detail)
