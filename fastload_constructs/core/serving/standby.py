"""Standby engines on llm-d-incubation/llm-d-fast-model-actuation (FMA) v0.6.4, launcher mode: the decisions.

Why FMA: it is the existing Kubernetes controller that wakes a sleeping vLLM when
a Deployment scales out, and it works with our KEDA-scaled Deployment, which
becomes FMA's *requester* Deployment. What FMA lacks is
added with plain objects, decided here:

* **N standbys per model**: a primer Deployment `<name>-standby` of requesters
  pinned to the standby node pool (required node affinity), which a Job raises to N
  and lowers to 0 once all are Ready (`core/serving/standby_primer.py`). FMA starts an
  engine for each and, as each requester goes, puts its engine to sleep (level 1) and
  keeps it. An engine's identity is its InferenceServerConfig plus its GPUs, not the
  requester's Deployment, so a requester of the KEDA Deployment landing on that GPU wakes it.
* **Placement**: the KEDA Deployment's requesters prefer the standby pool (node
  affinity, weight 100) and nodes holding a sleeping launcher of the model (pod
  affinity, weight 100); the standby NodePool is tainted (only requesters and
  launchers tolerate it) and limited to the standby GPUs, so a burst beyond the
  standbys takes the ordinary pool.
* **Protection of /sleep, /wake_up, /collective_rpc** (vLLM's dev-mode routes share
  the serving port and are never token-checked): the engine port (8000) and the
  launcher API (8001) admit only FMA's dual-pods controller; clients reach the
  engine through a path filter (nginx, `core/serving/path_filter.py`) in the launcher Pod that
  forwards only `/v1/*`, `/health`, `/metrics`, `/version` and `/ping`; the requester's SPI (8081)
  admits only the controller.
* **Readiness**: no request reaches a sleeping engine. The Service selects the
  InferenceServerConfig's label, which FMA puts on the launcher Pod only while its
  engine is bound and awake and removes before `/sleep`; requesters are Ready only
  while their engine is awake (FMA relays it to their `/ready`).

All replicas of such a model run through FMA (the launcher image's vLLM, 0.26.0 in
v0.6.4), not only the standbys. Pure: no cdk8s; `k8s/standby.py` renders it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from fastload_constructs.core import naming
from fastload_constructs.core.catalog import GIB
from fastload_constructs.core.cluster.ami_family import DEFAULT_AMI_FAMILY, AmiFamily
from fastload_constructs.core.cluster.gpu_nodes import Taint, gpu_node_spec
from fastload_constructs.core.cluster.karpenter import DO_NOT_DISRUPT, NodePoolSpec, node_pool
from fastload_constructs.core.engines.vllm import VLLM
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, require, whole_number_in
from fastload_constructs.core.planning.plan import ServingPlan
from fastload_constructs.core.planning.standby import (
    StandbyAssumptions,
    check_standbys,
    standby_gpu_memory_utilization,
    standby_host_bytes,
)
from fastload_constructs.core.serving.cache_sharing import (
    COMPILE_CACHE_VOLUME,
    MODEL_CACHE_VOLUME,
    MODEL_MOUNT_PATH,
    REVISION_MOUNT_PATH,
    REVISION_VOLUME,
    REVISION_VOLUME_MIB,
    SCRIPT_VOLUME,
    SyncContainer,
)
from fastload_constructs.core.serving.path_filter import CONFIG_FILE, NGINX_IMAGE, NGINX_UID, PathFilter, nginx_config
from fastload_constructs.core.serving.pod_template import (
    Affinity,
    ConfigMapVolume,
    Container,
    EmptyDir,
    HostPath,
    HttpGetProbe,
    LabelIn,
    Mount,
    PodSpec,
    PodTemplate,
    Port,
    PreferredNodes,
    PreferredPods,
    Resources,
    SecurityContext,
    Volume,
)
from fastload_constructs.core.serving.server_pod import SHM_MOUNT_PATH, ServerSpec, Toleration
from fastload_constructs.core.validation import check_dns_label

# --- FMA v0.6.4 (tag v0.6.4 = commit b057659cb29dc408f2121e9d2c71ea35a8e2acb5) ---------------------------
FMA_VERSION = "0.6.4"
FMA_TAG = f"v{FMA_VERSION}"
FMA_REGISTRY = "ghcr.io/llm-d-incubation/llm-d-fast-model-actuation"
LAUNCHER_IMAGE = f"{FMA_REGISTRY}/launcher:{FMA_TAG}"  # planning.standby.LAUNCHER_VLLM_VERSION
REQUESTER_IMAGE = f"{FMA_REGISTRY}/requester:{FMA_TAG}"
DEFAULT_RELEASE = "fma"
# pkg/api/interface.go: the requester's annotations; the container FMA looks for.
ANNOTATION_ISC = "dual-pods.llm-d.ai/inference-server-config"
ANNOTATION_ADMIN_PORT = "dual-pods.llm-d.ai/admin-port"
LABEL_FMA_SLEEPING = "dual-pods.llm-d.ai/sleeping"
INFERENCE_SERVER_CONTAINER = "inference-server"
# cmd/requester/main.go defaults: PROBES_PORT 8080 (GET /ready), SPI_PORT 8081 (the controller's API).
REQUESTER_PROBES_PORT = 8080
REQUESTER_SPI_PORT = 8081
# The launcher's API port (LauncherServicePort, fixed) and the engine port (the ISC's port): FMA's launcher
# runs vLLM, so a model with standbys runs vLLM (Serving refuses standbys for an engine without sleep mode).
LAUNCHER_PORT = 8001
ENGINE_PORT = VLLM.port
LAUNCHER_COMMAND = ("/app/launcher.py", "--host=0.0.0.0", "--port=8001", "--log-level=info")
# The path filter clients reach (nginx, core/serving/path_filter.py); named "http", the port the vLLM scrape
# job keeps. Its config from a ConfigMap, its pid and temp files in a small emptyDir (the root is read-only).
PROXY_PORT = 8100
PROXY_CONTAINER = "path-filter"
PROXY_CONFIG_MOUNT = "/etc/fastload-path-filter"
PROXY_CONFIG_VOLUME = "path-filter-config"
PROXY_STATE_VOLUME = "path-filter-state"
PROXY_STATE_MIB = 64  # request bodies are streamed to the engine, not spooled here
PROXY_CPU_MILLIS = 500
PROXY_MEMORY_MIB = 256
PATH_FILTER = PathFilter(listen_port=PROXY_PORT, upstream_port=ENGINE_PORT)
# Requester: a tiny process; the GPUs are what it holds.
REQUESTER_CPU_MILLIS = 200
REQUESTER_MEMORY_MIB = 256
# The standby node pool: its nodes carry this label and taint (naming.LABEL_STANDBY).
LABEL_STANDBY = naming.LABEL_STANDBY
STANDBY_VALUE = "true"
# Labels of ours: launcher Pods of a model (stable: set in the LauncherConfig's template), requester Pods of a
# model (the KEDA Deployment's and the primer's), and the routing label FMA sets on a serving launcher only.
LABEL_LAUNCHER_OF = "fastload.io/launcher-of"
LABEL_REQUESTER_OF = "fastload.io/requester-of"
LABEL_SERVING = "fastload.io/serving"
# The launcher Pod's shared memory volume, and the topology of "the same node".
SHM_VOLUME = "dshm"
HOSTNAME_TOPOLOGY = "kubernetes.io/hostname"
# Helm chart fma-controllers: labels of the dual-pods controller's Pods.
CONTROLLER_COMPONENT = "dual-pods-controller"


def proxy_config() -> str:
    """The path filter's nginx.conf, for its ConfigMap."""
    return nginx_config(PATH_FILTER)


