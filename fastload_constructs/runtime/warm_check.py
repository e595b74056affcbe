"""Verify what a warm spare (or an earlier pod) left on this node, before the vLLM pod relies on it.

Runs inside the vLLM pod as an init container, before `model_copy.py` (stage-model)
and `compile_cache.py restore`, from the same ConfigMap. Standard
library and boto3 only; it never fails the pod: anything it cannot verify is
reported and left to the cold path.

Node-local model copy (what `model_copy.py` writes): complete when
its completion marker exists, current when its `fastload-manifest.json` is the
same bytes (SHA-256) as the manifest now staged in S3, intact when every file
the manifest lists has the listed size. A stale or damaged copy loses its
marker, under the same lock stage-model takes, so stage-model copies the model
again from S3: the pod never streams a copy it could not verify. When the S3
manifest cannot be read, the copy is checked against its own manifest only and
the log line says "unverified".

Compile cache: the host folder is keyed by the whole compile configuration
(image tag, model, TP, GPU model, server args, VLLM_* env) and
`restore-compile-cache` only ever moves a checksummed archive into place whole,
so a non-empty `torch_compile_cache/` there is this configuration's cache.

One summary line says which path the pod takes:
  fastload-warm path=warm model=verified compile-cache=present ...
  fastload-warm path=cold model=absent compile-cache=absent ...
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import logging
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__:
    from fastload_constructs.runtime import _manifest
else:  # a file of the pod's ConfigMap folder, with no fastload install: its helpers lie beside it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _manifest  # type: ignore[no-redef]

LOG = logging.getLogger("fastload.warm_check")

# The same names model_copy.py and compile_cache.py use (tests/test_warm_spares.py holds them equal).
COMPLETE_MARKER = ".fastload-complete"
MANIFEST_NAME = _manifest.MANIFEST_NAME
COMPILE_SUBDIR = "torch_compile_cache"


@dataclass(frozen=True)
class WarmReport:
    """What the check found. `model`: verified | unverified | absent | stale | damaged | off."""

    model: str
    compile_cache: str  # present | absent | off
    detail: str = ""

    @property
    def path(self) -> str:
        """'warm' when nothing has to be fetched or compiled again, else 'cold'."""
        model_ok = self.model in ("verified", "unverified", "off")
        cache_ok = self.compile_cache in ("present", "off")
        return "warm" if model_ok and cache_ok and (self.model, self.compile_cache) != ("off", "off") else "cold"

    def line(self) -> str:
        return f"fastload-warm path={self.path} model={self.model} compile-cache={self.compile_cache} {self.detail}"


def lock_path(dest: Path) -> Path:
    """The lock stage-model holds while it copies `dest` (model_copy.copy_model_to_node)."""
    return dest.parent / f".{dest.name}.lock"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _files_match(dest: Path, files: list[tuple[Path, str, int, str]]) -> str | None:
    """None when every listed file exists with its listed size, else what differs."""
    for relative, name, size, _ in files:
        local = dest / relative
        if not local.is_file():
            return f"{name}: missing"
        if local.stat().st_size != size:
            return f"{name}: size {local.stat().st_size} != manifest {size}"
    return None


def check_model(s3: Any, *, bucket: str, prefix: str, dest: Path) -> tuple[str, str]:
    """(status, detail) for the node-local copy at `dest`; drops the marker of a stale or damaged copy."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path(dest), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a spare still copying finishes (or dies) first
        marker = dest / COMPLETE_MARKER
        if not marker.exists():
            return "absent", f"no complete copy at {dest}; stage-model copies s3://{bucket}/{prefix}"
        try:
            local_bytes = (dest / MANIFEST_NAME).read_bytes()
        except OSError as exc:
            marker.unlink(missing_ok=True)
            return "damaged", f"local manifest unreadable ({type(exc).__name__}); stage-model copies again"
        try:
            files = _manifest.manifest_files(local_bytes)
        except ValueError as exc:
            marker.unlink(missing_ok=True)
            return "damaged", f"local manifest refused: {exc}; stage-model copies again"
        try:
            key = f"{prefix.strip('/')}/{MANIFEST_NAME}"
            remote_bytes = s3.get_object(Bucket=bucket, Key=key)["Body"].read()
        except Exception as exc:  # network or permission trouble: check what is here, say so
            remote_bytes = None
            why = f"{type(exc).__name__}: {exc}"
        if remote_bytes is not None and _sha256(remote_bytes) != _sha256(local_bytes):
            marker.unlink(missing_ok=True)
            return (
                "stale",
                f"manifest sha256 {_sha256(local_bytes)[:12]} on the node != {_sha256(remote_bytes)[:12]} in S3; "
                "stage-model copies the new model",
            )
        problem = _files_match(dest, files)
        if problem is not None:
            marker.unlink(missing_ok=True)
            return "damaged", f"{problem}; stage-model copies again"
        if remote_bytes is None:
            return "unverified", f"S3 manifest unreadable ({why}); local copy matches its own manifest"
        size = sum(size for _, _, size, _ in files)
        return "verified", f"{dest} manifest sha256 {_sha256(local_bytes)[:12]} ({len(files)} files, {size} bytes)"


