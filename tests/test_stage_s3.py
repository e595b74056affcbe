"""`fastload stage` against a real S3-compatible server on 127.0.0.1."""

import hashlib
import json
import os

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.naming import SHA256_METADATA_KEY, STAGE_MANIFEST_NAME
from fastload_constructs.core.s3_uri import parse_s3_uri
from fastload_constructs.s3.client import metadata_value, s3_client, upload_clients
from fastload_constructs.s3.staging import validate_model_folder
from fastload_constructs.s3.uploader import transfer_config, upload_model
from tests.hf_model_factory import SHARD_1, SHARD_2, write_hf_model


@pytest.fixture
def model_dir(tmp_path):
    write_hf_model(tmp_path / "tiny")
    return tmp_path / "tiny"


def _stage(s3_server, model_dir, uri, *extra):
    """`fastload stage --layout flat`: these tests hold the uploader's mechanics at the prefix itself.

    The default layout (immutable revisions) runs the same uploader into a revision folder of its own;
    tests/test_revisions_s3.py holds what it adds."""
    return main(
        [
            "stage",
            str(model_dir),
            uri,
            "--endpoint-url",
            s3_server.url,
            "--chunk-size-mib",
            "5",
            "--no-progress",
            "--layout",
            "flat",
            *extra,
        ]
    )


def _keys(client, bucket, prefix):
    pages = client.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix + "/")
    return {o["Key"][len(prefix) + 1 :]: o for page in pages for o in page.get("Contents", [])}


class WriteRecorder:
    """Records every write-type S3 call the client makes, in order, as (operation, key)."""

    WRITES = ("PutObject", "CreateMultipartUpload", "UploadPart", "CompleteMultipartUpload", "DeleteObject")

    def __init__(self, client):
        self.calls = []
        for op in self.WRITES:
            client.meta.events.register(f"before-parameter-build.s3.{op}", self._record(op))

    def _record(self, op):
        def handler(params, **_):
            self.calls.append((op, params["Key"]))

        return handler

    def keys(self, op):
        return [key for o, key in self.calls if o == op]


def test_stage_uploads_every_file_with_its_sha256_then_the_manifest(s3_server, model_dir, capsys):
    bucket = s3_server.new_bucket()
    assert _stage(s3_server, model_dir, f"s3://{bucket}/models/tiny") == 0
    out = capsys.readouterr().out
    assert "uploaded 5 files" in out and f"s3://{bucket}/models/tiny/{STAGE_MANIFEST_NAME}" in out

    client = s3_server.client()
    objects = _keys(client, bucket, "models/tiny")
    local = {p.name: p for p in model_dir.iterdir()}
    assert set(objects) == set(local) | {STAGE_MANIFEST_NAME}
    for name, path in local.items():
        body = client.get_object(Bucket=bucket, Key=f"models/tiny/{name}")
        assert body["Body"].read() == path.read_bytes()
        if path.stat().st_size <= 5 * 1024 * 1024:  # one PUT: the hash travels as metadata too
            assert (
                metadata_value(body["Metadata"], SHA256_METADATA_KEY) == hashlib.sha256(path.read_bytes()).hexdigest()
            )

    manifest = json.loads(client.get_object(Bucket=bucket, Key=f"models/tiny/{STAGE_MANIFEST_NAME}")["Body"].read())
    assert manifest["model_uri"] == f"s3://{bucket}/models/tiny"
    assert {f["name"]: f["sha256"] for f in manifest["files"]} == {
        n: hashlib.sha256(p.read_bytes()).hexdigest() for n, p in local.items()
    }
    assert manifest["parameter_count"] == 1536 * 2048 + 64 * 32 * 2 + 32