def controller_pod_labels(release: str = DEFAULT_RELEASE) -> dict[str, str]:
    """The dual-pods controller Pod's labels in chart fma-controllers 0.6.4 (templates/dual-pods-controller)."""
    return {
        "app.kubernetes.io/name": "fma-controllers",
        "app.kubernetes.io/component": CONTROLLER_COMPONENT,
        "app.kubernetes.io/instance": release,
    }


@dataclass(frozen=True)
class ModelServerConfig:
    """An InferenceServerConfig's `modelServerConfig`: how the launcher runs one engine."""

    port: int
    options: str  # `vllm serve` arguments, split on whitespace by the launcher
    env_vars: Mapping[str, str]
    labels: Mapping[str, str]  # on the launcher Pod only while its engine is bound and awake


@dataclass(frozen=True)
class InferenceServerConfigSpec:
    launcher_config_name: str
    model_server: ModelServerConfig


@dataclass(frozen=True)
class LauncherConfigSpec:
    max_instances: int  # engines per launcher
    pod_template: PodTemplate


@dataclass(frozen=True)
class PopulationPolicySpec:
    """A LauncherPopulationPolicy: on every node with `node_labels`, this many launchers of each LauncherConfig."""

    node_labels: Mapping[str, str]
    launcher_counts: Mapping[str, int]


