"""Stage a model as a new immutable revision, publish it, list, pin, roll back and collect revisions.

The layout and the rules are `core.access.revisions`; this module makes the requests.

A stage never writes into a revision another run may read: it writes
`<prefix>/revisions/<id>/`, a folder of its own (an interrupted stage resumes
its folder from the local record), copies the files the current revision
already holds server-side (CopyObject: no bytes leave the region), uploads the
rest through `uploader.upload_model` (which writes the revision's manifest
last), and only then publishes: one conditional PUT of `fastload-current.json`.
A publisher that loses the race is told so and publishes nothing; its revision
stays complete and can be published later.

Conditional writes (If-Match / If-None-Match on PutObject) are S3's since 2024;
a server that ignores them (rclone's, for one) makes the switch last-writer-wins,
but every revision is still one run's bytes.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from fastload_constructs.core.access.revisions import (
    POINTER_NAME,
    REVISION_ID,
    REVISIONS_FOLDER,
    Collection,
    Pointer,
    RevisionInfo,
    check_revision_id,
    choose_collection,
    first_pointer,
    new_revision_id,
    parse_pointer,
    require_model_prefix,
    revision_prefix,
)
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.naming import SHA256_METADATA_KEY, STAGE_MANIFEST_NAME
from fastload_constructs.core.s3_uri import S3Location
from fastload_constructs.s3.errors import S3AccessError, error_code, explained
from fastload_constructs.s3.headers import list_prefix
from fastload_constructs.s3.stage_record import StageRecord
from fastload_constructs.s3.staging import LocalModel, RemoteState, UploadPlan
from fastload_constructs.s3.uploader import (
    STAGE_ID_METADATA_KEY,
    StageResult,
    TransferSettings,
    known_hashes,
    upload_model,
)

# CopyObject copies at most 5 GiB in one request; larger objects are copied in parts (UploadPartCopy).
MAX_SINGLE_COPY_BYTES = 5 * 1024**3


class PublishConflict(S3AccessError):
    """Another publisher switched the pointer between our read and our write."""


_NOT_FOUND = ("NoSuchKey", "404", "NotFound")
_DENIED = ("403", "AccessDenied", "Forbidden")


def _get_if_present(client: Any, bucket: str, key: str) -> dict[str, Any] | None:
    """GetObject's response; None only when the object does not exist. Any other failure raises.

    S3 answers 403, not 404, for a missing key to a caller whose ListBucket does not cover it (a grant
    conditioned on `s3:prefix`, as readers' and stagers' are), and also for a key that exists but may
    not be read (no s3:GetObject on it, or an SSE-KMS object and no kms:Decrypt). Taking a denied
    pointer for "none" made gc delete the current revision and a stage overwrite the pointer blind,
    so a 403 is told apart by listing exactly that key, which those grants allow.
    """
    where = f"s3://{bucket}/{key}"
    try:
        return client.get_object(Bucket=bucket, Key=key)  # type: ignore[no-any-return]
    except Exception as exc:
        code = error_code(exc)
        if code in _NOT_FOUND:
            return None
        if code not in _DENIED:
            with explained(where):
                raise
    try:
        listed = client.list_objects_v2(Bucket=bucket, Prefix=key, MaxKeys=1).get("Contents", [])
    except Exception as exc:
        raise S3AccessError(
            f"{where}: access denied (GetObject), and the listing that tells a missing object from a "
            f"forbidden one was refused too ({error_code(exc) or type(exc).__name__}); the caller needs "
            "s3:ListBucket on the prefix and s3:GetObject on it; nothing was done"
        ) from exc
    if any(item.get("Key") == key for item in listed):
        raise S3AccessError(
            f"{where} exists but may not be read (access denied): the caller needs s3:GetObject on it, and "
            "kms:Decrypt on the bucket's key if the bucket uses SSE-KMS; nothing was done"
        )
    return None


def read_pointer(client: Any, location: S3Location) -> tuple[Pointer | None, str]:
    """The model's pointer and its ETag; (None, "") when the prefix has none (never published, or flat).

    A pointer that exists but may not be read raises S3AccessError: every command that decides on the
    pointer (gc, publish, pin, rollback, a stage's publish) refuses rather than act as if there were none.
    """
    key = location.key(POINTER_NAME)
    response = _get_if_present(client, location.bucket, key)
    if response is None:
        return None, ""
    body = response["Body"].read()
    return parse_pointer(body, f"s3://{location.bucket}/{key}"), str(response.get("ETag", "")).strip('"')


def read_manifest(client: Any, bucket: str, key: str) -> dict[str, Any] | None:
    """A manifest as JSON, or None when there is none (or it is not one); one that may not be read raises."""
    response = _get_if_present(client, bucket, key)
    if response is None:
        return None
    body = response["Body"].read()
    try:
        data = json.loads(body)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _manifest_files(manifest: dict[str, Any] | None) -> dict[str, tuple[int, str]]:
    """name -> (size, sha256) of a manifest's files."""
    out: dict[str, tuple[int, str]] = {}
    for entry in (manifest or {}).get("files", []):
        if (
            isinstance(entry, dict)
            and isinstance(entry.get("name"), str)
            and isinstance(entry.get("size"), int)
            and isinstance(entry.get("sha256"), str)
        ):
            out[entry["name"]] = (entry["size"], entry["sha256"])
    return out


def current_location(client: Any, location: S3Location) -> tuple[S3Location, str | None]:
    """Where the model's current bytes are: the published revision, else the prefix itself (flat layout)."""
    pointer, _ = read_pointer(client, location)
    if pointer is None:
        return location, None
    return S3Location(location.bucket, revision_prefix(location.prefix, pointer.revision)), pointer.revision


def list_revisions(client: Any, location: S3Location) -> list[RevisionInfo]:
    """Every revision folder under the prefix, oldest written first, with its size and whether it is complete."""
    folder = S3Location(location.bucket, location.key(REVISIONS_FOLDER))
    grouped: dict[str, dict[str, Any]] = {}
    base = folder.key("")
    with explained(folder.uri):
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=location.bucket, Prefix=base):
            for item in page.get("Contents", []):
                revision, _, rest = item["Key"][len(base) :].partition("/")
                if not REVISION_ID.fullmatch(revision) or not rest:
                    continue
                entry = grouped.setdefault(
                    revision, {"complete": False, "last": item["LastModified"], "objects": 0, "bytes": 0}
                )
                entry["complete"] = entry["complete"] or rest == STAGE_MANIFEST_NAME
                entry["last"] = max(entry["last"], item["LastModified"])
                entry["objects"] += 1
                entry["bytes"] += int(item["Size"])
    found = [
        RevisionInfo(r, e["complete"], e["last"].astimezone(timezone.utc), e["objects"], e["bytes"])
        for r, e in grouped.items()
    ]
    return sorted(found, key=lambda r: (r.last_written, r.revision))


