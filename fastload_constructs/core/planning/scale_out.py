"""The ways a new replica comes up (fresh node, warm node, warm spare, buffered node, stopped node, standby),
phase by phase.

Each warm path is planned from what the deployment it belongs to leaves on the node, read from the same
`Serving` that renders it (`NodeHolds`): a warm spare leaves the image always, the weights on NVMe only
with `model_cache="node-local"`, and a warm compile cache only with `shared_compile_cache` (restored by
the spare into the host-path cache, or by the pod itself). Nothing is assumed warm that is not deployed.
The node-side phases (fresh, buffered and stopped nodes, per AMI family and image restore) are
`core.planning.node_paths`'.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from fastload_constructs.core.catalog import GpuInstance
from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.engines.phases import PhaseEstimate
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.node_paths import (
    IdleCost,
    NodeChoice,
    buffered_idle,
    buffered_node_phases,
    fresh_node_phases,
    stopped_node_phases,
)
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.phases import pod_phases, predict_phases, weight_transfer
from fastload_constructs.core.planning.pull_modes import PullMode
from fastload_constructs.core.planning.serving import Serving, StreamSource
from fastload_constructs.core.planning.standby import LAUNCHER_VLLM_VERSION, StandbyPath, standby_path
from fastload_constructs.core.planning.streamer import StreamerSettings, streamer_concurrency

HOURS_PER_DAY = 24
# The order a table lists the phases of every path in: the node's, the image's, the pod's.
PHASE_ORDER = (
    "node_launch",
    "node_start",
    "gpu_registration",
    "image_pull",
    "lazy_imports",
    "model_copy",
    "process_start",
    "weight_load",
    "compile",
    "cuda_graph",
    "kv_and_server",
)


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
    buffered_node: a node Karpenter keeps up and empty for the model (a CapacityBuffer): the image from
        the node's volume, then the pod as on a fresh node.
    stopped_node: a managed node group's warm-pool instance starts, joins and offers its GPU; the image
        from its own volume; then the pod as on a fresh node.
    `spare_holds`: what the warm-spare path was planned with.
    (core.planning.node_paths has the node-side phases and their sources.)
    """

    fresh_node: ScaleOutPath
    warm_node: ScaleOutPath
    warm_spare: ScaleOutPath
    warm_spares: int
    spare_gpu_hours_per_day: float
    pull_mode: PullMode = "snapshot"  # how the fresh node got the image (core.planning.pull_modes)
    # With standbys (TuningOptions.standbys > 0): waking a sleeping engine (planning/standby.py).
    standby: StandbyPath | None = None
    buffered_node: ScaleOutPath | None = None
    stopped_node: ScaleOutPath | None = None
    ami_family: str = "bottlerocket"  # the nodes' OS the node phases are of (core.cluster.ami_family)
    restore_mode: str = "fsr"  # with the snapshot pull mode, how its volume loads
    buffered_nodes: int = 0
    buffered_idle: IdleCost = dataclasses.field(default_factory=IdleCost)
    spare_holds: NodeHolds = NodeHolds(image=True, weights_on_nvme=False, compile_cache_warm=False)

    def as_tuple(self) -> tuple[ScaleOutPath, ...]:
        base = tuple(
            p
            for p in (self.fresh_node, self.warm_node, self.warm_spare, self.buffered_node, self.stopped_node)
            if p is not None
        )
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

    Fresh node: the node family's launch + GPU registration (LoadAssumptions.node_phases) + the image by its
    pull mode (core.planning.pull_modes: plain bytes / 84.2 MB/s, parallel 1.91x faster, lazy 2.6 s + 48 s of
    on-demand imports, snapshot 5 s with FSR) + the pod: weights streamed from S3 (with the node-local cache:
    copied from S3 to NVMe first, then read locally), compile cold unless the shared compile cache restores it.
    Buffered and stopped nodes: their node phases (core.planning.node_paths), then the fresh node's pod.
    Warm node and warm spare: the pod only, on a node holding `repeat_holds` / `spare_holds`.
    With standbys every path runs FMA's launcher release (`deployed_options`).
    Idle cost of N spares: N x TP GPUs x 24 h GPU-hours a day.
    """
    a = opts.assumptions
    deployed = deployed_options(opts)
    serving = deployed.serving
    mode = serving.image_pull_mode
    choice = NodeChoice(serving.ami_family, mode, restore=serving.image_restore, image_bytes=opts.image_bytes)
    fresh_pod = _fresh_pod(model, instance, tp, streamer, deployed)
    spare = spare_holds(serving)
    buffered = serving.buffered_nodes
    return ScaleOutPaths(
        fresh_node=ScaleOutPath("fresh_node", fresh_node_phases(choice, a) + fresh_pod),
        warm_node=ScaleOutPath(
            "warm_node", pod_phases(pod_on(repeat_holds(serving), model, instance, tp, streamer, deployed))
        ),
        warm_spare=ScaleOutPath("warm_spare", pod_phases(pod_on(spare, model, instance, tp, streamer, deployed))),
        warm_spares=serving.warm_spares,
        spare_gpu_hours_per_day=float(serving.warm_spares * tp * HOURS_PER_DAY),
        pull_mode=mode,
        standby=standby_path(model, instance, tp, serving.standbys) if serving.standbys > 0 else None,
        spare_holds=spare,
        buffered_node=ScaleOutPath("buffered_node", buffered_node_phases(choice, a) + fresh_pod),
        stopped_node=ScaleOutPath("stopped_node", stopped_node_phases(choice, a) + fresh_pod),
        ami_family=serving.ami_family,
        restore_mode=serving.image_restore,
        buffered_nodes=buffered,
        # A buffered node holds a whole node of the model's type; its pods fill it tp GPUs at a time.
        buffered_idle=buffered_idle(buffered, instance.gpu_count),
    )
