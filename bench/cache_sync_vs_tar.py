#!/usr/bin/env python3
"""Benchmark: compile-cache publish and restore (runtime/compile_cache.py) vs `tar` + a plain PUT/GET.

The cache is built from real torch.compile output: a small model is compiled
with the installed torch (Inductor, CPU: generated C++ and Python kernels,
shared objects, FX graph and AOTAutograd cache entries), and that sample is
copied, each copy's files made distinct, until the cache reaches `--mib`.
`--sample DIR` uses an existing cache folder instead (a real vLLM
`torch_compile_cache/` is the best input).

Prints, on one local `rclone serve s3` (127.0.0.1 only):

1. gzip levels 1, 6, 9 on this cache: compression MiB/s, ratio, inflate MiB/s
   (why cache_sync publishes at level 1);
2. publish (stream tar | gzip -1 | multipart upload, then copy into place) vs
   `tar -czf` (gzip -6) then one boto3 upload_file, goal <= 1.3x;
3. restore (GET streamed through SHA-256, gunzip, vetting and extraction in one
   pass, then a rename) vs boto3 download_file then `tar -xzf`, goal <= 1.3x.

Run: .venv/bin/python bench/cache_sync_vs_tar.py [--mib 300] [--repeat 3]
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fastload_constructs.runtime import compile_cache  # noqa: E402
from fastload_constructs.runtime.compile_cache import COMPILE_SUBDIR  # noqa: E402
from tests.s3_server import TEST_ENV, RcloneS3Server  # noqa: E402

COMPILE_SAMPLE = """
import os, sys
os.environ["TORCHINDUCTOR_CACHE_DIR"] = sys.argv[1]
import torch
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(256, 256) for _ in range(4)])
    def forward(self, x):
        for layer in self.layers:
            x = torch.nn.functional.gelu(layer(x)) * torch.sigmoid(x) + x.softmax(-1)
        return torch.nn.functional.layer_norm(x, (256,))
model = torch.compile(M())
for batch in (1, 3, 8, 17):
    model(torch.randn(batch, 256))
