"""Karpenter GPU nodes on a cluster: the node role, its access entry and the node pools.

Applies `k8s.karpenter.KarpenterGpuNodePools` through the cluster's kubectl
provider. What the *nodes* need is provisioned here; the controller is
`infra.KarpenterController` (its Helm chart, controller IAM role and policy,
interruption queue and EventBridge rules, discovery tags), which takes this
construct's `node_role`: pass the controller's chart as `after=`, because the
NodePool and EC2NodeClass kinds exist only once its CRDs are installed.
"""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from constructs import Construct, IDependable

from fastload_constructs.core.gpu_nodes import DEFAULT_ROOT_VOLUME_GIB
from fastload_constructs.core.node_pools import DEFAULT_AMI_ALIAS, plan_node_pools
from fastload_constructs.core.validation import check_dns_label
from fastload_constructs.infra.nag_findings import EKS_NODE_POLICY_REASONS, acknowledge_managed_policies
from fastload_constructs.k8s.karpenter import KarpenterGpuNodePools

NODE_MANAGED_POLICIES = (
    "AmazonEKSWorkerNodePolicy",
    "AmazonEKS_CNI_Policy",
    "AmazonEC2ContainerRegistryPullOnly",
    "AmazonSSMManagedInstanceCore",
)


class KarpenterGpuNodes(Construct):
    """Node role + EC2_LINUX access entry + NodePool/EC2NodeClass manifests for `cluster`.

    `name` names the EC2NodeClass; NodePools are `<name>-<family>`.

    Attributes: `node_role`, `access_entry`, `chart` (KarpenterGpuNodePools), `manifest`.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        instance_types: Sequence[str],
        name: str = "fastload-gpu",
        capacity_types: Sequence[str] = ("on-demand",),
        instance_store: bool = True,
        root_volume_gib: int = DEFAULT_ROOT_VOLUME_GIB,
        ami_alias: str = DEFAULT_AMI_ALIAS,
        gpu_limit: int | None = None,
        gpu_limits: dict[str, int] | None = None,
        fast_image_pull: bool = True,
        capacity_reservation_ids: Sequence[str] = (),
        security_group_ids: Sequence[str] = (),
        node_role: iam.IRole | None = None,
        cluster_name: str | None = None,
        after: Sequence[IDependable] = (),
    ) -> None:
        """`cluster_name`: the value the subnets' `karpenter.sh/discovery` tag has (default: the cluster's name)."""
        check_dns_label(name, "name")
        plan_node_pools(
            instance_types,
            capacity_types=capacity_types,
            instance_store=instance_store,
            root_volume_gib=root_volume_gib,
            ami_alias=ami_alias,
            gpu_limit=gpu_limit,
            capacity_reservation_ids=capacity_reservation_ids,
            gpu_limits=gpu_limits,
        )
        super().__init__(scope, id)
        self.node_role = node_role or iam.Role(
            self,
            "NodeRole",
            assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
            managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(n) for n in NODE_MANAGED_POLICIES],
        )
        if node_role is None:
            acknowledge_managed_policies(self.node_role, EKS_NODE_POLICY_REASONS)
        self.chart = KarpenterGpuNodePools(
            cdk8s.App(),
            name,
            cluster_name=cluster_name if cluster_name is not None else cluster.cluster_name,
            node_role=self.node_role.role_name,
            instance_types=instance_types,
            capacity_types=capacity_types,
            instance_store=instance_store,
            root_volume_gib=root_volume_gib,
            ami_alias=ami_alias,
            gpu_limit=gpu_limit,
            gpu_limits=gpu_limits,
            fast_image_pull=fast_image_pull,
            capacity_reservation_ids=capacity_reservation_ids,
            security_group_ids=security_group_ids,
        )
        self.access_entry = eks.AccessEntry(
            self,
            "NodeAccess",
            cluster=cluster,
            principal=self.node_role.role_arn,
            access_entry_type=eks.AccessEntryType.EC2_LINUX,
            access_policies=[],
        )
        self.manifest = cluster.add_cdk8s_chart(f"{id}Manifests", self.chart)
        for dependency in after:
            self.manifest.node.add_dependency(dependency)
