"""Stage a validated model folder to S3 with boto3's managed transfers.

Order is what makes a stage safe to interrupt: an existing manifest is deleted
before the first byte changes, every file is uploaded (multipart, in parallel,
each part checksummed by S3), and only then is the manifest written. So a
prefix with a manifest is always complete, and running `stage` again skips
what is already there and uploads the rest.

Skip decisions use a whole-file SHA-256 stored in user metadata rather than
S3's own checksums: for multipart objects S3 reports a checksum of part
checksums that depends on the part size, so it cannot be compared with a
local file hash, while user metadata works the same on AWS and on
S3-compatible servers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from boto3.s3.transfer import ProgressCallbackInvoker, TransferConfig, create_transfer_manager

from fastload_constructs.core.errors import require
from fastload_constructs.core.naming import SHA256_METADATA_KEY, STAGE_MANIFEST_NAME
from fastload_constructs.core.s3_uri import S3Location
from fastload_constructs.s3.errors import S3AccessError, explained
from fastload_constructs.s3.headers import list_prefix
from fastload_constructs.s3.staging import LocalModel, RemoteState, UploadPlan, build_manifest, plan_upload

MIB = 1024 * 1024
# S3 refuses parts under 5 MiB (except the last) and more than 10,000 parts per object.
MIN_CHUNK_MIB = 5
MAX_CHUNK_MIB = 5 * 1024


def transfer_config(*, concurrency: int = 16, chunk_size_mib: int = 64) -> TransferConfig:
    """Multipart above one chunk, `concurrency` parts in flight at a time."""
    require(
        isinstance(concurrency, int) and 1 <= concurrency <= 128,
        "concurrency",
        concurrency,
        "a whole number from 1 to 128",
    )
    require(
        isinstance(chunk_size_mib, int) and MIN_CHUNK_MIB <= chunk_size_mib <= MAX_CHUNK_MIB,
        "chunk_size_mib",
        chunk_size_mib,
        f"a whole number of MiB from {MIN_CHUNK_MIB} to {MAX_CHUNK_MIB}",
    )
    return TransferConfig(
        multipart_threshold=chunk_size_mib * MIB,
        multipart_chunksize=chunk_size_mib * MIB,
        max_concurrency=concurrency,
        use_threads=True,
    )


def remote_state(client: Any, location: S3Location, model: LocalModel) -> dict[str, RemoteState]:
    """What S3 holds under the prefix; the recorded SHA-256 is fetched only where the size matches."""
    sizes = {f.name: f.size for f in model.files}
    state: dict[str, RemoteState] = {}
    for obj in list_prefix(client, location):
        sha = None
        if sizes.get(obj.name) == obj.size:
            key = location.key(obj.name)
            with explained(f"s3://{location.bucket}/{key}"):
                head = client.head_object(Bucket=location.bucket, Key=key)
            sha = head.get("Metadata", {}).get(SHA256_METADATA_KEY)
        state[obj.name] = RemoteState(obj.size, sha)
    return state


@dataclass(frozen=True)
class StageResult:
    plan: UploadPlan
    manifest_uri: str
    manifest: dict[str, object]


def stage_model(
    client: Any,
    model: LocalModel,
    location: S3Location,
    *,
    config: TransferConfig | None = None,
    on_bytes: Callable[[int], None] | None = None,
    on_plan: Callable[[UploadPlan], None] | None = None,
    delete_stale: bool = False,
) -> StageResult:
    """Upload what is missing or changed, then write the manifest; safe to re-run after any failure.

    `delete_stale` removes objects under the prefix that no local file explains (an old shard
    would otherwise be streamed by vLLM with the new ones), after the uploads and before the manifest.
    """
    config = config or transfer_config()
    with explained(location.uri):
        client.head_bucket(Bucket=location.bucket)
    state = remote_state(client, location, model)
    plan = plan_upload(model, state)
    if on_plan:
        on_plan(plan)
    manifest_key = location.key(STAGE_MANIFEST_NAME)
    with explained(location.uri):
        if (plan.upload or (delete_stale and plan.stale)) and STAGE_MANIFEST_NAME in state:
            client.delete_object(Bucket=location.bucket, Key=manifest_key)
        if plan.upload:
            _upload_all(client, plan, location, config, on_bytes)
        if delete_stale:
            _delete(client, location, plan.stale)
        manifest = build_manifest(model, location.uri)
        client.put_object(
            Bucket=location.bucket,
            Key=manifest_key,
            ContentType="application/json",
            Body=json.dumps(manifest, indent=2).encode(),
        )
    return StageResult(plan, f"s3://{location.bucket}/{manifest_key}", manifest)


def _upload_all(
    client: Any,
    plan: UploadPlan,
    location: S3Location,
    config: TransferConfig,
    on_bytes: Callable[[int], None] | None,
) -> None:
    subscribers = [ProgressCallbackInvoker(on_bytes)] if on_bytes else None
    with create_transfer_manager(client, config) as manager:
        futures = [
            manager.upload(
                str(f.path),
                location.bucket,
                location.key(f.name),
                extra_args={"Metadata": {SHA256_METADATA_KEY: f.sha256}, "ChecksumAlgorithm": "SHA256"},
                subscribers=subscribers,
            )
            for f in plan.upload
        ]
        for future in futures:
            future.result()


def _delete(client: Any, location: S3Location, names: tuple[str, ...]) -> None:
    for start in range(0, len(names), 1000):  # DeleteObjects takes at most 1000 keys
        batch = [{"Key": location.key(n)} for n in names[start : start + 1000]]
        response = client.delete_objects(Bucket=location.bucket, Delete={"Objects": batch, "Quiet": True})
        failed = response.get("Errors", [])
        if failed:
            raise S3AccessError(
                f"{location.uri}: could not delete {len(failed)} stale objects, e.g. "
                f"{failed[0].get('Key')}: {failed[0].get('Code')}"
            )
