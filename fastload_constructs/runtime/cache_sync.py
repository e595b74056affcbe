"""Move vLLM's compile cache and model weights between S3 and a node's NVMe.

This file runs inside the vLLM pod (init container and sidecar, from the vLLM
image, which ships Python and boto3), mounted from a ConfigMap. It therefore
imports nothing but the standard library and boto3, and never raises on a
cache problem: a missing, partial, corrupt or hostile cache, or a cache folder
it may not write, means "start cold", logged as a warning, never a pod that
cannot start.

Commands:
  restore-compile-cache  stream <prefix>/<key>.tar.gz from S3, hashing, vetting and extracting in one pass
  publish-compile-cache  after vLLM reports ready, stream the cache to S3 once if the key is absent
  stage-model            copy a staged model (s3://bucket/prefix) to NVMe once per node and manifest
  resolve-revision       read the model's fastload-current.json once and write down the revision this pod loads

With `--revision-dir`, the other commands use what resolve-revision wrote:
stage-model copies that revision, and the compile-cache key gets the revision
appended (vLLM's own cache hash covers the model path, which differs per
revision with an s3:// model).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import errno
import fcntl
import gzip
import hashlib
import json
import logging
import os
import random
import re
import shutil
import signal
import stat
import sys
import tarfile
import threading
import time
import urllib.error
import urllib.request
import uuid
import zlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

LOG = logging.getLogger("fastload.cache_sync")

# Object metadata key holding the archive's SHA-256, checked before the cache is used.
SHA256_METADATA = "fastload-sha256"
# Marker written last into a node-local model copy: its presence means complete.
COMPLETE_MARKER = ".fastload-complete"
MANIFEST_NAME = "fastload-manifest.json"
# The part of VLLM_CACHE_ROOT that holds compiled artifacts; `assets/` (files the
# streamer staged) and anything else there are neither published nor restored.
COMPILE_SUBDIR = "torch_compile_cache"
# Healing (issue 15): the ETag of an archive this pod refused (corrupt, truncated, unsafe),
# kept in the cache root so the publish sidecar replaces exactly that archive once vLLM
# has compiled a healthy cache, instead of every later pod refusing it and starting cold.
REFUSED_MARKER = ".fastload-refused-archive"
# The tag on a temporary archive upload; the model bucket's lifecycle rule expires objects carrying it
# (core/model_access.py TEMPORARY_OBJECT_TAG, kept equal by a test: this file imports nothing of the package).
TEMPORARY_TAGGING = "fastload-temporary=true"


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


# gzip level for published archives. Measured by bench/cache_sync_vs_tar.py on
# a real torch.compile cache and on synthetic ones: level 1 compresses 3-4x
# faster than level 6 (9 is slower still) for an archive 10-15% larger, and
# inflating costs the same at every level. A pod publishes once and restores
# over a network far faster than zlib deflates, so the fastest level wins.
GZIP_LEVEL = 1

# Restore limits: an archive over any of them is refused (start cold).
MAX_MEMBERS = 200_000
MAX_UNPACKED_BYTES = 64 * 1024**3
MAX_RESTORE_SECONDS = 900.0
_COPY_BLOCK = 1 << 20

# Node-local model copies live under <models root>/.copies/<name>-<content hash>;
# <models root>/<name> is a relative symlink to the current one.
COPIES_DIR = ".copies"
LEASES_DIR = ".fastload-leases"
DEFAULT_LEASE_GRACE_S = 3600.0
DEFAULT_BUDGET_FRACTION = 0.8
DOWNLOAD_PART = 16 * 1024 * 1024
DOWNLOAD_WORKERS = 8
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True)
class Outcome:
    """What a sync step did, for the log line and the tests."""

    status: str  # restored | miss | corrupt | present | published | exists | staged | error
    detail: str = ""


def archive_key(prefix: str, cache_key: str) -> str:
    return f"{prefix.strip('/')}/{cache_key}.tar.gz" if prefix.strip("/") else f"{cache_key}.tar.gz"


def metadata_value(metadata: dict[str, str] | None, key: str) -> str | None:
    """A user-metadata value whatever case the server returned its key in (Go servers send `Fastload-Sha256`)."""
    for name, value in (metadata or {}).items():
        if name.lower() == key.lower():
            return value
    return None


def _error_code(exc: BaseException) -> str:
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


# Codes that mean "no such object" here: S3 answers 403 rather than 404 for a missing key when the
# caller may not list the bucket, and the pod role may list only the model prefix.
_ABSENT_CODES = frozenset({"404", "NoSuchKey", "NotFound", "403", "AccessDenied", "Forbidden"})


def _head(s3: Any, bucket: str, key: str) -> dict[str, Any] | None:
    """HEAD an object; None when it does not exist.

    S3 answers 403 rather than 404 for a missing key when the caller may not
    list the bucket, and the pod role may list only the model prefix: a 403
    here is read as "absent". A real denial then surfaces on the GET or PUT.
    """
    try:
        return s3.head_object(Bucket=bucket, Key=key)  # type: ignore[no-any-return]
    except Exception as exc:  # botocore ClientError; not imported so the file stays light
        if _error_code(exc) in _ABSENT_CODES:
            return None
        raise


# Transfers that retry (issue 28): a body that breaks while it is read (connection reset, a
# server that closes early, a read timeout) is asked for again from the first byte not yet
# received, with the first GET's ETag as If-Match, so what was copied is kept and a replaced
# object fails as a restage (412) instead of mixing. Bounded per range: 5 attempts (botocore's
# standard mode also makes 5 for status errors) with exponential backoff from 0.2 s, capped at
# 5 s, jittered (sum of the waits at most ~3 s, so a dead endpoint still fails in seconds).
BODY_ATTEMPTS = 5
BACKOFF_BASE_S = 0.2
BACKOFF_MAX_S = 5.0
# Pieces handed on as they arrive (at most this much per read): a deadline is checked after each,
# so a trickling body cannot overrun it by more than one piece's wait (botocore's read timeout, 60 s,
# bounds a body that stops outright).
_PIECE = 256 * 1024


class _BodyEnded(Exception):
    """The server ended a body before the bytes it announced: a break like any other, so resumed."""


class _TransferFailed(Exception):
    """Reading the archive from S3 failed (after retries, or past the deadline): the archive may be fine."""


# Errors of this node's disk, not of the archive: restoring elsewhere would work, so nothing is healed.
_NODE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO})


class _DeadlinePassed(Exception):
    """A transfer ran past its time limit while data was still arriving."""


def _transient(exc: BaseException) -> bool:
    """A broken body or connection (resumable), as opposed to an answer from S3 (an error code) or our own refusal."""
    if _error_code(exc):
        return False
    if isinstance(exc, (_BodyEnded, OSError)):
        return True
    module = type(exc).__module__
    return module.startswith(("botocore.exceptions", "urllib3", "http.client"))


def _backoff(attempt: int) -> None:
    time.sleep(min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2**attempt) * random.uniform(0.5, 1.0))


class _ResumingBody:
    """Bytes `start`..`end` (inclusive; `end` None: to the object's end) of one object, resumed where a body broke.

    `read(n)` returns up to `n` bytes as soon as any arrive (never waits to fill a block), and
    raises `_DeadlinePassed` once `deadline` (time.monotonic) passes, between any two pieces.
    """

    def __init__(
        self,
        s3: Any,
        bucket: str,
        key: str,
        *,
        start: int = 0,
        end: int | None = None,
        etag: str | None = None,
        deadline: float | None = None,
        attempts: int = BODY_ATTEMPTS,
        first: dict[str, Any] | None = None,
    ) -> None:
        self.s3, self.bucket, self.key = s3, bucket, key
        self.position, self.end, self.etag = start, end, etag
        self.deadline, self.attempts = deadline, attempts
        self.resumed = 0
        self.failures = 0
        self._response = first
        self._finished = end is not None and start > end

    def _open(self) -> None:
        if self.end is None and self.position == 0:
            ranged: dict[str, Any] = {}
        else:
            ranged = {"Range": f"bytes={self.position}-{'' if self.end is None else self.end}"}
        conditional = {"IfMatch": self.etag} if self.etag else {}
        self._response = self.s3.get_object(Bucket=self.bucket, Key=self.key, **ranged, **conditional)
        if not self.etag and self._response.get("ETag"):
            self.etag = self._response["ETag"]

    def _read_piece(self, n: int) -> bytes:
        if self._response is None:
            self._open()
        assert self._response is not None
        body = self._response["Body"]
        raw = getattr(body, "_raw_stream", None)
        read1 = getattr(raw, "read1", None)
        want = n if self.end is None else min(n, self.end - self.position + 1)
        data: bytes = read1(want) if read1 is not None else body.read(want)
        if not data and self.end is not None and self.position <= self.end:
            raise _BodyEnded(f"{self.key}: body ended at byte {self.position}, before {self.end + 1}")
        return data

    def read(self, n: int = _PIECE) -> bytes:
        n = _PIECE if n is None or n < 0 else min(n, _PIECE)
        while not self._finished:
            if self.deadline is not None and time.monotonic() > self.deadline:
                self.close()
                raise _DeadlinePassed(f"{self.key}: past its time limit at byte {self.position}")
            try:
                data = self._read_piece(n)
            except Exception as exc:
                if not _transient(exc):
                    raise
                self.close()
                self.failures += 1
                if self.failures >= self.attempts or self.resumed >= self.attempts * 8:
                    raise  # in a row without progress, or in all (a server that resets every few bytes)
                LOG.warning("%s: body broke at byte %d (%s); resuming", self.key, self.position, type(exc).__name__)
                self.resumed += 1
                _backoff(self.failures - 1)
                continue
            self.failures = 0  # bytes arrived: the bound is on attempts in a row without progress
            if not data:
                self._finished = True
                break
            self.position += len(data)
            if self.end is not None and self.position > self.end:
                self._finished = True
            return data
        return b""

    def close(self) -> None:
        if self._response is not None:
            with contextlib.suppress(Exception):
                self._response["Body"].close()
        self._response = None


class ArchiveRefused(Exception):
    """The archive breaks a rule (member type, path, size, count, time): nothing of it is used."""


class _InflatingPipe:
    """GET body -> SHA-256 -> gunzip in a thread, read as a stream of tar bytes by the extracting thread.

    Hashing and inflating (both release the GIL) overlap with parsing and writing the
    members, as `curl | tar -xz` overlaps its processes. At most `depth` chunks of at most
    `chunk` bytes wait in memory; a deadline and a cap on inflated bytes stop a bomb early.
    """

    def __init__(self, body: Any, *, deadline: float, max_inflated: int, chunk: int = 4 << 20, depth: int = 8) -> None:
        import queue

        self.body, self.deadline, self.max_inflated, self.chunk = body, deadline, max_inflated, chunk
        self.sha = hashlib.sha256()
        self.count = 0
        self._queue: queue.Queue[bytes | BaseException | None] = queue.Queue(maxsize=depth)
        self._full = queue.Full
        self._stop = threading.Event()
        self._buffer = b""
        self._pos = 0
        self._done = False
        self._thread = threading.Thread(target=self._produce, name="fastload-restore-inflate", daemon=True)
        self._thread.start()

    def _put(self, item: bytes | BaseException | None) -> None:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.2)
                return
            except self._full:
                continue

    def _produce(self) -> None:
        inflated = 0
        try:
            inflater = zlib.decompressobj(wbits=31)  # gzip: checks the trailer's CRC-32 and length at the end
            while not self._stop.is_set():
                if time.monotonic() > self.deadline:
                    raise ArchiveRefused("restore ran past its time limit")
                try:
                    data = self.body.read(_COPY_BLOCK)
                except Exception as exc:  # the transfer's failure, not the archive's: no healing
                    raise _TransferFailed(f"{type(exc).__name__}: {exc}") from exc
                if not data:
                    break
                self.sha.update(data)
                self.count += len(data)
                while data and not self._stop.is_set():
                    if inflater.eof:  # a second gzip member (what `cat a.gz b.gz` makes) or trailing junk
                        data, inflater = inflater.unused_data + data, zlib.decompressobj(wbits=31)
                        if not data.startswith(b"\x1f\x8b"):
                            raise ArchiveRefused("data after the end of the gzip stream")
                    out = inflater.decompress(data, self.chunk)
                    data = inflater.unconsumed_tail
                    inflated += len(out)
                    if inflated > self.max_inflated:
                        raise ArchiveRefused(f"more than {self.max_inflated} bytes inflated")
                    if out:
                        self._put(out)
            if not self._stop.is_set() and not inflater.eof:
                raise EOFError("the gzip stream ended early (truncated archive)")
            self._put(None)
        except BaseException as exc:
            self._put(exc)

    def read(self, n: int = -1) -> bytes:
        # An offset into the current chunk, so a 512-byte header read copies 512 bytes, not the chunk.
        while not self._done and (n < 0 or len(self._buffer) - self._pos < n):
            item = self._queue.get()
            if item is None:
                self._done = True
            elif isinstance(item, BaseException):
                self._done = True
                raise item
            else:
                self._buffer, self._pos = self._buffer[self._pos :] + item, 0
        end = len(self._buffer) if n < 0 else self._pos + n
        data = self._buffer[self._pos : end]
        self._pos = min(end, len(self._buffer))
        return data

    def drain(self) -> None:
        """Read to the end, so every byte of the object is hashed and the gzip trailer checked."""
        while self.read(_COPY_BLOCK):
            pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


class _HashingWriter:
    """Writes through to `raw`, hashing and counting every byte."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.sha = hashlib.sha256()
        self.count = 0

    def write(self, data: bytes) -> int:
        self.raw.write(data)
        self.sha.update(data)
        self.count += len(data)
        return len(data)

    def flush(self) -> None:
        self.raw.flush()


@dataclass
class _Limits:
    members: int = MAX_MEMBERS
    unpacked_bytes: int = MAX_UNPACKED_BYTES
    seconds: float = MAX_RESTORE_SECONDS


def _vetted_path(member: tarfile.TarInfo) -> tuple[str, ...]:
    """The member's path parts under COMPILE_SUBDIR, or ArchiveRefused (tar `data` filter rules, stricter)."""
    name = member.name
    if "\x00" in name or name.startswith("/") or "\\" in name:
        raise ArchiveRefused(f"unsafe member name: {name!r}")
    parts = tuple(p for p in name.split("/") if p not in ("", "."))
    if not parts or ".." in parts or parts[0] != COMPILE_SUBDIR:
        raise ArchiveRefused(f"member outside {COMPILE_SUBDIR}/: {name!r}")
    if not (member.isreg() or member.isdir()):
        # Links, devices, FIFOs: the data filter refuses devices and links out; a cache needs none of them.
        raise ArchiveRefused(f"unsupported member type {member.type!r}: {name!r}")
    return parts


def _safe_mode(member: tarfile.TarInfo) -> int:
    """The `data` filter's modes: no setuid/setgid/sticky, no group/other write; the owner can read and write."""
    mode = member.mode & 0o755
    return mode | (0o700 if member.isdir() else 0o600)


def _write_member(source: IO[bytes], target: str, size: int, mode: int, mtime: float, umask: int, name: str) -> None:
    """Copy a regular member into a new file (exclusive, never through a link); refuse one longer than declared."""
    fd = os.open(target, _CREATE_FLAGS, mode)
    try:
        written = 0
        while block := source.read(min(_COPY_BLOCK, size - written + 1)):
            written += len(block)
            if written > size:
                raise ArchiveRefused(f"member longer than declared: {name!r}")
            view = memoryview(block)
            while view:
                view = view[os.write(fd, view) :]
        if mode & umask:  # the umask took bits the archive's (safe) mode asks for
            os.fchmod(fd, mode)
        os.utime(fd, (mtime, mtime))
    finally:
        os.close(fd)


def _extract_vetted(archive: tarfile.TarFile, into: Path, limits: _Limits, deadline: float) -> int:
    """Extract a streamed archive member by member, each vetted before a byte of it is written.

    One thread, as GNU tar does: creating files and directories is metadata work the
    filesystem serialises per directory, and measured on ext4, parallel writers made it
    slower (kernel time 2-5x higher, issue 18) while inflating already runs beside this thread.
    """
    count, unpacked = 0, 0
    umask = os.umask(0o22)
    os.umask(umask)
    root = str(into)
    files: set[tuple[str, ...]] = set()
    dirs: set[tuple[str, ...]] = {()}
    dir_modes: list[tuple[str, int]] = []

    def make_dir(parts: tuple[str, ...]) -> None:
        depth = len(parts)
        while parts[:depth] not in dirs:  # the deepest ancestor already made
            depth -= 1
        for end in range(depth + 1, len(parts) + 1):
            if parts[:end] in files:
                raise ArchiveRefused(f"directory over a file: {'/'.join(parts[:end])!r}")
            os.mkdir(os.path.join(root, *parts[:end]))  # `into` is this restore's new folder: only we write there
            dirs.add(parts[:end])

    for member in archive:
        count += 1
        if time.monotonic() > deadline:
            raise ArchiveRefused("restore ran past its time limit")
        if count > limits.members:
            raise ArchiveRefused(f"more than {limits.members} members")
        parts = _vetted_path(member)
        if member.isdir():
            make_dir(parts)
            dir_modes.append((os.path.join(root, *parts), _safe_mode(member)))
            continue
        if parts in files or parts in dirs:
            raise ArchiveRefused(f"duplicate member: {member.name!r}")
        files.add(parts)
        unpacked += member.size
        if unpacked > limits.unpacked_bytes:
            raise ArchiveRefused(f"more than {limits.unpacked_bytes} bytes unpacked")
        make_dir(parts[:-1])
        source = archive.extractfile(member)
        if source is None:
            raise ArchiveRefused(f"unreadable member: {member.name!r}")
        target = os.path.join(root, *parts)
        _write_member(source, target, member.size, _safe_mode(member), member.mtime, umask, member.name)
    for directory, mode in reversed(dir_modes):  # deepest first, so a read-only dir never blocks its children
        os.chmod(directory, mode)
    return count


def _repair_permissions(path: Path) -> list[str]:
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


def _remove_tree(path: Path) -> list[str]:
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
    problems += _repair_permissions(path)
    shutil.rmtree(path, onerror=lambda _f, p, e: problems.append(f"{p}: {getattr(e[1], 'strerror', e[1])}"))
    return problems


class _FileLock:
    """An exclusive flock taken by polling until a deadline (a hung holder must not hang the pod)."""

    def __init__(self, path: Path, timeout_s: float) -> None:
        self.path, self.timeout_s = path, timeout_s
        self.handle: IO[str] | None = None

    def __enter__(self) -> _FileLock:
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


def restore_compile_cache(
    s3: Any,
    *,
    bucket: str,
    prefix: str,
    cache_key: str,
    cache_root: Path,
    limits: _Limits | None = None,
) -> Outcome:
    """Restore `<cache_root>/torch_compile_cache` from S3 unless it is already there.

    One pass: the GET body is hashed, inflated, vetted and extracted member by member into a
    temporary folder, then the archive's SHA-256 is compared with the recorded one; only a
    match is moved into place, in one rename. Leftovers of a killed restore are removed first.
    """
    limits = limits or _Limits()
    target = cache_root / COMPILE_SUBDIR
    key = archive_key(prefix, cache_key)
    head: dict[str, Any] | None = None
    extracting = False
    try:
        cache_root.mkdir(parents=True, exist_ok=True)
        problems = _repair_permissions(target)
        if problems:
            return Outcome("error", f"cannot use {target}: {problems[0]}; starting cold")
        if target.is_dir() and any(target.iterdir()):
            return Outcome("present", str(target))
    except OSError as exc:
        return Outcome("error", f"cannot use {cache_root}: {exc.strerror or exc}; starting cold")
    try:
        with _FileLock(cache_root / ".restore.lock", timeout_s=limits.seconds):
            for leftover in cache_root.glob(".restore-*"):  # we hold the lock: whoever made these is dead
                _remove_tree(leftover)
            if target.is_dir() and any(target.iterdir()):
                return Outcome("present", f"{target} (restored by another pod meanwhile)")
            head = _head(s3, bucket, key)
            if head is None:
                return Outcome("miss", f"s3://{bucket}/{key} not found; starting cold")
            expected = metadata_value(head.get("Metadata"), SHA256_METADATA)
            if not expected:
                _remember_refused(cache_root, head)
                return Outcome("corrupt", f"s3://{bucket}/{key} has no {SHA256_METADATA} metadata; starting cold")
            tmp = cache_root / f".restore-{uuid.uuid4().hex[:12]}"
            tmp.mkdir()
            extracting = True  # from here on, a failure that is neither the transfer's nor the disk's is the archive's
            try:
                size = head.get("ContentLength")
                deadline = time.monotonic() + limits.seconds
                body = _ResumingBody(  # conditional on the HEAD's ETag, resumed where a body breaks
                    s3,
                    bucket,
                    key,
                    end=size - 1 if isinstance(size, int) and size > 0 else None,
                    etag=head.get("ETag") or None,
                    deadline=deadline,
                )
                stream = _InflatingPipe(
                    body,
                    deadline=deadline,
                    max_inflated=limits.unpacked_bytes + 512 * (2 * limits.members + 2) + (1 << 20),
                )
                try:
                    with tarfile.open(fileobj=stream, mode="r|") as archive:  # type: ignore[call-overload]
                        members = _extract_vetted(archive, tmp, limits, stream.deadline)
                    stream.drain()  # the rest: tar padding, then gzip's CRC and length
                finally:
                    stream.close()
                actual = stream.sha.hexdigest()
                if actual != expected:
                    _remember_refused(cache_root, head)
                    return Outcome("corrupt", f"checksum {actual} != recorded {expected}; starting cold")
                source = tmp / COMPILE_SUBDIR
                if not source.is_dir():
                    _remember_refused(cache_root, head)
                    return Outcome("corrupt", f"archive has no {COMPILE_SUBDIR}/; starting cold")
                if target.exists() or target.is_symlink():
                    left = _remove_tree(target)
                    if left:
                        return Outcome("error", f"cannot replace {target}: {left[0]}; starting cold")
                os.replace(source, target)  # same filesystem: the cache appears whole or not at all
            finally:
                _remove_tree(tmp)
        return Outcome("restored", f"s3://{bucket}/{key} -> {target} ({members} members, {stream.count} bytes)")
    except (ArchiveRefused, tarfile.TarError, EOFError, zlib.error, gzip.BadGzipFile) as exc:
        # A refused archive heals: this pod's publisher replaces exactly that one once it is ready.
        _remember_refused(cache_root, head)
        return Outcome("corrupt", f"{type(exc).__name__}: {exc}; starting cold")
    except _TransferFailed as exc:
        return Outcome("error", f"reading s3://{bucket}/{key} failed: {exc}; starting cold")
    except PermissionError as exc:
        return Outcome("error", f"permission denied: {exc.filename or exc}; starting cold")
    except Exception as exc:  # network, disk or anything else must not stop the pod
        if extracting and not (isinstance(exc, OSError) and exc.errno in _NODE_ERRNOS):
            # Any other failure while unpacking (a name too long for this filesystem, say) is the archive's:
            # every pod would meet it, so it is refused and healed like a corrupt one (issue 28).
            _remember_refused(cache_root, head)
            return Outcome("corrupt", f"{type(exc).__name__}: {exc}; starting cold")
        return Outcome("error", f"{type(exc).__name__}: {exc}; starting cold")


def _cache_entries(source: Path) -> Iterator[tuple[Path, str]]:
    """Directories and regular files under `source`, sorted, as (path, archive name); links and devices skipped."""
    yield source, COMPILE_SUBDIR
    for directory, dirs, names in os.walk(source):
        dirs.sort()
        base = Path(directory)
        rel = base.relative_to(source)
        for name in dirs:
            if not (base / name).is_symlink():
                yield base / name, str(Path(COMPILE_SUBDIR, rel, name))
        for name in sorted(names):
            path = base / name
            if path.is_file() and not path.is_symlink():
                yield path, str(Path(COMPILE_SUBDIR, rel, name))


def _add_member(archive: tarfile.TarFile, path: Path, name: str) -> None:
    """One directory or regular file, as restore reads it: name, type, mode, size and whole-second mtime.

    Owners are left out (restore ignores them, and `gettarinfo` looks each one up) and the
    mtime is whole seconds, so a member with a name under 100 bytes needs no pax header:
    one 512-byte header per member for restore to parse instead of three.
    """
    st = os.stat(path, follow_symlinks=False)
    info = tarfile.TarInfo(name)
    info.mode, info.mtime = stat.S_IMODE(st.st_mode), int(st.st_mtime)
    if stat.S_ISDIR(st.st_mode):
        info.type = tarfile.DIRTYPE
        archive.addfile(info)
        return
    if not stat.S_ISREG(st.st_mode):  # replaced by a link or device since it was listed
        return
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    with os.fdopen(fd, "rb") as handle:  # the file as opened, not whatever the path points at later
        info.size = os.fstat(fd).st_size
        archive.addfile(info, handle)


def publish_compile_cache(
    s3: Any, *, bucket: str, prefix: str, cache_key: str, cache_root: Path, level: int = GZIP_LEVEL
) -> Outcome:
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
        existing = _head(s3, bucket, key)
        if existing is not None and not _is_refused(cache_root, existing):
            return Outcome("exists", f"s3://{bucket}/{key}")
        read_fd, write_fd = os.pipe()
        reader, writer = os.fdopen(read_fd, "rb"), os.fdopen(write_fd, "wb")
        hashing = _HashingWriter(writer)
        failures: list[BaseException] = []

        def produce() -> None:
            try:
                with (
                    gzip.GzipFile(fileobj=hashing, mode="wb", compresslevel=level, mtime=0) as deflated,
                    tarfile.open(fileobj=deflated, mode="w|", format=tarfile.PAX_FORMAT) as archive,
                ):
                    for path, name in _cache_entries(source):
                        _add_member(archive, path, name)
            except BaseException as exc:
                failures.append(exc)
            finally:
                with contextlib.suppress(OSError):
                    writer.close()

        producer = threading.Thread(target=produce, name="fastload-publish-tar", daemon=True)
        producer.start()
        uploaded = True
        try:
            # Tagged: the bucket's lifecycle rule expires a temporary a killed publisher left (issue 28).
            extra = {"ContentType": "application/gzip", "Tagging": TEMPORARY_TAGGING}
            s3.upload_fileobj(reader, bucket, temporary, ExtraArgs=extra)
        finally:
            reader.close()  # an upload that failed early makes the producer's next write fail and stop
            producer.join()
        if failures:
            raise failures[0]
        current = _head(s3, bucket, key)
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


# Node-local model copies


def _manifest_path(name: object) -> Path | None:
    """A manifest entry's relative path, or None if it could escape the model folder."""
    if not isinstance(name, str) or name == "" or name.startswith("/") or "\\" in name or "\x00" in name:
        return None
    parts = name.split("/")
    if any(p in ("", ".", "..") for p in parts) or parts[0].startswith(".fastload") or parts[0] == MANIFEST_NAME:
        return None
    return Path(*parts)


class Restaged(Exception):
    """The model changed in S3 while it was being copied."""


def _manifest_files(body: bytes) -> list[tuple[Path, str, int, str]]:
    """(relative path, key name, size, sha256) per file, or ValueError for anything a stager would not write."""
    manifest = json.loads(body)
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, list) or not files:
        raise ValueError("manifest has no files")
    out = []
    for entry in files:
        name = entry.get("name") if isinstance(entry, dict) else None
        relative = _manifest_path(name)
        if relative is None:
            raise ValueError(f"unexpected file name in manifest: {name!r}")
        size, sha = entry.get("size"), entry.get("sha256")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ValueError(f"{name}: bad size {size!r}")
        if not isinstance(sha, str) or len(sha) != 64:
            raise ValueError(f"{name}: bad sha256 {sha!r}")
        out.append((relative, str(name), size, sha))
    return out


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
            data = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
            ranges: list[tuple[int, int]] = []
            etag = None
        else:
            ranges = [(start, min(start + part, size) - 1) for start in range(0, size, part)]
            first = s3.get_object(Bucket=bucket, Key=key, Range=f"bytes=0-{ranges[0][1]}")
            total = str(first.get("ContentRange", "")).rpartition("/")[2]
            if total and total != "*" and int(total) != size:
                raise Restaged(f"{key}: {total} bytes in S3, {size} in the manifest")
            etag = first.get("ETag")
            data = _read_range(s3, bucket, key, ranges[0], etag, first)
        if len(data) != (ranges[0][1] + 1 if ranges else len(data)):
            raise Restaged(f"{key}: short read")
        digest.update(data)
        out.write(data)
        if len(ranges) > 1:

            def fetch(r: tuple[int, int]) -> bytes:
                body = _read_range(s3, bucket, key, r, etag, None)
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