def test_restage_skips_what_is_there_and_uploads_what_changed(s3_server, model_dir, capsys):
    bucket = s3_server.new_bucket()
    uri = f"s3://{bucket}/models/tiny"
    assert _stage(s3_server, model_dir, uri) == 0
    capsys.readouterr()
    assert _stage(s3_server, model_dir, uri) == 0
    assert "uploaded 0 files (0 bytes); skipped 5" in capsys.readouterr().out

    (model_dir / "tokenizer.json").write_text('{"version": "2.0"}')  # same name, new content
    client = s3_client(endpoint_url=s3_server.url)
    recorder = WriteRecorder(client)
    model = validate_model_folder(model_dir)
    result = upload_model(client, model, parse_s3_uri(uri), config=transfer_config(chunk_size_mib=5))
    assert [f.name for f in result.plan.upload] == ["tokenizer.json"]
    assert recorder.keys("PutObject") == ["models/tiny/tokenizer.json", f"models/tiny/{STAGE_MANIFEST_NAME}"]


class Interrupted(Exception):
    pass


def test_interrupted_stage_leaves_no_manifest_and_a_rerun_uploads_only_the_rest(s3_server, model_dir):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/models/tiny")
    model = validate_model_folder(model_dir)
    small = [f.name for f in model.files if f.name != SHARD_1]

    # Interrupt once more than 6 MiB went out: the big shard (6 MiB, two 5 MiB parts) can never finish.
    sent = 0

    def interrupt_after_6_mib(n):
        nonlocal sent
        sent += n
        if sent > 6 * 1024 * 1024:
            raise Interrupted()

    client = s3_client(endpoint_url=s3_server.url)
    with pytest.raises(Interrupted):
        upload_model(
            client,
            model,
            location,
            config=transfer_config(concurrency=1, chunk_size_mib=5),
            on_bytes=interrupt_after_6_mib,
        )
    present = set(_keys(client, bucket, location.prefix))
    assert STAGE_MANIFEST_NAME not in present and SHARD_1 not in present
    assert present <= set(small)  # whole objects only; the big shard is not among them
    assert client.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []  # the part upload was aborted
    missing = {f.name for f in model.files} - present

    recorder = WriteRecorder(client)
    result = upload_model(client, model, location, config=transfer_config(chunk_size_mib=5))
    assert {f.name for f in result.plan.upload} == missing
    assert {f.name for f in result.plan.skip} == present
    uploaded = set(recorder.keys("CreateMultipartUpload")) | set(recorder.keys("PutObject"))
    assert uploaded == {location.key(n) for n in missing | {STAGE_MANIFEST_NAME}}
    assert recorder.calls[-1] == ("PutObject", location.key(STAGE_MANIFEST_NAME))  # the manifest comes last
    assert STAGE_MANIFEST_NAME in _keys(client, bucket, location.prefix)


def test_restaging_changed_weights_removes_the_old_manifest_first(s3_server, model_dir):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/models/tiny")
    client = s3_client(endpoint_url=s3_server.url)
    upload_model(client, validate_model_folder(model_dir), location, config=transfer_config(chunk_size_mib=5))

    data = bytearray((model_dir / SHARD_2).read_bytes())
    data[-1] ^= 0xFF  # new weights, same size
    (model_dir / SHARD_2).write_bytes(bytes(data))

    def fail(_n):
        raise Interrupted()

    with pytest.raises(Interrupted):
        upload_model(
            client, validate_model_folder(model_dir), location, config=transfer_config(chunk_size_mib=5), on_bytes=fail
        )
    assert STAGE_MANIFEST_NAME not in _keys(client, bucket, location.prefix)


def test_stale_objects_under_the_prefix_are_reported(s3_server, model_dir, capsys):
    bucket = s3_server.new_bucket()
    s3_server.client().put_object(Bucket=bucket, Key="models/tiny/old.safetensors", Body=b"x" * 16)
    assert _stage(s3_server, model_dir, f"s3://{bucket}/models/tiny") == 0
    assert "warning: models/tiny/old.safetensors is under the prefix" in capsys.readouterr().err
    assert "old.safetensors" in _keys(s3_server.client(), bucket, "models/tiny")

    assert _stage(s3_server, model_dir, f"s3://{bucket}/models/tiny", "--delete-stale") == 2  # shows, asks for --yes
    err = capsys.readouterr().err
    assert "would delete models/tiny/old.safetensors" in err and "--yes" in err.splitlines()[-1]
    assert "old.safetensors" in _keys(s3_server.client(), bucket, "models/tiny")

    assert _stage(s3_server, model_dir, f"s3://{bucket}/models/tiny", "--delete-stale", "--yes") == 0
    assert "deleting models/tiny/old.safetensors" in capsys.readouterr().err
    remaining = _keys(s3_server.client(), bucket, "models/tiny")
    assert set(remaining) == {p.name for p in model_dir.iterdir()} | {STAGE_MANIFEST_NAME}