@dataclass(frozen=True)
class StandbyLabels:
    """The labels of one model's standby objects and pods, each set from the server's recommended labels."""

    objects: Mapping[str, str]  # every object the chart makes
    requesters: Mapping[str, str]  # the KEDA Deployment's pods
    primer: Mapping[str, str]  # the primer's pods
    launchers: Mapping[str, str]  # FMA adds app.kubernetes.io/component: launcher and its dual-pods.llm-d.ai/*


@dataclass(frozen=True)
class StandbySpec:
    """Everything the standby chart renders for one model; built by `standby_spec`."""

    name: str
    namespace: str
    standbys: int
    release: str
    service_account_name: str
    labels: Mapping[str, str]  # recommended labels of every object
    isc: InferenceServerConfigSpec
    launcher_config: LauncherConfigSpec
    population_policy: PopulationPolicySpec
    requester_template: PodTemplate  # the KEDA Deployment's pod template
    primer_template: PodTemplate  # the primer Deployment's pod template
    requester_replicas: int | None  # None: KEDA's HPA owns the count
    service_selector: Mapping[str, str]
    launcher_selector: Mapping[str, str]
    requester_selector: Mapping[str, str]
    primer_selector: Mapping[str, str]
    controller_labels: Mapping[str, str]
    gpu_memory_utilization: float
    init_containers: tuple[SyncContainer, ...]
    # On the requester Deployment: the plan it was made from (core/serving/plan_record.py), standby path included.
    deployment_annotations: Mapping[str, str]

    @property
    def primer_name(self) -> str:
        return f"{self.name}-standby"

    @property
    def policy_name(self) -> str:
        return f"{self.name}-standby"


def isc_options(server: ServerSpec, gpu_memory_utilization: float) -> str:
    """The ISC `options`: our `vllm serve` arguments for the launcher's child.

    The launcher splits the string on whitespace (no shell quoting) and parses it with vLLM's
    OpenAI-server parser, appending `--port <ISC port>` itself: the model goes as `--model`, our
    `--port` is dropped, sleep mode is switched on and the memory share reduced for sleepers.
    """
    args = list(server.args)
    model, rest = args[0], args[1:]
    out = ["--model", model]
    i = 0
    while i < len(rest):
        arg = rest[i]
        if arg == "--port":
            i += 2
            continue
        if arg == "--gpu-memory-utilization":
            out += [arg, f"{gpu_memory_utilization:g}"]
            i += 2
            continue
        out.append(arg)
        i += 1
    out.append("--enable-sleep-mode")
    for j, arg in enumerate(out):
        require(
            arg != "" and not any(c.isspace() for c in arg),
            f"server.args[{j}]",
            arg,
            "vLLM arguments without whitespace (FMA's launcher splits its options string on whitespace)",
        )
    return " ".join(out)


def _mib(n: int) -> str:
    return f"{n // 1024**2}Mi"


def _tolerations(server: ServerSpec) -> tuple[Toleration, ...]:
    """The GPU pools' taint and the standby pool's: requesters and launchers run on either."""
    return (server.toleration, Toleration(LABEL_STANDBY, STANDBY_VALUE, "NoSchedule"))