def _read_range(
    s3: Any, bucket: str, key: str, r: tuple[int, int], etag: str | None, first: dict[str, Any] | None
) -> bytes:
    """One range's bytes, resumed from where its body broke (conditional on `etag`): the range is kept, not redone."""
    body = _ResumingBody(s3, bucket, key, start=r[0], end=r[1], etag=etag, first=first)
    pieces = []
    try:
        while piece := body.read(_PIECE):
            pieces.append(piece)
    finally:
        body.close()
    return b"".join(pieces)


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
            left = _remove_tree(copy)
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
) -> Outcome:
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
        with _FileLock(root / f".{dest.name}.lock", timeout_s=24 * 3600):
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
) -> Outcome:
    base = prefix.strip("/")
    manifest_key = f"{base}/{MANIFEST_NAME}"
    before = s3.get_object(Bucket=bucket, Key=manifest_key)["Body"].read()
    try:
        files = _manifest_files(before)
    except ValueError as exc:
        return Outcome("error", str(exc))
    content = hashlib.sha256(before).hexdigest()[:16]
    copies = dest.parent / COPIES_DIR
    copy = copies / f"{dest.name}-{content}"
    if (copy / COMPLETE_MARKER).exists():
        _lease(copy)
        _point(dest, copy)
        _check_pointed(dest, copy)
        collect_copies(dest.parent, lease_grace_s=grace, budget_bytes=budget, own=dest.name)
        return Outcome("present", f"{dest} -> {copy.name}")
    for leftover in copies.glob(f".{dest.name}-*.partial-*"):  # we hold this model's lock: a killed copy's
        _remove_tree(leftover)
    if copy.exists():
        _remove_tree(copy)
    previous = _previous_files(dest)
    need = sum(size for _, name, size, sha in files if previous.get(name) != sha)
    fits, why = collect_copies(dest.parent, lease_grace_s=grace, budget_bytes=budget, need_bytes=need, own=dest.name)
    if not fits:
        return Outcome("error", f"no room for the model copy: {why}")
    partial = copies / f".{dest.name}-{content}.partial-{uuid.uuid4().hex[:8]}"
    partial.mkdir()
    try:
        for relative, name, size, sha in files:
            local = partial / relative
            local.parent.mkdir(parents=True, exist_ok=True)
            if previous.get(name) == sha and _link(dest / relative, local, size):
                continue
            try:
                _download_verified(s3, bucket, f"{base}/{name}", local, size, sha, part, workers)
            except Exception as exc:
                if isinstance(exc, Restaged) or _error_code(exc) in ("412", "PreconditionFailed", "NoSuchKey"):
                    if s3.get_object(Bucket=bucket, Key=manifest_key)["Body"].read() != before:
                        raise Restaged(f"the model was restaged while {name} was copied") from exc
                    return Outcome(
                        "error", f"{exc}; the manifest is unchanged, so the object is corrupt or was replaced"
                    )
                raise
        after = s3.get_object(Bucket=bucket, Key=manifest_key)["Body"].read()
        if after != before:
            raise Restaged("the manifest changed while the files were copied")
        (partial / MANIFEST_NAME).write_bytes(before)
        (partial / COMPLETE_MARKER).write_text(json.dumps({"source": f"s3://{bucket}/{base}", "content": content}))
        _lease(partial)  # leased before it is complete: never a copy with no lease (issue 28)
        os.replace(partial, copy)
    finally:
        if partial.exists():
            _remove_tree(partial)
    _lease(copy)
    _point(dest, copy)
    _check_pointed(dest, copy)
    collect_copies(dest.parent, lease_grace_s=grace, budget_bytes=budget, own=dest.name)
    return Outcome("staged", f"s3://{bucket}/{base} -> {dest} -> {copy.name}")


