"""Karpenter's objects: one EC2NodeClass and one NodePool per GPU family, and CapacityBuffers that hold nodes.

The specs are decided in `fastload_constructs.core.cluster.karpenter` as typed data; this module renders
them through the classes `cdk8s import` generated from Karpenter v1.14.1's CRDs
(`k8s.imports.karpenter`, README there), so a field the CRD does not have fails at synth, in Python.

This chart only emits the custom resources; `infra.KarpenterController` installs the controller (Helm
chart, IAM role, interruption queue, discovery tags) and `infra.KarpenterGpuNodes` the node role and its
access entry.
"""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
from constructs import Construct

from fastload_constructs.core.cluster.gpu_nodes import Taint
from fastload_constructs.core.cluster.karpenter import (
    CONSOLIDATE_AFTER,
    DISRUPTION_BUDGET_NODES,
    HTTP_PUT_RESPONSE_HOP_LIMIT,
    METADATA_OPTIONS,
    BlockDevice,
    CapacityBufferSpec,
    NodeClassSpec,
    NodePoolOptions,
    NodePoolSpec,
    Requirement,
    node_class_for,
    node_pool,
    plan_node_pools,
)
from fastload_constructs.core.errors import require
from fastload_constructs.core.naming import GPU_RESOURCE, MANAGED_BY, PART_OF
from fastload_constructs.k8s.imports.karpenter.aws.k8s import karpenter as ec2
from fastload_constructs.k8s.imports.karpenter.io.x_k8s import autoscaling
from fastload_constructs.k8s.imports.karpenter.sh import karpenter as sh

_EFFECT = {
    "NoSchedule": sh.NodePoolSpecTemplateSpecTaintsEffect.NO_SCHEDULE,
    "PreferNoSchedule": sh.NodePoolSpecTemplateSpecTaintsEffect.PREFER_NO_SCHEDULE,
    "NoExecute": sh.NodePoolSpecTemplateSpecTaintsEffect.NO_EXECUTE,
}
_OPERATOR = {
    "In": sh.NodePoolSpecTemplateSpecRequirementsOperator.IN,
    "NotIn": sh.NodePoolSpecTemplateSpecRequirementsOperator.NOT_IN,
    "Exists": sh.NodePoolSpecTemplateSpecRequirementsOperator.EXISTS,
    "DoesNotExist": sh.NodePoolSpecTemplateSpecRequirementsOperator.DOES_NOT_EXIST,
}
_ENABLED = {
    "enabled": ec2.Ec2NodeClassSpecMetadataOptionsHttpEndpoint.ENABLED,
    "disabled": ec2.Ec2NodeClassSpecMetadataOptionsHttpEndpoint.DISABLED,
}
_IPV6 = {
    "enabled": ec2.Ec2NodeClassSpecMetadataOptionsHttpProtocolIPv6.ENABLED,
    "disabled": ec2.Ec2NodeClassSpecMetadataOptionsHttpProtocolIPv6.DISABLED,
}
_TOKENS = {
    "required": ec2.Ec2NodeClassSpecMetadataOptionsHttpTokens.REQUIRED,
    "optional": ec2.Ec2NodeClassSpecMetadataOptionsHttpTokens.OPTIONAL,
}


def _taint(taint: Taint) -> sh.NodePoolSpecTemplateSpecTaints:
    return sh.NodePoolSpecTemplateSpecTaints(key=taint.key, value=taint.value, effect=_EFFECT[taint.effect])


def _requirement(r: Requirement) -> sh.NodePoolSpecTemplateSpecRequirements:
    return sh.NodePoolSpecTemplateSpecRequirements(key=r.key, operator=_OPERATOR[r.operator], values=list(r.values))


def _disruption(spec: NodePoolSpec) -> sh.NodePoolSpecDisruption:
    budgets = [sh.NodePoolSpecDisruptionBudgets(nodes=DISRUPTION_BUDGET_NODES)]
    if spec.replicas is not None:  # a static pool: consolidation does not apply
        return sh.NodePoolSpecDisruption(consolidate_after=CONSOLIDATE_AFTER, budgets=budgets)
    return sh.NodePoolSpecDisruption(
        consolidation_policy=sh.NodePoolSpecDisruptionConsolidationPolicy.WHEN_EMPTY,
        consolidate_after=CONSOLIDATE_AFTER,
        budgets=budgets,
    )


def _limits(spec: NodePoolSpec) -> dict[str, sh.NodePoolSpecLimits] | None:
    if spec.replicas is not None:
        return {"nodes": sh.NodePoolSpecLimits.from_string(str(spec.replicas))}
    if spec.gpu_limit is not None:
        return {GPU_RESOURCE: sh.NodePoolSpecLimits.from_number(spec.gpu_limit)}
    return None


def node_pool_props(spec: NodePoolSpec) -> sh.NodePoolSpec:
    """A `NodePoolSpec` as the imported class."""
    template = sh.NodePoolSpecTemplate(
        metadata=sh.NodePoolSpecTemplateMetadata(labels=dict(spec.labels)),
        spec=sh.NodePoolSpecTemplateSpec(
            node_class_ref=sh.NodePoolSpecTemplateSpecNodeClassRef(
                group="karpenter.k8s.aws", kind="EC2NodeClass", name=spec.node_class
            ),
            taints=[_taint(t) for t in spec.taints],
            requirements=[_requirement(r) for r in spec.requirements],
            expire_after=spec.expire_after,
        ),
    )
    return sh.NodePoolSpec(
        template=template, disruption=_disruption(spec), limits=_limits(spec), replicas=spec.replicas
    )


