"""One way to build the boto3 S3 client every fastload command uses, and read what S3 sends back.

A custom endpoint (MinIO, a local test server, or `AWS_ENDPOINT_URL`) gets
path-style addressing, as the streamer env does for vLLM, because such
servers rarely resolve `bucket.host` names.

Responses are checksum-validated only when the operation requires it: a
server may send an object's whole-object checksum header on a ranged GET
(rclone's S3 server does), which botocore would then compare with the bytes of
the range and fail. Whole-file integrity is fastload's own SHA-256, checked
where it matters (staging, the node copy, cache restore).

Clients come from one botocore session, not boto3's: nothing here uses boto3's
resources or transfer manager, and importing boto3 (which imports s3transfer)
costs about a tenth of a second that every `fastload` S3 command would pay at
start-up. Later clients reuse the first one's loaded service model.

`sign_payload=False` sends request bodies as UNSIGNED-PAYLOAD with their
checksum (CRC32) in a signed header, which is what botocore does by default
over HTTPS. Over plain HTTP botocore otherwise hashes every body with SHA-256
for the signature: a second pass over each byte the uploader already hashes.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

import botocore.loaders
import botocore.session
from botocore.config import Config

from fastload_constructs.core.errors import require


@functools.cache
def _loader() -> botocore.loaders.Loader:
    """One loader for every client: it keeps the parsed service models, the costly part of a new client.

    Credential providers build their own clients (STS for roles and web identity, SSO) from the
    same session, so this loader must know every service botocore ships, not only S3's.
    """
    return botocore.loaders.create_loader(os.environ.get("AWS_DATA_PATH"))


def _session() -> botocore.session.Session:
    """A fresh session per client (credentials are looked up anew), sharing the loaded models."""
    session = botocore.session.get_session()
    session.register_component("data_loader", _loader())
    return session


def s3_client(
    *,
    endpoint_url: str | None = None,
    region: str | None = None,
    max_connections: int = 10,
    sign_payload: bool | None = None,
    session: botocore.session.Session | None = None,
) -> Any:
    """An S3 client with standard retries and a pool sized for `max_connections` threads.

    `sign_payload`: None keeps botocore's choice (signed over HTTP, unsigned with a checksum over
    HTTPS); False never hashes bodies for the signature (for bulk uploads whose parts carry a CRC32).
    `session`: default a new one (credentials looked up anew); `upload_clients` shares one.
    """
    endpoint = endpoint_url or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint:
        require(endpoint.startswith(("http://", "https://")), "endpoint_url", endpoint, "an http:// or https:// URL")
    require(
        isinstance(max_connections, int) and max_connections >= 1,
        "max_connections",
        max_connections,
        "a positive whole number",
    )
    s3_settings: Any = {"addressing_style": "path"} if endpoint else {}
    if sign_payload is not None:
        s3_settings["payload_signing_enabled"] = sign_payload
    config = Config(
        retries={"mode": "standard", "max_attempts": 5},
        max_pool_connections=max(10, max_connections),
        s3=s3_settings or None,
        response_checksum_validation="when_required",
    )
    return (session or _session()).create_client("s3", region_name=region, endpoint_url=endpoint, config=config)


class _OnFirstUse:
    """A client made when first used: a no-op re-run, which sends no file, never pays for it (~25 ms)."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make, self._client, self._lock = make, None, threading.Lock()

    def __getattr__(self, name: str) -> Any:
        with self._lock:  # the upload threads reach it together
            if self._client is None:
                self._client = self._make()
        return getattr(self._client, name)


def upload_clients(
    *, endpoint_url: str | None = None, region: str | None = None, max_connections: int = 10
) -> tuple[Any, Any]:
    """(control, bodies) for `upload_model`, from one session: listing and the manifest signed as
    botocore chooses, file bytes with `sign_payload=False` (made on first use)."""
    session = _session()
    settings: dict[str, Any] = {"endpoint_url": endpoint_url, "region": region, "max_connections": max_connections}
    control = s3_client(**settings, session=session)
    return control, _OnFirstUse(lambda: s3_client(**settings, session=session, sign_payload=False))


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