def _check_pointed(dest: Path, copy: Path) -> None:
    """`dest` must lead to a complete copy once pointed: a copy collected meanwhile is copied again, never reported."""
    if not (dest / COMPLETE_MARKER).is_file() or not (copy / COMPLETE_MARKER).is_file():
        raise Restaged(f"{copy.name} was removed while it was being switched to")


def _previous_files(dest: Path) -> dict[str, str]:
    """name -> sha256 of the complete copy `dest` points at now (for hard-linking unchanged files)."""
    try:
        if not (dest / COMPLETE_MARKER).exists():
            return {}
        return {name: sha for _, name, _, sha in _manifest_files((dest / MANIFEST_NAME).read_bytes())}
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


# Immutable revisions (issue 28); the same rules as fastload_constructs/core/access/revisions.py,
# which a test holds equal. The pointer is read once per pod, here, and never again.
POINTER_NAME = "fastload-current.json"
POINTER_VERSION = 1
REVISION_ID = re.compile(r"^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$")
UNVERSIONED = "unversioned"
RESOLVE_ATTEMPTS = 5
_RETRIED_CODES = frozenset({"500", "502", "503", "504", "InternalError", "SlowDown", "ServiceUnavailable"})


def _get_or_none(s3: Any, bucket: str, key: str) -> bytes | None:
    """An object's bytes, None when it does not exist; transient failures retried, others raised."""
    for attempt in range(RESOLVE_ATTEMPTS):
        try:
            return s3.get_object(Bucket=bucket, Key=key)["Body"].read()  # type: ignore[no-any-return]
        except Exception as exc:
            # Absent as in _head. A real denial leaves nothing readable, and resolve_revision then fails
            # naming both objects.
            if _error_code(exc) in _ABSENT_CODES:
                return None
            if attempt + 1 == RESOLVE_ATTEMPTS or not (_transient(exc) or _error_code(exc) in _RETRIED_CODES):
                raise
            _backoff(attempt)
    return None


