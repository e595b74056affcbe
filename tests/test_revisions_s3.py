"""Immutable revisions against real S3-compatible servers on 127.0.0.1 (rclone; moto for conditional writes)."""

import hashlib
import json
import threading
from datetime import datetime, timedelta, timezone

import pytest

from fastload_constructs.core.access.revisions import POINTER_NAME, parse_pointer, revision_prefix
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.naming import STAGE_MANIFEST_NAME
from fastload_constructs.core.s3_uri import parse_s3_uri
from fastload_constructs.s3 import revisions
from fastload_constructs.s3.client import s3_client
from fastload_constructs.s3.stage_record import StageRecord
from fastload_constructs.s3.staging import validate_model_folder
from fastload_constructs.s3.uploader import transfer_config, upload_model
from tests.hf_model_factory import SHARD_1, write_hf_model

T0 = datetime(2026, 12, 3, 10, 0, tzinfo=timezone.utc)


def _model(tmp_path, name="tiny", last_byte=None):
    folder = tmp_path / name
    write_hf_model(folder)
    if last_byte is not None:
        data = bytearray((folder / SHARD_1).read_bytes())
        data[-1] = last_byte  # other weights, same size
        (folder / SHARD_1).write_bytes(bytes(data))
    return folder


def _stage(server, folder, location, **kwargs):
    client = s3_client(endpoint_url=server.url)
    return revisions.stage_revision(
        client, validate_model_folder(folder), location, config=transfer_config(chunk_size_mib=5), **kwargs
    )


def _objects(server, bucket, prefix):
    client = server.client()
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix + "/")
    return {o["Key"][len(prefix) + 1 :]: o["ETag"] for page in pages for o in page.get("Contents", [])}


def _assert_revision_whole(server, bucket, prefix, revision):
    """Every file the revision's manifest lists holds the bytes the manifest says."""
    client = server.client()
    folder = revision_prefix(prefix, revision)
    manifest = json.loads(client.get_object(Bucket=bucket, Key=f"{folder}/{STAGE_MANIFEST_NAME}")["Body"].read())
    for entry in manifest["files"]:
        body = client.get_object(Bucket=bucket, Key=f"{folder}/{entry['name']}")["Body"].read()
        assert hashlib.sha256(body).hexdigest() == entry["sha256"], entry["name"]
    return manifest


def test_a_restage_writes_a_new_revision_and_never_touches_the_old_one(s3_server, tmp_path):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/models/tiny")
    first = _stage(s3_server, _model(tmp_path, "v1"), location)
    assert first.published and not first.copied
    before = _objects(s3_server, bucket, revision_prefix(location.prefix, first.revision))

    second = _stage(s3_server, _model(tmp_path, "v2", last_byte=7), location)
    assert second.published and second.revision != first.revision
    # The old revision's objects are exactly as they were; pods that resolved it read the same bytes.
    assert _objects(s3_server, bucket, revision_prefix(location.prefix, first.revision)) == before
    # Unchanged files were copied server-side; only the changed shard was uploaded.
    assert SHARD_1 not in second.copied and len(second.copied) == len(before) - 2  # minus manifest and shard
    assert [f.name for f in second.result.plan.upload] == [SHARD_1]
    manifest = _assert_revision_whole(s3_server, bucket, location.prefix, second.revision)
    assert manifest["model_uri"] == second.revision_uri
    pointer = parse_pointer(
        s3_server.client().get_object(Bucket=bucket, Key=f"models/tiny/{POINTER_NAME}")["Body"].read()
    )
    assert pointer.revision == second.revision and pointer.previous() == first.revision


def test_a_no_op_restage_writes_nothing_and_keeps_the_revision(s3_server, tmp_path):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    folder = _model(tmp_path)
    first = _stage(s3_server, folder, location)
    again = _stage(s3_server, folder, location)
    assert again.unchanged and again.revision == first.revision
    assert len(revisions.list_revisions(s3_server.client(), location)) == 1


