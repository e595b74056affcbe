"""Hostile and broken compile-cache archives, killed restores and unwritable cache folders, against a real S3 server.

Every case must end in "start cold": nothing under the cache folder but what a
good archive holds, nothing outside it, no temporary folder left, no traceback.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from fastload_constructs.runtime import _s3, compile_cache
from fastload_constructs.runtime._cache_archive import Limits
from fastload_constructs.runtime.compile_cache import COMPILE_SUBDIR, SHA256_METADATA, restore_compile_cache

ROOT = Path(__file__).resolve().parents[1]
S = COMPILE_SUBDIR


@pytest.fixture()
def bucket(s3_server):
    return s3_server.new_bucket("cc")


@pytest.fixture()
def s3(s3_server):
    return s3_server.client()


def _member(name: str, kind: bytes = tarfile.REGTYPE, data: bytes = b"", **attrs) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    for key, value in attrs.items():
        setattr(info, key, value)
    return info, data


def _archive(members, *, level: int = 1) -> bytes:
    raw = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=level, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w|", format=tarfile.GNU_FORMAT) as archive,
    ):
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return raw.getvalue()


def _put(s3, bucket: str, key: str, body: bytes) -> None:
    s3.put_object(Bucket=bucket, Key=key, Body=body, Metadata={SHA256_METADATA: hashlib.sha256(body).hexdigest()})


def _assert_cold(outcome, root: Path, outside: Path) -> None:
    assert outcome.status == "corrupt", outcome
    assert not (root / S).exists()
    assert list(root.glob(".restore-*")) == []
    assert sorted(p.name for p in outside.iterdir()) == ["cache"], "something was written outside the cache folder"


GOOD = [_member(S, tarfile.DIRTYPE, mode=0o755), _member(f"{S}/a/graph.py", data=b"x = 1\n")]

HOSTILE = {
    "symlink-out": [*GOOD, _member(f"{S}/link", tarfile.SYMTYPE, linkname="/etc/passwd")],
    "symlink-in": [*GOOD, _member(f"{S}/link", tarfile.SYMTYPE, linkname="a/graph.py")],
    "hardlink-out": [*GOOD, _member(f"{S}/hard", tarfile.LNKTYPE, linkname="../../../etc/passwd")],
    "char-device": [*GOOD, _member(f"{S}/null", tarfile.CHRTYPE, devmajor=1, devminor=3)],
    "block-device": [*GOOD, _member(f"{S}/sda", tarfile.BLKTYPE, devmajor=8, devminor=0)],
    "fifo": [*GOOD, _member(f"{S}/pipe", tarfile.FIFOTYPE)],
    "absolute": [*GOOD, _member("/tmp/fastload-owned", data=b"x")],
    "dot-dot": [*GOOD, _member(f"{S}/../../escaped", data=b"x")],
    "outside-subdir": [*GOOD, _member("assets/config.json", data=b"{}")],
    "duplicate-file": [*GOOD, _member(f"{S}/a/graph.py", data=b"evil = 1\n")],
    "dir-over-file": [*GOOD, _member(f"{S}/a/graph.py", tarfile.DIRTYPE)],
    # A file as a later member's parent: its folder would have to replace the file.
    "file-as-parent": [*GOOD, _member(f"{S}/a/graph.py/inner.py", data=b"x")],
    # A file where an earlier member's parent folder was made (no directory member for it).
    "file-over-implicit-dir": [*GOOD, _member(f"{S}/a", data=b"x")],
    "nul-in-name": [*GOOD, _member(f"{S}/a\x00b", data=b"x")],
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archive_starts_cold(case, s3, bucket, tmp_path):
    _put(s3, bucket, f"cc/{case}.tar.gz", _archive(HOSTILE[case]))
    root = tmp_path / "cache"
    outcome = restore_compile_cache(s3, bucket=bucket, prefix="cc", cache_key=case, cache_root=root)
    _assert_cold(outcome, root, tmp_path)
    assert "ArchiveRefused" in outcome.detail  # refused by the vetting, before a byte of the member was written
    assert not Path("/tmp/fastload-owned").exists()


def test_setuid_and_world_writable_modes_are_cleared(s3, bucket, tmp_path):
    members = [
        _member(S, tarfile.DIRTYPE, mode=0o777),
        _member(f"{S}/run.so", data=b"\x7fELF", mode=0o6777),
        _member(f"{S}/ro.py", data=b"pass\n", mode=0o400),
    ]
    _put(s3, bucket, "cc/modes.tar.gz", _archive(members))
    outcome = restore_compile_cache(s3, bucket=bucket, prefix="cc", cache_key="modes", cache_root=tmp_path)
    assert outcome.status == "restored", outcome
    assert (tmp_path / S / "run.so").stat().st_mode & 0o7777 == 0o755  # no setuid/setgid/sticky, no g/o write
    assert (tmp_path / S / "ro.py").stat().st_mode & 0o7777 == 0o600  # the owner can read and write
    assert (tmp_path / S).stat().st_mode & 0o7777 == 0o755


@pytest.mark.parametrize(
    "limits, members",
    [
        (Limits(members=10), [*GOOD, *(_member(f"{S}/f{i}", data=b"x") for i in range(20))]),
        (Limits(unpacked_bytes=1024 * 1024), [*GOOD, _member(f"{S}/bomb", data=bytes(64 * 1024 * 1024))]),
        (Limits(seconds=0.0), GOOD),
    ],
    ids=["member-count", "gzip-bomb", "time"],
)
def test_limits_refuse_the_archive(limits, members, s3, bucket, tmp_path):
    body = _archive(members, level=9)
    _put(s3, bucket, "cc/limits.tar.gz", body)
    root = tmp_path / "cache"
    outcome = restore_compile_cache(s3, bucket=bucket, prefix="cc", cache_key="limits", cache_root=root, limits=limits)
    _assert_cold(outcome, root, tmp_path)
    assert "ArchiveRefused" in outcome.detail


def test_trailing_garbage_or_a_swapped_body_fails_the_checksum(s3, bucket, tmp_path):
    body = _archive(GOOD)
    sha = hashlib.sha256(body).hexdigest()
    s3.put_object(Bucket=bucket, Key="cc/swapped.tar.gz", Body=_archive(GOOD, level=9), Metadata={SHA256_METADATA: sha})
    root = tmp_path / "cache"
    outcome = restore_compile_cache(s3, bucket=bucket, prefix="cc", cache_key="swapped", cache_root=root)
    _assert_cold(outcome, root, tmp_path)
    assert "checksum" in outcome.detail


def test_a_good_archive_restores_in_one_pass_with_no_temporary_left(s3, bucket, tmp_path):
    _put(s3, bucket, "cc/good.tar.gz", _archive(GOOD))
    outcome = restore_compile_cache(s3, bucket=bucket, prefix="cc", cache_key="good", cache_root=tmp_path)
    assert outcome.status == "restored", outcome
    assert (tmp_path / S / "a" / "graph.py").read_bytes() == b"x = 1\n"
    assert list(tmp_path.glob(".restore-*")) == []


SLOW_RESTORE = """
import sys, time
sys.path.insert(0, sys.argv[1])
from fastload_constructs.runtime import _cache_archive, compile_cache
read = _cache_archive.InflatingPipe.read
def slow(self, n=-1):
    time.sleep(0.05)
    return read(self, n)
