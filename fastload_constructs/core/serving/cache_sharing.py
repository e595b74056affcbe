"""Warm first launches: what the vLLM pod runs around the server to share caches.

Two options, both off by default:

* Shared compile cache: an init container restores this configuration's
  torch.compile cache from S3 before vLLM starts, and a sidecar publishes it
  once after vLLM reports ready if no pod has yet. A pod on a node that never
  ran the model then skips torch.compile.
* Node-local model cache: an init container copies the staged model from S3
  to the node's RAID0 NVMe once per node and revision (a lock serialises pods
  on the node), and vLLM streams the local copy, so later pods on that node
  read NVMe instead of S3. The server's model path is a link in the pod's own
  in-memory volume to the copy of the revision that pod resolved.

The containers run the in-pod scripts of `fastload_constructs/runtime/` (one per
step: `revision.py`, `model_copy.py`, `compile_cache.py`), shipped in a ConfigMap
and run with the server image's own Python and boto3. Pure: this module decides
the containers; the chart renders them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from fastload_constructs.core.errors import require
from fastload_constructs.core.tokens import is_token, stable
from fastload_constructs.core.validation import check_bucket_name, check_dns_label, check_key_prefix

# The in-pod script each step runs, a file of the runtime ConfigMap (core/serving/runtime_scripts.py).
REVISION_SCRIPT = "revision.py"
MODEL_COPY_SCRIPT = "model_copy.py"
COMPILE_CACHE_SCRIPT = "compile_cache.py"
SCRIPT_MOUNT_PATH = "/opt/fastload"
MODEL_MOUNT_PATH = "/models"
SCRIPT_VOLUME = "cache-sync"
COMPILE_CACHE_VOLUME = "compile-cache"
MODEL_CACHE_VOLUME = "model-cache"
# Where resolve-revision writes the revision this pod loads (an in-memory emptyDir of a few bytes);
# every later step and, with an s3:// model, the server itself read it from here. With a node-local
# copy, stage-model puts the pod's link to its copy here too (NODE_LOCAL_MODEL_LINK).
REVISION_VOLUME = "model-revision"
REVISION_MOUNT_PATH = "/var/run/fastload/revision"
REVISION_URI_FILE = f"{REVISION_MOUNT_PATH}/model-uri"
# With a node-local copy, the server's model path: stage-model points this link, in the pod's own volume,
# at the copy of the revision the pod resolved, so no other pod on the node can switch what it opens.
NODE_LOCAL_MODEL_LINK = f"{REVISION_MOUNT_PATH}/model"
REVISION_VOLUME_MIB = 1  # the volume's sizeLimit: it holds two short lines
DEFAULT_CACHE_PREFIX = "compile-cache"


# Where shared compile-cache archives go in a model bucket unless told otherwise.
DEFAULT_COMPILE_CACHE_PREFIX = "compile-cache"


@dataclass(frozen=True)
class SharedCompileCache:
    """Where compile-cache archives live: `s3://<bucket>/<prefix>/<key>.tar.gz`."""

    bucket: str
    prefix: str = DEFAULT_CACHE_PREFIX

    def __post_init__(self) -> None:
        if not is_token(self.bucket):
            check_bucket_name(self.bucket, "shared_compile_cache.bucket")
        object.__setattr__(self, "prefix", check_key_prefix(self.prefix, "shared_compile_cache.prefix"))

    def for_model(self, model_name: str) -> SharedCompileCache:
        """The same bucket, narrowed to the model's own folder (`model_cache_prefix`)."""
        return SharedCompileCache(self.bucket, model_cache_prefix(self.prefix, model_name))


def model_cache_prefix(cache_prefix: str, model_name: str) -> str:
    """`<cache prefix>/<model name>`: the one folder a model's pods may read and write archives in.

    Trust model: a reader trusts an archive because of who could write it, not because
    of anything the archive says. Only the model's own Pod Identity role may write this
    folder (its IAM grant covers nothing else of the cache prefix) and only through the
    VPC endpoint (the bucket policy denies object writes from anywhere else), so an
    archive found here came from a pod of this model (or a bucket administrator). The
    SHA-256 in the object's metadata is set by that same writer: it catches truncated or
    corrupt uploads, it proves nothing about origin. Pods of one model trust each other
    (they share weights, role and service account).
    """
    return (
        f"{check_key_prefix(cache_prefix, 'shared_compile_cache.prefix')}/{check_dns_label(model_name, 'model_name')}"
    )


