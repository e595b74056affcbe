"""Transfers that retry: bodies that break or trickle mid-stream, through a proxy on 127.0.0.1.

The node-local model copy and the compile-cache restore talk to the session's real S3 server
(rclone) through `FaultProxy`, which resets connections part-way through a response body or
sends the rest of it slowly. A broken body is resumed from where it broke (the rest of the copy
is kept); a restore past its time limit stops while data still trickles, not after all of it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import boto3
import pytest
from botocore.config import Config

from fastload_constructs.runtime import _s3
from fastload_constructs.runtime import revision as revision_of_pod
from fastload_constructs.runtime._cache_archive import Limits
from fastload_constructs.runtime.compile_cache import COMPILE_SUBDIR, publish_compile_cache, restore_compile_cache
from fastload_constructs.runtime.model_copy import copy_model_to_node
from tests.fault_proxy import FaultProxy
from tests.s3_server import REGION

PART = 64 * 1024  # small ranges: one file takes several ranged GETs
CUT_AFTER = 20_000  # bytes of a response before the reset: past the headers, inside the body


@pytest.fixture()
def proxy(s3_server):
    fault = FaultProxy(s3_server.port)
    yield fault
    fault.close()


@pytest.fixture(autouse=True)
def _fast_backoff(monkeypatch):
    monkeypatch.setattr(_s3, "BACKOFF_BASE_S", 0.01)


def _client(url: str):
    config = Config(
        response_checksum_validation="when_required",
        s3={"addressing_style": "path"},
        retries={"mode": "standard", "max_attempts": 5},
    )
    return boto3.client("s3", endpoint_url=url, region_name=REGION, config=config)


def _stage(s3, bucket: str, prefix: str, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        s3.put_object(Bucket=bucket, Key=f"{prefix}/{name}", Body=data)
    manifest = {
        "files": [{"name": n, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in files.items()]
    }
    s3.put_object(Bucket=bucket, Key=f"{prefix}/fastload-manifest.json", Body=json.dumps(manifest).encode())


def test_node_copy_resumes_bodies_that_break_mid_range(s3_server, proxy, tmp_path):
    s3 = s3_server.client()
    bucket = s3_server.new_bucket("retry")
    weights = os.urandom(10 * PART + 123)
    _stage(s3, bucket, "m", {"config.json": b"{}", "model.safetensors": weights})
    proxy.cut(after=CUT_AFTER, times=3)

    link = tmp_path / "pod" / "model"
    outcome = copy_model_to_node(
        _client(proxy.url), bucket=bucket, prefix="m", dest=tmp_path / "revisions" / "m", link=link, part_size=PART
    )

    assert outcome.status == "staged", outcome.detail
    assert proxy.cuts_made == 3
    assert (link / "model.safetensors").read_bytes() == weights


def test_node_copy_asks_again_for_a_manifest_whose_body_breaks(s3_server, proxy, tmp_path):
    """botocore retries a request, never a body read after the headers came: the manifest GET is ours to retry."""
    s3 = s3_server.client()
    bucket = s3_server.new_bucket("retry")
    files = {f"shard-{i:03d}.bin": os.urandom(64) for i in range(250)}  # a manifest of about 30 KB
    _stage(s3, bucket, "m", files)
    proxy.cut(after=CUT_AFTER, times=1)  # the first response over CUT_AFTER bytes: the manifest

    link = tmp_path / "pod" / "model"
    outcome = copy_model_to_node(
        _client(proxy.url), bucket=bucket, prefix="m", dest=tmp_path / "revisions" / "m", link=link, part_size=PART
    )

    assert outcome.status == "staged", outcome.detail
    assert proxy.cuts_made == 1
    assert (link / "shard-007.bin").read_bytes() == files["shard-007.bin"]


def test_resolve_asks_again_for_a_pointer_whose_body_breaks(s3_server, proxy):
    s3 = s3_server.client()
    bucket = s3_server.new_bucket("retry")
    revision = "20261203T101500Z-1a2b3c4d"
    _stage(s3, bucket, f"m/revisions/{revision}", {"config.json": b"{}"})
    history = [{"revision": revision, "at": "2026-12-03T10:15:00Z"}] * 200  # a long history: a pointer of ~10 KB
    pointer = {"fastload_pointer_version": 1, "revision": revision, "pinned": False, "history": history}
    s3.put_object(Bucket=bucket, Key="m/fastload-current.json", Body=json.dumps(pointer).encode())
    proxy.cut(after=2_000, times=1)  # past the headers, inside the pointer's body

    assert revision_of_pod.resolve_revision(_client(proxy.url), bucket=bucket, prefix="m") == (
        f"m/revisions/{revision}",
        revision,
    )
    assert proxy.cuts_made == 1


def test_restore_asks_again_for_an_archive_head_whose_reply_is_lost(s3_server, proxy, tmp_path):
    bucket, key, artifact = _published_cache(s3_server, tmp_path, 1000)
    proxy.drop_reply_to(b"HEAD /", times=8)  # more than botocore's own attempts: then it gives up

    root = tmp_path / "restored"
    outcome = restore_compile_cache(_client(proxy.url), bucket=bucket, prefix="cc", cache_key=key, cache_root=root)

    assert outcome.status == "restored", outcome.detail
    assert proxy.drops_made == 8
    assert (root / COMPILE_SUBDIR / "abc" / "rank_0_0" / "artifact.bin").read_bytes() == artifact.read_bytes()


class _BrokenBodies:
    """An S3 client whose every body resets before its first byte: the retries must stop, and say so."""

    def __init__(self) -> None:
        self.gets = 0

    def get_object(self, **kwargs):
        self.gets += 1

        class Body:
            def read(self, n=-1):
                raise ConnectionResetError(104, "Connection reset by peer")

            def close(self):
                pass

        return {"Body": Body(), "ETag": '"e"', "ContentRange": "bytes 0-9/10"}


def test_a_body_that_never_progresses_is_retried_a_bounded_number_of_times():
    s3 = _BrokenBodies()
    with pytest.raises(ConnectionResetError):
        _s3.read_range(s3, "b", "k", (0, 9), '"e"', None)
    assert s3.gets == _s3.BODY_ATTEMPTS


def _published_cache(s3_server, tmp_path: Path, size: int) -> tuple[str, str, Path]:
    bucket = s3_server.new_bucket("retry-cache")
    source = tmp_path / "source"
    graph = source / COMPILE_SUBDIR / "abc" / "rank_0_0"
    graph.mkdir(parents=True)
    (graph / "artifact.bin").write_bytes(os.urandom(size))  # random: gzip leaves it this size
    outcome = publish_compile_cache(s3_server.client(), bucket=bucket, prefix="cc", cache_key="k1", cache_root=source)
    assert outcome.status == "published", outcome.detail
    return bucket, "k1", graph / "artifact.bin"


def test_restore_resumes_a_body_that_breaks(s3_server, proxy, tmp_path):
    bucket, key, artifact = _published_cache(s3_server, tmp_path, 300_000)
    proxy.cut(after=CUT_AFTER, times=2)

    root = tmp_path / "restored"
    outcome = restore_compile_cache(_client(proxy.url), bucket=bucket, prefix="cc", cache_key=key, cache_root=root)

    assert outcome.status == "restored", outcome.detail
    assert proxy.cuts_made == 2
    assert (root / COMPILE_SUBDIR / "abc" / "rank_0_0" / "artifact.bin").read_bytes() == artifact.read_bytes()


def test_restore_deadline_holds_while_the_body_trickles(s3_server, proxy, tmp_path):
    size = 400_000
    bucket, key, _ = _published_cache(s3_server, tmp_path, size)
    proxy.trickle(after=16_384, piece=1024, delay_s=0.05)  # 20 KB/s: all of it would take ~20 s

    root = tmp_path / "restored"
    outcome = restore_compile_cache(
        _client(proxy.url), bucket=bucket, prefix="cc", cache_key=key, cache_root=root, limits=Limits(seconds=0.5)
    )

    assert outcome.status in ("error", "corrupt")
    assert "time limit" in outcome.detail
    assert not (root / COMPILE_SUBDIR).exists()
    # Stopped while data still arrived: a quarter of the archive is ~5 s of trickle, ten times the limit.
    assert proxy.trickled_bytes < size // 4