def test_endpoint_is_read_from_aws_endpoint_url(s3_server, model_dir, monkeypatch, capsys):
    bucket = s3_server.new_bucket()
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_server.url)
    assert main(["stage", str(model_dir), f"s3://{bucket}/m", "--no-progress"]) == 0
    (revision,) = {k.split("/")[1] for k in _keys(s3_server.client(), bucket, "m") if k.startswith("revisions/")}
    assert f"revisions/{revision}/{STAGE_MANIFEST_NAME}" in _keys(s3_server.client(), bucket, "m")


# Errors: one line on stderr, non-zero exit, nothing written.


def _one_line_error(capsys):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_missing_credentials(s3_server, model_dir, monkeypatch, tmp_path, capsys):
    for name in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    bucket = "fastload-no-creds"  # never reached: signing fails before any request
    assert _stage(s3_server, model_dir, f"s3://{bucket}/m") == 1
    line = _one_line_error(capsys)
    assert line.startswith(f"fastload: s3://{bucket}/m: no AWS credentials found")
    assert main(["inspect", f"s3://{bucket}/m", "--endpoint-url", s3_server.url]) == 1
    assert "no AWS credentials found" in _one_line_error(capsys)


def test_no_such_bucket(s3_server, model_dir, capsys):
    assert _stage(s3_server, model_dir, "s3://fastload-absent-bucket/m") == 1
    assert _one_line_error(capsys) == (
        "fastload: s3://fastload-absent-bucket/m: no such bucket; check the bucket name, account and region"
    )


def test_access_denied(moto_server, model_dir, monkeypatch, capsys):
    bucket = moto_server.new_bucket()
    with moto_server.principal_without_permissions() as credentials:
        for name, value in credentials.items():
            monkeypatch.setenv(name, value)
        assert _stage(moto_server, model_dir, f"s3://{bucket}/m") == 1
        stage_error = _one_line_error(capsys)
        assert main(["inspect", f"s3://{bucket}/m", "--endpoint-url", moto_server.url]) == 1
        inspect_error = _one_line_error(capsys)
    assert stage_error.startswith(f"fastload: s3://{bucket}/m: access denied")
    # inspect reads the pointer first: a pointer it may not read is refused, never taken for a flat stage.
    assert inspect_error.startswith(f"fastload: s3://{bucket}/m/fastload-current.json: access denied (GetObject)")
    assert "s3:ListBucket" in inspect_error
    assert _keys(moto_server.client(), bucket, "m") == {}


# Re-runs read nothing they need not: the local record and the manifest's ETags.


class Calls:
    """Every S3 operation the client sends, by name."""

    def __init__(self, client):
        self.names = []
        client.meta.events.register("before-call.s3.*", lambda model, **_: self.names.append(model.name))


def _staged_once(s3_server, model_dir, uri):
    client = s3_client(endpoint_url=s3_server.url)
    upload_model(client, validate_model_folder(model_dir), parse_s3_uri(uri), config=transfer_config(chunk_size_mib=5))
    return client


def test_a_fresh_stage_reads_each_byte_once_and_hashes_nothing_up_front(s3_server, model_dir):
    bucket = s3_server.new_bucket()
    client = s3_client(endpoint_url=s3_server.url)
    model = validate_model_folder(model_dir)
    assert all(f.sha256 is None for f in model.files)  # validation read headers only
    result = upload_model(client, model, parse_s3_uri(f"s3://{bucket}/m"), config=transfer_config(chunk_size_mib=5))
    assert result.hashed_bytes == 0  # no pass before the upload: hashes were taken from the bytes sent
    listed = {f["name"]: f["sha256"] for f in result.manifest["files"]}
    assert listed == {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in model_dir.iterdir()}


