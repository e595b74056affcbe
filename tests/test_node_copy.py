"""Node-local model copies against a real S3 server: keyed by content, verified while copied, restages, kills."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fastload_constructs.runtime._node_copies import COMPLETE_MARKER, LEASES_DIR, collect_copies, is_complete
from fastload_constructs.runtime.model_copy import copy_model_to_node

ROOT = Path(__file__).resolve().parents[1]
PART = 64 * 1024  # small ranges, so one file takes several GETs


@pytest.fixture()
def bucket(s3_server):
    return s3_server.new_bucket("nodecopy")


@pytest.fixture()
def s3(s3_server):
    return s3_server.client()


def _stage(s3, bucket: str, prefix: str, files: dict[str, bytes]) -> bytes:
    """What `fastload stage` leaves: the objects, then the manifest listing their sizes and hashes."""
    for name, data in files.items():
        s3.put_object(Bucket=bucket, Key=f"{prefix}/{name}", Body=data)
    manifest = json.dumps(
        {"files": [{"name": n, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in files.items()]}
    ).encode()
    s3.put_object(Bucket=bucket, Key=f"{prefix}/fastload-manifest.json", Body=manifest)
    return manifest


def _model(seed: int) -> dict[str, bytes]:
    return {
        "config.json": b'{"architectures": ["X"]}',
        "model.safetensors": hashlib.sha256(str(seed).encode()).digest() * 20_000,  # 640 KB: ten ranges
        "tokenizer/tokenizer.json": b"{}",
    }


def _copy(dest: Path, **kwargs):
    return copy_model_to_node(
        kwargs.pop("s3"), bucket=kwargs.pop("bucket"), prefix="m", dest=dest, part_size=PART, **kwargs
    )


def _copies(dest: Path) -> list[str]:
    return sorted(p.name for p in dest.iterdir() if not p.name.startswith(".")) if dest.is_dir() else []


def test_copies_are_keyed_by_revision_and_content_and_a_restage_makes_a_new_one(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "revisions" / "abc"
    manifest = _stage(s3, bucket, "m", _model(1))
    first_pod = tmp_path / "pod-1" / "model"
    assert _copy(dest, s3=s3, bucket=bucket, link=first_pod).status == "staged"
    first = dest / f"unversioned-{hashlib.sha256(manifest).hexdigest()[:16]}"
    assert Path(os.readlink(first_pod)) == first
    assert (first_pod / "model.safetensors").read_bytes() == _model(1)["model.safetensors"]
    assert is_complete(first)
    assert _copy(dest, s3=s3, bucket=bucket, link=tmp_path / "pod-2" / "model").status == "present"

    changed = {**_model(1), "model.safetensors": _model(2)["model.safetensors"]}
    _stage(s3, bucket, "m", changed)
    third_pod = tmp_path / "pod-3" / "model"
    assert _copy(dest, s3=s3, bucket=bucket, link=third_pod, lease_grace_s=3600).status == "staged"  # noticed
    assert Path(os.readlink(third_pod)) != first and len(_copies(dest)) == 2
    assert (third_pod / "model.safetensors").read_bytes() == changed["model.safetensors"]
    assert (third_pod / "config.json").stat().st_ino == (first / "config.json").stat().st_ino  # linked, not fetched
    # The first pod's link and copy are as they were: a pod opens what it chose, whatever a later pod chose.
    assert (first_pod / "model.safetensors").read_bytes() == _model(1)["model.safetensors"]


def test_old_copies_go_once_no_pod_leased_them(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "revisions" / "abc"
    _stage(s3, bucket, "m", _model(1))
    _copy(dest, s3=s3, bucket=bucket)
    (old,) = _copies(dest)
    _stage(s3, bucket, "m", _model(2))
    leases = dest / LEASES_DIR / old
    for aged in (*leases.iterdir(), dest / old / COMPLETE_MARKER):
        os.utime(aged, (0, 0))  # completed and last used long ago
    assert _copy(dest, s3=s3, bucket=bucket, lease_grace_s=60).status == "staged"
    assert old not in _copies(dest) and len(_copies(dest)) == 1
    assert not leases.exists()


def test_the_copy_pods_chose_last_stays_however_old(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "revisions" / "abc"
    _stage(s3, bucket, "m", _model(1))
    _copy(dest, s3=s3, bucket=bucket)
    (only,) = _copies(dest)
    for aged in (*(dest / LEASES_DIR / only).iterdir(), dest / only / COMPLETE_MARKER):
        os.utime(aged, (0, 0))
    collect_copies(dest.parent, lease_grace_s=60, budget_bytes=10**9)
    assert _copies(dest) == [only]


def test_budget_refuses_a_copy_that_does_not_fit_and_never_removes_one_in_use(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "revisions" / "abc"
    _stage(s3, bucket, "m", _model(1))
    outcome = _copy(dest, s3=s3, bucket=bucket, budget_bytes=1000)
    assert outcome.status == "error" and "budget" in outcome.detail
    assert _copies(dest) == []
    assert _copy(dest, s3=s3, bucket=bucket).status == "staged"
    fits, why = collect_copies(dest.parent, lease_grace_s=0, budget_bytes=10, need_bytes=0)
    (kept,) = _copies(dest)
    assert not fits and "budget" in why and is_complete(dest / kept)  # the one pods chose last: kept


class RestageDuringCopy:
    """A client that restages the model (new weights, new manifest) while the first copy reads the weights."""

    def __init__(self, s3, bucket, times: int = 1) -> None:
        self.s3, self.bucket, self.left, self.seed = s3, bucket, times, 10

    def __getattr__(self, name):
        return getattr(self.s3, name)

    def get_object(self, **kwargs):
        response = self.s3.get_object(**kwargs)
        if self.left and kwargs["Key"].endswith("model.safetensors") and kwargs.get("Range", "").startswith("bytes=0-"):
            self.left -= 1
            self.seed += 1
            _stage(self.s3, self.bucket, "m", _model(self.seed))
        return response


def test_a_restage_during_the_copy_is_detected_and_the_new_model_copied(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "revisions" / "abc"
    link = tmp_path / "pod" / "model"
    _stage(s3, bucket, "m", _model(1))
    client = RestageDuringCopy(s3, bucket)
    outcome = _copy(dest, s3=client, bucket=bucket, link=link)
    assert outcome.status == "staged", outcome
    assert (link / "model.safetensors").read_bytes() == _model(11)["model.safetensors"]
    assert not list(dest.glob(".partial-*")) and len(_copies(dest)) == 1


def test_a_model_restaged_during_every_copy_is_never_marked_complete(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "revisions" / "abc"
    link = tmp_path / "pod" / "model"
    _stage(s3, bucket, "m", _model(1))
    outcome = _copy(dest, s3=RestageDuringCopy(s3, bucket, times=10), bucket=bucket, attempts=3, link=link)
    assert outcome.status == "error" and "not marked complete" in outcome.detail
    assert _copies(dest) == [] and not list(dest.glob(".partial-*")) and not link.exists()


def test_a_corrupt_object_fails_without_retrying(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "revisions" / "abc"
    files = _model(1)
    _stage(s3, bucket, "m", files)
    s3.put_object(Bucket=bucket, Key="m/model.safetensors", Body=bytes(len(files["model.safetensors"])))
    outcome = _copy(dest, s3=s3, bucket=bucket)
    assert outcome.status == "error" and "sha256" in outcome.detail and "unchanged" in outcome.detail
    assert _copies(dest) == []


def test_the_layout_before_revisions_is_left_to_the_pods_that_use_it(s3, bucket, tmp_path):
    """Pods of an older release on the same node read `<root>/<hash>`, a link into `.copies/`: never touched."""
    root = tmp_path / "models"
    old = root / ".copies" / "abc-0123456789abcdef"
    old.mkdir(parents=True)
    (old / "model.safetensors").write_bytes(b"old")
    (root / "abc").symlink_to(".copies/abc-0123456789abcdef")
    _stage(s3, bucket, "m", _model(1))
    assert _copy(root / "revisions" / "abc", s3=s3, bucket=bucket, lease_grace_s=0).status == "staged"
    assert (root / "abc" / "model.safetensors").read_bytes() == b"old"


SLOW_COPY = """
import sys, time
sys.path.insert(0, sys.argv[1])
from fastload_constructs.runtime import _s3, model_copy
make = _s3.client
class Slow:
    def __init__(self, s3):
        self.s3 = s3
    def __getattr__(self, name):
        return getattr(self.s3, name)
    def get_object(self, **kwargs):
        if "Range" in kwargs:
            time.sleep(0.5)
        return self.s3.get_object(**kwargs)
_s3.client = lambda url: Slow(make(url))
sys.exit(model_copy.main(sys.argv[2:]))
"""


def test_a_copy_killed_mid_way_is_never_used_and_is_cleaned_by_the_next(s3_server, s3, bucket, tmp_path):
    dest = tmp_path / "models" / "revisions" / "abc"
    link = tmp_path / "pod-1" / "model"
    _stage(s3, bucket, "m", _model(1))
    args = ["--bucket", bucket, "--prefix", "m", "--dest", str(dest), "--link", str(link)]
    args += ["--endpoint-url", s3_server.url]
    child = subprocess.Popen([sys.executable, "-c", SLOW_COPY, str(ROOT), *args], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not list(dest.glob(".partial-*/model.safetensors")) and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert list(dest.glob(".partial-*")), "the copy finished before it could be killed"
    assert _copies(dest) == [] and not link.exists()  # nothing points at a partial copy

    second = tmp_path / "pod-2" / "model"
    assert _copy(dest, s3=s3, bucket=bucket, link=second).status == "staged"
    assert not list(dest.glob(".partial-*"))
    assert (second / "model.safetensors").read_bytes() == _model(1)["model.safetensors"]
