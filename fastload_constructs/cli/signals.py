"""SIGTERM handled as SIGINT is, while a command has clean-up to do.

`kill`, a container runtime stopping a job, or a CI runner's timeout send SIGTERM, whose
default action ends the process at once: `fastload stage` would leave its multipart uploads
open. Inside `terminate_as_interrupt()` SIGTERM raises `Terminated` (a KeyboardInterrupt) in
the main thread instead, so the same path as Ctrl-C runs: readers stop, open uploads are
aborted, and the CLI exits 143 (128 + SIGTERM, the shell's convention).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

EXIT_TERMINATED = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived while a command had clean-up to do."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    del signum, frame
    raise Terminated("terminated (SIGTERM)")


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises Terminated in the main thread (elsewhere, nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