# --- Requester pods: FMA's requester container holding the GPUs ------------------------------------------------


def _requester_affinity(server: ServerSpec, *, pinned_to_standby: bool) -> Affinity:
    """The primer's requesters only on the standby pool; the KEDA Deployment's prefer it, and nodes holding a
    sleeping launcher of the model."""
    required = tuple(LabelIn(k, (v,)) for k, v in server.node_labels.items())
    if pinned_to_standby:
        return Affinity(required_nodes=(*required, LabelIn(LABEL_STANDBY, (STANDBY_VALUE,))))
    sleeper = {LABEL_LAUNCHER_OF: server.name, LABEL_FMA_SLEEPING: "true"}
    return Affinity(
        required_nodes=required,
        preferred_nodes=(PreferredNodes(weight=100, match=(LabelIn(LABEL_STANDBY, (STANDBY_VALUE,)),)),),
        preferred_pods=(PreferredPods(weight=100, match_labels=sleeper, topology_key=HOSTNAME_TOPOLOGY),),
    )


def _requester_container(server: ServerSpec) -> Container:
    gpu = {naming.GPU_RESOURCE: server.gpus}
    memory = f"{REQUESTER_MEMORY_MIB}Mi"
    return Container(
        name=INFERENCE_SERVER_CONTAINER,
        image=REQUESTER_IMAGE,
        env={"PROBES_PORT": str(REQUESTER_PROBES_PORT), "SPI_PORT": str(REQUESTER_SPI_PORT)},
        ports=(Port(REQUESTER_PROBES_PORT, "probes"), Port(REQUESTER_SPI_PORT, "spi")),
        # Ready only while FMA reports the bound engine awake: no Ready requester without a serving engine.
        readiness_probe=HttpGetProbe(
            "/ready", REQUESTER_PROBES_PORT, initial_delay_s=1, period_s=1, failure_threshold=1
        ),
        resources=Resources(
            requests={"cpu": f"{REQUESTER_CPU_MILLIS}m", "memory": memory, **gpu}, limits={"memory": memory, **gpu}
        ),
    )


def requester_template(server: ServerSpec, labels: Mapping[str, str], *, pinned_to_standby: bool) -> PodTemplate:
    """A requester Pod: FMA's requester container holding the GPUs, steered to the model's sleepers."""
    annotations = {
        ANNOTATION_ISC: server.name,
        ANNOTATION_ADMIN_PORT: str(REQUESTER_SPI_PORT),
        **server.pod_annotations,
    }
    spec = PodSpec(
        service_account_name=server.service_account_name,
        # The requester never calls the Kubernetes API; the controller calls it.
        automount_service_account_token=False,
        containers=(_requester_container(server),),
        tolerations=_tolerations(server),
        affinity=_requester_affinity(server, pinned_to_standby=pinned_to_standby),
        priority_class_name=server.priority_class_name,
    )
    return PodTemplate(labels=dict(labels), annotations=annotations, spec=spec)


# --- Launcher pods: FMA's launcher, its engines, and the path filter in front of them ---------------------------


def _engine_mounts(server: ServerSpec) -> tuple[Mount, ...]:
    mounts = [Mount(SHM_VOLUME, SHM_MOUNT_PATH), Mount(COMPILE_CACHE_VOLUME, server.cache_mount_path)]
    if server.model_host_path is not None:
        # Only this model's folder of copies (a subPath), as in the server pods: the node's other models stay
        # unseen. The engine's model path is the pod's own link, in its revision volume, to the copy of the
        # revision the launcher pod resolved.
        assert server.model_sub_path is not None
        folder = f"{MODEL_MOUNT_PATH}/{server.model_sub_path}"
        mounts.append(Mount(MODEL_CACHE_VOLUME, folder, sub_path=server.model_sub_path, read_only=True))
        mounts.append(Mount(REVISION_VOLUME, REVISION_MOUNT_PATH, read_only=True))
    return tuple(mounts)