def publish(
    client: Any,
    location: S3Location,
    revision: str,
    *,
    pinned: bool = False,
    now: datetime | None = None,
    expected_etag: str | None = None,
) -> Pointer:
    """Make `revision` the one pods load: one conditional PUT of the pointer.

    The revision must be complete (its manifest exists). `expected_etag` is the pointer's ETag the
    caller decided on ("" for no pointer yet); by default the pointer is read here. A PUT whose
    reply was lost is retried by botocore and then fails its condition against our own write:
    a pointer that already says what we wrote is success.
    """
    require_model_prefix(location.prefix, location.uri)
    check_revision_id(revision)
    now = now or datetime.now(timezone.utc)
    target = S3Location(location.bucket, revision_prefix(location.prefix, revision))
    if read_manifest(client, location.bucket, target.key(STAGE_MANIFEST_NAME)) is None:
        raise FastloadConfigError(
            "revision", revision, f"a complete revision under {location.uri} (see `fastload revisions list`)"
        )
    pointer, etag = read_pointer(client, location)
    if expected_etag is not None and etag != expected_etag:
        raise _conflict(location, pointer)
    new = (
        first_pointer(revision, now, pinned=pinned)
        if pointer is None
        else pointer.switched_to(revision, now, pinned=pinned)
    )
    body = new.to_json()
    condition = {"IfMatch": f'"{etag}"'} if etag else {"IfNoneMatch": "*"}
    key = location.key(POINTER_NAME)
    try:
        client.put_object(Bucket=location.bucket, Key=key, Body=body, ContentType="application/json", **condition)
    except Exception as exc:
        if error_code(exc) not in ("PreconditionFailed", "412", "ConditionalRequestConflict"):
            with explained(f"s3://{location.bucket}/{key}"):
                raise
        there, _ = read_pointer(client, location)
        if there is not None and there.to_json() == body:
            return new  # our own write, whose reply was lost
        raise _conflict(location, there) from None
    return new