def test_an_interrupted_stage_resumes_its_own_revision(s3_server, tmp_path, monkeypatch):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    folder = _model(tmp_path)

    def broken(*args, **kwargs):
        raise ConnectionResetError("killed mid-stage")

    real = revisions.upload_model
    monkeypatch.setattr(revisions, "upload_model", broken)
    with pytest.raises(ConnectionResetError):
        _stage(s3_server, folder, location)
    monkeypatch.setattr(revisions, "upload_model", real)  # not undo(): that would drop conftest's XDG_CACHE_HOME
    listed = revisions.list_revisions(s3_server.client(), location)
    assert listed == []  # nothing was written before the failure; the revision id is in the record
    (opened,) = StageRecord.load(folder).open_revisions.values()
    done = _stage(s3_server, folder, location)
    assert done.published and done.revision == opened
    assert [r.revision for r in revisions.list_revisions(s3_server.client(), location)] == [done.revision]


def test_a_flat_stage_is_migrated_by_server_side_copies(s3_server, tmp_path):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    folder = _model(tmp_path)
    client = s3_client(endpoint_url=s3_server.url)
    upload_model(client, validate_model_folder(folder), location, config=transfer_config(chunk_size_mib=5))
    staged = _stage(s3_server, folder, location)
    assert staged.published and staged.result.plan.upload == ()  # every byte came from the flat stage
    _assert_revision_whole(s3_server, bucket, "m", staged.revision)


def test_concurrent_stagers_publish_one_whole_revision(moto_server, tmp_path):
    bucket = moto_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    folders = [_model(tmp_path, f"v{i}", last_byte=i + 1) for i in range(2)]
    _stage(moto_server, _model(tmp_path, "base"), location)
    for _ in range(3):
        barrier = threading.Barrier(2)
        outcomes = []

        def run(folder, barrier=barrier, outcomes=outcomes):
            model = validate_model_folder(folder)
            client = s3_client(endpoint_url=moto_server.url)
            barrier.wait()
            try:
                outcomes.append(revisions.stage_revision(client, model, location, verify=True).revision)
            except revisions.PublishConflict:
                outcomes.append("conflict")

        threads = [threading.Thread(target=run, args=(f,)) for f in folders]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        pointer, _ = revisions.read_pointer(moto_server.client(), location)
        assert pointer.revision in outcomes, outcomes
        _assert_revision_whole(moto_server, bucket, "m", pointer.revision)


def test_a_publish_that_lost_the_race_is_refused(moto_server, tmp_path):
    bucket = moto_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    first = _stage(moto_server, _model(tmp_path, "a"), location)
    second = _stage(moto_server, _model(tmp_path, "b", last_byte=3), location, publish_it=False)
    assert not second.published
    client = moto_server.client()
    _, etag = revisions.read_pointer(client, location)
    revisions.publish(client, location, second.revision)  # someone else switches meanwhile
    with pytest.raises(revisions.PublishConflict, match="pointer changed"):
        revisions.publish(client, location, first.revision, expected_etag=etag)


def test_a_lost_reply_to_our_own_publish_is_success(moto_server, tmp_path):
    bucket = moto_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    first = _stage(moto_server, _model(tmp_path, "a"), location)
    second = _stage(moto_server, _model(tmp_path, "b", last_byte=3), location, publish_it=False)
    client = moto_server.client()
    real_put = client.put_object
    calls = []

    def put_twice(**kwargs):  # the first attempt lands, its reply is lost, the retry meets our own write
        calls.append(kwargs["Key"])
        real_put(**kwargs)
        return real_put(**kwargs)

    client.put_object = put_twice
    pointer = revisions.publish(client, location, second.revision, now=T0)
    assert pointer.revision == second.revision and calls == [f"m/{POINTER_NAME}"]
    assert revisions.read_pointer(moto_server.client(), location)[0].previous() == first.revision


def test_pin_holds_the_pointer_and_rollback_goes_back_pinned(s3_server, tmp_path):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    client = s3_server.client()
    first = _stage(s3_server, _model(tmp_path, "a"), location)
    revisions.set_pinned(client, location, True)
    held = _stage(s3_server, _model(tmp_path, "b", last_byte=3), location)
    assert not held.published and held.pinned_elsewhere == first.revision
    assert revisions.read_pointer(client, location)[0].revision == first.revision

    revisions.set_pinned(client, location, False)
    revisions.publish(client, location, held.revision)
    back = revisions.rollback(client, location)
    assert back.revision == first.revision and back.pinned


