"""stage-model: copy the revision this pod resolved to the node's NVMe, once per node, and point the pod at it.

An init container of the server pod (`python3 model_copy.py --bucket B --prefix P --dest D --link L`),
run from the runtime ConfigMap with the server image's Python and boto3. With `--revision-dir` it
copies the revision resolve-revision wrote down (revision.py); without, the URI as given. The copy
lies in the model's folder `--dest` by revision and content (_node_copies.py), and `--link`, in the
pod's own in-memory volume, is made to point at it: the server's model path. Failing here fails the
init container: the server would otherwise read a missing path.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import logging
import os
import shutil
import sys
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

if __package__:
    from fastload_constructs.runtime import _files, _manifest, _node_copies, _s3, _step, revision
else:  # a file of the pod's ConfigMap folder, with no fastload install: its helpers lie beside it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _files  # type: ignore[no-redef]
    import _manifest  # type: ignore[no-redef]
    import _node_copies  # type: ignore[no-redef]
    import _s3  # type: ignore[no-redef]
    import _step  # type: ignore[no-redef]
    import revision  # type: ignore[no-redef]

LOG = logging.getLogger("fastload.runtime")
Outcome = _step.Outcome

MANIFEST_NAME = _manifest.MANIFEST_NAME
COMPLETE_MARKER = _node_copies.COMPLETE_MARKER
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


def copy_model_to_node(
    s3: Any,
    *,
    bucket: str,
    prefix: str,
    dest: Path,
    revision_id: str = revision.UNVERSIONED,
    link: Path | None = None,
    verify_sha256: bool = True,
    budget_bytes: int | None = None,
    lease_grace_s: float = DEFAULT_LEASE_GRACE_S,
    attempts: int = 3,
    part_size: int = DOWNLOAD_PART,
    workers: int = DOWNLOAD_WORKERS,
) -> _step.Outcome:
    """Make sure the node holds a complete copy of the model staged at s3://bucket/prefix, and point `link` at it.

    `dest` is the model's folder of copies, `revision_id` the revision the prefix holds. A copy is
    made once per revision and content (the manifest lists every file's hash); files another copy
    of the model already holds with the same hash are hard-linked from it. Each file is verified
    while it downloads (always: `verify_sha256` is kept for old callers), and the manifest is read
    again at the end; a copy that met a restage is thrown away and retried, never marked complete.
    Copies no pod leased for `lease_grace_s` go (but each model's last chosen one), and copies stay
    within `budget_bytes` (default 80% of the filesystem).
    """
    del verify_sha256
    root = dest.parent
    try:
        dest.mkdir(parents=True, exist_ok=True)
        budget = (
            budget_bytes if budget_bytes is not None else int(shutil.disk_usage(root).total * DEFAULT_BUDGET_FRACTION)
        )
        step = _Copy(s3, bucket, prefix.strip("/"), dest, revision_id, link, budget, lease_grace_s, part_size, workers)
        with _files.FileLock(_node_copies.lock_path(dest), timeout_s=24 * 3600):
            last = ""
            for _ in range(attempts):
                try:
                    return step.once()
                except Restaged as exc:
                    last = str(exc)
                    LOG.warning("stage-model: %s; copying again", exc)
            return Outcome("error", f"the model changed in S3 during {attempts} copies ({last}); not marked complete")
    except Exception as exc:
        return Outcome("error", f"{type(exc).__name__}: {exc}")


class _Copy:
    """One model's copy to one node, under the model's lock."""

    def __init__(
        self,
        s3: Any,
        bucket: str,
        base: str,
        dest: Path,
        revision_id: str,
        link: Path | None,
        budget: int,
        grace: float,
        part: int,
        workers: int,
    ) -> None:
        self.s3, self.bucket, self.base, self.dest, self.revision_id = s3, bucket, base, dest, revision_id
        self.link, self.budget, self.grace, self.part, self.workers = link, budget, grace, part, workers
        self.manifest_key = f"{base}/{MANIFEST_NAME}"

    def once(self) -> _step.Outcome:
        before = _s3.read_object(self.s3, self.bucket, self.manifest_key)
        try:
            files = _manifest.manifest_files(before)
        except ValueError as exc:
            return Outcome("error", str(exc))
        copy = self.dest / _node_copies.copy_name(self.revision_id, before)
        if _node_copies.is_complete(copy):
            self._choose(copy)
            return Outcome("present", f"{self._shown(copy)} (s3://{self.bucket}/{self.base})")
        for leftover in self.dest.glob(f"{_node_copies.PARTIAL_PREFIX}*"):  # we hold the lock: a killed copy's
            _files.remove_tree(leftover)
        if copy.exists():  # a copy the warm check found damaged: made again
            _files.remove_tree(copy)
        sources = _link_sources(self.dest)
        need = sum(size for _, name, size, sha in files if (name, sha) not in sources)
        fits, why = _node_copies.collect_copies(
            self.dest.parent, lease_grace_s=self.grace, budget_bytes=self.budget, need_bytes=need, own=self.dest.name
        )
        if not fits:
            return Outcome("error", f"no room for the model copy: {why}")
        partial = self.dest / f"{_node_copies.PARTIAL_PREFIX}{copy.name}-{uuid.uuid4().hex[:8]}"
        partial.mkdir()
        try:
            refused = self._fill(before, files, sources, partial)
            if refused is not None:
                return refused
            if _s3.read_object(self.s3, self.bucket, self.manifest_key) != before:
                raise Restaged("the manifest changed while the files were copied")
            (partial / MANIFEST_NAME).write_bytes(before)
            marker = {"source": f"s3://{self.bucket}/{self.base}", "revision": self.revision_id}
            (partial / COMPLETE_MARKER).write_text(json.dumps(marker))
            _node_copies.lease(self.dest, copy.name)  # leased before it is complete: never a copy with no lease
            os.replace(partial, copy)
        finally:
            if partial.exists():
                _files.remove_tree(partial)
        self._choose(copy)
        return Outcome("staged", f"s3://{self.bucket}/{self.base} -> {self._shown(copy)}")

    def _shown(self, copy: Path) -> str:
        return f"{self.link} -> {copy}" if self.link is not None else str(copy)

    def _fill(
        self,
        manifest: bytes,
        files: list[tuple[Path, str, int, str]],
        sources: dict[tuple[str, str], Path],
        partial: Path,
    ) -> _step.Outcome | None:
        """Put every listed file into `partial`: hard-linked from another copy when it holds the same bytes,
        else downloaded. Raises Restaged when the manifest changed meanwhile; an error Outcome when an object
        is corrupt or was replaced under an unchanged manifest (copying again would meet the same bytes)."""
        for relative, name, size, sha in files:
            local = partial / relative
            local.parent.mkdir(parents=True, exist_ok=True)
            source = sources.get((name, sha))
            if source is not None and _link(source, local, size):
                continue
            try:
                key = f"{self.base}/{name}"
                _download_verified(self.s3, self.bucket, key, local, size, sha, self.part, self.workers)
            except Exception as exc:
                code = _s3.error_code(exc)
                if not isinstance(exc, Restaged) and code not in ("412", "PreconditionFailed", "NoSuchKey"):
                    raise
                if _s3.read_object(self.s3, self.bucket, self.manifest_key) != manifest:
                    raise Restaged(f"the model was restaged while {name} was copied") from exc
                return Outcome("error", f"{exc}; the manifest is unchanged, so the object is corrupt or was replaced")
        return None

    def _choose(self, copy: Path) -> None:
        """Lease `copy`, point the pod's link at it and collect what no pod uses any more."""
        _node_copies.lease(self.dest, copy.name)
        if self.link is not None:
            _point(self.link, copy)
        if not _node_copies.is_complete(copy):  # collected meanwhile: copied again, never reported
            raise Restaged(f"{copy.name} was removed while this pod chose it")
        _node_copies.collect_copies(
            self.dest.parent, lease_grace_s=self.grace, budget_bytes=self.budget, own=self.dest.name
        )


def _point(link: Path, copy: Path) -> None:
    """The pod's own link to the copy it chose (the server's model path)."""
    _node_copies.point(link, copy)


def _link_sources(dest: Path) -> dict[tuple[str, str], Path]:
    """(name, sha256) -> a file of a complete copy of the model that holds those bytes (for hard links)."""
    sources: dict[tuple[str, str], Path] = {}
    for copy in reversed(_node_copies.complete_copies(dest)):  # the copy chosen last wins
        try:
            listed = _manifest.manifest_files((copy / MANIFEST_NAME).read_bytes())
        except (OSError, ValueError):
            continue
        sources.update({(name, sha): copy / relative for relative, name, _, sha in listed})
    return sources


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
    parser.add_argument("--dest", type=Path, required=True, help="the model's folder of node-local copies")
    parser.add_argument("--link", type=Path, help="the pod's own link to the copy (the server's model path)")
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
            args.bucket, args.prefix, revision_id = revision.read_resolved(args.revision_dir)
        else:
            revision_id = revision.revision_of_prefix(args.prefix)
        budget = int(args.budget_gib * 1024**3) if args.budget_gib else None
        outcome = copy_model_to_node(
            _s3.client(args.endpoint_url),
            bucket=args.bucket,
            prefix=args.prefix,
            dest=args.dest,
            revision_id=revision_id,
            link=args.link,
            budget_bytes=budget,
            lease_grace_s=args.lease_grace_s,
        )
    except Exception as exc:  # e.g. no boto3, no region: one line, and the init container fails
        outcome = Outcome("error", f"{type(exc).__name__}: {exc}")
    _step.report("stage-model", outcome)
    return 1 if outcome.status == "error" else 0


if __name__ == "__main__":
    sys.exit(main())
