"""The reference stack: everything `cdk deploy` of this repository creates.

Why aws_eks_v2 rather than aws_eks: it declares the cluster as a native
`AWS::EKS::Cluster` (no custom-resource Lambda creating it), manages access
with EKS access entries instead of the aws-auth ConfigMap, and makes the
kubectl provider optional. Those are the defaults AWS recommends for new
clusters, and they leave fewer moving parts in a stack that must be imported
into other apps.
"""

from __future__ import annotations

from aws_cdk import CfnOutput, CfnParameter, Stack
from aws_cdk import aws_eks_v2 as eks
from aws_cdk.lambda_layer_kubectl_v35 import KubectlV35Layer
from constructs import Construct

from fastload_constructs.config import ReferenceConfig
from stacks.model_charts import ModelCharts


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
            # add_cdk8s_chart applies manifests through the kubectl provider.
            kubectl_provider_options=eks.KubectlProviderOptions(kubectl_layer=KubectlV35Layer(self, "KubectlLayer")),
        )
        CfnOutput(self, "ClusterName", value=self.cluster.cluster_name)
        # Until the model bucket is part of this stack: -c fastload:modelBucketName=..., else a deploy parameter.
        bucket_name = config.model_bucket_name or CfnParameter(
            self, "ModelBucketName", description="S3 bucket holding the models' s3Prefix").value_as_string
        self.model_charts = ModelCharts(self, "ModelCharts", cluster=self.cluster, models=config.models,
                                        bucket_name=bucket_name)
