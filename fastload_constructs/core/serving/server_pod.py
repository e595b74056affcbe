"""What a server pod runs, decided from a ServingPlan: pure, no cdk8s, the same for every engine.

`server_spec(...)` turns a plan plus a few choices (model URI, region, `ServerOptions`) into the
command line, the environment, the probes, the resources, the volumes and the node selection the
chart renders. The plan's engine (`core.engines`) decides its container: command, arguments, its own
environment, port, probes and cache mount; everything around it (checks, node selection, model path,
cache keys, cache-sync and warm-check containers, resources) is decided here, once for every engine.
Keeping it here means every value the Deployment carries is testable without synthesis.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from fastload_constructs.core import naming
from fastload_constructs.core.cluster.karpenter import DO_NOT_DISRUPT
from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.engines.args import check_arg_shape
from fastload_constructs.core.engines.base import Engine, EngineLaunch, HttpProbe
from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.images import image_tag
from fastload_constructs.core.naming import SERVER_PRIORITY_CLASS
from fastload_constructs.core.planning.plan import ServingPlan
from fastload_constructs.core.s3_uri import parse_s3_uri
from fastload_constructs.core.serving.cache_sharing import (
    DEFAULT_COMPILE_CACHE_PREFIX,
    NODE_LOCAL_MODEL_LINK,
    SharedCompileCache,
    SyncContainer,
    compile_cache_key,
    copy_model_container,
    node_local_model_dir,
    publish_compile_cache,
    resolve_revision_container,
    restore_compile_cache,
    revision_launch,
)
from fastload_constructs.core.serving.plan_record import plan_annotations
from fastload_constructs.core.serving.runtime_scripts import shared_scripts_name
from fastload_constructs.core.serving.streamer_env import streamer_env
from fastload_constructs.core.serving.warm_check import warm_check as warm_check_container
from fastload_constructs.core.settings import (
    Key,
    boolean,
    check_settings,
    one_of_choices,
    optional,
    positive_whole_number,
    setting,
)
from fastload_constructs.core.tokens import CDK_TOKEN, is_token, stable
from fastload_constructs.core.validation import (
    check_dns1035_label,
    check_dns_label,
    check_dns_subdomain,
    check_key_prefix,
)

SHM_MOUNT_PATH = "/dev/shm"
DEFAULT_PVC_SIZE_GIB = 100

CompileCache = Literal["host-path", "pvc", "empty-dir"]
COMPILE_CACHE_MODES: tuple[str, ...] = ("host-path", "pvc", "empty-dir")


@dataclass(frozen=True)
class Toleration:
    key: str
    value: str
    effect: str


@dataclass(frozen=True)
class ServerSpec:
    """Everything the server chart renders for one model, whatever its engine; built by `server_spec`."""

    name: str
    model_name: str
    served_model_name: str
    image: str
    image_tag: str
    # Which engine the pod runs (`core.engines`), its container's name, and where the compile-cache volume
    # is mounted in it (the engine's cache root lives there).
    engine: str
    container_name: str
    cache_mount_path: str
    api_key_env: str | None  # where the server reads an API key from (ServingAccess); None: it takes none so
    command: tuple[str, ...]
    args: tuple[str, ...]
    env: Mapping[str, str]
    port: int
    replicas: int | None  # None: no spec.replicas, an autoscaler owns the count
    gpus: int
    cpu: int
    memory_bytes: int  # the server container's; with the sidecars' it adds up to the plan's pod memory
    shm_bytes: int
    startup_probe: HttpProbe
    readiness_probe: HttpProbe
    liveness_probe: HttpProbe
    compile_cache: str
    compile_cache_key: str  # keys the host-path folder and the shared S3 archive alike
    cache_host_path: str | None  # host-path mode only
    pvc_size_gib: int | None  # pvc mode only
    node_labels: Mapping[str, str]  # required node affinity: key In [value]
    toleration: Toleration
    service_account_name: str
    namespace: str
    labels: Mapping[str, str]  # Kubernetes recommended labels, on every object and the pods
    model_cache: str = "s3"
    # What the server is given as its model: the s3:// URI, or the pod's link to its node-local copy.
    model_path: str = ""
    model_host_path: str | None = None  # node-local model cache only
    # The model's own folder of copies under the node's model cache (node-local only): the server mounts
    # just this subPath, never the node's whole cache (no model reads another's copy on a shared node), and
    # opens its model path, the pod's own link to the copy of the revision it resolved (NODE_LOCAL_MODEL_LINK).
    model_sub_path: str | None = None
    init_containers: tuple[SyncContainer, ...] = ()  # run in order before the server
    sidecars: tuple[SyncContainer, ...] = ()
    # Warm spares (core/serving/warm_spares.py): the server pods' PriorityClass, above the placeholders'.
    priority_class_name: str | None = None
    pod_annotations: Mapping[str, str] = field(default_factory=dict)  # on the pod template, beside the chart's
    # On the Deployment itself: the plan it was made from (core/serving/plan_record.py).
    annotations: Mapping[str, str] = field(default_factory=dict)
    # The ConfigMap holding the in-pod scripts, and whether it is the namespace's shared one
    # (core/serving/runtime_scripts.py) that the chart only refers to, or the chart's own.
    scripts_config_map: str = ""
    scripts_shared: bool = False
    # The pod follows the model's published revision (`ServerOptions.follow_revisions`): its first init
    # container resolves it, and with an s3:// model the server's command reads the resolved URI.
    follows_revisions: bool = False

    @property
    def model_from_revision(self) -> bool:
        """The server itself reads the resolved revision's URI (an s3:// model); a node-local copy path is stable."""
        return self.follows_revisions and self.model_cache == "s3"

    @property
    def container_command(self) -> tuple[str, ...]:
        """What the server container runs: the engine, or the launcher that hands it the resolved URI."""
        return (
            revision_launch(self.command, self.args, self.model_path)[0] if self.model_from_revision else self.command
        )

    @property
    def container_args(self) -> tuple[str, ...]:
        return revision_launch(self.command, self.args, self.model_path)[1] if self.model_from_revision else self.args


