"""Karpenter node-pool decisions: which families, what node shape, the NodePool and EC2NodeClass specs.

Field names follow the Karpenter v1 CRDs (`karpenter.sh/v1` NodePool,
`karpenter.k8s.aws/v1` EC2NodeClass, `autoscaling.x-k8s.io/v1beta1` CapacityBuffer;
aws/karpenter-provider-aws pkg/apis/crds, chart 1.14.1). The specs are typed data
(`NodePoolSpec`, `NodeClassSpec`, `CapacityBufferSpec`); `k8s.karpenter` renders them
through the classes `cdk8s import` generated from those CRDs.

`instanceStorePolicy: RAID0` makes Karpenter set up the instance-store array the
way each family's managed node group does: nodeadm `localStorage.strategy: RAID0`
on AL2023, the `apiclient ephemeral-storage init` and `bind` bootstrap command on
Bottlerocket (pkg/providers/amifamily/bootstrap/bottlerocket.go at v1.14.1), so
both node modes mount the array at `naming.INSTANCE_STORE_MOUNTS[family]`.

One NodePool per family because node labels in a NodePool template are
static: a pool per family can carry the same instance-family and GPU-model
labels as the managed node group of that family.

Disruption (what Karpenter may take away, and when), chosen so that a GPU node
is never removed from under a loading or serving vLLM pod by surprise:

* `consolidationPolicy: WhenEmpty`: Karpenter removes a node only when no
  non-DaemonSet pod runs on it. `WhenEmptyOrUnderutilized` (the default) would
  evict a serving pod to repack it elsewhere, paying a full cold start.
* `consolidateAfter: 10m`: an emptied GPU node stays ten minutes, so a scale-up
  soon after a scale-down lands on a warm node (image layers and compile cache on
  its NVMe) instead of a fresh one.
* `budgets: [{nodes: "1"}]`: at most one node of a pool is disrupted at a time
  (drift after an AMI or NodeClass change replaces nodes one by one).
* `expireAfter: Never`: the v1 default (720h) expires nodes forcefully, whatever
  runs on them; GPU nodes are replaced by drift instead, which respects budgets,
  PodDisruptionBudgets and `karpenter.sh/do-not-disrupt`.
* `karpenter.sh/do-not-disrupt: "true"` on the vLLM pods (`DO_NOT_DISRUPT`):
  voluntary disruption (consolidation, drift) skips a node while such a pod runs
  on it, including while it loads (the vLLM PodDisruptionBudget lets not-ready
  pods be evicted, so it alone would not protect a loading pod). Involuntary
  events (spot interruption, health, instance state change) still drain the node:
  the interruption queue gives Karpenter the two-minute warning to do so cleanly.

Karpenter docs v1.14: concepts/disruption ("Consolidation", "Disruption budgets",
"Pod-level controls"), concepts/nodepools (`expireAfter`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.catalog import CATALOG, GpuInstance, lookup
from fastload_constructs.core.cluster import bottlerocket
from fastload_constructs.core.cluster.ami_family import (
    DEFAULT_AMI_FAMILY,
    AmiFamily,
    check_ami_alias,
    check_ami_family,
    default_ami_alias,
    has_fast_image_pull,
    node_os,
)
from fastload_constructs.core.cluster.eks_ami_releases import FAST_IMAGE_PULL_SINCE
from fastload_constructs.core.cluster.gpu_nodes import (
    DEFAULT_ROOT_VOLUME_GIB,
    GpuNodeSpec,
    Taint,
    check_root_volume,
    gpu_node_spec,
)
from fastload_constructs.core.cluster.image_cache import DEVICE_NAME, ImageCache, mount_script
from fastload_constructs.core.cluster.nodeadm import mime_user_data, node_config
from fastload_constructs.core.cluster.settings import DEFAULT_KUBERNETES_VERSION, check_version
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, require
from fastload_constructs.core.naming import GPU_RESOURCE

NODECLASS_GROUP = "karpenter.k8s.aws"
LABEL_KARPENTER_FAMILY = "karpenter.k8s.aws/instance-family"
LABEL_CAPACITY_TYPE = "karpenter.sh/capacity-type"
DISCOVERY_TAG = "karpenter.sh/discovery"
KARPENTER_CAPACITY_TYPES = ("on-demand", "spot", "reserved")
# Bottlerocket's OS volume: Karpenter's default mapping for the family (/dev/xvda 4Gi; docs concepts/nodeclasses
# "Bottlerocket"); images, kubelet and pod data live on the data volume /dev/xvdb.
BOTTLEROCKET_OS_VOLUME_GIB = 4
# IMDSv2 only, one hop: pods get AWS credentials from Pod Identity, never the node role through IMDS
# (Karpenter's own defaults at v1.14.1, stated so a default change upstream cannot loosen them).
HTTP_PUT_RESPONSE_HOP_LIMIT = 1
METADATA_OPTIONS: dict[str, str | int] = {
    "httpEndpoint": "enabled",
    "httpProtocolIPv6": "disabled",
    "httpTokens": "required",
    "httpPutResponseHopLimit": HTTP_PUT_RESPONSE_HOP_LIMIT,
}

DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
CONSOLIDATE_AFTER = "10m"
DISRUPTION_BUDGET_NODES = "1"
EXPIRE_AFTER = "Never"
# EC2 capacity reservation ids: cr- then 17 hex digits (EC2 API reference, CapacityReservation).
_RESERVATION_ID = re.compile(r"^cr-[0-9a-f]{17}$")
# Karpenter chart 1.14.1 values.yaml `settings.featureGates`: CapacityBuffer ("ALPHA and is disabled by
# default") for `CapacityBufferSpec`.
FEATURE_GATE_CAPACITY_BUFFER = "capacityBuffer"


def disruption() -> dict[str, Any]:
    """NodePool `spec.disruption`: empty nodes only, after ten minutes, one node at a time (see module doc)."""
    return {
        "consolidationPolicy": "WhenEmpty",
        "consolidateAfter": CONSOLIDATE_AFTER,
        "budgets": [{"nodes": DISRUPTION_BUDGET_NODES}],
    }


def check_capacity(capacity_types: Sequence[str], capacity_reservation_ids: Sequence[str]) -> tuple[str, ...]:
    """Capacity types; `reserved` needs the reservations to launch into (else the pool can never launch)."""
    require(
        not isinstance(capacity_types, str)
        and len(capacity_types) > 0
        and all(c in KARPENTER_CAPACITY_TYPES for c in capacity_types),
        "capacity_types",
        capacity_types,
        "a non-empty list of " + ", ".join(KARPENTER_CAPACITY_TYPES),
    )
    require(
        not isinstance(capacity_reservation_ids, str)
        and all(isinstance(i, str) and _RESERVATION_ID.match(i) for i in capacity_reservation_ids),
        "capacity_reservation_ids",
        capacity_reservation_ids,
        "a list of EC2 capacity reservation ids (cr- and 17 hex digits)",
    )
    if "reserved" in capacity_types:
        require(
            len(capacity_reservation_ids) > 0,
            "capacity_reservation_ids",
            list(capacity_reservation_ids),
            "at least one capacity reservation id when capacity_types includes reserved "
            "(Karpenter launches reserved capacity only into selected reservations)",
        )
    else:
        require(
            len(capacity_reservation_ids) == 0,
            "capacity_reservation_ids",
            list(capacity_reservation_ids),
            "none unless capacity_types includes reserved",
        )
    return tuple(capacity_types)


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


# ------------------------------------------------------------------------------------------------
# Typed specs: what the manifests say, as data. `as_dict` is the CRD's JSON spelling.


@dataclass(frozen=True)
class BlockDevice:
    """One `EC2NodeClass.spec.blockDeviceMappings` entry (gp3, deleted with the node)."""

    device_name: str
    volume_gib: int
    root_volume: bool = False
    encrypted: bool | None = True  # None with a snapshot: the volume takes the snapshot's encryption
    iops: int | None = None
    throughput_mibps: int | None = None
    snapshot_id: str | None = None
    initialization_rate_mibps: int | None = None
    kms_key_id: str | None = None

    def as_dict(self) -> dict[str, Any]:
        ebs: dict[str, Any] = {"volumeSize": f"{self.volume_gib}Gi", "volumeType": "gp3"}
        optional = {
            "snapshotID": self.snapshot_id,
            "iops": self.iops,
            "throughput": self.throughput_mibps,
            "encrypted": self.encrypted,
            "kmsKeyID": self.kms_key_id,
            "volumeInitializationRate": self.initialization_rate_mibps,
        }
        ebs |= {k: v for k, v in optional.items() if v is not None}
        ebs["deleteOnTermination"] = True
        mapping: dict[str, Any] = {"deviceName": self.device_name}
        if self.root_volume:
            mapping["rootVolume"] = True
        mapping["ebs"] = ebs
        return mapping


def cache_block_device(cache: ImageCache, *, root_volume: bool = False) -> BlockDevice:
    """The image snapshot restored as DEVICE_NAME; `volumeInitializationRate` with restore `rate` ("Only
    allowed if SnapshotID is set", 100-300, Karpenter v1.14.1 CRD; Karpenter passes it to the launch template)."""
    return BlockDevice(
        device_name=DEVICE_NAME,
        volume_gib=cache.volume_gib,
        root_volume=root_volume,
        encrypted=None,
        iops=cache.iops,
        throughput_mibps=cache.throughput_mibps,
        snapshot_id=cache.snapshot_id,
        initialization_rate_mibps=cache.initialization_rate_mibps,
    )


@dataclass(frozen=True)
class NodeClassSpec:
    """EC2NodeClass `spec`: AMI, network, disks, IMDS, user data."""

    role: str
    ami_alias: str
    subnet_tags: Mapping[str, str]
    security_group_ids: tuple[str, ...]
    security_group_tags: Mapping[str, str]
    block_devices: tuple[BlockDevice, ...]
    instance_store_policy: str | None = None
    user_data: str | None = None
    capacity_reservation_ids: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "role": self.role,
            "amiSelectorTerms": [{"alias": self.ami_alias}],
            "subnetSelectorTerms": [{"tags": dict(self.subnet_tags)}],
            # By id when given: the EKS cluster security group (what managed nodes get) is created by EKS,
            # outside CloudFormation, so it cannot carry a discovery tag from the stack.
            "securityGroupSelectorTerms": (
                [{"id": i} for i in self.security_group_ids] or [{"tags": dict(self.security_group_tags)}]
            ),
            "blockDeviceMappings": [d.as_dict() for d in self.block_devices],
            "metadataOptions": dict(METADATA_OPTIONS),
        }
        if self.instance_store_policy is not None:
            spec["instanceStorePolicy"] = self.instance_store_policy
        if self.user_data is not None:
            spec["userData"] = self.user_data
        if self.capacity_reservation_ids:
            spec["capacityReservationSelectorTerms"] = [{"id": i} for i in self.capacity_reservation_ids]
        return spec


