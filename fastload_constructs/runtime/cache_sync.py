"""Move vLLM's compile cache and model weights between S3 and a node's NVMe.

This file runs inside the vLLM pod (init container and sidecar, from the vLLM
image, which ships Python and boto3), mounted from a ConfigMap. It therefore
imports nothing but the standard library and boto3, and never raises on a
cache problem: a missing, partial or corrupt cache means "start cold", logged
as a warning, never a pod that cannot start.

Commands:
  restore-compile-cache  fetch <prefix>/<key>.tar.gz, verify, unpack into the cache dir
  publish-compile-cache  after vLLM reports ready, upload the cache once if the key is absent
  stage-model            copy a staged model (s3://bucket/prefix) to NVMe once per node
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import logging
import os
import shutil
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LOG = logging.getLogger("fastload.cache_sync")

# Object metadata key holding the archive's SHA-256, checked before unpacking.
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


@dataclass(frozen=True)
class Outcome:
    """What a sync step did, for the log line and the tests."""

    status: str  # restored | miss | corrupt | present | published | exists | staged | error
    detail: str = ""


def archive_key(prefix: str, cache_key: str) -> str:
    return f"{prefix.strip('/')}/{cache_key}.tar.gz" if prefix.strip("/") else f"{cache_key}.tar.gz"


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _error_code(exc: Exception) -> str:
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def _head(s3: Any, bucket: str, key: str) -> dict[str, Any] | None:
    """HEAD an object; None when it does not exist.

    S3 answers 403 rather than 404 for a missing key when the caller may not
    list the bucket, and the pod role may list only the model prefix: a 403
    here is read as "absent". A real denial then surfaces on the GET or PUT.
    """
    try:
        return s3.head_object(Bucket=bucket, Key=key)
    except Exception as exc:  # botocore ClientError; not imported so the file stays light
        if _error_code(exc) in ("404", "NoSuchKey", "NotFound", "403", "AccessDenied", "Forbidden"):
            return None
        raise


def _safe_members(archive: tarfile.TarFile, dest: Path) -> list[tarfile.TarInfo]:
    """Refuse members that would land outside `dest` or are links/devices."""
    members = []
    root = dest.resolve()
    for member in archive.getmembers():
        if not (member.isfile() or member.isdir()):
            raise tarfile.TarError(f"unsupported member type: {member.name}")
        target = (dest / member.name).resolve()
        if target != root and root not in target.parents:
            raise tarfile.TarError(f"member escapes the cache dir: {member.name}")
        members.append(member)
    return members


def restore_compile_cache(s3: Any, *, bucket: str, prefix: str, cache_key: str, cache_root: Path) -> Outcome:
    """Restore `<cache_root>/torch_compile_cache` from S3 unless it is already there."""
    target = cache_root / COMPILE_SUBDIR
    if target.is_dir() and any(target.iterdir()):
        return Outcome("present", str(target))
    key = archive_key(prefix, cache_key)
    head: dict[str, Any] | None = None
    try:
        head = _head(s3, bucket, key)
        if head is None:
            return Outcome("miss", f"s3://{bucket}/{key} not found; starting cold")
        expected = head.get("Metadata", {}).get(SHA256_METADATA)
        cache_root.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=cache_root, prefix=".restore-") as tmp:
            local = Path(tmp) / "cache.tar.gz"
            s3.download_file(bucket, key, str(local))
            actual = _sha256_file(local)
            if not expected or actual != expected:
                _remember_refused(cache_root, head)
                return Outcome("corrupt", f"checksum {actual} != recorded {expected}; starting cold")
            unpacked = Path(tmp) / "unpacked"
            unpacked.mkdir()
            with tarfile.open(local, "r:gz") as archive:
                archive.extractall(unpacked, members=_safe_members(archive, unpacked))
            source = unpacked / COMPILE_SUBDIR
            if not source.is_dir():
                _remember_refused(cache_root, head)
                return Outcome("corrupt", f"archive has no {COMPILE_SUBDIR}/; starting cold")
            if target.exists():
                shutil.rmtree(target)
            os.replace(source, target)  # same filesystem: the cache appears whole or not at all
        return Outcome("restored", f"s3://{bucket}/{key} -> {target}")
    except (tarfile.TarError, EOFError, OSError) as exc:
        _remember_refused(cache_root, head)
        return Outcome("corrupt", f"{type(exc).__name__}: {exc}; starting cold")
    except Exception as exc:  # network or permission trouble must not stop the pod
        return Outcome("error", f"{type(exc).__name__}: {exc}; starting cold")


def publish_compile_cache(s3: Any, *, bucket: str, prefix: str, cache_key: str, cache_root: Path) -> Outcome:
    """Upload the compile cache once: to a temporary key, then copied into place.

    Readers only ever see the final key, which is created by a single server-side
    copy of a complete, checksummed upload. Two pods publishing at once each copy
    a complete archive of the same configuration, so whichever lands last is as
    valid as the first; a pod that sees the key already present does nothing.
    """
    source = cache_root / COMPILE_SUBDIR
    if not source.is_dir() or not any(source.rglob("*")):
        return Outcome("miss", f"nothing to publish under {source}")
    key = archive_key(prefix, cache_key)
    try:
        existing = _head(s3, bucket, key)
        if existing is not None and not _is_refused(cache_root, existing):
            return Outcome("exists", f"s3://{bucket}/{key}")
        with tempfile.TemporaryDirectory(prefix="fastload-publish-") as tmp:
            local = Path(tmp) / "cache.tar.gz"
            with tarfile.open(local, "w:gz") as archive:
                archive.add(source, arcname=COMPILE_SUBDIR)
            digest = _sha256_file(local)
            temporary = f"{key}.tmp-{uuid.uuid4().hex}"
            s3.upload_file(str(local), bucket, temporary, ExtraArgs={"Metadata": {SHA256_METADATA: digest}})
            try:
                current = _head(s3, bucket, key)
                if current is not None and not _is_refused(cache_root, current):
                    return Outcome("exists", f"s3://{bucket}/{key} (published by another pod meanwhile)")
                s3.copy_object(
                    Bucket=bucket,
                    Key=key,
                    CopySource={"Bucket": bucket, "Key": temporary},
                    MetadataDirective="COPY",
                )
            finally:
                s3.delete_object(Bucket=bucket, Key=temporary)
        (cache_root / REFUSED_MARKER).unlink(missing_ok=True)
        if existing is not None:
            return Outcome("published", f"s3://{bucket}/{key} sha256={digest} (replaced a refused archive)")
        return Outcome("published", f"s3://{bucket}/{key} sha256={digest}")
    except Exception as exc:
        return Outcome("error", f"{type(exc).__name__}: {exc}")


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


def _manifest_path(name: object) -> Path | None:
    """A manifest entry's relative path, or None if it could escape the model folder."""
    if not isinstance(name, str) or name == "" or name.startswith("/") or "\\" in name:
        return None
    parts = name.split("/")
    if any(p in ("", ".", "..") for p in parts) or parts[0].startswith(".fastload"):
        return None
    return Path(*parts)


