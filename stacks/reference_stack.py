"""The reference stack: everything `cdk deploy` of this repository creates.

Why aws_eks_v2 rather than aws_eks: it declares the cluster as a native
`AWS::EKS::Cluster` (no custom-resource Lambda creating it), manages access
with EKS access entries instead of the aws-auth ConfigMap, and makes the
kubectl provider optional. Those are the defaults AWS recommends for new
clusters, and they leave fewer moving parts in a stack that must be imported
into other apps.
"""

from __future__ import annotations

from aws_cdk import CfnOutput, Stack
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from fastload_constructs.config import ReferenceConfig


def kubernetes_version(version: str) -> eks.KubernetesVersion:
    return eks.KubernetesVersion.of(version)


class FastloadReferenceStack(Stack):
    """An EKS cluster ready for fast-starting vLLM pods, configured from `ReferenceConfig`."""

    def __init__(self, scope: Construct, construct_id: str, *, config: ReferenceConfig, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.config = config
        self.plans = {m.name: m.serving_plan() for m in config.models}
        self.cluster = eks.Cluster(
            self,
            "Cluster",
            version=kubernetes_version(config.kubernetes_version),
            # Managed node groups, not Auto Mode: GPU nodes need our launch
            # template (nodeadm RAID0 of the instance store).
            default_capacity_type=eks.DefaultCapacityType.NODEGROUP,
            default_capacity=0,
        )
        CfnOutput(self, "ClusterName", value=self.cluster.cluster_name)
