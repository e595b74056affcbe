"""A real S3-compatible server (moto) on 127.0.0.1 for tests that talk to S3.

Started once per session on a free port. Tests reach it only through
`endpoint_url`; fake credentials and AWS_EC2_METADATA_DISABLED keep boto3 and
the streamer from looking anywhere else.
"""

from __future__ import annotations

import socket
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3
from moto.server import ThreadedMotoServer

REGION = "us-east-1"
TEST_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": REGION,
    "AWS_REGION": REGION,
    "AWS_EC2_METADATA_DISABLED": "true",
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LocalS3Server:
    """moto's threaded server plus helpers: clients, fresh buckets, IAM enforcement on demand."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)

    def start(self) -> None:
        self._server.start()

    def stop(self) -> None:
        self._server.stop()

    def client(self, service: str = "s3", **kwargs: Any) -> Any:
        return boto3.client(service, endpoint_url=self.url, region_name=REGION, **kwargs)

    def new_bucket(self, stem: str = "models") -> str:
        name = f"{stem}-{uuid.uuid4().hex[:12]}"
        self.client().create_bucket(Bucket=name)
        return name

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
    def principal_without_permissions(self) -> Iterator[dict[str, str]]:
        """Credentials of an IAM user with no policies, with IAM enforced while the block runs."""
        iam = self.client("iam")
        user = f"nobody-{uuid.uuid4().hex[:8]}"
        iam.create_user(UserName=user)
        key = iam.create_access_key(UserName=user)["AccessKey"]
        self._set_auth("0")
        try:
            yield {"AWS_ACCESS_KEY_ID": key["AccessKeyId"], "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"]}
        finally:
            self._set_auth("inf")
