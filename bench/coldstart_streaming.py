#!/usr/bin/env python3
"""Benchmark: the streaming cold-start parser vs holding the whole log.

`fastload coldstart` reads a log line by line and keeps only recognised
start-up lines, stopping at "Application startup complete."; the old way read
the whole file into one string first. This writes a synthetic log of the given
size (the start-up lines of `tests/fixtures/vllm_logs/cold_v0.34_s3_tp1.log`
followed by vLLM's steady-state request lines), then parses it in a fresh
process each way and prints CPU time, wall time and peak memory (ru_maxrss),
with the ratios (CPU time is the fair one on a shared machine). Two shapes:
"ready" (the server got ready, then served for a long time) and "never ready"
(the ready line removed, so every line must be read: the worst case for time;
memory must still stay flat).

Run: .venv/bin/python bench/coldstart_streaming.py [--mib 200 1024]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START = ROOT / "tests" / "fixtures" / "vllm_logs" / "cold_v0.34_s3_tp1.log"
STEADY = (
    '(APIServer pid=1) INFO:     10.0.3.17:51234 - "POST /v1/chat/completions HTTP/1.1" 200 OK\n'
    "(APIServer pid=1) INFO 12-02 17:05:13 [loggers.py:123] Engine 000: Avg prompt throughput: 812.4 tokens/s, "
    "Avg generation throughput: 301.2 tokens/s, Running: 12 reqs, Waiting: 0 reqs, GPU KV cache usage: 41.0%, "
    "Prefix cache hit rate: 62.5%\n"
)

# Each way runs in its own interpreter so ru_maxrss is that parse's peak alone.
RUNNER = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[3])
from fastload_constructs.coldstart.parser import parse_log, parse_stream
path, way = sys.argv[1], sys.argv[2]
began, cpu = time.perf_counter(), time.process_time()
if way == "streaming":
    with open(path, "rb") as f:
        report = parse_stream(f, label="big")
else:  # the previous implementation's input handling: the whole file as one string
    report = parse_log(open(path, encoding="utf-8", errors="replace").read(), label="big")
elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu
print(json.dumps({"s": elapsed, "cpu": cpu, "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "lines_read": report.lines_read, "total": report.total_s}))
"""


def write_log(path: Path, mib: int, ready: bool) -> None:
    start = START.read_text()
    if not ready:
        start = start.replace("Application startup complete.", "Waiting for application startup.")
    target = mib * 2**20
    block = STEADY * 4096
    with path.open("w") as out:
        out.write(start)
        written = len(start)
        while written < target:
            out.write(block)
            written += len(block)


def run(path: Path, way: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, str(path), way, str(ROOT)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, nargs="+", default=[200, 1024])
    args = parser.parse_args()
    baseline = run(START, "streaming")["rss_mib"]
    print(f"interpreter + package baseline: {baseline:.0f} MiB peak (parsing the 3 KiB fixture)")
    print(f"{'log':>10} {'shape':>11} {'way':>10} {'CPU s':>8} {'wall s':>8} {'peak MiB':>9} {'lines read':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        for mib in args.mib:
            for ready in (True, False):
                path = Path(tmp) / f"big_{mib}_{ready}.log"
                write_log(path, mib, ready)
                results = {way: run(path, way) for way in ("streaming", "whole-file")}
                for way, r in results.items():
                    shape = "ready" if ready else "never ready"
                    print(
                        f"{mib:>7} MiB {shape:>11} {way:>10} {r['cpu']:>8.2f} {r['s']:>8.2f} {r['rss_mib']:>9.0f} "
                        f"{r['lines_read']:>11,}"
                    )
                s, w = results["streaming"], results["whole-file"]
                assert s["total"] == w["total"], "both ways must report the same start-up"
                print(
                    f"{'':>22} ratio whole-file/streaming: CPU time {w['cpu'] / max(s['cpu'], 1e-3):.1f}x, "
                    f"memory above baseline {(w['rss_mib'] - baseline) / max(s['rss_mib'] - baseline, 1):.0f}x"
                )
                path.unlink()


if __name__ == "__main__":
    main()
