"""Node capacity for every replica, warm spare, standby and one surge pod per model (managed groups, Karpenter limits).

Node capacity: tensor-parallel sizes are powers of two dividing the GPUs of a
node (`tuning.tensor_parallel_candidates`), and first-fit-decreasing packs
item sizes that divide each other perfectly, so the node count for an instance
type is exactly ceil(GPUs needed / GPUs per node). GPUs needed = sum over the
models on that type of (max replicas + 1 surge pod) x TP: a rolling update
(maxSurge 1, maxUnavailable 0) of every model at once - one `cdk deploy`
changing the image does that - still finds a free GPU for each new pod.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from fastload_constructs.core.catalog import GpuInstance, lookup
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, require
from fastload_constructs.core.scaling.autoscaling import Autoscaling, check_autoscaling


@dataclass(frozen=True)
class Workload:
    """Pods of one model on one instance type, for capacity sizing."""

    name: str
    instance_type: str
    tensor_parallel_size: int
    min_replicas: int
    max_replicas: int
    # Placeholder pods of the model's shape (core/serving/warm_spares.py): always there, each holding its GPUs.
    warm_spares: int = 0
    # Sleeping engines (core/serving/standby.py): each keeps TP GPUs free for a waking requester, on the
    # standby node pool, whatever the replica count.
    standbys: int = 0


@dataclass(frozen=True)
class NodeCapacity:
    """Nodes of one instance type: every model's max replicas and warm spares plus one surge pod each."""

    instance: GpuInstance
    peak_gpus: int  # (max replicas + 1 surge) x TP
    baseline_nodes: int
    peak_nodes: int
    # The standby node pool's share (already counted in the node counts above): standbys x TP GPUs.
    standby_gpus: int = 0
    standby_nodes: int = 0

    @property
    def peak_gpu_limit(self) -> int:
        return self.peak_nodes * self.instance.gpu_count


def _check_workload(w: Workload) -> GpuInstance:
    instance = lookup(w.instance_type, f"{w.name}.instanceType")
    tp = w.tensor_parallel_size
    require(
        is_whole_number(tp) and tp >= 1 and instance.gpu_count % tp == 0,
        f"{w.name}.tensorParallelSize",
        tp,
        f"a divisor of the {instance.gpu_count} GPUs of {instance.name}",
    )
    check_autoscaling(Autoscaling(min_replicas=w.min_replicas, max_replicas=w.max_replicas), w.name)
    require(
        is_whole_number(w.warm_spares) and w.warm_spares >= 0,
        f"{w.name}.warmSpares",
        w.warm_spares,
        "a whole number >= 0",
    )
    require(
        is_whole_number(w.standbys) and w.standbys >= 0,
        f"{w.name}.standbys",
        w.standbys,
        "a whole number >= 0",
    )
    return instance


def node_capacity(workloads: Iterable[Workload]) -> dict[str, NodeCapacity]:
    """Instance type -> the node counts that hold every replica plus one surge pod per model."""
    by_type: dict[str, list[Workload]] = {}
    instances: dict[str, GpuInstance] = {}
    for w in workloads:
        instance = _check_workload(w)
        instances[instance.name] = instance
        by_type.setdefault(instance.name, []).append(w)
    require(bool(by_type), "workloads", [], "at least one model")
    out: dict[str, NodeCapacity] = {}
    for name, group in by_type.items():
        g = instances[name].gpu_count
        baseline = sum((w.min_replicas + w.warm_spares) * w.tensor_parallel_size for w in group)
        peak = sum((w.max_replicas + w.warm_spares + 1) * w.tensor_parallel_size for w in group)
        # Standby nodes are a pool of their own (tainted): their GPUs are added, never packed with replicas.
        # A burst that wakes them uses them, so this overcounts the peak by at most the standby GPUs.
        standby_gpus = sum(w.standbys * w.tensor_parallel_size for w in group)
        standby_nodes = math.ceil(standby_gpus / g)
        out[name] = NodeCapacity(
            instance=instances[name],
            peak_gpus=peak + standby_gpus,
            baseline_nodes=math.ceil(baseline / g) + standby_nodes,
            peak_nodes=math.ceil(peak / g) + standby_nodes,
            standby_gpus=standby_gpus,
            standby_nodes=standby_nodes,
        )
    return out


def family_gpu_limits(capacity: dict[str, NodeCapacity]) -> dict[str, int]:
    """GPU family -> the `nvidia.com/gpu` limit of its Karpenter NodePool: the peak nodes of its types."""
    limits: dict[str, int] = {}
    for cap in capacity.values():
        limits[cap.instance.family] = limits.get(cap.instance.family, 0) + cap.peak_gpu_limit
    return limits


GPU_NODE_MODES = ("karpenter", "managed")
DEFAULT_GPU_NODE_MODE = "karpenter"


def check_gpu_node_mode(mode: object, field: str = "gpuNodes") -> str:
    if mode not in GPU_NODE_MODES:
        raise FastloadConfigError(field, mode, "one of " + ", ".join(f'"{m}"' for m in GPU_NODE_MODES))
    return str(mode)
