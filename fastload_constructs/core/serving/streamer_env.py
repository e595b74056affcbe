"""The environment a Run:ai-streaming vLLM process needs to read from S3.

The chart puts exactly this into the vLLM container, and the CLI tests use
exactly this to stream from a local S3-compatible server, so what is tested
is what is deployed.
"""

from __future__ import annotations

from fastload_constructs.core.errors import require
from fastload_constructs.core.planning.streamer import StreamerSettings


def streamer_env(streamer: StreamerSettings, *, region: str, endpoint_url: str | None = None) -> dict[str, str]:
    """Env vars for vLLM's runai_streamer loader.

    AWS_REGION and AWS_DEFAULT_REGION are both set: the streamer's S3 client and
    boto-based code read different ones. A custom endpoint (an S3-compatible
    server) also switches the streamer to path-style addressing, which such
    servers need.
    """
    require(isinstance(region, str) and region != "", "region", region, "an AWS region such as us-east-1")
    env = {
        "AWS_REGION": region,
        "AWS_DEFAULT_REGION": region,
        "RUNAI_STREAMER_CONCURRENCY": str(streamer.concurrency),
        # Streamer 0.17 reads object-storage concurrency from this one first and falls back
        # to RUNAI_STREAMER_CONCURRENCY; naming it keeps the S3 setting explicit.
        "RUNAI_STREAMER_OBJ_CONCURRENCY": str(streamer.concurrency),
        "RUNAI_STREAMER_MEMORY_LIMIT": str(streamer.configured_memory_limit_bytes),
        # vLLM configures only its own loggers, so the streamer's throughput summary
        # ("Overall time to stream ...") is dropped unless it writes to stderr itself;
        # `fastload coldstart` reads that line.
        "RUNAI_STREAMER_LOG_TO_STDERR": "1",
    }
    if endpoint_url:
        require(
            endpoint_url.startswith(("http://", "https://")), "endpoint_url", endpoint_url, "an http:// or https:// URL"
        )
        env["AWS_ENDPOINT_URL"] = endpoint_url
        env["RUNAI_STREAMER_S3_USE_VIRTUAL_ADDRESSING"] = "0"
    return env
