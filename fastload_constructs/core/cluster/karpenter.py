"""Karpenter node-pool decisions: which families, what node shape, the NodePool and EC2NodeClass specs.

Field names follow the Karpenter v1 CRDs (`karpenter.sh/v1` NodePool,
`karpenter.k8s.aws/v1` EC2NodeClass; aws/karpenter-provider-aws
pkg/apis/crds, chart 1.14). `instanceStorePolicy: RAID0` makes Karpenter
write the same nodeadm `localStorage.strategy: RAID0` the managed node groups
use, so both paths mount the array at `naming.INSTANCE_STORE_MOUNT`.

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
from fastload_constructs.core.cluster.gpu_nodes import (
    DEFAULT_ROOT_VOLUME_GIB,
    ROOT_DEVICE_NAME,
    GpuNodeSpec,
    check_root_volume,
    gpu_node_spec,
)
from fastload_constructs.core.cluster.image_cache import ImageCache, karpenter_block_device, mount_script
from fastload_constructs.core.cluster.nodeadm import mime_user_data, node_config
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, require
from fastload_constructs.core.naming import GPU_RESOURCE

NODEPOOL_API_VERSION = "karpenter.sh/v1"
NODECLASS_API_VERSION = "karpenter.k8s.aws/v1"
NODECLASS_GROUP = "karpenter.k8s.aws"
LABEL_KARPENTER_FAMILY = "karpenter.k8s.aws/instance-family"
LABEL_CAPACITY_TYPE = "karpenter.sh/capacity-type"
DISCOVERY_TAG = "karpenter.sh/discovery"
KARPENTER_CAPACITY_TYPES = ("on-demand", "spot", "reserved")
# A dated AL2023 EKS AMI release, not `al2023@latest`: with `latest` every AMI release is drift, and
# Karpenter replaces every GPU node (and its warm caches) on its own schedule. v20260714 is an
# awslabs/amazon-eks-ami release in the project's release list (core/release_lists.py) whose release notes
# (the repository's CHANGELOG.md, "AMI Release v20260714") list NVIDIA AMIs for Kubernetes 1.30-1.36, so it
# serves every version this library supports (1.33-1.36). Upgrade path (README, "Karpenter"): set
# NodePoolOptions(ami_alias="al2023@v<newer>") / cdk.json fastload:amiAlias after testing the release,
# and Karpenter rolls the nodes within the NodePools' disruption budget (one at a time).
DEFAULT_AMI_ALIAS = "al2023@v20260714"
_AMI_ALIAS = re.compile(r"^al2023@(latest|v\d{8})$")


def check_ami_alias(value: object, field: str = "ami_alias") -> str:
    """An EC2NodeClass AMI alias of the AL2023 family (Karpenter docs, EC2NodeClass amiSelectorTerms)."""
    require(
        isinstance(value, str) and _AMI_ALIAS.match(value) is not None,
        field,
        value,
        "an AL2023 alias: al2023@v<YYYYMMDD> (a dated amazon-eks-ami release) or al2023@latest",
    )
    assert isinstance(value, str)
    return value


DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
CONSOLIDATE_AFTER = "10m"
DISRUPTION_BUDGET_NODES = "1"
EXPIRE_AFTER = "Never"
# EC2 capacity reservation ids: cr- then 17 hex digits (EC2 API reference, CapacityReservation).
_RESERVATION_ID = re.compile(r"^cr-[0-9a-f]{17}$")


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


def node_class_spec(
    *,
    cluster_name: str,
    node_role: str,
    instance_store: bool,
    root_volume_gib: int,
    ami_alias: str,
    root_volume_throughput_mibps: int,
    fast_image_pull: bool = True,
    capacity_reservation_ids: Sequence[str] = (),
    security_group_ids: Sequence[str] = (),
    image_cache: ImageCache | None = None,
) -> dict[str, Any]:
    """EC2NodeClass `spec`: what a managed GPU node group's launch template has, for Karpenter nodes.

    AL2023 (NVIDIA variant chosen per type), RAID0 of the instance store
    (`instanceStorePolicy`, which makes Karpenter write nodeadm's
    `localStorage.strategy: RAID0`), nodeadm `FastImagePull` in MIME user data
    (Karpenter merges its own NodeConfig part with the cluster's coordinates),
    IMDSv2 with one hop, an encrypted gp3 root, and the reservations of
    `reserved` capacity. With an `image_cache`: the snapshot's volume as a
    second block device, mounted as containerd's root by a user-data script,
    the RAID0 written by us with `disabledMounts: [Containerd]` (not through
    `instanceStorePolicy`, whose NodeConfig has no such field), and no
    FastImagePull (core.cluster.image_cache says why).
    """
    spec: dict[str, Any] = {
        "role": node_role,
        "amiSelectorTerms": [{"alias": ami_alias}],
        "subnetSelectorTerms": [{"tags": {DISCOVERY_TAG: cluster_name}}],
        # By id when given: the EKS cluster security group (what managed nodes get) is created by EKS,
        # outside CloudFormation, so it cannot carry a discovery tag from the stack.
        "securityGroupSelectorTerms": (
            [{"id": i} for i in security_group_ids] or [{"tags": {DISCOVERY_TAG: cluster_name}}]
        ),
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
    if image_cache is not None:
        require(
            not fast_image_pull,
            "fast_image_pull",
            fast_image_pull,
            "False with an image cache (the SOCI snapshotter would unpack the cached image again)",
        )
        spec["blockDeviceMappings"].append(karpenter_block_device(image_cache))
        config = node_config(local_storage="RAID0" if instance_store else None, containerd_on_image_cache=True)
        spec["userData"] = mime_user_data(config, scripts=(mount_script(),))
    elif instance_store:
        spec["instanceStorePolicy"] = "RAID0"
    if fast_image_pull and image_cache is None:
        spec["userData"] = mime_user_data(node_config(local_storage=None, fast_image_pull=True))
    if capacity_reservation_ids:
        spec["capacityReservationSelectorTerms"] = [{"id": i} for i in capacity_reservation_ids]
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
                "expireAfter": EXPIRE_AFTER,
            },
        },
        "disruption": disruption(),
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
    """EC2NodeClass AMI alias, al2023@v<YYYYMMDD> (a release of awslabs/amazon-eks-ami) or
    al2023@latest (drifts: every release replaces the nodes). Default: DEFAULT_AMI_ALIAS, a dated release."""
    gpu_limit: int | None = None
    """Most nvidia.com/gpu a NodePool may launch. Default: no limit."""
    gpu_limits: Mapping[str, int] | None = None
    """Family -> GPU limit, overriding `gpu_limit` per family (the reference stack's peak, core.scaling).
    Default: None."""
    capacity_reservation_ids: tuple[str, ...] = ()
    """EC2 capacity reservations for `reserved` capacity (required with it, refused without). Default: none."""
    fast_image_pull: bool = True
    """nodeadm FastImagePull (parallel pull and unpack) in the node user data. Default: True."""
    image_cache: ImageCache | None = None
    """An EBS snapshot holding the vLLM image (core.cluster.image_cache), restored on every node; needs
    fast_image_pull False. Default: None (the image is pulled)."""

    def limit_of(self, family: str) -> int | None:
        """The GPU limit of `family`'s NodePool."""
        return (self.gpu_limits or {}).get(family, self.gpu_limit)

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
        require(isinstance(self.fast_image_pull, bool), "fast_image_pull", self.fast_image_pull, "True or False")
        require(
            self.image_cache is None or isinstance(self.image_cache, ImageCache),
            "image_cache",
            self.image_cache,
            "an ImageCache or None",
        )
        require(
            self.image_cache is None or not self.fast_image_pull,
            "fast_image_pull",
            self.fast_image_pull,
            "False with an image cache (the SOCI snapshotter would unpack the cached image again)",
        )
        if self.gpu_limits is not None:
            require(
                isinstance(self.gpu_limits, Mapping)
                and all(isinstance(k, str) and is_whole_number(v) and v > 0 for k, v in self.gpu_limits.items()),
                "gpu_limits",
                self.gpu_limits,
                "family -> a positive whole number of GPUs",
            )
        require(isinstance(self.instance_store, bool), "instance_store", self.instance_store, "True or False")
        check_root_volume(self.root_volume_gib)
        check_ami_alias(self.ami_alias)
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
            gpu_node_spec(i.name, instance_store=opts.instance_store, root_volume_gib=opts.root_volume_gib)
            for i in members
        ]
        for family, members in families.items()
    }