def check_compile_cache(cache_root: Path) -> tuple[str, str]:
    target = cache_root / COMPILE_SUBDIR
    if target.is_dir():
        count = sum(1 for p in target.rglob("*") if p.is_file())
        if count:
            return "present", f"{target} ({count} files)"
    return "absent", f"no {target}; restore-compile-cache fetches it or vLLM compiles"


def check(
    s3: Any, *, bucket: str, prefix: str, model_dir: Path | None = None, cache_root: Path | None = None
) -> WarmReport:
    model, model_detail = (
        ("off", "") if model_dir is None else check_model(s3, bucket=bucket, prefix=prefix, dest=model_dir)
    )
    cache, cache_detail = ("off", "") if cache_root is None else check_compile_cache(cache_root)
    detail = "; ".join(d for d in (model_detail, cache_detail) if d)
    return WarmReport(model, cache, detail)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="warm_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--bucket", required=True, help="the model's bucket")
    parser.add_argument("--prefix", required=True, help="the model's key prefix")
    parser.add_argument("--model-dir", type=Path, help="node-local model folder (stage-model --dest)")
    parser.add_argument("--cache-root", type=Path, help="VLLM_CACHE_ROOT on the node's host path")
    parser.add_argument("--endpoint-url", default=os.environ.get("AWS_ENDPOINT_URL"))
    parser.add_argument("--revision-dir", type=Path, help="what resolve-revision wrote: check that revision's copy")
    args = parser.parse_args(argv)
    if args.revision_dir is not None:
        try:
            uri = (args.revision_dir / "model-uri").read_text().strip()
            args.bucket, _, args.prefix = uri[len("s3://") :].partition("/")
        except OSError as exc:  # resolve-revision ran first and failed the pod if it could not resolve
            LOG.warning("no resolved revision in %s (%s); checking %s", args.revision_dir, exc, args.prefix)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s fastload-cache %(message)s")
    try:
        import boto3  # deferred: --help must work without it

        s3: Any = boto3.client("s3", endpoint_url=args.endpoint_url or None)
    except Exception as exc:  # no boto3 or no region: verify what is local, report it
        LOG.warning("no S3 client (%s: %s)", type(exc).__name__, exc)
        s3 = None
    try:
        report = check(s3, bucket=args.bucket, prefix=args.prefix, model_dir=args.model_dir, cache_root=args.cache_root)
    except Exception as exc:  # never fail the pod: the cold path is always there
        LOG.warning(
            "fastload-warm path=cold the check failed: %s: %s", type(exc).__name__, _manifest.shown(str(exc), 200)
        )
        return 0
    LOG.info("%s", report.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