def _conflict(location: S3Location, there: Pointer | None) -> PublishConflict:
    now_current = there.revision if there else "none"
    return PublishConflict(
        f"{location.uri}: the pointer changed while this ran (another stage or publish; current is now "
        f"{now_current}); nothing was published. See `fastload revisions list {location.uri}`."
    )


def set_pinned(client: Any, location: S3Location, pinned: bool, revision: str | None = None) -> Pointer:
    """Pin (or unpin) the current revision, or publish `revision` pinned: stages then leave the pointer alone."""
    require_model_prefix(location.prefix, location.uri)
    pointer, etag = read_pointer(client, location)
    if pointer is None and revision is None:
        raise FastloadConfigError("s3_uri", location.uri, "a model prefix with a published revision")
    target = revision or (pointer.revision if pointer else "")
    return publish(client, location, target, pinned=pinned, expected_etag=etag)


def rollback(client: Any, location: S3Location) -> Pointer:
    """Publish the revision that was current before this one, pinned (a later stage does not undo it)."""
    require_model_prefix(location.prefix, location.uri)
    pointer, etag = read_pointer(client, location)
    previous = pointer.previous() if pointer else None
    if pointer is None or previous is None:
        raise FastloadConfigError("s3_uri", location.uri, "a model with an earlier published revision to go back to")
    return publish(client, location, previous, pinned=True, expected_etag=etag)


def collect(
    client: Any,
    location: S3Location,
    *,
    keep: int,
    grace_s: float,
    delete: bool,
    now: datetime | None = None,
) -> Collection:
    """Choose (and with `delete`, remove) the revisions no pod can still use; the pointer is never touched."""
    require_model_prefix(location.prefix, location.uri)
    now = now or datetime.now(timezone.utc)
    pointer, _ = read_pointer(client, location)
    listed = list_revisions(client, location)
    chosen = choose_collection(listed, pointer, now, keep=keep, grace_s=grace_s)
    if delete:
        deleted: list[str] = []
        keep_now = dict(chosen.keep)
        for revision in chosen.delete:
            # The pointer again, just before each revision goes: a publish or rollback since the first
            # read may have made it current (pods would then resolve a revision with no manifest).
            fresh, _ = read_pointer(client, location)
            again = choose_collection(listed, fresh, now, keep=keep, grace_s=grace_s)
            if revision not in again.delete:
                keep_now[revision] = again.keep.get(revision, "published while this ran")
                continue
            deleted.append(revision)
            folder = S3Location(location.bucket, revision_prefix(location.prefix, revision))
            # The manifest first: a revision that is being removed stops being "complete" at once.
            keys = [folder.key(STAGE_MANIFEST_NAME)] + [
                folder.key(o.name) for o in list_prefix(client, folder) if o.name != STAGE_MANIFEST_NAME
            ]
            with explained(folder.uri):
                for start in range(0, len(keys), 1000):
                    batch = [{"Key": k} for k in keys[start : start + 1000]]
                    failed = client.delete_objects(
                        Bucket=location.bucket, Delete={"Objects": batch, "Quiet": True}
                    ).get("Errors", [])
                    if failed:
                        raise S3AccessError(
                            f"{folder.uri}: could not delete {len(failed)} objects, e.g. "
                            f"{failed[0].get('Key')}: {failed[0].get('Code')}"
                        )
        chosen = Collection(tuple(deleted), keep_now)
    return chosen


@dataclass(frozen=True)
class RevisionStage:
    """What one `fastload stage` did: the revision, how its files got there, and whether it is now current."""

    revision: str
    revision_uri: str
    published: bool
    unchanged: bool  # the current revision already held exactly these files: nothing was written
    copied: tuple[str, ...]
    copied_bytes: int
    result: StageResult | None
    pointer: Pointer | None
    pinned_elsewhere: str | None = None  # the pinned revision a stage left current