_cache_archive.InflatingPipe.read = slow
sys.exit(compile_cache.main(sys.argv[2:]))
"""


def test_a_restore_killed_mid_way_leaves_nothing_the_next_one_does_not_clean(s3_server, s3, bucket, tmp_path):
    files = [_member(f"{S}/blob{i}", data=os.urandom(256 * 1024)) for i in range(16)]
    _put(s3, bucket, "cc/big.tar.gz", _archive([GOOD[0], *files]))
    root = tmp_path / "cache"
    args = ["restore", "--bucket", bucket, "--prefix", "cc", "--cache-key", "big"]
    args += ["--cache-root", str(root), "--endpoint-url", s3_server.url]
    child = subprocess.Popen([sys.executable, "-c", SLOW_RESTORE, str(ROOT), *args], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not list(root.glob(".restore-*/*")) and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert list(root.glob(".restore-*")), "the restore finished before it could be killed"
    assert not (root / S).exists()  # a killed restore never leaves a half cache in place

    outcome = restore_compile_cache(s3, bucket=bucket, prefix="cc", cache_key="big", cache_root=root)
    assert outcome.status == "restored", outcome
    assert list(root.glob(".restore-*")) == []
    assert len(list((root / S).iterdir())) == 16


def test_unreadable_entries_in_the_cache_are_repaired(tmp_path):
    locked = tmp_path / S / "abc" / "inductor"
    locked.mkdir(parents=True)
    (locked / "kernel.so").write_bytes(b"x")
    os.chmod(locked / "kernel.so", 0o000)
    os.chmod(locked, 0o000)
    outcome = restore_compile_cache(None, bucket="b", prefix="cc", cache_key="k", cache_root=tmp_path)
    assert outcome.status == "present"
    assert locked.stat().st_mode & 0o700 == 0o700 and (locked / "kernel.so").stat().st_mode & 0o600 == 0o600


def test_permission_problems_start_cold_without_a_traceback(s3_server, bucket, tmp_path, monkeypatch, caplog, capsys):
    real_mkdir = Path.mkdir

    def denied(self, *args, **kwargs):
        if self.name.startswith(".restore-") or self == tmp_path / "ro":
            raise PermissionError(13, "Permission denied", str(self))
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", denied)
    args = ["restore", "--bucket", bucket, "--prefix", "cc", "--cache-key", "k"]
    for root in (tmp_path / "ro", tmp_path / "rw"):
        _put(s3_server.client(), bucket, "cc/k.tar.gz", _archive(GOOD))
        caplog.clear()
        rc = compile_cache.main([*args, "--cache-root", str(root), "--endpoint-url", s3_server.url])
        assert rc == 0
        assert "Traceback" not in capsys.readouterr().err
        [line] = [r.getMessage() for r in caplog.records if r.name == "fastload.runtime"]
        assert "starting cold" in line and "ermission denied" in line, line
        assert not (root / S).exists()


def test_chmod_refused_on_a_foreign_cache_is_reported(tmp_path, monkeypatch):
    (tmp_path / S / "x").mkdir(parents=True)
    os.chmod(tmp_path / S / "x", 0o500)

    def refuse(path, mode):
        raise PermissionError(1, "Operation not permitted", str(path))

    monkeypatch.setattr(os, "chmod", refuse)
    outcome = restore_compile_cache(None, bucket="b", prefix="cc", cache_key="k", cache_root=tmp_path)
    assert outcome.status == "error" and "starting cold" in outcome.detail and "not permitted" in outcome.detail


def test_no_boto3_or_no_region_still_exits_zero(monkeypatch, tmp_path, caplog, capsys):
    def broken(_endpoint):
        raise ModuleNotFoundError("No module named 'boto3'")

    monkeypatch.setattr(_s3, "client", broken)
    rc = compile_cache.main(
        ["restore", "--bucket", "b", "--prefix", "p", "--cache-key", "k", "--cache-root", str(tmp_path)]
    )
    assert rc == 0 and "Traceback" not in capsys.readouterr().err
    assert any("No module named 'boto3'" in r.getMessage() for r in caplog.records)