# ------------------------------------------------------------------------------------------------
# The Karpenter controller's IAM policy (pure): Karpenter's documented policy for v1.14, for one cluster.

KARPENTER_VERSION = "1.14.1"
NODEPOOL_TAG = "karpenter.sh/nodepool"
NODECLASS_TAG = "karpenter.k8s.aws/ec2nodeclass"
CLUSTER_NAME_TAG = "eks:eks-cluster-name"


def controller_policy_statements(
    *,
    cluster_name: str,
    partition: str,
    region: str,
    account: str,
    node_role_arn: str,
    interruption_queue_arn: str,
) -> list[dict[str, Any]]:
    """IAM policy statements (JSON form) of the Karpenter controller for `cluster_name`."""
    require(
        isinstance(cluster_name, str) and "${Token[" not in cluster_name and cluster_name != "",
        "cluster_name",
        cluster_name,
        "a literal EKS cluster name (it is part of IAM condition keys; name the cluster)",
    )
    ec2 = f"arn:{partition}:ec2:{region}"
    owned = {f"aws:ResourceTag/kubernetes.io/cluster/{cluster_name}": "owned"}
    request_owned = {
        f"aws:RequestTag/kubernetes.io/cluster/{cluster_name}": "owned",
        f"aws:RequestTag/{CLUSTER_NAME_TAG}": cluster_name,
    }
    created = [
        f"{ec2}:*:fleet/*",
        f"{ec2}:*:instance/*",
        f"{ec2}:*:volume/*",
        f"{ec2}:*:network-interface/*",
        f"{ec2}:*:launch-template/*",
        f"{ec2}:*:spot-instances-request/*",
    ]
    profile = f"arn:{partition}:iam::{account}:instance-profile/*"
    cluster_arn = f"arn:{partition}:eks:{region}:{account}:cluster/{cluster_name}"
    return [
        {
            "Sid": "AllowScopedEC2InstanceAccessActions",
            "Effect": "Allow",
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
            "Resource": [
                f"{ec2}::image/*",
                f"{ec2}::snapshot/*",
                f"{ec2}:*:security-group/*",
                f"{ec2}:*:subnet/*",
                f"{ec2}:*:capacity-reservation/*",
                f"{ec2}:*:placement-group/*",
            ],
        },
        {
            "Sid": "AllowScopedEC2LaunchTemplateAccessActions",
            "Effect": "Allow",
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
            "Resource": f"{ec2}:*:launch-template/*",
            "Condition": {"StringEquals": owned, "StringLike": {f"aws:ResourceTag/{NODEPOOL_TAG}": "*"}},
        },
        {
            "Sid": "AllowScopedEC2InstanceActionsWithTags",
            "Effect": "Allow",
            "Action": ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
            "Resource": created,
            "Condition": {"StringEquals": request_owned, "StringLike": {f"aws:RequestTag/{NODEPOOL_TAG}": "*"}},
        },
        {
            "Sid": "AllowScopedResourceCreationTagging",
            "Effect": "Allow",
            "Action": "ec2:CreateTags",
            "Resource": created,
            "Condition": {
                "StringEquals": {
                    **request_owned,
                    "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                },
                "StringLike": {f"aws:RequestTag/{NODEPOOL_TAG}": "*"},
            },
        },
        {
            "Sid": "AllowScopedResourceTagging",
            "Effect": "Allow",
            "Action": "ec2:CreateTags",
            "Resource": f"{ec2}:*:instance/*",
            "Condition": {
                "StringEquals": owned,
                "StringLike": {f"aws:ResourceTag/{NODEPOOL_TAG}": "*"},
                "StringEqualsIfExists": {f"aws:RequestTag/{CLUSTER_NAME_TAG}": cluster_name},
                "ForAllValues:StringEquals": {"aws:TagKeys": [CLUSTER_NAME_TAG, "karpenter.sh/nodeclaim", "Name"]},
            },
        },
        {
            "Sid": "AllowScopedDeletion",
            "Effect": "Allow",
            "Action": ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
            "Resource": [f"{ec2}:*:instance/*", f"{ec2}:*:launch-template/*"],
            "Condition": {"StringEquals": owned, "StringLike": {f"aws:ResourceTag/{NODEPOOL_TAG}": "*"}},
        },
        {
            "Sid": "AllowPassingInstanceRole",
            "Effect": "Allow",
            "Action": "iam:PassRole",
            "Resource": node_role_arn,
            "Condition": {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}},
        },
        {
            "Sid": "AllowScopedInstanceProfileCreationActions",
            "Effect": "Allow",
            "Action": "iam:CreateInstanceProfile",
            "Resource": profile,
            "Condition": {
                "StringEquals": {**request_owned, "aws:RequestTag/topology.kubernetes.io/region": region},
                "StringLike": {f"aws:RequestTag/{NODECLASS_TAG}": "*"},
            },
        },
        {
            "Sid": "AllowScopedInstanceProfileTagActions",
            "Effect": "Allow",
            "Action": "iam:TagInstanceProfile",
            "Resource": profile,
            "Condition": {
                "StringEquals": {
                    **owned,
                    "aws:ResourceTag/topology.kubernetes.io/region": region,
                    **request_owned,
                    "aws:RequestTag/topology.kubernetes.io/region": region,
                },
                "StringLike": {f"aws:ResourceTag/{NODECLASS_TAG}": "*", f"aws:RequestTag/{NODECLASS_TAG}": "*"},
            },
        },
        {
            "Sid": "AllowScopedInstanceProfileActions",
            "Effect": "Allow",
            "Action": [
                "iam:AddRoleToInstanceProfile",
                "iam:RemoveRoleFromInstanceProfile",
                "iam:DeleteInstanceProfile",
            ],
            "Resource": profile,
            "Condition": {
                "StringEquals": {**owned, "aws:ResourceTag/topology.kubernetes.io/region": region},
                "StringLike": {f"aws:ResourceTag/{NODECLASS_TAG}": "*"},
            },
        },
        {
            "Sid": "AllowAPIServerEndpointDiscovery",
            "Effect": "Allow",
            "Action": "eks:DescribeCluster",
            "Resource": cluster_arn,
        },
        {
            "Sid": "AllowInterruptionQueueActions",
            "Effect": "Allow",
            "Action": ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
            "Resource": interruption_queue_arn,
        },
        {
            "Sid": "AllowZonalShiftStatusReadOnly",
            "Effect": "Allow",
            "Action": "arc-zonal-shift:GetManagedResource",
            "Resource": "*",
            "Condition": {"StringEquals": {"arc-zonal-shift:ResourceIdentifier": cluster_arn}},
        },
        {
            "Sid": "AllowRegionalReadActions",
            "Effect": "Allow",
            "Action": [
                "ec2:DescribeCapacityReservations",
                "ec2:DescribeImages",
                "ec2:DescribeInstances",
                "ec2:DescribeInstanceStatus",
                "ec2:DescribeInstanceTypeOfferings",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplates",
                "ec2:DescribePlacementGroups",
                "ec2:DescribeSecurityGroups",
                "ec2:DescribeSpotPriceHistory",
                "ec2:DescribeSubnets",
            ],
            "Resource": "*",
            "Condition": {"StringEquals": {"aws:RequestedRegion": region}},
        },
        {
            "Sid": "AllowSSMReadActions",
            "Effect": "Allow",
            "Action": "ssm:GetParameter",
            "Resource": f"arn:{partition}:ssm:{region}::parameter/aws/service/*",
        },
        {"Sid": "AllowPricingReadActions", "Effect": "Allow", "Action": "pricing:GetProducts", "Resource": "*"},
        {
            "Sid": "AllowUnscopedInstanceProfileListAction",
            "Effect": "Allow",
            "Action": "iam:ListInstanceProfiles",
            "Resource": "*",
        },
        {
            "Sid": "AllowInstanceProfileReadActions",
            "Effect": "Allow",
            "Action": "iam:GetInstanceProfile",
            "Resource": profile,
        },
    ]


