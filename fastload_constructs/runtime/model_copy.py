"""stage-model: copy a staged model (s3://bucket/prefix) to the node's NVMe once per node and manifest.

An init container of the server pod (`python3 model_copy.py --bucket B --prefix P --dest D`),
run from the runtime ConfigMap with the server image's Python and boto3. With `--revision-dir`
it copies the revision resolve-revision wrote down (revision.py). Failing here fails the init
container: the server would otherwise read a missing path.

Node-local model copies live under <models root>/.copies/<name>-<content hash>;
<models root>/<name> is a relative symlink to the current one.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

if __package__:
    from fastload_constructs.runtime import _files, _manifest, _s3, _step, revision
else:  # a file of the pod's ConfigMap folder, with no fastload install: its helpers lie beside it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _files  # type: ignore[no-redef]
    import _manifest  # type: ignore[no-redef]
    import _s3  # type: ignore[no-redef]
    import _step  # type: ignore[no-redef]
    import revision  # type: ignore[no-redef]

LOG = logging.getLogger("fastload.runtime")
Outcome = _step.Outcome

MANIFEST_NAME = _manifest.MANIFEST_NAME
# Marker written last into a node-local model copy: its presence means complete.
COMPLETE_MARKER = ".fastload-complete"
COPIES_DIR = ".copies"
LEASES_DIR = ".fastload-leases"
DEFAULT_LEASE_GRACE_S = 3600.0
DEFAULT_BUDGET_FRACTION = 0.8
DOWNLOAD_PART = 16 * 1024 * 1024
DOWNLOAD_WORKERS = 8


class Restaged(Exception):
    """The model changed in S3 while it was being copied."""


def _download_verified(
    s3: Any, bucket: str, key: str, path: Path, size: int, sha256: str, part: int, workers: int
) -> None:
    """Ranged GETs in parallel, written and hashed in order as they arrive: one pass, bounded memory.

    Every range after the first is conditional on the first's ETag, so an object replaced
    mid-copy fails the copy (S3 answers 412); the hash catches what a server without
    conditional reads lets through.
    """
    digest = hashlib.sha256()
    with open(path, "xb") as out:
        if size == 0:
            data = _s3.read_object(s3, bucket, key)
            ranges: list[tuple[int, int]] = []
            etag = None
        else:
            ranges = [(start, min(start + part, size) - 1) for start in range(0, size, part)]
            first = _s3.retrying(key, lambda: s3.get_object(Bucket=bucket, Key=key, Range=f"bytes=0-{ranges[0][1]}"))
            total = str(first.get("ContentRange", "")).rpartition("/")[2]
            if total and total != "*" and int(total) != size:
                raise Restaged(f"{key}: {total} bytes in S3, {size} in the manifest")
            etag = first.get("ETag")
            data = _s3.read_range(s3, bucket, key, ranges[0], etag, first)
        if len(data) != (ranges[0][1] + 1 if ranges else len(data)):
            raise Restaged(f"{key}: short read")
        digest.update(data)
        out.write(data)
        if len(ranges) > 1:

            def fetch(r: tuple[int, int]) -> bytes:
                body = _s3.read_range(s3, bucket, key, r, etag, None)
                if len(body) != r[1] - r[0] + 1:
                    raise Restaged(f"{key}: short read at {r[0]}")
                return body

            rest = iter(ranges[1:])
            with ThreadPoolExecutor(workers, thread_name_prefix="fastload-get") as pool:
                pending: collections.deque[Future[bytes]] = collections.deque(
                    pool.submit(fetch, r) for _, r in zip(range(workers * 2), rest, strict=False)
                )
                try:
                    while pending:
                        block = pending.popleft().result()
                        digest.update(block)
                        out.write(block)
                        following = next(rest, None)
                        if following is not None:
                            pending.append(pool.submit(fetch, following))
                except BaseException:
                    for future in pending:
                        future.cancel()
                    raise
    if digest.hexdigest() != sha256:
        raise Restaged(f"{key}: sha256 differs from the manifest")


def _lease(copy: Path) -> None:
    """Record that a pod on this node is about to read `copy` (its last lease keeps it from removal)."""
    leases = copy / LEASES_DIR
    leases.mkdir(exist_ok=True)
    (leases / (os.environ.get("HOSTNAME") or "pod")).write_text(str(time.time()))


def _last_used(copy: Path) -> float:
    """The latest lease, or when the copy was completed: a copy no pod leased yet is new, not unused since 1970."""
    completed = 0.0
    with contextlib.suppress(OSError):
        completed = max(copy.stat().st_mtime, (copy / COMPLETE_MARKER).stat().st_mtime)
    try:
        return max([completed, *(p.stat().st_mtime for p in (copy / LEASES_DIR).iterdir())])
    except OSError:
        return completed


# <name>-<16 hex of the manifest's SHA-256> (or a legacy folder adopted as <name>-legacy-<8 hex>).
_COPY_NAME = re.compile(r"^(?P<model>.+)-(?:[0-9a-f]{16}|legacy-[0-9a-f]{8})$")


@contextlib.contextmanager
def _model_lock_if_free(root: Path, copy_name: str, own: str | None) -> Iterator[bool]:
    """Hold the lock of the model that owns `copy_name` (not waiting); yield whether it is held.

    A copier holds its model's lock from the copy's completion through its lease and the switch
    of the model's symlink, so a collector holding that lock never removes a copy in between.
    The caller's own model (`own`) is already locked by the caller.
    """
    match = _COPY_NAME.match(copy_name)
    if match is None or match.group("model") == own:
        yield True
        return
    try:
        handle = open(root / f".{match.group('model')}.lock", "a")  # noqa: SIM115 - held for the block
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


def _tree_bytes(path: Path) -> int:
    total = 0
    for directory, _, names in os.walk(path):
        for name in names:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(directory, name)).st_size
    return total


def _current_copies(root: Path) -> set[str]:
    """Names of the copies some model folder symlink points at now."""
    current = set()
    for entry in root.iterdir():
        if entry.is_symlink():
            target = os.readlink(entry)
            if target.startswith(f"{COPIES_DIR}/"):
                current.add(target[len(COPIES_DIR) + 1 :])
    return current


def collect_copies(
    root: Path, *, lease_grace_s: float, budget_bytes: int, need_bytes: int = 0, own: str | None = None
) -> tuple[bool, str]:
    """Remove copies no model folder points at and no pod leased within the grace; say whether `need_bytes` fit.

    Fits means: the copies left plus `need_bytes` stay within `budget_bytes`, and the disk has
    `need_bytes` free. A copy in use (current, or leased recently) is never removed.
    """
    copies = root / COPIES_DIR
    now = time.time()
    kept = 0
    for copy in sorted(copies.iterdir()) if copies.is_dir() else []:
        if copy.name.startswith("."):
            kept += _tree_bytes(copy)  # a partial copy of another model, owned by its lock holder
            continue
        with _model_lock_if_free(root, copy.name, own) as locked:
            # Decided and removed under the owner's lock: its copier cannot be completing, leasing or switching it.
            if not locked or copy.name in _current_copies(root) or now - _last_used(copy) < lease_grace_s:
                kept += _tree_bytes(copy)
                continue
            left = _files.remove_tree(copy)
        if left:
            LOG.warning("could not remove old model copy %s: %s", copy, left[0])
            kept += _tree_bytes(copy)
        else:
            LOG.info("removed old model copy %s", copy)
    free = shutil.disk_usage(root).free
    if kept + need_bytes > budget_bytes:
        return False, f"copies in use take {kept} bytes; {need_bytes} more exceed the budget of {budget_bytes}"
    if need_bytes > free:
        return False, f"{need_bytes} bytes needed, {free} free on {root}"
    return True, ""


def _point(dest: Path, copy: Path) -> None:
    """Make `dest` a relative symlink to `copy`, atomically (a reader sees the old or the new copy)."""
    link = dest.with_name(f".{dest.name}.link-{uuid.uuid4().hex[:8]}")
    os.symlink(f"{COPIES_DIR}/{copy.name}", link)
    os.replace(link, dest)


def _adopt_legacy(dest: Path, copies: Path) -> None:
    """A real folder at `dest` (the layout before content-keyed copies) becomes an old copy, leased now."""
    if dest.is_dir() and not dest.is_symlink():
        moved = copies / f"{dest.name}-legacy-{uuid.uuid4().hex[:8]}"
        os.replace(dest, moved)
        _lease(moved)


def copy_model_to_node(
    s3: Any,
    *,
    bucket: str,
    prefix: str,
    dest: Path,
    verify_sha256: bool = True,
    budget_bytes: int | None = None,
    lease_grace_s: float = DEFAULT_LEASE_GRACE_S,
    attempts: int = 3,
    part_size: int = DOWNLOAD_PART,
    workers: int = DOWNLOAD_WORKERS,
) -> _step.Outcome:
    """Make `dest` the node-local copy of the model staged at s3://bucket/prefix, copying it once per content.

    Copies are keyed by the SHA-256 of the manifest, which lists every file's hash: a restage
    makes a new copy (files whose hash did not change are hard-linked from the old one). Each
    file is verified while it downloads (always: `verify_sha256` is kept for old callers), and
    the manifest is read again at the end; a copy that met a restage is thrown away and retried,
    never marked complete. `dest` is a symlink switched atomically to the complete copy. Old
    copies go once nothing points at them and no pod leased them for `lease_grace_s`, and copies
    stay within `budget_bytes` (default 80% of the filesystem).
    """
    del verify_sha256
    root = dest.parent
    copies = root / COPIES_DIR
    try:
        copies.mkdir(parents=True, exist_ok=True)
        budget = (
            budget_bytes if budget_bytes is not None else int(shutil.disk_usage(root).total * DEFAULT_BUDGET_FRACTION)
        )
        with _files.FileLock(root / f".{dest.name}.lock", timeout_s=24 * 3600):
            _adopt_legacy(dest, copies)
            last = ""
            for _ in range(attempts):
                try:
                    return _stage_once(s3, bucket, prefix, dest, budget, lease_grace_s, part_size, workers)
                except Restaged as exc:
                    last = str(exc)
                    LOG.warning("stage-model: %s; copying again", exc)
            return Outcome("error", f"the model changed in S3 during {attempts} copies ({last}); not marked complete")
    except Exception as exc:
        return Outcome("error", f"{type(exc).__name__}: {exc}")


def _stage_once(
    s3: Any, bucket: str, prefix: str, dest: Path, budget: int, grace: float, part: int, workers: int
) -> _step.Outcome:
    base = prefix.strip("/")
    manifest_key = f"{base}/{MANIFEST_NAME}"
    before = _s3.read_object(s3, bucket, manifest_key)
    try:
        files = _manifest.manifest_files(before)
    except ValueError as exc:
        return Outcome("error", str(exc))
    content = hashlib.sha256(before).hexdigest()[:16]
    copies = dest.parent / COPIES_DIR
    copy = copies / f"{dest.name}-{content}"
    if (copy / COMPLETE_MARKER).exists():
        _switch(dest, copy, grace, budget)
        return Outcome("present", f"{dest} -> {copy.name}")
    for leftover in copies.glob(f".{dest.name}-*.partial-*"):  # we hold this model's lock: a killed copy's
        _files.remove_tree(leftover)
    if copy.exists():
        _files.remove_tree(copy)
    previous = _previous_files(dest)
    need = sum(size for _, name, size, sha in files if previous.get(name) != sha)
    fits, why = collect_copies(dest.parent, lease_grace_s=grace, budget_bytes=budget, need_bytes=need, own=dest.name)
    if not fits:
        return Outcome("error", f"no room for the model copy: {why}")
    partial = copies / f".{dest.name}-{content}.partial-{uuid.uuid4().hex[:8]}"
    partial.mkdir()
    try:
        refused = _fill(s3, bucket, base, before, files, previous, dest, partial, part, workers)
        if refused is not None:
            return refused
        after = _s3.read_object(s3, bucket, manifest_key)
        if after != before:
            raise Restaged("the manifest changed while the files were copied")
        (partial / MANIFEST_NAME).write_bytes(before)
        (partial / COMPLETE_MARKER).write_text(json.dumps({"source": f"s3://{bucket}/{base}", "content": content}))
        _lease(partial)  # leased before it is complete: never a copy with no lease
        os.replace(partial, copy)
    finally:
        if partial.exists():
            _files.remove_tree(partial)
    _switch(dest, copy, grace, budget)
    return Outcome("staged", f"s3://{bucket}/{base} -> {dest} -> {copy.name}")


def _fill(
    s3: Any,
    bucket: str,
    base: str,
    manifest: bytes,
    files: list[tuple[Path, str, int, str]],
    previous: dict[str, str],
    dest: Path,
    partial: Path,
    part: int,
    workers: int,
) -> _step.Outcome | None:
    """Put every listed file into `partial`: hard-linked from the current copy when unchanged, else downloaded.

    Raises Restaged when the manifest changed meanwhile; an error Outcome when an object is corrupt or
    was replaced under an unchanged manifest (copying again would meet the same bytes)."""
    for relative, name, size, sha in files:
        local = partial / relative
        local.parent.mkdir(parents=True, exist_ok=True)
        if previous.get(name) == sha and _link(dest / relative, local, size):
            continue
        try:
            _download_verified(s3, bucket, f"{base}/{name}", local, size, sha, part, workers)
        except Exception as exc:
            if not isinstance(exc, Restaged) and _s3.error_code(exc) not in ("412", "PreconditionFailed", "NoSuchKey"):
                raise
            if _s3.read_object(s3, bucket, f"{base}/{MANIFEST_NAME}") != manifest:
                raise Restaged(f"the model was restaged while {name} was copied") from exc
            return Outcome("error", f"{exc}; the manifest is unchanged, so the object is corrupt or was replaced")
    return None


def _switch(dest: Path, copy: Path, grace: float, budget: int) -> None:
    """Lease `copy`, point `dest` at it and collect what no pod uses any more."""
    _lease(copy)
    _point(dest, copy)
    _check_pointed(dest, copy)
    collect_copies(dest.parent, lease_grace_s=grace, budget_bytes=budget, own=dest.name)


def _check_pointed(dest: Path, copy: Path) -> None:
    """`dest` must lead to a complete copy once pointed: a copy collected meanwhile is copied again, never reported."""
    if not (dest / COMPLETE_MARKER).is_file() or not (copy / COMPLETE_MARKER).is_file():
        raise Restaged(f"{copy.name} was removed while it was being switched to")


def _previous_files(dest: Path) -> dict[str, str]:
    """name -> sha256 of the complete copy `dest` points at now (for hard-linking unchanged files)."""
    try:
        if not (dest / COMPLETE_MARKER).exists():
            return {}
        return {name: sha for _, name, _, sha in _manifest.manifest_files((dest / MANIFEST_NAME).read_bytes())}
    except (OSError, ValueError):
        return {}


def _link(existing: Path, new: Path, size: int) -> bool:
    try:
        if existing.stat().st_size != size:
            return False
        os.link(existing, new)
        return True
    except OSError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="model_copy", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--bucket", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--dest", type=Path, required=True, help="node-local model folder")
    parser.add_argument("--verify-sha256", action="store_true", help="kept for old manifests: every copy is verified")
    parser.add_argument("--budget-gib", type=float, help="model copies on this node stay within this")
    parser.add_argument(
        "--lease-grace-s", type=float, default=DEFAULT_LEASE_GRACE_S, help="keep a used old copy this long"
    )
    parser.add_argument("--endpoint-url", default=os.environ.get("AWS_ENDPOINT_URL"))
    parser.add_argument("--revision-dir", type=Path, help="what resolve-revision wrote: copy that revision")
    args = parser.parse_args(argv)
    _step.start_step()
    try:
        if args.revision_dir is not None:
            args.bucket, args.prefix, _ = revision.read_resolved(args.revision_dir)
        budget = int(args.budget_gib * 1024**3) if args.budget_gib else None
        outcome = copy_model_to_node(
            _s3.client(args.endpoint_url),
            bucket=args.bucket,
            prefix=args.prefix,
            dest=args.dest,
            budget_bytes=budget,
            lease_grace_s=args.lease_grace_s,
        )
    except Exception as exc:  # e.g. no boto3, no region: one line, and the init container fails
        outcome = Outcome("error", f"{type(exc).__name__}: {exc}")
    _step.report("stage-model", outcome)
    return 1 if outcome.status == "error" else 0


if __name__ == "__main__":
    sys.exit(main())
