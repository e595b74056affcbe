"""Absurd values where the in-pod steps read what others wrote: refused in one short line, never a traceback.

A manifest is written by whoever may write the model's prefix, and a node-local copy's manifest
lies on a disk other pods share: sizes of 400 digits, negative, NaN or Infinity (which Python's
json accepts), or of the wrong type, must stop a copy with a line that names the file, and must
never stop the warm check (which never fails the pod).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from fastload_constructs.runtime import _s3, warm_check
from fastload_constructs.runtime._node_copies import copy_name
from fastload_constructs.runtime.model_copy import COMPLETE_MARKER, MANIFEST_NAME, copy_model_to_node
from fastload_constructs.runtime.revision import pointer_revision

SHA = hashlib.sha256(b"x").hexdigest()
# JSON literals, as a stager's manifest might carry them.
ABSURD_SIZES = {
    "400 digits": "1" + "0" * 400,
    "negative": "-1",
    "NaN": "NaN",
    "Infinity": "Infinity",
    "a float": "1.5",
    "a string": '"1"',
    "true": "true",
    "a list": "[1]",
}


def _manifest(size: str, sha: str = SHA) -> bytes:
    return ('{"files": [{"name": "model.safetensors", "size": ' + size + ', "sha256": "' + sha + '"}]}').encode()


class Unreachable:
    def get_object(self, **kwargs):
        raise PermissionError("no S3 in this test")


@pytest.mark.parametrize("case", sorted(ABSURD_SIZES))
def test_a_copy_refuses_an_absurd_size_in_one_short_line(s3_server, tmp_path, case):
    s3 = s3_server.client()
    bucket = s3_server.new_bucket("edge")
    s3.put_object(Bucket=bucket, Key="m/model.safetensors", Body=b"x")
    s3.put_object(Bucket=bucket, Key=f"m/{MANIFEST_NAME}", Body=_manifest(ABSURD_SIZES[case]))

    outcome = copy_model_to_node(s3, bucket=bucket, prefix="m", dest=tmp_path / "models" / "m")

    assert outcome.status == "error"
    assert "model.safetensors" in outcome.detail and "size" in outcome.detail, outcome.detail
    assert len(outcome.detail) < 200 and "\n" not in outcome.detail, outcome.detail
    assert not list((tmp_path / "models").rglob("model.safetensors"))


@pytest.mark.parametrize("sha", ["z" * 64, SHA.upper(), SHA[:63]])
def test_a_copy_refuses_a_sha256_that_is_not_one(s3_server, tmp_path, sha):
    s3 = s3_server.client()
    bucket = s3_server.new_bucket("edge")
    s3.put_object(Bucket=bucket, Key="m/model.safetensors", Body=b"x")
    s3.put_object(Bucket=bucket, Key=f"m/{MANIFEST_NAME}", Body=_manifest("1", sha))

    outcome = copy_model_to_node(s3, bucket=bucket, prefix="m", dest=tmp_path / "models" / "m")

    assert outcome.status == "error" and "sha256" in outcome.detail, outcome.detail


def _node_copy(model_dir: Path, manifest: bytes) -> Path:
    """A complete copy on the node whose own manifest is `manifest` (S3 is out of reach in these tests)."""
    copy = model_dir / copy_name("unversioned", manifest)
    copy.mkdir(parents=True)
    (copy / "model.safetensors").write_bytes(b"x")
    (copy / MANIFEST_NAME).write_bytes(manifest)
    (copy / COMPLETE_MARKER).write_text("{}")
    return copy


@pytest.mark.parametrize("case", sorted(ABSURD_SIZES))
def test_the_warm_check_finds_a_copy_with_an_absurd_size_damaged_and_carries_on(tmp_path, case, monkeypatch):
    monkeypatch.setattr(_s3, "BACKOFF_BASE_S", 0.001)
    model_dir = tmp_path / "models" / "revisions" / "m"
    _node_copy(model_dir, _manifest(ABSURD_SIZES[case]))

    report = warm_check.check(Unreachable(), bucket="b", prefix="p", model_dir=model_dir)

    assert report.model == "damaged" and report.path == "cold"
    assert "model.safetensors" in report.detail and len(report.line()) < 300, report.line()


def test_the_warm_check_never_fails_the_pod_on_an_unreadable_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(_s3, "BACKOFF_BASE_S", 0.001)
    model_dir = tmp_path / "models" / "revisions" / "m"
    _node_copy(model_dir, b"[" * 100_000)  # nested past the parser's recursion limit

    report = warm_check.check(Unreachable(), bucket="b", prefix="p", model_dir=model_dir)

    assert report.model == "damaged" and "Traceback" not in capsys.readouterr().err


def test_a_pointer_with_an_integer_of_5000_digits_is_no_pointer():
    body = json.dumps({"fastload_pointer_version": 1, "revision": "x"}).replace("1", "1" + "0" * 5000, 1)
    with pytest.raises(ValueError, match="not a fastload pointer") as refused:
        pointer_revision(body.encode())
    assert len(str(refused.value)) < 200


def test_the_pod_step_exits_with_one_line_on_an_absurd_manifest(s3_server, tmp_path, capsys):
    from fastload_constructs.runtime import model_copy

    s3 = s3_server.client()
    bucket = s3_server.new_bucket("edge")
    s3.put_object(Bucket=bucket, Key=f"m/{MANIFEST_NAME}", Body=_manifest("NaN"))
    dest = Path(tmp_path / "models" / "m")

    rc = model_copy.main(["--bucket", bucket, "--prefix", "m", "--dest", str(dest), "--endpoint-url", s3_server.url])

    assert rc == 1 and "Traceback" not in capsys.readouterr().err


def test_the_warm_check_step_exits_zero_whatever_it_meets(tmp_path, capsys, caplog):
    """Its models folder is a file here: the check cannot even lock, and still the pod goes on, cold."""
    (tmp_path / "models").write_text("not a folder")

    rc = warm_check.main(["--bucket", "b", "--prefix", "p", "--model-dir", str(tmp_path / "models" / "m")])

    assert rc == 0 and "Traceback" not in capsys.readouterr().err
    assert any("path=cold" in r.getMessage() for r in caplog.records)