def stage_model(s3: Any, *, bucket: str, prefix: str, dest: Path, verify_sha256: bool = False) -> Outcome:
    """Copy a staged model to `dest` once per node, under a lock, complete-marker last.

    Only a model staged by `fastload stage` (it has a manifest) is copied, and
    every file's size (and with `verify_sha256` its SHA-256) is checked against
    the manifest, so a partial copy is never mistaken for a model. Other pods
    on the node wait on the lock.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(dest.parent / f".{dest.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (dest / COMPLETE_MARKER).exists():
            return Outcome("present", str(dest))
        try:
            body = s3.get_object(Bucket=bucket, Key=f"{prefix.strip('/')}/{MANIFEST_NAME}")["Body"].read()
            manifest = json.loads(body)
            files = manifest["files"]
            partial = dest.with_name(f".{dest.name}.partial")
            if partial.exists():
                shutil.rmtree(partial)
            partial.mkdir()
            for entry in files:
                name = entry["name"]
                relative = _manifest_path(name)
                if relative is None:
                    shutil.rmtree(partial)
                    return Outcome("error", f"unexpected file name in manifest: {name!r}")
                local = partial / relative
                local.parent.mkdir(parents=True, exist_ok=True)
                s3.download_file(bucket, f"{prefix.strip('/')}/{name}", str(local))
                problem = None
                if local.stat().st_size != int(entry["size"]):
                    problem = f"{name}: size {local.stat().st_size} != manifest {entry['size']}"
                elif verify_sha256 and _sha256_file(local) != entry.get("sha256"):
                    problem = f"{name}: sha256 differs from the manifest"
                if problem:
                    shutil.rmtree(partial)
                    return Outcome("error", problem)
            (partial / MANIFEST_NAME).write_bytes(body)
            (partial / COMPLETE_MARKER).write_text(json.dumps({"source": f"s3://{bucket}/{prefix}"}))
            if dest.exists():
                shutil.rmtree(dest)
            os.replace(partial, dest)
            return Outcome("staged", f"s3://{bucket}/{prefix} -> {dest}")
        except Exception as exc:
            return Outcome("error", f"{type(exc).__name__}: {exc}")


def _client(endpoint_url: str | None) -> Any:
    import boto3  # deferred: --help must work without it

    return boto3.client("s3", endpoint_url=endpoint_url or None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cache_sync", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["restore-compile-cache", "publish-compile-cache", "stage-model"])
    parser.add_argument("--bucket", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--cache-key", help="compile cache key (restore/publish)")
    parser.add_argument("--cache-root", type=Path, help="VLLM_CACHE_ROOT (restore/publish)")
    parser.add_argument("--dest", type=Path, help="node-local model folder (stage-model)")
    parser.add_argument("--verify-sha256", action="store_true", help="hash every staged file (stage-model)")
    parser.add_argument("--wait-url", help="publish only after this URL answers 200")
    parser.add_argument("--wait-timeout", type=float, default=3600.0)
    parser.add_argument("--then-sleep", action="store_true", help="sleep forever afterwards (sidecar)")
    parser.add_argument("--endpoint-url", default=os.environ.get("AWS_ENDPOINT_URL"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s fastload-cache %(message)s")

    s3 = _client(args.endpoint_url)
    if args.command == "stage-model":
        if args.dest is None:
            parser.error("--dest is required for stage-model")
        outcome = stage_model(
            s3, bucket=args.bucket, prefix=args.prefix, dest=args.dest, verify_sha256=args.verify_sha256
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
    level = logging.WARNING if outcome.status in ("corrupt", "error", "miss") else logging.INFO
    LOG.log(level, "%s %s: %s", args.command, outcome.status, outcome.detail)
    if args.then_sleep:
        while True:  # a sidecar that exits would be restarted and publish again
            time.sleep(3600)
    # stage-model failing must fail the init container: the pod would otherwise read a missing path.
    return 1 if (args.command == "stage-model" and outcome.status == "error") else 0


if __name__ == "__main__":
    sys.exit(main())
