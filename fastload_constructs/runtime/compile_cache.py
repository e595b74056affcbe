"""restore / publish: move vLLM's (or SGLang's) compile cache between S3 and the pod's cache folder.

Run in the server pod from the runtime ConfigMap with the server image's Python and boto3:

  python3 compile_cache.py restore ...  an init container: stream <prefix>/<key>.tar.gz from S3,
                                        hashing, vetting and extracting in one pass
  python3 compile_cache.py publish ...  a sidecar: once the server reports ready, stream the cache
                                        to S3 once if the key is absent, then idle

Neither ever fails the pod: a missing, partial, corrupt or hostile cache, or a cache folder it
may not write, means "start cold", logged as a warning. With `--revision-dir` the key gets the
revision resolve-revision wrote down appended (the server's own cache hash covers the model
path, which differs per revision with an s3:// model).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gzip
import logging
import os
import sys
import tarfile
import threading
import time
import urllib.error
import urllib.request
import uuid
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

if __package__:
    from fastload_constructs.runtime import _cache_archive, _files, _s3, _step, revision
else:  # a file of the pod's ConfigMap folder, with no fastload install: its helpers lie beside it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _cache_archive  # type: ignore[no-redef]
    import _files  # type: ignore[no-redef]
    import _s3  # type: ignore[no-redef]
    import _step  # type: ignore[no-redef]
    import revision  # type: ignore[no-redef]

LOG = logging.getLogger("fastload.runtime")
Outcome = _step.Outcome
COMPILE_SUBDIR = _cache_archive.COMPILE_SUBDIR

# Object metadata key holding the archive's SHA-256, checked before the cache is used.
SHA256_METADATA = "fastload-sha256"
# Healing: the ETag of an archive this pod refused (corrupt, truncated, unsafe), kept in the
# cache root so the publish sidecar replaces exactly that archive once the server has compiled a
# healthy cache, instead of every later pod refusing it and starting cold.
REFUSED_MARKER = ".fastload-refused-archive"
# The tag on a temporary archive upload; the model bucket's lifecycle rule expires objects carrying it
# (core/access/model_access.py TEMPORARY_OBJECT_TAG, kept equal by a test: this file imports nothing of the package).
TEMPORARY_TAGGING = "fastload-temporary=true"
# gzip level for published archives. Measured by bench/cache_sync_vs_tar.py on
# a real torch.compile cache and on synthetic ones: level 1 compresses 3-4x
# faster than level 6 (9 is slower still) for an archive 10-15% larger, and
# inflating costs the same at every level. A pod publishes once and restores
# over a network far faster than zlib deflates, so the fastest level wins.
GZIP_LEVEL = 1
# Errors of this node's disk, not of the archive: restoring elsewhere would work, so nothing is healed.
_NODE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO})
_ARCHIVE_ERRORS = (_cache_archive.ArchiveRefused, tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile)


def archive_key(prefix: str, cache_key: str) -> str:
    return f"{prefix.strip('/')}/{cache_key}.tar.gz" if prefix.strip("/") else f"{cache_key}.tar.gz"


def _remember_refused(cache_root: Path, head: dict[str, Any] | None) -> None:
    """Record the refused archive's ETag; never raises (a read-only root just means no healing)."""
    if head is None or not head.get("ETag"):
        return
    try:
        cache_root.mkdir(parents=True, exist_ok=True)
        (cache_root / REFUSED_MARKER).write_text(str(head["ETag"]))
    except OSError as exc:
        LOG.warning("cannot record the refused archive: %s", exc)


def _is_refused(cache_root: Path, head: dict[str, Any]) -> bool:
    """True when `head` is the very archive this pod refused (same ETag): replace it."""
    try:
        return (cache_root / REFUSED_MARKER).read_text().strip() == str(head.get("ETag", ""))
    except OSError:
        return False


