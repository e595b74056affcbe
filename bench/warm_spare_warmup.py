#!/usr/bin/env python3
"""Benchmark: what a vLLM pod fetches after a warm spare vs on a node nobody warmed.

A warm spare runs the vLLM pod's own cache steps before any real pod needs the
node: `warm-check`, `stage-model` (the model copied from S3 to the node's
NVMe) and `restore-compile-cache`. This stages a synthetic model with
`fastload stage` and a compile-cache archive into a local S3-compatible server
(moto, 127.0.0.1 only), runs those steps once as the spare would (a cold node)
and again as the pod that preempted it (same node paths), and prints the
bytes each fetched from S3 and their wall time, as ratios. The bytes ratio is
the result: after a spare the pod reads one manifest, whatever the model size.
Wall times here are a local Python server's and say nothing of S3's rates;
image pull and node launch, the larger savings, cannot be run on one machine.

Run: .venv/bin/python bench/warm_spare_warmup.py [--mib 16 64 256] [--cache-mib 32]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import os
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import boto3  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

from fastload_constructs.cli.main import main as fastload  # noqa: E402
from fastload_constructs.runtime import compile_cache, model_copy, warm_check  # noqa: E402
from tests.safetensors_factory import write_safetensors  # noqa: E402

BUCKET = "bench-warm"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ByteCounter:
    """Response body bytes botocore reads from GetObject (whole and ranged)."""

    def __init__(self, client: Any) -> None:
        self.bytes = 0
        client.meta.events.register("after-call.s3.GetObject", self._count)

    def _count(self, http_response: Any = None, **_: object) -> None:
        self.bytes += int(http_response.headers.get("content-length", 0))


def make_model(folder: Path, mib: int, shards: int = 2) -> None:
    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"architectures": ["LlamaForCausalLM"]}')
    side = int((mib * 1024 * 1024 / shards / 2) ** 0.5)
    for i in range(shards):
        write_safetensors(folder / f"model-{i + 1:05d}-of-{shards:05d}.safetensors", {f"w{i}": ("BF16", [side, side])})


def pod_steps(s3: Any, *, prefix: str, node: Path, cache_key: str) -> None:
    """warm-check, stage-model, restore-compile-cache: the init containers of a spare and of a vLLM pod."""
    model_dir, cache_root = node / "models" / "m", node / "vllm-cache" / cache_key
    warm_check.check(s3, bucket=BUCKET, prefix=prefix, model_dir=model_dir, cache_root=cache_root)
    assert model_copy.copy_model_to_node(s3, bucket=BUCKET, prefix=prefix, dest=model_dir).status in (
        "staged",
        "present",
    )
    restored = compile_cache.restore_compile_cache(
        s3, bucket=BUCKET, prefix="compile-cache", cache_key=cache_key, cache_root=cache_root
    )
    assert restored.status in ("restored", "present"), restored


def run(url: str, mib: int, cache_mib: int, work: Path) -> tuple[int, float, int, float]:
    s3 = boto3.client("s3", endpoint_url=url, region_name="us-east-1")
    prefix = f"models/m{mib}"
    make_model(work / "model", mib)
    with contextlib.redirect_stdout(io.StringIO()):  # stage's own report
        staged = fastload(
            ["stage", str(work / "model"), f"s3://{BUCKET}/{prefix}", "--endpoint-url", url, "--no-progress"]
        )
    assert staged == 0
    compiled = work / "first-pod" / compile_cache.COMPILE_SUBDIR
    compiled.mkdir(parents=True)
    (compiled / "kernels.bin").write_bytes(os.urandom(cache_mib * 1024 * 1024))
    key = f"key{mib}"
    compile_cache.publish_compile_cache(
        s3, bucket=BUCKET, prefix="compile-cache", cache_key=key, cache_root=work / "first-pod"
    )
    counter = ByteCounter(s3)
    started = time.perf_counter()
    pod_steps(s3, prefix=prefix, node=work / "node", cache_key=key)  # the spare, on a cold node
    spare_s, spare_bytes = time.perf_counter() - started, counter.bytes
    counter.bytes = 0
    started = time.perf_counter()
    pod_steps(s3, prefix=prefix, node=work / "node", cache_key=key)  # the pod that preempted it
    return spare_bytes, spare_s, counter.bytes, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=int, nargs="+", default=[16, 64, 256], help="model sizes")
    parser.add_argument("--cache-mib", type=int, default=32, help="compile-cache archive size")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    for name, value in {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        os.environ.setdefault(name, value)
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    url = f"http://127.0.0.1:{port}"
    try:
        boto3.client("s3", endpoint_url=url, region_name="us-east-1").create_bucket(Bucket=BUCKET)
        print(" model MiB  spare MiB  pod-after-spare KiB  bytes ratio  spare s  pod s  time ratio")
        for mib in args.mib:
            with tempfile.TemporaryDirectory() as tmp:
                cold_b, cold_s, warm_b, warm_s = run(url, mib, args.cache_mib, Path(tmp))
            print(
                f"{mib:10d} {cold_b / 2**20:10.1f} {warm_b / 1024:20.1f} {cold_b / max(warm_b, 1):11.0f}x"
                f" {cold_s:8.2f} {warm_s:6.2f} {cold_s / warm_s:10.0f}x"
            )
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
