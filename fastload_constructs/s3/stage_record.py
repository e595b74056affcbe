"""What `fastload stage` remembers between runs, so a re-run reads no file it already hashed.

One JSON file per model folder under `$XDG_CACHE_HOME/fastload/stage/` (default
`~/.cache`), never inside the model folder (it may be read-only or shared). It
holds, per file, the size, mtime and inode it had when hashed and its SHA-256;
and per destination URI, the ETag and SHA-256 of each object this machine
uploaded there. A file whose size, mtime and inode are unchanged is taken to
have its recorded hash (as rsync and `aws s3 sync` trust size and mtime);
`fastload stage --verify` ignores the record and re-hashes everything.

A missing, unreadable or foreign record is simply empty: the record only ever
saves work, it never decides that an object is correct on its own (a skip also
needs S3 to list the same size and ETag).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastload_constructs.s3.staging import LocalFile

RECORD_VERSION = 1


def record_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "fastload" / "stage"


@dataclass
class StageRecord:
    """Hashes of local files and the objects uploaded from them; thread-safe, saved atomically."""

    root: Path
    path: Path
    hashes: dict[str, dict[str, Any]] = field(default_factory=dict)
    uploads: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    # Multipart uploads this machine started and has not completed or aborted yet, per URI: upload id -> key.
    # A stage killed outright (SIGKILL, power) leaves them open; the next successful stage aborts them.
    pending: dict[str, dict[str, str]] = field(default_factory=dict)
    # The revision a stage to each URI is writing and has not finished: a re-run resumes it.
    open_revisions: dict[str, str] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def load(cls, root: Path, directory: Path | None = None) -> StageRecord:
        resolved = root.resolve()
        name = hashlib.sha256(str(resolved).encode()).hexdigest()[:24] + ".json"
        path = (directory or record_dir()) / name
        record = cls(root=resolved, path=path)
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            return record
        if (
            isinstance(data, dict)
            and data.get("version") == RECORD_VERSION
            and data.get("root") == str(resolved)
            and isinstance(data.get("hashes"), dict)
            and isinstance(data.get("uploads"), dict)
        ):
            record.hashes, record.uploads = data["hashes"], data["uploads"]
            opened = data.get("open_revisions")
            if isinstance(opened, dict):
                record.open_revisions = {str(u): str(r) for u, r in opened.items()}
            pending = data.get("pending")
            if isinstance(pending, dict):
                record.pending = {
                    uri: {str(u): str(k) for u, k in ids.items()}
                    for uri, ids in pending.items()
                    if isinstance(ids, dict)
                }
        return record

    def known_sha256(self, f: LocalFile) -> str | None:
        """The recorded hash of `f`, if the file has not changed since it was hashed."""
        entry = self.hashes.get(f.name)
        if not isinstance(entry, dict):
            return None
        if (entry.get("size"), entry.get("mtime_ns"), entry.get("inode")) != (f.size, f.mtime_ns, f.inode):
            return None
        sha = entry.get("sha256")
        return sha if isinstance(sha, str) and len(sha) == 64 else None

    def uploaded(self, uri: str, name: str, etag: str) -> str | None:
        """The SHA-256 of the object this machine uploaded as `name` under `uri`, if its ETag is still `etag`."""
        entry = self.uploads.get(uri, {}).get(name)
        if isinstance(entry, dict) and etag and entry.get("etag") == etag:
            sha = entry.get("sha256")
            return sha if isinstance(sha, str) else None
        return None

    def remember_hash(self, f: LocalFile, sha256: str) -> None:
        with self._lock:
            self.hashes[f.name] = {"size": f.size, "mtime_ns": f.mtime_ns, "inode": f.inode, "sha256": sha256}

    def remember_upload(self, uri: str, name: str, etag: str, sha256: str, size: int) -> None:
        with self._lock:
            self.uploads.setdefault(uri, {})[name] = {"etag": etag, "sha256": sha256, "size": size}

    def remember_pending(self, uri: str, upload_id: str, key: str) -> None:
        with self._lock:
            self.pending.setdefault(uri, {})[upload_id] = key

    def forget_pending(self, uri: str, upload_id: str) -> None:
        with self._lock:
            self.pending.get(uri, {}).pop(upload_id, None)
            if uri in self.pending and not self.pending[uri]:
                del self.pending[uri]

    def pending_for(self, uri: str) -> dict[str, str]:
        with self._lock:
            return dict(self.pending.get(uri, {}))

    def open_revision(self, uri: str) -> str | None:
        with self._lock:
            return self.open_revisions.get(uri)

    def remember_open_revision(self, uri: str, revision: str) -> None:
        with self._lock:
            self.open_revisions[uri] = revision

    def forget_open_revision(self, uri: str) -> None:
        with self._lock:
            self.open_revisions.pop(uri, None)

    def save(self) -> None:
        """Write atomically; a record that cannot be written only costs the next run a re-hash.

        The temporary file goes whatever happens (a full disk fails the write, not the clean-up),
        and temporaries a killed run left behind are removed once they are an hour old.
        """
        with self._lock:
            payload = json.dumps(
                {
                    "version": RECORD_VERSION,
                    "root": str(self.root),
                    "hashes": self.hashes,
                    "uploads": self.uploads,
                    "pending": self.pending,
                    "open_revisions": self.open_revisions,
                }
            )
        tmp = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _remove_stale_temporaries(self.path.parent)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=TEMP_PREFIX)
            with os.fdopen(fd, "w") as handle:
                handle.write(payload)
            os.replace(tmp, self.path)
            tmp = None
        except OSError:
            pass
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)


TEMP_PREFIX = ".record-"
# A record is written in well under a second; one an hour old belongs to a run that was killed mid-write.
STALE_TEMP_S = 3600.0


def _remove_stale_temporaries(directory: Path) -> None:
    now = time.time()
    for leftover in directory.glob(f"{TEMP_PREFIX}*"):
        with contextlib.suppress(OSError):
            if now - leftover.lstat().st_mtime > STALE_TEMP_S:
                leftover.unlink()
