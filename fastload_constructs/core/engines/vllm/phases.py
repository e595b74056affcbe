"""Predicted seconds per start-up phase of a vLLM pod: process, weights, compile, CUDA graphs, server.

`VllmFigures` holds vLLM's own fixed costs and per-unit rates. The compile, CUDA-graph and KV figures
are fitted to the published measurements in tests/fixtures/engine_phase_measurements.json (each row
with its public source and independent group) by bench/engine_phase_fits.py, which also reports each
fit's leave-one-source-out error (docs/planning.md); tests/test_engine_phase_fits.py refits them and
fails when a constant here drifts from its fit. `fastload calibrate` fits them to your own logs
(`core.planning.calibration`). The streamer's transfer of the weights is the planner's
(`core.planning.phases`): vLLM adds its own set-up around it.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.core.catalog import GpuInstance, gpu_spec
from fastload_constructs.core.engines.phases import (
    DeployedCapture,
    EngineFigures,
    PhaseEstimate,
    PhaseInputs,
    PhaseSource,
)
from fastload_constructs.core.engines.vllm.releases import (
    ReleaseFamily,
    captured_graphs,
    default_capture_sizes,
    default_max_num_seqs,
    release_family,
    uses_aot_compile,
)
from fastload_constructs.core.model import ModelProfile, estimated_layers

GB = 1e9

# The groups the fitted rows come from (tests/fixtures/engine_phase_measurements.json); `phase_source`
# names, per phase, the ones its figure rests on.
UPB_PROFILER = "https://github.com/upb-cn/vllm-startup-profiler"
ANYSCALE = "https://github.com/anyscale/ray-serve-llm-perf-examples"
DENNISLEE = "https://github.com/dennislee22/vLLM-benchmarking"
START_SOURCES = (DENNISLEE, ANYSCALE, UPB_PROFILER)
COMPILE_COLD_SOURCES = (UPB_PROFILER, ANYSCALE, DENNISLEE, "https://github.com/vllm-project/vllm/pull/11005")
COMPILE_WARM_SOURCES = (
    "https://github.com/vllm-project/vllm/pull/39559",  # from 0.19 a hit loads the AOT artefact
    "https://github.com/noonghunna/club-3090/issues/142",
    UPB_PROFILER,
    ANYSCALE,
)
GRAPH_SOURCES = (
    UPB_PROFILER,
    "https://tensorfuse.io/docs/blogs/reducing_gpu_cold_start",
    "https://github.com/vllm-project/vllm/pull/11005",
)
KV_SOURCES = (UPB_PROFILER, ANYSCALE, DENNISLEE)


@dataclass(frozen=True)
class VllmFigures(EngineFigures):
    """vLLM's fixed costs and per-unit rates, each fitted to or taken from a cited source."""

    # --- fixed costs ---------------------------------------------------------------------------
    # Container start to the weights starting to load: Python imports, config, engine and worker spawn,
    # distributed init. No source times container start to the first log line; the API server's first
    # line to "Starting to load model" took 33-36 s on one A100 and 47-49 s at TP2 (github.com/dennislee22/
    # vLLM-benchmarking log/*.log, 0.10.1.1), engine init to the load 20-21 s at TP4 and 34-35 s at TP8
    # on Ray (github.com/anyscale/ray-serve-llm-perf-examples), the offline engine's bootstrap 7-10 s
    # (github.com/upb-cn/vllm-startup-profiler): 25 s, the middle of the single-node server spans
    # (engine_phase_measurements rows "process_start"; checked against them, not fitted: their spans are
    # not the pod's).
    process_start_s: float = 25.0
    # vLLM's own work around the stream (allocating the model, post-processing weights): "Model
    # loading took 0.90 s" for "Loading weights took 0.69 s" (vllm-project/vllm#20264); 31.73 s for a
    # 30.41 s stream (v0.34 log in tests/fixtures). Seconds added to every weight load.
    weight_load_fixed_s: float = 1.5
    # The profiling run, the KV cache and the warm-up: "init engine (profile, create kv cache, warmup
    # model)" less the same log's whole torch.compile (the cache load included, which 0.9.2-0.10.x leave out
    # of "torch.compile takes X s in total") and graph capture. Seconds per decoder layer: the profiling run
    # is the first to execute every layer's compiled pieces, and the KV cache is allocated per layer; fitted
    # over the rows "kv_and_server" (a constant and a fixed cost plus a per-layer cost left out more
    # sources by more than 35%: docs/planning.md). The API server's own start after it, about 1 s
    # (dennislee22/vLLM-benchmarking log/*.log), is inside the error.
    kv_and_server_s_per_layer: float = 0.155
    # --- torch.compile (cold): Inductor compiles each distinct piece once (identical layers reuse it, so
    # depth adds little) while every TP rank compiles at once on the host's CPUs: fixed x TP^exponent,
    # fitted over the rows "compile_cold" (with a per-layer term added, its fit was 0 s). Across hosts a
    # miss scatters with the CPU, which the plan does not know (docs/planning.md): calibrate it.
    compile_cold_fixed_s: float = 31.0
    compile_cold_tp_exponent: float = 0.5
    # --- torch.compile on a cache hit: Dynamo's bytecode transform is not cached and runs again per
    # layer, then the artefact loads, a piece per layer: fixed + per layer, fitted over the rows
    # "compile_warm" (Dynamo + the load: 0.9.2-0.10.x print the load apart from their total; the fixed
    # cost sits at the fit's bound, 8 s, pulled up by the slowest hosts). From 0.19 (`uses_aot_compile`)
    # a hit loads the AOT artefact and skips Dynamo: "torch.compile takes 1.61 s in total" (vllm PR 39559)
    # and 9.61 s at TP2 on RTX 3090s (noonghunna/club-3090#142): their geometric mean, two rows
    # only. A hit never costs more than a miss.
    compile_warm_fixed_s: float = 8.0
    compile_warm_s_per_layer: float = 0.11
    compile_warm_aot_s: float = 3.93
    # --- CUDA graphs: fixed + graphs x (per graph-layer cost x TP^exponent + weight bytes per GPU / GPU
    # memory bandwidth): each captured graph runs the model once (its warm-up) and records every
    # layer's kernels; ranks add their all-reduces. Fitted over 64 rows (V1 and later) of 6 sources (rows
    # "cuda_graph"); V0's full-model graphs cost `cuda_graph_v0_factor` times the fitted model (the same
    # model, machine and 35 sizes: 9 s on 0.6.0 against 1 s on 0.10.0, upb-cn/vllm-startup-profiler figure 1).
    cuda_graph_fixed_s: float = 1.75
    cuda_graph_s_per_graph_layer: float = 0.0008
    cuda_graph_tp_exponent: float = 0.5
    cuda_graph_v0_factor: float = 3.25
    # --- calibration (fastload calibrate) --------------------------------------------------------
    # Measured / modelled ratios for the architecture-driven phases (1 = as modelled): cold compile
    # and CUDA-graph capture. (A warm compile is calibrated as its fixed costs themselves.)
    compile_scale: float = 1.0
    cuda_graph_scale: float = 1.0