def test_publishing_an_incomplete_revision_is_refused(s3_server, tmp_path):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    _stage(s3_server, _model(tmp_path), location)
    with pytest.raises(FastloadConfigError, match="revision"):
        revisions.publish(s3_server.client(), location, "20261203T000000Z-00000000")
    with pytest.raises(FastloadConfigError, match="revision"):
        revisions.publish(s3_server.client(), location, "../../other")


def test_collection_keeps_current_newest_and_recent_revisions(s3_server, tmp_path):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    client = s3_server.client()
    staged = [_stage(s3_server, _model(tmp_path, f"v{i}", last_byte=i + 1), location).revision for i in range(4)]
    later = datetime.now(timezone.utc) + timedelta(days=2)
    chosen = revisions.collect(client, location, keep=1, grace_s=3600, delete=False, now=later)
    assert chosen.delete == tuple(staged[:2]) and set(chosen.keep) == set(staged[2:])
    assert len(revisions.list_revisions(client, location)) == 4  # a dry run deletes nothing
    # Just after the switch, the revision that was current is still being loaded by some pods: kept.
    soon = datetime.now(timezone.utc) + timedelta(minutes=5)
    assert revisions.collect(client, location, keep=0, grace_s=3600, delete=False, now=soon).delete == ()
    revisions.collect(client, location, keep=1, grace_s=3600, delete=True, now=later)
    assert [r.revision for r in revisions.list_revisions(client, location)] == staged[2:]
    _assert_revision_whole(s3_server, bucket, "m", staged[3])


def test_a_copy_above_five_gib_goes_in_parts(moto_server, tmp_path, monkeypatch):
    monkeypatch.setattr(revisions, "MAX_SINGLE_COPY_BYTES", 1024)
    monkeypatch.setattr(revisions, "COPY_PART_BYTES", 5 * 1024 * 1024)
    bucket = moto_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    big = tmp_path / "big"
    write_hf_model(big)
    (big / "tokenizer.json").write_bytes(b"x" * (11 * 1024 * 1024))  # three parts
    _stage(moto_server, big, location)
    (big / SHARD_1).write_bytes((big / SHARD_1).read_bytes()[:-1] + b"\x09")
    second = _stage(moto_server, big, location)
    assert "tokenizer.json" in second.copied
    _assert_revision_whole(moto_server, bucket, "m", second.revision)


def test_verify_rehashes_files_a_resumed_revision_already_holds(s3_server, tmp_path, monkeypatch):
    """A file changed in place with its size, mtime and inode kept fools the local record; --verify does not."""
    import os

    from fastload_constructs.s3 import uploader

    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    folder = _model(tmp_path)
    real = uploader.upload_model

    def upload_then_die(client, model, target, **kwargs):
        real(client, model, target, **kwargs)
        raise ConnectionResetError("killed before publish")

    monkeypatch.setattr(revisions, "upload_model", upload_then_die)
    with pytest.raises(ConnectionResetError):
        _stage(s3_server, folder, location)
    monkeypatch.setattr(revisions, "upload_model", real)
    # Remove the manifest: the revision is unfinished again, so a re-run resumes it.
    listed = revisions.list_revisions(s3_server.client(), location)
    (open_revision,) = [r.revision for r in listed]
    s3_server.client().delete_object(Bucket=bucket, Key=f"m/revisions/{open_revision}/{STAGE_MANIFEST_NAME}")
    shard = folder / SHARD_1
    stat = shard.stat()
    data = bytearray(shard.read_bytes())
    data[-1] ^= 0xFF
    with shard.open("r+b") as handle:  # same inode, same size
        handle.write(bytes(data))
    os.utime(shard, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same mtime
    done = _stage(s3_server, folder, location, verify=True)
    assert done.revision == open_revision
    body = s3_server.client().get_object(Bucket=bucket, Key=f"m/revisions/{open_revision}/{SHARD_1}")["Body"].read()
    assert body == bytes(data)
    _assert_revision_whole(s3_server, bucket, "m", done.revision)