def _block_device(device: BlockDevice) -> ec2.Ec2NodeClassSpecBlockDeviceMappings:
    return ec2.Ec2NodeClassSpecBlockDeviceMappings(
        device_name=device.device_name,
        root_volume=True if device.root_volume else None,
        ebs=ec2.Ec2NodeClassSpecBlockDeviceMappingsEbs(
            volume_size=f"{device.volume_gib}Gi",
            volume_type=ec2.Ec2NodeClassSpecBlockDeviceMappingsEbsVolumeType.GP3,
            snapshot_id=device.snapshot_id,
            iops=device.iops,
            throughput=device.throughput_mibps,
            encrypted=device.encrypted,
            kms_key_id=device.kms_key_id,
            volume_initialization_rate=device.initialization_rate_mibps,
            delete_on_termination=True,
        ),
    )


def node_class_props(spec: NodeClassSpec) -> ec2.Ec2NodeClassSpec:
    """A `NodeClassSpec` as the imported class."""
    security_groups = [ec2.Ec2NodeClassSpecSecurityGroupSelectorTerms(id=i) for i in spec.security_group_ids] or [
        ec2.Ec2NodeClassSpecSecurityGroupSelectorTerms(tags=dict(spec.security_group_tags))
    ]
    reservations = [ec2.Ec2NodeClassSpecCapacityReservationSelectorTerms(id=i) for i in spec.capacity_reservation_ids]
    return ec2.Ec2NodeClassSpec(
        role=spec.role,
        ami_selector_terms=[ec2.Ec2NodeClassSpecAmiSelectorTerms(alias=spec.ami_alias)],
        subnet_selector_terms=[ec2.Ec2NodeClassSpecSubnetSelectorTerms(tags=dict(spec.subnet_tags))],
        security_group_selector_terms=security_groups,
        block_device_mappings=[_block_device(d) for d in spec.block_devices],
        metadata_options=ec2.Ec2NodeClassSpecMetadataOptions(
            http_endpoint=_ENABLED[str(METADATA_OPTIONS["httpEndpoint"])],
            http_protocol_i_pv6=_IPV6[str(METADATA_OPTIONS["httpProtocolIPv6"])],
            http_tokens=_TOKENS[str(METADATA_OPTIONS["httpTokens"])],
            http_put_response_hop_limit=HTTP_PUT_RESPONSE_HOP_LIMIT,
        ),
        instance_store_policy=(
            ec2.Ec2NodeClassSpecInstanceStorePolicy.RAID0 if spec.instance_store_policy == "RAID0" else None
        ),
        user_data=spec.user_data,
        capacity_reservation_selector_terms=reservations or None,
    )


def capacity_buffer_props(spec: CapacityBufferSpec) -> autoscaling.CapacityBufferSpec:
    """A `CapacityBufferSpec` as the imported class."""
    return autoscaling.CapacityBufferSpec(
        pod_template_ref=autoscaling.CapacityBufferSpecPodTemplateRef(name=spec.pod_template),
        replicas=spec.replicas,
    )


def _labels(id: str, component: str) -> dict[str, str]:
    return {
        "app.kubernetes.io/name": "karpenter-gpu-nodes",
        "app.kubernetes.io/instance": id,
        "app.kubernetes.io/component": component,
        "app.kubernetes.io/part-of": PART_OF,
        "app.kubernetes.io/managed-by": MANAGED_BY,
    }


class KarpenterGpuNodePools(cdk8s.Chart):
    """EC2NodeClass `<id>` and NodePools `<id>-<family>` for the chosen GPU types or families.

    Attributes: `node_class` (Ec2NodeClass), `node_pools` (family -> NodePool), `families`,
    `node_class_spec` and `node_pool_specs` (the typed specs rendered).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster_name: str,
        node_role: str,
        instance_types: Sequence[str],
        options: NodePoolOptions | None = None,
        security_group_ids: Sequence[str] = (),
    ) -> None:
        """`options`: node family and AMI, capacity, instance store, volumes, GPU limits, image cache
        (`NodePoolOptions`). `security_group_ids`: the node security groups (default: the discovery tag)."""
        opts = options if options is not None else NodePoolOptions()
        node_specs = plan_node_pools(instance_types, opts)
        require(isinstance(node_role, str) and node_role != "", "node_role", node_role, "the name of the node IAM role")
        require(
            isinstance(cluster_name, str) and cluster_name != "", "cluster_name", cluster_name, "the EKS cluster name"
        )
        super().__init__(scope, id, labels=_labels(id, "node-provisioning"))
        self.families = tuple(node_specs)
        self.node_class_spec = node_class_for(
            opts, node_specs, cluster_name=cluster_name, node_role=node_role, security_group_ids=security_group_ids
        )
        self.node_class = ec2.Ec2NodeClass(
            self,
            "EC2NodeClass",
            metadata=cdk8s.ApiObjectMetadata(name=id),
            spec=node_class_props(self.node_class_spec),
        )
        self.node_pool_specs: dict[str, NodePoolSpec] = {}
        self.node_pools: dict[str, sh.NodePool] = {}
        for family, specs in node_specs.items():
            self.node_pool_specs[family] = node_pool(
                specs[0],
                [s.instance.name for s in specs],
                node_class=id,
                capacity_types=opts.capacity_types,
                gpu_limit=opts.limit_of(family),
            )
            self.node_pools[family] = sh.NodePool(
                self,
                f"NodePool-{family}",
                metadata=cdk8s.ApiObjectMetadata(name=f"{id}-{family}"),
                spec=node_pool_props(self.node_pool_specs[family]),
            )
