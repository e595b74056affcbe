"""The in-pod steps (compile-cache restore/publish, node-local model copy) against a real local S3 server."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import tarfile
import threading
from pathlib import Path

import pytest

from fastload_constructs.core.serving.cache_sharing import compile_cache_key
from fastload_constructs.runtime import _s3, compile_cache, model_copy
from fastload_constructs.runtime.compile_cache import (
    COMPILE_SUBDIR,
    SHA256_METADATA,
    archive_key,
    publish_compile_cache,
    restore_compile_cache,
)
from fastload_constructs.runtime.model_copy import copy_model_to_node

BUCKET = "fastload-test-models"


@pytest.fixture()
def endpoint(s3_server):
    return s3_server.url


@pytest.fixture()
def s3(s3_server):
    """A client and an empty BUCKET on the session's local S3 server; emptied and removed afterwards."""
    client = s3_server.client()
    client.create_bucket(Bucket=BUCKET)
    yield client
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET):
        for obj in page.get("Contents", []):
            client.delete_object(Bucket=BUCKET, Key=obj["Key"])
    client.delete_bucket(Bucket=BUCKET)


def _fake_compile_cache(root: Path) -> dict[str, bytes]:
    files = {
        f"{COMPILE_SUBDIR}/abc123/rank_0_0/backbone/computation_graph.py": b"def f(x):\n    return x\n",
        f"{COMPILE_SUBDIR}/abc123/rank_0_0/backbone/inductor_cache/ab/kernel.bin": os.urandom(4096),
        f"{COMPILE_SUBDIR}/abc123/rank_0_0/cache_key_factors.json": b'{"env": {}}',
    }
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / "assets").mkdir(parents=True, exist_ok=True)
    (root / "assets" / "config.json").write_text("{}")  # staged files: never published
    return files


