"""What a user may decide instead of the planner's defaults (`TuningOptions`), and its checks."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Literal

from fastload_constructs.core.catalog import GIB
from fastload_constructs.core.engines import ENGINES, engine_named
from fastload_constructs.core.errors import is_whole_number, one_of, require, whole_number_in
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.serving import Serving

KvCacheDtype = Literal["auto", "fp8"]

# vllm/vllm-openai:v0.34.0, compressed bytes pulled from the registry (assumed: the published EKS
# measurement the fresh-node model uses is "~2 min for an 11.6 GB image"; check the tag's manifest).
DEFAULT_IMAGE_BYTES = 11_600_000_000
# Activations at the profiling batch, non-torch memory and CUDA graphs, per GPU: "PyTorch
# activation peak memory takes 1.96GiB; non_torch_memory takes 0.10GiB" (vllm issue #13144) and
# graphs "took 0.31-0.62 GiB" (vllm logs in issue #20264 and tests/fixtures): 2.5 GiB.
DEFAULT_RUNTIME_OVERHEAD_BYTES = int(2.5 * GIB)
# Bounds that only keep absurd input out (the longest published context is 10M tokens, Llama 4 Scout).
MAX_CONTEXT_TOKENS = 2**24
MAX_KV_SEQUENCES = 2**16


@dataclass(frozen=True)
class TuningOptions:
    """What a user may decide instead of the defaults; None means 'derive it'."""

    tensor_parallel_size: int | None = None
    # SGLang only (Serving(engine="sglang")): --enable-torch-compile, off by default in SGLang; vLLM always compiles.
    sglang_torch_compile: bool = False
    gpu_memory_utilization: float = 0.90
    # When the model's architecture is unknown: share of vLLM's GPU memory kept for activations and
    # KV cache (15% of 0.9 x 45,776 MiB = 5.9 GiB: the 2.5 GiB runtime overhead below plus ~3.4 GiB of
    # KV). With an architecture the KV need for the context is computed instead (see kv_fit).
    kv_cache_reserve_fraction: float = 0.15
    concurrency: int | None = None
    memory_limit_bytes: int | None = None
    distributed: bool | None = None
    # Share of node RAM the streamers of all processes on a node may buffer.
    streamer_ram_fraction: float = 0.5
    probe_period_seconds: int = 10
    probe_safety_factor: float = 2.0
    # Never below what peers ship (60 x 10 s): a prediction that is off by more than the safety
    # factor must still not kill a loading pod.
    min_startup_budget_seconds: int = 600
    compile_cache_warm: bool = False
    assumptions: LoadAssumptions = field(default_factory=LoadAssumptions)
    # --- context length and KV cache (needs model.architecture) ---------------------------------
    # vLLM's --max-model-len; None = the model's max_position_embeddings (vLLM's own default).
    max_model_len: int | None = None
    # Full-length sequences the KV cache must hold at once (vLLM refuses to start below one).
    kv_sequences: int = 1
    kv_cache_dtype: KvCacheDtype = "auto"
    # Per GPU, for activations, non-torch memory and CUDA graphs (DEFAULT_RUNTIME_OVERHEAD_BYTES).
    runtime_overhead_bytes: int = DEFAULT_RUNTIME_OVERHEAD_BYTES
    # --- torch.compile and CUDA graphs ---------------------------------------------------------
    # vLLM's cudagraph_capture_sizes (--compilation-config); None = vLLM's default list (bounded by
    # max_num_seqs).
    cudagraph_capture_sizes: tuple[int, ...] | None = None
    # vLLM's --max-num-seqs: the most sequences a step runs at once; vLLM bounds its default capture sizes
    # by it. None = vLLM's own default for the release and GPU (core.engines.vllm.releases); given, it is
    # passed to vLLM.
    max_num_seqs: int | None = None
    # --- scale-out paths -----------------------------------------------------------------------
    image_bytes: int = DEFAULT_IMAGE_BYTES
    # --- how the model is served: image (and so the vLLM release), model cache, shared compile cache,
    # warm spares, image pull. Recorded on the plan; charts and constructs derive from it.
    serving: Serving = field(default_factory=Serving)


def validate_options(opts: TuningOptions) -> None:
    require(
        isinstance(opts.sglang_torch_compile, bool), "sglang_torch_compile", opts.sglang_torch_compile, "True or False"
    )
    require(
        isinstance(opts.gpu_memory_utilization, (int, float))
        and not isinstance(opts.gpu_memory_utilization, bool)
        and 0 < opts.gpu_memory_utilization <= 1,
        "gpu_memory_utilization",
        opts.gpu_memory_utilization,
        "a number in (0, 1]",
    )
    require(
        0 <= opts.kv_cache_reserve_fraction < 1,
        "kv_cache_reserve_fraction",
        opts.kv_cache_reserve_fraction,
        "a number in [0, 1)",
    )
    require(isinstance(opts.serving, Serving), "serving", opts.serving, "a Serving(image=..., model_cache=...)")
    if opts.concurrency is not None:
        whole_number_in(opts.concurrency, "concurrency", 1, 256)
    if opts.memory_limit_bytes is not None:
        require(
            is_whole_number(opts.memory_limit_bytes) and opts.memory_limit_bytes > 0,
            "memory_limit_bytes",
            opts.memory_limit_bytes,
            "a positive whole number of bytes",
        )
    require(
        0 < opts.streamer_ram_fraction <= 0.8,
        "streamer_ram_fraction",
        opts.streamer_ram_fraction,
        "a number in (0, 0.8]",
    )
    whole_number_in(opts.probe_period_seconds, "probe_period_seconds", 1, 60)
    require(opts.probe_safety_factor >= 1, "probe_safety_factor", opts.probe_safety_factor, "a number >= 1")
    require(
        is_whole_number(opts.min_startup_budget_seconds) and opts.min_startup_budget_seconds > 0,
        "min_startup_budget_seconds",
        opts.min_startup_budget_seconds,
        "a positive whole number",
    )
    if opts.max_model_len is not None:
        require(
            is_whole_number(opts.max_model_len) and 1 <= opts.max_model_len <= MAX_CONTEXT_TOKENS,
            "max_model_len",
            opts.max_model_len,
            f"a whole number of tokens from 1 to {MAX_CONTEXT_TOKENS:,}",
        )
    require(
        is_whole_number(opts.kv_sequences) and 1 <= opts.kv_sequences <= MAX_KV_SEQUENCES,
        "kv_sequences",
        opts.kv_sequences,
        f"a whole number of full-length sequences from 1 to {MAX_KV_SEQUENCES:,}",
    )
    one_of("kv_cache_dtype", opts.kv_cache_dtype, ("auto", "fp8"))
    require(
        is_whole_number(opts.runtime_overhead_bytes) and opts.runtime_overhead_bytes >= 0,
        "runtime_overhead_bytes",
        opts.runtime_overhead_bytes,
        "a whole number of bytes >= 0",
    )
    if opts.cudagraph_capture_sizes is not None:
        sizes = opts.cudagraph_capture_sizes
        require(
            isinstance(sizes, tuple)
            and all(is_whole_number(s) and 1 <= s <= 8192 for s in sizes)
            and list(sizes) == sorted(set(sizes)),
            "cudagraph_capture_sizes",
            sizes,
            "ascending, distinct whole numbers from 1 to 8192 (an empty list captures none)",
        )
    if opts.max_num_seqs is not None:
        whole_number_in(opts.max_num_seqs, "max_num_seqs", 1, 65536)
    require(
        is_whole_number(opts.image_bytes) and opts.image_bytes > 0,
        "image_bytes",
        opts.image_bytes,
        "a positive whole number of bytes",
    )
    _check_engine_knobs(opts)


def _check_engine_knobs(opts: TuningOptions) -> None:
    """A setting only some engines read (their `Engine.tuning_knobs`) keeps its default with any other."""
    engine = engine_named(opts.serving.engine)
    for knob in sorted(frozenset().union(*(e.tuning_knobs for e in ENGINES.values())) - engine.tuning_knobs):
        default = _DEFAULTS[knob].default
        value = getattr(opts, knob)
        owners = " and ".join(e.display_name for e in ENGINES.values() if knob in e.tuning_knobs)
        require(
            value == default,
            knob,
            value,
            f"{default!r} with engine {engine.name!r} ({knob} is {owners}'s; give {engine.display_name} its own "
            f"flags as extra args, e.g. {engine.extra_args_example})",
        )


_DEFAULTS = {f.name: f for f in fields(TuningOptions)}
