#!/usr/bin/env python3
"""Bring your own VPC, EKS cluster and (optionally) model bucket: add fast-starting vLLM with fastload.

What this adds to an existing cluster: an S3 gateway endpoint on the VPC's
private route tables, a GPU node group with instance-store RAID0, and one
`ServedModel` (a read-only Pod Identity for the model's prefix, the tuned vLLM
chart applied after the identity, reachable from the VPC's CIDR as a load
balancer with IP targets needs, and one warm spare that keeps a GPU node with
the image pulled for the next scale-out; with it come the `inference`
namespace and the PriorityClasses its pods name). The model bucket is created
(locked to the endpoint) unless `bucketName` names one you have: then its lock
is printed as a stack output for you to add to that bucket's policy.

Every ID comes from CDK context (`-c key=value`; lists as JSON or
comma-separated), with placeholders as defaults:

    cdk synth --app ".venv/bin/python examples/existing_cluster.py" \
      -c clusterName=prod -c kubectlRoleArn=arn:aws:iam::111122223333:role/prod-admin \
      -c vpcId=vpc-0abc... -c vpcCidr=10.1.0.0/16 -c availabilityZones=us-east-1a,us-east-1b \
      -c privateSubnetIds=subnet-a,subnet-b -c privateRouteTableIds=rtb-a,rtb-b \
      -c account=111122223333 -c region=us-east-1 [-c bucketName=acme-models]

Assumed already on your cluster: the eks-pod-identity-agent add-on, the
NVIDIA device plugin (else `-c devicePlugin=true`), and an IAM role with an
access entry that may administer the cluster (`kubectlRoleArn`): the kubectl
provider this stack creates applies the charts as that role.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, fields
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from aws_cdk.lambda_layer_kubectl_v35 import KubectlV35Layer
from constructs import Construct

# One import: every construct, chart and options type is exported from the package root.
from fastload_constructs import (
    FastloadNetwork,
    GpuNodeGroup,
    ModelBucket,
    ModelBucketLock,
    ModelProfile,
    NvidiaDevicePlugin,
    ServedModel,
    ServerOptions,
    Serving,
    ServingAccess,
    TuningOptions,
)


@dataclass(frozen=True)
class ExistingInfrastructure:
    """The IDs of what you already run (placeholders by default); context keys are the camelCase names."""

    cluster_name: str = "my-cluster"
    kubectl_role_arn: str = "arn:aws:iam::123456789012:role/my-cluster-admin"
    vpc_id: str = "vpc-0123456789abcdef0"
    vpc_cidr: str = "10.0.0.0/16"
    availability_zones: tuple[str, ...] = ("us-west-2a", "us-west-2b")
    private_subnet_ids: tuple[str, ...] = ("subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb")
    private_route_table_ids: tuple[str, ...] = ("rtb-0aaaaaaaaaaaaaaaa", "rtb-0bbbbbbbbbbbbbbbb")
    account: str = "123456789012"
    region: str = "us-west-2"
    bucket_name: str = ""  # empty: create a model bucket locked to the endpoint
    device_plugin: bool = False

    @classmethod
    def from_context(cls, app: cdk.App) -> ExistingInfrastructure:
        """Each field from `-c <field>=...` when given: lists as JSON or comma-separated, booleans as true/false."""
        values: dict[str, object] = {}
        for field in fields(cls):
            key = re.sub(r"_([a-z])", lambda m: m.group(1).upper(), field.name)  # vpc_id -> vpcId
            raw = app.node.try_get_context(key)
            if raw is None:
                continue
            default = field.default
            if isinstance(default, tuple):
                if isinstance(raw, str):
                    raw = json.loads(raw) if raw.lstrip().startswith("[") else [p.strip() for p in raw.split(",")]
                if not isinstance(raw, list) or not all(isinstance(v, str) and v for v in raw):
                    raise SystemExit(f"context {key}: got {raw!r}; accepted: a list of strings")
                raw = tuple(raw)
            elif isinstance(default, bool):
                raw = raw if isinstance(raw, bool) else str(raw).lower() == "true"
            values[field.name] = raw
        return cls(**values)  # type: ignore[arg-type]


class FastVllmOnExistingCluster(cdk.Stack):
    def __init__(self, scope: Construct, id: str, *, existing: ExistingInfrastructure, env: cdk.Environment) -> None:
        super().__init__(scope, id, env=env)
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
            ami_family="al2023",
            fast_image_pull=True,
        )
        if existing.device_plugin:
            NvidiaDevicePlugin(self, "DevicePlugin", cluster=cluster)

        bucket: s3.IBucket
        if existing.bucket_name:  # yours: read through the role's policy; the lock is printed for you to add
            bucket = s3.Bucket.from_bucket_name(self, "Models", existing.bucket_name)
            ModelBucketLock(self, "ModelBucketLock", bucket=bucket, vpc_endpoint=network.s3_endpoint)
        else:
            bucket = ModelBucket(self, "Models", vpc_endpoint=network.s3_endpoint).bucket
        self.llama = ServedModel(
            self,
            "Llama",
            cluster=cluster,
            bucket=bucket,
            prefix="models/llama-3-1-8b",
            model_name="llama-3-1-8b",
            profile=ModelProfile.from_numbers(parameter_count=8_030_261_248),
            instance_type="g6e.2xlarge",
            # How it is served, once: 1 warm spare (2 replicas + 1 spare + 1 surge pod of a rolling update:
            # the node group's 4 GPUs). The model applies its namespace and the PriorityClasses its pods name.
            # Planned on the nodes above: AL2023 pulling the image with FastImagePull (no node snapshot here).
            tuning=TuningOptions(serving=Serving(warm_spares=1, ami_family="al2023", fast_image_pull=True)),
            server=ServerOptions(replicas=2),
            # Besides the namespace's pods: a load balancer with IP targets, from its VPC addresses.
            access=ServingAccess(allow_from_cidrs=(existing.vpc_cidr,)),
        )
        cdk.CfnOutput(self, "ModelBucketName", value=bucket.bucket_name)


def build(app: cdk.App, existing: ExistingInfrastructure | None = None) -> FastVllmOnExistingCluster:
    existing = existing or ExistingInfrastructure.from_context(app)
    return FastVllmOnExistingCluster(
        app,
        "FastVllmOnExistingCluster",
        existing=existing,
        env=cdk.Environment(account=existing.account, region=existing.region),
    )


if __name__ == "__main__":
    application = cdk.App()
    build(application)
    application.synth()