# Interruption events Karpenter handles (same template): source, detail-type.
INTERRUPTION_EVENTS: dict[str, tuple[str, str]] = {
    "ScheduledChange": ("aws.health", "AWS Health Event"),
    "SpotInterruption": ("aws.ec2", "EC2 Spot Instance Interruption Warning"),
    "Rebalance": ("aws.ec2", "EC2 Instance Rebalance Recommendation"),
    "InstanceStateChange": ("aws.ec2", "EC2 Instance State-change Notification"),
    "CapacityReservationInterruption": ("aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"),
}
# The template's queue: messages older than 5 minutes are stale for a 2-minute warning.
INTERRUPTION_QUEUE_RETENTION_S = 300

# The template's managed policies (each stays under IAM's 6,144-character managed-policy limit).
POLICY_GROUPS: dict[str, tuple[str, ...]] = {
    "NodeLifecycle": (
        "AllowScopedEC2InstanceAccessActions",
        "AllowScopedEC2LaunchTemplateAccessActions",
        "AllowScopedEC2InstanceActionsWithTags",
        "AllowScopedResourceCreationTagging",
        "AllowScopedResourceTagging",
        "AllowScopedDeletion",
    ),
    "IAMIntegration": (
        "AllowPassingInstanceRole",
        "AllowScopedInstanceProfileCreationActions",
        "AllowScopedInstanceProfileTagActions",
        "AllowScopedInstanceProfileActions",
    ),
    "EKSIntegration": ("AllowAPIServerEndpointDiscovery",),
    "Interruption": ("AllowInterruptionQueueActions",),
    "ZonalShift": ("AllowZonalShiftStatusReadOnly",),
    "ResourceDiscovery": (
        "AllowRegionalReadActions",
        "AllowSSMReadActions",
        "AllowPricingReadActions",
        "AllowUnscopedInstanceProfileListAction",
        "AllowInstanceProfileReadActions",
    ),
}
