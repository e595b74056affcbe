"""What a new replica waits for before its pod starts, per kind of node it lands on (pure).

- fresh node: Karpenter launches one (`LoadAssumptions.node_phases` of the node family: batch, NodeClaim
  launch and boot, then the GPU offered), then the image by its pull mode.
- buffered node: a node Karpenter keeps up and empty for the model's pod shape (a CapacityBuffer,
  `core.cluster.karpenter.CapacityBufferSpec`): no launch, no boot; only the image, which a snapshot-restored
  volume has had time to load (FSR or a provisioned rate), or which is pulled as on a fresh node.
- stopped node: an instance of a managed node group's warm pool (`core.cluster.warm_pool`), booted once and
  stopped; on scale-out it starts, boots and joins again, offers its GPU, and runs the image from its volume.
  No published figure exists for starting a stopped GPU instance: it is planned as the family's boot
  (launched -> registered) without Karpenter's batch and NodeClaim launch, an upper bound (the EKS user guide:
  pool instances "have already completed the bootup initialization process"). Its idle cost is EBS only.

Idle costs: a buffered node holds its GPUs all day (GPU-hours per day); a stopped node holds only its
volumes (GiB of gp3); Fast Snapshot Restore is billed per snapshot and Availability Zone hour ("DSU-hours":
$0.75 each in us-east-1, AWS whitepaper "How AWS Pricing Works", Amazon EBS).
"""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.core.cluster.image_cache import RestoreMode
from fastload_constructs.core.errors import whole_number_in
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.pull_modes import PullMode, image_phases

HOURS_PER_DAY = 24
Phases = tuple[tuple[str, float], ...]
# Buffered nodes per model (a Karpenter CapacityBuffer's replicas, core.serving.capacity_buffer).
MAX_BUFFERED_NODES = 100


def check_buffered_nodes(value: object, field: str = "buffered_nodes") -> int:
    return whole_number_in(value, field, 0, MAX_BUFFERED_NODES)


@dataclass(frozen=True)
class NodeChoice:
    """The nodes a model's replicas land on: their OS family, how the image arrives, what is kept warm."""

    ami_family: str
    pull_mode: PullMode
    restore: RestoreMode = "fsr"
    initialization_rate_mibps: int | None = None
    image_bytes: int = 0

    def image(self, a: LoadAssumptions, *, hydrated: bool = False) -> Phases:
        return image_phases(
            self.pull_mode,
            self.image_bytes,
            a,
            restore=self.restore,
            rate_mibps=self.initialization_rate_mibps,
            hydrated=hydrated,
        )


def fresh_node_phases(choice: NodeChoice, a: LoadAssumptions) -> Phases:
    """Karpenter launches a node for the pod: launch, GPU registration, the image."""
    launch, registration = a.node_phases(choice.ami_family)
    return (("node_launch", launch), ("gpu_registration", registration), *choice.image(a))


def buffered_node_phases(choice: NodeChoice, a: LoadAssumptions) -> Phases:
    """A node already up and empty: only the image (loaded already when a snapshot is restored with FSR or a
    provisioned rate; pulled now otherwise)."""
    return choice.image(a, hydrated=True)


def stopped_node_phases(choice: NodeChoice, a: LoadAssumptions) -> Phases:
    """A warm-pool instance starts: its boot and join (the family's launched -> registered), the GPU, the image
    from its own volume (loaded at its first boot, as on a buffered node)."""
    boot = {"bottlerocket": a.bottlerocket_launch_to_ready_s, "al2023": a.al2023_launch_to_ready_s}[choice.ami_family]
    _, registration = a.node_phases(choice.ami_family)
    start = boot if a.node_launch_s is None else a.node_launch_s
    return (("node_start", start), ("gpu_registration", registration), *choice.image(a, hydrated=True))


@dataclass(frozen=True)
class IdleCost:
    """What capacity held warm costs while nothing runs on it, per day."""

    gpu_hours: float = 0.0


def buffered_idle(nodes: int, gpus_per_node: int) -> IdleCost:
    return IdleCost(gpu_hours=float(nodes * gpus_per_node * HOURS_PER_DAY))
