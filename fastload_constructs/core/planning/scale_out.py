"""The ways a new replica comes up (fresh node, warm node, warm spare), phase by phase."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from fastload_constructs.core.catalog import GpuInstance
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.node_paths import NodeChoice, fresh_node_phases
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.phases import pod_phases, predict_phases, weight_transfer
from fastload_constructs.core.planning.pull_modes import PullMode
from fastload_constructs.core.planning.serving import StreamSource
from fastload_constructs.core.planning.standby import StandbyPath, standby_path
from fastload_constructs.core.planning.streamer import StreamerSettings, streamer_concurrency

HOURS_PER_DAY = 24


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
    """

    fresh_node: ScaleOutPath
    warm_node: ScaleOutPath
    warm_spare: ScaleOutPath
    warm_spares: int
    spare_gpu_hours_per_day: float
    pull_mode: PullMode = "parallel"  # how the fresh node got the image (core.planning.pull_modes)
    # With standbys (TuningOptions.standbys > 0): waking a sleeping engine (planning/standby.py).
    standby: StandbyPath | None = None

    def as_tuple(self) -> tuple[ScaleOutPath, ...]:
        base = (self.fresh_node, self.warm_node, self.warm_spare)
        if self.standby is None:
            return base
        return (*base, ScaleOutPath("standby", tuple((p.name, p.seconds) for p in self.standby.phases)))


def scale_out_paths(
    model: ModelProfile, instance: GpuInstance, tp: int, streamer: StreamerSettings, opts: TuningOptions
) -> ScaleOutPaths:
    """The three ways a replica starts (see ScaleOutPaths), phase by phase.

    Fresh node: node launch + GPU registration + the image by its pull mode (core.planning.pull_modes:
    plain bytes / 71.5 MB/s, parallel 3.3x faster, lazy 2.6 s + 48 s of on-demand imports, snapshot
    5 s) + the pod: weights streamed from S3 (with the node-local cache: copied from S3 to NVMe first,
    then read locally), compile cold unless the shared compile cache restores it.
    Warm node: the pod only, compile warm, weights from NVMe if the node-local cache is on.
    Warm spare: the pod only, compile warm, weights from NVMe (the placeholder copied them).
    Idle cost of N spares: N x TP GPUs x 24 h GPU-hours a day.
    """
    a = opts.assumptions
    node_local = opts.serving.model_cache == "node-local"
    mode = opts.serving.image_pull_mode
    node = fresh_node_phases(NodeChoice("al2023", mode, image_bytes=opts.image_bytes), a)
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
    return ScaleOutPaths(
        fresh_node=ScaleOutPath("fresh_node", node + fresh_pod),
        warm_node=ScaleOutPath("warm_node", pod_phases(warm)),
        warm_spare=ScaleOutPath("warm_spare", pod_phases(spare)),
        warm_spares=opts.serving.warm_spares,
        spare_gpu_hours_per_day=float(opts.serving.warm_spares * tp * HOURS_PER_DAY),
        pull_mode=mode,
        standby=standby_path(model, instance, tp, opts.serving.standbys) if opts.serving.standbys > 0 else None,
    )
