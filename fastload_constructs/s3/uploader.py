"""Stage a validated model folder to S3: one hashing pass, overlapping the uploads.

Order is what makes a stage safe to interrupt: an existing manifest is deleted
before the first byte changes, every file is uploaded, and only then is the
manifest written. So a prefix with a manifest is always complete, and running
`stage` again skips what is already there and uploads the rest.

One hashing pass, overlapping the uploads. A reader thread per file reads it in
order through one 8 MiB buffer into the file's SHA-256; each part, once its
bytes are hashed, goes to the upload pool as a range of the file
(`file_region`), which botocore reads from the page cache when it sends it. So
memory stays at a few MiB however many parts are in flight (parts held in
memory cost 16 x 64 MiB and, here, more CPU in page faults than the hash), and
the first part leaves as soon as it is hashed. S3 checks each part with a CRC32
(cheap, computed by botocore as it reads the part) instead of a second
SHA-256; the whole-file SHA-256 is what fastload promises, in the manifest
(and, for objects small enough for one PUT, in the `fastload-sha256`
metadata, which must be sent before the first byte and so cannot be for a
multipart upload). S3's multipart checksums are per part or depend on the part
size, so they are not what a re-run compares.

A re-run reads nothing it does not have to: a file whose size, mtime and inode
match the local record (`stage_record`) has the recorded hash, and an object
whose listed ETag is the one recorded at upload (in the local record or the
manifest) has the recorded hash too, so a no-op re-run is one LIST, one GET of
the manifest and a stat per file. `verify=True` re-hashes every local file.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import threading
import uuid
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.naming import SHA256_METADATA_KEY, STAGE_MANIFEST_NAME
from fastload_constructs.core.s3_uri import S3Location
from fastload_constructs.s3.cleanup import abort_recorded_uploads
from fastload_constructs.s3.client import metadata_value
from fastload_constructs.s3.errors import S3AccessError, error_code, explained
from fastload_constructs.s3.file_region import FileRegion
from fastload_constructs.s3.headers import RemoteObject, list_prefix
from fastload_constructs.s3.stage_record import StageRecord
from fastload_constructs.s3.staging import (
    MAX_KEY_BYTES,
    LocalFile,
    LocalModel,
    RemoteState,
    UploadPlan,
    build_manifest,
    plan_upload,
    sha256_of,
)

MIB = 1024 * 1024
# S3 refuses parts under 5 MiB (except the last) and more than 10,000 parts per object.
MIN_CHUNK_MIB = 5
MAX_CHUNK_MIB = 5 * 1024
MAX_PARTS = 10_000
# S3 checks every part with this additional checksum (botocore computes it with zlib).
PART_CHECKSUM = "CRC32"
# The hashing read's block: reused for a whole file, so hashing faults in 8 MiB of memory, not the file.
HASH_BLOCK = 8 * MIB
# Metadata naming the stage run that wrote an object: known before the first byte, so a multipart
# object carries it too, and a run can tell its objects from a concurrent run's.
STAGE_ID_METADATA_KEY = "fastload-stage-id"


@dataclass(frozen=True)
class TransferSettings:
    """Parts in flight (and so chunks in memory) at a time, and the part size."""

    concurrency: int
    chunk_bytes: int

    def part_size(self, size: int) -> int:
        """The part size for a file of `size` bytes: the chunk, grown if the file would need over 10,000 parts."""
        part = self.chunk_bytes
        while size > part * MAX_PARTS:
            part *= 2
        return part


def transfer_config(*, concurrency: int = 16, chunk_size_mib: int = 64) -> TransferSettings:
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
    return TransferSettings(concurrency=concurrency, chunk_bytes=chunk_size_mib * MIB)


def _read_manifest(client: Any, location: S3Location) -> tuple[bytes, dict[str, dict[str, Any]]]:
    """The manifest under the prefix (its bytes, and its files by name); empty if absent or unreadable."""
    try:
        body: bytes = client.get_object(Bucket=location.bucket, Key=location.key(STAGE_MANIFEST_NAME))["Body"].read()
        files = json.loads(body).get("files", [])
    except Exception:  # absent, racing a delete, or not ours: it only saves work
        return b"", {}
    return body, {f["name"]: f for f in files if isinstance(f, dict) and isinstance(f.get("name"), str)}


def _remote_state(
    client: Any, location: S3Location, model: LocalModel, record: StageRecord | None
) -> tuple[dict[str, RemoteState], bytes]:
    """What S3 holds under the prefix, with each object's SHA-256 where it can be known without reading it.

    An object's hash comes from the local record or the manifest when its listed ETag is the
    one recorded there; only where neither knows it and the size matches a local file is the
    object HEADed for its `fastload-sha256` metadata (read case-insensitively).
    """
    sizes = {f.name: f.size for f in model.files}
    objects: list[RemoteObject] = list_prefix(client, location)
    manifest_body, manifest = (
        _read_manifest(client, location) if any(o.name == STAGE_MANIFEST_NAME for o in objects) else (b"", {})
    )
    state: dict[str, RemoteState] = {}
    for obj in objects:
        sha = record.uploaded(location.uri, obj.name, obj.etag) if record else None
        entry = manifest.get(obj.name)
        if sha is None and entry and obj.etag and str(entry.get("etag", "")).strip('"') == obj.etag:
            sha = entry.get("sha256") if entry.get("size") == obj.size else None
        if sha is None and sizes.get(obj.name) == obj.size:
            key = location.key(obj.name)
            with explained(f"s3://{location.bucket}/{key}"):
                head = client.head_object(Bucket=location.bucket, Key=key)
            sha = metadata_value(head.get("Metadata"), SHA256_METADATA_KEY)
        state[obj.name] = RemoteState(obj.size, sha, obj.etag)
    return state, manifest_body


def known_hashes(
    model: LocalModel,
    state: dict[str, RemoteState],
    record: StageRecord,
    verify: bool,
    on_hash: Callable[[int], None] | None,
) -> LocalModel:
    """Fill in local hashes without reading where the record allows; read only files S3 might already hold
    (all of them with `verify`). Every hash read is remembered in `record`."""
    files = []
    for f in model.files:
        sha = None if verify else record.known_sha256(f)
        there = state.get(f.name)
        if sha is None and (verify or (there is not None and there.size == f.size and there.sha256)):
            sha = sha256_of(f.path, on_hash)  # S3 may hold this exact file: one read decides
            record.remember_hash(f, sha)
        files.append(f.with_sha256(sha) if sha else f)
    return model.with_files(tuple(files))


@dataclass(frozen=True)
class StageResult:
    plan: UploadPlan
    manifest_uri: str
    manifest: dict[str, object]
    hashed_bytes: int = 0
    aborted_uploads: int = 0  # multipart uploads an earlier, killed run left open, aborted after this one succeeded


def upload_model(
    client: Any,
    model: LocalModel,
    location: S3Location,
    *,
    body_client: Any | None = None,
    config: TransferSettings | None = None,
    on_bytes: Callable[[int], None] | None = None,
    on_plan: Callable[[UploadPlan], None] | None = None,
    on_hash_bytes: Callable[[int], None] | None = None,
    delete_stale: bool = False,
    verify: bool = False,
    record: StageRecord | None = None,
    confirm_delete: Callable[[tuple[str, ...]], bool] | None = None,
) -> StageResult:
    """Upload what is missing or changed, then write the manifest; safe to re-run after any failure.

    `delete_stale` removes objects under the prefix that no local file explains (an old shard
    would otherwise be streamed by vLLM with the new ones), after the uploads and before the manifest.
    `body_client` (default `client`) sends the files' bytes: the CLI gives one with
    `sign_payload=False`, as each part already carries a CRC32 and its file's SHA-256 goes into the
    manifest, which `client` writes (signed).
    `verify` re-hashes every local file instead of trusting the local record. `confirm_delete`
    sees the stale names first and may refuse (nothing has changed then). Before the manifest is
    written the prefix is listed again: an object whose ETag is not the one this run uploaded or
    skipped means another stage ran at the same time, and no manifest is written.
    """
    config = config or transfer_config()
    for f in model.files:  # before any request: a key S3 refuses must not cost the old manifest
        require(
            len(location.key(f.name).encode()) <= MAX_KEY_BYTES,
            "model_dir",
            f.name,
            f"file names whose S3 key (prefix included) is at most {MAX_KEY_BYTES} bytes",
        )
    record = record if record is not None else StageRecord.load(model.root)
    with explained(location.uri):
        client.head_bucket(Bucket=location.bucket)
    state, old_manifest = _remote_state(client, location, model, record)
    hashed = 0

    def count_hash(n: int) -> None:
        nonlocal hashed
        hashed += n
        if on_hash_bytes:
            on_hash_bytes(n)

    model = known_hashes(model, state, record, verify, count_hash)
    plan = plan_upload(model, state)
    if on_plan:
        on_plan(plan)
    if delete_stale and plan.stale and confirm_delete is not None and not confirm_delete(plan.stale):
        raise FastloadConfigError(
            "--delete-stale", f"{len(plan.stale)} objects", "--yes as well, to delete the objects listed above"
        )
    manifest_key = location.key(STAGE_MANIFEST_NAME)
    etags = {name: s.etag for name, s in state.items() if s.etag}
    uploaded: dict[str, Uploaded] = {}
    stage_id = uuid.uuid4().hex
    try:
        with explained(location.uri):
            if (plan.upload or (delete_stale and plan.stale)) and STAGE_MANIFEST_NAME in state:
                client.delete_object(Bucket=location.bucket, Key=manifest_key)
            if plan.upload:
                uploaded = _upload_all(body_client or client, plan.upload, location, config, on_bytes, record, stage_id)
                etags.update({name: u.etag for name, u in uploaded.items()})
                model = model.with_files(
                    tuple(f.with_sha256(uploaded[f.name].sha256) if f.name in uploaded else f for f in model.files)
                )
            if delete_stale:
                _delete(client, location, plan.stale)
            listed = _check_no_concurrent_stage(client, location, model, etags, uploaded, stage_id)
            for f in plan.upload:  # the ETags a listing shows, for the manifest and the next run
                if listed.get(f.name) and f.name in uploaded and listed[f.name] != etags.get(f.name):
                    etags[f.name] = listed[f.name]
                    record.remember_upload(location.uri, f.name, listed[f.name], uploaded[f.name].sha256, f.size)
            manifest = build_manifest(model, location.uri, etags)
            body = json.dumps(manifest, indent=2).encode()
            # Conditional: create only if absent (we deleted it, or there was none), else replace only the
            # one we listed. A stager racing us makes S3 answer 412 instead of two manifests mixing.
            manifest_etag = state[STAGE_MANIFEST_NAME].etag if STAGE_MANIFEST_NAME in state else ""
            deleted = bool(plan.upload or (delete_stale and plan.stale))
            condition = {"IfMatch": f'"{manifest_etag}"'} if manifest_etag and not deleted else {"IfNoneMatch": "*"}
            if deleted or body != old_manifest:  # a no-op re-run leaves the manifest as it is
                _put_manifest(client, location.bucket, manifest_key, body, condition, stage_id)
        aborted = abort_recorded_uploads(client, location, record)
    finally:
        record.save()
    return StageResult(plan, f"s3://{location.bucket}/{manifest_key}", manifest, hashed, aborted)


def _put_manifest(client: Any, bucket: str, key: str, body: bytes, condition: dict[str, str], stage_id: str) -> None:
    """PUT the manifest, tagged with this run's stage id; a 412 on a manifest that is ours is success.

    A PUT whose reply is lost is sent again by botocore's retries, and the retry's condition
    (If-None-Match: *, or the old ETag) then fails against the manifest the first attempt wrote.
    That manifest carries our stage id and our bytes: the stage succeeded, and says so.
    """
    try:
        client.put_object(
            Bucket=bucket,
            Key=key,
            ContentType="application/json",
            Body=body,
            Metadata={STAGE_ID_METADATA_KEY: stage_id},
            **condition,
        )
    except Exception as exc:
        if error_code(exc) not in ("PreconditionFailed", "412"):
            raise
        try:
            there = client.get_object(Bucket=bucket, Key=key)
            ours = metadata_value(there.get("Metadata"), STAGE_ID_METADATA_KEY) == stage_id
            ours = ours and there["Body"].read() == body
        except Exception:
            ours = False
        if not ours:
            raise


@dataclass(frozen=True)
class Uploaded:
    """One object written: the SHA-256 of the bytes read for it and the ETag S3 lists for it."""

    sha256: str
    etag: str


class _Stop(Exception):
    """Another upload failed: stop reading."""


class _Pipeline:
    """Readers hash chunks and hand them to an upload pool; `slots` bounds the chunks in memory."""

    def __init__(
        self,
        client: Any,
        location: S3Location,
        settings: TransferSettings,
        on_bytes: Callable[[int], None] | None,
        record: StageRecord,
        stage_id: str,
    ) -> None:
        self.client, self.location, self.settings, self.record = client, location, settings, record
        self.stage_id = stage_id
        self.on_bytes = on_bytes
        self.slots = threading.BoundedSemaphore(settings.concurrency)
        self.parts = ThreadPoolExecutor(settings.concurrency, thread_name_prefix="fastload-part")
        self.failed = threading.Event()
        self.first_error: BaseException | None = None
        self._progress_lock = threading.Lock()

    def fail(self, exc: BaseException) -> None:
        with self._progress_lock:
            if self.first_error is None and not isinstance(exc, _Stop):
                self.first_error = exc
        self.failed.set()

    def _sent(self, n: int) -> None:
        if self.on_bytes:
            with self._progress_lock:
                self.on_bytes(n)

    def _submit(self, call: Callable[[], Any], size: int) -> Future[Any]:
        """Run `call` in the pool; its slot is freed when it finishes."""

        def run() -> Any:
            try:
                result = call()
                self._sent(size)
                return result
            except BaseException as exc:
                self.fail(exc)
                raise
            finally:
                self.slots.release()

        return self.parts.submit(run)

    def _acquire(self) -> None:
        while not self.slots.acquire(timeout=0.2):
            if self.failed.is_set():
                raise _Stop()
        if self.failed.is_set():
            self.slots.release()
            raise _Stop()

    def _hash(self, handle: io.BufferedReader, length: int, digest: Any, buffer: bytearray) -> int:
        """Feed the next `length` bytes of `handle` to `digest` through `buffer`; the count read."""
        view, done = memoryview(buffer), 0
        while done < length:
            n = handle.readinto(view[: min(len(buffer), length - done)])
            if not n:
                break
            digest.update(view[:n])
            done += n
        return done

    def upload(self, f: LocalFile) -> Uploaded:
        """Hash the file in order while its parts upload, each sent once hashed.

        Every read, hashing and sending, goes through one descriptor opened here and closed only
        once no part can still read it: the bytes sent are the bytes hashed even if the path is
        replaced meanwhile (rsync, `mv`), and a change in place is caught by `_check_unchanged`.
        """
        bucket, key = self.location.bucket, self.location.key(f.name)
        digest = hashlib.sha256()
        buffer = bytearray(max(1, min(HASH_BLOCK, f.size)))
        with f.path.open("rb") as handle:
            fd = handle.fileno()
            if f.size <= self.settings.chunk_bytes:
                self._acquire()
                try:
                    _check_unchanged(f, self._hash(handle, f.size, digest, buffer), fd)
                    sha = digest.hexdigest()
                except BaseException:
                    self.slots.release()
                    raise
                metadata = {SHA256_METADATA_KEY: sha, STAGE_ID_METADATA_KEY: self.stage_id}
                response = self._submit(
                    _sent_from_file(
                        fd,
                        0,
                        f.size,
                        lambda body: self.client.put_object(
                            Bucket=bucket, Key=key, Body=body, Metadata=metadata, ChecksumAlgorithm=PART_CHECKSUM
                        ),
                    ),
                    f.size,
                ).result()
                _check_unchanged(f, f.size, fd)  # not changed in place while it was sent
                return self._done(f, sha, str(response.get("ETag", "")).strip('"'))
            completed = self._multipart(f, handle, bucket, key, digest, buffer)
        # Servers disagree on a multipart ETag (AWS: md5-of-md5s-N; rclone lists the object's md5): the
        # listing before the manifest replaces this with what the next run's listing will show.
        return self._done(f, digest.hexdigest(), str(completed.get("ETag", "")).strip('"'))

    def _multipart(
        self, f: LocalFile, handle: io.BufferedReader, bucket: str, key: str, digest: Any, buffer: bytearray
    ) -> dict[str, Any]:
        """Upload `f` in parts from `handle`; returns CompleteMultipartUpload's answer, or aborts and raises."""
        fd = handle.fileno()
        upload_id = self.client.create_multipart_upload(
            Bucket=bucket, Key=key, ChecksumAlgorithm=PART_CHECKSUM, Metadata={STAGE_ID_METADATA_KEY: self.stage_id}
        )["UploadId"]
        self.record.remember_pending(self.location.uri, upload_id, key)  # saved now: a SIGKILL must not lose it
        self.record.save()
        futures: list[Future[Any]] = []
        try:
            part_size, read, number = self.settings.part_size(f.size), 0, 0
            while read < f.size:
                self._acquire()
                try:
                    n = self._hash(handle, min(part_size, f.size - read), digest, buffer)
                except BaseException:
                    self.slots.release()
                    raise
                if not n:
                    self.slots.release()
                    break
                number += 1
                futures.append(self._submit(_part_call(self.client, bucket, key, upload_id, number, fd, read, n), n))
                read += n
            _check_unchanged(f, read, fd)
            parts = [future.result() for future in futures]
            _check_unchanged(f, read, fd)  # not changed in place while the parts were sent
            completed: dict[str, Any] = self.client.complete_multipart_upload(
                Bucket=bucket, Key=key, UploadId=upload_id, MultipartUpload={"Parts": parts}
            )
            self.record.forget_pending(self.location.uri, upload_id)
            return completed
        except BaseException as exc:
            self.fail(exc)
            for future in futures:
                future.cancel()
            for future in futures:
                if not future.cancelled():
                    future.exception()  # wait: an abort (or closing the file) while parts still upload
            with contextlib.suppress(Exception):  # the failure that got us here is the one to report
                self.client.abort_multipart_upload(Bucket=bucket, Key=key, UploadId=upload_id)
                self.record.forget_pending(self.location.uri, upload_id)
            raise

    def _done(self, f: LocalFile, sha: str, etag: str) -> Uploaded:
        self.record.remember_hash(f, sha)
        self.record.remember_upload(self.location.uri, f.name, etag, sha, f.size)
        self.record.save()
        return Uploaded(sha, etag)