def _read_tree(root: Path) -> dict[str, bytes]:
    """Every file under root but the restore's own lock file."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file() and p.name != ".restore.lock"
    }


def test_publish_then_restore_round_trip(s3, tmp_path):
    key = compile_cache_key(image_tag="v0.11.0", model_uri=f"s3://{BUCKET}/m", tensor_parallel_size=1, gpu_model="L40S")
    written = _fake_compile_cache(tmp_path / "node-a")
    published = publish_compile_cache(
        s3, bucket=BUCKET, prefix="compile-cache", cache_key=key, cache_root=tmp_path / "node-a"
    )
    assert published.status == "published"
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET)["Contents"]]
    assert keys == [f"compile-cache/{key}.tar.gz"]  # the temporary key is gone

    restored = restore_compile_cache(
        s3, bucket=BUCKET, prefix="compile-cache", cache_key=key, cache_root=tmp_path / "node-b"
    )
    assert restored.status == "restored"
    assert _read_tree(tmp_path / "node-b") == written  # assets/ did not travel
    again = restore_compile_cache(
        s3, bucket=BUCKET, prefix="compile-cache", cache_key=key, cache_root=tmp_path / "node-b"
    )
    assert again.status == "present"


def test_published_members_carry_one_header_each_and_no_owner(s3, tmp_path):
    """Whole-second mtimes and no owners: a member with a short name needs no pax header (restore parses one)."""
    written = _fake_compile_cache(tmp_path / "a")
    os.utime(tmp_path / "a" / next(iter(written)), (1.5e9 + 0.25, 1.5e9 + 0.25))
    assert publish_compile_cache(s3, bucket=BUCKET, prefix="cc", cache_key="fmt", cache_root=tmp_path / "a").status == (
        "published"
    )
    body = s3.get_object(Bucket=BUCKET, Key="cc/fmt.tar.gz")["Body"].read()
    with tarfile.open(fileobj=io.BytesIO(gzip.decompress(body)), mode="r:") as archive:
        members = archive.getmembers()
    assert {m.name for m in members if m.isfile()} == set(written)
    assert all(m.pax_headers == {} for m in members if len(m.name.encode()) <= 100)
    assert all(isinstance(m.mtime, int) and (m.uid, m.gid, m.uname, m.gname) == (0, 0, "", "") for m in members)
    assert 1_500_000_000 in {m.mtime for m in members}


def test_publish_is_skipped_when_the_key_exists(s3, tmp_path):
    _fake_compile_cache(tmp_path / "a")
    assert (
        publish_compile_cache(s3, bucket=BUCKET, prefix="cc", cache_key="k1", cache_root=tmp_path / "a").status
        == "published"
    )
    etag = s3.head_object(Bucket=BUCKET, Key="cc/k1.tar.gz")["ETag"]
    assert (
        publish_compile_cache(s3, bucket=BUCKET, prefix="cc", cache_key="k1", cache_root=tmp_path / "a").status
        == "exists"
    )
    assert s3.head_object(Bucket=BUCKET, Key="cc/k1.tar.gz")["ETag"] == etag


def test_missing_key_starts_cold(s3, tmp_path):
    outcome = restore_compile_cache(s3, bucket=BUCKET, prefix="cc", cache_key="absent", cache_root=tmp_path)
    assert outcome.status == "miss"
    assert not (tmp_path / COMPILE_SUBDIR).exists()


def test_missing_bucket_starts_cold(s3, tmp_path):
    outcome = restore_compile_cache(s3, bucket="no-such-bucket-here", prefix="cc", cache_key="k", cache_root=tmp_path)
    assert outcome.status in ("miss", "error")
    assert not (tmp_path / COMPILE_SUBDIR).exists()


def _put_archive(s3, key: str, data: bytes, sha: str | None = None) -> None:
    sha = hashlib.sha256(data).hexdigest() if sha is None else sha
    s3.put_object(Bucket=BUCKET, Key=key, Body=data, Metadata={SHA256_METADATA: sha})


def test_truncated_archive_is_ignored(s3, tmp_path):
    _fake_compile_cache(tmp_path / "a")
    publish_compile_cache(s3, bucket=BUCKET, prefix="cc", cache_key="k2", cache_root=tmp_path / "a")
    whole = s3.get_object(Bucket=BUCKET, Key="cc/k2.tar.gz")["Body"].read()
    sha = _s3.metadata_value(s3.head_object(Bucket=BUCKET, Key="cc/k2.tar.gz")["Metadata"], SHA256_METADATA)
    _put_archive(s3, "cc/k2.tar.gz", whole[: len(whole) // 2], sha=sha)  # partial upload, old checksum
    outcome = restore_compile_cache(s3, bucket=BUCKET, prefix="cc", cache_key="k2", cache_root=tmp_path / "b")
    assert outcome.status == "corrupt"
    assert not (tmp_path / "b" / COMPILE_SUBDIR).exists()


def test_garbage_with_matching_checksum_is_ignored(s3, tmp_path):
    _put_archive(s3, "cc/k3.tar.gz", b"this is not a gzip file")
    outcome = restore_compile_cache(s3, bucket=BUCKET, prefix="cc", cache_key="k3", cache_root=tmp_path)
    assert outcome.status == "corrupt"
    assert not (tmp_path / COMPILE_SUBDIR).exists()


def test_archive_escaping_the_cache_dir_is_refused(s3, tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        data = b"owned"
        info = tarfile.TarInfo(f"{COMPILE_SUBDIR}/../../escaped.txt")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    _put_archive(s3, "cc/k4.tar.gz", buffer.getvalue())
    outcome = restore_compile_cache(s3, bucket=BUCKET, prefix="cc", cache_key="k4", cache_root=tmp_path / "c")
    assert outcome.status == "corrupt"
    assert not (tmp_path / "escaped.txt").exists()


def test_concurrent_publishers_leave_one_valid_archive(s3, tmp_path):
    roots = []
    for i in range(4):
        _fake_compile_cache(tmp_path / f"p{i}")
        roots.append(tmp_path / f"p{i}")
    results: list[str] = []
    barrier = threading.Barrier(len(roots))

    def publish(root: Path) -> None:
        barrier.wait()
        results.append(publish_compile_cache(s3, bucket=BUCKET, prefix="cc", cache_key="race", cache_root=root).status)

    threads = [threading.Thread(target=publish, args=(r,)) for r in roots]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(results) <= {"published", "exists"} and "published" in results
    keys = [o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET)["Contents"]]
    assert keys == ["cc/race.tar.gz"]
    restored = restore_compile_cache(s3, bucket=BUCKET, prefix="cc", cache_key="race", cache_root=tmp_path / "r")
    assert restored.status == "restored"
    assert (tmp_path / "r" / COMPILE_SUBDIR / "abc123").is_dir()


def test_archive_key_layout():
    assert archive_key("compile-cache/", "abc") == "compile-cache/abc.tar.gz"
    assert archive_key("", "abc") == "abc.tar.gz"


def _stage_fake_model(s3, prefix: str, corrupt: str | None = None) -> dict[str, bytes]:
    files = {
        "config.json": b'{"architectures": ["X"]}',
        "model.safetensors": os.urandom(300_000),
        "original/params.json": b"{}",
    }
    for name, data in files.items():
        body = data if name != corrupt else bytes(len(data))  # same size, other bytes
        s3.put_object(Bucket=BUCKET, Key=f"{prefix}/{name}", Body=body)
    manifest = {
        "files": [{"name": n, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in files.items()]
    }
    s3.put_object(Bucket=BUCKET, Key=f"{prefix}/fastload-manifest.json", Body=json.dumps(manifest).encode())
    return files


def _left(dest) -> list[str]:
    """What a copy left in the model's folder besides the leases: copies and partial copies."""
    return sorted(p.name for p in dest.iterdir() if p.name != ".leases") if dest.is_dir() else []


