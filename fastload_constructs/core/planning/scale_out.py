"""The ways a new replica comes up (fresh node, warm node, warm spare, buffered node, stopped node), phase by phase."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from fastload_constructs.core.catalog import GpuInstance
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
from fastload_constructs.core.planning.serving import StreamSource
from fastload_constructs.core.planning.standby import StandbyPath, standby_path
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
    warm_node: a repeat on a node that ran the model: image cached, compile cache hit, weights from
        the node-local copy when that is enabled (else S3 again).
    warm_spare: a preempted placeholder already pulled the image, copied the model to NVMe and
        restored the compile cache: only the engine start remains.
    buffered_node: a node Karpenter keeps up and empty for the model (a CapacityBuffer): the image from
        the node's volume, then the pod as on a fresh node.
    stopped_node: a managed node group's warm-pool instance starts, joins and offers its GPU; the image
        from its own volume; then the pod as on a fresh node.
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

    def as_tuple(self) -> tuple[ScaleOutPath, ...]:
        base = tuple(
            p
            for p in (self.fresh_node, self.warm_node, self.warm_spare, self.buffered_node, self.stopped_node)
            if p is not None
        )
        if self.standby is None:
            return base
        return (*base, ScaleOutPath("standby", tuple((p.name, p.seconds) for p in self.standby.phases)))


def scale_out_paths(
    model: ModelProfile, instance: GpuInstance, tp: int, streamer: StreamerSettings, opts: TuningOptions
) -> ScaleOutPaths:
    """The three ways a replica starts (see ScaleOutPaths), phase by phase.

    Fresh node: the node family's launch + GPU registration (LoadAssumptions.node_phases) + the image by its
    pull mode (core.planning.pull_modes: plain bytes / 84.2 MB/s, parallel 1.91x faster, lazy 2.6 s + 48 s of
    on-demand imports, snapshot 5 s with FSR) + the pod: weights streamed from S3 (with the node-local cache:
    copied from S3 to NVMe first, then read locally), compile cold unless the shared compile cache restores it.
    Buffered and stopped nodes: their node phases (core.planning.node_paths), then the fresh node's pod.
    Warm node: the pod only, compile warm, weights from NVMe if the node-local cache is on.
    Warm spare: the pod only, compile warm, weights from NVMe (the placeholder copied them).
    Idle cost of N spares: N x TP GPUs x 24 h GPU-hours a day.
    """
    a = opts.assumptions
    node_local = opts.serving.model_cache == "node-local"
    mode = opts.serving.image_pull_mode
    choice = NodeChoice(opts.serving.ami_family, mode, restore=opts.serving.image_restore, image_bytes=opts.image_bytes)
    node = fresh_node_phases(choice, a)
    local_streamer = dataclasses.replace(streamer, concurrency=streamer_concurrency(instance, opts, tp, source="local"))
    s3_streamer = dataclasses.replace(streamer, concurrency=streamer_concurrency(instance, opts, tp, source="s3"))
    if opts.concurrency is not None:
        local_streamer = s3_streamer = streamer
    cold = predict_phases(
        model, instance, tp, s3_streamer, opts, source="s3", warm_compile=opts.serving.shared_compile_cache
    )
    fresh_pod = pod_phases(cold)
    if node_local:
        copy_s, _ = weight_transfer(model, instance, 1, dataclasses.replace(s3_streamer, distributed=True), opts, "s3")
        local = predict_phases(
            model, instance, tp, local_streamer, opts, source="local", warm_compile=opts.serving.shared_compile_cache
        )
        fresh_pod = (("model_copy", copy_s), *pod_phases(local))
    warm_source: StreamSource = "local" if node_local else "s3"
    warm_streamer = local_streamer if warm_source == "local" else s3_streamer
    warm = predict_phases(model, instance, tp, warm_streamer, opts, source=warm_source, warm_compile=True)
    spare = predict_phases(model, instance, tp, local_streamer, opts, source="local", warm_compile=True)
    buffered = opts.serving.buffered_nodes
    return ScaleOutPaths(
        fresh_node=ScaleOutPath("fresh_node", node + fresh_pod),
        warm_node=ScaleOutPath("warm_node", pod_phases(warm)),
        warm_spare=ScaleOutPath("warm_spare", pod_phases(spare)),
        warm_spares=opts.serving.warm_spares,
        spare_gpu_hours_per_day=float(opts.serving.warm_spares * tp * HOURS_PER_DAY),
        pull_mode=mode,
        standby=standby_path(model, instance, tp, opts.serving.standbys) if opts.serving.standbys > 0 else None,
        buffered_node=ScaleOutPath("buffered_node", buffered_node_phases(choice, a) + fresh_pod),
        stopped_node=ScaleOutPath("stopped_node", stopped_node_phases(choice, a) + fresh_pod),
        ami_family=opts.serving.ami_family,
        restore_mode=opts.serving.image_restore,
        buffered_nodes=buffered,
        # A buffered node holds a whole node of the model's type; its pods fill it tp GPUs at a time.
        buffered_idle=buffered_idle(buffered, instance.gpu_count),
    )