def pointer_revision(body: bytes) -> str:
    """The revision a pointer names; ValueError for anything fastload did not write."""
    try:
        data = json.loads(body)
    except RecursionError:
        raise ValueError("not a fastload pointer (JSON nested too deep)") from None
    version = data.get("fastload_pointer_version") if isinstance(data, dict) else None
    if type(version) is not int or version != POINTER_VERSION:
        raise ValueError("not a fastload pointer (fastload_pointer_version 1)")
    if not isinstance(data.get("pinned", False), bool):
        raise ValueError(f"pointer's pinned is not true or false: {data.get('pinned')!r}")
    revision = data.get("revision")
    if not isinstance(revision, str) or not REVISION_ID.fullmatch(revision):
        raise ValueError(f"pointer names no valid revision: {revision!r}")
    return revision


def resolve_revision(s3: Any, *, bucket: str, prefix: str) -> tuple[str, str]:
    """(model prefix to read, revision id) for the model staged at s3://bucket/prefix; ValueError if none is.

    A prefix that names a revision folder itself is read as it is (a configuration pinned to it);
    a prefix with a pointer reads the revision it names, which must be complete; a prefix with a
    manifest and no pointer is a flat stage (from before revisions), read as it is.
    """
    base = prefix.strip("/")
    parts = base.split("/")
    if len(parts) >= 2 and parts[-2] == "revisions" and REVISION_ID.fullmatch(parts[-1]):
        if _get_or_none(s3, bucket, f"{base}/{MANIFEST_NAME}") is None:
            raise ValueError(f"s3://{bucket}/{base} has no {MANIFEST_NAME}: not a complete revision")
        return base, parts[-1]
    pointer = _get_or_none(s3, bucket, f"{base}/{POINTER_NAME}")
    if pointer is not None:
        revision = pointer_revision(pointer)
        folder = f"{base}/revisions/{revision}"
        if _get_or_none(s3, bucket, f"{folder}/{MANIFEST_NAME}") is None:
            raise ValueError(f"{POINTER_NAME} names {revision}, which has no {MANIFEST_NAME} (collected or unfinished)")
        return folder, revision
    if _get_or_none(s3, bucket, f"{base}/{MANIFEST_NAME}") is not None:
        return base, UNVERSIONED
    raise ValueError(
        f"no staged model at s3://{bucket}/{base}: neither {POINTER_NAME} nor {MANIFEST_NAME} could be read "
        "(run fastload stage; or the pod's role may not read this prefix)"
    )


