"""Shared test set-up: a supported Node.js for jsii, and small fixtures."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from fastload_constructs.jsii_node import use_packaged_node  # noqa: E402

use_packaged_node()


import pytest  # noqa: E402


@pytest.fixture(scope="session")
def s3_server():
    """A real S3-compatible server on 127.0.0.1 (moto), with test credentials in the environment."""
    from tests.s3_server import TEST_ENV, LocalS3Server

    with pytest.MonkeyPatch.context() as env:
        for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
            env.delenv(name, raising=False)
        for name, value in TEST_ENV.items():
            env.setenv(name, value)
        server = LocalS3Server()
        server.start()
        try:
            yield server
        finally:
            server.stop()
