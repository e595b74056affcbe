"""Karpenter node-pool decisions: which families, what node shape, the NodePool and EC2NodeClass specs.

Field names follow the Karpenter v1 CRDs (`karpenter.sh/v1` NodePool,
`karpenter.k8s.aws/v1` EC2NodeClass; aws/karpenter-provider-aws
pkg/apis/crds, chart 1.14). `instanceStorePolicy: RAID0` makes Karpenter
write the same nodeadm `localStorage.strategy: RAID0` the managed node groups
use, so both paths mount the array at `naming.INSTANCE_STORE_MOUNT`.

One NodePool per family because node labels in a NodePool template are
static: a pool per family can carry the same instance-family and GPU-model
labels as the managed node group of that family.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.catalog import CATALOG, GpuInstance, lookup
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, require
from fastload_constructs.core.gpu_nodes import (
    DEFAULT_ROOT_VOLUME_GIB,
    ROOT_DEVICE_NAME,
    GpuNodeSpec,
    check_root_volume,
    gpu_node_spec,
)
from fastload_constructs.core.naming import GPU_RESOURCE

NODEPOOL_API_VERSION = "karpenter.sh/v1"
NODECLASS_API_VERSION = "karpenter.k8s.aws/v1"
NODECLASS_GROUP = "karpenter.k8s.aws"
LABEL_KARPENTER_FAMILY = "karpenter.k8s.aws/instance-family"
LABEL_CAPACITY_TYPE = "karpenter.sh/capacity-type"
DISCOVERY_TAG = "karpenter.sh/discovery"
KARPENTER_CAPACITY_TYPES = ("on-demand", "spot", "reserved")
DEFAULT_AMI_ALIAS = "al2023@latest"


def expand_instance_types(entries: Sequence[str]) -> dict[str, list[GpuInstance]]:
    """Family -> instances: an entry is a type ('g6e.12xlarge') or a whole family ('g6e')."""
    require(
        not isinstance(entries, str) and len(entries) > 0,
        "instance_types",
        entries,
        "a non-empty list of instance types or families",
    )
    families: dict[str, list[GpuInstance]] = {}
    for entry in entries:
        if isinstance(entry, str) and "." not in entry:
            members = [i for i in CATALOG.values() if i.family == entry.strip().lower()]
            if not members:
                known = sorted({i.family for i in CATALOG.values()})
                raise FastloadConfigError("instance_types", entry, "a GPU family: " + ", ".join(known))
        else:
            members = [lookup(entry, "instance_types")]
        for instance in members:
            family = families.setdefault(instance.family, [])
            if instance not in family:
                family.append(instance)
    return families


def node_class_spec(
    *,
    cluster_name: str,
    node_role: str,
    instance_store: bool,
    root_volume_gib: int,
    ami_alias: str,
    root_volume_throughput_mibps: int,
) -> dict[str, Any]:
    """EC2NodeClass `spec`: AL2023 (NVIDIA variant chosen per type), RAID0, encrypted gp3 root."""
    spec: dict[str, Any] = {
        "role": node_role,
        "amiSelectorTerms": [{"alias": ami_alias}],
        "subnetSelectorTerms": [{"tags": {DISCOVERY_TAG: cluster_name}}],
        "securityGroupSelectorTerms": [{"tags": {DISCOVERY_TAG: cluster_name}}],
        "blockDeviceMappings": [
            {
                "deviceName": ROOT_DEVICE_NAME,
                "rootVolume": True,
                "ebs": {
                    "volumeSize": f"{root_volume_gib}Gi",
                    "volumeType": "gp3",
                    "throughput": root_volume_throughput_mibps,
                    "encrypted": True,
                    "deleteOnTermination": True,
                },
            }
        ],
        "metadataOptions": {
            "httpEndpoint": "enabled",
            "httpProtocolIPv6": "disabled",
            "httpTokens": "required",
            "httpPutResponseHopLimit": 1,
        },
    }
    if instance_store:
        spec["instanceStorePolicy"] = "RAID0"
    return spec


def node_pool_spec(
    node: GpuNodeSpec,
    instance_types: Sequence[str],
    *,
    node_class: str,
    capacity_types: Sequence[str],
    gpu_limit: int | None,
) -> dict[str, Any]:
    """NodePool `spec` for one family: its labels and GPU taint, only the chosen types."""
    spec: dict[str, Any] = {
        "template": {
            "metadata": {"labels": node.labels},
            "spec": {
                "nodeClassRef": {"group": NODECLASS_GROUP, "kind": "EC2NodeClass", "name": node_class},
                "taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in node.taints],
                "requirements": [
                    {"key": LABEL_KARPENTER_FAMILY, "operator": "In", "values": [node.instance.family]},
                    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": list(instance_types)},
                    {"key": LABEL_CAPACITY_TYPE, "operator": "In", "values": list(capacity_types)},
                    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                    {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
                ],
            },
        },
        # A GPU node that just paid for a cold start is worth keeping a while.
        "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "10m"},
    }
    if gpu_limit is not None:
        spec["limits"] = {GPU_RESOURCE: gpu_limit}
    return spec


@dataclass(frozen=True)
class NodePoolOptions:
    """How Karpenter's GPU nodes are bought and shaped; checked once, here.

    Shared by `plan_node_pools`, `k8s.KarpenterGpuNodePools` and
    `infra.KarpenterGpuNodes`, so each option is defined in one place.
    """

    capacity_types: tuple[str, ...] = ("on-demand",)
    """Karpenter capacity types: on-demand, spot, reserved (needs capacityReservationSelectorTerms).
    Default: on-demand."""
    instance_store: bool = True
    """RAID0 of the instance-store NVMe (refused for types without it). Default: True."""
    root_volume_gib: int = DEFAULT_ROOT_VOLUME_GIB
    """Encrypted gp3 root volume size. Default: 200."""
    ami_alias: str = DEFAULT_AMI_ALIAS
    """EC2NodeClass AMI alias; pin al2023@v<YYYYMMDD> for production. Default: al2023@latest."""
    gpu_limit: int | None = None
    """Most nvidia.com/gpu a NodePool may launch. Default: no limit."""

    def __post_init__(self) -> None:
        capacity = self.capacity_types
        require(
            not isinstance(capacity, str)
            and isinstance(capacity, (list, tuple))
            and len(capacity) > 0
            and all(c in KARPENTER_CAPACITY_TYPES for c in capacity),
            "capacity_types",
            capacity,
            "a non-empty list of " + ", ".join(KARPENTER_CAPACITY_TYPES),
        )
        object.__setattr__(self, "capacity_types", tuple(capacity))
        require(isinstance(self.instance_store, bool), "instance_store", self.instance_store, "True or False")
        check_root_volume(self.root_volume_gib)
        require(
            isinstance(self.ami_alias, str) and self.ami_alias.startswith("al2023@") and len(self.ami_alias) > 7,
            "ami_alias",
            self.ami_alias,
            "an AL2023 alias: al2023@latest or al2023@v<YYYYMMDD>",
        )
        if self.gpu_limit is not None:
            require(
                is_whole_number(self.gpu_limit) and self.gpu_limit > 0,
                "gpu_limit",
                self.gpu_limit,
                "a positive whole number of GPUs, or None",
            )


def plan_node_pools(
    instance_types: Sequence[str], options: NodePoolOptions | None = None
) -> dict[str, list[GpuNodeSpec]]:
    """Check every input and decide the node shape per family; RAID0 without instance store is refused."""
    opts = options if options is not None else NodePoolOptions()
    require(isinstance(opts, NodePoolOptions), "options", opts, "a NodePoolOptions")
    families = expand_instance_types(instance_types)
    return {
        family: [
            gpu_node_spec(i.name, instance_store=opts.instance_store, root_volume_gib=opts.root_volume_gib)
            for i in members
        ]
        for family, members in families.items()
    }