def _engine_container(server: ServerSpec, *, memory_request: int, memory_limit: int) -> Container:
    return Container(
        name=INFERENCE_SERVER_CONTAINER,
        image=LAUNCHER_IMAGE,
        command=LAUNCHER_COMMAND,
        ports=(Port(LAUNCHER_PORT, "launcher"), Port(ENGINE_PORT, "engine")),
        resources=Resources(
            requests={"cpu": str(server.cpu), "memory": _mib(memory_request)}, limits={"memory": _mib(memory_limit)}
        ),
        mounts=_engine_mounts(server),
    )


def _path_filter_container() -> Container:
    memory = f"{PROXY_MEMORY_MIB}Mi"
    return Container(
        name=PROXY_CONTAINER,
        image=NGINX_IMAGE,
        # Not the image's entrypoint (it rewrites files under /etc/nginx): nginx itself, in the foreground.
        command=("nginx", "-e", "stderr", "-c", f"{PROXY_CONFIG_MOUNT}/{CONFIG_FILE}", "-g", "daemon off;"),
        ports=(Port(PROXY_PORT, "http"),),
        resources=Resources(requests={"cpu": f"{PROXY_CPU_MILLIS}m", "memory": memory}, limits={"memory": memory}),
        mounts=(
            Mount(PROXY_CONFIG_VOLUME, PROXY_CONFIG_MOUNT, read_only=True),
            Mount(PROXY_STATE_VOLUME, PATH_FILTER.state_dir),
        ),
        security=SecurityContext(read_only_root_filesystem=True, run_as_user=NGINX_UID),
    )


def _init_container(step: SyncContainer, server: ServerSpec) -> Container:
    """A node-local copy step, run by the launcher image's Python with the pod's AWS settings."""
    memory = f"{step.memory_mib}Mi"
    return Container(
        name=step.name,
        image=LAUNCHER_IMAGE,
        command=step.command,
        env={k: v for k, v in server.env.items() if k.startswith("AWS_")},
        resources=Resources(requests={"cpu": f"{step.cpu_millis}m", "memory": memory}, limits={"memory": memory}),
        mounts=tuple(Mount(volume, path) for volume, path in step.mounts),
    )


def launcher_init_steps(server: ServerSpec) -> tuple[SyncContainer, ...]:
    """Only the node-local model copy comes along: the shared compile cache holds the model image's artefacts,
    and the launcher runs its own vLLM release, which vLLM's own hash keeps apart anyway. The revision matters
    to the launcher pod only for the node-local copy."""
    steps = tuple(step for step in server.init_containers if step.name in ("resolve-revision", "stage-model"))
    return steps if any(step.name == "stage-model" for step in steps) else ()


def launcher_volumes(server: ServerSpec, steps: tuple[SyncContainer, ...]) -> tuple[Volume, ...]:
    """Shared memory, the path filter's config and state, the compile cache (this FMA release's own folder on
    the node), and with the node-local copy the model cache, the copy script and the resolved revision."""
    volumes: list[Volume] = [
        EmptyDir(SHM_VOLUME, size_limit=_mib(server.shm_bytes), in_memory=True),
        ConfigMapVolume(PROXY_CONFIG_VOLUME, f"{server.name}-path-filter", default_mode=0o444),
        EmptyDir(PROXY_STATE_VOLUME, size_limit=f"{PROXY_STATE_MIB}Mi"),
    ]
    if server.cache_host_path is not None:
        volumes.append(HostPath(COMPILE_CACHE_VOLUME, f"{server.cache_host_path}-fma-{FMA_TAG}"))
    else:
        volumes.append(EmptyDir(COMPILE_CACHE_VOLUME))
    if server.model_host_path is not None:
        volumes.append(HostPath(MODEL_CACHE_VOLUME, server.model_host_path))
    if steps:
        volumes.append(ConfigMapVolume(SCRIPT_VOLUME, f"{server.name}-cache-sync"))
    if any(volume == REVISION_VOLUME for step in steps for volume, _ in step.mounts):
        volumes.append(EmptyDir(REVISION_VOLUME, size_limit=f"{REVISION_VOLUME_MIB}Mi", in_memory=True))
    return tuple(volumes)


