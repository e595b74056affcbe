#!/usr/bin/env python3
"""Bring your own VPC and EKS cluster: add fast-starting vLLM to them with fastload's constructs.

What this adds to an existing cluster: an S3 gateway endpoint on the VPC's
private route tables, a GPU node group with instance-store RAID0, the model
bucket locked to that endpoint, a read-only Pod Identity for one model, and
its vLLM chart. Fill in your IDs (or pass them as -c context) and run
`cdk synth --app ".venv/bin/python examples/existing_cluster.py"`.

Assumed already on your cluster: the eks-pod-identity-agent add-on, the
NVIDIA device plugin (else pass `device_plugin=True`), and an IAM role with an
access entry that may administer the cluster (`kubectl_role_arn`): the kubectl
provider this stack creates applies the charts as that role.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fastload_constructs.jsii_node import use_packaged_node

use_packaged_node()

import aws_cdk as cdk  # noqa: E402
import cdk8s  # noqa: E402
from aws_cdk import aws_ec2 as ec2  # noqa: E402
from aws_cdk import aws_eks_v2 as eks  # noqa: E402
from aws_cdk import aws_iam as iam  # noqa: E402
from aws_cdk.lambda_layer_kubectl_v35 import KubectlV35Layer  # noqa: E402
from constructs import Construct  # noqa: E402

from fastload_constructs.core.model import ModelProfile  # noqa: E402
from fastload_constructs.core.tuning import plan  # noqa: E402
from fastload_constructs.core.vllm_args import ServerOptions  # noqa: E402
from fastload_constructs.infra.gpu_nodegroup import GpuNodeGroup  # noqa: E402
from fastload_constructs.infra.model_bucket import ModelBucket  # noqa: E402
from fastload_constructs.infra.model_reader_identity import ModelReaderIdentity  # noqa: E402
from fastload_constructs.infra.network import FastloadNetwork  # noqa: E402
from fastload_constructs.infra.nvidia_device_plugin import NvidiaDevicePlugin  # noqa: E402
from fastload_constructs.k8s.namespace_chart import NamespaceChart  # noqa: E402
from fastload_constructs.k8s.vllm_chart import VllmChart  # noqa: E402


@dataclass(frozen=True)
class ExistingInfrastructure:
    """The IDs of what you already run (all placeholders here)."""

    cluster_name: str = "my-cluster"
    kubectl_role_arn: str = "arn:aws:iam::123456789012:role/my-cluster-admin"
    vpc_id: str = "vpc-0123456789abcdef0"
    vpc_cidr: str = "10.0.0.0/16"
    availability_zones: tuple[str, ...] = ("us-west-2a", "us-west-2b")
    private_subnet_ids: tuple[str, ...] = ("subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb")
    private_route_table_ids: tuple[str, ...] = ("rtb-0aaaaaaaaaaaaaaaa", "rtb-0bbbbbbbbbbbbbbbb")


class FastVllmOnExistingCluster(cdk.Stack):
    def __init__(
        self, scope: Construct, id: str, *, existing: ExistingInfrastructure, device_plugin: bool = False, **kwargs
    ) -> None:
        super().__init__(scope, id, **kwargs)
        vpc = ec2.Vpc.from_vpc_attributes(
            self,
            "Vpc",
            vpc_id=existing.vpc_id,
            vpc_cidr_block=existing.vpc_cidr,
            availability_zones=list(existing.availability_zones),
            private_subnet_ids=list(existing.private_subnet_ids),
            private_subnet_route_table_ids=list(existing.private_route_table_ids),
        )
        network = FastloadNetwork(self, "Network", vpc=vpc)  # adds the S3 gateway endpoint only
        # An imported cluster has no kubectl provider: create one against a first reference,
        # then import the cluster again with it so charts can be applied.
        reference = eks.Cluster.from_cluster_attributes(
            self, "ClusterReference", cluster_name=existing.cluster_name, vpc=vpc
        )
        kubectl = eks.KubectlProvider(
            self,
            "Kubectl",
            cluster=reference,
            kubectl_layer=KubectlV35Layer(self, "KubectlLayer"),
            role=iam.Role.from_role_arn(self, "KubectlRole", existing.kubectl_role_arn, mutable=False),
        )
        cluster = eks.Cluster.from_cluster_attributes(
            self, "Cluster", cluster_name=existing.cluster_name, vpc=vpc, kubectl_provider=kubectl
        )
        GpuNodeGroup(
            self,
            "L40S",
            cluster=cluster,
            instance_type="g6e.2xlarge",
            max_size=4,
            subnets=network.gpu_subnet_selection,
            fast_image_pull=True,
        )
        if device_plugin:
            NvidiaDevicePlugin(self, "DevicePlugin", cluster=cluster)

        models = ModelBucket(self, "Models", vpc_endpoint=network.s3_endpoint)
        reader = ModelReaderIdentity(
            self, "Llama", cluster=cluster, bucket=models, prefix="models/llama-3-1-8b", model_name="llama-3-1-8b"
        )
        serving = plan(ModelProfile.from_numbers(parameter_count=8_030_261_248), "g6e.2xlarge")
        charts = cdk8s.App()
        namespace = cluster.add_cdk8s_chart("Namespace", NamespaceChart(charts, "namespace"))
        llama = cluster.add_cdk8s_chart(
            "LlamaServer",
            VllmChart(
                charts,
                "llama",
                plan=serving,
                model_name="llama-3-1-8b",
                model_uri=reader.model_uri,
                region=self.region,
                options=ServerOptions(replicas=2),
            ),
        )
        llama.node.add_dependency(namespace, reader.association)
        cdk.CfnOutput(self, "ModelBucketName", value=models.bucket_name)


def build(app: cdk.App, existing: ExistingInfrastructure = ExistingInfrastructure()) -> FastVllmOnExistingCluster:
    return FastVllmOnExistingCluster(
        app,
        "FastVllmOnExistingCluster",
        existing=existing,
        env=cdk.Environment(account="123456789012", region="us-west-2"),
    )


if __name__ == "__main__":
    application = cdk.App()
    build(application)
    application.synth()