def write_resolved(out: Path, bucket: str, model_prefix: str, revision: str) -> None:
    """`model-uri` and `revision` in `out`, each written whole (rename) so no reader sees half a value."""
    out.mkdir(parents=True, exist_ok=True)
    for name, value in (("model-uri", f"s3://{bucket}/{model_prefix}"), ("revision", revision)):
        tmp = out / f".{name}.tmp"
        tmp.write_text(value)
        os.replace(tmp, out / name)


def read_resolved(directory: Path) -> tuple[str, str, str]:
    """(bucket, model prefix, revision) that resolve-revision wrote; ValueError when it wrote nothing usable."""
    uri = (directory / "model-uri").read_text().strip()
    revision = (directory / "revision").read_text().strip()
    if not uri.startswith("s3://") or "/" not in uri[len("s3://") :]:
        raise ValueError(f"{directory}/model-uri holds {uri!r}, not s3://bucket/prefix")
    if revision != UNVERSIONED and not REVISION_ID.fullmatch(revision):
        raise ValueError(f"{directory}/revision holds {revision!r}")
    bucket, _, prefix = uri[len("s3://") :].partition("/")
    return bucket, prefix, revision


def revision_cache_key(cache_key: str, revision: str) -> str:
    """The compile-cache key of one revision: the archive of another revision's path would never be a hit."""
    return cache_key if revision == UNVERSIONED else f"{cache_key}-{revision}"