def test_a_no_op_rerun_reads_no_file_and_heads_no_object(s3_server, model_dir):
    bucket = s3_server.new_bucket()
    uri = f"s3://{bucket}/m"
    client = _staged_once(s3_server, model_dir, uri)
    calls = Calls(client)
    result = upload_model(client, validate_model_folder(model_dir), parse_s3_uri(uri))
    assert result.hashed_bytes == 0 and result.plan.upload == ()
    assert "HeadObject" not in calls.names and "UploadPart" not in calls.names
    assert calls.names.count("PutObject") == 0  # the manifest is unchanged, so not rewritten


def test_a_rerun_from_another_machine_hashes_locally_but_uploads_nothing(s3_server, model_dir, monkeypatch, tmp_path):
    bucket = s3_server.new_bucket()
    uri = f"s3://{bucket}/m"
    client = _staged_once(s3_server, model_dir, uri)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other-machine"))  # no local record
    calls = Calls(client)
    result = upload_model(client, validate_model_folder(model_dir), parse_s3_uri(uri))
    total = sum(p.stat().st_size for p in model_dir.iterdir())
    assert result.plan.upload == () and result.hashed_bytes == total
    assert "HeadObject" not in calls.names  # the manifest's ETags said which hash each object has


def test_verify_rehashes_every_file_and_a_touched_file_is_rehashed_alone(s3_server, model_dir):
    bucket = s3_server.new_bucket()
    uri = f"s3://{bucket}/m"
    client = _staged_once(s3_server, model_dir, uri)
    total = sum(p.stat().st_size for p in model_dir.iterdir())
    verified = upload_model(client, validate_model_folder(model_dir), parse_s3_uri(uri), verify=True)
    assert verified.hashed_bytes == total and verified.plan.upload == ()

    touched = model_dir / "tokenizer.json"
    os.utime(touched, ns=(touched.stat().st_atime_ns, touched.stat().st_mtime_ns + 10**9))
    again = upload_model(client, validate_model_folder(model_dir), parse_s3_uri(uri))
    assert again.hashed_bytes == touched.stat().st_size and again.plan.upload == ()


def test_cli_verify_flag(s3_server, model_dir, capsys):
    bucket = s3_server.new_bucket()
    uri = f"s3://{bucket}/m"
    assert _stage(s3_server, model_dir, uri) == 0
    assert _stage(s3_server, model_dir, uri, "--verify") == 0
    assert "uploaded 0 files (0 bytes); skipped 5" in capsys.readouterr().out


def test_a_file_changed_while_it_uploads_fails_the_stage_without_a_manifest(s3_server, model_dir):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    client = s3_client(endpoint_url=s3_server.url)
    shard = model_dir / SHARD_1

    def touch_the_shard(_n):
        os.utime(shard, ns=(shard.stat().st_atime_ns, shard.stat().st_mtime_ns + 10**9))

    with pytest.raises(FastloadConfigError) as err:
        upload_model(
            client,
            validate_model_folder(model_dir),
            location,
            config=transfer_config(concurrency=1, chunk_size_mib=5),
            on_bytes=touch_the_shard,
        )
    assert err.value.value == SHARD_1 and "change" in err.value.accepted
    assert STAGE_MANIFEST_NAME not in _keys(client, bucket, "m")
    assert client.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []


def test_metadata_is_read_whatever_the_case_the_server_sends():
    assert metadata_value({"Fastload-Sha256": "ab"}, SHA256_METADATA_KEY) == "ab"  # rclone, Go servers
    assert metadata_value({"fastload-sha256": "cd"}, SHA256_METADATA_KEY) == "cd"  # AWS
    assert metadata_value({}, SHA256_METADATA_KEY) is None and metadata_value(None, SHA256_METADATA_KEY) is None


