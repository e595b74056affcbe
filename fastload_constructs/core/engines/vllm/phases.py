"""Predicted seconds per start-up phase of a vLLM pod: process, weights, compile, CUDA graphs, server.

`VllmFigures` holds vLLM's own fixed costs and per-unit rates, each with its source; `fastload calibrate`
fits them to your logs (`core.planning.calibration`). The streamer's transfer of the weights is the
planner's (`core.planning.phases`): vLLM adds its own set-up around it.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.core.catalog import GpuInstance
from fastload_constructs.core.engines.phases import EngineFigures, PhaseEstimate, PhaseInputs
from fastload_constructs.core.engines.vllm.releases import (
    ReleaseFamily,
    captured_graphs,
    default_capture_sizes,
    release_family,
)
from fastload_constructs.core.model import ModelProfile, estimated_layers


@dataclass(frozen=True)
class VllmFigures(EngineFigures):
    """vLLM's fixed costs and per-unit rates, each from a cited source."""

    # --- fixed costs ---------------------------------------------------------------------------
    # Container start to the weights starting to load: Python imports, config, engine and worker
    # spawn, distributed init. vLLM 0.34 log (tests/fixtures/vllm_logs/cold_v0.34_s3_tp1.log): 16 s
    # from the first line to "Loading model", plus imports before the first line; vllm issue #20264
    # reports ~30 s it cannot find in its log. 25 s.
    process_start_s: float = 25.0
    # vLLM's own work around the stream (allocating the model, post-processing weights): "Model
    # loading took 0.90 s" for "Loading weights took 0.69 s" (vllm issue #20264); 31.73 s for a
    # 30.41 s stream (v0.34 log in tests/fixtures). Seconds added to every weight load.
    weight_load_fixed_s: float = 1.5
    # KV-cache profiling and allocation, warmup and the API server: "init engine ... took 34.11 s"
    # less 17 s graphs and 7.51 s compile = 9.6 s (vllm issue #20264); 68.84 - 48.31 - 15 = 5.5 s
    # (v0.34 fixture log). 8 s.
    kv_and_server_s: float = 8.0
    # --- torch.compile (cold) ------------------------------------------------------------------
    # Dynamo traces every decoder layer: 4.60 s for Llama-3-8B's 32 layers (vllm PR #11005 log,
    # 0.144 s/layer) and 10 s on L40S (tensorfuse.io/docs/blogs/reducing_gpu_cold_start, 0.31 s/layer):
    # 0.21 s/layer (geometric mean).
    dynamo_s_per_layer: float = 0.21
    # Inductor compiles the piecewise graphs, shape-generic, so its cost grows with the number of
    # layers, not their width: 14.77 s / 32 layers (PR #11005) and 42 s / 32 layers (tensorfuse):
    # 0.78 s per layer (geometric mean), after a fixed 2 s of setup.
    inductor_s_per_layer: float = 0.78
    inductor_fixed_s: float = 2.0
    # torch.compile on a cache hit ("Directly load the compiled graph(s) ... took X s"): Dynamo's
    # bytecode transform is not cached and runs again, per layer, then the artifact loads. Dynamo on a
    # hit: 11.75 s / 80 layers (Llama-3-70B TP4), 16.74 s / 94 (Qwen3-235B TP8; anyscale/ray-serve-llm-
    # perf-examples replica_initialization/experiment_terminal_output/*-compile-cache.txt, vLLM ~0.11),
    # 5.03 s / 32 (Llama-3-8B, vllm PR #16848): 0.16 s per layer (geometric mean 0.160).
    compile_warm_dynamo_s_per_layer: float = 0.16
    # The artifact load itself: 3.83 s (70B), 5.53 s (235B) (same anyscale logs), 4.19 s (vllm PR #16848,
    # v1 0.8), 5.96 s (AOT load, noonghunna/club-3090 issue #142): 4 s, for the v1 releases and recent ones.
    compile_warm_v1_s: float = 4.0
    compile_warm_recent_s: float = 4.0
    # --- CUDA graphs -----------------------------------------------------------------------------
    # Piecewise capture (v1 and later: one graph per piece between attention ops, every layer):
    # Llama-3-8B's 67 sizes took 15 s (PR #11005, -O3: 0.0070 s per size-layer) and 54 s on L40S
    # (tensorfuse: 0.025): 0.013 s per graph per layer (geometric mean).
    cuda_graph_s_per_graph_layer: float = 0.013
    # A full-model graph per size (vLLM 0.x eager-compile path, and the FULL decode graphs recent
    # releases add): 67 sizes in 10 s for Llama-3-8B without torch.compile (PR #11005): 0.0047.
    cuda_graph_full_s_per_graph_layer: float = 0.0047
    cuda_graph_fixed_s: float = 1.0
    # Hopper and newer GPUs (CUDA capability >= 9.0) capture far faster than the two figures above
    # (GPU unstated, L40S). Measured less the fixed second, over the model above, on H100: 2.8 / 33.1
    # (Llama-3.1-8B, 67 sizes x 0.057 s, vllm PR #22897), 15 / 82.9 (Llama-3-70B TP4, "Graph capturing
    # finished in 16 secs", anyscale/ray-serve-llm-perf-examples llama70b-base.txt) and 8 / 52.9
    # (Qwen3-32B, "CUDA graph capture [9s", llm-d guides/gke-pod-snapshots/benchmark-results/
    # vllm-qwen3-32b-h100.md): 0.13 (geometric mean).
    cuda_graph_hopper_factor: float = 0.13
    # --- calibration (fastload calibrate) --------------------------------------------------------
    # Measured / modelled ratios for the architecture-driven phases (1 = as modelled): cold compile
    # and CUDA-graph capture. (A warm compile is calibrated as compile_warm_*_s itself.)
    compile_scale: float = 1.0
    cuda_graph_scale: float = 1.0