def launcher_config(server: ServerSpec, labels: Mapping[str, str], *, memory: tuple[int, int]) -> LauncherConfigSpec:
    """The launcher Pod: FMA's launcher image, memory for the pinned weights (`memory`: request, limit), the
    model's service account (Pod Identity), the node-local copy, the path filter."""
    steps = launcher_init_steps(server)
    spec = PodSpec(
        service_account_name=server.service_account_name,
        # The launcher's state-change-reflector sidecar patches its own Pod (Role pods get/patch).
        automount_service_account_token=True,
        containers=(
            _engine_container(server, memory_request=memory[0], memory_limit=memory[1]),
            _path_filter_container(),
        ),
        init_containers=tuple(_init_container(step, server) for step in steps),
        tolerations=_tolerations(server),
        volumes=launcher_volumes(server, steps),
        priority_class_name=server.priority_class_name,
    )
    # A standby node holds only launchers: no GPU request, so Karpenter would see it as idle.
    template = PodTemplate(labels=dict(labels), annotations={DO_NOT_DISRUPT: "true"}, spec=spec)
    # One engine per launcher: its identity stays simple and pod affinity can target it.
    return LauncherConfigSpec(max_instances=1, pod_template=template)


# --- The model's FMA objects -------------------------------------------------------------------------------------


def inference_server_config(server: ServerSpec, gpu_memory_utilization: float) -> InferenceServerConfigSpec:
    """Our server for FMA's launcher, in dev mode (sleep and wake), labelled for the Service while awake."""
    env = {**server.env, "VLLM_SERVER_DEV_MODE": "1"}
    return InferenceServerConfigSpec(
        launcher_config_name=server.name,
        model_server=ModelServerConfig(
            port=ENGINE_PORT,
            options=isc_options(server, gpu_memory_utilization),
            env_vars=dict(sorted(env.items())),
            labels={LABEL_SERVING: server.name},
        ),
    )


