"""ServerChart: one inference server (vLLM or SGLang, the plan's engine) for one model, from a ServingPlan.

Renders what `server_pod.server_spec` decided; it decides nothing itself. The engine decides the
container (`vllm serve`, `python3 -m sglang.launch_server`, `core.engines`); the objects are the same.
Objects: ServiceAccount (the name the Pod Identity association grants S3 read
to), Deployment, ClusterIP Service on the engine's port (vLLM 8000, SGLang 30000),
PodDisruptionBudget, and with `compile_cache="pvc"` a PersistentVolumeClaim of the
local-nvme class.
The namespace is not created here: several charts share it (see
`namespace_chart.NamespaceChart`).

What lands in the compile-cache volume, for vLLM (`VLLM_CACHE_ROOT`, /var/cache/vllm; SGLang's
cache root is described in `core/engines/sglang/launch.py`):
`torch_compile_cache/` (Inductor/Dynamo artifacts, the part worth keeping),
`assets/model_streamer/<hash of the s3 URI>/` (the config, tokenizer and other
non-weight files vLLM copies from the s3:// model path; weights are streamed
to the GPU, never staged), and vLLM's smaller caches (e.g. modelinfos). With
"host-path" the volume is `naming.node_cache_paths(family).compile_cache/<key>` on the node's
instance-store RAID0, keyed by image tag, model URI, TP and GPU model: it
survives pod restarts on that node, is shared by replicas of the same
configuration there, and is lost with the node. "pvc" keeps it on one
local-nvme PersistentVolume (one node). "empty-dir" keeps it only for the
pod's life (for instance types without instance store).

Security: privilege escalation off, all capabilities dropped, RuntimeDefault
seccomp. `runAsNonRoot` is not set: the official vllm/vllm-openai image runs
as root (no USER), and the host-path cache is created root-owned by kubelet.
The root filesystem stays writable: vLLM, Triton and Inductor write under
$HOME and /tmp. These choices carry their reasons as checkov skip annotations
on the Deployment (`core.serving.checkov_skips`).
"""

from __future__ import annotations

import cdk8s
import cdk8s_plus_28 as kplus
from constructs import Construct

from fastload_constructs.core import naming
from fastload_constructs.core.engines.base import HttpProbe
from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.planning.plan import ServingPlan
from fastload_constructs.core.serving.access import ServingAccess, readiness_probe
from fastload_constructs.core.serving.cache_sharing import (
    COMPILE_CACHE_VOLUME,
    MODEL_CACHE_VOLUME,
    MODEL_MOUNT_PATH,
    REVISION_MOUNT_PATH,
    REVISION_VOLUME,
    SCRIPT_VOLUME,
)
from fastload_constructs.core.serving.checkov_skips import Workload, skip_annotations, workload_skips
from fastload_constructs.core.serving.runtime_scripts import runtime_scripts
from fastload_constructs.core.serving.server_pod import SHM_MOUNT_PATH, ServerOptions, ServerSpec, server_spec
from fastload_constructs.k8s.pod_parts import (
    TAINT_EFFECTS,
    add_revision_volume,
    container_security,
    mount_all,
    node_folder,
    sync_container_props,
)

MIB = 1024**2