def _sent_from_file(fd: int, offset: int, length: int, send: Callable[[FileRegion], Any]) -> Callable[[], Any]:
    """A call sending `length` bytes of the open file `fd` from `offset` (read when sent, from the page cache)."""

    def call() -> Any:
        with FileRegion(fd, offset, length) as body:
            return send(body)

    return call


def _part_call(
    client: Any, bucket: str, key: str, upload_id: str, number: int, fd: int, offset: int, length: int
) -> Callable[[], Any]:
    def send(body: FileRegion) -> dict[str, Any]:
        response = client.upload_part(
            Bucket=bucket,
            Key=key,
            UploadId=upload_id,
            PartNumber=number,
            Body=body,
            ChecksumAlgorithm=PART_CHECKSUM,
        )
        part = {"PartNumber": number, "ETag": response["ETag"]}
        if response.get("ChecksumCRC32"):
            part["ChecksumCRC32"] = response["ChecksumCRC32"]
        return part

    return _sent_from_file(fd, offset, length, send)


def _check_unchanged(f: LocalFile, read: int, fd: int) -> None:
    """The open file must be the one validated (same inode), of its size, not modified since."""
    st = os.fstat(fd)
    same_file = not f.inode or st.st_ino == f.inode  # a LocalFile made by hand may not know it
    if read != f.size or st.st_size != f.size or st.st_mtime_ns != f.mtime_ns or not same_file:
        raise FastloadConfigError(
            "model_dir", f.name, "files that do not change while they are staged (this one changed; run stage again)"
        )


