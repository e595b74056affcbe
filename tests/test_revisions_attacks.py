"""Attacks on immutable revisions: each test names the attack and the outcome that stops it."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.core.access.revisions import POINTER_NAME, first_pointer, parse_pointer, revision_prefix
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.naming import STAGE_MANIFEST_NAME
from fastload_constructs.core.s3_uri import parse_s3_uri
from fastload_constructs.runtime import revision as pod_revision
from fastload_constructs.s3 import revisions
from fastload_constructs.s3.client import s3_client
from fastload_constructs.s3.staging import validate_model_folder
from fastload_constructs.s3.uploader import transfer_config
from tests.hf_model_factory import SHARD_1, write_hf_model
from tests.test_revision_pods import URI, spec

T0 = datetime(2026, 12, 3, 10, 0, tzinfo=timezone.utc)


def _run(server, *argv):
    return main([*argv, "--endpoint-url", server.url])


def _keys(server, bucket):
    pages = server.client().get_paginator("list_objects_v2").paginate(Bucket=bucket)
    return {o["Key"]: o["ETag"] for page in pages for o in page.get("Contents", [])}


def _model(tmp_path, name, last_byte=None):
    folder = tmp_path / name
    write_hf_model(folder)
    if last_byte is not None:
        data = bytearray((folder / SHARD_1).read_bytes())
        data[-1] = last_byte
        (folder / SHARD_1).write_bytes(bytes(data))
    return folder


def _stage(server, folder, location, **kwargs):
    client = s3_client(endpoint_url=server.url)
    return revisions.stage_revision(
        client, validate_model_folder(folder), location, config=transfer_config(chunk_size_mib=5), **kwargs
    )


# --- a URI that names a revision folder is never a staging or publishing target ------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["stage", "DIR", "REV", "--no-progress"],
        ["stage", "DIR", "REV/sub", "--no-progress"],
        ["stage", "DIR", "REV", "--no-progress", "--layout", "flat"],
        ["revisions", "publish", "REV", "ID"],
        ["revisions", "pin", "REV", "ID"],
        ["revisions", "gc", "REV", "--yes", "--keep", "0", "--grace-hours", "0"],
    ],
)
def test_a_revision_folder_is_never_written_through_its_own_uri(s3_server, tmp_path, capsys, argv):
    """`fastload stage DIR s3://b/m/revisions/<id>` used to write a pointer and a nested revision into an
    existing, published revision (whose pods stream every *.safetensors under it)."""
    bucket = s3_server.new_bucket()
    uri = f"s3://{bucket}/m"
    folder = _model(tmp_path, "m")
    assert _run(s3_server, "stage", str(folder), uri, "--no-progress") == 0
    first = capsys.readouterr().out.split("revision: ")[1].split()[0]
    (folder / "tokenizer.json").write_text('{"v": 2}')
    before = _keys(s3_server, bucket)
    rev_uri = f"{uri}/revisions/{first}"
    argv = [a.replace("DIR", str(folder)).replace("REV", rev_uri).replace("ID", first) for a in argv]
    assert _run(s3_server, *argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("fastload: s3_uri: ") and err.count("\n") == 1 and "revision folder" in err
    assert _keys(s3_server, bucket) == before  # nothing written, nothing deleted


def test_the_library_refuses_a_revision_folder_too(s3_server, tmp_path):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    first = _stage(s3_server, _model(tmp_path, "a"), location)
    inside = parse_s3_uri(first.revision_uri)
    with pytest.raises(FastloadConfigError, match="revision folder"):
        _stage(s3_server, _model(tmp_path, "b", last_byte=3), inside)
    with pytest.raises(FastloadConfigError, match="revision folder"):
        revisions.publish(s3_server.client(), inside, first.revision)


# --- the launcher swaps the model argument, not a served model name that happens to equal it -------------


def test_a_served_model_name_equal_to_the_model_uri_stays_as_given():
    """Clients call the model by its served name: it must not become the revision's URI (a new name per
    revision), even when it was set to the model URI (what vLLM names a model by default)."""
    for s in (spec(served_model_name=URI), spec(served_model_name=URI, extra_args=("--tokenizer", URI))):
        args = s.container_args
        assert args[args.index("--served-model-name") + 1] == URI
        assert args[2] != URI  # the model itself still comes from the resolved revision
        if "--tokenizer" in args:
            assert args[args.index("--tokenizer") + 1] != URI  # the tokenizer too: the prefix holds no files


# --- gc never deletes the revision a concurrent publish just made current ---------------------------------


def test_gc_does_not_delete_a_revision_published_while_it_listed(s3_server, tmp_path, monkeypatch):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    old = _stage(s3_server, _model(tmp_path, "a"), location)
    new = _stage(s3_server, _model(tmp_path, "b", last_byte=3), location)
    assert revisions.read_pointer(s3_server.client(), location)[0].revision == new.revision
    listed = revisions.list_revisions

    def list_then_rollback(client, where):
        found = listed(client, where)
        revisions.rollback(client, where)  # an operator rolls back to `old` while gc is deciding
        return found

    monkeypatch.setattr(revisions, "list_revisions", list_then_rollback)
    chosen = revisions.collect(s3_server.client(), location, keep=0, grace_s=0, delete=True)
    assert old.revision not in chosen.delete
    current = revisions.read_pointer(s3_server.client(), location)[0].revision
    assert current == old.revision
    folder = revision_prefix(location.prefix, current)
    assert f"{folder}/{STAGE_MANIFEST_NAME}" in _keys(s3_server, bucket)  # pods can still resolve it


# --- hostile pointer bodies: one line, exit 2, and the pod refuses what the CLI refuses ------------------

GOOD = json.loads(first_pointer("20261203T100000Z-0a1b2c3d", T0).to_json())
HOSTILE = {
    "deep": b"[" * 100_000,
    "version true": json.dumps({**GOOD, "fastload_pointer_version": True}).encode(),
    "version 1.0": json.dumps({**GOOD, "fastload_pointer_version": 1.0}).encode(),
    "pinned string": json.dumps({**GOOD, "pinned": "false"}).encode(),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_pointer_is_refused_in_one_line_by_the_cli_and_the_pod(s3_server, capsys, case):
    body = HOSTILE[case]
    with pytest.raises(FastloadConfigError):
        parse_pointer(body)
    with pytest.raises(ValueError):
        pod_revision.pointer_revision(body)
    bucket = s3_server.new_bucket()
    s3_server.client().put_object(Bucket=bucket, Key=f"m/{POINTER_NAME}", Body=body)
    for command in ("list", "gc", "rollback", "unpin"):
        assert _run(s3_server, "revisions", command, f"s3://{bucket}/m") == 2, command
        err = capsys.readouterr().err
        assert err.startswith(f"fastload: s3://{bucket}/m/{POINTER_NAME}") and err.count("\n") == 1, err


# --- a re-run after the publish failed publishes the revision it already wrote --------------------------


def test_a_rerun_after_a_failed_publish_publishes_the_complete_revision_without_uploading(
    s3_server, tmp_path, monkeypatch, capsys
):
    """Credentials that expire at the end of a long upload fail the publish: the re-run used to write a
    third revision and upload every changed byte again."""
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    _stage(s3_server, _model(tmp_path, "a"), location)
    folder = _model(tmp_path, "b", last_byte=3)

    def lost(*args, **kwargs):
        raise ConnectionResetError("publish failed")

    with monkeypatch.context() as patched:
        patched.setattr(revisions, "publish", lost)
        with pytest.raises(ConnectionResetError):
            _stage(s3_server, folder, location)
    written = [r for r in revisions.list_revisions(s3_server.client(), location) if r.complete]
    assert len(written) == 2
    before = {k: v for k, v in _keys(s3_server, bucket).items() if not k.endswith(POINTER_NAME)}

    assert _run(s3_server, "stage", str(folder), location.uri, "--no-progress") == 0
    out = capsys.readouterr().out
    assert f"revision: {written[-1].revision}" in out and "published" in out and "uploaded" not in out
    after = _keys(s3_server, bucket)
    assert {k: v for k, v in after.items() if not k.endswith(POINTER_NAME)} == before  # nothing written
    assert revisions.read_pointer(s3_server.client(), location)[0].revision == written[-1].revision

    # Other files than that revision holds: a new revision, never a write into the complete one.
    (folder / "tokenizer.json").write_text('{"v": 3}')
    again = _stage(s3_server, folder, location)
    assert again.revision != written[-1].revision and again.published
    assert {k: v for k, v in _keys(s3_server, bucket).items() if written[-1].revision in k} == {
        k: v for k, v in before.items() if written[-1].revision in k
    }


# --- a pointer that may not be read is never taken for "no pointer" ---------------------------------------


def _pointer_denied(bucket: str, prefix: str) -> dict:
    """A role that may list and delete under the bucket but not read the pointer (as with SSE-KMS and no
    kms:Decrypt): S3 answers 403 for the pointer, which exists."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "s3:*", "Resource": [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"]},
            {"Effect": "Deny", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::{bucket}/{prefix}/{POINTER_NAME}"},
        ],
    }