def _client(endpoint_url: str | None) -> Any:
    import boto3  # deferred: --help must work without it
    from botocore.config import Config

    # Checksums are ours (SHA-256); a server's whole-object checksum header on a ranged GET must not fail it.
    config = Config(response_checksum_validation="when_required", retries={"mode": "standard", "max_attempts": 5})
    return boto3.client("s3", endpoint_url=endpoint_url or None, config=config)


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    del frame
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cache_sync", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "command", choices=["restore-compile-cache", "publish-compile-cache", "stage-model", "resolve-revision"]
    )
    parser.add_argument("--bucket", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--cache-key", help="compile cache key (restore/publish)")
    parser.add_argument("--cache-root", type=Path, help="VLLM_CACHE_ROOT (restore/publish)")
    parser.add_argument("--dest", type=Path, help="node-local model folder (stage-model)")
    parser.add_argument("--verify-sha256", action="store_true", help="kept for old manifests: every copy is verified")
    parser.add_argument("--budget-gib", type=float, help="model copies on this node stay within this (stage-model)")
    parser.add_argument(
        "--lease-grace-s", type=float, default=DEFAULT_LEASE_GRACE_S, help="keep a used old copy this long"
    )
    parser.add_argument("--wait-url", help="publish only after this URL answers 200")
    parser.add_argument("--wait-timeout", type=float, default=3600.0)
    parser.add_argument("--then-sleep", action="store_true", help="sleep forever afterwards (sidecar)")
    parser.add_argument("--endpoint-url", default=os.environ.get("AWS_ENDPOINT_URL"))
    parser.add_argument(
        "--revision-dir", type=Path, help="where resolve-revision writes (resolve) or what it wrote (the others)"
    )
    args = parser.parse_args(argv)
    # The kubelet stops a pod's containers with SIGTERM, whose default ends Python at once: as SystemExit,
    # `finally` blocks run, so a publish deletes its temporary archive and aborts its upload.
    with contextlib.suppress(ValueError):  # not the main thread (tests calling main from a thread)
        signal.signal(signal.SIGTERM, _exit_on_sigterm)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s fastload-cache %(message)s")

    if args.command == "resolve-revision":
        return _resolve_command(args)
    try:
        if args.revision_dir is not None:
            resolved_bucket, resolved_prefix, revision = read_resolved(args.revision_dir)
            if args.command == "stage-model":
                args.bucket, args.prefix = resolved_bucket, resolved_prefix
            elif args.cache_key:
                args.cache_key = revision_cache_key(args.cache_key, revision)
        s3 = _client(args.endpoint_url)
        if args.command == "stage-model":
            if args.dest is None:
                parser.error("--dest is required for stage-model")
            budget = int(args.budget_gib * 1024**3) if args.budget_gib else None
            outcome = copy_model_to_node(
                s3,
                bucket=args.bucket,
                prefix=args.prefix,
                dest=args.dest,
                budget_bytes=budget,
                lease_grace_s=args.lease_grace_s,
            )
        else:
            if not args.cache_key or args.cache_root is None:
                parser.error("--cache-key and --cache-root are required")
            if args.command == "restore-compile-cache":
                outcome = restore_compile_cache(
                    s3, bucket=args.bucket, prefix=args.prefix, cache_key=args.cache_key, cache_root=args.cache_root
                )
            elif args.wait_url and not wait_until_ready(args.wait_url, timeout_s=args.wait_timeout):
                outcome = Outcome("error", f"{args.wait_url} never became ready; not publishing")
            else:
                outcome = publish_compile_cache(
                    s3, bucket=args.bucket, prefix=args.prefix, cache_key=args.cache_key, cache_root=args.cache_root
                )
    except Exception as exc:  # e.g. no boto3, no region: a cache step must still not crash the pod
        outcome = Outcome("error", f"{type(exc).__name__}: {exc}")
    level = logging.WARNING if outcome.status in ("corrupt", "error", "miss") else logging.INFO
    LOG.log(level, "%s %s: %s", args.command, outcome.status, outcome.detail)
    if args.then_sleep:
        while True:  # a sidecar that exits would be restarted and publish again
            time.sleep(3600)
    # stage-model failing must fail the init container: the pod would otherwise read a missing path.
    return 1 if (args.command == "stage-model" and outcome.status == "error") else 0


def _resolve_command(args: argparse.Namespace) -> int:
    """Resolve once; the pod cannot start without a model, so failing here fails the init container (retried)."""
    if args.revision_dir is None:
        LOG.error("resolve-revision needs --revision-dir")
        return 2
    try:
        prefix, revision = resolve_revision(_client(args.endpoint_url), bucket=args.bucket, prefix=args.prefix)
        write_resolved(args.revision_dir, args.bucket, prefix, revision)
    except Exception as exc:
        LOG.error("resolve-revision error: s3://%s/%s: %s: %s", args.bucket, args.prefix, type(exc).__name__, exc)
        return 1
    LOG.info("resolve-revision %s: this pod loads s3://%s/%s", revision, args.bucket, prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
