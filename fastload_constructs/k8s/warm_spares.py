"""Warm spares as Kubernetes objects: the PriorityClasses and the placeholder Deployment of a model.

Renders what `core.serving.warm_spares` decided; it decides nothing itself.

* `PriorityClassesChart`: the two cluster-scoped PriorityClasses, once per
  cluster: `fastload-vllm` (1000, preempts lower priorities) for every vLLM pod
  and `fastload-warm-spare` (-1000, preempts nothing) for the placeholders.
  Applied before any chart whose pods name a class (admission refuses a pod
  whose PriorityClass does not exist): `infra.ServingPriorityClasses` does it
  for the models of a stack.
* `WarmSparesChart`: per model, a Deployment of `spares` placeholders with the
  vLLM pod's requests, node affinity and toleration, running the vLLM image.
  Init containers are the vLLM pod's own cache steps (warm-check, stage-model,
  restore-compile-cache) on the same host paths, from a ConfigMap of the
  runtime scripts; the main container sleeps with the GPUs reserved. It uses
  the model's ServiceAccount, so the model's Pod Identity role reads S3 for it.

The placeholders keep the `app.kubernetes.io/name: vllm` label (they run the
vLLM image; `component: warm-spare` tells them apart), so the vLLM host-path
Pod Security exemptions cover their two hostPath volumes and nothing else.
Nothing selects them but their own Deployment and a NetworkPolicy that admits no ingress (they listen on
no port): the vLLM Service and PodDisruptionBudget select by the vLLM Deployment's own label. Checkov
findings that are deliberate carry their reasons (`core.serving.checkov_skips`, `Workload.WARM_SPARE`).
"""

from __future__ import annotations

import cdk8s
import cdk8s_plus_28 as kplus
from cdk8s_plus_28 import k8s
from constructs import Construct

from fastload_constructs.core import naming
from fastload_constructs.core.planning.plan import ServingPlan
from fastload_constructs.core.serving.cache_sharing import (
    COMPILE_CACHE_VOLUME,
    MODEL_CACHE_VOLUME,
    SCRIPT_VOLUME,
)
from fastload_constructs.core.serving.checkov_skips import Workload, skip_annotations, workload_skips
from fastload_constructs.core.serving.runtime_scripts import runtime_scripts
from fastload_constructs.core.serving.server_pod import ServerSpec
from fastload_constructs.core.serving.warm_spares import (
    PriorityClasses,
    PriorityClassSpec,
    WarmSpareSpec,
    priority_classes,
    warm_spare_spec,
)
from fastload_constructs.k8s.network_policies import ingress_policy
from fastload_constructs.k8s.pod_parts import (
    TAINT_EFFECTS,
    add_revision_volume,
    container_security,
    mount_all,
    node_folder,
    sync_container_props,
)

MIB = 1024**2
SPARE_CONTAINER = "reserve"


class PriorityClassesChart(cdk8s.Chart):
    """The vLLM and warm-spare PriorityClasses (cluster-scoped; one per cluster: `infra.ServingPriorityClasses`).

    Attributes: `classes` (the PriorityClasses decided), `vllm_class_name`, `spare_class_name`.
    """

    def __init__(self, scope: Construct, id: str, *, classes: PriorityClasses | None = None) -> None:
        super().__init__(scope, id, labels={"app.kubernetes.io/part-of": naming.PART_OF})
        self.classes = classes or priority_classes()
        self.vllm_class = self._priority_class("Vllm", self.classes.vllm)
        self.spare_class = self._priority_class("Spare", self.classes.spare)

    @property
    def vllm_class_name(self) -> str:
        return self.classes.vllm.name

    @property
    def spare_class_name(self) -> str:
        return self.classes.spare.name

    def _priority_class(self, id: str, spec: PriorityClassSpec) -> kplus.k8s.KubePriorityClass:
        return kplus.k8s.KubePriorityClass(
            self,
            id,
            metadata=kplus.k8s.ObjectMeta(name=spec.name, labels={"app.kubernetes.io/managed-by": naming.MANAGED_BY}),
            value=spec.value,
            preemption_policy=spec.preemption_policy,
            global_default=spec.global_default,
            description=spec.description,
        )