# Staging consistency: sub-models, names, symlinks, concurrent stagers.


def test_delete_stale_never_touches_a_sub_prefix_with_its_own_manifest(s3_server, model_dir, capsys):
    bucket = s3_server.new_bucket()
    client = s3_server.client()
    for key in ("models/tiny/v2/model.safetensors", "models/tiny/v2/fastload-manifest.json", "models/tiny/junk.txt"):
        client.put_object(Bucket=bucket, Key=key, Body=b"{}")
    assert _stage(s3_server, model_dir, f"s3://{bucket}/models/tiny", "--delete-stale", "--yes") == 0
    remaining = _keys(client, bucket, "models/tiny")
    assert "junk.txt" not in remaining
    assert {"v2/model.safetensors", "v2/fastload-manifest.json"} <= set(remaining)


@pytest.mark.parametrize(
    "name, accepted",
    [("tab\tname.json", "control characters"), ("back\\slash.json", "backslashes"), (b"caf\xe9.json", "UTF-8")],
    ids=["control-char", "backslash", "not-utf8"],
)
def test_names_s3_or_the_node_copy_cannot_round_trip_are_refused_before_any_request(
    s3_server, model_dir, capsys, name, accepted
):
    bucket = s3_server.new_bucket()
    uri = f"s3://{bucket}/m"
    assert _stage(s3_server, model_dir, uri) == 0
    manifest_before = _keys(s3_server.client(), bucket, "m")[STAGE_MANIFEST_NAME]["ETag"]
    path = os.path.join(os.fsencode(model_dir), name if isinstance(name, bytes) else name.encode())
    with open(path, "wb") as handle:
        handle.write(b"{}")
    capsys.readouterr()
    assert _stage(s3_server, model_dir, uri) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fastload: model_dir: got ") and accepted in err and len(err.splitlines()) == 1
    assert _keys(s3_server.client(), bucket, "m")[STAGE_MANIFEST_NAME]["ETag"] == manifest_before  # untouched


def test_symlinks_out_of_the_folder_need_follow_symlinks(s3_server, model_dir, tmp_path, capsys):
    outside = tmp_path / "elsewhere.json"
    outside.write_text('{"x": 1}')
    (model_dir / "generation_config.json").symlink_to(outside)
    (model_dir / "alias.json").symlink_to("tokenizer.json")  # inside: fine
    bucket = s3_server.new_bucket()
    assert _stage(s3_server, model_dir, f"s3://{bucket}/m") == 2
    assert "--follow-symlinks" in capsys.readouterr().err
    assert _stage(s3_server, model_dir, f"s3://{bucket}/m", "--follow-symlinks") == 0
    body = s3_server.client().get_object(Bucket=bucket, Key="m/generation_config.json")["Body"].read()
    assert body == b'{"x": 1}'


def test_a_hugging_face_cache_snapshot_stages_through_its_blob_links(s3_server, tmp_path):
    repo = tmp_path / "hub" / "models--org--tiny"
    snapshot = repo / "snapshots" / "0123abcd"
    write_hf_model(tmp_path / "plain")
    (repo / "blobs").mkdir(parents=True)
    snapshot.mkdir(parents=True)
    for path in (tmp_path / "plain").iterdir():  # the cache's layout: snapshots/<rev>/<file> -> ../../blobs/<hash>
        blob = repo / "blobs" / hashlib.sha256(path.read_bytes()).hexdigest()
        blob.write_bytes(path.read_bytes())
        (snapshot / path.name).symlink_to(os.path.relpath(blob, snapshot))
    bucket = s3_server.new_bucket()
    assert _stage(s3_server, snapshot, f"s3://{bucket}/m") == 0
    staged = _keys(s3_server.client(), bucket, "m")
    assert set(staged) == {p.name for p in (tmp_path / "plain").iterdir()} | {STAGE_MANIFEST_NAME}


