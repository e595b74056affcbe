"""Right outcomes in the in-pod runtime: refused archives heal, fresh copies are never collected."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import tarfile
import time
from pathlib import Path

import pytest

from fastload_constructs.runtime import _files, model_copy
from fastload_constructs.runtime._node_copies import COMPLETE_MARKER, collect_copies, is_complete, lease, lock_path
from fastload_constructs.runtime.compile_cache import (
    COMPILE_SUBDIR,
    REFUSED_MARKER,
    SHA256_METADATA,
    archive_key,
    publish_compile_cache,
    restore_compile_cache,
)
from fastload_constructs.runtime.model_copy import copy_model_to_node


@pytest.fixture()
def bucket(s3_server):
    return s3_server.new_bucket("outcomes")


@pytest.fixture()
def s3(s3_server):
    return s3_server.client()


def _archive(members: dict[str, bytes]) -> bytes:
    raw = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w|", format=tarfile.PAX_FORMAT) as archive,
    ):
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def test_an_archive_refused_with_an_os_error_is_healed_by_the_publisher(s3, bucket, tmp_path):
    # A member name longer than NAME_MAX (255 bytes on ext4/xfs): opening it fails with ENAMETOOLONG, on every pod.
    body = _archive({f"{COMPILE_SUBDIR}/abc/{'x' * 300}.py": b"pass\n"})
    key = archive_key("cc", "k1")
    s3.put_object(Bucket=bucket, Key=key, Body=body, Metadata={SHA256_METADATA: hashlib.sha256(body).hexdigest()})
    root = tmp_path / "cache"

    restored = restore_compile_cache(s3, bucket=bucket, prefix="cc", cache_key="k1", cache_root=root)

    assert restored.status == "corrupt", restored.detail
    assert (root / REFUSED_MARKER).is_file()
    # vLLM compiles a healthy cache; the publisher replaces exactly the refused archive.
    (root / COMPILE_SUBDIR / "abc").mkdir(parents=True)
    (root / COMPILE_SUBDIR / "abc" / "graph.py").write_bytes(b"def f(x):\n    return x\n")
    published = publish_compile_cache(s3, bucket=bucket, prefix="cc", cache_key="k1", cache_root=root)
    assert published.status == "published", published.detail
    fresh = tmp_path / "next-pod"
    assert restore_compile_cache(s3, bucket=bucket, prefix="cc", cache_key="k1", cache_root=fresh).status == "restored"


def _complete_copy(model_dir: Path, name: str, *, completed: float | None = None) -> Path:
    copy = model_dir / name
    copy.mkdir(parents=True)
    (copy / "model.safetensors").write_bytes(b"w" * 1000)
    (copy / COMPLETE_MARKER).write_text("{}")
    if completed is not None:
        os.utime(copy / COMPLETE_MARKER, (completed, completed))
    return copy


def test_a_copy_no_pod_leased_yet_is_not_collected(tmp_path):
    model = tmp_path / "revisions" / "a"
    fresh = _complete_copy(model, "unversioned-0123456789abcdef")  # just completed by model a's copier: no lease yet
    _complete_copy(model, "unversioned-fedcba9876543210")
    lease(model, "unversioned-fedcba9876543210")  # the other one was chosen last

    collect_copies(model.parent, lease_grace_s=3600, budget_bytes=10**9)

    assert is_complete(fresh)


def test_a_copy_whose_model_is_being_copied_is_not_collected(tmp_path):
    import fcntl

    model = tmp_path / "revisions" / "a"
    old = _complete_copy(model, "unversioned-0123456789abcdef", completed=time.time() - 7200)
    _complete_copy(model, "unversioned-fedcba9876543210")
    with open(lock_path(model), "a") as held:  # model a's copier is between a completion and its lease
        fcntl.flock(held, fcntl.LOCK_EX)
        collect_copies(model.parent, lease_grace_s=3600, budget_bytes=10**9)
        assert is_complete(old)
    collect_copies(model.parent, lease_grace_s=3600, budget_bytes=10**9)  # idle and old: now it goes
    assert not old.exists()


def test_a_copy_removed_while_it_is_switched_to_is_never_reported_staged(s3, bucket, tmp_path, monkeypatch):
    weights = os.urandom(100_000)
    files = {"config.json": b"{}", "model.safetensors": weights}
    for name, data in files.items():
        s3.put_object(Bucket=bucket, Key=f"m/{name}", Body=data)
    manifest = [{"name": n, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in files.items()]
    s3.put_object(Bucket=bucket, Key="m/fastload-manifest.json", Body=json.dumps({"files": manifest}).encode())
    point = model_copy._point
    removed = []

    def point_then_lose(link: Path, copy: Path) -> None:
        point(link, copy)
        if not removed:  # a collector that decided before the lease removes it now
            removed.append(copy.name)
            _files.remove_tree(copy)

    monkeypatch.setattr(model_copy, "_point", point_then_lose)
    link = tmp_path / "pod" / "model"

    outcome = copy_model_to_node(s3, bucket=bucket, prefix="m", dest=tmp_path / "models" / "revisions" / "m", link=link)

    assert removed
    if outcome.status in ("staged", "present"):  # reported success: the model must be there
        assert (link / "model.safetensors").read_bytes() == weights
    else:
        assert outcome.status == "error"


# The publish sidecar, stopped by the kubelet (SIGTERM) after its upload, before the copy into place.
SLOW_COPY_PUBLISH = """
import sys, time
sys.path.insert(0, sys.argv[1])
from fastload_constructs.runtime import _s3, compile_cache
client = _s3.client
def slow_client(endpoint_url):
    s3 = client(endpoint_url)
    s3.meta.events.register("before-call.s3.CopyObject", lambda **kw: time.sleep(30))
    return s3
_s3.client = slow_client
sys.exit(compile_cache.main(sys.argv[2:]))
"""


def test_a_publisher_stopped_by_sigterm_leaves_no_temporary_archive(s3_server, s3, bucket, tmp_path):
    import signal
    import subprocess
    import sys

    from tests.s3_server import TEST_ENV

    root = tmp_path / "cache"
    (root / COMPILE_SUBDIR / "abc").mkdir(parents=True)
    (root / COMPILE_SUBDIR / "abc" / "graph.py").write_bytes(b"x" * 10_000)
    args = ["publish", "--bucket", bucket, "--prefix", "cc", "--cache-key", "k1"]
    args += ["--cache-root", str(root), "--endpoint-url", s3_server.url]
    env = {**os.environ, **TEST_ENV}
    project = str(Path(__file__).resolve().parents[1])
    process = subprocess.Popen([sys.executable, "-c", SLOW_COPY_PUBLISH, project, *args], env=env)

    def keys() -> list[str]:
        return [o["Key"] for o in s3.list_objects_v2(Bucket=bucket, Prefix="cc/").get("Contents", [])]

    deadline = time.monotonic() + 30
    while not any(".tmp-" in k for k in keys()):
        assert process.poll() is None and time.monotonic() < deadline, "the temporary archive never appeared"
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == 128 + signal.SIGTERM

    assert keys() == []  # neither the temporary nor (since the copy never ran) the archive
