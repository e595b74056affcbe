#!/usr/bin/env python3
"""Benchmark: profiling a model from its safetensors headers vs downloading it.

`fastload inspect` sizes a model with one ranged GET per shard; the
alternative is fetching the shards. This stages a synthetic sharded model into
a local `rclone serve s3` (a Go server that answers a ranged GET by seeking,
as S3 does; 127.0.0.1 only) and prints, for each model size, the bytes and
wall time of both, as ratios. Header reads stay flat (64 KiB per shard) while
a download grows with the model.

Run: .venv/bin/python bench/inspect_vs_download.py [--shards 4] [--mib 16 64 256]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fastload_constructs.core.s3_uri import parse_s3_uri  # noqa: E402
from fastload_constructs.s3.client import s3_client  # noqa: E402
from fastload_constructs.s3.headers import inspect_s3, list_prefix, shard_objects  # noqa: E402
from tests.s3_server import TEST_ENV, RcloneS3Server  # noqa: E402
from tests.safetensors_factory import write_safetensors  # noqa: E402


class ByteCounter:
    """Counts response body bytes botocore reads, per operation."""

    def __init__(self, client) -> None:
        self.bytes = 0
        client.meta.events.register("after-call.s3.GetObject", self._count)

    def _count(self, http_response=None, **_: object) -> None:
        self.bytes += int(http_response.headers.get("content-length", 0))


def stage(client, bucket: str, prefix: str, shards: int, mib: int, folder: Path) -> None:
    side = int((mib * 1024 * 1024 / 2) ** 0.5)  # one BF16 square tensor of ~mib MiB per shard
    for i in range(shards):
        path = folder / f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
        write_safetensors(path, {f"layer.{i}.weight": ("BF16", [side, side]), f"layer.{i}.bias": ("BF16", [side])})
        client.put_object(Bucket=bucket, Key=f"{prefix}/{path.name}", Body=path.read_bytes())
        path.unlink()


def measure(client, uri: str) -> tuple[float, int, float, int]:
    location = parse_s3_uri(uri)
    for shard in shard_objects(list_prefix(client, location), location):
        # rclone computes an object's ETag on its first read after an upload; S3 has it already. Warm it.
        client.head_object(Bucket=location.bucket, Key=location.key(shard.name))
    counter = ByteCounter(client)
    start = time.perf_counter()
    inspect_s3(client, location)
    header_s, header_bytes = time.perf_counter() - start, counter.bytes
    counter.bytes = 0
    start = time.perf_counter()
    for shard in shard_objects(list_prefix(client, location), location):
        client.get_object(Bucket=location.bucket, Key=location.key(shard.name))["Body"].read()
    return header_s, header_bytes, time.perf_counter() - start, counter.bytes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--mib", type=int, nargs="+", default=[16, 64, 256], help="MiB per shard")
    args = parser.parse_args()
    os.environ.update(TEST_ENV)
    server = RcloneS3Server(etag_hash="xxh3")  # see RcloneS3Server: no hash pass S3 would not make
    server.start()
    try:
        client = s3_client(endpoint_url=server.url)
        client.create_bucket(Bucket="bench")
        print(
            f"{'model MiB':>10} {'header KiB':>11} {'download MiB':>13} {'bytes ratio':>12} "
            f"{'header s':>9} {'download s':>11} {'time ratio':>11}"
        )
        with tempfile.TemporaryDirectory() as tmp:
            for mib in args.mib:
                prefix = f"models/m{mib}"
                stage(client, "bench", prefix, args.shards, mib, Path(tmp))
                header_s, header_b, full_s, full_b = measure(client, f"s3://bench/{prefix}")
                print(
                    f"{args.shards * mib:>10} {header_b / 1024:>11.1f} {full_b / 2**20:>13.1f} "
                    f"{full_b / header_b:>11.0f}x {header_s:>9.3f} {full_s:>11.3f} {full_s / header_s:>10.0f}x"
                )
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