@dataclass(frozen=True)
class SyncContainer:
    """One in-pod step: an init container, or a sidecar that stays up, running one script of the ConfigMap."""

    name: str
    script: str  # a file of the runtime ConfigMap, mounted at SCRIPT_MOUNT_PATH
    args: tuple[str, ...]  # after `python3 <script>`
    mounts: tuple[tuple[str, str], ...]  # (volume, mount path)
    sidecar: bool = False
    small: bool = False  # reads a couple of small objects (resolve-revision)

    @property
    def cpu_millis(self) -> int:
        """A sidecar idles once it has published; an init step copies weights and unpacks archives."""
        return 100 if self.sidecar else 250 if self.small else 1000

    @property
    def memory_mib(self) -> int:
        """Request = limit. tar/gzip and boto3 transfers stream, so this bounds buffers, not data size."""
        return 512 if self.sidecar or self.small else 2048

    @property
    def command(self) -> tuple[str, ...]:
        """The image's python3 runs the script from the read-only ConfigMap folder; the script finds its
        helpers beside it, and Python skips writing bytecode it cannot write there."""
        return ("python3", f"{SCRIPT_MOUNT_PATH}/{self.script}", *self.args)


# With an s3:// model that follows revisions, the server container runs this POSIX sh: it swaps the
# placeholder argument for the URI resolve-revision wrote, then execs the engine (which keeps PID 1's
# signals). An unreadable file fails the container rather than starting a server on no model.
MODEL_URI_PLACEHOLDER = "@fastload-model-uri@"
SERVED_NAME_FLAG = "--served-model-name"  # vLLM and SGLang alike
LAUNCH_SCRIPT = (
    f'm=$(cat {REVISION_URI_FILE}) && [ -n "$m" ] || exit 1; '
    f'for a do shift; if [ "$a" = "{MODEL_URI_PLACEHOLDER}" ]; then a=$m; fi; set -- "$@" "$a"; done; '
    'exec "$@"'
)


