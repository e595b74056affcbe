"""Verify what a warm spare (or an earlier pod) left on this node, before the server pod relies on it.

Runs inside the server pod as an init container, before `model_copy.py` (stage-model)
and `compile_cache.py restore`, from the same ConfigMap. Standard library and boto3
only; it never fails the pod: anything it cannot verify is reported and left to the
cold path.

Node-local model copy (what `model_copy.py` writes, laid out as _node_copies.py says):
only the copy of the revision this pod resolved is looked at, found by its revision
and the hash of the manifest now staged in S3. It is verified when it is complete and
every file its manifest lists has the listed size. A damaged one loses its own marker,
under the lock stage-model takes, so stage-model copies it again: the pod never streams
a copy it could not verify. No other revision's copy is touched, so pods of another
revision keep theirs and a rollback finds its copy as it was. When the S3 manifest
cannot be read, the newest complete copy of the revision is checked against its own
manifest only and the log line says "unverified".

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
import hashlib
import logging
import os
import sys
from dataclasses import dataclass
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

COMPLETE_MARKER = _node_copies.COMPLETE_MARKER
MANIFEST_NAME = _manifest.MANIFEST_NAME
# The part of the cache root that holds compiled artifacts (compile_cache.py's; a test holds them equal).
COMPILE_SUBDIR = "torch_compile_cache"
lock_path = _node_copies.lock_path


@dataclass(frozen=True)
class WarmReport:
    """What the check found. `model`: verified | unverified | absent | damaged | off."""

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


def check_model(
    s3: Any, *, bucket: str, prefix: str, dest: Path, revision_id: str = revision.UNVERSIONED
) -> tuple[str, str]:
    """(status, detail) for the copy of `revision_id` in the model's folder `dest`; no other copy is touched."""
    dest.mkdir(parents=True, exist_ok=True)
    with _files.FileLock(lock_path(dest), timeout_s=24 * 3600):  # a spare still copying finishes (or dies) first
        try:
            remote: bytes | None = _s3.read_object(s3, bucket, f"{prefix.strip('/')}/{MANIFEST_NAME}")
            why = ""
        except Exception as exc:  # network or permission trouble: check what is here, say so
            remote, why = None, f"{type(exc).__name__}: {_manifest.shown(str(exc), 120)}"
        if remote is not None:
            copy = dest / _node_copies.copy_name(revision_id, remote)
            found = [copy] if _node_copies.is_complete(copy) else []
        else:
            found = _node_copies.complete_copies(dest, revision_id)[:1]
        if not found:
            held = ", ".join(p.name for p in _node_copies.complete_copies(dest)) or "none"
            return "absent", f"no complete copy of {revision_id} on the node (it holds: {held}); stage-model copies it"
        return _verify(found[0], remote, why)


def _verify(copy: Path, remote: bytes | None, why: str) -> tuple[str, str]:
    """A complete copy checked against its manifest (and S3's, when read); a damaged one loses its marker."""
    marker = copy / COMPLETE_MARKER
    try:
        local = (copy / MANIFEST_NAME).read_bytes()
        files = _manifest.manifest_files(local)
    except (OSError, ValueError) as exc:
        marker.unlink(missing_ok=True)
        return (
            "damaged",
            f"{copy.name}: local manifest refused ({_manifest.shown(str(exc), 120)}); stage-model copies again",
        )
    problem = _files_match(copy, files) if remote is None or local == remote else "manifest differs from S3's"
    if problem is not None:
        marker.unlink(missing_ok=True)
        return "damaged", f"{copy.name}: {problem}; stage-model copies again"
    if remote is None:
        return "unverified", f"S3 manifest unreadable ({why}); {copy.name} matches its own manifest"
    size = sum(size for _, _, size, _ in files)
    return "verified", f"{copy} manifest sha256 {_sha256(local)[:12]} ({len(files)} files, {size} bytes)"


def check_compile_cache(cache_root: Path) -> tuple[str, str]:
    target = cache_root / COMPILE_SUBDIR
    if target.is_dir():
        count = sum(1 for p in target.rglob("*") if p.is_file())
        if count:
            return "present", f"{target} ({count} files)"
    return "absent", f"no {target}; restore-compile-cache fetches it or vLLM compiles"


def check(
    s3: Any,
    *,
    bucket: str,
    prefix: str,
    model_dir: Path | None = None,
    cache_root: Path | None = None,
    revision_id: str = revision.UNVERSIONED,
) -> WarmReport:
    model, model_detail = (
        ("off", "")
        if model_dir is None
        else check_model(s3, bucket=bucket, prefix=prefix, dest=model_dir, revision_id=revision_id)
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
    _step.start_step()
    revision_id = revision.revision_of_prefix(args.prefix)
    if args.revision_dir is not None:
        try:
            args.bucket, args.prefix, revision_id = revision.read_resolved(args.revision_dir)
        except (OSError, ValueError) as exc:  # resolve-revision ran first and failed the pod if it could not resolve
            LOG.warning("no resolved revision in %s (%s); checking %s", args.revision_dir, exc, args.prefix)
    try:
        s3: Any = _s3.client(args.endpoint_url)
    except Exception as exc:  # no boto3 or no region: verify what is local, report it
        LOG.warning("no S3 client (%s: %s)", type(exc).__name__, exc)
        s3 = None
    try:
        report = check(
            s3,
            bucket=args.bucket,
            prefix=args.prefix,
            model_dir=args.model_dir,
            cache_root=args.cache_root,
            revision_id=revision_id,
        )
    except Exception as exc:  # never fail the pod: the cold path is always there
        LOG.warning(
            "fastload-warm path=cold the check failed: %s: %s", type(exc).__name__, _manifest.shown(str(exc), 200)
        )
        return 0
    LOG.info("%s", report.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
