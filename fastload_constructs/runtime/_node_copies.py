"""How node-local model copies lie on a node, one folder per revision, and which ones may go.

A helper of model_copy.py and warm_check.py, shipped beside them in the runtime ConfigMap
(standard library only). Each model has a folder of its own under the node's model cache,
`<models root>/revisions/<16 hex of its URI>/` (the server mounts that folder alone, read-only):

  <revision>-<16 hex of the manifest's SHA-256>/   one complete copy, never written again once complete
  .partial-<copy>-<8 hex>/                        a copy being made, by the holder of the model's lock
  .leases/<copy>/<pod>                            when that pod last chose that copy

and the model's lock beside the folder, `<models root>/revisions/.<16 hex>.lock`. <revision> is
the revision the pod resolved (`unversioned` for a flat stage). A copy is found by its revision
and content; once complete, only collection removes it, and a damaged one loses only its own
marker. Each pod gets a link of its own to the copy it chose, in its in-memory volume: the
server's model path, which no other pod can switch.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import shutil
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

if __package__:
    from fastload_constructs.runtime import _files
else:  # a file of the pod's ConfigMap folder, with no fastload install: its helpers lie beside it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _files  # type: ignore[no-redef]

LOG = logging.getLogger("fastload.runtime")

# Marker written last into a node-local model copy: its presence means complete.
COMPLETE_MARKER = ".fastload-complete"
LEASES_DIR = ".leases"
PARTIAL_PREFIX = ".partial-"


def copy_name(revision: str, manifest: bytes) -> str:
    """`<revision>-<16 hex of the manifest's SHA-256>`: one copy per revision and content."""
    return f"{revision}-{hashlib.sha256(manifest).hexdigest()[:16]}"


def lock_path(model_dir: Path) -> Path:
    """The lock every step holds while it copies into, checks or collects `model_dir`."""
    return model_dir.parent / f".{model_dir.name}.lock"


def is_complete(copy: Path) -> bool:
    return (copy / COMPLETE_MARKER).is_file()


def complete_copies(model_dir: Path, revision: str | None = None) -> list[Path]:
    """The model's complete copies (of `revision` only, if given), the one a pod chose last first."""
    try:
        found = [
            p
            for p in model_dir.iterdir()
            if not p.name.startswith(".") and is_complete(p) and (revision is None or p.name.startswith(f"{revision}-"))
        ]
    except OSError:
        return []
    return sorted(found, key=lambda p: last_used(model_dir, p.name), reverse=True)


def lease(model_dir: Path, copy: str) -> None:
    """Record that a pod on this node is about to read `copy` (its last lease keeps it from removal)."""
    leases = model_dir / LEASES_DIR / copy
    leases.mkdir(parents=True, exist_ok=True)
    (leases / (os.environ.get("HOSTNAME") or "pod")).write_text(str(time.time()))


def last_used(model_dir: Path, copy: str) -> float:
    """The latest lease, or when the copy was completed: a copy no pod leased yet is new, not unused since 1970."""
    completed = 0.0
    with contextlib.suppress(OSError):
        completed = (model_dir / copy / COMPLETE_MARKER).stat().st_mtime
    try:
        return max([completed, *(p.stat().st_mtime for p in (model_dir / LEASES_DIR / copy).iterdir())])
    except OSError:
        return completed


def point(link: Path, copy: Path) -> None:
    """Make `link` a symlink to `copy` (as this container names it), atomically: a reader sees no half link."""
    link.parent.mkdir(parents=True, exist_ok=True)
    tmp = link.with_name(f".{link.name}.link-{uuid.uuid4().hex[:8]}")
    os.symlink(str(copy), tmp)
    os.replace(tmp, link)


@contextlib.contextmanager
def _model_lock_if_free(model_dir: Path, own: str | None) -> Iterator[bool]:
    """Hold the lock of `model_dir` (not waiting); yield whether it is held.

    A copier holds its model's lock from a copy's start through its completion, its lease and the
    pod's link, so a collector holding that lock never removes a copy in between. The caller's own
    model (`own`) is already locked by the caller.
    """
    if model_dir.name == own:
        yield True
        return
    try:
        handle = open(lock_path(model_dir), "a")  # noqa: SIM115 - held for the block
    except OSError:
        yield False
        return
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        yield False
        return
    try:
        yield True
    finally:
        handle.close()


def _tree_bytes(path: Path, seen: set[tuple[int, int]]) -> int:
    """Bytes under `path`, each file once however many copies hard-link it."""
    total = 0
    for directory, _, names in os.walk(path):
        for name in names:
            with contextlib.suppress(OSError):
                info = os.lstat(os.path.join(directory, name))
                if (info.st_dev, info.st_ino) not in seen:
                    seen.add((info.st_dev, info.st_ino))
                    total += info.st_size
    return total


def _collect_model(model_dir: Path, now: float, grace_s: float, own: str | None, seen: set[tuple[int, int]]) -> int:
    """Remove the model's copies that no pod leased within the grace, except the one a pod chose last;
    return the bytes kept. Decided and removed under the model's lock, or not at all."""
    with _model_lock_if_free(model_dir, own) as locked:
        entries = sorted(p for p in model_dir.iterdir() if p.name != LEASES_DIR)
        if not locked:  # its copier is at work: everything stays
            return sum(_tree_bytes(p, seen) for p in entries)
        copies = [p for p in entries if not p.name.startswith(".")]
        kept = sum(_tree_bytes(p, seen) for p in entries if p.name.startswith("."))
        newest = max(copies, key=lambda p: last_used(model_dir, p.name), default=None)
        for copy in copies:
            if copy == newest or now - last_used(model_dir, copy.name) < grace_s:
                kept += _tree_bytes(copy, seen)
                continue
            left = _files.remove_tree(copy)
            if left:
                LOG.warning("could not remove old model copy %s: %s", copy, left[0])
                kept += _tree_bytes(copy, seen)
                continue
            _files.remove_tree(model_dir / LEASES_DIR / copy.name)
            LOG.info("removed old model copy %s", copy)
        _drop_orphan_leases(model_dir)
    return kept


def _drop_orphan_leases(model_dir: Path) -> None:
    """Leases of copies that are gone (a copy collected while a pod chose it, then made again under a new name)."""
    leases = model_dir / LEASES_DIR
    for held in leases.iterdir() if leases.is_dir() else []:
        if not (model_dir / held.name).exists():
            _files.remove_tree(held)


def collect_copies(
    root: Path, *, lease_grace_s: float, budget_bytes: int, need_bytes: int = 0, own: str | None = None
) -> tuple[bool, str]:
    """Remove every model's copies that no pod uses any more; say whether `need_bytes` more fit.

    A copy stays while a pod leased it within `lease_grace_s` and while it is the one its model's
    pods chose last. Fits means: the copies left plus `need_bytes` stay within `budget_bytes`, and
    the disk has `need_bytes` free. `own` is the model folder the caller holds the lock of.
    """
    now = time.time()
    seen: set[tuple[int, int]] = set()
    models = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")) if root.is_dir() else []
    kept = sum(_collect_model(model, now, lease_grace_s, own, seen) for model in models)
    free = shutil.disk_usage(root).free
    if kept + need_bytes > budget_bytes:
        return False, f"copies in use take {kept} bytes; {need_bytes} more exceed the budget of {budget_bytes}"
    if need_bytes > free:
        return False, f"{need_bytes} bytes needed, {free} free on {root}"
    return True, ""
