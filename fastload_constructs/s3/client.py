"""One way to build the boto3 S3 client every fastload command uses, and read what S3 sends back.

A custom endpoint (MinIO, a local test server, or `AWS_ENDPOINT_URL`) gets
path-style addressing, as the streamer env does for vLLM, because such
servers rarely resolve `bucket.host` names.

Responses are checksum-validated only when the operation requires it: a
server may send an object's whole-object checksum header on a ranged GET
(rclone's S3 server does), which botocore would then compare with the bytes of
the range and fail. Whole-file integrity is fastload's own SHA-256, checked
where it matters (staging, the node copy, cache restore).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import boto3
from botocore.config import Config

from fastload_constructs.core.errors import require


def s3_client(*, endpoint_url: str | None = None, region: str | None = None, max_connections: int = 10) -> Any:
    """A boto3 S3 client with standard retries and a pool sized for `max_connections` threads."""
    endpoint = endpoint_url or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint:
        require(endpoint.startswith(("http://", "https://")), "endpoint_url", endpoint, "an http:// or https:// URL")
    require(
        isinstance(max_connections, int) and max_connections >= 1,
        "max_connections",
        max_connections,
        "a positive whole number",
    )
    config = Config(
        retries={"mode": "standard", "max_attempts": 5},
        max_pool_connections=max(10, max_connections),
        s3={"addressing_style": "path"} if endpoint else None,
        response_checksum_validation="when_required",
    )
    session = boto3.session.Session(region_name=region)
    return session.client("s3", endpoint_url=endpoint, config=config)


def metadata_value(metadata: Mapping[str, str] | None, key: str) -> str | None:
    """A user-metadata value by key, whatever case the server returned the key in.

    HTTP header names are case-insensitive and S3-compatible servers differ:
    AWS returns `x-amz-meta-*` keys lower-cased, Go servers (rclone, gofakes3)
    canonicalise them to `Fastload-Sha256`.
    """
    if not metadata:
        return None
    wanted = key.lower()
    for name, value in metadata.items():
        if name.lower() == wanted:
            return value
    return None
