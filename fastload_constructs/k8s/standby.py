"""Standby engines for one model on FMA v0.6.4 (launcher mode), and the standby node pool.

Renders what `core.serving.standby` decided, as typed data; it decides nothing itself. FMA's objects go
through the classes `cdk8s import` made of FMA's CRDs (`k8s.fma_objects`), the Kubernetes ones through
cdk8s-plus's generated classes (`cdk8s_plus_28.k8s`, the requester pods by `k8s.kube_pod_template`).

`StandbyEnginesChart` replaces `ServerChart`'s Deployment for a model with
standbys (the same name, so KEDA's ScaledObject scales it unchanged):

* ServiceAccount `<model>-vllm` (Pod Identity reads the model as before), Role and
  RoleBinding `<name>-launcher` (the launcher's state-change-reflector gets and
  patches its own Pod), ConfigMaps `<name>-path-filter` (the path filter's nginx.conf) and
  `<name>-cache-sync` (with the node-local model copy);
* `InferenceServerConfig` and `LauncherConfig` `<name>`, `LauncherPopulationPolicy`
  `<name>-standby` (`fma.llm-d.ai/v1alpha1`; the CRDs are `infra/charts/fma-crds`);
* requester Deployment `<name>` (KEDA's target), primer Deployment `<name>-standby`
  (requesters on the standby pool, 0 at rest), and the Job `<name>-standby-prime-<hash>` that
  raises it to N until their engines are awake, then to 0, so they sleep (ServiceAccount, Role and
  RoleBinding `<name>-standby-primer`: get and scale that Deployment only);
* Service `<name>` on 8000 -> the path filter, selecting the routing label FMA puts on a
  launcher only while its engine is awake; PodDisruptionBudget on the requesters;
* NetworkPolicies: launcher Pods admit only FMA's controller to the engine (8000) and
  launcher (8001) ports and the ServingAccess peers to the path filter; requester Pods
  admit only the controller to their SPI (8081); the priming Job's pod admits nothing.

The Deployments and the Job carry their deliberate checkov findings with reasons (`core.serving.checkov_skips`).

`StandbyNodePoolChart`: a Karpenter NodePool of standby nodes (label and taint
`fastload.io/standby=true`), limited to the standby GPUs, on an existing EC2NodeClass.
"""

from __future__ import annotations

from collections.abc import Mapping

import cdk8s
from cdk8s_plus_28 import k8s
from constructs import Construct

from fastload_constructs.core.cluster.ami_family import DEFAULT_AMI_FAMILY, AmiFamily
from fastload_constructs.core.errors import require
from fastload_constructs.core.naming import MANAGED_BY, PART_OF
from fastload_constructs.core.planning.plan import ServingPlan
from fastload_constructs.core.serving.access import ServingAccess
from fastload_constructs.core.serving.checkov_skips import Workload, skip_annotations, workload_skips
from fastload_constructs.core.serving.path_filter import CONFIG_FILE
from fastload_constructs.core.serving.pod_template import PodTemplate
from fastload_constructs.core.serving.runtime_scripts import runtime_scripts
from fastload_constructs.core.serving.server_pod import ServerSpec
from fastload_constructs.core.serving.standby import (
    ENGINE_PORT,
    LAUNCHER_PORT,
    PROXY_PORT,
    REQUESTER_SPI_PORT,
    StandbySpec,
    proxy_config,
    standby_node_pool,
    standby_spec,
)
from fastload_constructs.core.serving.standby_primer import PRIMER_AT_REST, PrimerJob, primer_job
from fastload_constructs.k8s.fma_objects import (
    inference_server_config_props,
    launcher_config_props,
    population_policy_props,
)
from fastload_constructs.k8s.imports.fma.ai.llm_d import fma
from fastload_constructs.k8s.imports.karpenter.sh import karpenter as sh
from fastload_constructs.k8s.karpenter import node_pool_props
from fastload_constructs.k8s.kube_pod_template import pod_template
from fastload_constructs.k8s.network_policies import ingress_policy