def check_model_uri(value: object, field: str = "model_uri") -> str:
    """An s3://bucket/prefix URI; a deploy-time (CDK token) bucket is accepted, its prefix still checked."""
    require(isinstance(value, str) and value.startswith("s3://"), field, value, "an s3://bucket/prefix URI")
    assert isinstance(value, str)
    bucket, _, prefix = value[len("s3://") :].partition("/")
    if is_token(bucket):
        require(
            CDK_TOKEN.fullmatch(bucket) is not None, f"{field}.bucket", bucket, "a bucket name or a single CDK token"
        )
        require(not is_token(prefix), f"{field}.prefix", prefix, "a literal key prefix")
        return f"s3://{bucket}/{check_key_prefix(prefix, f'{field}.prefix')}"
    return parse_s3_uri(value, field).uri


def recommended_labels(*, name: str, image_tag: str, engine: str) -> dict[str, str]:
    """The `app.kubernetes.io/*` labels every object of one server carries (`name` is the engine's)."""
    return {
        "app.kubernetes.io/name": engine,
        "app.kubernetes.io/instance": name,
        # Label values: at most 63 characters, no ':' (a digest becomes 'sha256-<hex>', cut to fit).
        "app.kubernetes.io/version": image_tag.replace(":", "-")[:63].rstrip("-_."),
        "app.kubernetes.io/component": "inference-server",
        "app.kubernetes.io/part-of": naming.PART_OF,
        "app.kubernetes.io/managed-by": naming.MANAGED_BY,
    }


def cache_key_for(plan: ServingPlan, *, image: str, model_uri: str, factors: Mapping[str, str] | None = None) -> str:
    """This configuration's compile-cache key, keyed like the engines' own hashes.

    Covers the image tag (the engine's version and code), the model, TP, the GPU model, and `factors`:
    the server's other arguments and the engine's variables, any of which its hash may cover. A
    deploy-time bucket name is keyed as a fixed marker: token numbering moves between syntheses, and
    a key that moved would orphan the cache on every deploy.
    """
    return compile_cache_key(
        image_tag=image_tag(image),
        model_uri=stable(model_uri),
        tensor_parallel_size=plan.tensor_parallel_size,
        gpu_model=plan.instance.gpu_model,
        extra=dict(factors or {}),
    )