@dataclass(frozen=True)
class Requirement:
    """A NodePool scheduling requirement (`key operator values`)."""

    key: str
    operator: str
    values: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "operator": self.operator, "values": list(self.values)}


@dataclass(frozen=True)
class NodePoolSpec:
    """NodePool `spec`. With `replicas` the pool is static (Karpenter's StaticCapacity, alpha in 1.14): it keeps
    that many nodes whatever the pods ask, consolidation does not apply, and only `limits.nodes` may be set
    (NodePool CRD v1.14.1: "Only limits.nodes is supported"; "Cannot transition NodePool between static ...
    and dynamic ... provisioning modes")."""

    node_class: str
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    requirements: tuple[Requirement, ...]
    gpu_limit: int | None = None
    replicas: int | None = None
    expire_after: str = EXPIRE_AFTER

    def as_dict(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "template": {
                "metadata": {"labels": dict(self.labels)},
                "spec": {
                    "nodeClassRef": {"group": NODECLASS_GROUP, "kind": "EC2NodeClass", "name": self.node_class},
                    "taints": [{"key": t.key, "value": t.value, "effect": t.effect} for t in self.taints],
                    "requirements": [r.as_dict() for r in self.requirements],
                    "expireAfter": self.expire_after,
                },
            },
        }
        if self.replicas is not None:
            spec["replicas"] = self.replicas
            spec["disruption"] = {
                "consolidateAfter": CONSOLIDATE_AFTER,
                "budgets": [{"nodes": DISRUPTION_BUDGET_NODES}],
            }
            spec["limits"] = {"nodes": str(self.replicas)}
            return spec
        spec["disruption"] = disruption()
        if self.gpu_limit is not None:
            spec["limits"] = {GPU_RESOURCE: self.gpu_limit}
        return spec


