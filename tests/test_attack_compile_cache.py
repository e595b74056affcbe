"""Attacks on the shared compile cache, against the local S3 server: a refused archive heals.

A corrupt, truncated or unsafe archive makes the pod start cold (never fail); the
publish sidecar of that pod then replaces exactly the archive it refused, so the
next pod restores a healthy cache instead of every pod starting cold forever. An
archive that another pod published meanwhile (a different object) is left alone.
"""

from __future__ import annotations

import hashlib
import io
import os
import tarfile
import uuid
from pathlib import Path

import pytest

from fastload_constructs.runtime.compile_cache import (
    COMPILE_SUBDIR,
    REFUSED_MARKER,
    SHA256_METADATA,
    publish_compile_cache,
    restore_compile_cache,
)

PREFIX = "compile-cache/llama"


@pytest.fixture()
def bucket(s3_server):
    client = s3_server.client()
    name = f"cache-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=name)
    yield client, name
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=name):
        for obj in page.get("Contents", []):
            client.delete_object(Bucket=name, Key=obj["Key"])
    client.delete_bucket(Bucket=name)


def compiled(root: Path) -> dict[str, bytes]:
    """What vLLM leaves after a cold start: a torch_compile_cache tree."""
    files = {f"{COMPILE_SUBDIR}/h/rank_0_0/backbone/graph.py": b"def f(x):\n    return x\n"}
    files[f"{COMPILE_SUBDIR}/h/rank_0_0/backbone/kernel.bin"] = os.urandom(2048)
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return files


def put(client, name: str, key: str, data: bytes) -> None:
    client.put_object(Bucket=name, Key=key, Body=data, Metadata={SHA256_METADATA: hashlib.sha256(data).hexdigest()})


def escaping_archive() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo(f"{COMPILE_SUBDIR}/../../../etc/evil")
        info.size = 4
        archive.addfile(info, io.BytesIO(b"evil"))
    return buffer.getvalue()


def empty_archive() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz"):
        pass
    return buffer.getvalue()


HOSTILE = {
    "garbage": b"not a gzip stream at all",
    "escaping-paths": escaping_archive(),
    "no-compile-cache": empty_archive(),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_refused_archive_is_replaced_by_the_refusing_pods_publisher(bucket, tmp_path, kind):
    client, name = bucket
    key = f"{PREFIX}/k-{kind}.tar.gz"
    put(client, name, key, HOSTILE[kind])
    pod = tmp_path / "pod-a"
    refused = restore_compile_cache(client, bucket=name, prefix=PREFIX, cache_key=f"k-{kind}", cache_root=pod)
    assert refused.status == "corrupt"  # starts cold, never fails
    assert not (pod / COMPILE_SUBDIR).exists() and (pod / REFUSED_MARKER).is_file()
    written = compiled(pod)  # vLLM compiles cold
    healed = publish_compile_cache(client, bucket=name, prefix=PREFIX, cache_key=f"k-{kind}", cache_root=pod)
    assert healed.status == "published" and "replaced" in healed.detail
    assert not (pod / REFUSED_MARKER).exists()
    # The next pod, on another node, restores the healthy archive.
    other = tmp_path / "pod-b"
    restored = restore_compile_cache(client, bucket=name, prefix=PREFIX, cache_key=f"k-{kind}", cache_root=other)
    assert restored.status == "restored"
    restored_files = {
        str(p.relative_to(other)): p.read_bytes() for p in (other / COMPILE_SUBDIR).rglob("*") if p.is_file()
    }
    assert restored_files == written  # the node's restore lock file aside
    assert not (tmp_path / "etc").exists()


def test_an_archive_published_meanwhile_by_another_pod_is_left_alone(bucket, tmp_path):
    client, name = bucket
    key = f"{PREFIX}/k.tar.gz"
    put(client, name, key, b"corrupt")
    pod = tmp_path / "pod-a"
    assert restore_compile_cache(client, bucket=name, prefix=PREFIX, cache_key="k", cache_root=pod).status == "corrupt"
    # A healthy pod replaced it first.
    healthy = tmp_path / "pod-b"
    compiled(healthy)
    client.delete_object(Bucket=name, Key=key)
    assert publish_compile_cache(client, bucket=name, prefix=PREFIX, cache_key="k", cache_root=healthy).status == (
        "published"
    )
    etag = client.head_object(Bucket=name, Key=key)["ETag"]
    compiled(pod)
    outcome = publish_compile_cache(client, bucket=name, prefix=PREFIX, cache_key="k", cache_root=pod)
    assert outcome.status == "exists"
    assert client.head_object(Bucket=name, Key=key)["ETag"] == etag


def test_a_pod_that_refused_nothing_never_overwrites(bucket, tmp_path):
    client, name = bucket
    key = f"{PREFIX}/k.tar.gz"
    put(client, name, key, b"whatever another pod wrote")
    etag = client.head_object(Bucket=name, Key=key)["ETag"]
    pod = tmp_path / "pod"
    compiled(pod)
    assert publish_compile_cache(client, bucket=name, prefix=PREFIX, cache_key="k", cache_root=pod).status == "exists"
    assert client.head_object(Bucket=name, Key=key)["ETag"] == etag


def test_a_read_only_cache_root_still_starts_cold(bucket, tmp_path):
    client, name = bucket
    put(client, name, f"{PREFIX}/k.tar.gz", b"corrupt")
    root = tmp_path / "ro"
    root.mkdir()
    root.chmod(0o500)
    try:
        outcome = restore_compile_cache(client, bucket=name, prefix=PREFIX, cache_key="k", cache_root=root)
    finally:
        root.chmod(0o700)
    assert outcome.status in ("corrupt", "error")
