"""Nothing left behind by `fastload stage`: SIGTERM, SIGKILL and a full disk, against rclone on 127.0.0.1."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.s3 import stage_record
from fastload_constructs.s3.stage_record import StageRecord
from tests.hf_model_factory import write_hf_model
from tests.s3_server import TEST_ENV

ROOT = Path(__file__).resolve().parents[1]
# `fastload stage` with every part held back a while, so a signal finds multipart uploads open.
SLOW_STAGE = """
import sys, time
sys.path.insert(0, sys.argv[1])
from fastload_constructs.s3 import uploader
part_call = uploader._part_call
def slow(*args, **kwargs):
    call = part_call(*args, **kwargs)
    def run():
        time.sleep(0.5)
        return call()
    return run
uploader._part_call = slow
from fastload_constructs.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def _open_uploads(client, bucket: str) -> list[dict]:
    try:
        return client.list_multipart_uploads(Bucket=bucket, Prefix="m/").get("Uploads", [])
    except client.exceptions.NoSuchUpload:  # rclone's answer once every upload it knew of is gone
        return []


def _start_slow_stage(s3_server, model: Path, bucket: str, xdg: Path) -> subprocess.Popen:
    env = {**os.environ, **TEST_ENV, "XDG_CACHE_HOME": str(xdg)}
    args = [str(model), f"s3://{bucket}/m", "--endpoint-url", s3_server.url, "--chunk-size-mib", "5", "--no-progress"]
    process = subprocess.Popen(
        [sys.executable, "-c", SLOW_STAGE, str(ROOT), "stage", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while not _open_uploads(s3_server.client(), bucket):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no multipart upload started"
        time.sleep(0.05)
    return process


def test_sigterm_during_stage_aborts_its_multipart_uploads(s3_server, tmp_path):
    bucket = s3_server.new_bucket()
    write_hf_model(tmp_path / "model")  # one shard over 5 MiB: a multipart upload
    process = _start_slow_stage(s3_server, tmp_path / "model", bucket, tmp_path / "xdg")

    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)

    assert process.returncode == 128 + signal.SIGTERM, err
    assert b"Traceback" not in err
    assert _open_uploads(s3_server.client(), bucket) == []


def test_a_later_stage_aborts_the_uploads_a_killed_one_left_open(s3_server, tmp_path, monkeypatch):
    bucket = s3_server.new_bucket()
    write_hf_model(tmp_path / "model")
    xdg = tmp_path / "xdg"
    process = _start_slow_stage(s3_server, tmp_path / "model", bucket, xdg)
    process.kill()  # SIGKILL: no clean-up of its own
    process.communicate(timeout=30)
    assert _open_uploads(s3_server.client(), bucket)

    monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
    code = main(
        [
            "stage",
            str(tmp_path / "model"),
            f"s3://{bucket}/m",
            "--endpoint-url",
            s3_server.url,
            "--chunk-size-mib",
            "5",
            "--no-progress",
        ]
    )

    assert code == 0
    assert _open_uploads(s3_server.client(), bucket) == []


def test_a_full_disk_leaves_no_record_temporaries(tmp_path, monkeypatch):
    record = StageRecord(root=tmp_path, path=tmp_path / "records" / "r.json")
    record.hashes["a"] = {"size": 1}
    fdopen = os.fdopen

    class FullDisk:
        def __init__(self, fd, mode):
            self.handle = fdopen(fd, mode)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(stage_record.os, "fdopen", FullDisk)
    for _ in range(3):
        record.save()  # never raises: the record only saves work
    monkeypatch.undo()

    assert not list((tmp_path / "records").glob(".record-*"))
    record.save()  # space is back
    assert (tmp_path / "records" / "r.json").is_file()
    assert not list((tmp_path / "records").glob(".record-*"))


@pytest.mark.parametrize("age_s, survives", [(10, True), (7200, False)])
def test_temporaries_a_killed_save_left_are_removed_once_old(tmp_path, age_s, survives):
    directory = tmp_path / "records"
    directory.mkdir()
    leftover = directory / ".record-abc123"
    leftover.write_text("{")
    os.utime(leftover, (time.time() - age_s, time.time() - age_s))

    StageRecord(root=tmp_path, path=directory / "r.json").save()

    assert leftover.exists() is survives