def test_stage_model_copies_once_and_marks_complete(s3, tmp_path):
    files = _stage_fake_model(s3, "models/tiny")
    dest = tmp_path / "models" / "revisions" / "tiny"
    link = tmp_path / "pod" / "model"
    outcome = copy_model_to_node(s3, bucket=BUCKET, prefix="models/tiny", dest=dest, link=link)
    assert outcome.status == "staged"
    for name, data in files.items():
        assert (link / name).read_bytes() == data
    assert (link / model_copy.COMPLETE_MARKER).exists()
    assert copy_model_to_node(s3, bucket=BUCKET, prefix="models/tiny", dest=dest).status == "present"


def test_stage_model_verifies_checksums_when_asked(s3, tmp_path):
    _stage_fake_model(s3, "models/bitrot", corrupt="model.safetensors")
    dest = tmp_path / "models" / "revisions" / "bitrot"
    # Sizes match, so only the SHA-256 check can tell.
    outcome = copy_model_to_node(s3, bucket=BUCKET, prefix="models/bitrot", dest=dest, verify_sha256=True)
    assert outcome.status == "error" and "sha256" in outcome.detail
    assert _left(dest) == []


@pytest.mark.parametrize("bad_name", ["../escape", "/abs", "a/../../b", ".fastload-complete", ""])
def test_stage_model_refuses_manifest_paths_that_escape(s3, tmp_path, bad_name):
    s3.put_object(
        Bucket=BUCKET,
        Key="models/evil/fastload-manifest.json",
        Body=json.dumps(
            {"files": [{"name": bad_name, "size": 1, "sha256": hashlib.sha256(b"x").hexdigest()}]}
        ).encode(),
    )
    dest = tmp_path / "m" / "revisions" / "evil"
    outcome = copy_model_to_node(s3, bucket=BUCKET, prefix="models/evil", dest=dest)
    assert outcome.status == "error" and "unexpected file name" in outcome.detail
    assert not (tmp_path / "escape").exists() and _left(dest) == []


def test_head_treats_forbidden_as_absent():
    class Forbidden(Exception):
        response = {"Error": {"Code": "403"}}  # noqa: RUF012

    class Client:
        def head_object(self, **kwargs):
            raise Forbidden()

    assert _s3.head(Client(), "b", "k") is None


def test_stage_model_without_manifest_fails_and_leaves_nothing(s3, tmp_path):
    s3.put_object(Bucket=BUCKET, Key="models/half/model.safetensors", Body=b"x" * 10)
    dest = tmp_path / "models" / "revisions" / "half"
    outcome = copy_model_to_node(s3, bucket=BUCKET, prefix="models/half", dest=dest)
    assert outcome.status == "error"
    assert _left(dest) == []


def test_concurrent_stagers_on_one_node_copy_once(s3, tmp_path):
    _stage_fake_model(s3, "models/shared")
    dest = tmp_path / "models" / "revisions" / "shared"
    results: list[str] = []
    threads = [
        threading.Thread(
            target=lambda: results.append(
                copy_model_to_node(s3, bucket=BUCKET, prefix="models/shared", dest=dest).status
            )
        )
        for _ in range(3)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["present", "present", "staged"]


def test_cli_restore_miss_exits_zero(s3, endpoint, tmp_path):
    rc = compile_cache.main(
        [
            "restore",
            "--bucket",
            BUCKET,
            "--prefix",
            "cc",
            "--cache-key",
            "nope",
            "--cache-root",
            str(tmp_path),
            "--endpoint-url",
            endpoint,
        ]
    )
    assert rc == 0


def test_cli_stage_model_failure_exits_nonzero(s3, endpoint, tmp_path):
    rc = model_copy.main(
        [
            "--bucket",
            BUCKET,
            "--prefix",
            "models/none",
            "--dest",
            str(tmp_path / "m"),
            "--endpoint-url",
            endpoint,
        ]
    )
    assert rc == 1


def test_wait_until_ready_polls_until_200():
    calls = []

    class Response:
        def __init__(self, status):
            self.status = status

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def opener(url):
        calls.append(url)
        if len(calls) < 3:
            raise OSError("connection refused")
        return Response(200)

    assert compile_cache.wait_until_ready("http://127.0.0.1:8000/health", timeout_s=5, interval_s=0.01, opener=opener)
    assert len(calls) == 3
    assert not compile_cache.wait_until_ready(
        "http://127.0.0.1:8000/health",
        timeout_s=0.05,
        interval_s=0.01,
        opener=lambda url: (_ for _ in ()).throw(OSError("down")),
    )
