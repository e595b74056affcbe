"""How many GPUs the server ran on: every phase lasts as long as its slowest rank."""

from __future__ import annotations

from fastload_constructs.coldstart.sglang.patterns import PARALLEL_SIZES
from fastload_constructs.coldstart.sglang.scanner import Scan


def count_workers(scan: Scan) -> tuple[int, str]:
    """(GPUs, where the count came from): tp x pp x dp from server_args when logged, else the distinct rank tags."""
    if scan.server_args:
        sizes = {k: int(v) for k, v in PARALLEL_SIZES.findall(scan.server_args)}
        if "tp_size" in sizes:
            count = sizes["tp_size"] * sizes.get("pp_size", 1) * sizes.get("dp_size", 1)
            return count, "server_args"
    if scan.ranks:
        return len(scan.ranks), "rank prefixes"
    return 1, "no rank prefix"
