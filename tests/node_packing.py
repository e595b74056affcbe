"""Whether pods fit on nodes: the check the capacity tests hold node counts against."""

from __future__ import annotations

from collections.abc import Sequence


def pack_pods(pod_gpus: Sequence[int], gpus_per_node: int, nodes: int) -> bool:
    """First-fit decreasing: do pods needing `pod_gpus` GPUs each fit on `nodes` nodes of `gpus_per_node`?"""
    free = [gpus_per_node] * nodes
    for need in sorted(pod_gpus, reverse=True):
        for i, left in enumerate(free):
            if left >= need:
                free[i] = left - need
                break
        else:
            return False
    return True
