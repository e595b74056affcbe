"""Node folders the in-pod steps share with other pods: a lock with a deadline, and removal that reports.

A helper of the in-pod scripts, shipped beside them in the runtime ConfigMap (standard library only).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import stat
import time
from pathlib import Path
from typing import IO


class FileLock:
    """An exclusive flock taken by polling until a deadline (a hung holder must not hang the pod)."""

    def __init__(self, path: Path, timeout_s: float) -> None:
        self.path, self.timeout_s = path, timeout_s
        self.handle: IO[str] | None = None

    def __enter__(self) -> FileLock:
        self.handle = open(self.path, "a")  # held until __exit__
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except BlockingIOError:
                if time.monotonic() > deadline:
                    self.handle.close()
                    raise TimeoutError(f"{self.path} held by another process for over {self.timeout_s:.0f} s") from None
                time.sleep(0.2)

    def __exit__(self, *exc: object) -> None:
        assert self.handle is not None
        self.handle.close()


def repair_permissions(path: Path) -> list[str]:
    """Give the owner rwx on directories and rw on files we own under `path`; return what could not be fixed."""
    problems: list[str] = []
    if not path.exists():
        return problems
    for directory, dirs, names in os.walk(path, onerror=lambda e: problems.append(str(e))):
        for name in [*dirs, *names]:
            entry = Path(directory, name)
            try:
                info = entry.lstat()
                if stat.S_ISLNK(info.st_mode):
                    continue
                want = 0o700 if stat.S_ISDIR(info.st_mode) else 0o600
                if info.st_mode & want != want:
                    os.chmod(entry, stat.S_IMODE(info.st_mode) | want)
            except OSError as exc:
                problems.append(f"{entry}: {exc.strerror or exc}")
    return problems


def remove_tree(path: Path) -> list[str]:
    """rmtree that first repairs what it can and reports what it could not remove."""
    problems: list[str] = []
    if not path.exists() and not path.is_symlink():
        return problems
    if path.is_symlink() or path.is_file():
        try:
            path.unlink()
        except OSError as exc:
            problems.append(f"{path}: {exc.strerror or exc}")
        return problems
    with contextlib.suppress(OSError):
        os.chmod(path, stat.S_IMODE(path.stat().st_mode) | 0o700)
    problems += repair_permissions(path)
    shutil.rmtree(path, onerror=lambda _f, p, e: problems.append(f"{p}: {getattr(e[1], 'strerror', e[1])}"))
    return problems