def _served_name(value: object, name: str) -> str:
    ok = isinstance(value, str) and value != "" and not any(c.isspace() for c in value)
    require(ok, name, value, "a non-empty name without spaces")
    assert isinstance(value, str)
    return value


def _endpoint_url(value: object, name: str) -> str:
    require(isinstance(value, str) and value != "", name, value, "None or an http(s) URL")
    assert isinstance(value, str)
    return value


def _cache_prefix(value: object, name: str) -> object:
    check_key_prefix(value, name)
    return value  # as given: the key the archives are written under


def _text(value: object, name: str) -> str:
    require(isinstance(value, str), name, value, "text")
    assert isinstance(value, str)
    return value


@dataclass(frozen=True)
class ServerOptions:
    """How one model's server runs, beyond what the plan decides; checked once, here.

    Shared by `server_spec`, `k8s.ServerChart` and `infra.ServedModel`, so each
    option is defined (and documented) in one place. Checks that need the plan
    (instance store, replicas per node, the engine's flags) run in `server_spec`.
    """

    namespace: str = setting(
        naming.DEFAULT_NAMESPACE, check=lambda v, n: check_dns_label(v, n), accepted="a DNS-1123 label"
    )
    """Namespace of every object. Default: `inference`."""
    name: str | None = setting(
        check=optional(lambda v, n: check_dns1035_label(v, n)), accepted="an RFC 1035 label, or None"
    )
    """Deployment/Service name. Default: the model name; set it to run one model twice (e.g. on two types)."""
    replicas: int | None = setting(
        1,
        check=optional(positive_whole_number("a positive whole number, or None when an autoscaler owns the count")),
        accepted="a positive whole number",
        doc="Pods, fixed (instead of minReplicas and maxReplicas).",
        # cdk.json's `replicas` is a count; an autoscaled model gives minReplicas and maxReplicas instead.
        key=Key("replicas", read=positive_whole_number("a positive whole number")),
        kind=int,
    )
    """Pods of the Deployment. `None`: the Deployment has no `spec.replicas`, an autoscaler owns the count
    (KEDA's HPA with `ServedModel(autoscaling=...)`), so re-applying the manifest never resets it. Default: 1."""
    compile_cache: CompileCache = setting(
        "host-path", check=one_of_choices(COMPILE_CACHE_MODES), accepted="host-path, pvc or empty-dir"
    )
    """Where the engine's compile cache lives: `host-path` (node RAID0), `pvc` (one local-nvme volume),
    `empty-dir`. Default: `host-path`."""
    served_model_name: str | None = setting(check=optional(_served_name), accepted="a non-empty name without spaces")
    """The model name clients send in requests. Default: the model name."""
    pvc_size_gib: int = setting(
        DEFAULT_PVC_SIZE_GIB,
        check=positive_whole_number("a positive whole number of GiB"),
        accepted="a positive whole number of GiB",
    )
    """Size of the compile-cache claim with `compile_cache="pvc"`. Default: 100."""
    endpoint_url: str | None = setting(check=optional(_endpoint_url), accepted="None or an http(s) URL")
    """An S3 endpoint override for the streamer (tests, S3-compatible stores). Default: AWS S3."""
    extra_args: tuple[str, ...] = setting(
        (),
        check=lambda v, n: check_arg_shape(v, n),
        accepted="a list of server flags and their values, e.g. ['--max-num-seqs', '64']",
        doc="More server arguments (vllm serve, sglang.launch_server); not the flags the plan sets.",
        key="extraArgs",
        kind=list,
    )
    """More server arguments (`vllm serve ...`, `sglang.launch_server ...`); flags the plan sets are refused,
    with the list of the plan's engine (`Engine.managed_flags`), in `server_spec`. Default: none."""
    compile_cache_prefix: str = setting(
        DEFAULT_COMPILE_CACHE_PREFIX, check=_cache_prefix, accepted="a relative S3 key prefix"
    )
    """Where shared compile-cache archives go in the model's bucket, when the plan's serving choice has
    `shared_compile_cache` (each model under its own folder). Default: `compile-cache`."""
    verify_staged_model: bool = setting(False, check=boolean, accepted="true or false")
    """With `node-local`, also check each file's SHA-256 against the staging manifest. Default: False."""
    priority_class_name: str | None = setting(
        check=optional(lambda v, n: check_dns_subdomain(v, n)), accepted="a DNS-1123 subdomain, or None"
    )
    """The pods' PriorityClass. Default: `fastload-vllm` (above the spares') when the plan has warm spares,
    else none (the cluster default). Set it on every model of a cluster where any model has spares."""
    shared_runtime_scripts: bool = setting(False, check=boolean, accepted="true or false")
    """Mount the in-pod scripts from the namespace's shared ConfigMap
    (`core.serving.runtime_scripts.shared_scripts_name()`, emitted by `k8s.RuntimeScriptsChart`) instead of
    embedding them in this model's chart. `infra.ServedModel` turns it on and applies that chart once per
    namespace; a standalone chart keeps its own. Default: False."""
    runtime_scripts_owner: str = setting("", check=_text, accepted="text")
    """With `shared_runtime_scripts`: the owner the shared ConfigMap's name is keyed by (`ServedModel` sets its
    stack's), so two stacks never apply one object. Default: none."""
    follow_revisions: bool = setting(True, check=boolean, accepted="true or false")
    """Load the model's published revision (`fastload stage` writes immutable revisions and switches
    `<model_uri>/fastload-current.json`): the pod's first init container reads the pointer once, and the
    streamer, the node-local copy and the compile-cache key use that revision until the pod ends. A prefix
    staged flat (`--layout flat`, or before revisions) is read as it is. False: the server reads `model_uri`
    as given, with no init container (name a revision, `s3://.../revisions/<id>`, or a flat stage). Default: True."""
    do_not_disrupt: bool = setting(False, check=boolean, accepted="true or false")
    """Annotate the pods `karpenter.sh/do-not-disrupt: "true"` (`core.cluster.karpenter.DO_NOT_DISRUPT`): Karpenter's
    voluntary disruption (consolidation, drift) skips a node while a server pod loads or serves on it. Set it
    where Karpenter manages the GPU nodes. Default: False."""

    def __post_init__(self) -> None:
        # The extra args' shape here; their flags against the plan's engine's, in server_spec (an SGLang model
        # is told SGLang's).
        check_settings(self)