def cold_compile_seconds(figures: VllmFigures, tensor_parallel_size: int = 1) -> float:
    """A compile-cache miss: fixed x TP^exponent, times the calibration factor."""
    f = figures
    ranks: float = tensor_parallel_size**f.compile_cold_tp_exponent
    return f.compile_cold_fixed_s * ranks * f.compile_scale


def warm_compile_seconds(layers: int, aot: bool, figures: VllmFigures, tensor_parallel_size: int = 1) -> float:
    """A compile-cache hit: the AOT load (Dynamo skipped), else Dynamo per layer plus the artefact load;
    never more than a miss (a tiny or deep model's hit costs at most its miss)."""
    f = figures
    hit = f.compile_warm_aot_s if aot else f.compile_warm_fixed_s + f.compile_warm_s_per_layer * layers
    return min(hit, cold_compile_seconds(f, tensor_parallel_size))


def compile_seconds(
    model: ModelProfile, release: str, warm: bool, figures: VllmFigures, tensor_parallel_size: int = 1
) -> float:
    """torch.compile: none before 0.7; a hit or a miss by the release (see the two functions above)."""
    if release_family(release) == "v0":
        return 0.0
    layers = estimated_layers(model)
    if warm:
        return warm_compile_seconds(layers, uses_aot_compile(release), figures, tensor_parallel_size)
    return cold_compile_seconds(figures, tensor_parallel_size)