@dataclass(frozen=True)
class CapacityBufferSpec:
    """CapacityBuffer `spec`: `replicas` virtual pods shaped like PodTemplate `pod_template`, which Karpenter
    keeps room for (nodes up, nothing running on them). "A CapacityBuffer defines virtual placeholder pods that
    exist only in Karpenter's scheduling simulation" and "Empty consolidation is blocked for nodes hosting
    buffer capacity" (Karpenter v1.14.1 docs, concepts/capacitybuffers); the API is
    `autoscaling.x-k8s.io/v1beta1` (the v1.14.1 CRD's only version)."""

    pod_template: str
    replicas: int

    def __post_init__(self) -> None:
        require(
            is_whole_number(self.replicas) and self.replicas >= 1,
            "buffered_nodes",
            self.replicas,
            "a positive whole number of buffered pods",
        )

    def as_dict(self) -> dict[str, Any]:
        return {"podTemplateRef": {"name": self.pod_template}, "replicas": self.replicas}


# ------------------------------------------------------------------------------------------------
# Decisions


def _bottlerocket_disks(
    *, instance_store: bool, data_volume_gib: int, throughput_mibps: int, image_cache: ImageCache | None
) -> tuple[tuple[BlockDevice, ...], str | None, str]:
    """(block devices, instanceStorePolicy, user data) of a Bottlerocket node.

    The data volume /dev/xvdb carries containerd and kubelet (`rootVolume`: what Karpenter sizes pods'
    ephemeral storage from). Without a snapshot Karpenter writes the RAID0 bootstrap command itself
    (`instanceStorePolicy`); with one, it would bind the array over /var/lib/containerd (default bind
    directories, Bottlerocket >= 1.46.0) and hide the cached images, so our own command binds only kubelet
    and pod logs, and `instanceStorePolicy` stays unset.
    """
    os_volume = BlockDevice(node_os("bottlerocket").root_device, BOTTLEROCKET_OS_VOLUME_GIB)
    if image_cache is not None:
        data = cache_block_device(image_cache, root_volume=True)
        settings = bottlerocket.gpu_node_settings(raid0_command=instance_store, keep_containerd=True)
        return (os_volume, data), None, bottlerocket.user_data(settings)
    data = BlockDevice(DEVICE_NAME, data_volume_gib, root_volume=True, throughput_mibps=throughput_mibps)
    settings = bottlerocket.gpu_node_settings(raid0_command=False, keep_containerd=False)
    return (os_volume, data), ("RAID0" if instance_store else None), bottlerocket.user_data(settings)