"""


def real_sample(scratch: Path) -> Path:
    sample = scratch / "inductor-sample"
    subprocess.run([sys.executable, "-c", COMPILE_SAMPLE, str(sample)], check=True, capture_output=True, timeout=900)
    return sample


def build_cache(sample: Path, root: Path, mib: int) -> tuple[int, int]:
    """Copies of `sample` under root/torch_compile_cache, each file prefixed with its copy number, up to `mib`."""
    files = [p for p in sorted(sample.rglob("*")) if p.is_file() and not p.is_symlink()]
    target, total, count, copy = mib * 1024 * 1024, 0, 0, 0
    while total < target:
        for path in files:
            out = root / COMPILE_SUBDIR / f"copy{copy:04d}" / path.relative_to(sample)
            out.parent.mkdir(parents=True, exist_ok=True)
            data = f"// copy {copy}\n".encode() + path.read_bytes()
            out.write_bytes(data)
            total, count = total + len(data), count + 1
        copy += 1
    return count, total


def levels(root: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        archive.add(root / COMPILE_SUBDIR, arcname=COMPILE_SUBDIR)
    raw = buffer.getvalue()
    print(f"\ngzip level on this cache ({len(raw) / 2**20:.0f} MiB of tar), one core")
    print(f"{'level':>5} {'deflate MiB/s':>14} {'ratio':>6} {'inflate MiB/s':>14}")
    for level in (1, 6, 9):
        start = time.perf_counter()
        packed = zlib.compress(raw, level)
        deflate = time.perf_counter() - start
        start = time.perf_counter()
        zlib.decompress(packed)
        inflate = time.perf_counter() - start
        ratio = len(raw) / len(packed)
        print(f"{level:>5} {len(raw) / deflate / 2**20:>14.0f} {ratio:>6.2f} {len(raw) / inflate / 2**20:>14.0f}")


def timed(step) -> float:
    os.sync()  # the previous step's writes flushed first, so no step pays for another's writeback
    start = time.perf_counter()
    step()
    return time.perf_counter() - start


def report(title: str, ours: list[float], floor: list[float], floor_name: str) -> None:
    a, b = statistics.median(ours), statistics.median(floor)
    verdict = "met" if a / b <= 1.3 else "NOT met"
    print(f"\n{title} (goal <= 1.3x)")
    print(f"  cache_sync      {a:6.2f} s  runs {' '.join(f'{t:.2f}' for t in ours)}")
    print(f"  {floor_name:<15} {b:6.2f} s  runs {' '.join(f'{t:.2f}' for t in floor)}")
    print(f"  ratio {a / b:.2f}x -> {verdict}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", type=Path, help="a compile cache folder to replicate (default: compile one)")
    args = parser.parse_args()
    os.environ.update(TEST_ENV)
    server = RcloneS3Server(etag_hash="xxh3")  # see RcloneS3Server: no hash pass S3 would not make
    server.start()
    try:
        with tempfile.TemporaryDirectory(prefix="fastload-bench-cache-") as tmp:
            scratch = Path(tmp)
            sample = args.sample or real_sample(scratch)
            source = scratch / "node-a"
            count, total = build_cache(sample, source, args.mib)
            print(f"cache: {count} files, {total / 2**20:.0f} MiB (from {sample.name}); server: rclone serve s3")
            levels(source)
            s3 = server.client()
            s3.create_bucket(Bucket="bench")
            publish, tar_put, restore, get_untar = [], [], [], []
            extracted: list[Path] = []
            for run in range(args.repeat):
                key = f"k{run}"
                publish.append(
                    timed(
                        lambda key=key: compile_cache.publish_compile_cache(
                            s3, bucket="bench", prefix="cc", cache_key=key, cache_root=source
                        )
                    )
                )
                archive = scratch / "cache.tgz"

                def tar_and_put(run=run, archive=archive) -> None:
                    subprocess.run(["tar", "-czf", str(archive), "-C", str(source), COMPILE_SUBDIR], check=True)
                    s3.upload_file(str(archive), "bench", f"plain/{run}.tgz")

                tar_put.append(timed(tar_and_put))
                into = scratch / f"node-b{run}"
                # Warm the object on the server (rclone hashes a new object on its first read; S3 would
                # not) with a plain GET, not a restore: see the note on deletions below.
                s3.get_object(Bucket="bench", Key=compile_cache.archive_key("cc", key))["Body"].read()
                s3.get_object(Bucket="bench", Key=f"plain/{run}.tgz")["Body"].read()
                restore.append(
                    timed(
                        lambda key=key, into=into: compile_cache.restore_compile_cache(
                            s3, bucket="bench", prefix="cc", cache_key=key, cache_root=into
                        )
                    )
                )
                plain = scratch / f"plain{run}"
                plain.mkdir()

                def get_and_untar(run=run, archive=archive, plain=plain) -> None:
                    s3.download_file("bench", f"plain/{run}.tgz", str(archive))
                    subprocess.run(["tar", "-xzf", str(archive), "-C", str(plain)], check=True)

                get_untar.append(timed(get_and_untar))
                assert (into / COMPILE_SUBDIR).is_dir() and (plain / COMPILE_SUBDIR).is_dir()
                # Deletions wait until every run is timed: ext4 without a journal (this machine's) does not
                # reuse an inode freed in the last 60 s (360 s while its inode-table block is unwritten) and
                # checks each candidate (`recently_deleted` in fs/ext4/ialloc.c), so a step right after
                # removing 8,000 files pays for the removal (perf: 57% of a file-creating loop's samples).
                extracted += [into, plain]
            for folder in extracted:
                shutil.rmtree(folder)
            report("publish: stream tar|gzip-1|upload + copy", publish, tar_put, "tar -czf + PUT")
            report("restore: GET|sha256|gunzip|vet|extract", restore, get_untar, "GET + tar -xzf")
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
