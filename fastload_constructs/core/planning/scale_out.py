"""The ways a new replica comes up (fresh node, warm node, warm spare, standby), phase by phase.

Each warm path is planned from what the deployment it belongs to leaves on the node, read from the same
`Serving` that renders it (`NodeHolds`): a warm spare leaves the image always, the weights on NVMe only
with `model_cache="node-local"`, and a warm compile cache only with `shared_compile_cache` (restored by
the spare into the host-path cache, or by the pod itself). Nothing is assumed warm that is not deployed.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from fastload_constructs.core.catalog import GpuInstance
from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.engines.phases import PhaseEstimate
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.phases import pod_phases, predict_phases, weight_transfer
from fastload_constructs.core.planning.pull_modes import PullMode, image_phases
from fastload_constructs.core.planning.serving import Serving, StreamSource
from fastload_constructs.core.planning.standby import LAUNCHER_VLLM_VERSION, StandbyPath, standby_path
from fastload_constructs.core.planning.streamer import StreamerSettings, streamer_concurrency

HOURS_PER_DAY = 24


@dataclass(frozen=True)
class NodeHolds:
    """What a node already holds for the model when its pod starts there (what a warm path saves)."""

    image: bool
    weights_on_nvme: bool
    compile_cache_warm: bool

    @property
    def source(self) -> StreamSource:
        """Where the pod's streamer reads the weights from on this node."""
        return "local" if self.weights_on_nvme else "s3"

    @property
    def warmed(self) -> tuple[str, ...]:
        """What is warm, in the names `core.serving.warm_spares` gives a spare's work."""
        return (
            *(("image",) if self.image else ()),
            *(("model",) if self.weights_on_nvme else ()),
            *(("compile-cache",) if self.compile_cache_warm else ()),
        )


def spare_holds(serving: Serving) -> NodeHolds:
    """What a preempted warm spare leaves for the pod (`core.serving.warm_spares` renders the same steps).

    The image always (the spare runs it); the model copy on NVMe only with the node-local cache (the
    spare runs the pod's `stage-model`); the compile cache only with `shared_compile_cache` (the spare
    restores it into the host-path cache, or the pod restores it itself when the cache is not on the node).
    """
    return NodeHolds(
        image=True,
        weights_on_nvme=serving.model_cache == "node-local",
        compile_cache_warm=serving.shared_compile_cache,
    )


def repeat_holds(serving: Serving) -> NodeHolds:
    """What a node that ran the model holds for its next pod: the image, the node-local copy when enabled,
    and the compile cache the last pod wrote into the host-path cache (the server's default)."""
    return NodeHolds(image=True, weights_on_nvme=serving.model_cache == "node-local", compile_cache_warm=True)


def fresh_holds(serving: Serving) -> NodeHolds:
    """A brand-new node: nothing but what the pod restores itself (the shared compile cache)."""
    return NodeHolds(image=False, weights_on_nvme=False, compile_cache_warm=serving.shared_compile_cache)


def deployed_options(opts: TuningOptions) -> TuningOptions:
    """The options the replicas really run with: with standbys every replica runs FMA's launcher image
    (`core.serving.standby`), vLLM `LAUNCHER_VLLM_VERSION`, and gets no shared compile cache restored
    (the cache holds the serving image's artefacts)."""
    serving = opts.serving
    if serving.standbys == 0:
        return opts
    engine = engine_named(serving.engine)
    launcher = dataclasses.replace(
        serving,
        image=f"{engine.stock_repository}:v{LAUNCHER_VLLM_VERSION}",
        engine_release=None,
        shared_compile_cache=False,
    )
    return dataclasses.replace(opts, serving=launcher)


@dataclass(frozen=True)
class ScaleOutPath:
    """One way a new replica comes up: its phases in order and their sum."""

    name: str
    phases: tuple[tuple[str, float], ...]

    @property
    def total_s(self) -> float:
        return sum(seconds for _, seconds in self.phases)

    def seconds(self, phase: str) -> float:
        return next((s for name, s in self.phases if name == phase), 0.0)


@dataclass(frozen=True)
class ScaleOutPaths:
    """Time to serve for the ways a replica can start, and what warm spares (and standbys) cost idle.

    fresh_node: a node is launched for it (node, GPU registration, image pull, then the pod cold,
        or with the shared compile cache / node-local copy where enabled).
    warm_node: a repeat on a node that ran the model (`repeat_holds`).
    warm_spare: the pod on a node a preempted spare prepared (`spare_holds`): the image always, the
        weights and the compile cache only where the model's caches put them there.
    `spare_holds`: what the warm-spare path was planned with.
    """

    fresh_node: ScaleOutPath
    warm_node: ScaleOutPath
    warm_spare: ScaleOutPath
    warm_spares: int
    spare_gpu_hours_per_day: float
    pull_mode: PullMode = "parallel"  # how the fresh node got the image (core.planning.pull_modes)
    # With standbys (TuningOptions.standbys > 0): waking a sleeping engine (planning/standby.py).
    standby: StandbyPath | None = None
    spare_holds: NodeHolds = NodeHolds(image=True, weights_on_nvme=False, compile_cache_warm=False)

    def as_tuple(self) -> tuple[ScaleOutPath, ...]:
        base = (self.fresh_node, self.warm_node, self.warm_spare)
        if self.standby is None:
            return base
        return (*base, ScaleOutPath("standby", tuple((p.name, p.seconds) for p in self.standby.phases)))


