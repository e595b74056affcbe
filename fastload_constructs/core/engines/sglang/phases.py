"""Predicted seconds per start-up phase of an SGLang pod, from published SGLang measurements.

SGLang starts in this order (0.5.23 `launch_server`): imports and process spawn, weights (through the
Run:ai streamer for an s3:// path: the same library and the same streamer model as vLLM), the KV pool,
CUDA-graph capture (torch.compile, when enabled, runs inside it), then uvicorn and one warmup request.
The figures are SGLang's own, each from a public log or post cited beside it; where none exists the gap
is named.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.core.engines.phases import EngineFigures, PhaseEstimate, PhaseInputs, PhaseSource
from fastload_constructs.core.model import ModelProfile, estimated_layers


@dataclass(frozen=True)
class SglangFigures(EngineFigures):
    """SGLang's fixed costs and per-unit rates, each from a cited public measurement."""

    # Container start to "Load weight begin": Python imports took 21 s from a cold page cache (Fergus Finn,
    # "70x faster cold(ish) starts for SGLang", 2026-04-06, v0.5.10, 8x B200: https://fergusfinn.com/blog/
    # fast-sglang-starts/), and the first log line to "Load weight begin" 4 s (sglang PR 15426's log,
    # v0.5.6, Llama-3.1-8B TP1: 14:17:57 -> 14:18:01, distributed init included). 25 s.
    process_start_s: float = 25.0
    # SGLang's own work around the stream (model construction, weight post-processing): "Load weight end.
    # elapsed=6.21 s" for "Loading weights took 2.69 seconds" (sglang PR 17985's log, v0.5.8, Qwen3 PP2xTP2):
    # 3.5 s. MoE/FP4 post-processing can be far longer (438 s before sglang PR 9162, DeepSeek-V3 nvfp4):
    # not modelled.
    weight_load_fixed_s: float = 3.5
    # Decode CUDA-graph capture per batch size and decoder layer: 37.99 s for 52 sizes of Olmo 3 32B
    # (64 layers; sglang PR 13666's log, v0.5.5, TP1: 0.0114 s) and 9.41 s for 23 sizes of a 14B Qwen2
    # (48 layers; sgl-project/sglang#4257's log, v0.4.3, TP2: 0.0085 s): 0.0099 s (geometric mean).
    cuda_graph_s_per_size_layer: float = 0.0099
    cuda_graph_fixed_s: float = 1.0
    # Batch sizes SGLang captures by default: 52 (1...512) in PR 13666's and PR 11830's logs (v0.5.5); the
    # list shrinks on smaller GPUs (23 sizes in the 0.4.3 logs, 36 in PR 12978's), so 52 is the upper end.
    default_capture_sizes: int = 52
    # torch.compile (--enable-torch-compile, off by default): CUDA-graph capture plus compile took 270 s
    # for DeepSeek-R1 (61 layers) on 8x H20 with --torch-compile-max-bs 48 (sglang PR 9179, 2025-08):
    # 4.4 s per layer, capture included, so an upper bound. An Inductor cache hit: no SGLang measurement
    # found; assumed half the cold cost (Dynamo still traces every compiled batch size, only Inductor's
    # code generation is cached).
    torch_compile_s_per_layer: float = 4.4
    torch_compile_warm_fraction: float = 0.5
    # Capture end -> uvicorn up: 1 s (sgl-project/sglang#2468's log, v0.4.0) and 4 s (PR 11830's, v0.5.5); then
    # one warmup request before "The server is fired up and ready to roll!" (seconds, SGLANG_WARMUP_TIMEOUT;
    # no timed public log of it found): 4 s + 1 s assumed.
    kv_and_server_s: float = 5.0


def torch_compile_seconds(model: ModelProfile, enabled: bool, warm: bool, figures: SglangFigures) -> float:
    """torch.compile: none unless enabled; cold 4.4 s per layer, warm half of it (see SglangFigures)."""
    if not enabled:
        return 0.0
    cold = figures.torch_compile_s_per_layer * estimated_layers(model)
    return cold * figures.torch_compile_warm_fraction if warm else cold


def cuda_graph_seconds(model: ModelProfile, figures: SglangFigures) -> float:
    """Capture = fixed + sizes x layers x per-size-layer cost (decode graphs, SGLang's default list)."""
    f = figures
    return f.cuda_graph_fixed_s + f.default_capture_sizes * estimated_layers(model) * f.cuda_graph_s_per_size_layer


def predict(inputs: PhaseInputs, figures: SglangFigures) -> PhaseEstimate:
    """An SGLang pod's phases: the streamer's transfer (shared model) plus SGLang's own costs."""
    compile_on = inputs.options.sglang_torch_compile
    return PhaseEstimate(
        process_start_s=figures.process_start_s,
        weight_load_s=inputs.transfer_s + figures.weight_load_fixed_s,
        compile_s=torch_compile_seconds(inputs.model, compile_on, inputs.warm_compile, figures),
        cuda_graph_s=cuda_graph_seconds(inputs.model, figures),
        kv_and_server_s=figures.kv_and_server_s,
        load_throughput_mb_s=inputs.transfer_mb_s,
    )


def note(inputs: PhaseInputs, predicted: PhaseEstimate, figures: SglangFigures) -> str:
    """The plan's line about SGLang's compile and graphs, with what it does not model."""
    compile_text = (
        f"torch.compile {'warm' if inputs.warm_compile else 'cold'} {predicted.compile_s:.1f} s"
        if inputs.options.sglang_torch_compile
        else "torch.compile off (SGLang's default)"
    )
    return (
        f"SGLang {inputs.release}: {compile_text}; {figures.default_capture_sizes} CUDA-graph batch sizes "
        f"x {estimated_layers(inputs.model)} layers {predicted.cuda_graph_s:.1f} s (from SGLang logs of 14B-32B "
        "models; no published L4/L40S/A10G figure); "
        "FlashInfer/DeepGEMM JIT and autotune on a cold cache not modelled (86 s of an FP8 MoE's 8x B200 "
        "cold start, Fergus Finn 2026); image size is vLLM's unless --image-gb"
    )


START_SOURCES = ("https://fergusfinn.com/blog/fast-sglang-starts/", "https://github.com/sgl-project/sglang/pull/15426")
GRAPH_SOURCES = (
    "https://github.com/sgl-project/sglang/pull/13666",
    "https://github.com/sgl-project/sglang/issues/4257",
)
SERVER_SOURCES = (
    "https://github.com/sgl-project/sglang/issues/2468",
    "https://github.com/sgl-project/sglang/pull/11830",
)
COMPILE_SOURCES = ("https://github.com/sgl-project/sglang/pull/9179",)


def phase_source(phase: str, *, warm_compile: bool) -> PhaseSource | None:
    """Where SGLang's figure for `phase` comes from (its compile figure is an upper bound either way)."""
    return {
        "process_start": PhaseSource("measured", "imports, engine and worker spawn", START_SOURCES),
        "compile": PhaseSource("measured", "SGLang's torch.compile, per layer (an upper bound)", COMPILE_SOURCES),
        "cuda_graph": PhaseSource("measured", "CUDA-graph capture per batch size and layer", GRAPH_SOURCES),
        "kv_and_server": PhaseSource("measured", "the server's start and warm-up request", SERVER_SOURCES),
    }.get(phase)