def kv_and_server_seconds(model: ModelProfile, figures: VllmFigures) -> float:
    """The profiling run, the KV cache and the warm-up: per decoder layer."""
    return figures.kv_and_server_s_per_layer * estimated_layers(model)


def deployed_max_num_seqs(chosen: int | None, release: str, instance: GpuInstance | None) -> int:
    """The --max-num-seqs vLLM runs with: the one chosen, else vLLM's own default for the release and GPU."""
    if chosen is not None:
        return chosen
    if instance is None:
        return default_max_num_seqs(release, None, None)
    return default_max_num_seqs(release, instance.gpu_model, instance.gpu_memory_gib)


def capture_sizes(family: ReleaseFamily, chosen: tuple[int, ...] | None, max_num_seqs: int) -> tuple[int, ...]:
    """The CUDA-graph capture sizes: the ones chosen (cudagraph_capture_sizes), else the release's default
    for `max_num_seqs` (vLLM bounds its default list by it)."""
    return chosen if chosen is not None else default_capture_sizes(family, max_num_seqs)


@dataclass(frozen=True)
class CaptureShape:
    """What a capture costs: graphs, the model's layers and ranks, each rank's weight bytes, its GPU."""

    graphs: int
    layers: int
    tensor_parallel_size: int
    weight_bytes_per_gpu: float
    memory_gb_s: float | None  # None: the GPU is not known, its weight reads are left out
    family: ReleaseFamily


def capture_seconds(shape: CaptureShape, figures: VllmFigures) -> float:
    """fixed + graphs x (per graph-layer x layers x TP^exponent + weight bytes per GPU / memory bandwidth),
    V0 times its factor, times the calibration factor. No graph: no capture."""
    if shape.graphs == 0:
        return 0.0
    f = figures
    ranks: float = shape.tensor_parallel_size**f.cuda_graph_tp_exponent
    record = f.cuda_graph_s_per_graph_layer * shape.layers * ranks
    read = shape.weight_bytes_per_gpu / (shape.memory_gb_s * GB) if shape.memory_gb_s else 0.0
    seconds = f.cuda_graph_fixed_s + shape.graphs * (record + read)
    return seconds * (f.cuda_graph_v0_factor if shape.family == "v0" else 1.0) * f.cuda_graph_scale


def cuda_graph_seconds(
    model: ModelProfile,
    release: str,
    sizes: tuple[int, ...] | None,
    max_num_seqs: int | None,
    instance: GpuInstance | None,
    figures: VllmFigures,
    tensor_parallel_size: int = 1,
) -> float:
    """CUDA-graph capture for `model` on `instance` (None: GPU not known) at `sizes` (None: the release's
    default for the deployed max_num_seqs, None: vLLM's default for the GPU).

    v0: one full-model graph per size. v1: one piecewise graph set per size. Recent (>= 0.11,
    FULL_AND_PIECEWISE): piecewise for every size plus a full decode graph per size <= max_num_seqs.

    Trade-off of a shorter capture-size list: start-up drops roughly in proportion, but a batch larger
    than the largest size, or between two sizes, runs padded to the next size or eagerly: decode
    throughput at high concurrency falls.
    """
    family = release_family(release)
    seqs = deployed_max_num_seqs(max_num_seqs, release, instance)
    captured = capture_sizes(family, sizes, seqs)
    shape = CaptureShape(
        graphs=captured_graphs(family, captured, seqs) if captured else 0,
        layers=estimated_layers(model),
        tensor_parallel_size=tensor_parallel_size,
        weight_bytes_per_gpu=model.total_bytes / tensor_parallel_size,
        memory_gb_s=gpu_spec(instance).memory_gb_s if instance is not None else None,
        family=family,
    )
    return capture_seconds(shape, figures)


