"""Standby engines for one model on FMA v0.6.4 (launcher mode), and the standby node pool.

Renders what `core.serving.standby` decided; it decides nothing itself.

`StandbyEnginesChart` replaces `ServerChart`'s Deployment for a model with
standbys (the same name, so KEDA's ScaledObject scales it unchanged):

* ServiceAccount `<model>-vllm` (Pod Identity reads the model as before), Role and
  RoleBinding `<name>-launcher` (the launcher's state-change-reflector gets and
  patches its own Pod), ConfigMaps `<name>-path-filter` (the path filter's nginx.conf) and
  `<name>-cache-sync` (with the node-local model copy);
* `InferenceServerConfig` and `LauncherConfig` `<name>`, `LauncherPopulationPolicy`
  `<name>-standby` (`fma.llm-d.ai/v1alpha1`, vendored in tests/fixtures/fma-0.6.4);
* requester Deployment `<name>` (KEDA's target), primer Deployment `<name>-standby`
  (N requesters on the standby pool; scale it to 0 once Ready and the engines sleep);
* Service `<name>` on 8000 -> the path filter, selecting the routing label FMA puts on a
  launcher only while its engine is awake; PodDisruptionBudget on the requesters;
* NetworkPolicies: launcher Pods admit only FMA's controller to the engine (8000) and
  launcher (8001) ports and the ServingAccess peers to the path filter; requester Pods
  admit only the controller to their SPI (8081).

`StandbyNodePoolChart`: a Karpenter NodePool of standby nodes (label and taint
`fastload.io/standby=true`), limited to the standby GPUs, on an existing EC2NodeClass.
"""

from __future__ import annotations

from typing import Any

import cdk8s
from constructs import Construct

from fastload_constructs.core.cluster.ami_family import DEFAULT_AMI_FAMILY, AmiFamily
from fastload_constructs.core.errors import require
from fastload_constructs.core.naming import MANAGED_BY, PART_OF
from fastload_constructs.core.planning.plan import ServingPlan
from fastload_constructs.core.serving.access import ServingAccess
from fastload_constructs.core.serving.path_filter import CONFIG_FILE
from fastload_constructs.core.serving.runtime_scripts import runtime_scripts
from fastload_constructs.core.serving.server_pod import ServerSpec
from fastload_constructs.core.serving.standby import (
    ENGINE_PORT,
    FMA_API_VERSION,
    LAUNCHER_PORT,
    PROXY_PORT,
    REQUESTER_SPI_PORT,
    StandbySpec,
    proxy_config,
    standby_node_pool,
    standby_spec,
)
from fastload_constructs.k8s.imports.karpenter.sh import karpenter as sh
from fastload_constructs.k8s.karpenter import node_pool_props


def _object(scope: Construct, id: str, api_version: str, kind: str, name: str, body: dict[str, Any]) -> cdk8s.ApiObject:
    obj = cdk8s.ApiObject(scope, id, api_version=api_version, kind=kind, metadata=cdk8s.ApiObjectMetadata(name=name))
    for key, value in body.items():
        obj.add_json_patch(cdk8s.JsonPatch.add(f"/{key}", value))
    return obj