def compile_seconds(model: ModelProfile, release: str, warm: bool, figures: VllmFigures) -> float:
    """torch.compile: none before 0.7; a cache hit costs Dynamo again (per layer, it is not cached)
    plus the artifact load (a release-family constant); a miss costs Dynamo (per layer) + Inductor
    (fixed + per layer), scaled by a calibration factor."""
    family = release_family(release)
    f = figures
    if family == "v0":
        return 0.0
    layers = estimated_layers(model)
    if warm:
        load = f.compile_warm_recent_s if family == "recent" else f.compile_warm_v1_s
        return load + f.compile_warm_dynamo_s_per_layer * layers
    cold = f.dynamo_s_per_layer * layers + f.inductor_fixed_s + f.inductor_s_per_layer * layers
    return cold * f.compile_scale


def capture_sizes(family: ReleaseFamily, chosen: tuple[int, ...] | None, max_num_seqs: int) -> tuple[int, ...]:
    """The CUDA-graph capture sizes: the ones chosen (cudagraph_capture_sizes), else the release's default."""
    return chosen if chosen is not None else default_capture_sizes(family, max_num_seqs)


def is_hopper_or_newer(instance: GpuInstance | None) -> bool:
    """CUDA capability 9.0 or above (H100, H200, B200): the GPUs whose published graph captures are fast."""
    if instance is None:
        return False
    major = instance.cuda_capability.split(".", 1)[0]
    return major.isdigit() and int(major) >= 9


def cuda_graph_seconds(
    model: ModelProfile,
    release: str,
    sizes: tuple[int, ...] | None,
    max_num_seqs: int,
    instance: GpuInstance | None,
    figures: VllmFigures,
) -> float:
    """CUDA-graph capture = fixed + graphs x layers x per-graph-layer cost, piecewise or full; on Hopper
    and newer GPUs the per-graph cost times `cuda_graph_hopper_factor`. `instance` None: GPU not known;
    `sizes` None: the release's default list.

    v0: one full-model graph per size. v1: one piecewise graph set per size. Recent (>= 0.11,
    FULL_AND_PIECEWISE): piecewise for every size plus a full decode graph per size <= max_num_seqs.

    Trade-off of a shorter capture-size list: start-up drops roughly in proportion (54 s -> 7 s for
    Llama-3.1-8B with 1..64, tensorfuse), but a batch larger than the largest size, or between two
    sizes, runs padded to the next size or eagerly: decode throughput at high concurrency falls.
    """
    family = release_family(release)
    captured = capture_sizes(family, sizes, max_num_seqs)
    if not captured:
        return 0.0
    f = figures
    layers = estimated_layers(model)
    full = captured_graphs(family, captured, max_num_seqs) - len(captured) if family == "recent" else 0
    if family == "v0":
        per_size = len(captured) * layers * f.cuda_graph_full_s_per_graph_layer
    else:
        per_size = len(captured) * layers * f.cuda_graph_s_per_graph_layer
    per_full = full * layers * f.cuda_graph_full_s_per_graph_layer
    gpu = f.cuda_graph_hopper_factor if is_hopper_or_newer(instance) else 1.0
    return (f.cuda_graph_fixed_s + gpu * (per_size + per_full)) * f.cuda_graph_scale


def predict(inputs: PhaseInputs, figures: VllmFigures) -> PhaseEstimate:
    """A vLLM pod's phases: the streamer's transfer plus vLLM's set-up, compile, graphs and server."""
    opts = inputs.options
    return PhaseEstimate(
        process_start_s=figures.process_start_s,
        weight_load_s=figures.weight_load_fixed_s + inputs.transfer_s,
        compile_s=compile_seconds(inputs.model, inputs.release, inputs.warm_compile, figures),
        cuda_graph_s=cuda_graph_seconds(
            inputs.model, inputs.release, opts.cudagraph_capture_sizes, opts.max_num_seqs, inputs.instance, figures
        ),
        kv_and_server_s=figures.kv_and_server_s,
        load_throughput_mb_s=inputs.transfer_mb_s,
    )


def note(inputs: PhaseInputs, predicted: PhaseEstimate) -> str:
    """The plan's line about vLLM's compile and graphs."""
    family = release_family(inputs.release)
    opts = inputs.options
    sizes = capture_sizes(family, opts.cudagraph_capture_sizes, opts.max_num_seqs)
    return (
        f"vLLM {inputs.release} ({family}): torch.compile {'warm' if inputs.warm_compile else 'cold'} "
        f"{predicted.compile_s:.1f} s for {estimated_layers(inputs.model)} layers; "
        f"{captured_graphs(family, sizes, opts.max_num_seqs)} CUDA graphs ({len(sizes)} capture sizes) "
        f"{predicted.cuda_graph_s:.1f} s"
    )