class ServerChart(cdk8s.Chart):
    """A tuned server Deployment (the plan's engine) and its Service, ServiceAccount and PDB for one model.

    Instantiate once per model (or per model and instance type, with `name`);
    names are unique per namespace within one cdk8s App.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        plan: ServingPlan,
        model_name: str,
        model_uri: str,
        region: str,
        options: ServerOptions | None = None,
        access: ServingAccess | None = None,
    ) -> None:
        """`options` (a `ServerOptions`) holds every serving choice and its default; `access` (a
        `ServingAccess`) who may reach the server (default: a NetworkPolicy admitting the namespace)."""
        require(
            access is None or isinstance(access, ServingAccess),
            "access",
            access,
            "None or a ServingAccess(network_policy=..., api_key_secret=...)",
        )
        # The plan's engine picks the container (core/engines); the pod is the same.
        spec = server_spec(plan, model_name=model_name, model_uri=model_uri, region=region, options=options)
        require(
            spec.api_key_env is not None or access is None or access.api_key_secret is None,
            "access.api_key_secret",
            access.api_key_secret if access is not None else None,
            f"None with engine {spec.engine!r} (it reads no API key from its environment; a key on its command "
            "line would sit in the manifest)",
        )
        siblings = _sibling_specs(scope)
        _refuse_duplicate(siblings, spec)
        super().__init__(scope, id, namespace=spec.namespace, labels=dict(spec.labels))
        self.spec = spec
        # Who may reach the server (core/serving/access.py): a NetworkPolicy by default, an API key on request.
        self.access = access if access is not None else ServingAccess()
        self.service_account = self._service_account(spec, siblings)
        self.compile_cache_claim: kplus.PersistentVolumeClaim | None = None
        self.deployment = self._deployment(spec)
        self.service = kplus.Service(
            self,
            "Service",
            metadata=cdk8s.ApiObjectMetadata(name=spec.name),
            type=kplus.ServiceType.CLUSTER_IP,
            ports=[kplus.ServicePort(port=spec.port, target_port=spec.port, name="http")],
            selector=self.deployment,
        )
        self.disruption_budget = self._disruption_budget(spec)
        self.network_policy = self._network_policy(spec) if self.access.network_policy else None

    def _network_policy(self, spec: ServerSpec) -> kplus.NetworkPolicy:
        """Ingress on the server port from the namespace's pods and the listed namespaces and CIDRs only."""
        peers: list[kplus.INetworkPolicyPeer] = [kplus.Pods.all(self, "SameNamespacePods")]
        if self.access.allow_from_namespaces:
            peers.append(
                kplus.Namespaces.select(self, "AllowedNamespaces", names=list(self.access.allow_from_namespaces))
            )
        for i, cidr in enumerate(self.access.allow_from_cidrs):
            block = kplus.NetworkPolicyIpBlock.ipv6 if ":" in cidr else kplus.NetworkPolicyIpBlock.ipv4
            peers.append(block(self, f"AllowedCidr{i}", cidr))
        port = kplus.NetworkPolicyPort.tcp(spec.port)
        return kplus.NetworkPolicy(
            self,
            "NetworkPolicy",
            metadata=cdk8s.ApiObjectMetadata(name=spec.name),
            selector=self.deployment,
            ingress=kplus.NetworkPolicyTraffic(
                default=kplus.NetworkPolicyTrafficDefault.DENY,
                rules=[kplus.NetworkPolicyRule(peer=peer, ports=[port]) for peer in peers],
            ),
            egress=kplus.NetworkPolicyTraffic(default=kplus.NetworkPolicyTrafficDefault.ALLOW),
        )

    @property
    def service_url(self) -> str:
        """In-cluster URL of the OpenAI-compatible API."""
        return f"http://{self.spec.name}.{self.spec.namespace}.svc.cluster.local:{self.spec.port}"

    def _service_account(self, spec: ServerSpec, siblings: list[ServerSpec]) -> kplus.IServiceAccount:
        """Created by the first chart of a model in a namespace, referenced by any later one."""
        shared = any(
            (s.namespace, s.service_account_name) == (spec.namespace, spec.service_account_name) for s in siblings
        )
        if shared:
            return kplus.ServiceAccount.from_service_account_name(self, "ServiceAccount", spec.service_account_name)
        return kplus.ServiceAccount(
            self,
            "ServiceAccount",
            metadata=cdk8s.ApiObjectMetadata(name=spec.service_account_name),
            automount_token=False,
        )

    def _deployment(self, spec: ServerSpec) -> kplus.Deployment:
        deployment = kplus.Deployment(
            self,
            "Deployment",
            metadata=cdk8s.ApiObjectMetadata(name=spec.name, annotations={**spec.annotations, **_checkov_skips(spec)}),
            pod_metadata=cdk8s.ApiObjectMetadata(
                labels=dict(spec.labels),
                # `kubectl logs` (and `fastload coldstart --pod`) read the server's log even beside a sidecar.
                annotations={"kubectl.kubernetes.io/default-container": spec.container_name, **spec.pod_annotations},
            ),
            replicas=spec.replicas,
            strategy=kplus.DeploymentStrategy.rolling_update(
                max_surge=kplus.PercentOrAbsolute.absolute(1),
                max_unavailable=kplus.PercentOrAbsolute.absolute(0),
            ),
            service_account=self.service_account,
            # The server never calls the Kubernetes API. EKS Pod Identity does not need the default token:
            # its webhook adds its own projected token volume (aws/amazon-eks-pod-identity-webhook,
            # pkg/handler/handler.go getPodSpecPatch).
            automount_service_account_token=False,
            security_context=kplus.PodSecurityContextProps(ensure_non_root=False),
        )
        if spec.replicas is None:
            # An autoscaler owns the count: no spec.replicas, so a re-applied manifest never resets it.
            deployment.mark_has_autoscaler()
        shm = kplus.Volume.from_empty_dir(
            self,
            "ShmVolume",
            "dshm",
            medium=kplus.EmptyDirMedium.MEMORY,
            size_limit=cdk8s.Size.mebibytes(spec.shm_bytes // MIB),
        )
        container = deployment.add_container(
            name=spec.container_name,
            image=spec.image,
            # The tag is pinned: a node that already has the layers starts without asking the registry.
            image_pull_policy=kplus.ImagePullPolicy.IF_NOT_PRESENT,
            command=list(spec.container_command),
            args=list(spec.container_args),
            ports=[kplus.ContainerPort(number=spec.port, name="http")],
            env_variables={k: kplus.EnvValue.from_value(v) for k, v in spec.env.items()},
            resources=kplus.ContainerResources(
                # No CPU limit: throttling the tokenizer and scheduler threads only slows serving.
                cpu=kplus.CpuResources(request=kplus.Cpu.units(spec.cpu)),
                memory=kplus.MemoryResources(
                    request=cdk8s.Size.mebibytes(spec.memory_bytes // MIB),
                    limit=cdk8s.Size.mebibytes(spec.memory_bytes // MIB),
                ),
            ),
            startup=_probe(spec.startup_probe, spec.port),
            readiness=_probe(readiness_probe(self.access, spec.readiness_probe), spec.port),
            liveness=_probe(spec.liveness_probe, spec.port),
            security_context=container_security(),
        )
        if self.access.api_key_secret is not None:
            # The engine reads its key variable (vLLM: VLLM_API_KEY) as --api-key; an env var, not an argument
            # `ps` would show (the chart's constructor refused an engine without one).
            assert spec.api_key_env is not None
            secret = kplus.Secret.from_secret_name(self, "ApiKeySecret", self.access.api_key_secret)
            container.env.add_variable(
                spec.api_key_env,
                kplus.EnvValue.from_secret_value(kplus.SecretValue(secret=secret, key=self.access.api_key_secret_key)),
            )
        volumes = {COMPILE_CACHE_VOLUME: self._compile_cache_volume(spec)}
        container.mount(SHM_MOUNT_PATH, shm)
        container.mount(spec.cache_mount_path, volumes[COMPILE_CACHE_VOLUME])
        if spec.model_host_path is not None:
            volumes[MODEL_CACHE_VOLUME] = node_folder(
                self, "ModelCacheVolume", MODEL_CACHE_VOLUME, spec.model_host_path
            )
            # Only this model's folder (a subPath), at the path the server is given: other copies stay unseen.
            assert spec.model_sub_path is not None
            container.mount(
                f"{MODEL_MOUNT_PATH}/{spec.model_sub_path}",
                volumes[MODEL_CACHE_VOLUME],
                read_only=True,
                sub_path=spec.model_sub_path,
            )
        if spec.init_containers or spec.sidecars:
            self._add_runtime_steps(deployment, spec, volumes)
        if spec.model_from_revision or spec.model_host_path is not None:
            # The launcher reads the URI resolve-revision wrote; a node-local model path is the pod's link there.
            container.mount(REVISION_MOUNT_PATH, volumes[REVISION_VOLUME], read_only=True)

        # One call, one nodeSelectorTerm: every label is required (separate terms would be OR-ed).
        deployment.scheduling.attract(
            kplus.Node.labeled(*(kplus.NodeLabelQuery.is_(key, value) for key, value in spec.node_labels.items()))
        )
        deployment.scheduling.tolerate(
            kplus.Node.tainted(
                kplus.NodeTaintQuery.is_(
                    spec.toleration.key,
                    spec.toleration.value,
                    effect=TAINT_EFFECTS[spec.toleration.effect],
                )
            )
        )
        # cdk8s-plus has no extended resources: GPUs go in by JSON patch. The patch is applied
        # before the imported KubeDeployment serialises resources as Quantity objects (it reads
        # `.value`), hence the {"value": n} shape, as k8s.Quantity.fromNumber(n) would give.
        gpu = "/spec/template/spec/containers/0/resources/{}/" + naming.GPU_RESOURCE.replace("/", "~1")
        cdk8s.ApiObject.of(deployment).add_json_patch(
            cdk8s.JsonPatch.add(gpu.format("requests"), {"value": spec.gpus}),
            cdk8s.JsonPatch.add(gpu.format("limits"), {"value": spec.gpus}),
        )
        if spec.priority_class_name is not None:  # cdk8s-plus 28 has no priorityClassName
            cdk8s.ApiObject.of(deployment).add_json_patch(
                cdk8s.JsonPatch.add("/spec/template/spec/priorityClassName", spec.priority_class_name)
            )
        return deployment

    def _add_runtime_steps(
        self, deployment: kplus.Deployment, spec: ServerSpec, volumes: dict[str, kplus.Volume]
    ) -> None:
        """The in-pod steps (runtime/): init containers in order, then sidecars beside the server.

        They run the server's image (vLLM's ships Python and boto3) with the scripts from a
        ConfigMap, and get only the AWS_* settings: Pod Identity gives them the
        same credentials as the server.
        """
        script: kplus.IConfigMap
        if spec.scripts_shared:  # the namespace's ConfigMap (k8s.RuntimeScriptsChart): referred to, not embedded
            script = kplus.ConfigMap.from_config_map_name(self, "CacheSyncScript", spec.scripts_config_map)
        else:
            script = kplus.ConfigMap(
                self,
                "CacheSyncScript",
                metadata=cdk8s.ApiObjectMetadata(name=spec.scripts_config_map),
                data=runtime_scripts(),
            )
        volumes[SCRIPT_VOLUME] = kplus.Volume.from_config_map(self, "CacheSyncVolume", script, name=SCRIPT_VOLUME)
        add_revision_volume(self, (*spec.init_containers, *spec.sidecars), volumes)
        env = {k: kplus.EnvValue.from_value(v) for k, v in spec.env.items() if k.startswith("AWS_")}
        for step in spec.init_containers:
            init = deployment.add_init_container(**sync_container_props(spec.image, step, env))
            mount_all(init, step, volumes)
        for step in spec.sidecars:
            sidecar = deployment.add_container(**sync_container_props(spec.image, step, env))
            mount_all(sidecar, step, volumes)

    def _compile_cache_volume(self, spec: ServerSpec) -> kplus.Volume:
        if spec.compile_cache == "host-path":
            assert spec.cache_host_path is not None
            return node_folder(self, "CompileCacheVolume", COMPILE_CACHE_VOLUME, spec.cache_host_path)
        if spec.compile_cache == "pvc":
            assert spec.pvc_size_gib is not None
            self.compile_cache_claim = kplus.PersistentVolumeClaim(
                self,
                "CompileCacheClaim",
                metadata=cdk8s.ApiObjectMetadata(name=f"{spec.name}-compile-cache"),
                storage_class_name=naming.LOCAL_NVME_STORAGE_CLASS,
                access_modes=[kplus.PersistentVolumeAccessMode.READ_WRITE_ONCE],
                volume_mode=kplus.PersistentVolumeMode.FILE_SYSTEM,
                storage=cdk8s.Size.gibibytes(spec.pvc_size_gib),
            )
            return kplus.Volume.from_persistent_volume_claim(
                self,
                "CompileCacheVolume",
                self.compile_cache_claim,
                name="compile-cache",
            )
        return kplus.Volume.from_empty_dir(self, "CompileCacheVolume", "compile-cache")

    def _disruption_budget(self, spec: ServerSpec) -> cdk8s.ApiObject:
        """cdk8s-plus has no PodDisruptionBudget: a plain policy/v1 object selecting the Deployment's pods.

        One pod at a time may be evicted (a budget of zero would block node
        drains forever); a pod that is not yet ready may always be evicted, so a
        stuck start-up never pins a GPU node.
        """
        pdb = cdk8s.ApiObject(
            self,
            "DisruptionBudget",
            api_version="policy/v1",
            kind="PodDisruptionBudget",
            metadata=cdk8s.ApiObjectMetadata(name=spec.name),
        )
        pdb.add_json_patch(
            cdk8s.JsonPatch.add(
                "/spec",
                {
                    "maxUnavailable": 1,
                    "unhealthyPodEvictionPolicy": "AlwaysAllow",
                    "selector": {"matchLabels": dict(self.deployment.match_labels)},
                },
            )
        )
        return pdb


def _probe(probe: HttpProbe, port: int) -> kplus.Probe:
    return kplus.Probe.from_http_get(
        probe.path,
        port=port,
        period_seconds=cdk8s.Duration.seconds(probe.period_seconds),
        failure_threshold=probe.failure_threshold,
        timeout_seconds=cdk8s.Duration.seconds(probe.timeout_seconds),
    )


def _checkov_skips(spec: ServerSpec) -> dict[str, str]:
    """The deliberate checkov findings on the Deployment (core.serving.checkov_skips), each with its reason."""
    return skip_annotations(workload_skips(Workload.SERVER, [spec.image], sidecars=bool(spec.sidecars)))


def _sibling_specs(scope: Construct) -> list[ServerSpec]:
    return [c.spec for c in scope.node.children if isinstance(c, ServerChart)]


def _refuse_duplicate(siblings: list[ServerSpec], spec: ServerSpec) -> None:
    """Two charts writing the same Deployment/Service would overwrite each other in the cluster."""
    if any((s.namespace, s.name) == (spec.namespace, spec.name) for s in siblings):
        raise FastloadConfigError(
            "name",
            spec.name,
            f"a name not yet used in namespace {spec.namespace!r} in this cdk8s App; "
            "pass name= to tell two servers of one model apart",
        )