def restore_compile_cache(
    s3: Any,
    *,
    bucket: str,
    prefix: str,
    cache_key: str,
    cache_root: Path,
    limits: _cache_archive.Limits | None = None,
) -> _step.Outcome:
    """Restore `<cache_root>/torch_compile_cache` from S3 unless it is already there.

    One pass: the GET body is hashed, inflated, vetted and extracted member by member into a
    temporary folder, then the archive's SHA-256 is compared with the recorded one; only a
    match is moved into place, in one rename. Leftovers of a killed restore are removed first.
    """
    target = cache_root / COMPILE_SUBDIR
    try:
        cache_root.mkdir(parents=True, exist_ok=True)
        problems = _files.repair_permissions(target)
        if problems:
            return Outcome("error", f"cannot use {target}: {problems[0]}; starting cold")
        if target.is_dir() and any(target.iterdir()):
            return Outcome("present", str(target))
    except OSError as exc:
        return Outcome("error", f"cannot use {cache_root}: {exc.strerror or exc}; starting cold")
    return _Restore(s3, bucket, archive_key(prefix, cache_key), cache_root, limits or _cache_archive.Limits()).run()


class _Restore:
    """One restore under the cache root's lock; what it learnt (the archive's HEAD, whether it was
    unpacking) decides whether a failure is the archive's (refused, and healed by the publisher) or not."""

    def __init__(self, s3: Any, bucket: str, key: str, cache_root: Path, limits: _cache_archive.Limits) -> None:
        self.s3, self.bucket, self.key, self.cache_root, self.limits = s3, bucket, key, cache_root, limits
        self.target = cache_root / COMPILE_SUBDIR
        self.head: dict[str, Any] | None = None
        self.extracting = False

    def run(self) -> _step.Outcome:
        try:
            with _files.FileLock(self.cache_root / ".restore.lock", timeout_s=self.limits.seconds):
                return self._locked()
        except _ARCHIVE_ERRORS as exc:
            # A refused archive heals: this pod's publisher replaces exactly that one once it is ready.
            _remember_refused(self.cache_root, self.head)
            return Outcome("corrupt", f"{type(exc).__name__}: {exc}; starting cold")
        except _cache_archive.TransferFailed as exc:
            return Outcome("error", f"reading s3://{self.bucket}/{self.key} failed: {exc}; starting cold")
        except PermissionError as exc:
            return Outcome("error", f"permission denied: {exc.filename or exc}; starting cold")
        except Exception as exc:  # network, disk or anything else must not stop the pod
            if self.extracting and not (isinstance(exc, OSError) and exc.errno in _NODE_ERRNOS):
                # Any other failure while unpacking (a name too long for this filesystem, say) is the archive's:
                # every pod would meet it, so it is refused and healed like a corrupt one.
                _remember_refused(self.cache_root, self.head)
                return Outcome("corrupt", f"{type(exc).__name__}: {exc}; starting cold")
            return Outcome("error", f"{type(exc).__name__}: {exc}; starting cold")

    def _locked(self) -> _step.Outcome:
        for leftover in self.cache_root.glob(".restore-*"):  # we hold the lock: whoever made these is dead
            _files.remove_tree(leftover)
        if self.target.is_dir() and any(self.target.iterdir()):
            return Outcome("present", f"{self.target} (restored by another pod meanwhile)")
        self.head = _s3.head(self.s3, self.bucket, self.key)
        if self.head is None:
            return Outcome("miss", f"s3://{self.bucket}/{self.key} not found; starting cold")
        expected = _s3.metadata_value(self.head.get("Metadata"), SHA256_METADATA)
        if not expected:
            _remember_refused(self.cache_root, self.head)
            return Outcome("corrupt", f"s3://{self.bucket}/{self.key} has no {SHA256_METADATA} metadata; starting cold")
        tmp = self.cache_root / f".restore-{uuid.uuid4().hex[:12]}"
        tmp.mkdir()
        self.extracting = True  # from here on, a failure that is neither the transfer's nor the disk's is the archive's
        try:
            return self._extract(tmp, expected)
        finally:
            _files.remove_tree(tmp)

    def _extract(self, tmp: Path, expected: str) -> _step.Outcome:
        assert self.head is not None
        size = self.head.get("ContentLength")
        deadline = time.monotonic() + self.limits.seconds
        body = _s3.ResumingBody(  # conditional on the HEAD's ETag, resumed where a body breaks
            self.s3,
            self.bucket,
            self.key,
            end=size - 1 if isinstance(size, int) and size > 0 else None,
            etag=self.head.get("ETag") or None,
            deadline=deadline,
        )
        limits = self.limits
        stream = _cache_archive.InflatingPipe(
            body, deadline=deadline, max_inflated=limits.unpacked_bytes + 512 * (2 * limits.members + 2) + (1 << 20)
        )
        try:
            with tarfile.open(fileobj=stream, mode="r|") as archive:  # type: ignore[call-overload]
                members = _cache_archive.extract_vetted(archive, tmp, limits, stream.deadline)
            stream.drain()  # the rest: tar padding, then gzip's CRC and length
        finally:
            stream.close()
        actual = stream.sha.hexdigest()
        if actual != expected:
            _remember_refused(self.cache_root, self.head)
            return Outcome("corrupt", f"checksum {actual} != recorded {expected}; starting cold")
        source = tmp / COMPILE_SUBDIR
        if not source.is_dir():
            _remember_refused(self.cache_root, self.head)
            return Outcome("corrupt", f"archive has no {COMPILE_SUBDIR}/; starting cold")
        if self.target.exists() or self.target.is_symlink():
            left = _files.remove_tree(self.target)
            if left:
                return Outcome("error", f"cannot replace {self.target}: {left[0]}; starting cold")
        os.replace(source, self.target)  # same filesystem: the cache appears whole or not at all
        return Outcome(
            "restored",
            f"s3://{self.bucket}/{self.key} -> {self.target} ({members} members, {stream.count} bytes)",
        )


