"""The staged model's manifest as the in-pod steps read it: every value checked before it is used.

A helper of the in-pod scripts, shipped beside them in the runtime ConfigMap (standard library only).
`fastload stage` writes the manifest last (`fastload-manifest.json`: each file's name, size and
SHA-256); whoever may write the model's prefix could write any bytes there, and a node-local copy's
manifest lies on a disk other pods share. So a name that could leave the model's folder, a size
that is not a whole number S3 could hold (400 digits, negative, NaN or Infinity, which Python's
json accepts), or a hash that is not 64 hex digits refuses the manifest with one short line.
"""

from __future__ import annotations

import json
from pathlib import Path

MANIFEST_NAME = "fastload-manifest.json"
# Amazon S3 User Guide, "Uploading objects": an object is at most 5 TiB (5 TB in the guide's units of 2^40).
MAX_OBJECT_BYTES = 5 * 1024**4
_HEX = frozenset("0123456789abcdef")


def shown(value: object, limit: int = 40) -> str:
    """`value` as it may appear in a message: its repr, cut to `limit` characters."""
    try:
        text = repr(value)
    except ValueError:  # an int past Python's digit limit for str()
        text = f"an integer of over {limit} digits"
    return text if len(text) <= limit else f"{text[: limit - 12]}... ({len(text)} characters)"


def _relative_path(name: object) -> Path | None:
    """A manifest entry's relative path, or None if it could escape the model folder."""
    if not isinstance(name, str) or name == "" or name.startswith("/") or "\\" in name or "\x00" in name:
        return None
    parts = name.split("/")
    if any(p in ("", ".", "..") for p in parts) or parts[0].startswith(".fastload") or parts[0] == MANIFEST_NAME:
        return None
    return Path(*parts)


def _entry(entry: object) -> tuple[Path, str, int, str]:
    name = entry.get("name") if isinstance(entry, dict) else None
    relative = _relative_path(name)
    if relative is None:
        raise ValueError(f"unexpected file name in manifest: {shown(name)}")
    assert isinstance(entry, dict) and isinstance(name, str)
    size, sha = entry.get("size"), entry.get("sha256")
    if type(size) is not int or not 0 <= size <= MAX_OBJECT_BYTES:
        raise ValueError(f"{shown(name)}: size {shown(size)} is not a whole number of bytes from 0 to 5 TiB")
    if not isinstance(sha, str) or len(sha) != 64 or not _HEX.issuperset(sha):
        raise ValueError(f"{shown(name)}: sha256 {shown(sha)} is not 64 lowercase hex digits")
    return relative, name, size, sha


def manifest_files(body: bytes) -> list[tuple[Path, str, int, str]]:
    """(relative path, key name, size, sha256) per file, or ValueError (one short line) for anything else."""
    try:
        manifest = json.loads(body)  # NaN and Infinity parse as floats: no size accepts them
    except RecursionError:
        raise ValueError("manifest is not JSON a stager writes (nested too deep)") from None
    except ValueError as exc:  # not JSON, or an integer past Python's digit limit (3.11+)
        raise ValueError(f"manifest is not JSON a stager writes ({shown(str(exc), 80)})") from None
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, list) or not files:
        raise ValueError("manifest has no files")
    return [_entry(entry) for entry in files]
