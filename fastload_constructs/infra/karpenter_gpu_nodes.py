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

from fastload_constructs.core.node_pools import NodePoolOptions, plan_node_pools
from fastload_constructs.core.validation import check_dns_label
from fastload_constructs.infra.applied_chart import AppliedChart
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

    `name` names the EC2NodeClass; NodePools are `<name>-<family>`. `options`
    (`NodePoolOptions`: capacity types, instance store, root volume, AMI alias,
    GPU limit, each default documented there) default to `NodePoolOptions()`.

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
        options: NodePoolOptions | None = None,
        security_group_ids: Sequence[str] = (),
        node_role: iam.IRole | None = None,
        cluster_name: str | None = None,
        after: Sequence[IDependable] = (),
    ) -> None:
        """`cluster_name`: the value the subnets' `karpenter.sh/discovery` tag has (default: the cluster's name).
        `security_group_ids`: the nodes' security groups (default: selected by that discovery tag)."""
        check_dns_label(name, "name")
        opts = options if options is not None else NodePoolOptions()
        plan_node_pools(instance_types, opts)
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
            options=opts,
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
        # An AppliedChart, so a ManifestExport of the stack writes the node pools too. After the node
        # role's access entry: a node Karpenter launches for a pool joins only with that entry.
        self.applied = AppliedChart(
            self, "Manifests", cluster=cluster, chart=self.chart, after=[self.access_entry, *after]
        )
        self.manifest = self.applied.manifest