def deployed_capture(inputs: PhaseInputs) -> DeployedCapture:
    """The capture sizes the pod runs (the chosen ones, else vLLM's default for the deployed max_num_seqs),
    the graphs they make and that max_num_seqs."""
    family = release_family(inputs.release)
    opts = inputs.options
    seqs = deployed_max_num_seqs(opts.max_num_seqs, inputs.release, inputs.instance)
    sizes = capture_sizes(family, opts.cudagraph_capture_sizes, seqs)
    return DeployedCapture(sizes=sizes, graphs=captured_graphs(family, sizes, seqs) if sizes else 0, max_num_seqs=seqs)


def predict(inputs: PhaseInputs, figures: VllmFigures) -> PhaseEstimate:
    """A vLLM pod's phases: the streamer's transfer plus vLLM's set-up, compile, graphs and server."""
    opts = inputs.options
    return PhaseEstimate(
        process_start_s=figures.process_start_s,
        weight_load_s=figures.weight_load_fixed_s + inputs.transfer_s,
        compile_s=compile_seconds(
            inputs.model, inputs.release, inputs.warm_compile, figures, inputs.tensor_parallel_size
        ),
        cuda_graph_s=cuda_graph_seconds(
            inputs.model,
            inputs.release,
            opts.cudagraph_capture_sizes,
            opts.max_num_seqs,
            inputs.instance,
            figures,
            inputs.tensor_parallel_size,
        ),
        kv_and_server_s=kv_and_server_seconds(inputs.model, figures),
        load_throughput_mb_s=inputs.transfer_mb_s,
    )


def note(inputs: PhaseInputs, predicted: PhaseEstimate) -> str:
    """The plan's line about vLLM's compile and graphs."""
    family = release_family(inputs.release)
    capture = deployed_capture(inputs)
    hit = "AOT " if inputs.warm_compile and uses_aot_compile(inputs.release) else ""
    return (
        f"vLLM {inputs.release} ({family}): torch.compile {hit}{'warm' if inputs.warm_compile else 'cold'} "
        f"{predicted.compile_s:.1f} s for {estimated_layers(inputs.model)} layers; "
        f"{capture.graphs} CUDA graphs ({len(capture.sizes)} capture sizes up to {max(capture.sizes, default=0)}, "
        f"max_num_seqs {capture.max_num_seqs}) {predicted.cuda_graph_s:.1f} s"
    )


def phase_source(phase: str, *, warm_compile: bool) -> PhaseSource | None:
    """Where vLLM's figure for `phase` comes from; `warm_compile`: the compile reads a cache."""
    compile_source = (
        PhaseSource("fitted", "a torch.compile cache hit (the AOT artefact from vLLM 0.19)", COMPILE_WARM_SOURCES)
        if warm_compile
        else PhaseSource(
            "fitted", "torch.compile cold: fixed x TP^exponent, scattering with the host CPU", COMPILE_COLD_SOURCES
        )
    )
    return {
        "process_start": PhaseSource(
            "measured", "imports, engine and worker spawn: the middle of published server spans", START_SOURCES
        ),
        "compile": compile_source,
        "cuda_graph": PhaseSource(
            "fitted", "CUDA-graph capture from graphs, layers, TP and the GPU's bandwidth", GRAPH_SOURCES
        ),
        "kv_and_server": PhaseSource("fitted", "profiling, the KV cache, warm-up, the API server", KV_SOURCES),
    }.get(phase)
