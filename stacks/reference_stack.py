"""The reference stack: everything `cdk deploy` of this repository creates.

Why aws_eks_v2 rather than aws_eks: it declares the cluster as a native
`AWS::EKS::Cluster` (no custom-resource Lambda creating it), manages access
with EKS access entries instead of the aws-auth ConfigMap, and makes the
kubectl provider optional. Those are the defaults AWS recommends for new
clusters, and they leave fewer moving parts in a stack that must be imported
into other apps.
"""

from __future__ import annotations

import cdk8s
from aws_cdk import CfnOutput, Stack, Token
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from constructs import Construct

from fastload_constructs.core.cache_sharing import SharedCompileCache
from fastload_constructs.infra.applied_chart import AppliedChart
from fastload_constructs.infra.gpu_nodegroup import GpuNodeGroup
from fastload_constructs.infra.inference_cluster import InferenceCluster
from fastload_constructs.infra.model_bucket import ModelBucket
from fastload_constructs.infra.network import FastloadNetwork
from fastload_constructs.infra.nvidia_device_plugin import NvidiaDevicePlugin
from fastload_constructs.infra.served_model import ServedModel
from fastload_constructs.k8s.local_storage import LocalNvmeStorage
from fastload_constructs.k8s.manifest_export import ManifestExport
from fastload_constructs.k8s.namespace_chart import NamespaceChart
from stacks.config import ReferenceConfig


class FastloadReferenceStack(Stack):
    """An EKS cluster ready for fast-starting vLLM pods, configured from `ReferenceConfig`."""

    def __init__(self, scope: Construct, construct_id: str, *, config: ReferenceConfig, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.config = config
        self.plans = {m.name: m.serving_plan() for m in config.models}
        self.network = FastloadNetwork(self, "Network")
        # Managed node groups, not Auto Mode: GPU nodes need our launch
        # template (nodeadm RAID0 of the instance store).
        self.inference_cluster = InferenceCluster(
            self,
            "Cluster",
            version=config.kubernetes_version,
            vpc=self.network.vpc,
            vpc_subnets=self.network.cluster_subnets,
            # Day-1 access: without these only the kubectl provider's role could reach the cluster.
            admin_role_arns=config.admin_role_arns,
        )
        self.cluster: eks.ICluster = self.inference_cluster.cluster
        self.gpu_node_groups = {}
        for instance_type in config.instance_types:
            replicas = max(m.replicas for m in config.models if m.instance_type == instance_type)
            self.gpu_node_groups[instance_type] = GpuNodeGroup(
                self,
                "Gpu-" + instance_type.replace(".", "-"),
                cluster=self.cluster,
                instance_type=instance_type,
                min_size=0,
                desired_size=replicas,
                max_size=max(2, replicas),
                subnets=self.network.gpu_subnet_selection,
                # nodeadm's parallel pull and unpack (SOCI) for the multi-GB vLLM image; with RAID0
                # its store sits on NVMe, so the root volume's throughput does not cap it.
                fast_image_pull=True,
            )
        self.device_plugin = NvidiaDevicePlugin(self, "NvidiaDevicePlugin", cluster=self.cluster)
        CfnOutput(self, "ClusterName", value=self.cluster.cluster_name)
        self._add_model_bucket(config)
        # Every chart goes through AppliedChart, so the YAML export finds all of them, in apply order.
        self.local_storage = AppliedChart(
            self, "LocalNvmeStorage", cluster=self.cluster, chart=LocalNvmeStorage(cdk8s.App(), "local-nvme")
        )
        self.namespace = AppliedChart(
            self, "Namespace", cluster=self.cluster, chart=NamespaceChart(cdk8s.App(), "namespace")
        )
        self.served_models: dict[str, ServedModel] = {}
        # A literal bucket name (fastload:modelBucketName) keeps the YAML export free of placeholders.
        bucket_name = config.model_bucket_name or self.model_bucket.bucket_name
        for model in config.models:
            cache = SharedCompileCache(bucket_name, config.compile_cache_prefix) if model.shared_compile_cache else None
            self.served_models[model.name] = ServedModel(
                self,
                f"Model-{model.name}",
                cluster=self.cluster,
                bucket=self.model_bucket,
                prefix=model.s3_prefix,
                model_name=model.name,
                plan=self.plans[model.name],
                server=model.server_options(shared_compile_cache=cache),
                # The namespace first; the local-nvme class before any claim of it.
                after=[self.namespace, self.local_storage],
            )
        self.model_readers = {name: served.reader for name, served in self.served_models.items()}
        placeholders = {}
        if Token.is_unresolved(self.region):
            placeholders[self.region] = "${AWS_REGION}"
        if config.model_bucket_name is None:
            placeholders[self.model_bucket.bucket_name] = "${MODEL_BUCKET_NAME}"
        self.manifest_export = ManifestExport(self, "ManifestExport", placeholders=placeholders)

    def _add_model_bucket(self, config: ReferenceConfig) -> None:
        """The model bucket, locked to the network's S3 endpoint; stagers may upload every model's prefix."""
        stagers = [
            iam.Role.from_role_arn(self, f"Stager{i}", arn, mutable=False)
            for i, arn in enumerate(config.stager_role_arns)
        ]
        self.model_bucket = ModelBucket(
            self,
            "ModelBucket",
            vpc_endpoint=self.network.s3_endpoint,
            stager_principals=stagers,
            bucket_name=config.model_bucket_name,
        )
        for model in config.models:
            for stager in stagers:
                self.model_bucket.grant_stage_models(stager, model.s3_prefix)
        CfnOutput(self, "ModelBucketName", value=self.model_bucket.bucket_name)