class StandbyEnginesChart(cdk8s.Chart):
    """FMA's objects for `server` (a `ServerSpec` of `plan`) with `standbys` sleeping engines.

    `standbys`: default the plan's (`plan.serving.standbys`).

    `access`: who may reach the path filter (default: the namespace's pods, as `ServerChart`).
    `release`: the Helm release of FMA's controllers in this namespace (`infra.FmaController`).
    `co_sleepers`: sleeping engines of other models that may share a GPU (see `core.serving.standby`).
    Attributes: `spec` (`StandbySpec`), `isc`, `launcher_config`, `population_policy`, `requesters`,
    `primer`, `priming` (the Job that primes the standbys), `service`, `network_policies`.
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
        self._identity(spec)
        self._config_maps(spec)
        self._fma_objects(spec)
        self.requesters = self._deployment("Requesters", spec.name, spec.requester_selector, spec.requester_template)
        self.primer = self._deployment("StandbyPrimer", spec.primer_name, spec.primer_selector, spec.primer_template)
        priming = primer_job(spec)
        self.priming = self._priming_job(priming)
        self.service = self._service(spec)
        self._disruption_budget(spec)
        self.network_policies = self._network_policies(spec, priming) if self.access.network_policy else []

    @property
    def service_url(self) -> str:
        return f"http://{self.spec.name}.{self.spec.namespace}.svc.cluster.local:{ENGINE_PORT}"

    def _identity(self, spec: StandbySpec) -> None:
        """The model's ServiceAccount (Pod Identity reads the model as before), and the launcher's Role to get and
        patch its own Pod (its state-change-reflector)."""
        name, account = f"{spec.name}-launcher", spec.service_account_name
        k8s.KubeServiceAccount(
            self, "ServiceAccount", metadata=k8s.ObjectMeta(name=account), automount_service_account_token=False
        )
        k8s.KubeRole(
            self,
            "LauncherRole",
            metadata=k8s.ObjectMeta(name=name),
            rules=[k8s.PolicyRule(api_groups=[""], resources=["pods"], verbs=["get", "patch"])],
        )
        k8s.KubeRoleBinding(
            self,
            "LauncherRoleBinding",
            metadata=k8s.ObjectMeta(name=name),
            role_ref=k8s.RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name=name),
            subjects=[k8s.Subject(kind="ServiceAccount", name=account, namespace=spec.namespace)],
        )

    def _config_maps(self, spec: StandbySpec) -> None:
        """The path filter's nginx.conf, and with the node-local copy the scripts its init containers run."""
        name = f"{spec.name}-path-filter"
        k8s.KubeConfigMap(self, "PathFilter", metadata=k8s.ObjectMeta(name=name), data={CONFIG_FILE: proxy_config()})
        if spec.init_containers:
            k8s.KubeConfigMap(
                self, "CacheSyncScript", metadata=k8s.ObjectMeta(name=f"{spec.name}-cache-sync"), data=runtime_scripts()
            )

    def _fma_objects(self, spec: StandbySpec) -> None:
        self.isc = fma.InferenceServerConfig(
            self,
            "InferenceServerConfig",
            metadata=cdk8s.ApiObjectMetadata(name=spec.name),
            spec=inference_server_config_props(spec.isc),
        )
        self.launcher_config = fma.LauncherConfig(
            self,
            "LauncherConfig",
            metadata=cdk8s.ApiObjectMetadata(name=spec.name),
            spec=launcher_config_props(spec.launcher_config),
        )
        self.population_policy = fma.LauncherPopulationPolicy(
            self,
            "LauncherPopulationPolicy",
            metadata=cdk8s.ApiObjectMetadata(name=spec.policy_name),
            spec=population_policy_props(spec.population_policy),
        )

    def _deployment(self, id: str, name: str, selector: Mapping[str, str], template: PodTemplate) -> k8s.KubeDeployment:
        """The KEDA Deployment of requesters (no `replicas`: KEDA's HPA owns the count, a re-applied manifest
        never resets it; with the plan it was made from) or the primer (at rest: the priming Job moves it)."""
        spec = self.spec
        requesters = name == spec.name
        replicas = spec.requester_replicas if requesters else PRIMER_AT_REST
        annotations = dict(spec.deployment_annotations) if requesters else {}
        annotations.update(_checkov_skips(Workload.STANDBY_REQUESTER, template))
        return k8s.KubeDeployment(
            self,
            id,
            metadata=k8s.ObjectMeta(name=name, annotations=annotations),
            spec=k8s.DeploymentSpec(
                selector=k8s.LabelSelector(match_labels=dict(selector)),
                strategy=k8s.DeploymentStrategy(
                    type="RollingUpdate",
                    rolling_update=k8s.RollingUpdateDeployment(
                        max_surge=k8s.IntOrString.from_number(1), max_unavailable=k8s.IntOrString.from_number(0)
                    ),
                ),
                template=pod_template(template),
                replicas=replicas,
            ),
        )

    def _priming_job(self, job: PrimerJob) -> k8s.KubeJob:
        """The Job, and the account it runs as: it may read and scale the primer Deployment, nothing else."""
        account, apps = job.service_account_name, ["apps"]
        k8s.KubeServiceAccount(self, "PrimerServiceAccount", metadata=k8s.ObjectMeta(name=account))
        k8s.KubeRole(
            self,
            "PrimerRole",
            metadata=k8s.ObjectMeta(name=job.role_name),
            rules=[
                k8s.PolicyRule(
                    api_groups=apps,
                    resources=["deployments"],
                    resource_names=[job.deployment],
                    verbs=["get", "list", "watch"],
                ),
                k8s.PolicyRule(
                    api_groups=apps,
                    resources=["deployments/scale"],
                    resource_names=[job.deployment],
                    verbs=["get", "patch", "update"],
                ),
            ],
        )
        k8s.KubeRoleBinding(
            self,
            "PrimerRoleBinding",
            metadata=k8s.ObjectMeta(name=job.role_name),
            role_ref=k8s.RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name=job.role_name),
            subjects=[k8s.Subject(kind="ServiceAccount", name=account, namespace=self.spec.namespace)],
        )
        return k8s.KubeJob(
            self,
            "PrimerJob",
            metadata=k8s.ObjectMeta(
                name=job.name, annotations=_checkov_skips(Workload.STANDBY_PRIMER_JOB, job.template)
            ),
            spec=k8s.JobSpec(backoff_limit=job.retries, template=pod_template(job.template, restart_policy="Never")),
        )

    def _service(self, spec: StandbySpec) -> k8s.KubeService:
        """Port 8000 to the path filter, selecting the routing label FMA puts on a launcher only while its engine
        is awake: a sleeping engine has no endpoint."""
        port = k8s.ServicePort(
            name="http", port=ENGINE_PORT, target_port=k8s.IntOrString.from_number(PROXY_PORT), protocol="TCP"
        )
        return k8s.KubeService(
            self,
            "Service",
            metadata=k8s.ObjectMeta(name=spec.name),
            spec=k8s.ServiceSpec(type="ClusterIP", selector=dict(spec.service_selector), ports=[port]),
        )

    def _disruption_budget(self, spec: StandbySpec) -> None:
        k8s.KubePodDisruptionBudget(
            self,
            "DisruptionBudget",
            metadata=k8s.ObjectMeta(name=spec.name),
            spec=k8s.PodDisruptionBudgetSpec(
                max_unavailable=k8s.IntOrString.from_number(1),
                unhealthy_pod_eviction_policy="AlwaysAllow",
                selector=k8s.LabelSelector(match_labels=dict(spec.requester_selector)),
            ),
        )

    def _clients(self) -> list[k8s.NetworkPolicyPeer]:
        """The namespace's pods and the ServingAccess peers."""
        clients = [k8s.NetworkPolicyPeer(pod_selector=k8s.LabelSelector())]
        for namespace in self.access.allow_from_namespaces:
            match = {"kubernetes.io/metadata.name": namespace}
            clients.append(k8s.NetworkPolicyPeer(namespace_selector=k8s.LabelSelector(match_labels=match)))
        for cidr in self.access.allow_from_cidrs:
            clients.append(k8s.NetworkPolicyPeer(ip_block=k8s.IpBlock(cidr=cidr)))
        return clients

    def _network_policies(self, spec: StandbySpec, priming: PrimerJob) -> list[k8s.KubeNetworkPolicy]:
        controller = [k8s.NetworkPolicyPeer(pod_selector=k8s.LabelSelector(match_labels=dict(spec.controller_labels)))]

        def tcp(*ports: int) -> list[k8s.NetworkPolicyPort]:
            return [k8s.NetworkPolicyPort(protocol="TCP", port=k8s.IntOrString.from_number(p)) for p in ports]

        launcher = ingress_policy(
            self,
            "LauncherNetworkPolicy",
            name=f"{spec.name}-launcher",
            pods=spec.launcher_selector,
            rules=[
                # /sleep, /wake_up and the launcher API: FMA's dual-pods controller only.
                k8s.NetworkPolicyIngressRule(from_=controller, ports=tcp(LAUNCHER_PORT, ENGINE_PORT)),
                # Clients (and the metrics scraper): the path filter only.
                k8s.NetworkPolicyIngressRule(from_=self._clients(), ports=tcp(PROXY_PORT)),
            ],
        )
        # The KEDA Deployment's requesters and the primer's alike.
        requesters = {k: v for k, v in spec.requester_selector.items() if k != "app.kubernetes.io/instance"}
        requester = ingress_policy(
            self,
            "RequesterNetworkPolicy",
            name=f"{spec.name}-requester",
            pods=requesters,
            rules=[k8s.NetworkPolicyIngressRule(from_=controller, ports=tcp(REQUESTER_SPI_PORT))],
        )
        # The priming Job's kubectl listens on no port: no ingress at all.
        primer = ingress_policy(
            self, "PrimerJobNetworkPolicy", name=f"{spec.name}-standby-primer", pods=priming.template.labels
        )
        return [launcher, requester, primer]


def _checkov_skips(workload: Workload, template: PodTemplate) -> dict[str, str]:
    """The deliberate checkov findings on an object with this pod template (core.serving.checkov_skips)."""
    pod = template.spec
    return skip_annotations(workload_skips(workload, [c.image for c in (*pod.init_containers, *pod.containers)]))


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