def test_two_concurrent_stagers_never_leave_a_manifest_that_disagrees_with_the_objects(s3_server, tmp_path):
    import threading

    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    folders = []
    for i in range(2):
        write_hf_model(tmp_path / f"v{i}")
        (tmp_path / f"v{i}" / "tokenizer.json").write_text(json.dumps({"version": i}))
        data = bytearray((tmp_path / f"v{i}" / SHARD_1).read_bytes())
        data[-1] = i  # other weights, same size
        (tmp_path / f"v{i}" / SHARD_1).write_bytes(bytes(data))
        folders.append(tmp_path / f"v{i}")
    for _ in range(4):
        barrier = threading.Barrier(2)
        outcomes = []

        def run(folder, barrier=barrier, outcomes=outcomes):
            client = s3_client(endpoint_url=s3_server.url)
            model = validate_model_folder(folder)
            barrier.wait()
            try:
                upload_model(client, model, location, config=transfer_config(chunk_size_mib=5), verify=True)
                outcomes.append("ok")
            except Exception as exc:
                outcomes.append(type(exc).__name__)

        threads = [threading.Thread(target=run, args=(f,)) for f in folders]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        client = s3_server.client()
        objects = _keys(client, bucket, "m")
        if STAGE_MANIFEST_NAME in objects:
            manifest = json.loads(client.get_object(Bucket=bucket, Key=f"m/{STAGE_MANIFEST_NAME}")["Body"].read())
            for entry in manifest["files"]:
                body = client.get_object(Bucket=bucket, Key=f"m/{entry['name']}")["Body"].read()
                assert hashlib.sha256(body).hexdigest() == entry["sha256"], (entry["name"], outcomes)
        assert "ok" in outcomes or STAGE_MANIFEST_NAME not in objects


class SignatureRecorder:
    """Every request's operation, key and `x-amz-content-sha256` / `x-amz-checksum-crc32` headers, as sent."""

    def __init__(self, client):
        self.sent = []
        client.meta.events.register("before-send.s3", self._record)

    def _record(self, request, event_name, **_):
        headers = {k.lower(): v for k, v in request.headers.items()}
        value = headers.get("x-amz-content-sha256")
        self.sent.append(
            (
                event_name.rsplit(".", 1)[-1],
                request.url.split("?")[0].rsplit("/", 1)[-1],
                value.decode() if isinstance(value, bytes) else value,
                "x-amz-checksum-crc32" in headers,
            )
        )


def test_file_bytes_go_unsigned_with_a_crc32_and_the_manifest_signed(s3_server, model_dir):
    """Over plain HTTP botocore would SHA-256 every part for the signature, a second pass over bytes
    the uploader hashes already; the body client sends them as it does over HTTPS."""
    bucket = s3_server.new_bucket()
    control, bodies = upload_clients(endpoint_url=s3_server.url)
    on_control, on_bodies = SignatureRecorder(control), SignatureRecorder(bodies)
    model = validate_model_folder(model_dir)
    upload_model(
        control, model, parse_s3_uri(f"s3://{bucket}/m"), body_client=bodies, config=transfer_config(chunk_size_mib=5)
    )
    file_writes = [s for s in on_bodies.sent if s[0] in ("PutObject", "UploadPart")]
    assert {name for _, name, *_ in file_writes} == {f.name for f in model.files}
    assert sum(op == "UploadPart" for op, *_ in file_writes) >= 2  # the 6 MiB shard went in parts
    assert all(sha == "UNSIGNED-PAYLOAD" and crc for _, _, sha, crc in file_writes)
    manifest = [s for s in on_control.sent if s[0] == "PutObject"]
    assert [name for _, name, *_ in manifest] == [STAGE_MANIFEST_NAME]
    stored = control.get_object(Bucket=bucket, Key=f"m/{STAGE_MANIFEST_NAME}")["Body"].read()
    assert manifest[0][2] == hashlib.sha256(stored).hexdigest()  # signed over its bytes