def population_policy(plan: ServingPlan, name: str) -> PopulationPolicySpec:
    """One launcher per GPU slot of the model on every standby node of the plan's type (per node)."""
    return PopulationPolicySpec(
        node_labels={LABEL_STANDBY: STANDBY_VALUE, naming.WELL_KNOWN_INSTANCE_TYPE: plan.instance.name},
        launcher_counts={name: plan.instance.gpu_count // plan.tensor_parallel_size},
    )


def standby_labels(server: ServerSpec) -> StandbyLabels:
    name = server.name
    base = {k: v for k, v in server.labels.items() if k != "app.kubernetes.io/component"}
    requesters = {**base, "app.kubernetes.io/component": "requester", LABEL_REQUESTER_OF: name}
    primer = {
        **requesters,
        "app.kubernetes.io/instance": check_dns_label(f"{name}-standby", "name"),
        "app.kubernetes.io/component": "standby-primer",
    }
    return StandbyLabels(
        objects={**base, "app.kubernetes.io/component": "inference-server"},
        requesters=requesters,
        primer=primer,
        launchers={**base, LABEL_LAUNCHER_OF: name},
    )


def _check_inputs(plan: ServingPlan, server: ServerSpec, standbys: int, release: str, co_sleepers: int) -> None:
    check_standbys(standbys)
    require(standbys >= 1, "standbys", standbys, "at least 1 for FMA's objects (0 keeps the plain vLLM Deployment)")
    require(isinstance(server, ServerSpec), "server", server, "a ServerSpec from server_pod.server_spec")
    check_dns_label(release, "release")
    whole_number_in(co_sleepers, "co_sleepers", 0, 8)
    require(
        not server.model_from_revision,
        "follow_revisions",
        True,
        "False with standbys and an s3:// model (FMA's launcher hands vLLM the model URI as written in the "
        "InferenceServerConfig and cannot follow fastload-current.json: give model_uri a revision, "
        "s3://.../revisions/<id>, or a flat stage), or serving.model_cache='node-local' (the launcher pod "
        "resolves the revision when it starts)",
    )
    require(
        server.gpus == plan.tensor_parallel_size,
        "server",
        server.name,
        "the server spec made from this plan (GPU counts differ)",
    )


def _sleeper_utilization(plan: ServingPlan, standbys: int, co_sleepers: int, a: StandbyAssumptions) -> float:
    """This model's `--gpu-memory-utilization` with room for `co_sleepers` sleepers, if its KV cache still fits."""
    gpu_bytes = plan.instance.gpu_memory_mib * 1024**2
    utilization = standby_gpu_memory_utilization(plan.gpu_memory_utilization, gpu_bytes, co_sleepers, a)
    reserve = co_sleepers * a.sleeper_gpu_bytes
    if plan.kv_fit is not None:
        left = plan.kv_fit.kv_available_bytes - reserve
        require(
            left >= plan.kv_fit.kv_needed_bytes,
            "standbys",
            standbys,
            f"0 for this plan: {co_sleepers} sleeper(s) x {a.sleeper_gpu_bytes / GIB:g} GiB leave "
            f"{left / GIB:.1f} GiB of KV cache per GPU, below the {plan.kv_fit.kv_needed_bytes / GIB:.1f} GiB "
            "needed (lower max_model_len or kv_sequences)",
        )
    require(utilization > 0, "standbys", standbys, f"0 on {plan.instance.name}: sleepers would fill the GPU")
    return utilization


def _launcher_memory(plan: ServingPlan, standbys: int, a: StandbyAssumptions) -> tuple[int, int]:
    """(request, limit) of the launcher's memory: a sleeper's pinned weights must fit under the pod's."""
    request = standby_host_bytes(plan.model, a)
    limit = plan.pod_memory_bytes
    if request > limit:
        raise FastloadConfigError(
            "standbys",
            standbys,
            f"0 on {plan.instance.name}: a sleeping engine pins its {plan.model.total_gib:.1f} GiB of weights "
            f"plus {a.sleeper_process_host_bytes / GIB:g} GiB in host RAM, more than the pod's "
            f"{limit / GIB:.1f} GiB",
        )
    return request, limit


def standby_spec(
    plan: ServingPlan,
    server: ServerSpec,
    *,
    standbys: int,
    release: str = DEFAULT_RELEASE,
    co_sleepers: int = 1,
    assumptions: StandbyAssumptions | None = None,
) -> StandbySpec:
    """FMA's objects for `server` with `standbys` sleeping engines. Raises FastloadConfigError.

    `co_sleepers`: sleeping engines of *other* models that may share a GPU with this model's awake
    engine (FMA puts every scaled-in replica to sleep where it ran); each keeps ~2 GiB there, so this
    model's `--gpu-memory-utilization` leaves room for them. Default 1.
    """
    _check_inputs(plan, server, standbys, release, co_sleepers)
    a = assumptions if assumptions is not None else StandbyAssumptions()
    utilization = _sleeper_utilization(plan, standbys, co_sleepers, a)
    memory = _launcher_memory(plan, standbys, a)
    labels = standby_labels(server)
    name = server.name
    return StandbySpec(
        name=name,
        namespace=server.namespace,
        standbys=standbys,
        release=release,
        service_account_name=server.service_account_name,
        labels=labels.objects,
        isc=inference_server_config(server, utilization),
        launcher_config=launcher_config(server, labels.launchers, memory=memory),
        population_policy=population_policy(plan, name),
        requester_template=requester_template(server, labels.requesters, pinned_to_standby=False),
        primer_template=requester_template(server, labels.primer, pinned_to_standby=True),
        requester_replicas=server.replicas,
        service_selector={LABEL_SERVING: name},
        launcher_selector={LABEL_LAUNCHER_OF: name},
        requester_selector={LABEL_REQUESTER_OF: name, "app.kubernetes.io/instance": name},
        primer_selector={
            LABEL_REQUESTER_OF: name,
            "app.kubernetes.io/instance": labels.primer["app.kubernetes.io/instance"],
        },
        controller_labels=controller_pod_labels(release),
        gpu_memory_utilization=utilization,
        init_containers=launcher_init_steps(server),
        deployment_annotations=dict(server.annotations),
    )


def standby_nodes(plan: ServingPlan, standbys: int) -> int:
    """Standby nodes for `standbys` engines of this plan (one per GPU slot)."""
    check_standbys(standbys)
    return math.ceil(standbys * plan.tensor_parallel_size / plan.instance.gpu_count)


def standby_node_pool(
    instance_type: str,
    *,
    node_class: str,
    capacity_types: tuple[str, ...] = ("on-demand",),
    gpu_limit: int,
    instance_store: bool = True,
    ami_family: AmiFamily = DEFAULT_AMI_FAMILY,
) -> NodePoolSpec:
    """A Karpenter NodePool spec for standby nodes: the family pool's shape, one type, labelled and tainted
    `fastload.io/standby=true`, limited to the standby GPUs (so a burst beyond them takes the ordinary pool).
    `ami_family`: the node class's (its label decides where the device-plugin DaemonSet runs)."""
    require(is_whole_number(gpu_limit) and gpu_limit >= 1, "gpu_limit", gpu_limit, "a positive whole number of GPUs")
    node = gpu_node_spec(instance_type, instance_store=instance_store, ami_family=ami_family)
    spec = node_pool(
        node, [node.instance.name], node_class=node_class, capacity_types=capacity_types, gpu_limit=gpu_limit
    )
    return replace(
        spec,
        labels={**spec.labels, LABEL_STANDBY: STANDBY_VALUE},
        taints=(*spec.taints, Taint(LABEL_STANDBY, STANDBY_VALUE, "NoSchedule")),
    )


def standby_node_pool_spec(
    instance_type: str,
    *,
    node_class: str,
    capacity_types: tuple[str, ...] = ("on-demand",),
    gpu_limit: int,
    instance_store: bool = True,
    ami_family: AmiFamily = DEFAULT_AMI_FAMILY,
) -> dict[str, Any]:
    """`standby_node_pool` in the CRD's JSON spelling."""
    return standby_node_pool(
        instance_type,
        node_class=node_class,
        capacity_types=capacity_types,
        gpu_limit=gpu_limit,
        instance_store=instance_store,
        ami_family=ami_family,
    ).as_dict()


# --- FMA's controllers (Helm chart fma-controllers 0.6.4) ----------------------------------------------------
FMA_CHART_REPOSITORY = f"oci://{FMA_REGISTRY}/charts/fma-controllers"
FMA_CHART_NAME = "fma-controllers"
# The cluster-scoped objects the chart does not make (FMA docs/install.md at v0.6.4): its CRDs, installed by
# `infra.FmaController` as a chart of their own (release `fma-crds`).
FMA_CRDS_RELEASE = "fma-crds"
FMA_CRD_FILES = (
    "fma.llm-d.ai_inferenceserverconfigs.yaml",
    "fma.llm-d.ai_launcherconfigs.yaml",
    "fma.llm-d.ai_launcherpopulationpolicies.yaml",
)
FMA_ADMISSION_POLICIES_URL = f"https://github.com/llm-d-incubation/llm-d-fast-model-actuation/tree/{FMA_TAG}/config/validating-admission-policies"


def node_view_cluster_role(release: str = DEFAULT_RELEASE) -> str:
    """The ClusterRole granting nodes get/list/watch that the chart binds (`global.nodeViewClusterRole`)."""
    return check_dns_label(f"{release}-node-view", "release")


def node_view_rules() -> list[dict[str, Any]]:
    """EKS grants ordinary service accounts no node reads; FMA's controllers read nodes (GPU slots, populations)."""
    return [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]}]


def fma_values(release: str = DEFAULT_RELEASE) -> dict[str, Any]:
    """Helm values of fma-controllers 0.6.4: the image tag pinned (its default is `latest`), both controllers on,
    the node-view ClusterRole named. The chart runs the controllers in its release namespace and they manage only
    that namespace, so install it where the models run."""
    check_dns_label(release, "release")
    return {
        "global": {"imageTag": FMA_TAG, "nodeViewClusterRole": node_view_cluster_role(release)},
        "dualPodsController": {"enabled": True},
        "launcherPopulator": {"enabled": True},
    }
