"""The compile-cache archive: a tar.gz streamed out of a cache folder, and streamed back in with every member vetted.

A helper of compile_cache.py, shipped beside it in the runtime ConfigMap (standard library only).
Restore reads untrusted bytes: each member is checked (type, path, size, count, time) before a
byte of it is written, by the rules of tarfile's `data` filter and stricter.
"""

from __future__ import annotations

import hashlib
import os
import queue
import stat
import tarfile
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

# The part of VLLM_CACHE_ROOT that holds compiled artifacts; `assets/` (files the
# streamer staged) and anything else there are neither published nor restored.
COMPILE_SUBDIR = "torch_compile_cache"
# Restore limits: an archive over any of them is refused (start cold).
MAX_MEMBERS = 200_000
MAX_UNPACKED_BYTES = 64 * 1024**3
MAX_RESTORE_SECONDS = 900.0
COPY_BLOCK = 1 << 20
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


class TransferFailed(Exception):
    """Reading the archive from S3 failed (after retries, or past the deadline): the archive may be fine."""


class ArchiveRefused(Exception):
    """The archive breaks a rule (member type, path, size, count, time): nothing of it is used."""


class InflatingPipe:
    """GET body -> SHA-256 -> gunzip in a thread, read as a stream of tar bytes by the extracting thread.

    Hashing and inflating (both release the GIL) overlap with parsing and writing the
    members, as `curl | tar -xz` overlaps its processes. At most `depth` chunks of at most
    `chunk` bytes wait in memory; a deadline and a cap on inflated bytes stop a bomb early.
    """

    def __init__(self, body: Any, *, deadline: float, max_inflated: int, chunk: int = 4 << 20, depth: int = 8) -> None:
        self.body, self.deadline, self.max_inflated, self.chunk = body, deadline, max_inflated, chunk
        self.sha = hashlib.sha256()
        self.count = 0
        self._queue: queue.Queue[bytes | BaseException | None] = queue.Queue(maxsize=depth)
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
            except queue.Full:
                continue

    def _produce(self) -> None:
        inflated = 0
        try:
            inflater = zlib.decompressobj(wbits=31)  # gzip: checks the trailer's CRC-32 and length at the end
            while not self._stop.is_set():
                if time.monotonic() > self.deadline:
                    raise ArchiveRefused("restore ran past its time limit")
                try:
                    data = self.body.read(COPY_BLOCK)
                except Exception as exc:  # the transfer's failure, not the archive's: no healing
                    raise TransferFailed(f"{type(exc).__name__}: {exc}") from exc
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
        while self.read(COPY_BLOCK):
            pass

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


class HashingWriter:
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
class Limits:
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
        while block := source.read(min(COPY_BLOCK, size - written + 1)):
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


class _Tree:
    """What an extraction made so far under `root`: directories (made on demand) and files, as path parts."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.files: set[tuple[str, ...]] = set()
        self.dirs: set[tuple[str, ...]] = {()}
        self.dir_modes: list[tuple[str, int]] = []

    def make_dir(self, parts: tuple[str, ...]) -> None:
        depth = len(parts)
        while parts[:depth] not in self.dirs:  # the deepest ancestor already made
            depth -= 1
        for end in range(depth + 1, len(parts) + 1):
            if parts[:end] in self.files:
                raise ArchiveRefused(f"directory over a file: {'/'.join(parts[:end])!r}")
            os.mkdir(os.path.join(self.root, *parts[:end]))  # a restore's new folder: only we write there
            self.dirs.add(parts[:end])

    def add_file(self, parts: tuple[str, ...], name: str) -> str:
        """The new file's path, its directories made; ArchiveRefused for a second member of one path."""
        if parts in self.files or parts in self.dirs:
            raise ArchiveRefused(f"duplicate member: {name!r}")
        self.files.add(parts)
        self.make_dir(parts[:-1])
        return os.path.join(self.root, *parts)

    def set_dir_modes(self) -> None:
        for directory, mode in reversed(self.dir_modes):  # deepest first: a read-only dir never blocks its children
            os.chmod(directory, mode)


def extract_vetted(archive: tarfile.TarFile, into: Path, limits: Limits, deadline: float) -> int:
    """Extract a streamed archive member by member, each vetted before a byte of it is written.

    One thread, as GNU tar does: creating files and directories is metadata work the
    filesystem serialises per directory, and measured on ext4, parallel writers made it
    slower (kernel time 2-5x higher) while inflating already runs beside this thread.
    """
    count, unpacked = 0, 0
    umask = os.umask(0o22)
    os.umask(umask)
    tree = _Tree(str(into))
    for member in archive:
        count += 1
        if time.monotonic() > deadline:
            raise ArchiveRefused("restore ran past its time limit")
        if count > limits.members:
            raise ArchiveRefused(f"more than {limits.members} members")
        parts = _vetted_path(member)
        if member.isdir():
            tree.make_dir(parts)
            tree.dir_modes.append((os.path.join(tree.root, *parts), _safe_mode(member)))
            continue
        target = tree.add_file(parts, member.name)
        unpacked += member.size
        if unpacked > limits.unpacked_bytes:
            raise ArchiveRefused(f"more than {limits.unpacked_bytes} bytes unpacked")
        source = archive.extractfile(member)
        if source is None:
            raise ArchiveRefused(f"unreadable member: {member.name!r}")
        _write_member(source, target, member.size, _safe_mode(member), member.mtime, umask, member.name)
    tree.set_dir_modes()
    return count


def cache_entries(source: Path) -> Iterator[tuple[Path, str]]:
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


def add_member(archive: tarfile.TarFile, path: Path, name: str) -> None:
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