def _al2023_disks(
    *,
    instance_store: bool,
    root_volume_gib: int,
    throughput_mibps: int,
    image_cache: ImageCache | None,
    fast_image_pull: bool,
) -> tuple[tuple[BlockDevice, ...], str | None, str | None]:
    """(block devices, instanceStorePolicy, user data) of an AL2023 node: RAID0 through `instanceStorePolicy`
    (Karpenter writes nodeadm's `localStorage.strategy: RAID0`), FastImagePull in MIME user data. With a
    snapshot: its volume as a second device, mounted as containerd's root by a user-data script, the RAID0
    written by us with `disabledMounts: [Containerd]` (Karpenter's NodeConfig has no such field)."""
    root = BlockDevice(
        node_os("al2023").root_device, root_volume_gib, root_volume=True, throughput_mibps=throughput_mibps
    )
    if image_cache is not None:
        config = node_config(local_storage="RAID0" if instance_store else None, containerd_on_image_cache=True)
        return (root, cache_block_device(image_cache)), None, mime_user_data(config, scripts=(mount_script(),))
    user_data = mime_user_data(node_config(local_storage=None, fast_image_pull=True)) if fast_image_pull else None
    return (root,), ("RAID0" if instance_store else None), user_data


def node_class(
    *,
    cluster_name: str,
    node_role: str,
    instance_store: bool,
    root_volume_gib: int,
    ami_alias: str,
    root_volume_throughput_mibps: int,
    ami_family: AmiFamily = DEFAULT_AMI_FAMILY,
    fast_image_pull: bool = False,
    capacity_reservation_ids: Sequence[str] = (),
    security_group_ids: Sequence[str] = (),
    image_cache: ImageCache | None = None,
) -> NodeClassSpec:
    """EC2NodeClass `spec` for GPU nodes of `ami_family`: what a managed GPU node group's launch template has.

    Both families: the pinned alias (Karpenter picks the NVIDIA variant for GPU types), IMDSv2 with one hop,
    encrypted gp3 volumes, the reservations of `reserved` capacity, RAID0 of the instance store. The disks
    and user data per family: `_bottlerocket_disks`, `_al2023_disks`.
    """
    family = check_ami_family(ami_family)
    require(
        not fast_image_pull or node_os(family).supports_fast_image_pull,
        "fast_image_pull",
        fast_image_pull,
        f"False on {family} nodes (FastImagePull is an AL2023 nodeadm feature gate)",
    )
    require(
        image_cache is None or not fast_image_pull,
        "fast_image_pull",
        fast_image_pull,
        "False with an image cache (the SOCI snapshotter would unpack the cached image again)",
    )
    user_data: str | None
    if family == "bottlerocket":
        disks, policy, user_data = _bottlerocket_disks(
            instance_store=instance_store,
            data_volume_gib=root_volume_gib,
            throughput_mibps=root_volume_throughput_mibps,
            image_cache=image_cache,
        )
    else:
        disks, policy, user_data = _al2023_disks(
            instance_store=instance_store,
            root_volume_gib=root_volume_gib,
            throughput_mibps=root_volume_throughput_mibps,
            image_cache=image_cache,
            fast_image_pull=fast_image_pull,
        )
    return NodeClassSpec(
        role=node_role,
        ami_alias=ami_alias,
        subnet_tags={DISCOVERY_TAG: cluster_name},
        security_group_ids=tuple(security_group_ids),
        security_group_tags={DISCOVERY_TAG: cluster_name},
        block_devices=disks,
        instance_store_policy=policy,
        user_data=user_data,
        capacity_reservation_ids=tuple(capacity_reservation_ids),
    )