def _base(
    client: Any, location: S3Location, pointer: Pointer | None
) -> tuple[S3Location | None, dict[str, tuple[int, str]]]:
    """The files the model's current bytes hold (the published revision, or a flat stage), by name."""
    if pointer is not None:
        base = S3Location(location.bucket, revision_prefix(location.prefix, pointer.revision))
    else:
        base = location
    manifest = read_manifest(client, location.bucket, base.key(STAGE_MANIFEST_NAME))
    return (base, _manifest_files(manifest)) if manifest is not None else (None, {})


def _hashed(
    model: LocalModel,
    files: dict[str, tuple[int, str]],
    record: StageRecord,
    verify: bool,
    on_hash: Callable[[int], None] | None,
) -> LocalModel:
    """`model` with the hashes of the local files an object listed in `files` might equal (the uploader's rule)."""
    return known_hashes(model, {n: RemoteState(size, sha) for n, (size, sha) in files.items()}, record, verify, on_hash)


def _copy(client: Any, source: tuple[str, str], bucket: str, key: str, size: int, sha: str, stage_id: str) -> str:
    """Copy one object server-side, stamped like an upload (its SHA-256, this run's id); returns the ETag."""
    metadata = {SHA256_METADATA_KEY: sha, STAGE_ID_METADATA_KEY: stage_id}
    copy_source = {"Bucket": source[0], "Key": source[1]}
    with explained(f"s3://{bucket}/{key}"):
        if size <= MAX_SINGLE_COPY_BYTES:
            response = client.copy_object(
                Bucket=bucket, Key=key, CopySource=copy_source, MetadataDirective="REPLACE", Metadata=metadata
            )
            etag = str(response.get("CopyObjectResult", {}).get("ETag", ""))
        else:
            etag = _copy_in_parts(client, copy_source, bucket, key, size, metadata)
    return etag.strip('"')


# Parts of a copy above 5 GiB: S3 allows 5 MiB to 5 GiB per part and 10,000 parts.
COPY_PART_BYTES = 1024**3


def _copy_in_parts(
    client: Any, source: dict[str, str], bucket: str, key: str, size: int, metadata: dict[str, str]
) -> str:
    """CopyObject's multipart form (UploadPartCopy), aborted on any failure; returns the ETag."""
    part = COPY_PART_BYTES
    while size > part * 10_000:
        part *= 2
    upload_id = client.create_multipart_upload(Bucket=bucket, Key=key, Metadata=metadata)["UploadId"]
    try:
        parts = []
        for number, start in enumerate(range(0, size, part), start=1):
            end = min(start + part, size) - 1
            response = client.upload_part_copy(
                Bucket=bucket,
                Key=key,
                UploadId=upload_id,
                PartNumber=number,
                CopySource=source,
                CopySourceRange=f"bytes={start}-{end}",
            )
            parts.append({"PartNumber": number, "ETag": response["CopyPartResult"]["ETag"]})
        done = client.complete_multipart_upload(
            Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts}
        )
    except BaseException:
        with contextlib.suppress(Exception):
            client.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
        raise
    return str(done.get("ETag", ""))


