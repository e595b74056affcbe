#!/usr/bin/env python3
"""Benchmark: getting weights into accelerator memory, and torch.compile cold vs a restored cache.

Measures, on the machine it runs on:

1. the Run:ai streamer (the library vLLM's `--load-format runai_streamer` uses) loading a
   safetensors model of random weights (generated here) into device memory from local disk, at
   several concurrency values;
2. the same from a local S3-compatible server (moto on 127.0.0.1; it answers from Python, so its
   throughput is a floor, not S3's);
3. the safetensors loader (`safetensors.torch.load_file`, what vLLM's default loader wraps) as the
   baseline;
4. host-to-device copy bandwidth from pinned memory (GPU only);
5. torch.compile of one transformer block in a fresh process with an empty Inductor cache, then in
   another fresh process with that cache directory restored (what the shared compile cache does).

Page cache is dropped per file with posix_fadvise(DONTNEED) before every local read, so a
re-read comes from disk. Each measurement runs in its own process. Results (and the machine) are
written to bench/results/gpu_load-<device>.json. On a machine without a GPU it runs on CPU at
small sizes, so it keeps working in CI; the GPU numbers need a GPU machine.

Run: .venv/bin/python bench/gpu_load.py [--mib 64] [--concurrency 1 4 16] [--device auto|cpu|cuda]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

STREAM = r"""
import json, os, sys, time, torch
from runai_model_streamer import SafetensorsStreamer
device, files = sys.argv[1], sys.argv[2:]
start = time.perf_counter(); total = 0
with SafetensorsStreamer() as streamer:
    streamer.stream_files(files)
    for name, tensor in streamer.get_tensors():
        moved = tensor.to(device, non_blocking=False)
        total += moved.numel() * moved.element_size()
if device.startswith("cuda"):
    torch.cuda.synchronize()
print(json.dumps({"seconds": time.perf_counter() - start, "bytes": total}))
"""

SAFETENSORS = r"""
import json, sys, time, torch
from safetensors.torch import load_file
device, files = sys.argv[1], sys.argv[2:]
start = time.perf_counter(); total = 0
for f in files:
    for t in load_file(f, device=device).values():
        total += t.numel() * t.element_size()
if device.startswith("cuda"):
    torch.cuda.synchronize()
print(json.dumps({"seconds": time.perf_counter() - start, "bytes": total}))
"""

H2D = r"""
import json, sys, time, torch
n = int(sys.argv[1])
host = torch.empty(n, dtype=torch.uint8).pin_memory()
dev = torch.empty(n, dtype=torch.uint8, device="cuda")
dev.copy_(host); torch.cuda.synchronize()
start = time.perf_counter()
for _ in range(5):
    dev.copy_(host, non_blocking=True)