def server_spec(
    plan: ServingPlan,
    *,
    model_name: str,
    model_uri: str,
    region: str,
    options: ServerOptions | None = None,
) -> ServerSpec:
    """Check every input and decide the pod of the plan's engine; raises FastloadConfigError naming the bad field.

    What the model is served with (engine, image, model cache, shared compile cache, warm spares) is the
    plan's (`plan.serving`): nothing here repeats it. With warm spares the pods get the PriorityClass above
    the spares' and an init container that checks what a spare left on the node.
    """
    opts = options if options is not None else ServerOptions()
    require(isinstance(opts, ServerOptions), "options", opts, "a ServerOptions")
    require(isinstance(plan, ServingPlan), "plan", plan, "a ServingPlan from fastload_constructs.plan")
    check_dns1035_label(model_name, "model_name")
    name = opts.name if opts.name is not None else check_dns1035_label(model_name, "name")
    uri = check_model_uri(model_uri)
    _check_instance_fits(plan, opts, region)
    engine = engine_named(plan.engine)
    model_path = NODE_LOCAL_MODEL_LINK if _node_local(plan) else uri
    served = opts.served_model_name if opts.served_model_name is not None else model_name
    launch = engine.launch(plan, model_path=model_path, served_model_name=served, extra_args=opts.extra_args)
    env = {**streamer_env(plan.streamer, region=region, endpoint_url=opts.endpoint_url), **launch.env}
    key = cache_key_for(plan, image=plan.serving.image, model_uri=uri, factors=launch.compile_factors)
    init_containers, sidecars = _cache_steps(plan, opts, engine, launch, model_name=model_name, uri=uri, key=key)
    return _spec(
        plan,
        opts,
        engine,
        launch,
        name=name,
        model_name=model_name,
        served=served,
        uri=uri,
        model_path=model_path,
        env=env,
        key=key,
        init_containers=init_containers,
        sidecars=sidecars,
    )


