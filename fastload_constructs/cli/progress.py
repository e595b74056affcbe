"""Progress bars on a terminal only, and tqdm imported only when one is drawn.

Piped or redirected stderr gets no bar, so it carries the one-line error alone;
a run that draws none does not pay tqdm's import (about 30 ms, most of it
reading package metadata) at start-up.
"""

from __future__ import annotations

import sys
from typing import Any


class _NoBar:
    """What a bar offers the commands (update, reset, close, a context), doing nothing."""

    def update(self, n: int = 1) -> None:
        pass

    def reset(self, total: int | None = None) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def progress_bar(desc: str, *, enabled: bool = True, leave: bool = True) -> Any:
    """A byte-counting tqdm bar on stderr when `enabled` and stderr is a terminal, else a bar that draws nothing."""
    if not enabled or not sys.stderr.isatty():
        return _NoBar()
    from tqdm import tqdm

    return tqdm(desc=desc, unit="B", unit_scale=True, leave=leave)