class StandbyEnginesChart(cdk8s.Chart):
    """FMA's objects for `server` (a `ServerSpec` of `plan`) with `standbys` sleeping engines.

    `standbys`: default the plan's (`plan.serving.standbys`).

    `access`: who may reach the path filter (default: the namespace's pods, as `ServerChart`).
    `release`: the Helm release of FMA's controllers in this namespace (`infra.FmaController`).
    `co_sleepers`: sleeping engines of other models that may share a GPU (see `core.serving.standby`).
    Attributes: `spec` (`StandbySpec`), `requesters`, `primer`, `service`, `network_policies`.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        plan: ServingPlan,
        server: ServerSpec,
        standbys: int | None = None,
        access: ServingAccess | None = None,
        release: str = "fma",
        co_sleepers: int = 1,
    ) -> None:
        require(
            access is None or isinstance(access, ServingAccess),
            "access",
            access,
            "None or a ServingAccess(network_policy=..., allow_from_namespaces=..., allow_from_cidrs=...)",
        )
        count = plan.serving.standbys if standbys is None else standbys
        spec = standby_spec(plan, server, standbys=count, release=release, co_sleepers=co_sleepers)
        super().__init__(scope, id, namespace=spec.namespace, labels=dict(spec.labels))
        self.spec = spec
        self.access = access if access is not None else ServingAccess()
        name = spec.name
        _object(
            self,
            "ServiceAccount",
            "v1",
            "ServiceAccount",
            spec.service_account_name,
            {"automountServiceAccountToken": False},
        )
        _object(
            self,
            "LauncherRole",
            "rbac.authorization.k8s.io/v1",
            "Role",
            f"{name}-launcher",
            {"rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "patch"]}]},
        )
        _object(
            self,
            "LauncherRoleBinding",
            "rbac.authorization.k8s.io/v1",
            "RoleBinding",
            f"{name}-launcher",
            {
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": f"{name}-launcher"},
                "subjects": [
                    {"kind": "ServiceAccount", "name": spec.service_account_name, "namespace": spec.namespace}
                ],
            },
        )
        _object(self, "PathFilter", "v1", "ConfigMap", f"{name}-path-filter", {"data": {CONFIG_FILE: proxy_config()}})
        if spec.init_containers:
            _object(
                self,
                "CacheSyncScript",
                "v1",
                "ConfigMap",
                f"{name}-cache-sync",
                {"data": runtime_scripts()},
            )
        self.isc = _object(
            self, "InferenceServerConfig", FMA_API_VERSION, "InferenceServerConfig", name, {"spec": spec.isc}
        )
        self.launcher_config = _object(
            self, "LauncherConfig", FMA_API_VERSION, "LauncherConfig", name, {"spec": spec.launcher_config}
        )
        self.population_policy = _object(
            self,
            "LauncherPopulationPolicy",
            FMA_API_VERSION,
            "LauncherPopulationPolicy",
            spec.policy_name,
            {"spec": spec.population_policy},
        )
        self.requesters = self._deployment("Requesters", name, spec, spec.requester_template, spec.requester_replicas)
        self.primer = self._deployment("StandbyPrimer", spec.primer_name, spec, spec.primer_template, spec.standbys)
        self.service = _object(
            self,
            "Service",
            "v1",
            "Service",
            name,
            {
                "spec": {
                    "type": "ClusterIP",
                    "selector": dict(spec.service_selector),
                    "ports": [{"name": "http", "port": ENGINE_PORT, "targetPort": PROXY_PORT, "protocol": "TCP"}],
                }
            },
        )
        _object(
            self,
            "DisruptionBudget",
            "policy/v1",
            "PodDisruptionBudget",
            name,
            {
                "spec": {
                    "maxUnavailable": 1,
                    "unhealthyPodEvictionPolicy": "AlwaysAllow",
                    "selector": {"matchLabels": dict(spec.requester_selector)},
                }
            },
        )
        self.network_policies = self._network_policies(spec) if self.access.network_policy else []

    @property
    def service_url(self) -> str:
        return f"http://{self.spec.name}.{self.spec.namespace}.svc.cluster.local:{ENGINE_PORT}"

    def _deployment(
        self, id: str, name: str, spec: StandbySpec, template: dict[str, Any], replicas: int | None
    ) -> cdk8s.ApiObject:
        selector = spec.requester_selector if name == spec.name else spec.primer_selector
        body: dict[str, Any] = {
            "selector": {"matchLabels": dict(selector)},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1, "maxUnavailable": 0}},
            "template": template,
        }
        if replicas is not None:  # None: KEDA's HPA owns the count, a re-applied manifest never resets it
            body["replicas"] = replicas
        deployment = _object(self, id, "apps/v1", "Deployment", name, {"spec": body})
        if name == spec.name and spec.deployment_annotations:
            for key, value in spec.deployment_annotations.items():
                deployment.metadata.add_annotation(key, value)
        return deployment

    def _network_policies(self, spec: StandbySpec) -> list[cdk8s.ApiObject]:
        controller = {"podSelector": {"matchLabels": dict(spec.controller_labels)}}
        clients: list[dict[str, Any]] = [{"podSelector": {}}]
        for namespace in self.access.allow_from_namespaces:
            clients.append({"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}}})
        for cidr in self.access.allow_from_cidrs:
            clients.append({"ipBlock": {"cidr": cidr}})

        def tcp(*ports: int) -> list[dict[str, Any]]:
            return [{"protocol": "TCP", "port": p} for p in ports]

        launcher = _object(
            self,
            "LauncherNetworkPolicy",
            "networking.k8s.io/v1",
            "NetworkPolicy",
            f"{spec.name}-launcher",
            {
                "spec": {
                    "podSelector": {"matchLabels": dict(spec.launcher_selector)},
                    "policyTypes": ["Ingress"],
                    "ingress": [
                        # /sleep, /wake_up and the launcher API: FMA's dual-pods controller only.
                        {"from": [controller], "ports": tcp(LAUNCHER_PORT, ENGINE_PORT)},
                        # Clients (and the metrics scraper): the path filter only.
                        {"from": clients, "ports": tcp(PROXY_PORT)},
                    ],
                }
            },
        )
        requester = _object(
            self,
            "RequesterNetworkPolicy",
            "networking.k8s.io/v1",
            "NetworkPolicy",
            f"{spec.name}-requester",
            {
                "spec": {
                    # The KEDA Deployment's requesters and the primer's alike.
                    "podSelector": {
                        "matchLabels": {
                            k: v for k, v in spec.requester_selector.items() if k != "app.kubernetes.io/instance"
                        }
                    },
                    "policyTypes": ["Ingress"],
                    "ingress": [{"from": [controller], "ports": tcp(REQUESTER_SPI_PORT)}],
                }
            },
        )
        return [launcher, requester]


class StandbyNodePoolChart(cdk8s.Chart):
    """NodePool `<id>`: standby nodes of `instance_type` (label and taint `fastload.io/standby=true`).

    `node_class`: the EC2NodeClass the GPU pools use (`KarpenterGpuNodePools`' id); `gpu_limit`: the
    standby GPUs (`core.scaling.capacity.NodeCapacity.standby_gpus`); `ami_family`: the node class's (default
    bottlerocket). Attributes: `node_pool` (the typed NodePool), `node_pool_spec` (its spec).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        instance_type: str,
        node_class: str,
        gpu_limit: int,
        capacity_types: tuple[str, ...] = ("on-demand",),
        instance_store: bool = True,
        ami_family: AmiFamily = DEFAULT_AMI_FAMILY,
    ) -> None:
        self.node_pool_spec = standby_node_pool(
            instance_type,
            node_class=node_class,
            capacity_types=capacity_types,
            gpu_limit=gpu_limit,
            instance_store=instance_store,
            ami_family=ami_family,
        )
        super().__init__(
            scope,
            id,
            labels={
                "app.kubernetes.io/name": "karpenter-standby-nodes",
                "app.kubernetes.io/instance": id,
                "app.kubernetes.io/component": "node-provisioning",
                "app.kubernetes.io/part-of": PART_OF,
                "app.kubernetes.io/managed-by": MANAGED_BY,
            },
        )
        self.node_pool = sh.NodePool(
            self, "NodePool", metadata=cdk8s.ApiObjectMetadata(name=id), spec=node_pool_props(self.node_pool_spec)
        )
