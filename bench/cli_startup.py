#!/usr/bin/env python3
"""Benchmark: how long `fastload --help` and `fastload plan` take to start, and what they import.

Runs each command `--repeat` times in a fresh interpreter and prints the median
wall time and which heavy modules were loaded. `--tree DIR` measures another
checkout of the package (e.g. an older commit, for before/after).

Run: .venv/bin/python bench/cli_startup.py [--tree DIR] [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("boto3", "botocore", "tqdm", "matplotlib", "fastload_constructs.coldstart")
PROBE = f"""
import json, sys
from fastload_constructs.cli.main import main
main(sys.argv[1:])
print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]), file=sys.stderr)
"""
COMMANDS = (["--help"], ["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9"], ["stage", "--help"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=ROOT)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    env = {**os.environ, "PYTHONPATH": str(args.tree)}
    print(f"{'command':<48} {'median s':>9}  heavy modules loaded")
    for argv in COMMANDS:
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-c", PROBE, *argv], env=env, cwd=args.tree, capture_output=True, text=True, check=True
            )
            times.append(time.perf_counter() - start)
        loaded = json.loads(done.stderr.strip().splitlines()[-1])
        print(f"{'fastload ' + ' '.join(argv):<48} {statistics.median(times):>9.3f}  {', '.join(loaded) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