def node_pool(
    node: GpuNodeSpec,
    instance_types: Sequence[str],
    *,
    node_class: str,
    capacity_types: Sequence[str],
    gpu_limit: int | None,
    replicas: int | None = None,
) -> NodePoolSpec:
    """NodePool `spec` for one family: its labels and GPU taint, only the chosen types."""
    return NodePoolSpec(
        node_class=node_class,
        labels=node.labels,
        taints=node.taints,
        requirements=(
            Requirement(LABEL_KARPENTER_FAMILY, "In", (node.instance.family,)),
            Requirement("node.kubernetes.io/instance-type", "In", tuple(instance_types)),
            Requirement(LABEL_CAPACITY_TYPE, "In", tuple(capacity_types)),
            Requirement("kubernetes.io/arch", "In", ("amd64",)),
            Requirement("kubernetes.io/os", "In", ("linux",)),
        ),
        gpu_limit=gpu_limit,
        replicas=replicas,
    )


def node_pool_spec(
    node: GpuNodeSpec,
    instance_types: Sequence[str],
    *,
    node_class: str,
    capacity_types: Sequence[str],
    gpu_limit: int | None,
) -> dict[str, Any]:
    """`node_pool` in the CRD's JSON spelling, for callers that extend it as JSON."""
    return node_pool(
        node, instance_types, node_class=node_class, capacity_types=capacity_types, gpu_limit=gpu_limit
    ).as_dict()


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
    """Encrypted gp3 volume holding images and kubelet data (AL2023: the root; Bottlerocket: the data
    volume). Default: 200."""
    ami_family: AmiFamily = DEFAULT_AMI_FAMILY
    """The node OS: `bottlerocket` (NVIDIA variant, device plugin built in) or `al2023` (NVIDIA AMI; the
    device plugin is a DaemonSet). Default: bottlerocket."""
    ami_alias: str | None = None
    """EC2NodeClass AMI alias of `ami_family`, pinned to a release that serves `kubernetes_version`
    (`bottlerocket@v1.64.0`, `al2023@v20260714`), or `<family>@latest` (drifts: every release replaces
    the nodes). Default: the family's pinned release (core.cluster.ami_family.default_ami_alias)."""
    kubernetes_version: str = DEFAULT_KUBERNETES_VERSION
    """The cluster's Kubernetes version, which the AMI release must serve. Default: 1.35."""
    gpu_limit: int | None = None
    """Most nvidia.com/gpu a NodePool may launch. Default: no limit."""
    gpu_limits: Mapping[str, int] | None = None
    """Family -> GPU limit, overriding `gpu_limit` per family (the reference stack's peak, core.scaling).
    Default: None."""
    capacity_reservation_ids: tuple[str, ...] = ()
    """EC2 capacity reservations for `reserved` capacity (required with it, refused without). Default: none."""
    fast_image_pull: bool | None = None
    """nodeadm FastImagePull (SOCI parallel pull and unpack) in the node user data; AL2023 only, from
    al2023@v20250821 (an older nodeadm ignores the gate), refused with an image cache. Default: None, on for
    AL2023 from that release without an image cache, off otherwise."""
    image_cache: ImageCache | None = None
    """An EBS snapshot holding the server image (core.cluster.image_cache), restored on every node as its
    containerd volume, with its restore mode. Default: None (the image is pulled)."""

    def limit_of(self, family: str) -> int | None:
        """The GPU limit of `family`'s NodePool."""
        return (self.gpu_limits or {}).get(family, self.gpu_limit)

    @property
    def alias(self) -> str:
        """The AMI alias the node class uses (`ami_alias`, else the family's pinned release)."""
        assert self.ami_alias is not None  # set by __post_init__
        return self.ami_alias

    @property
    def image_pull_in_parallel(self) -> bool:
        assert self.fast_image_pull is not None  # set by __post_init__
        return self.fast_image_pull

    def __post_init__(self) -> None:
        capacity = self.capacity_types
        require(
            isinstance(capacity, (list, tuple)),
            "capacity_types",
            capacity,
            "a list of " + ", ".join(KARPENTER_CAPACITY_TYPES),
        )
        reservations = self.capacity_reservation_ids
        require(
            isinstance(reservations, (list, tuple)),
            "capacity_reservation_ids",
            reservations,
            "a list of EC2 capacity reservation ids",
        )
        object.__setattr__(self, "capacity_types", check_capacity(capacity, reservations))
        object.__setattr__(self, "capacity_reservation_ids", tuple(reservations))
        self._check_node_os()
        require(
            self.image_cache is None or isinstance(self.image_cache, ImageCache),
            "image_cache",
            self.image_cache,
            "an ImageCache or None",
        )
        self._check_image_pull()
        self._check_limits()
        require(isinstance(self.instance_store, bool), "instance_store", self.instance_store, "True or False")
        check_root_volume(self.root_volume_gib)

    def _check_node_os(self) -> None:
        family = check_ami_family(self.ami_family)
        version = check_version(self.kubernetes_version, "kubernetes_version")
        # By default the family's pinned alias (a release, never `latest`, which is drift on every AMI release
        # and replaces every GPU node and its warm caches on Karpenter's schedule). Upgrade path
        # (docs/gpu-nodes.md): set NodePoolOptions(ami_alias=...) / cdk.json fastload:amiAlias after testing
        # the release, and Karpenter rolls the nodes within the NodePools' disruption budget (one at a time).
        alias = default_ami_alias(family) if self.ami_alias is None else self.ami_alias
        object.__setattr__(self, "ami_alias", check_ami_alias(alias, family, version))

    def _check_image_pull(self) -> None:
        family = node_os(self.ami_family)
        release_has_it = has_fast_image_pull(self.alias)
        if self.fast_image_pull is None:
            parallel = release_has_it and self.image_cache is None
            object.__setattr__(self, "fast_image_pull", parallel)
        require(isinstance(self.fast_image_pull, bool), "fast_image_pull", self.fast_image_pull, "True or False")
        require(
            not self.fast_image_pull or family.supports_fast_image_pull,
            "fast_image_pull",
            self.fast_image_pull,
            f"False on {family.family} nodes (FastImagePull is an AL2023 nodeadm feature gate)",
        )
        require(
            not self.fast_image_pull or release_has_it,
            "fast_image_pull",
            self.fast_image_pull,
            f"False with {self.alias} (its nodeadm ignores the FastImagePull gate; it exists from "
            f"al2023@v{FAST_IMAGE_PULL_SINCE})",
        )
        require(
            self.image_cache is None or not self.fast_image_pull,
            "fast_image_pull",
            self.fast_image_pull,
            "False with an image cache (the SOCI snapshotter would unpack the cached image again)",
        )

    def _check_limits(self) -> None:
        if self.gpu_limits is not None:
            require(
                isinstance(self.gpu_limits, Mapping)
                and all(isinstance(k, str) and is_whole_number(v) and v > 0 for k, v in self.gpu_limits.items()),
                "gpu_limits",
                self.gpu_limits,
                "family -> a positive whole number of GPUs",
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
    if opts.gpu_limits is not None:
        require(
            set(opts.gpu_limits) <= set(families),
            "gpu_limits",
            dict(opts.gpu_limits),
            "limits for families in instance_types (" + ", ".join(families) + ")",
        )
    return {
        family: [
            gpu_node_spec(
                i.name,
                instance_store=opts.instance_store,
                root_volume_gib=opts.root_volume_gib,
                ami_family=opts.ami_family,
            )
            for i in members
        ]
        for family, members in families.items()
    }


def node_class_for(
    options: NodePoolOptions,
    node_specs: Mapping[str, Sequence[GpuNodeSpec]],
    *,
    cluster_name: str,
    node_role: str,
    security_group_ids: Sequence[str] = (),
) -> NodeClassSpec:
    """The one EC2NodeClass of `plan_node_pools`' pools."""
    first = next(iter(node_specs.values()))[0]
    return node_class(
        cluster_name=cluster_name,
        node_role=node_role,
        instance_store=options.instance_store,
        root_volume_gib=options.root_volume_gib,
        ami_alias=options.alias,
        ami_family=options.ami_family,
        root_volume_throughput_mibps=first.root_volume_throughput_mibps,
        fast_image_pull=options.image_pull_in_parallel,
        capacity_reservation_ids=options.capacity_reservation_ids,
        security_group_ids=security_group_ids,
        image_cache=options.image_cache,
    )
