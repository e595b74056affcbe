"""Karpenter alternative to managed node groups: one EC2NodeClass, one NodePool per GPU family.

The specs are decided in `fastload_constructs.core.cluster.karpenter`; this chart emits them.

This chart only emits the two kinds of custom resources; `infra.KarpenterController`
installs the controller (Helm chart, IAM role, interruption queue, discovery
tags) and `infra.KarpenterGpuNodes` the node role and its access entry.
"""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
from constructs import Construct

from fastload_constructs.core.cluster.karpenter import (
    NODECLASS_API_VERSION,
    NODEPOOL_API_VERSION,
    NodePoolOptions,
    node_class_spec,
    node_pool_spec,
    plan_node_pools,
)
from fastload_constructs.core.errors import require
from fastload_constructs.core.naming import MANAGED_BY, PART_OF


class KarpenterGpuNodePools(cdk8s.Chart):
    """EC2NodeClass `<id>` and NodePools `<id>-<family>` for the chosen GPU types or families.

    Attributes: `node_class` (ApiObject), `node_pools` (family -> ApiObject), `families`.
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
        """`options`: capacity, instance store, root volume, AMI, GPU limits, FastImagePull (`NodePoolOptions`).
        `security_group_ids`: the node security groups (default: selected by the discovery tag)."""
        opts = options if options is not None else NodePoolOptions()
        node_specs = plan_node_pools(instance_types, opts)
        require(isinstance(node_role, str) and node_role != "", "node_role", node_role, "the name of the node IAM role")
        require(
            isinstance(cluster_name, str) and cluster_name != "", "cluster_name", cluster_name, "the EKS cluster name"
        )
        super().__init__(
            scope,
            id,
            labels={
                "app.kubernetes.io/name": "karpenter-gpu-nodes",
                "app.kubernetes.io/instance": id,
                "app.kubernetes.io/component": "node-provisioning",
                "app.kubernetes.io/part-of": PART_OF,
                "app.kubernetes.io/managed-by": MANAGED_BY,
            },
        )
        self.families = tuple(node_specs)
        self.node_class = cdk8s.ApiObject(
            self,
            "EC2NodeClass",
            api_version=NODECLASS_API_VERSION,
            kind="EC2NodeClass",
            metadata=cdk8s.ApiObjectMetadata(name=id),
        )
        self.node_class.add_json_patch(
            cdk8s.JsonPatch.add(
                "/spec",
                node_class_spec(
                    cluster_name=cluster_name,
                    node_role=node_role,
                    instance_store=opts.instance_store,
                    root_volume_gib=opts.root_volume_gib,
                    ami_alias=opts.ami_alias,
                    root_volume_throughput_mibps=next(iter(node_specs.values()))[0].root_volume_throughput_mibps,
                    fast_image_pull=opts.fast_image_pull,
                    capacity_reservation_ids=opts.capacity_reservation_ids,
                    security_group_ids=security_group_ids,
                    image_cache=opts.image_cache,
                ),
            )
        )
        self.node_pools: dict[str, cdk8s.ApiObject] = {}
        for family, specs in node_specs.items():
            pool = cdk8s.ApiObject(
                self,
                f"NodePool-{family}",
                api_version=NODEPOOL_API_VERSION,
                kind="NodePool",
                metadata=cdk8s.ApiObjectMetadata(name=f"{id}-{family}"),
            )
            pool.add_json_patch(
                cdk8s.JsonPatch.add(
                    "/spec",
                    node_pool_spec(
                        specs[0],
                        [s.instance.name for s in specs],
                        node_class=id,
                        capacity_types=opts.capacity_types,
                        gpu_limit=opts.limit_of(family),
                    ),
                )
            )
            self.node_pools[family] = pool