def _node_local(plan: ServingPlan) -> bool:
    return plan.serving.model_cache == "node-local"


def _check_instance_fits(plan: ServingPlan, opts: ServerOptions, region: str) -> None:
    """The caches the options and the plan ask for need the instance's NVMe; one PVC serves one node.

    The cache choices together (this check refuses; `_node_labels` places; `_cache_steps` adds the steps):

    | plan's model_cache | compile_cache | instance store | outcome                                             |
    | ------------------ | ------------- | -------------- | --------------------------------------------------- |
    | s3                 | empty-dir     | any            | nothing kept on the node                            |
    | s3                 | host-path     | yes            | compile cache on the RAID0, pods on store nodes     |
    | any                | pvc           | yes            | one local-nvme volume: replicas x TP fit one node   |
    | node-local         | any           | yes            | model copied to the RAID0 once, pods on store nodes |
    | any                | host-path/pvc | no             | refused: `compile_cache`                            |
    | node-local         | empty-dir     | no             | refused: `serving.model_cache`                      |

    With warm spares, a node-local model or a host-path cache also gets the warm check first.
    """
    instance = plan.instance
    compile_cache = opts.compile_cache
    if compile_cache in ("host-path", "pvc") and not instance.has_instance_store:
        raise FastloadConfigError(
            "compile_cache", compile_cache, f"'empty-dir' on {instance.name}, which has no instance-store NVMe"
        )
    if compile_cache == "pvc":
        # One local volume lives on one node: every replica must fit that node's GPUs (an autoscaler's
        # bound is checked where it is known, infra.ServedModel).
        require(
            (opts.replicas or 1) * plan.tensor_parallel_size <= instance.gpu_count,
            "replicas",
            opts.replicas,
            f"at most {instance.gpu_count // plan.tensor_parallel_size} with compile_cache='pvc' "
            f"(one local-nvme volume, one {instance.name}); use 'host-path' to spread replicas",
        )
    require(isinstance(region, str) and region != "", "region", region, "an AWS region such as us-east-1")
    if _node_local(plan) and not instance.has_instance_store:
        raise FastloadConfigError(
            "serving.model_cache",
            plan.serving.model_cache,
            f"'s3' on {instance.name}, which has no instance-store NVMe",
        )


def _node_labels(plan: ServingPlan, opts: ServerOptions) -> dict[str, str]:
    """The instance type, and the RAID0 instance store where a cache lives on the node."""
    labels = {naming.WELL_KNOWN_INSTANCE_TYPE: plan.instance.name}
    if opts.compile_cache == "host-path" or _node_local(plan):
        labels[naming.LABEL_INSTANCE_STORE] = naming.INSTANCE_STORE_RAID0
    return labels


