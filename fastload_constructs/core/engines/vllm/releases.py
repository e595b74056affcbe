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
    0.7-0.10: [1, 2, 4] + range(8, 513, 8) up to max_num_seqs x 2, 67 sizes by default. V0 (< 0.7):
    [1, 2, 4] + multiples of 8 up to the first >= max_num_seqs, 35 at 256.
    """
    if family == "v0":
        # V0: [1, 2, 4] + 8 x i, cut at the first size >= max_num_seqs (0.6.6 config.py:3199): 35 at 256.
        candidates = [1, 2, 4, *range(8, 8 * 1025, 8)]
        cut = next((i for i, s in enumerate(candidates) if s >= max_num_seqs), len(candidates) - 1)
        return tuple(candidates[: cut + 1])
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


# vLLM's default --max-num-seqs (vllm/engine/arg_utils.py, the wheels of each release): 256 before 0.8
# (the V0 engine); 1024 from 0.8 on a GPU of >= 70 GiB (0.8.5 arg_utils.py:1596), and from 0.9 only if it is
# no A100 (`device_memory >= 70 * GiB_bytes and "a100" not in device_name`, 0.9.2 arg_utils.py:1629, 0.12
# :1827); 256 otherwise. 0.30 adds >= 160 GiB -> 1024, which the 70 GiB rule already covers here.
LARGE_GPU_GIB = 70
LARGE_GPU_MAX_NUM_SEQS = 1024
DEFAULT_MAX_NUM_SEQS = 256


def default_max_num_seqs(version: object, gpu_model: str | None, gpu_memory_gib: float | None) -> int:
    """vLLM's own --max-num-seqs for `version` on a GPU (None: not known, 256)."""
    major, minor = release_numbers(version, "engine_release", "a vLLM release such as 0.34.0 or v0.8.5")
    if gpu_memory_gib is None or (major, minor) < (0, 8) or gpu_memory_gib < LARGE_GPU_GIB:
        return DEFAULT_MAX_NUM_SEQS
    if (major, minor) >= (0, 9) and gpu_model is not None and "a100" in gpu_model.lower():
        return DEFAULT_MAX_NUM_SEQS
    return LARGE_GPU_MAX_NUM_SEQS


# torch.compile's AOT cache: a hit loads the whole compiled callable and skips Dynamo. On by default where
# vLLM runs torch >= 2.10 (vllm/envs.py `use_aot_compile`: "1" if is_torch_equal_or_newer("2.10.0")). vLLM
# 0.16.0 still pins torch 2.9.1 (vllm-project/vllm#35462), 0.19.0 pins 2.10 (axolotl-ai-cloud/axolotl
# PR 3582, "use vllm 0.19.0 for torch 2.10.0"): 0.19, the first release known to hit the AOT path.
AOT_COMPILE_SINCE = (0, 19)


def uses_aot_compile(version: object) -> bool:
    """Whether a compile-cache hit of this release loads the AOT artefact (Dynamo skipped)."""
    return release_numbers(version, "engine_release", "a vLLM release such as 0.34.0") >= AOT_COMPILE_SINCE