def test_a_no_op_rerun_never_makes_the_body_client(s3_server, model_dir):
    bucket = s3_server.new_bucket()
    location = parse_s3_uri(f"s3://{bucket}/m")
    control, bodies = upload_clients(endpoint_url=s3_server.url)
    upload_model(control, validate_model_folder(model_dir), location, body_client=bodies)
    control, bodies = upload_clients(endpoint_url=s3_server.url)
    result = upload_model(control, validate_model_folder(model_dir), location, body_client=bodies)
    assert result.plan.upload == () and bodies._client is None


def test_parts_are_sent_from_the_file_so_memory_stays_flat(s3_server, tmp_path):
    """Eight 5 MiB parts in flight held in memory would peak above 40 MiB; sent from the file, under 24."""
    import tracemalloc

    write_hf_model(tmp_path / "m")
    big = tmp_path / "m" / "training_args.bin.txt"  # any file a model folder carries: 12 parts of 5 MiB
    big.write_bytes(os.urandom(12 * 5 * 1024 * 1024))
    model = validate_model_folder(tmp_path / "m")
    bucket = s3_server.new_bucket()
    client = s3_client(endpoint_url=s3_server.url, max_connections=8)
    tracemalloc.start()
    try:
        result = upload_model(
            client, model, parse_s3_uri(f"s3://{bucket}/m"), config=transfer_config(concurrency=8, chunk_size_mib=5)
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert big.name in {f.name for f in result.plan.upload}
    assert peak < 24 * 1024 * 1024, f"peak {peak / 2**20:.1f} MiB"
    stored = client.get_object(Bucket=bucket, Key=f"m/{big.name}")["Body"].read()
    assert hashlib.sha256(stored).hexdigest() == hashlib.sha256(big.read_bytes()).hexdigest()


def test_a_file_replaced_by_rename_mid_upload_leaves_the_hashed_bytes_in_s3(s3_server, model_dir):
    """rsync or `mv` swap a new inode in under the same name (same size, same mtime here): every part is
    read through the descriptor that was hashed, so S3 holds exactly the bytes the manifest describes."""
    bucket = s3_server.new_bucket()
    client = s3_client(endpoint_url=s3_server.url)
    shard = model_dir / SHARD_1
    original = shard.read_bytes()
    st = shard.stat()
    swapped = []

    def swap_after_the_first_part(n):
        if n == 5 * 1024 * 1024 and not swapped:  # the shard's first part (the only full 5 MiB one) went out
            replacement = model_dir / "replacement.tmp"
            replacement.write_bytes(os.urandom(len(original)))
            os.utime(replacement, ns=(st.st_atime_ns, st.st_mtime_ns))
            os.replace(replacement, shard)
            swapped.append(True)

    result = upload_model(
        client,
        validate_model_folder(model_dir),
        parse_s3_uri(f"s3://{bucket}/m"),
        config=transfer_config(concurrency=1, chunk_size_mib=5),
        on_bytes=swap_after_the_first_part,
    )
    assert swapped
    entry = next(f for f in result.manifest["files"] if f["name"] == SHARD_1)
    stored = client.get_object(Bucket=bucket, Key=f"m/{SHARD_1}")["Body"].read()
    assert hashlib.sha256(stored).hexdigest() == entry["sha256"] == hashlib.sha256(original).hexdigest()


def test_credentials_from_a_role_profile_build_their_sts_client(s3_server, model_dir, monkeypatch, tmp_path, capsys):
    """Role and web-identity credentials come from an STS client made from the S3 client's session: the
    shared loader must know STS. Its endpoint is a closed local port, so the failure must be reaching it."""
    bucket = s3_server.new_bucket()
    config = tmp_path / "config"
    config.write_text(
        "[profile staging-role]\nrole_arn = arn:aws:iam::123456789012:role/stager\nsource_profile = keys\n"
        "[profile keys]\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = secret\n"
    )
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(config))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_PROFILE", "staging-role")
    monkeypatch.setenv("AWS_ENDPOINT_URL_STS", "http://127.0.0.1:9")
    assert main(["inspect", f"s3://{bucket}/m", "--endpoint-url", s3_server.url]) == 1
    line = _one_line_error(capsys)
    assert "Unknown service" not in line and "127.0.0.1:9" in line, line