def stage_revision(
    client: Any,
    model: LocalModel,
    location: S3Location,
    *,
    body_client: Any | None = None,
    config: TransferSettings | None = None,
    on_bytes: Callable[[int], None] | None = None,
    on_plan: Callable[[UploadPlan], None] | None = None,
    on_hash_bytes: Callable[[int], None] | None = None,
    on_copy: Callable[[str, int], None] | None = None,
    verify: bool = False,
    publish_it: bool = True,
    record: StageRecord | None = None,
    now: Callable[[], datetime] | None = None,
) -> RevisionStage:
    """Stage `model` as a new revision of `location` and (by default) publish it; safe to re-run after a failure.

    Nothing under an existing revision is written. A run whose local files equal the current
    revision's manifest writes nothing. An interrupted run's revision (named in the local record,
    still without a manifest) is resumed rather than started again.
    """
    require_model_prefix(location.prefix, location.uri)
    clock = now or (lambda: datetime.now(timezone.utc))
    record = record if record is not None else StageRecord.load(model.root)
    with explained(location.uri):
        client.head_bucket(Bucket=location.bucket)
    pointer, pointer_etag = read_pointer(client, location)
    base, base_files = _base(client, location, pointer)
    # With --verify every local file is read here, once, and the record holds the fresh hashes: the
    # uploader below trusts them instead of reading every file again.
    model = _hashed(model, base_files, record, verify, on_hash_bytes)
    local = {f.name: (f.size, f.sha256) for f in model.files}
    if pointer is not None and local == base_files:
        record.save()
        return RevisionStage(
            pointer.revision,
            f"s3://{location.bucket}/{revision_prefix(location.prefix, pointer.revision)}",
            True,
            True,
            (),
            0,
            None,
            pointer,
        )
    revision = record.open_revision(location.uri)
    if revision is not None:
        folder = S3Location(location.bucket, revision_prefix(location.prefix, revision))
        manifest = read_manifest(client, location.bucket, folder.key(STAGE_MANIFEST_NAME))
        if manifest is not None:
            # Finished by an earlier run whose publish failed (or was not asked for): never written again.
            # Holding exactly these files, it is what this run would write: publish it as it is.
            done = _manifest_files(manifest)
            hashed = _hashed(model, done, record, False, on_hash_bytes)  # verified above when asked
            if {f.name: (f.size, f.sha256) for f in hashed.files} == done:
                record.save()
                return _publish_staged(
                    client,
                    location,
                    revision,
                    folder.uri,
                    (),
                    0,
                    None,
                    pointer,
                    pointer_etag,
                    publish_it,
                    clock,
                    record,
                )
            revision = None
    if revision is None:
        revision = new_revision_id(clock(), uuid.uuid4().hex)
        record.remember_open_revision(location.uri, revision)
        record.save()
    target = S3Location(location.bucket, revision_prefix(location.prefix, revision))
    present = {o.name for o in list_prefix(client, target)}
    stage_id = uuid.uuid4().hex
    copied: list[str] = []
    copied_bytes = 0
    try:
        for f in model.files:
            there = base_files.get(f.name)
            if base is None or there is None or there != (f.size, f.sha256) or f.name in present:
                continue
            assert f.sha256 is not None
            etag = _copy(
                client,
                (location.bucket, base.key(f.name)),
                location.bucket,
                target.key(f.name),
                f.size,
                f.sha256,
                stage_id,
            )
            record.remember_upload(target.uri, f.name, etag, f.sha256, f.size)
            copied.append(f.name)
            copied_bytes += f.size
            if on_copy:
                on_copy(f.name, f.size)
        result = upload_model(
            client,
            model,
            target,
            body_client=body_client,
            config=config,
            on_bytes=on_bytes,
            on_plan=on_plan,
            on_hash_bytes=on_hash_bytes,
            verify=False,  # the record's hashes are the ones read above (all of them with --verify)
            record=record,
            # Only this run writes this folder: a file a resumed run no longer has must not stay in it
            # (the streamer loads every *.safetensors under the revision).
            delete_stale=True,
        )
    finally:
        record.save()
    return _publish_staged(
        client,
        location,
        revision,
        target.uri,
        tuple(copied),
        copied_bytes,
        result,
        pointer,
        pointer_etag,
        publish_it,
        clock,
        record,
    )


def _publish_staged(
    client: Any,
    location: S3Location,
    revision: str,
    revision_uri: str,
    copied: tuple[str, ...],
    copied_bytes: int,
    result: StageResult | None,
    pointer: Pointer | None,
    pointer_etag: str,
    publish_it: bool,
    clock: Callable[[], datetime],
    record: StageRecord,
) -> RevisionStage:
    """Publish a complete revision unless asked not to or the model is pinned. The record names it as
    this folder's open revision until it is published, so a re-run after a failed publish publishes it
    instead of writing (and uploading) another."""
    published = False
    new_pointer = pointer
    pinned_elsewhere = None
    if publish_it and pointer is not None and pointer.pinned:
        pinned_elsewhere = pointer.revision
    elif publish_it:
        new_pointer = publish(client, location, revision, now=clock(), expected_etag=pointer_etag)
        published = True
        record.forget_open_revision(location.uri)
        record.save()
    return RevisionStage(
        revision, revision_uri, published, False, copied, copied_bytes, result, new_pointer, pinned_elsewhere
    )
