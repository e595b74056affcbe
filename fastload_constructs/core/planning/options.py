"""What a user may decide instead of the planner's defaults (`TuningOptions`): each field a `Setting`, checked
when the options are built."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from fastload_constructs.core.catalog import GIB
from fastload_constructs.core.engines import ENGINES, engine_named
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, mention, require
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.assumptions_file import read_assumptions_file
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.settings import (
    Flag,
    boolean,
    check_settings,
    number_in,
    one_of_choices,
    optional,
    positive_whole_number,
    setting,
    settings_of,
    whole_number,
)

KvCacheDtype = Literal["auto", "fp8"]
KV_CACHE_DTYPES: tuple[str, ...] = ("auto", "fp8")

# vllm/vllm-openai:v0.34.0, compressed bytes pulled from the registry (assumed: the published EKS
# measurement the fresh-node model uses is "~2 min for an 11.6 GB image"; check the tag's manifest).
DEFAULT_IMAGE_BYTES = 11_600_000_000
# Activations at the profiling batch, non-torch memory and CUDA graphs, per GPU: "PyTorch
# activation peak memory takes 1.96GiB; non_torch_memory takes 0.10GiB" (vllm-project/vllm#13144) and
# graphs "took 0.31-0.62 GiB" (vllm logs in vllm-project/vllm#20264 and tests/fixtures): 2.5 GiB.
DEFAULT_RUNTIME_OVERHEAD_BYTES = int(2.5 * GIB)
# Bounds that only keep absurd input out (the longest published context is 10M tokens, Llama 4 Scout).
MAX_CONTEXT_TOKENS = 2**24
MAX_KV_SEQUENCES = 2**16
# The image size is typed in GB on the command line; the bound only keeps absurd input out.
MAX_IMAGE_GB = 1000.0
CAPTURE_SIZES_ACCEPTED = (
    "an ascending list of distinct whole numbers from 1 to 8192, e.g. [1, 2, 4, 8, 16, 32] "
    "(an empty list captures none)"
)


def check_capture_sizes(value: Any, name: str) -> tuple[int, ...]:
    """CUDA-graph capture sizes: ascending, distinct, 1 to 8192; a list is kept as a tuple."""
    ok = isinstance(value, (list, tuple)) and all(is_whole_number(s) and 1 <= s <= 8192 for s in value)
    require(ok and list(value) == sorted(set(value)), name, value, CAPTURE_SIZES_ACCEPTED)
    return tuple(value)


def capture_sizes_from_text(text: str, name: str) -> tuple[int, ...] | None:
    """ "1,2,4,8" -> (1, 2, 4, 8); "none" -> () (capture nothing).

    Empty text is refused: an unset shell variable must not silently mean "capture nothing".
    """
    if text.strip().lower() == "none":
        return ()
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise FastloadConfigError(name, text, "comma-separated whole numbers such as 1,2,4,8,16,32, or none") from None


def image_bytes_from_gb(text: str, name: str) -> int:
    """`--image-gb 11.6` -> 11,600,000,000 bytes."""
    try:
        gb: object = float(text)
    except ValueError:
        gb = text
    ok = isinstance(gb, float) and math.isfinite(gb) and 0 < gb <= MAX_IMAGE_GB
    require(ok, name, text.strip(), f"a number of GB above 0 and at most {MAX_IMAGE_GB:,.0f}")
    assert isinstance(gb, float)
    return int(gb * 1e9)


def _assumptions(value: Any, name: str) -> LoadAssumptions:
    require(isinstance(value, LoadAssumptions), name, value, "a LoadAssumptions (`fastload calibrate` writes one)")
    return value  # type: ignore[no-any-return]


def _serving(value: Any, name: str) -> Serving:
    require(isinstance(value, Serving), name, value, "a Serving(image=..., model_cache=...)")
    return value  # type: ignore[no-any-return]


@dataclass(frozen=True)
class TuningOptions:
    """What a user may decide instead of the defaults; None means 'derive it'. Checked when built: an invalid
    TuningOptions cannot exist. Each field is a `core.settings.Setting` (its cdk.json key, its flag)."""

    tensor_parallel_size: int | None = setting(
        check=optional(positive_whole_number("a positive whole number")),
        accepted="a whole number that divides the instance's GPUs",
        doc="Tensor-parallel size (default: the smallest that fits).",
        key="tensorParallelSize",
        flag="--tp",
        kind=int,
    )
    """GPUs one pod shards the model over (vLLM `--tensor-parallel-size`); it must divide the instance's GPU count.
    Default: None, the smallest power of two whose per-GPU memory fits."""
    sglang_torch_compile: bool = setting(
        False,
        check=boolean,
        accepted="true or false",
        doc="SGLang --enable-torch-compile.",
        flag="--sglang-torch-compile",
        kind=bool,
    )
    """SGLang only (`Serving(engine="sglang")`): `--enable-torch-compile`, off by default in SGLang; vLLM always
    compiles. Default: False."""
    gpu_memory_utilization: float = setting(
        0.90,
        check=number_in("a number above 0 and at most 1, e.g. 0.9", 0, 1),
        accepted="a number above 0 and at most 1",
        doc="The engine's share of GPU memory.",
        key="gpuMemoryUtilization",
        flag="--gpu-memory-utilization",
        kind=float,
    )
    """Share of each GPU's memory the engine may take (vLLM `--gpu-memory-utilization`, SGLang
    `--mem-fraction-static`). Default: 0.90."""
    kv_cache_reserve_fraction: float = setting(
        0.15, check=number_in("a number in [0, 1)", 0, 1, low_open=False, high_open=True), accepted="a number in [0, 1)"
    )
    """When the model's architecture is unknown: share of the engine's GPU memory kept for activations and KV
    cache (15% of 0.9 x 45,776 MiB = 5.9 GiB: the 2.5 GiB runtime overhead plus ~3.4 GiB of KV). With an
    architecture the KV need for the context is computed instead (`fit.kv_fit`). Default: 0.15."""
    concurrency: int | None = setting(
        check=optional(whole_number(1, 256)),
        accepted="a whole number from 1 to 256",
        doc="Streamer concurrency per process (default: derived).",
        flag="--concurrency",
        kind=int,
    )
    """Run:ai streamer threads per process (`RUNAI_STREAMER_CONCURRENCY`). Default: None, derived from the
    instance's network and the TP size (`streamer.streamer_concurrency`)."""
    memory_limit_bytes: int | None = setting(
        check=optional(positive_whole_number("a positive whole number of bytes")),
        accepted="a positive whole number of bytes",
        doc="Streamer buffer bytes per process.",
        flag="--memory-limit",
        kind=int,
    )
    """The streamer's CPU buffer per process (`RUNAI_STREAMER_MEMORY_LIMIT`); at least the largest tensor.
    Default: None, derived from node RAM (`streamer.streamer_memory_limit`)."""
    distributed: bool | None = setting(check=optional(boolean), accepted="true, false or None")
    """Whether the TP ranks stream their shares in parallel (the streamer's distributed mode). Default: None,
    the engine's choice (with TP > 1)."""
    streamer_ram_fraction: float = setting(0.5, check=number_in("a number in (0, 0.8]", 0, 0.8), accepted="(0, 0.8]")
    """Share of node RAM the streamers of all processes on a node may buffer. Default: 0.5."""
    probe_period_seconds: int = setting(10, check=whole_number(1, 60), accepted="a whole number from 1 to 60")
    """The startup probe's period. Default: 10."""
    probe_safety_factor: float = setting(
        2.0, check=number_in("a number from 1 to 1,000", 1, 1000, low_open=False), accepted="a number from 1 to 1,000"
    )
    """The startup probe's budget over the predicted start-up: a prediction off by less never kills a loading
    pod. Default: 2.0."""
    min_startup_budget_seconds: int = setting(
        600, check=positive_whole_number("a positive whole number"), accepted="a positive whole number"
    )
    """The startup probe's budget never falls below this: never below what peers ship (60 x 10 s), so a
    prediction that is off by more than the safety factor must still not kill a loading pod. Default: 600."""
    compile_cache_warm: bool = setting(
        False,
        check=boolean,
        accepted="true or false",
        doc="Predict with a compile-cache hit.",
        flag="--warm-compile-cache",
        kind=bool,
    )
    """Predict the start-up with torch.compile's cache already on the node (a warm node, or a shared cache
    restored). Default: False."""
    assumptions: LoadAssumptions = setting(
        check=_assumptions,
        accepted="an assumptions file written by `fastload calibrate`",
        doc="Assumptions file from `fastload calibrate`.",
        flag=Flag("--assumptions", read=read_assumptions_file),
        default_factory=LoadAssumptions,
    )
    """The figures the predictions use (throughputs, fixed costs), each with its source; `fastload calibrate`
    fits them to your own launches. Default: the cited `LoadAssumptions()`."""
    # --- context length and KV cache (needs model.architecture) ---------------------------------
    max_model_len: int | None = setting(
        check=optional(
            whole_number(1, MAX_CONTEXT_TOKENS, f"a whole number of tokens from 1 to {MAX_CONTEXT_TOKENS:,}")
        ),
        accepted=f"a whole number of tokens from 1 to {MAX_CONTEXT_TOKENS:,}",
        doc="vLLM --max-model-len (default: the model's context).",
        key="maxModelLen",
        flag="--max-model-len",
        kind=int,
    )
    """vLLM's `--max-model-len`. Default: None, the model's `max_position_embeddings` (vLLM's own default)."""
    kv_sequences: int = setting(
        1,
        check=whole_number(
            1, MAX_KV_SEQUENCES, f"a whole number of full-length sequences from 1 to {MAX_KV_SEQUENCES:,}"
        ),
        accepted=f"a whole number from 1 to {MAX_KV_SEQUENCES:,}",
        doc="Full-length sequences the KV cache must hold.",
        flag="--kv-sequences",
        kind=int,
    )
    """Full-length sequences the KV cache must hold at once (vLLM refuses to start below one). Default: 1."""
    kv_cache_dtype: KvCacheDtype = setting(
        "auto",
        check=one_of_choices(KV_CACHE_DTYPES),
        accepted="auto or fp8",
        doc="vLLM --kv-cache-dtype (fp8 halves the KV cache).",
        key="kvCacheDtype",
        flag="--kv-cache-dtype",
        choices=KV_CACHE_DTYPES,
    )
    """vLLM's `--kv-cache-dtype`: `auto` follows the model's dtype, `fp8` takes one byte per element. Default:
    `auto`."""
    runtime_overhead_bytes: int = setting(
        DEFAULT_RUNTIME_OVERHEAD_BYTES,
        check=whole_number(0, 2**50, "a whole number of bytes >= 0"),
        accepted="a whole number of bytes >= 0",
    )
    """GPU memory per rank for activations, non-torch memory and CUDA graphs. Default:
    `DEFAULT_RUNTIME_OVERHEAD_BYTES` (2.5 GiB)."""
    # --- torch.compile and CUDA graphs ---------------------------------------------------------
    cudagraph_capture_sizes: tuple[int, ...] | None = setting(
        check=optional(check_capture_sizes),
        accepted="an ascending list of distinct whole numbers from 1 to 8192 ([] captures none)",
        doc="CUDA-graph capture sizes, e.g. 1,2,4,8,16,32 (default: vLLM's, bounded by max_num_seqs).",
        key="cudaGraphCaptureSizes",
        flag=Flag("--capture-sizes", read=capture_sizes_from_text),
        kind=list,
    )
    """vLLM's `cudagraph_capture_sizes` (`--compilation-config`): fewer sizes capture faster and serve large
    batches slower; empty captures none. Default: None, vLLM's default list (bounded by `max_num_seqs`)."""
    max_num_seqs: int | None = setting(
        check=optional(whole_number(1, 65536)),
        accepted="a whole number from 1 to 65536",
        doc="vLLM --max-num-seqs: the most sequences a step runs (default: vLLM's for the release and GPU).",
        key="maxNumSeqs",
        flag="--max-num-seqs",
        kind=int,
    )
    """vLLM's `--max-num-seqs`: the most sequences a step runs at once; vLLM bounds its default capture sizes
    by it. Given, it is passed to vLLM. Default: None, vLLM's own default for the release and GPU
    (`core.engines.vllm.releases`)."""
    # --- scale-out paths -----------------------------------------------------------------------
    image_bytes: int = setting(
        DEFAULT_IMAGE_BYTES,
        check=positive_whole_number("a positive whole number of bytes"),
        accepted="a positive whole number of bytes",
        doc="Compressed image size pulled on a fresh node, in GB (default: vllm/vllm-openai:v0.34.0's).",
        flag=Flag("--image-gb", read=image_bytes_from_gb, default=DEFAULT_IMAGE_BYTES / 1e9),
        kind=float,
    )
    """Compressed bytes of the server image a fresh node pulls. Default: `DEFAULT_IMAGE_BYTES` (11.6 GB)."""
    serving: Serving = setting(check=_serving, accepted="a Serving(...)", default_factory=Serving)
    """How the model is served: image (and so the engine release), model cache, shared compile cache, warm
    spares, image pull. Recorded on the plan; charts and constructs derive from it. Default: `Serving()`."""

    def __post_init__(self) -> None:
        check_settings(self)
        self._check_engine_knobs()

    def _check_engine_knobs(self) -> None:
        """A setting only some engines read (their `Engine.tuning_knobs`) keeps its default with any other."""
        engine = engine_named(self.serving.engine)
        for knob in sorted(frozenset().union(*(e.tuning_knobs for e in ENGINES.values())) - engine.tuning_knobs):
            default = _DEFAULTS[knob]
            value = getattr(self, knob)
            owners = " and ".join(e.display_name for e in ENGINES.values() if knob in e.tuning_knobs)
            require(
                value == default,
                knob,
                value,
                f"{default!r} with engine {engine.name!r} ({mention(knob)} is {owners}'s; give "
                f"{engine.display_name} its own flags as extra args, e.g. {engine.extra_args_example})",
            )


_DEFAULTS: dict[str, Any] = {s.name: s.default for s in settings_of(TuningOptions)}
