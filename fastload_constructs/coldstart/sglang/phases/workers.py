"""How many GPUs the server ran on (every phase is the slowest rank's), and how many hold one copy of the
weights (a tensor- x pipeline-parallel shard set)."""

from __future__ import annotations

from fastload_constructs.coldstart.sglang.patterns import DP_ATTENTION, PARALLEL_SIZES
from fastload_constructs.coldstart.sglang.scanner import Scan


def _sizes(scan: Scan) -> dict[str, int]:
    return {k: int(v) for k, v in PARALLEL_SIZES.findall(scan.server_args or "")}


def count_workers(scan: Scan) -> tuple[int, str]:
    """(GPUs, where the count came from): tp x pp x dp from server_args when logged, else the distinct rank tags.
    With DP attention the DP ranks are the TP ranks (dp <= tp splits attention only), not more GPUs."""
    sizes = _sizes(scan)
    if "tp_size" in sizes:
        replicas = 1 if DP_ATTENTION.search(scan.server_args or "") else sizes.get("dp_size", 1)
        return sizes["tp_size"] * sizes.get("pp_size", 1) * replicas, "server_args"
    if scan.ranks:
        return len(scan.ranks), "rank prefixes"
    return 1, "no rank prefix"


def shard(rank: str) -> str:
    """A rank tag less what does not split the weights: "DP1 TP3 EP3" -> "TP3" (a DP rank is a replica, or
    with DP attention the TP rank itself; expert ranks live inside the TP group)."""
    return " ".join(tag for tag in rank.split() if tag.startswith(("TP", "PP")))


def shards_per_copy(scan: Scan) -> int:
    """GPUs that hold one copy of the weights between them: tp x pp from server_args, else the distinct
    shard tags the log shows (at least 1)."""
    sizes = _sizes(scan)
    if "tp_size" in sizes:
        return sizes["tp_size"] * sizes.get("pp_size", 1)
    return max(1, len({shard(rank) for rank in scan.ranks}))
