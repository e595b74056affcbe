"""The vLLM pod's first init container when warm spares serve it: verify what the node holds.

`runtime/warm_check.py` (shipped in the runtime ConfigMap beside the other steps)
checks the node-local copy of the revision the pod resolved against the manifest
staged in S3 and looks for the restored compile cache, logs one
`fastload-warm path=warm|cold` line, and drops the completion marker of that copy
when it is damaged, so the next init container (`stage-model`) copies it again;
other revisions' copies are never touched. Pure: this module decides the
container; the chart renders it.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.core.errors import require
from fastload_constructs.core.serving.cache_sharing import (
    COMPILE_CACHE_VOLUME,
    MODEL_CACHE_VOLUME,
    MODEL_MOUNT_PATH,
    SCRIPT_MOUNT_PATH,
    SCRIPT_VOLUME,
    SyncContainer,
    node_local_model_dir,
    revision_args,
    revision_mounts,
)

WARM_CHECK_SCRIPT = "warm_check.py"
WARM_CHECK_CONTAINER = "warm-check"


@dataclass(frozen=True)
class WarmCheckContainer(SyncContainer):
    """The warm check's step: lighter than a copy."""

    @property
    def cpu_millis(self) -> int:
        """It reads one manifest and stats the listed files."""
        return 100

    @property
    def memory_mib(self) -> int:
        return 256


def warm_check(
    model_uri: str, *, node_local_model: bool, cache_root: str | None, revision: bool = False
) -> WarmCheckContainer:
    """The check for a pod reading `model_uri`: its node-local copy (if any) and compile cache (if host-path)."""
    require(model_uri.startswith("s3://"), "model_uri", model_uri, "an s3://bucket/prefix URI")
    require(
        node_local_model or cache_root is not None,
        "warm_check",
        (node_local_model, cache_root),
        "a node-local model copy or a host-path compile cache to verify",
    )
    bucket, _, prefix = model_uri[len("s3://") :].partition("/")
    args = ["--bucket", bucket, "--prefix", prefix]
    mounts: list[tuple[str, str]] = [(SCRIPT_VOLUME, SCRIPT_MOUNT_PATH)]
    if node_local_model:
        args += ["--model-dir", f"{MODEL_MOUNT_PATH}/{node_local_model_dir(model_uri)}"]
        mounts.append((MODEL_CACHE_VOLUME, MODEL_MOUNT_PATH))
    if cache_root is not None:
        args += ["--cache-root", cache_root]
        mounts.append((COMPILE_CACHE_VOLUME, cache_root))
    args += revision_args(revision)  # compare the node's copy with the revision this pod resolved
    mounts += revision_mounts(revision)
    return WarmCheckContainer(
        name=WARM_CHECK_CONTAINER, script=WARM_CHECK_SCRIPT, args=tuple(args), mounts=tuple(mounts)
    )
