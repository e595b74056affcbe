"""vLLM releases by what their start-up does: torch.compile, CUDA-graph capture sizes, cache hits."""

from __future__ import annotations

from typing import Literal

from fastload_constructs.core.engines.base import release_numbers

ReleaseFamily = Literal["v0", "v1", "recent"]


def release_family(version: object, field: str = "engine_release") -> ReleaseFamily:
    """vLLM releases by what start-up does: "v0" (< 0.7: no torch.compile by default), "v1"
    (0.7-0.10: piecewise compile, warm cache ~8 s, PIECEWISE graphs only), "recent" (>= 0.11:
    FULL_AND_PIECEWISE graphs by default, AOT-loaded warm cache ~2.5 s)."""
    major, minor = release_numbers(version, field, "a vLLM release such as 0.34.0 or v0.8.5")
    if major == 0 and minor < 7:
        return "v0"
    if major == 0 and minor < 11:
        return "v1"
    return "recent"


def default_capture_sizes(family: ReleaseFamily, max_num_seqs: int = 256) -> tuple[int, ...]:
    """vLLM's default cudagraph_capture_sizes.

    >= 0.11 (vllm/config/vllm.py `_set_cudagraph_sizes`): [1, 2, 4] + range(8, 256, 8) +
    range(256, max + 1, 16) with max = min(max_num_seqs x 2, 512): 51 sizes at the default 256 seqs.
    Before (0.6-0.10, `_BATCH_SIZES_TO_CAPTURE`): [1, 2, 4] + range(8, 513, 8) up to max_num_seqs x 2,
    67 sizes by default.
    """
    largest = min(max_num_seqs * 2, 512)
    small = [s for s in (1, 2, 4) if s <= largest]
    if family == "recent":
        sizes = small + list(range(8, min(largest + 1, 256), 8)) + list(range(256, largest + 1, 16))
    else:
        sizes = small + list(range(8, largest + 1, 8))
    return tuple(sizes)


def captured_graphs(family: ReleaseFamily, sizes: tuple[int, ...], max_num_seqs: int) -> int:
    """Graphs vLLM captures: one piecewise graph per size; recent releases' default
    FULL_AND_PIECEWISE mode also captures a full decode graph for every size up to max_num_seqs."""
    if family == "recent":
        return len(sizes) + sum(1 for s in sizes if s <= max_num_seqs)
    return len(sizes)
