"""Buffered nodes: GPU nodes Karpenter keeps up and empty, shaped for one model's pod (pure).

A Karpenter CapacityBuffer (`autoscaling.x-k8s.io/v1beta1`, Karpenter 1.14's CapacityBuffer feature gate)
holds room for `replicas` virtual pods shaped like a PodTemplate: "virtual placeholder pods that exist only
in Karpenter's scheduling simulation — they are never created as real Kubernetes pods", and "Empty
consolidation is blocked for nodes hosting buffer capacity" (Karpenter v1.14.1 docs,
concepts/capacitybuffers). So the nodes are launched, booted and offer their GPUs before a pod asks; a new
replica pays only the image (from the node's snapshot-restored volume) and its own start
(`core.planning.node_paths.buffered_node_phases`). When a real pod takes the room, Karpenter launches a new
node to keep the buffer.

The template copies what the server pod is scheduled by (GPUs, CPU and memory requests, the node labels
it requires, the GPU taint it tolerates), so the buffered node is one the model's pod fits on. Unlike a
warm spare (`core.serving.warm_spares`) nothing runs there: no image pull, no model copy, no compile cache.
Idle cost: the node's GPUs all day (`core.planning.node_paths.buffered_idle`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fastload_constructs.core.cluster.karpenter import CapacityBufferSpec
from fastload_constructs.core.naming import GPU_RESOURCE
from fastload_constructs.core.planning.node_paths import check_buffered_nodes
from fastload_constructs.core.serving.server_pod import ServerSpec, Toleration


@dataclass(frozen=True)
class BufferedPod:
    """The PodTemplate a CapacityBuffer reserves room for, and the buffer itself."""

    name: str
    namespace: str
    labels: Mapping[str, str]
    image: str
    gpus: int
    cpu: int
    memory_bytes: int
    node_labels: Mapping[str, str]
    toleration: Toleration
    replicas: int

    @property
    def requests(self) -> dict[str, str]:
        return {"cpu": str(self.cpu), "memory": f"{self.memory_bytes // 1024**2}Mi", GPU_RESOURCE: str(self.gpus)}

    @property
    def buffer(self) -> CapacityBufferSpec:
        return CapacityBufferSpec(pod_template=self.name, replicas=self.replicas)


def buffered_pod(server: ServerSpec, replicas: int) -> BufferedPod:
    """The buffered node's pod shape: the server pod's scheduling, nothing else."""
    check_buffered_nodes(replicas)
    return BufferedPod(
        name=f"{server.name}-buffer",
        namespace=server.namespace,
        labels={**server.labels, "app.kubernetes.io/component": "capacity-buffer"},
        image=server.image,
        gpus=server.gpus,
        cpu=server.cpu,
        memory_bytes=server.memory_bytes,
        node_labels=dict(server.node_labels),
        toleration=server.toleration,
        replicas=replicas,
    )