class WarmSparesChart(cdk8s.Chart):
    """The plan's `serving.warm_spares` placeholder pods of `server`'s shape that pre-warm GPU nodes for it.

    `server` is the vLLM chart's spec (`ServerChart(...).spec`) of the same plan: the plan's warm spares give
    it the vLLM PriorityClass and the warm check (then the spares, too, drop a stale node-local copy before
    they warm it).
    Attributes: `spec` (WarmSpareSpec), `deployment` (None when the plan's `serving.warm_spares` is 0).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        plan: ServingPlan,
        server: ServerSpec,
        classes: PriorityClasses | None = None,
    ) -> None:
        spec = warm_spare_spec(plan, server, classes=classes)
        super().__init__(scope, id, namespace=spec.namespace, labels=dict(spec.labels))
        self.spec: WarmSpareSpec = spec
        self.deployment: kplus.Deployment | None = self._deployment(spec) if spec.replicas > 0 else None
        self.network_policy = self._network_policy(spec, self.deployment) if self.deployment is not None else None

    def _deployment(self, spec: WarmSpareSpec) -> kplus.Deployment:
        deployment = kplus.Deployment(
            self,
            "Deployment",
            metadata=cdk8s.ApiObjectMetadata(
                name=spec.name, annotations=skip_annotations(workload_skips(Workload.WARM_SPARE, [spec.image]))
            ),
            pod_metadata=cdk8s.ApiObjectMetadata(labels=dict(spec.labels)),
            replicas=spec.replicas,
            # A surge spare would wait for a GPU nobody has; replace spares one at a time instead.
            strategy=kplus.DeploymentStrategy.rolling_update(
                max_surge=kplus.PercentOrAbsolute.absolute(0),
                max_unavailable=kplus.PercentOrAbsolute.absolute(1),
            ),
            service_account=kplus.ServiceAccount.from_service_account_name(
                self, "ServiceAccount", spec.service_account_name
            ),
            automount_service_account_token=False,
            security_context=kplus.PodSecurityContextProps(ensure_non_root=False),
            termination_grace_period=cdk8s.Duration.seconds(spec.termination_grace_seconds),
        )
        memory = cdk8s.Size.mebibytes(spec.requests.memory_bytes // MIB)
        deployment.add_container(
            name=SPARE_CONTAINER,
            image=spec.image,
            image_pull_policy=kplus.ImagePullPolicy.IF_NOT_PRESENT,
            command=list(spec.command),
            resources=kplus.ContainerResources(
                cpu=kplus.CpuResources(request=kplus.Cpu.millis(spec.requests.cpu_millis)),
                memory=kplus.MemoryResources(request=memory, limit=memory),
            ),
            security_context=container_security(),
        )
        volumes = self._volumes(spec)
        env = {k: kplus.EnvValue.from_value(v) for k, v in spec.env.items()}
        for step in spec.init_containers:
            # One of the vLLM pod's cache steps, with the same requests.
            mount_all(deployment.add_init_container(**sync_container_props(spec.image, step, env)), step, volumes)
        deployment.scheduling.attract(
            kplus.Node.labeled(*(kplus.NodeLabelQuery.is_(key, value) for key, value in spec.node_labels.items()))
        )
        deployment.scheduling.tolerate(
            kplus.Node.tainted(
                kplus.NodeTaintQuery.is_(
                    spec.toleration.key, spec.toleration.value, effect=TAINT_EFFECTS[spec.toleration.effect]
                )
            )
        )
        gpu = "/spec/template/spec/containers/0/resources/{}/" + naming.GPU_RESOURCE.replace("/", "~1")
        cdk8s.ApiObject.of(deployment).add_json_patch(
            # The GPUs are requested only to reserve them; the container never opens the device.
            cdk8s.JsonPatch.add(gpu.format("requests"), {"value": spec.requests.gpus}),
            cdk8s.JsonPatch.add(gpu.format("limits"), {"value": spec.requests.gpus}),
            cdk8s.JsonPatch.add("/spec/template/spec/priorityClassName", spec.priority_class_name),
        )
        return deployment

    def _network_policy(self, spec: WarmSpareSpec, deployment: kplus.Deployment) -> k8s.KubeNetworkPolicy:
        """No ingress at all: a placeholder listens on no port and nothing connects to it."""
        return ingress_policy(self, "NetworkPolicy", name=spec.name, pods=deployment.match_labels)

    def _volumes(self, spec: WarmSpareSpec) -> dict[str, kplus.Volume]:
        """The vLLM pod's host paths (the same keyed folders) and the runtime scripts."""
        volumes: dict[str, kplus.Volume] = {}
        if not spec.init_containers:
            return volumes
        scripts: kplus.IConfigMap
        if spec.scripts_shared:  # the namespace's ConfigMap (k8s.RuntimeScriptsChart), as the server's pods use
            scripts = kplus.ConfigMap.from_config_map_name(self, "CacheSyncScript", spec.scripts_config_map)
        else:
            scripts = kplus.ConfigMap(
                self,
                "CacheSyncScript",
                metadata=cdk8s.ApiObjectMetadata(name=f"{spec.name}-cache-sync"),
                data=runtime_scripts(),
            )
        volumes[SCRIPT_VOLUME] = kplus.Volume.from_config_map(self, "CacheSyncVolume", scripts, name=SCRIPT_VOLUME)
        add_revision_volume(self, spec.init_containers, volumes)
        if spec.cache_host_path is not None:
            volumes[COMPILE_CACHE_VOLUME] = node_folder(
                self, "CompileCacheVolume", COMPILE_CACHE_VOLUME, spec.cache_host_path
            )
        if spec.model_host_path is not None:
            volumes[MODEL_CACHE_VOLUME] = node_folder(
                self, "ModelCacheVolume", MODEL_CACHE_VOLUME, spec.model_host_path
            )
        return volumes
