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

from fastload_constructs.runtime.model_copy import (
    COMPLETE_MARKER,
    COPIES_DIR,
    LEASES_DIR,
    collect_copies,
    copy_model_to_node,
)

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


def test_copies_are_keyed_by_content_and_a_restage_makes_a_new_one(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "abc"
    manifest = _stage(s3, bucket, "m", _model(1))
    assert _copy(dest, s3=s3, bucket=bucket).status == "staged"
    first = os.readlink(dest)
    assert first == f"{COPIES_DIR}/abc-{hashlib.sha256(manifest).hexdigest()[:16]}"
    assert (dest / "model.safetensors").read_bytes() == _model(1)["model.safetensors"]
    assert (dest / COMPLETE_MARKER).exists()
    assert _copy(dest, s3=s3, bucket=bucket).status == "present"

    changed = {**_model(1), "model.safetensors": _model(2)["model.safetensors"]}
    _stage(s3, bucket, "m", changed)
    config_inode = (dest / "config.json").stat().st_ino
    assert _copy(dest, s3=s3, bucket=bucket, lease_grace_s=3600).status == "staged"  # a restage is noticed
    assert os.readlink(dest) != first
    assert (dest / "model.safetensors").read_bytes() == changed["model.safetensors"]
    assert (dest / "config.json").stat().st_ino == config_inode  # an unchanged file is linked, not downloaded
    assert (dest.parent / first).is_dir()  # the old copy was leased just now: a pod may still be loading it


def test_old_copies_go_once_no_pod_leased_them(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "abc"
    _stage(s3, bucket, "m", _model(1))
    _copy(dest, s3=s3, bucket=bucket)
    old = dest.parent / os.readlink(dest)
    _stage(s3, bucket, "m", _model(2))
    for aged in (old / LEASES_DIR / os.listdir(old / LEASES_DIR)[0], old / COMPLETE_MARKER, old):
        os.utime(aged, (0, 0))  # completed and last used long ago
    assert _copy(dest, s3=s3, bucket=bucket, lease_grace_s=60).status == "staged"
    assert not old.exists()
    assert [p.name for p in (dest.parent / COPIES_DIR).iterdir()] == [os.readlink(dest).split("/")[1]]


def test_budget_refuses_a_copy_that_does_not_fit_and_never_removes_one_in_use(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "abc"
    _stage(s3, bucket, "m", _model(1))
    outcome = _copy(dest, s3=s3, bucket=bucket, budget_bytes=1000)
    assert outcome.status == "error" and "budget" in outcome.detail
    assert not dest.exists()
    assert _copy(dest, s3=s3, bucket=bucket).status == "staged"
    fits, why = collect_copies(dest.parent, lease_grace_s=0, budget_bytes=10, need_bytes=0)
    assert not fits and "budget" in why and (dest / COMPLETE_MARKER).exists()  # current: kept


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
    dest = tmp_path / "models" / "abc"
    _stage(s3, bucket, "m", _model(1))
    client = RestageDuringCopy(s3, bucket)
    outcome = _copy(dest, s3=client, bucket=bucket)
    assert outcome.status == "staged", outcome
    assert (dest / "model.safetensors").read_bytes() == _model(11)["model.safetensors"]
    assert not list((dest.parent / COPIES_DIR).glob(".*partial*"))


def test_a_model_restaged_during_every_copy_is_never_marked_complete(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "abc"
    _stage(s3, bucket, "m", _model(1))
    outcome = _copy(dest, s3=RestageDuringCopy(s3, bucket, times=10), bucket=bucket, attempts=3)
    assert outcome.status == "error" and "not marked complete" in outcome.detail
    assert not dest.exists() and not list((dest.parent / COPIES_DIR).iterdir())


def test_a_corrupt_object_fails_without_retrying(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "abc"
    files = _model(1)
    _stage(s3, bucket, "m", files)
    s3.put_object(Bucket=bucket, Key="m/model.safetensors", Body=bytes(len(files["model.safetensors"])))
    outcome = _copy(dest, s3=s3, bucket=bucket)
    assert outcome.status == "error" and "sha256" in outcome.detail and "unchanged" in outcome.detail
    assert not dest.exists()


def test_an_old_layout_folder_is_adopted_as_an_old_copy(s3, bucket, tmp_path):
    dest = tmp_path / "models" / "abc"
    dest.mkdir(parents=True)
    (dest / "model.safetensors").write_bytes(b"old")
    _stage(s3, bucket, "m", _model(1))
    assert _copy(dest, s3=s3, bucket=bucket).status == "staged"
    assert dest.is_symlink()
    assert [p.name.startswith("abc-legacy-") for p in (dest.parent / COPIES_DIR).iterdir()].count(True) == 1


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
    dest = tmp_path / "models" / "abc"
    _stage(s3, bucket, "m", _model(1))
    args = ["--bucket", bucket, "--prefix", "m", "--dest", str(dest), "--endpoint-url", s3_server.url]
    child = subprocess.Popen([sys.executable, "-c", SLOW_COPY, str(ROOT), *args], stderr=subprocess.DEVNULL)
    copies = dest.parent / COPIES_DIR
    deadline = time.monotonic() + 30
    while not list(copies.glob(".abc-*.partial-*/model.safetensors")) and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert list(copies.glob(".abc-*.partial-*")), "the copy finished before it could be killed"
    assert not dest.exists()  # nothing points at a partial copy

    assert _copy(dest, s3=s3, bucket=bucket).status == "staged"
    assert not list(copies.glob(".abc-*.partial-*"))
    assert (dest / "model.safetensors").read_bytes() == _model(1)["model.safetensors"]
