"""resolve-revision: read the model's `fastload-current.json` once and write down the revision this pod loads.

The pod's first init container (`python3 revision.py --bucket B --prefix P --revision-dir D`),
run from the runtime ConfigMap with the server image's Python and boto3. Every later step
(model_copy.py, compile_cache.py, warm_check.py) and, with an s3:// model, the server itself read
what it wrote, so the pod loads one revision from start to end whatever is published meanwhile.
The rules are those of fastload_constructs/core/access/revisions.py, which a test holds equal
(this file imports nothing of the package). Failing here fails the init container, which the
kubelet retries: a pod cannot start without a model.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
from pathlib import Path
from typing import Any

if __package__:
    from fastload_constructs.runtime import _manifest, _s3, _step
else:  # a file of the pod's ConfigMap folder, with no fastload install: its helpers lie beside it
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _manifest  # type: ignore[no-redef]
    import _s3  # type: ignore[no-redef]
    import _step  # type: ignore[no-redef]

LOG = logging.getLogger("fastload.runtime")

MANIFEST_NAME = _manifest.MANIFEST_NAME
POINTER_NAME = "fastload-current.json"
POINTER_VERSION = 1
REVISION_ID = re.compile(r"^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$")
UNVERSIONED = "unversioned"


def _get_or_none(s3: Any, bucket: str, key: str) -> bytes | None:
    """An object's bytes, None only when it does not exist; broken requests asked again, other failures raised.

    S3 answers 403 both for a missing key the caller's ListBucket does not cover and for a key that
    exists but may not be read (no s3:GetObject, or SSE-KMS and no kms:Decrypt). A denied pointer taken
    for "none" would load a flat stage left at the prefix (stale weights), so a 403 is told apart by
    listing exactly that key, which the pod's grant on its model prefix allows.
    """
    try:
        return _s3.read_object(s3, bucket, key)
    except Exception as exc:
        code = _s3.error_code(exc)
        if code in _s3.NOT_FOUND_CODES:
            return None
        if code not in _s3.DENIED_CODES:
            raise
    if _s3.listed(s3, bucket, key):
        raise ValueError(
            f"s3://{bucket}/{key} exists but may not be read (access denied): the pod's role needs s3:GetObject "
            "on it, and kms:Decrypt on the bucket's key if the bucket uses SSE-KMS"
        )
    return None


def pointer_revision(body: bytes) -> str:
    """The revision a pointer names; ValueError for anything fastload did not write."""
    try:
        data = json.loads(body)
    except RecursionError:
        raise ValueError("not a fastload pointer (JSON nested too deep)") from None
    except ValueError as exc:  # not JSON, or an integer past Python's digit limit (3.11+)
        raise ValueError(f"not a fastload pointer ({_manifest.shown(str(exc), 80)})") from None
    version = data.get("fastload_pointer_version") if isinstance(data, dict) else None
    if type(version) is not int or version != POINTER_VERSION:
        raise ValueError("not a fastload pointer (fastload_pointer_version 1)")
    if not isinstance(data.get("pinned", False), bool):
        raise ValueError(f"pointer's pinned is not true or false: {data.get('pinned')!r}")
    revision = data.get("revision")
    if not isinstance(revision, str) or not REVISION_ID.fullmatch(revision):
        raise ValueError(f"pointer names no valid revision: {revision!r}")
    return revision


def revision_of_prefix(prefix: str) -> str:
    """The revision a prefix names itself (`.../revisions/<id>`), else UNVERSIONED."""
    parts = prefix.strip("/").split("/")
    return (
        parts[-1] if len(parts) >= 2 and parts[-2] == "revisions" and REVISION_ID.fullmatch(parts[-1]) else UNVERSIONED
    )


def resolve_revision(s3: Any, *, bucket: str, prefix: str) -> tuple[str, str]:
    """(model prefix to read, revision id) for the model staged at s3://bucket/prefix; ValueError if none is.

    A prefix that names a revision folder itself is read as it is (a configuration pinned to it);
    a prefix with a pointer reads the revision it names, which must be complete; a prefix with a
    manifest and no pointer is a flat stage (from before revisions), read as it is.
    """
    base = prefix.strip("/")
    named = revision_of_prefix(base)
    if named != UNVERSIONED:
        if _get_or_none(s3, bucket, f"{base}/{MANIFEST_NAME}") is None:
            raise ValueError(f"s3://{bucket}/{base} has no {MANIFEST_NAME}: not a complete revision")
        return base, named
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="revision", description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--bucket", required=True)
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--revision-dir", type=Path, required=True, help="where to write the resolved revision")
    parser.add_argument("--endpoint-url", default=os.environ.get("AWS_ENDPOINT_URL"))
    args = parser.parse_args(argv)
    _step.start_step()
    try:
        prefix, revision = resolve_revision(_s3.client(args.endpoint_url), bucket=args.bucket, prefix=args.prefix)
        write_resolved(args.revision_dir, args.bucket, prefix, revision)
    except Exception as exc:
        LOG.error("resolve-revision error: s3://%s/%s: %s: %s", args.bucket, args.prefix, type(exc).__name__, exc)
        return 1
    LOG.info("resolve-revision %s: this pod loads s3://%s/%s", revision, args.bucket, prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
