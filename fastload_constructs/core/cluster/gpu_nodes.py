"""What every GPU node carries, whether a managed node group or Karpenter made it.

Pure decisions shared by `infra.gpu_nodegroup` and `k8s.karpenter`: the node
labels the vLLM chart selects on, the GPU taint, the capacity type, the root
volume, and whether the instance store is striped as RAID0. An instance type
without instance store cannot honour RAID0; asking for it fails here, before
anything is synthesised, unless the caller opts out (caches then live on the
root EBS volume).
"""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.core.catalog import GpuInstance, lookup
from fastload_constructs.core.cluster.ami_family import DEFAULT_AMI_FAMILY, AmiFamily, check_ami_family
from fastload_constructs.core.errors import is_whole_number, require
from fastload_constructs.core.naming import (
    GPU_TAINT_EFFECT,
    GPU_TAINT_KEY,
    GPU_TAINT_VALUE,
    INSTANCE_STORE_NONE,
    INSTANCE_STORE_RAID0,
    LABEL_AMI_FAMILY,
    LABEL_GPU_MODEL,
    LABEL_INSTANCE_FAMILY,
    LABEL_INSTANCE_STORE,
    gpu_model_label_value,
)

# Room for the vLLM image (~10 GiB compressed, ~25 GiB unpacked), the OS and,
# without RAID0, containerd's copy of image layers plus the node-local caches. On Bottlerocket this is the
# data volume (/dev/xvdb); its OS volume is separate (core.cluster.karpenter).
DEFAULT_ROOT_VOLUME_GIB = 200
MIN_ROOT_VOLUME_GIB = 50
MAX_ROOT_VOLUME_GIB = 16384  # gp3 limit
# gp3 throughput, MiB/s. With RAID0 the root volume only boots the OS: the gp3
# baseline (125) is enough. Without it, image layers and the model and compile
# caches are read from the root volume at start-up, so buy more (gp3 allows up
# to 0.25 MiB/s per provisioned IOPS; 500 fits the 3000 IOPS baseline).
GP3_BASELINE_THROUGHPUT = 125
NO_RAID0_ROOT_THROUGHPUT = 500

CAPACITY_TYPES = ("on-demand", "spot", "capacity-block")


@dataclass(frozen=True)
class Taint:
    key: str
    value: str
    effect: str  # Kubernetes spelling: NoSchedule, PreferNoSchedule, NoExecute


GPU_TAINT = Taint(GPU_TAINT_KEY, GPU_TAINT_VALUE, GPU_TAINT_EFFECT)


@dataclass(frozen=True)
class GpuNodeSpec:
    """The decided shape of the nodes of one GPU instance type."""

    instance: GpuInstance
    instance_store_raid0: bool
    root_volume_gib: int
    capacity_type: str
    ami_family: AmiFamily = DEFAULT_AMI_FAMILY

    @property
    def root_volume_throughput_mibps(self) -> int:
        return GP3_BASELINE_THROUGHPUT if self.instance_store_raid0 else NO_RAID0_ROOT_THROUGHPUT

    @property
    def labels(self) -> dict[str, str]:
        return {
            LABEL_INSTANCE_FAMILY: self.instance.family,
            LABEL_GPU_MODEL: gpu_model_label_value(self.instance.gpu_model),
            LABEL_INSTANCE_STORE: INSTANCE_STORE_RAID0 if self.instance_store_raid0 else INSTANCE_STORE_NONE,
            LABEL_AMI_FAMILY: self.ami_family,
        }

    @property
    def taints(self) -> tuple[Taint, ...]:
        return (GPU_TAINT,)

    @property
    def local_storage_strategy(self) -> str | None:
        """AL2023 nodeadm's `localStorage.strategy`, or None to leave the disks alone."""
        return "RAID0" if self.instance_store_raid0 else None


def check_instance_store(instance: GpuInstance, instance_store: bool, field: str = "instance_type") -> None:
    """Refuse RAID0 on an instance type that has no instance-store disk to stripe."""
    require(
        not instance_store or instance.has_instance_store,
        field,
        instance.name,
        "an instance type with instance-store NVMe for RAID0 (this one has none); "
        "or pass instance_store=False to keep caches on the root EBS volume",
    )


def check_root_volume(root_volume_gib: object, field: str = "root_volume_gib") -> int:
    require(
        is_whole_number(root_volume_gib) and MIN_ROOT_VOLUME_GIB <= root_volume_gib <= MAX_ROOT_VOLUME_GIB,
        field,
        root_volume_gib,
        f"a whole number of GiB from {MIN_ROOT_VOLUME_GIB} to {MAX_ROOT_VOLUME_GIB} "
        "(the vLLM image alone unpacks to ~25 GiB)",
    )
    return root_volume_gib  # type: ignore[return-value]


def gpu_node_spec(
    instance_type: str,
    *,
    instance_store: bool = True,
    root_volume_gib: int = DEFAULT_ROOT_VOLUME_GIB,
    capacity_type: str = "on-demand",
    ami_family: AmiFamily = DEFAULT_AMI_FAMILY,
) -> GpuNodeSpec:
    """Check the inputs and decide the node shape for `instance_type`."""
    instance = lookup(instance_type)
    require(isinstance(instance_store, bool), "instance_store", instance_store, "True or False")
    check_instance_store(instance, instance_store)
    require(capacity_type in CAPACITY_TYPES, "capacity_type", capacity_type, "one of " + ", ".join(CAPACITY_TYPES))
    return GpuNodeSpec(
        instance=instance,
        instance_store_raid0=instance_store,
        root_volume_gib=check_root_volume(root_volume_gib),
        capacity_type=capacity_type,
        ami_family=check_ami_family(ami_family),
    )