def _cache_steps(
    plan: ServingPlan,
    opts: ServerOptions,
    engine: Engine[Any],
    launch: EngineLaunch,
    *,
    model_name: str,
    uri: str,
    key: str,
) -> tuple[tuple[SyncContainer, ...], tuple[SyncContainer, ...]]:
    """(init containers in order, sidecars): resolve the revision, check what a warm spare left, copy the
    model to the node, restore the shared compile cache; publish it beside the server."""
    serving = plan.serving
    cache_root = engine.cache_mount_path
    follow = opts.follow_revisions
    node_local = _node_local(plan)
    init: list[SyncContainer] = [resolve_revision_container(uri)] if follow else []
    sidecars: list[SyncContainer] = []
    if serving.warm_spares > 0 and (node_local or opts.compile_cache == "host-path"):
        host_cache = cache_root if opts.compile_cache == "host-path" else None
        init.append(warm_check_container(uri, node_local_model=node_local, cache_root=host_cache, revision=follow))
    if node_local:
        init.append(copy_model_container(uri, verify_sha256=opts.verify_staged_model, revision=follow))
    if serving.shared_compile_cache:
        # The shared cache lives in the model's own bucket, under the options' prefix; each model reads and
        # writes only its own folder of it (the role's grant).
        bucket = uri[len("s3://") :].split("/", 1)[0]
        folder = SharedCompileCache(bucket, opts.compile_cache_prefix).for_model(model_name)
        init.append(restore_compile_cache(folder, key, cache_root, revision=follow))
        wait_s = launch.probes[0].budget_seconds  # the startup probe's
        sidecars.append(
            publish_compile_cache(folder, key, cache_root, engine.port, wait_timeout_s=wait_s, revision=follow)
        )
    return tuple(init), tuple(sidecars)


def _spec(
    plan: ServingPlan,
    opts: ServerOptions,
    engine: Engine[Any],
    launch: EngineLaunch,
    *,
    name: str,
    model_name: str,
    served: str,
    uri: str,
    model_path: str,
    env: Mapping[str, str],
    key: str,
    init_containers: tuple[SyncContainer, ...],
    sidecars: tuple[SyncContainer, ...],
) -> ServerSpec:
    """The spec from the decisions above."""
    image = plan.serving.image
    tag = image_tag(image)
    startup, readiness, liveness = launch.probes
    node_local = _node_local(plan)
    host_path = opts.compile_cache == "host-path"
    warm_spares = plan.serving.warm_spares > 0
    return ServerSpec(
        name=name,
        model_name=model_name,
        served_model_name=served,
        image=image,
        image_tag=tag,
        engine=engine.name,
        container_name=engine.container_name,
        cache_mount_path=engine.cache_mount_path,
        api_key_env=engine.api_key_env,
        command=engine.command,
        args=launch.args,
        env=env,
        port=engine.port,
        replicas=opts.replicas,
        gpus=plan.tensor_parallel_size,
        cpu=plan.pod_cpu,
        # The pod's memory is the plan's; sidecars take theirs out of the server's share.
        memory_bytes=plan.pod_memory_bytes - sum(c.memory_mib for c in sidecars) * 1024**2,
        shm_bytes=plan.shm_bytes,
        startup_probe=startup,
        readiness_probe=readiness,
        liveness_probe=liveness,
        compile_cache=opts.compile_cache,
        compile_cache_key=key,
        cache_host_path=f"{naming.node_cache_paths(plan.serving.ami_family).compile_cache}/{key}"
        if host_path
        else None,
        pvc_size_gib=opts.pvc_size_gib if opts.compile_cache == "pvc" else None,
        node_labels=_node_labels(plan, opts),
        toleration=Toleration(naming.GPU_TAINT_KEY, naming.GPU_TAINT_VALUE, naming.GPU_TAINT_EFFECT),
        service_account_name=naming.service_account_name(model_name),
        namespace=opts.namespace,
        labels=recommended_labels(name=name, image_tag=tag, engine=engine.name),
        model_cache=plan.serving.model_cache,
        model_path=model_path,
        model_host_path=naming.node_cache_paths(plan.serving.ami_family).models if node_local else None,
        model_sub_path=node_local_model_dir(uri) if node_local else None,
        init_containers=init_containers,
        sidecars=sidecars,
        priority_class_name=opts.priority_class_name or (SERVER_PRIORITY_CLASS if warm_spares else None),
        pod_annotations={DO_NOT_DISRUPT: "true"} if opts.do_not_disrupt else {},
        annotations=plan_annotations(plan),
        scripts_config_map=(
            shared_scripts_name(opts.runtime_scripts_owner) if opts.shared_runtime_scripts else f"{name}-cache-sync"
        ),
        scripts_shared=opts.shared_runtime_scripts,
        follows_revisions=opts.follow_revisions,
    )
