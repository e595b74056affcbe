"""The reference stack: everything `cdk deploy` of this repository creates.

Why aws_eks_v2 rather than aws_eks: it declares the cluster as a native
`AWS::EKS::Cluster` (no custom-resource Lambda creating it), manages access
with EKS access entries instead of the aws-auth ConfigMap, and makes the
kubectl provider optional. Those are the defaults AWS recommends for new
clusters, and they leave fewer moving parts in a stack that must be imported
into other apps.

Every Kubernetes chart goes on through `infra.AppliedChart` or
`infra.ServedModel`, so one `ManifestExport` writes them all into
`cdk.out/manifests/`, in apply order: local-nvme, namespace, PriorityClasses
(with warm spares), Karpenter's NodePools and EC2NodeClass, then per model its
server, its warm spares, its KEDA objects and its capacity buffer.

The GPU nodes are what the models are planned on (`stacks.config.NodeSettings`): Bottlerocket NVIDIA by
default, restoring a snapshot of the server images that the stack builds
(`infra.node_image_snapshot.NodeImageSnapshot`), with Fast Snapshot Restore in the GPU subnets' zones;
AL2023 with its device-plugin DaemonSet when asked.

The stack serves the models it is given (`models`, default: every configured one); the
others go to `stacks.models_stack.FastloadModelsStack`s on its cluster, bucket and
controllers (`serve`, `buffer_capacity`). What every model needs (node pools and capacity,
the node image snapshot, KEDA, FMA, the namespace, the PriorityClasses, the stagers' grants)
is made here for all of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import cdk8s
from aws_cdk import Annotations, CfnOutput, Stack, Token
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct, IDependable

from fastload_constructs.core.cluster.ami_family import node_os
from fastload_constructs.core.cluster.gpu_nodes import Taint
from fastload_constructs.core.cluster.image_cache import ImageCache, snapshot_images
from fastload_constructs.core.cluster.karpenter import NodePoolOptions
from fastload_constructs.core.scaling.capacity import Workload, family_gpu_limits, node_capacity
from fastload_constructs.core.serving.access import ServingAccess
from fastload_constructs.core.serving.capacity_buffer import buffered_pod
from fastload_constructs.core.serving.standby import LABEL_STANDBY, REQUESTER_IMAGE, STANDBY_VALUE
from fastload_constructs.infra.applied_chart import AppliedChart
from fastload_constructs.infra.gpu_nodegroup import GpuNodeGroup
from fastload_constructs.infra.image_mirror import EcrPullThroughCache
from fastload_constructs.infra.inference_cluster import InferenceCluster
from fastload_constructs.infra.karpenter import KarpenterController, KarpenterGpuNodes
from fastload_constructs.infra.manifest_export import ManifestExport
from fastload_constructs.infra.model_bucket import ModelBucket
from fastload_constructs.infra.model_reader_identity import ModelReaderIdentity
from fastload_constructs.infra.network import FastloadNetwork
from fastload_constructs.infra.node_image_snapshot import NodeImageSnapshot
from fastload_constructs.infra.nvidia_device_plugin import DEVICE_PLUGIN_IMAGE, NvidiaDevicePlugin
from fastload_constructs.infra.scale_out_metrics import KedaController, KedaScaling, ScaleOutMetrics
from fastload_constructs.infra.served_model import ServedModel
from fastload_constructs.infra.serving_namespace import ServingNamespace
from fastload_constructs.infra.serving_priority_classes import ServingPriorityClasses
from fastload_constructs.infra.standby_engines import FmaController
from fastload_constructs.k8s.capacity_buffer import CapacityBufferChart
from fastload_constructs.k8s.local_storage import PROVISIONER_IMAGE, LocalNvmeStorage
from fastload_constructs.k8s.standby import StandbyNodePoolChart
from stacks.config import ModelSpec, ReferenceConfig
from stacks.stager_grants import stager_prefixes


class FastloadReferenceStack(Stack):
    """An EKS cluster ready for fast-starting vLLM pods, configured from `ReferenceConfig`."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        config: ReferenceConfig,
        models: Sequence[ModelSpec] | None = None,
        **kwargs: Any,
    ) -> None:
        """`models`: the configured models this stack serves itself (default: all of them)."""
        super().__init__(scope, construct_id, **kwargs)
        self.config = config
        # Pulling the vLLM image through ECR in-region: the ECR api/dkr endpoints keep pulls in the VPC.
        self.network = FastloadNetwork(self, "Network", interface_endpoints=config.image_mirror is not None)
        self.image_mirror = self._add_image_mirror(config)
        # Each model's plan, for the image its pods pull (the mirror's copy of the same release).
        self.plans = {
            m.name: m.serving_plan(image=self.image_mirror.image(m.image) if self.image_mirror is not None else None)
            for m in config.models
        }
        # Managed node groups, not Auto Mode: GPU nodes need our launch
        # template (nodeadm RAID0 of the instance store).
        # A literal cluster name: Karpenter's IAM policy carries it in condition keys.
        self.cluster_name = self.stack_name
        self.inference_cluster = InferenceCluster(
            self,
            "Cluster",
            version=config.kubernetes_version,
            vpc=self.network.vpc,
            vpc_subnets=self.network.cluster_subnets,
            cluster_name=self.cluster_name,
            # Day-1 access: without these only the kubectl provider's role could reach the cluster.
            admin_role_arns=config.admin_role_arns,
            # Standbys: FMA's controller claims a volume of the default StorageClass, which the add-on makes.
            ebs_csi=any(m.standbys for m in config.models),
        )
        self.cluster: eks.ICluster = self.inference_cluster.cluster
        self._add_cluster_charts(config)
        self.node_capacity = node_capacity(
            Workload(
                name=f"fastload:models[{i}]",
                instance_type=m.instance_type,
                tensor_parallel_size=self.plans[m.name].tensor_parallel_size,
                min_replicas=m.autoscaling.min_replicas,
                max_replicas=m.autoscaling.max_replicas,
                warm_spares=m.warm_spares,
                standbys=m.standbys,
            )
            for i, m in enumerate(config.models)
        )
        self.gpu_node_groups: dict[str, GpuNodeGroup] = {}
        self.standby_node_groups: dict[str, GpuNodeGroup] = {}
        self.karpenter: KarpenterController | None = None
        self.karpenter_nodes: KarpenterGpuNodes | None = None
        self.image_cache = self._add_image_snapshot(config)
        if config.gpu_nodes == "managed":
            self._add_managed_gpu_nodes(config)
        else:
            self._add_karpenter(config)
        if self.image_mirror is not None:
            roles = [g.role for g in (*self.gpu_node_groups.values(), *self.standby_node_groups.values())]
            if self.karpenter_nodes is not None:
                roles.append(self.karpenter_nodes.node_role)
            for role in roles:
                self.image_mirror.grant_pull(role)
        # Bottlerocket's NVIDIA variants run the device plugin themselves; AL2023 needs the DaemonSet.
        self.device_plugin = (
            NvidiaDevicePlugin(self, "NvidiaDevicePlugin", cluster=self.cluster)
            if not node_os(config.nodes.ami_family).device_plugin_built_in
            else None
        )
        self._add_standby_prerequisites(config)
        CfnOutput(self, "ClusterName", value=self.cluster.cluster_name)
        self._add_model_bucket(config)
        self._add_pod_autoscaling(config)
        served = config.models if models is None else models
        self.served_models = self.serve(self, served)
        self.model_readers: dict[str, ModelReaderIdentity] = {n: m.reader for n, m in self.served_models.items()}
        self.capacity_buffers = self.buffer_capacity(self, served, self.served_models)
        self.manifest_export = ManifestExport(
            self, "ManifestExport", placeholders=self.manifest_placeholders(self.served_models.values())
        )

    def _add_image_snapshot(self, config: ReferenceConfig) -> ImageCache | None:
        """The snapshot every GPU node restores: yours (`fastload:imageCacheSnapshotId`), one the stack builds of
        every model's image (`fastload:imageSnapshot: build`, the default), or none (the image is pulled)."""
        self.image_snapshot: NodeImageSnapshot | None = None
        if config.image_cache is not None or config.nodes.snapshot == "none":
            return config.image_cache
        family = config.nodes.ami_family
        # Every pod a GPU node runs on the planned path: the servers (their cache steps run the same image), the
        # standbys' requesters, the local-volume provisioner's DaemonSet, and on AL2023 the device plugin's.
        pods = [p.serving.image for p in self.plans.values()]
        pods += [PROVISIONER_IMAGE, *((REQUESTER_IMAGE,) if any(m.standbys for m in config.models) else ())]
        images = snapshot_images(family, pods, (DEVICE_PLUGIN_IMAGE,))
        self.image_snapshot = NodeImageSnapshot(
            self,
            "NodeImages",
            images=images,
            vpc=self.network.vpc,
            subnets=self.network.gpu_subnet_selection,
            ami_family=family,
            kubernetes_version=config.kubernetes_version,
            ami_alias=config.ami_alias,
            restore=config.nodes.restore,
            fast_snapshot_restore_zones=self.network.gpu_subnets.availability_zones,
        )
        if self.image_mirror is not None:
            self.image_mirror.grant_pull(self.image_snapshot.builder_role)
        CfnOutput(self, "NodeImageSnapshotId", value=self.image_snapshot.snapshot_id)
        return self.image_snapshot.image_cache

    def buffer_capacity(
        self, scope: Stack, models: Sequence[ModelSpec], served: Mapping[str, ServedModel]
    ) -> dict[str, AppliedChart]:
        """Per model with bufferedNodes, in `scope` beside its `served` model: a CapacityBuffer holding that
        many nodes of its pod shape, after this stack's namespace and node pools."""
        buffers: dict[str, AppliedChart] = {}
        for model in models:
            count = model.serving.buffered_nodes
            if count == 0:
                continue
            assert self.karpenter_nodes is not None  # refused with managed nodes (stacks.config)
            spec = served[model.name].chart.spec
            chart = CapacityBufferChart(cdk8s.App(), f"{model.name}-buffer", pod=buffered_pod(spec, count))
            buffers[model.name] = AppliedChart(
                scope,
                f"Buffer-{model.name}",
                cluster=self.cluster,
                chart=chart,
                after=[self.namespace, self.karpenter_nodes.applied],
            )
        return buffers

    def _add_cluster_charts(self, config: ReferenceConfig) -> None:
        """What the models need on the cluster besides what each ServedModel brings: the local-nvme storage
        class (a compile-cache claim names it). The namespace and, with warm spares anywhere, the
        PriorityClasses are declared here rather than left to the first model, to keep the ids their manifests
        have in a deployed stack: CloudFormation creates a manifest whose logical id changed again, and a
        second `kubectl create` of the namespace fails the update."""
        self.local_storage = AppliedChart(
            self,
            "LocalNvmeStorage",
            cluster=self.cluster,
            chart=LocalNvmeStorage(cdk8s.App(), "local-nvme", ami_family=config.nodes.ami_family),
        )
        self.namespace = ServingNamespace(self, "Namespace", cluster=self.cluster)
        self.priority_classes = (
            ServingPriorityClasses(self, "PriorityClasses", cluster=self.cluster)
            if any(m.warm_spares for m in config.models)
            else None
        )

    def serve(self, scope: Stack, models: Sequence[ModelSpec]) -> dict[str, ServedModel]:
        """One ServedModel per model in `scope` (this stack, or a models stack): reader identity, server, warm
        spares, ScaledObject, on this stack's cluster, bucket and controllers, after its node pools."""
        config = self.config
        # Warm spares anywhere: every vLLM pod gets the class above the spares' (one spare may serve any model).
        vllm_class = self.priority_classes.classes.vllm.name if self.priority_classes is not None else None
        access = self._serving_access(config)
        after: list[IDependable] = [self.local_storage]
        if self.karpenter_nodes is not None:
            # The pods' nodes come from these pools; also puts the pools before the models in the export.
            after.append(self.karpenter_nodes.applied)
        after += self.standby_pools
        served: dict[str, ServedModel] = {}
        for model in models:
            # FMA's objects are custom resources of its CRDs, reconciled by its controllers: those first.
            model_after = [*after, self.fma.chart] if model.standbys and self.fma is not None else after
            served[model.name] = ServedModel(
                scope,
                f"Model-{model.name}",
                cluster=self.cluster,
                bucket=self.model_bucket,
                prefix=model.s3_prefix,
                model_name=model.name,
                plan=self.plans[model.name],
                server=model.server_options(
                    compile_cache_prefix=config.compile_cache_prefix,
                    priority_class_name=vllm_class,
                    # Karpenter leaves a node alone while a vLLM pod loads or serves on it (core.cluster.karpenter).
                    do_not_disrupt=self.karpenter is not None,
                ),
                access=access,
                autoscaling=self._autoscaling(model),
                after=model_after,
            )
        return served

    def _autoscaling(self, model: ModelSpec) -> KedaScaling | None:
        if not model.autoscaled:
            return None
        assert self.keda is not None  # _add_pod_autoscaling made it for every autoscaled model
        return KedaScaling(controller=self.keda, settings=model.autoscaling)

    def manifest_placeholders(self, served: Iterable[ServedModel]) -> dict[str, str]:
        """What the YAML export of this stack's charts, or of a models stack's `served` models, writes for each
        deploy-time value (fill them with envsubst from the stack's outputs)."""
        placeholders: dict[str, str] = {}
        if Token.is_unresolved(self.region):
            placeholders[self.region] = "${AWS_REGION}"
        if Token.is_unresolved(self.model_bucket.bucket_name) and self.config.model_bucket_name is None:
            placeholders[self.model_bucket.bucket_name] = "${MODEL_BUCKET_NAME}"
        if self.karpenter_nodes is not None:
            placeholders[self.karpenter_nodes.node_role.role_name] = "${KARPENTER_NODE_ROLE}"
            placeholders[self.inference_cluster.security_group_id] = "${CLUSTER_SECURITY_GROUP_ID}"
            if self.image_snapshot is not None:
                placeholders[self.image_snapshot.snapshot_id] = "${NODE_IMAGE_SNAPSHOT_ID}"
        if self.metrics is not None:
            placeholders[self.metrics.query_endpoint] = "${PROMETHEUS_QUERY_URL}"
        if self.image_mirror is not None:  # an ECR mirror in an environment-agnostic stack
            images = [m.chart.spec.image for m in served]
            for token, placeholder in ((self.account, "${AWS_ACCOUNT_ID}"), (self.url_suffix, "${AWS_URL_SUFFIX}")):
                if Token.is_unresolved(token) and any(token in image for image in images):
                    placeholders[token] = placeholder
        return placeholders

    def _serving_access(self, config: ReferenceConfig) -> ServingAccess | None:
        """With pod autoscaling, the managed Prometheus scraper must reach vLLM's /metrics on the server port.

        Its network interfaces sit in the network's Monitoring subnets, where nothing else runs, so the
        vLLM NetworkPolicy admits exactly those CIDRs besides the namespace's own pods. Without
        autoscaling only the namespace's own pods get in.
        """
        if self.metrics is None:
            return None
        return ServingAccess(allow_from_cidrs=tuple(dict.fromkeys(self.metrics.scraper_cidrs)))

    def _monitoring_subnets(self) -> list[ec2.ISubnet]:
        subnets = self.network.monitoring_subnets
        assert subnets is not None  # the reference stack creates its VPC, which has them
        return list(subnets.subnets)

    def _add_standby_prerequisites(self, config: ReferenceConfig) -> None:
        """With standbys anywhere: FMA (its CRDs, controllers) in the models' namespace, and the standby pool of
        each instance type that has standbys (a tainted Karpenter NodePool, or managed nodes made by
        `_add_managed_gpu_nodes`)."""
        self.fma: FmaController | None = None
        self.standby_pools: list[AppliedChart] = []
        if not any(m.standbys for m in config.models):
            return
        self.fma = FmaController(self, "Fma", cluster=self.cluster, after=[self.namespace])
        if self.karpenter_nodes is None:
            return
        for instance_type, capacity in self.node_capacity.items():
            if capacity.standby_gpus:
                pool = StandbyNodePoolChart(
                    cdk8s.App(),
                    f"standby-{instance_type.replace('.', '-')}",
                    instance_type=instance_type,
                    node_class=self.karpenter_nodes.chart.node.id,
                    gpu_limit=capacity.standby_nodes * capacity.instance.gpu_count,
                    ami_family=config.nodes.ami_family,
                )
                self.standby_pools.append(
                    AppliedChart(
                        self,
                        f"StandbyNodes-{instance_type}",
                        cluster=self.cluster,
                        chart=pool,
                        after=[self.karpenter_nodes.applied],
                    )
                )

    def _add_managed_gpu_nodes(self, config: ReferenceConfig) -> None:
        """Fixed node groups holding every model's maxReplicas plus one surge pod each (core.scaling).

        No node autoscaler runs on these groups, so the peak is provisioned and paid
        for at idle; the surge room lets a rolling update (maxSurge 1,
        maxUnavailable 0) of every model at once finish.
        """
        for instance_type, capacity in self.node_capacity.items():
            # The standby nodes are a group of their own, labelled and tainted as the standby pool.
            nodes = capacity.peak_nodes - capacity.standby_nodes
            if capacity.standby_nodes:
                self.standby_node_groups[instance_type] = self._gpu_node_group(
                    config,
                    "Standby-" + instance_type.replace(".", "-"),
                    instance_type,
                    capacity.standby_nodes,
                    standby=True,
                )
            self.gpu_node_groups[instance_type] = self._gpu_node_group(
                config, "Gpu-" + instance_type.replace(".", "-"), instance_type, nodes
            )

    def _gpu_node_group(
        self, config: ReferenceConfig, id: str, instance_type: str, nodes: int, *, standby: bool = False
    ) -> GpuNodeGroup:
        return GpuNodeGroup(
            self,
            id,
            cluster=self.cluster,
            instance_type=instance_type,
            min_size=nodes,
            desired_size=nodes,
            max_size=nodes,
            extra_labels={LABEL_STANDBY: STANDBY_VALUE} if standby else None,
            extra_taints=(Taint(LABEL_STANDBY, STANDBY_VALUE, "NoSchedule"),) if standby else (),
            subnets=self.network.gpu_subnet_selection,
            # What the plans of the models on this type were made for: the family, and the image on the
            # snapshot (or, without one, AL2023's parallel pull, SOCI, whose store sits on the NVMe).
            ami_family=config.nodes.ami_family,
            fast_image_pull=any(
                p.serving.fast_image_pull for p in self.plans.values() if p.instance.name == instance_type
            ),
            image_cache=self.image_cache,
        )

    def _add_karpenter(self, config: ReferenceConfig) -> None:
        """Karpenter controller + GPU NodePools limited to the peak GPUs (max replicas + surge) per family."""
        cluster_sg = self.inference_cluster.security_group_id
        self.karpenter = KarpenterController(
            self,
            "Karpenter",
            cluster=self.cluster,
            cluster_name=self.cluster_name,
            subnets=self.network.gpu_subnets.subnets,
            system_nodes=self.inference_cluster.system_nodes,
            capacity_buffers=any(m.serving.buffered_nodes > 0 for m in config.models),
        )
        # NodePool and EC2NodeClass are Karpenter's CRDs: the method orders them after its Helm chart.
        self.karpenter_nodes = self.karpenter.add_gpu_node_pools(
            "GpuNodes",
            instance_types=list(config.instance_types),
            options=NodePoolOptions(
                gpu_limits=family_gpu_limits(self.node_capacity),
                fast_image_pull=any(p.serving.fast_image_pull for p in self.plans.values()),
                image_cache=self.image_cache,
                ami_alias=config.ami_alias,
                ami_family=config.nodes.ami_family,
                kubernetes_version=config.kubernetes_version,
            ),
            security_group_ids=[cluster_sg],
        )
        # What the exported EC2NodeClass names as ${KARPENTER_NODE_ROLE} and ${CLUSTER_SECURITY_GROUP_ID}.
        CfnOutput(self, "KarpenterNodeRoleName", value=self.karpenter_nodes.node_role.role_name)
        CfnOutput(self, "ClusterSecurityGroupId", value=cluster_sg)

    def _add_pod_autoscaling(self, config: ReferenceConfig) -> None:
        """KEDA on vLLM's queue for every model with maxReplicas > minReplicas, metrics through AMP (each
        model's ScaledObject comes with its ServedModel)."""
        self.metrics: ScaleOutMetrics | None = None
        self.keda: KedaController | None = None
        if not any(m.autoscaled for m in config.models):
            return
        cluster_sg = self.inference_cluster.security_group_id
        self.metrics = ScaleOutMetrics(
            self,
            "Metrics",
            cluster=self.cluster,
            scraper_subnets=self._monitoring_subnets(),
            security_group_ids=[cluster_sg],
            cluster_label=self.cluster_name,
            karpenter_namespace="kube-system" if self.karpenter is not None else None,
        )
        self.keda = KedaController(
            self,
            "Keda",
            cluster=self.cluster,
            metrics=self.metrics,
            system_nodes=self.inference_cluster.system_nodes,
        )
        CfnOutput(self, "PrometheusQueryUrl", value=self.metrics.query_endpoint)

    def _add_image_mirror(self, config: ReferenceConfig) -> EcrPullThroughCache | None:
        """`fastload:vllmImageMirror`: a pull-through cache rule the GPU nodes pull the vLLM image through."""
        if config.image_mirror is None:
            return None
        arn = config.image_mirror.credential_secret_arn
        return EcrPullThroughCache(
            self,
            "VllmImage",
            upstream=config.image_mirror.upstream,
            credential_secret=secretsmanager.Secret.from_secret_complete_arn(self, "UpstreamCredentials", arn)
            if arn
            else None,
            network=self.network,
        )

    def _add_model_bucket(self, config: ReferenceConfig) -> None:
        """The model bucket, locked to the network's S3 endpoint (stagers upload their models' prefixes); each
        model's read-only identity comes with its ServedModel."""
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
        for prefix in self._stager_prefixes(config):
            for stager in stagers:
                self.model_bucket.grant_stage_models(stager, prefix)
        CfnOutput(self, "ModelBucketName", value=self.model_bucket.bucket_name)

    def _stager_prefixes(self, config: ReferenceConfig) -> tuple[str, ...]:
        """Each model's prefix, or their common folders where S3's 20 KB bucket policy needs fewer grants
        (`stacks.stager_grants`); said at synth when they are folders."""
        own = tuple(dict.fromkeys(m.s3_prefix for m in config.models))
        if not config.stager_role_arns:
            return own
        prefixes = stager_prefixes(
            own,
            config.stager_role_arns,
            cache_prefix=config.compile_cache_prefix,
            bucket_name=config.model_bucket_name,
            context=self.node.get_all_context(),
        )
        if prefixes != own:
            Annotations.of(self.model_bucket).add_info(
                f"stagers are granted {', '.join(prefixes)} rather than the {len(own)} model prefixes: their "
                "grants of every prefix would take the bucket policy past S3's 20 KB"
            )
        return prefixes