def _upload_all(
    client: Any,
    files: tuple[LocalFile, ...],
    location: S3Location,
    config: TransferSettings,
    on_bytes: Callable[[int], None] | None,
    record: StageRecord,
    stage_id: str,
) -> dict[str, Uploaded]:
    """Upload `files`, a few read at once, every part through one bounded pool; the first failure stops all."""
    pipeline = _Pipeline(client, location, config, on_bytes, record, stage_id)
    readers = max(1, min(len(files), config.concurrency // 4 or 1))
    results: dict[str, Uploaded] = {}
    try:
        with ThreadPoolExecutor(readers, thread_name_prefix="fastload-read") as pool:
            futures = {f.name: pool.submit(pipeline.upload, f) for f in files}
            for name, future in futures.items():
                try:
                    results[name] = future.result()
                except _Stop:
                    pass
                except BaseException as exc:
                    pipeline.fail(exc)
    finally:
        pipeline.parts.shutdown(wait=True)
    if pipeline.first_error is not None:
        raise pipeline.first_error
    return results


def _check_no_concurrent_stage(
    client: Any,
    location: S3Location,
    model: LocalModel,
    etags: dict[str, str],
    uploaded: dict[str, Uploaded],
    stage_id: str,
) -> dict[str, str]:
    """List the prefix again: every file must still be the object this run uploaded or skipped. Returns listed ETags.

    A skipped file must list the ETag it listed before. An uploaded file must list the ETag its
    PUT returned; where a server lists another form (rclone lists an md5, or the hash it was told
    to use, where S3 returns `...-N` for multipart), the object is HEADed and its
    `fastload-stage-id` must be this run's. On a conflict the manifest is removed too: another
    run may have written one for objects this run has since replaced.
    """
    listed = {o.name: o for o in list_prefix(client, location)}
    for f in model.files:
        there = listed.get(f.name)
        expected = etags.get(f.name, "")
        same = there is not None and there.size == f.size and (not expected or not there.etag or there.etag == expected)
        if not same and there is not None and there.size == f.size and f.name in uploaded:
            key = location.key(f.name)
            with explained(f"s3://{location.bucket}/{key}"):
                head = client.head_object(Bucket=location.bucket, Key=key)
            same = metadata_value(head.get("Metadata"), STAGE_ID_METADATA_KEY) == stage_id
        if not same:
            with contextlib.suppress(Exception):
                client.delete_object(Bucket=location.bucket, Key=location.key(STAGE_MANIFEST_NAME))
            raise S3AccessError(
                f"{location.uri}: {f.name} changed in S3 while this stage ran (another stage to the same "
                "prefix?); no manifest written. Run one stage at a time, then again to finish."
            )
    return {name: o.etag for name, o in listed.items() if o.etag}


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