def revision_launch(
    command: tuple[str, ...], args: tuple[str, ...], model_uri: str
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(command, args) that run `command args` with every argument equal to `model_uri` replaced, in the pod,
    by the revision's URI resolve-revision wrote; but not the value of `--served-model-name`, the name
    clients call the model by, which must not change with each revision."""
    require(model_uri in args, "model_uri", model_uri, "the model path among the server's arguments")
    swapped = tuple(
        MODEL_URI_PLACEHOLDER if a == model_uri and (i == 0 or args[i - 1] != SERVED_NAME_FLAG) else a
        for i, a in enumerate(args)
    )
    return ("/bin/sh", "-c", LAUNCH_SCRIPT, "fastload-launch"), (*command, *swapped)


def revision_args(revision: bool) -> tuple[str, ...]:
    """A step's arguments to read what resolve-revision wrote (none without `revision`)."""
    return ("--revision-dir", REVISION_MOUNT_PATH) if revision else ()


def revision_mounts(revision: bool) -> tuple[tuple[str, str], ...]:
    """A step's mount of the volume resolve-revision wrote to (none without `revision`)."""
    return ((REVISION_VOLUME, REVISION_MOUNT_PATH),) if revision else ()


def resolve_revision_container(model_uri: str) -> SyncContainer:
    """The pod's first step: read the model's `fastload-current.json` once and write down the revision.

    Every later step reads what it wrote, so the pod loads one revision from start to end whatever
    is published meanwhile (`core.access.revisions`). It fails the pod (and is retried) only when
    nothing is staged at the URI.
    """
    require(model_uri.startswith("s3://"), "model_uri", model_uri, "an s3://bucket/prefix URI")
    bucket, _, prefix = model_uri[len("s3://") :].partition("/")
    return SyncContainer(
        name="resolve-revision",
        script=REVISION_SCRIPT,
        args=("--bucket", bucket, "--prefix", prefix, *revision_args(True)),
        mounts=((REVISION_VOLUME, REVISION_MOUNT_PATH), (SCRIPT_VOLUME, SCRIPT_MOUNT_PATH)),
        small=True,
    )


def _compile_cache_args(cache: SharedCompileCache, cache_key: str, cache_root: str, revision: bool) -> tuple[str, ...]:
    """Where one compile-cache archive lives and the folder it fills: what restore and publish share.

    With `revision`, the key gets the revision this pod loads appended, in the pod."""
    return (
        "--bucket",
        cache.bucket,
        "--prefix",
        cache.prefix,
        "--cache-key",
        cache_key,
        "--cache-root",
        cache_root,
        *revision_args(revision),
    )


def _compile_cache_mounts(cache_root: str, revision: bool) -> tuple[tuple[str, str], ...]:
    return ((COMPILE_CACHE_VOLUME, cache_root), (SCRIPT_VOLUME, SCRIPT_MOUNT_PATH), *revision_mounts(revision))


def restore_compile_cache(
    cache: SharedCompileCache, cache_key: str, cache_root: str, *, revision: bool = False
) -> SyncContainer:
    return SyncContainer(
        name="restore-compile-cache",
        script=COMPILE_CACHE_SCRIPT,
        args=("restore", *_compile_cache_args(cache, cache_key, cache_root, revision)),
        mounts=_compile_cache_mounts(cache_root, revision),
    )


def publish_compile_cache(
    cache: SharedCompileCache,
    cache_key: str,
    cache_root: str,
    port: int,
    wait_timeout_s: int,
    *,
    revision: bool = False,
) -> SyncContainer:
    """A sidecar: waits for /health, publishes once if the key is absent, then idles."""
    return SyncContainer(
        name="publish-compile-cache",
        script=COMPILE_CACHE_SCRIPT,
        args=(
            "publish",
            *_compile_cache_args(cache, cache_key, cache_root, revision),
            "--wait-url",
            f"http://127.0.0.1:{port}/health",
            "--wait-timeout",
            str(wait_timeout_s),
            "--then-sleep",
        ),
        mounts=_compile_cache_mounts(cache_root, revision),
        sidecar=True,
    )


def node_local_model_dir(model_uri: str) -> str:
    """The model's folder of copies under the node's model cache, `revisions/<stable hash of its S3 URI>`.

    One copy per revision and content lies in it (runtime/_node_copies.py); the server mounts this
    folder alone. A deploy-time bucket (a CDK token) hashes as a marker. `revisions/` keeps it apart
    from the layout before revisions (a per-model link switched by every copy), which pods of an
    older release on the same node may still use.
    """
    return f"revisions/{hashlib.sha256(stable(model_uri).encode()).hexdigest()[:16]}"


def copy_model_container(model_uri: str, *, verify_sha256: bool, revision: bool = False) -> SyncContainer:
    """An init container that copies the staged model (with `revision`, the resolved one) to NVMe once per node
    and revision, and points the pod's own link (NODE_LOCAL_MODEL_LINK, the server's model path) at that copy."""
    require(model_uri.startswith("s3://"), "model_uri", model_uri, "an s3://bucket/prefix URI")
    bucket, _, prefix = model_uri[len("s3://") :].partition("/")
    args = [
        "--bucket",
        bucket,
        "--prefix",
        prefix,
        "--dest",
        f"{MODEL_MOUNT_PATH}/{node_local_model_dir(model_uri)}",
        "--link",
        NODE_LOCAL_MODEL_LINK,
    ]
    if verify_sha256:
        args.append("--verify-sha256")
    args += revision_args(revision)
    return SyncContainer(
        name="stage-model",
        script=MODEL_COPY_SCRIPT,
        args=tuple(args),
        mounts=(
            (MODEL_CACHE_VOLUME, MODEL_MOUNT_PATH),
            (SCRIPT_VOLUME, SCRIPT_MOUNT_PATH),
            *revision_mounts(True),  # the pod's link lives there, whether or not the pod follows revisions
        ),
    )


def compile_cache_key(
    *,
    image_tag: str,
    model_uri: str,
    tensor_parallel_size: int,
    gpu_model: str,
    extra: dict[str, str] | None = None,
) -> str:
    """A short, stable key for a compile cache folder.

    An engine's own cache hash covers its version (the image tag names it), the model config and its
    own variables (vLLM's every VLLM_* factor); sharing one folder between differently configured
    servers makes misses look like hits. Keying the folder by the same inputs keeps each
    configuration in its own place.
    """
    for name, value in (("image_tag", image_tag), ("model_uri", model_uri), ("gpu_model", gpu_model)):
        require(isinstance(value, str) and value.strip() != "", name, value, "a non-empty string")
    require(
        isinstance(tensor_parallel_size, int) and tensor_parallel_size >= 1,
        "tensor_parallel_size",
        tensor_parallel_size,
        "a positive whole number",
    )
    parts = [image_tag, model_uri, str(tensor_parallel_size), gpu_model]
    parts += [f"{k}={v}" for k, v in sorted((extra or {}).items())]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
