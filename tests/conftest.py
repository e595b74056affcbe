"""Shared test set-up: a supported Node.js for jsii, local S3 servers, and small fixtures."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fastload_constructs.jsii_node import use_packaged_node  # noqa: E402

use_packaged_node()


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def _s3_test_env() -> Iterator[None]:
    """Test credentials in the environment, and no real AWS endpoint or profile, for the whole session."""
    from tests.s3_server import TEST_ENV

    with pytest.MonkeyPatch.context() as env:
        for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
            env.delenv(name, raising=False)
        for name, value in TEST_ENV.items():
            env.setenv(name, value)
        yield


@pytest.fixture(scope="session")
def s3_server(_s3_test_env: None) -> Iterator[Any]:
    """A real S3 server on 127.0.0.1: `rclone serve s3` (Go), shared by the session."""
    from tests.s3_server import RcloneS3Server

    server = RcloneS3Server()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def moto_server(_s3_test_env: None) -> Iterator[Any]:
    """moto's S3 server on 127.0.0.1, for IAM enforcement; started only by the tests that need it."""
    from tests.s3_server import MotoS3Server

    server = MotoS3Server()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _stage_state_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """`fastload stage` keeps a record of local hashes under XDG_CACHE_HOME: never the user's during tests."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