torch.cuda.synchronize()
print(json.dumps({"seconds": (time.perf_counter() - start) / 5, "bytes": n}))
"""

COMPILE = r"""
import json, sys, time, torch
device, width = sys.argv[1], int(sys.argv[2])
block = torch.nn.TransformerEncoderLayer(d_model=width, nhead=max(1, width // 64), dim_feedforward=4 * width,
                                         batch_first=True).to(device).eval()
compiled = torch.compile(block)
x = torch.randn(2, 16, width, device=device)
start = time.perf_counter()
with torch.no_grad():
    compiled(x)
if device.startswith("cuda"):
    torch.cuda.synchronize()
print(json.dumps({"seconds": time.perf_counter() - start}))
"""


def _run(code: str, args: list[str], env: dict[str, str] | None = None) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=1800,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def _drop_cache(files: list[Path]) -> None:
    for f in files:
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)  # written pages must be clean before the kernel drops them
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def write_model(folder: Path, mib: int, shards: int) -> list[Path]:
    """Random BF16 weights in `shards` safetensors files, tensors of at most 64 MiB."""
    import torch
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    per_shard = mib * 2**20 // shards
    files = []
    generator = torch.Generator().manual_seed(0)
    for s in range(shards):
        tensors = {}
        left, i = per_shard, 0
        while left > 0:
            nbytes = min(left, 64 * 2**20)
            tensors[f"layer{s}.w{i}"] = torch.randn(nbytes // 2, generator=generator).to(torch.bfloat16)
            left -= nbytes
            i += 1
        path = folder / f"model-{s + 1:05d}-of-{shards:05d}.safetensors"
        save_file(tensors, str(path))
        files.append(path)
    return files


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _s3_rows(files: list[Path], device: str, concurrencies: list[int]) -> list[dict[str, object]]:
    import boto3
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    creds = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    os.environ.update(creds)
    rows = []
    try:
        url = f"http://127.0.0.1:{port}"
        s3 = boto3.client("s3", endpoint_url=url, region_name="us-east-1")
        s3.create_bucket(Bucket="bench")
        for f in files:
            s3.upload_file(str(f), "bench", f"model/{f.name}")
        uris = [f"s3://bench/model/{f.name}" for f in files]
        env = {**creds, "AWS_ENDPOINT_URL": url, "RUNAI_STREAMER_S3_USE_VIRTUAL_ADDRESSING": "0"}
        for c in concurrencies:
            r = _run(STREAM, [device, *uris], {**env, "RUNAI_STREAMER_CONCURRENCY": str(c)})
            rows.append({"what": "streamer, local S3 server", "concurrency": c, **r})
    finally:
        server.stop()
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, help="model size (default: 4096 on a GPU, 64 on CPU)")
    parser.add_argument("--shards", type=int, default=2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    parser.add_argument("--compile-width", type=int, help="transformer block width (default 1024 GPU, 128 CPU)")
    parser.add_argument("--no-s3", action="store_true", help="skip the local S3 server runs")
    parser.add_argument("--out", type=Path, help="results file (default bench/results/gpu_load-<device>.json)")
    args = parser.parse_args(argv)

    import torch

    gpu = torch.cuda.is_available() and args.device != "cpu"
    if args.device == "cuda" and not gpu:
        print("no CUDA device here", file=sys.stderr)
        return 2
    device = "cuda" if gpu else "cpu"
    mib = args.mib or (4096 if gpu else 64)
    width = args.compile_width or (1024 if gpu else 128)
    machine = {
        "device": torch.cuda.get_device_name(0) if gpu else "cpu (no GPU: sizes are small, GPU numbers not measured)",
        "torch": torch.__version__,
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="gpu-load-") as tmp:
        work = Path(tmp)
        files = write_model(work / "model", mib, args.shards)
        names = [str(f) for f in files]
        for c in args.concurrency:
            _drop_cache(files)
            r = _run(STREAM, [device, *names], {"RUNAI_STREAMER_CONCURRENCY": str(c)})
            rows.append({"what": "streamer, local disk", "concurrency": c, **r})
        _drop_cache(files)
        rows.append(
            {"what": "safetensors load_file, local disk", "concurrency": None, **_run(SAFETENSORS, [device, *names])}
        )
        if not args.no_s3:
            rows += _s3_rows(files, device, args.concurrency)
        if gpu:
            rows.append({"what": "host-to-device, pinned", "concurrency": None, **_run(H2D, [str(mib * 2**20)])})
        cache = work / "inductor-cache"
        cold = _run(COMPILE, [device, str(width)], {"TORCHINDUCTOR_CACHE_DIR": str(cache)})
        restored = work / "inductor-cache-restored"
        shutil.copytree(cache, restored)  # as an init container restores an archive
        warm = _run(COMPILE, [device, str(width)], {"TORCHINDUCTOR_CACHE_DIR": str(restored)})
        rows.append({"what": f"torch.compile block d={width}, empty cache", "concurrency": None, **cold})
        rows.append({"what": f"torch.compile block d={width}, restored cache", "concurrency": None, **warm})
    baseline = next(r for r in rows if str(r["what"]).startswith("safetensors"))
    base_rate = float(baseline["bytes"]) / float(baseline["seconds"])  # type: ignore[arg-type]
    print(f"machine: {machine['device']}; model {mib} MiB in {args.shards} files; torch {machine['torch']}")
    print(f"{'measurement':<44} {'conc':>4} {'seconds':>8} {'MB/s':>9} {'vs safetensors':>14}")
    for r in rows:
        mb_s = float(r["bytes"]) / float(r["seconds"]) / 1e6 if "bytes" in r else None  # type: ignore[arg-type]
        ratio = f"{mb_s * 1e6 / base_rate:>13.2f}x" if mb_s is not None else f"{'':>14}"
        rate = f"{mb_s:>9.0f}" if mb_s is not None else f"{'':>9}"
        conc = f"{r['concurrency']:>4}" if r["concurrency"] is not None else f"{'':>4}"
        print(f"{r['what']:<44} {conc} {float(r['seconds']):>8.2f} {rate} {ratio}")  # type: ignore[arg-type]
    print(f"compile: restored cache {cold['seconds'] / warm['seconds']:.1f}x faster than empty")
    out = args.out or RESULTS / f"gpu_load-{'gpu' if gpu else 'cpu'}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps({"machine": machine, "model_mib": mib, "shards": args.shards, "rows": rows}, indent=2) + "\n"
    )
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