def publish_compile_cache(
    s3: Any, *, bucket: str, prefix: str, cache_key: str, cache_root: Path, level: int = GZIP_LEVEL
) -> _step.Outcome:
    """Upload the compile cache once: streamed to a temporary key, then copied into place with its SHA-256.

    The archive is written by a thread into a pipe that the upload reads, hashing as it
    goes: no copy on disk, no whole archive in memory. Readers only ever see the final key,
    created by one server-side copy of a complete upload, carrying the hash as metadata. Two
    pods publishing at once each copy a complete archive of the same configuration; a pod
    that sees the key already present does nothing.
    """
    source = cache_root / COMPILE_SUBDIR
    if not source.is_dir() or not any(source.rglob("*")):
        return Outcome("miss", f"nothing to publish under {source}")
    key = archive_key(prefix, cache_key)
    temporary = f"{key}.tmp-{uuid.uuid4().hex}"
    uploaded = False  # set before the upload starts: one stopped mid-way may still have created the object
    try:
        existing = _s3.head(s3, bucket, key)
        if existing is not None and not _is_refused(cache_root, existing):
            return Outcome("exists", f"s3://{bucket}/{key}")
        read_fd, write_fd = os.pipe()
        reader, writer = os.fdopen(read_fd, "rb"), os.fdopen(write_fd, "wb")
        hashing = _cache_archive.HashingWriter(writer)
        failures: list[BaseException] = []

        def produce() -> None:
            try:
                with (
                    gzip.GzipFile(fileobj=hashing, mode="wb", compresslevel=level, mtime=0) as deflated,
                    tarfile.open(fileobj=deflated, mode="w|", format=tarfile.PAX_FORMAT) as archive,
                ):
                    for path, name in _cache_archive.cache_entries(source):
                        _cache_archive.add_member(archive, path, name)
            except BaseException as exc:
                failures.append(exc)
            finally:
                with contextlib.suppress(OSError):
                    writer.close()

        producer = threading.Thread(target=produce, name="fastload-publish-tar", daemon=True)
        producer.start()
        uploaded = True
        try:
            # Tagged: the bucket's lifecycle rule expires a temporary a killed publisher left.
            extra = {"ContentType": "application/gzip", "Tagging": TEMPORARY_TAGGING}
            s3.upload_fileobj(reader, bucket, temporary, ExtraArgs=extra)
        finally:
            reader.close()  # an upload that failed early makes the producer's next write fail and stop
            producer.join()
        if failures:
            raise failures[0]
        current = _s3.head(s3, bucket, key)
        if current is not None and not _is_refused(cache_root, current):
            return Outcome("exists", f"s3://{bucket}/{key} (published by another pod meanwhile)")
        digest = hashing.sha.hexdigest()
        s3.copy_object(
            Bucket=bucket,
            Key=key,
            CopySource={"Bucket": bucket, "Key": temporary},
            MetadataDirective="REPLACE",
            Metadata={SHA256_METADATA: digest},
            ContentType="application/gzip",
            TaggingDirective="REPLACE",  # the archive itself is not temporary: no tag, never expired
        )
        (cache_root / REFUSED_MARKER).unlink(missing_ok=True)
        healed = " (replaced a refused archive)" if existing is not None else ""
        return Outcome("published", f"s3://{bucket}/{key} sha256={digest} bytes={hashing.count} level={level}{healed}")
    except Exception as exc:
        return Outcome("error", f"{type(exc).__name__}: {exc}")
    finally:
        if uploaded:
            try:
                s3.delete_object(Bucket=bucket, Key=temporary)
            except Exception:
                LOG.warning("could not delete s3://%s/%s", bucket, temporary)