@dataclass(frozen=True)
class _Streamers:
    """The streamer settings a pod uses per source (the plan's own when the user fixed the concurrency)."""

    s3: StreamerSettings
    local: StreamerSettings

    def for_source(self, source: StreamSource) -> StreamerSettings:
        return self.local if source == "local" else self.s3


def _streamers(instance: GpuInstance, tp: int, streamer: StreamerSettings, opts: TuningOptions) -> _Streamers:
    if opts.concurrency is not None:
        return _Streamers(streamer, streamer)
    return _Streamers(
        s3=dataclasses.replace(streamer, concurrency=streamer_concurrency(instance, opts, tp, source="s3")),
        local=dataclasses.replace(streamer, concurrency=streamer_concurrency(instance, opts, tp, source="local")),
    )


def pod_on(
    holds: NodeHolds,
    model: ModelProfile,
    instance: GpuInstance,
    tp: int,
    streamer: StreamerSettings,
    opts: TuningOptions,
) -> PhaseEstimate:
    """The pod's phases on a node holding `holds`."""
    streamers = _streamers(instance, tp, streamer, opts)
    source = holds.source
    return predict_phases(
        model,
        instance,
        tp,
        streamers.for_source(source),
        opts,
        source=source,
        warm_compile=holds.compile_cache_warm,
    )


def _fresh_pod(
    model: ModelProfile, instance: GpuInstance, tp: int, streamer: StreamerSettings, opts: TuningOptions
) -> tuple[tuple[str, float], ...]:
    """A pod on a new node: from S3, or (node-local cache) the copy from S3 to NVMe, then from NVMe."""
    holds = fresh_holds(opts.serving)
    if opts.serving.model_cache != "node-local":
        return pod_phases(pod_on(holds, model, instance, tp, streamer, opts))
    s3 = _streamers(instance, tp, streamer, opts).s3
    copy_s, _ = weight_transfer(model, instance, 1, dataclasses.replace(s3, distributed=True), opts, "s3")
    local = dataclasses.replace(holds, weights_on_nvme=True)
    return (("model_copy", copy_s), *pod_phases(pod_on(local, model, instance, tp, streamer, opts)))


def scale_out_paths(
    model: ModelProfile, instance: GpuInstance, tp: int, streamer: StreamerSettings, opts: TuningOptions
) -> ScaleOutPaths:
    """The ways a replica starts (see ScaleOutPaths), phase by phase, for what is deployed.

    Fresh node: node launch + GPU registration + the image by its pull mode (core.planning.pull_modes:
    plain bytes / 71.5 MB/s, parallel 3.3x faster, lazy 2.6 s + 48 s of on-demand imports, snapshot
    5 s) + the pod: weights streamed from S3 (with the node-local cache: copied from S3 to NVMe first,
    then read locally), compile cold unless the shared compile cache restores it.
    Warm node and warm spare: the pod only, on a node holding `repeat_holds` / `spare_holds`.
    With standbys every path runs FMA's launcher release (`deployed_options`).
    Idle cost of N spares: N x TP GPUs x 24 h GPU-hours a day.
    """
    a = opts.assumptions
    deployed = deployed_options(opts)
    serving = deployed.serving
    mode = serving.image_pull_mode
    node = (
        ("node_launch", a.node_launch_s),
        ("gpu_registration", a.gpu_registration_s),
        *image_phases(mode, opts.image_bytes, a),
    )
    spare = spare_holds(serving)
    return ScaleOutPaths(
        fresh_node=ScaleOutPath("fresh_node", node + _fresh_pod(model, instance, tp, streamer, deployed)),
        warm_node=ScaleOutPath(
            "warm_node", pod_phases(pod_on(repeat_holds(serving), model, instance, tp, streamer, deployed))
        ),
        warm_spare=ScaleOutPath("warm_spare", pod_phases(pod_on(spare, model, instance, tp, streamer, deployed))),
        warm_spares=serving.warm_spares,
        spare_gpu_hours_per_day=float(serving.warm_spares * tp * HOURS_PER_DAY),
        pull_mode=mode,
        standby=standby_path(model, instance, tp, serving.standbys) if serving.standbys > 0 else None,
        spare_holds=spare,
    )
