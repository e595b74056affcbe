"""The planner: (ModelProfile, instance type, TuningOptions) -> ServingPlan.

Every decision a construct or chart needs about *how* to run a model is made
here and in its sibling modules, in plain typed Python, so it can be tested
without CDK and read in one place. The formulas and their sources sit next to
each decision (`assumptions`, `fit`, `streamer`, `phases`, `scale_out`); the
prose a user reads about them is written by `explain`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from fastload_constructs.core.catalog import GIB, GpuInstance, lookup
from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.engines.phases import DeployedCapture, PhaseEstimate
from fastload_constructs.core.errors import require
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.explain import assumption_notes
from fastload_constructs.core.planning.fit import KvFit, choose_tensor_parallel, kv_fit
from fastload_constructs.core.planning.options import DEFAULT_RUNTIME_OVERHEAD_BYTES, KvCacheDtype, TuningOptions
from fastload_constructs.core.planning.phases import phase_inputs, predict_phases
from fastload_constructs.core.planning.scale_out import ScaleOutPaths, scale_out_paths
from fastload_constructs.core.planning.serving import Serving, StreamSource
from fastload_constructs.core.planning.streamer import StreamerSettings, streamer_concurrency, streamer_memory_limit


@dataclass(frozen=True)
class StartupProbe:
    """A startupProbe whose period x failures covers the predicted start-up."""

    period_seconds: int
    failure_threshold: int

    @property
    def budget_seconds(self) -> int:
        return self.period_seconds * self.failure_threshold


@dataclass(frozen=True)
class ServingPlan:
    """Every decision needed to run one model on one instance type."""

    instance: GpuInstance
    model: ModelProfile
    tensor_parallel_size: int
    gpu_memory_utilization: float
    streamer: StreamerSettings
    predicted: PhaseEstimate
    startup_probe: StartupProbe
    shm_bytes: int
    pod_memory_bytes: int
    pod_cpu: int
    assumptions: tuple[str, ...]
    scale_out_paths: ScaleOutPaths | None = None
    kv_fit: KvFit | None = None
    # Passed to vLLM only when the user set them (--max-model-len, --compilation-config, --max-num-seqs).
    max_model_len: int | None = None
    cudagraph_capture_sizes: tuple[int, ...] | None = None
    max_num_seqs: int | None = None
    # The CUDA graphs the pod captures as planned (the sizes deployed, chosen or the engine's default;
    # None where the engine's plan names none).
    capture: DeployedCapture | None = None
    kv_cache_dtype: KvCacheDtype = "auto"  # passed as --kv-cache-dtype when not "auto"
    # How the model is served (image and so the vLLM release, model cache, shared compile cache, warm
    # spares, image pull): what the plan was made for, and what charts and constructs apply.
    serving: Serving = field(default_factory=Serving)
    sglang_torch_compile: bool = False  # SGLang's --enable-torch-compile (Serving(engine="sglang") only)

    @property
    def source(self) -> StreamSource:
        """Where the serving pod streams weights from."""
        return self.serving.stream_source

    @property
    def engine_version(self) -> str:
        """The engine release planned for (the serving image's, or `Serving.engine_release`)."""
        return self.serving.engine_version

    @property
    def engine(self) -> str:
        """Which server the pods run (`core.engines`): the serving choice's."""
        return self.serving.engine

    @property
    def runtime_overhead_bytes(self) -> int:
        """GPU memory per rank the fit kept for activations, non-torch memory and CUDA graphs (the KV fit's,
        else the default `TuningOptions.runtime_overhead_bytes`)."""
        return self.kv_fit.overhead_bytes if self.kv_fit is not None else DEFAULT_RUNTIME_OVERHEAD_BYTES


def startup_probe(predicted: PhaseEstimate, opts: TuningOptions) -> StartupProbe:
    """Failures x period >= predicted total x safety factor (and >= the floor)."""
    budget = max(opts.min_startup_budget_seconds, math.ceil(predicted.total_s * opts.probe_safety_factor))
    return StartupProbe(
        period_seconds=opts.probe_period_seconds,
        failure_threshold=math.ceil(budget / opts.probe_period_seconds),
    )


def shm_bytes(instance: GpuInstance, tp: int) -> int:
    """/dev/shm for NCCL and vLLM's worker queues: 2 GiB per rank, at most a quarter of the pod's RAM."""
    return int(min(2 * GIB * tp, instance.memory_bytes * tp / instance.gpu_count / 4))


def pod_memory_bytes(instance: GpuInstance, tp: int) -> int:
    """Memory for a pod of `tp` GPUs: its GPU share of what the node can allocate.

    A node allocates less than its nominal RAM: the kernel sees ~3% less, and
    kubelet reserves 255 MiB + 11 MiB per pod, eviction 100 MiB, and the
    DaemonSets (CNI, kube-proxy, device plugin, Pod Identity agent, storage)
    request some more. Keeping max(3 GiB, 10%) off the top lets a full-node
    pod schedule even on a 16 GiB g5.xlarge.
    """
    reserve = max(3 * GIB, 0.1 * instance.memory_bytes)
    return int((instance.memory_bytes - reserve) * tp / instance.gpu_count)


def plan(model: ModelProfile, instance_type: str | GpuInstance, options: TuningOptions | None = None) -> ServingPlan:
    """Decide how to serve `model` on `instance_type`; raises FastloadConfigError on misfits.

    The inputs checked themselves when built (`ModelProfile`, `TuningOptions`); here only that they are
    those, and what needs them together (the instance, the fit).
    """
    require(isinstance(model, ModelProfile), "model", model, "a ModelProfile (e.g. ModelProfile.from_numbers(...))")
    opts = options if options is not None else TuningOptions()
    require(
        isinstance(opts, TuningOptions),
        "options",
        opts,
        "a TuningOptions (a Serving goes inside it: TuningOptions(serving=Serving(...)))",
    )
    instance = instance_type if isinstance(instance_type, GpuInstance) else lookup(instance_type)
    arch = model.architecture
    if arch is not None and opts.max_model_len is not None:
        # vLLM refuses a --max-model-len above the model's max_position_embeddings (unless
        # VLLM_ALLOW_LONG_MAX_MODEL_LEN is set, which risks wrong outputs).
        require(
            opts.max_model_len <= arch.max_position_embeddings,
            "max_model_len",
            opts.max_model_len,
            f"at most the model's max_position_embeddings ({arch.max_position_embeddings})",
        )
    tp = choose_tensor_parallel(model, instance, opts)
    # Unless the options say, the streamer runs distributed where the engine runs it so.
    engine = engine_named(opts.serving.engine)
    streams = engine.streams_distributed(tp, opts.serving.stream_source)
    distributed = streams if opts.distributed is None else bool(opts.distributed)
    streamer = StreamerSettings(
        concurrency=streamer_concurrency(instance, opts, tp),
        memory_limit_bytes=streamer_memory_limit(model, instance, tp, distributed, opts),
        distributed=distributed,
        ranks=tp,
    )
    predicted = predict_phases(model, instance, tp, streamer, opts)
    capture = engine.deployed_capture(phase_inputs(model, instance, tp, streamer, opts))
    paths = scale_out_paths(model, instance, tp, streamer, opts)
    fit = kv_fit(model, instance, tp, opts)
    share = tp / instance.gpu_count
    notes = assumption_notes(model, instance, opts, streamer=streamer, predicted=predicted, paths=paths, fit=fit)
    return ServingPlan(
        instance=instance,
        model=model,
        tensor_parallel_size=tp,
        gpu_memory_utilization=opts.gpu_memory_utilization,
        streamer=streamer,
        predicted=predicted,
        startup_probe=startup_probe(predicted, opts),
        shm_bytes=shm_bytes(instance, tp),
        pod_memory_bytes=pod_memory_bytes(instance, tp),
        pod_cpu=max(1, math.floor(instance.vcpu * 0.9 * share)),
        assumptions=notes,
        scale_out_paths=paths,
        kv_fit=fit,
        max_model_len=opts.max_model_len,
        cudagraph_capture_sizes=opts.cudagraph_capture_sizes,
        max_num_seqs=opts.max_num_seqs,
        capture=capture,
        serving=opts.serving,
        kv_cache_dtype=opts.kv_cache_dtype,
        sglang_torch_compile=opts.sglang_torch_compile,
    )