def wait_until_ready(
    url: str, *, timeout_s: float, interval_s: float = 5.0, opener: Callable[[str], Any] = urllib.request.urlopen
) -> bool:
    """Poll `url` until it answers 200 or the timeout passes."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with opener(url) as response:
                if getattr(response, "status", 200) == 200:
                    return True
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(interval_s)
    return False


def _run(args: argparse.Namespace) -> _step.Outcome:
    if args.revision_dir is not None:
        args.cache_key = revision.revision_cache_key(args.cache_key, revision.read_resolved(args.revision_dir)[2])
    s3 = _s3.client(args.endpoint_url)
    where = {"bucket": args.bucket, "prefix": args.prefix, "cache_key": args.cache_key, "cache_root": args.cache_root}
    if args.command == "restore":
        return restore_compile_cache(s3, **where)
    if args.wait_url and not wait_until_ready(args.wait_url, timeout_s=args.wait_timeout):
        return Outcome("error", f"{args.wait_url} never became ready; not publishing")
    return publish_compile_cache(s3, **where)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="compile_cache", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("command", choices=["restore", "publish"])
    parser.add_argument("--bucket", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--cache-key", required=True, help="this configuration's compile-cache key")
    parser.add_argument("--cache-root", type=Path, required=True, help="the server's cache root (VLLM_CACHE_ROOT)")
    parser.add_argument("--wait-url", help="publish only after this URL answers 200")
    parser.add_argument("--wait-timeout", type=float, default=3600.0)
    parser.add_argument("--then-sleep", action="store_true", help="sleep forever afterwards (sidecar)")
    parser.add_argument("--endpoint-url", default=os.environ.get("AWS_ENDPOINT_URL"))
    parser.add_argument("--revision-dir", type=Path, help="what resolve-revision wrote: key the cache by that revision")
    args = parser.parse_args(argv)
    _step.start_step()
    try:
        outcome = _run(args)
    except Exception as exc:  # e.g. no boto3, no region: a cache step must still not crash the pod
        outcome = Outcome("error", f"{type(exc).__name__}: {exc}")
    _step.report(f"{args.command}-compile-cache", outcome)
    while args.then_sleep:  # a sidecar that exits would be restarted and publish again
        time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