@pytest.mark.parametrize(
    "argv",
    [
        ["revisions", "gc", "URI", "--yes", "--keep", "0", "--grace-hours", "0"],
        ["revisions", "list", "URI"],
        ["revisions", "rollback", "URI"],
        ["revisions", "pin", "URI"],
        ["revisions", "publish", "URI", "OLD"],
        ["stage", "DIR", "URI", "--no-progress"],
    ],
)
def test_a_pointer_that_may_not_be_read_is_refused_in_one_line(moto_server, tmp_path, capsys, monkeypatch, argv):
    bucket = moto_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    old = _stage(moto_server, _model(tmp_path, "a"), location)
    current = _stage(moto_server, _model(tmp_path, "b", last_byte=3), location)
    before = _keys(moto_server, bucket)
    swap = {"URI": location.uri, "OLD": old.revision, "DIR": str(_model(tmp_path, "c", last_byte=5))}
    with moto_server.principal_with_policy(_pointer_denied(bucket, "m")) as credentials:
        for name, value in credentials.items():
            monkeypatch.setenv(name, value)
        assert _run(moto_server, *(swap.get(a, a) for a in argv)) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and POINTER_NAME in err and "Traceback" not in err, err
    assert _keys(moto_server, bucket) == before  # nothing written, nothing deleted
    assert revisions.read_pointer(moto_server.client(), location)[0].revision == current.revision


def test_the_pod_fails_on_a_pointer_it_may_not_read_rather_than_load_the_flat_stage(moto_server, tmp_path):
    """A prefix staged flat before revisions, then as revisions: a denied pointer read as "none" would load
    the old flat files."""
    from fastload_constructs.s3.uploader import upload_model

    bucket = moto_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    client = s3_client(endpoint_url=moto_server.url)
    upload_model(client, validate_model_folder(_model(tmp_path, "flat")), location, config=transfer_config())
    staged = _stage(moto_server, _model(tmp_path, "b", last_byte=3), location)
    with moto_server.principal_with_policy(_pointer_denied(bucket, "m")) as credentials:
        pod = moto_server.client(
            aws_access_key_id=credentials["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=credentials["AWS_SECRET_ACCESS_KEY"],
        )
        with pytest.raises(ValueError, match=f"{POINTER_NAME}.*may not be read"):
            pod_revision.resolve_revision(pod, bucket=bucket, prefix="m")
    assert pod_revision.resolve_revision(moto_server.client(), bucket=bucket, prefix="m")[1] == staged.revision
