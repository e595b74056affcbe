"""What a vLLM server pod runs, decided from a ServingPlan: pure, no cdk8s.

`server_spec(...)` turns a plan plus a few choices (image, model URI, region,
compile-cache mode) into the command line, the environment, the probes, the
resources, the volumes and the node selection the chart renders. Keeping it
here means every value the Deployment carries is testable without synthesis.

Compile-cache stability: vLLM keys its torch.compile cache on its version,
the model config, the model path and every `VLLM_*` factor, so nothing in the
args or env below depends on the pod, the node or the replica.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from fastload_constructs.core import naming
from fastload_constructs.core.cluster.karpenter import DO_NOT_DISRUPT
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, one_of, require
from fastload_constructs.core.naming import VLLM_PRIORITY_CLASS
from fastload_constructs.core.planning.plan import ServingPlan
from fastload_constructs.core.planning.releases import image_tag
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
from fastload_constructs.core.tokens import CDK_TOKEN, is_token, stable
from fastload_constructs.core.validation import (
    check_dns1035_label,
    check_dns_label,
    check_dns_subdomain,
    check_key_prefix,
)

SERVER_PORT = 8000
CONTAINER_NAME = "vllm"
# The image's entrypoint has changed between releases; naming the command pins how args are read.
SERVER_COMMAND = ("vllm", "serve")
# Where the compile-cache volume is mounted and what VLLM_CACHE_ROOT points to. It must be the
# same on every replica: with an s3:// model vLLM copies the config and tokenizer files to
# $VLLM_CACHE_ROOT/assets/model_streamer/<sha256(uri)[:8]> and uses that folder as the model
# path, which its compile-cache hash covers (vllm 0.34 config/model.py, runai_utils.py).
CACHE_MOUNT_PATH = "/var/cache/vllm"
SHM_MOUNT_PATH = "/dev/shm"
DEFAULT_PVC_SIZE_GIB = 100

CompileCache = Literal["host-path", "pvc", "empty-dir"]
COMPILE_CACHE_MODES: tuple[str, ...] = ("host-path", "pvc", "empty-dir")

# Flags server_spec owns; user `extra_args` may not set them a second time. The pipeline- and
# data-parallel sizes are refused too: the pod asks for TP GPUs, and PP or DP > 1 would need more
# (vLLM 0.34 vllm/engine/arg_utils.py: -tp, -pp, -dp are the short forms).
MANAGED_FLAGS = (
    "--model",
    "--load-format",
    "--model-loader-extra-config",
    "--tensor-parallel-size",
    "-tp",
    "--pipeline-parallel-size",
    "-pp",
    "--data-parallel-size",
    "-dp",
    "--gpu-memory-utilization",
    "--served-model-name",
    "--port",
    "--host",
    # The plan sizes weights from the checkpoint's dtype; casting or quantising changes that memory.
    "--dtype",
    "--quantization",
    "-q",
)


@dataclass(frozen=True)
class HttpProbe:
    """An HTTP GET probe on the server port."""

    path: str
    period_seconds: int
    failure_threshold: int
    timeout_seconds: int

    @property
    def budget_seconds(self) -> int:
        return self.period_seconds * self.failure_threshold


@dataclass(frozen=True)
class Toleration:
    key: str
    value: str
    effect: str


@dataclass(frozen=True)
class VllmServerSpec:
    """Everything the vLLM chart renders; built by `server_spec`."""

    name: str
    model_name: str
    served_model_name: str
    image: str
    image_tag: str
    command: tuple[str, ...]
    args: tuple[str, ...]
    env: Mapping[str, str]
    port: int
    replicas: int | None  # None: no spec.replicas, an autoscaler owns the count
    gpus: int
    cpu: int
    memory_bytes: int  # the vLLM container's; with the sidecars' it adds up to the plan's pod memory
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
    model_path: str = ""  # the positional model argument: the s3:// URI or the pod's link to its node-local copy
    model_host_path: str | None = None  # node-local model cache only
    # The model's own folder of copies under the node's model cache (node-local only): the server mounts
    # just this subPath, never the node's whole cache (no model reads another's copy on a shared node), and
    # opens its model path, the pod's own link to the copy of the revision it resolved (NODE_LOCAL_MODEL_LINK).
    model_sub_path: str | None = None
    init_containers: tuple[SyncContainer, ...] = ()  # run in order before vLLM
    sidecars: tuple[SyncContainer, ...] = ()
    # Warm spares (core/serving/warm_spares.py): the vLLM pods' PriorityClass, above the placeholders'.
    priority_class_name: str | None = None
    pod_annotations: Mapping[str, str] = field(default_factory=dict)  # on the pod template, beside the chart's
    # On the Deployment itself: the plan it was made from (core/serving/plan_record.py).
    annotations: Mapping[str, str] = field(default_factory=dict)
    # The ConfigMap holding the in-pod scripts, and whether it is the namespace's shared one
    # (core/serving/runtime_scripts.py) that the chart only refers to, or the chart's own.
    scripts_config_map: str = ""
    scripts_shared: bool = False
    # Which engine the pod runs ("vllm" or "sglang", core/serving/engines.py), its container's name, and where
    # the compile-cache volume is mounted in it (the engine's cache root lives there).
    engine: str = "vllm"
    container_name: str = "vllm"
    cache_mount_path: str = CACHE_MOUNT_PATH
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


# The chart renders either engine's spec (core/serving/sglang_server.py builds the same shape).
ServerSpec = VllmServerSpec


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


def recommended_labels(*, name: str, image_tag: str, engine: str = "vllm") -> dict[str, str]:
    """The `app.kubernetes.io/*` labels every object of one server carries (`name` is the engine)."""
    return {
        "app.kubernetes.io/name": engine,
        "app.kubernetes.io/instance": name,
        # Label values: at most 63 characters, no ':' (a digest becomes 'sha256-<hex>', cut to fit).
        "app.kubernetes.io/version": image_tag.replace(":", "-")[:63].rstrip("-_."),
        "app.kubernetes.io/component": "inference-server",
        "app.kubernetes.io/part-of": naming.PART_OF,
        "app.kubernetes.io/managed-by": naming.MANAGED_BY,
    }


def loader_extra_config_json(plan: ServingPlan) -> str:
    """The `--model-loader-extra-config` value: the plan's streamer settings as compact JSON."""
    return json.dumps(plan.streamer.loader_extra_config(), separators=(",", ":"), sort_keys=True)


def capture_sizes_json(sizes: Sequence[int]) -> str:
    """The --compilation-config value that sets only the CUDA-graph capture sizes."""
    return json.dumps({"cudagraph_capture_sizes": list(sizes)}, separators=(",", ":"))


def check_extra_args(extra_args: object, field: str = "extra_args") -> tuple[str, ...]:
    """Extra `vllm serve` arguments: non-empty strings, none setting a flag the plan owns.

    vLLM's parser reads `--flag_name` as `--flag-name` and `--flag=value` as
    `--flag value` (vllm/utils/argparse_utils.py FlexibleArgumentParser), so
    both spellings are refused alike. A bare value first would become a second
    model argument, so the list must start with a flag.
    """
    require(
        isinstance(extra_args, (list, tuple)) and all(isinstance(a, str) and a.strip() != "" for a in extra_args),
        field,
        extra_args,
        "a list of non-empty strings, e.g. ['--max-num-seqs', '64']",
    )
    assert isinstance(extra_args, (list, tuple))
    args = tuple(extra_args)
    require(not args or args[0].startswith("-"), field, args[0] if args else None, "a list that starts with a --flag")
    for i, arg in enumerate(args):
        flag = arg.split("=", 1)[0]
        if flag.startswith("--"):
            flag = "--" + flag[2:].replace("_", "-")
        require(
            flag not in MANAGED_FLAGS,
            f"{field}[{i}]",
            arg,
            "flags other than " + ", ".join(MANAGED_FLAGS) + " (those come from the plan)",
        )
    return args


def vllm_args(
    plan: ServingPlan, *, model_uri: str, served_model_name: str, extra_args: Sequence[str] = ()
) -> tuple[str, ...]:
    """The vLLM server arguments (after `vllm serve`).

    The model URI is the positional argument: vLLM 0.34's `vllm serve` warns that
    `--model` is deprecated there and rewrites it to this form
    (vllm/utils/argparse_utils.py).
    """
    extra_args = check_extra_args(extra_args)
    tuned: list[str] = []
    if plan.max_model_len is not None:
        tuned += ["--max-model-len", str(plan.max_model_len)]
    if plan.cudagraph_capture_sizes is not None:
        # vLLM's CompilationConfig.cudagraph_capture_sizes, through --compilation-config (-cc) JSON: the
        # form every release since 0.6 parses (vllm/engine/arg_utils.py); newer ones also take
        # --cudagraph-capture-sizes.
        tuned += ["--compilation-config", capture_sizes_json(plan.cudagraph_capture_sizes)]
    if plan.kv_cache_dtype != "auto":
        # The fit assumed a one-byte KV cache: vLLM must allocate it that way (--kv-cache-dtype fp8).
        tuned += ["--kv-cache-dtype", plan.kv_cache_dtype]
    for arg in extra_args:
        flag = arg.split("=", 1)[0]
        if flag.startswith("--"):
            flag = "--" + flag[2:].replace("_", "-")
        require(
            not (flag == "--max-model-len" and plan.max_model_len is not None)
            and not (flag in ("--compilation-config", "-cc", "-O") and plan.cudagraph_capture_sizes is not None)
            and not (flag == "--kv-cache-dtype" and plan.kv_cache_dtype != "auto"),
            "extra_args",
            arg,
            "flags the plan does not set already (it sets --max-model-len / --compilation-config from "
            "max_model_len / cudagraph_capture_sizes)",
        )
    return (
        model_uri,
        "--load-format",
        "runai_streamer",
        "--model-loader-extra-config",
        loader_extra_config_json(plan),
        "--tensor-parallel-size",
        str(plan.tensor_parallel_size),
        "--gpu-memory-utilization",
        f"{plan.gpu_memory_utilization:g}",
        "--served-model-name",
        served_model_name,
        "--port",
        str(SERVER_PORT),
        *tuned,
        *extra_args,
    )


def vllm_env(plan: ServingPlan, *, region: str, endpoint_url: str | None = None) -> dict[str, str]:
    """The streamer env (region, concurrency, memory limit) plus VLLM_CACHE_ROOT on the cache volume."""
    env = streamer_env(plan.streamer, region=region, endpoint_url=endpoint_url)
    env["VLLM_CACHE_ROOT"] = CACHE_MOUNT_PATH
    return env


def cache_key_for(plan: ServingPlan, *, image: str, model_uri: str, factors: Mapping[str, str] | None = None) -> str:
    """This configuration's compile-cache key, keyed like vLLM's own hash.

    Covers the image tag (vLLM version and code), the model, TP, the GPU model,
    and `factors`: the server's other arguments and VLLM_* settings, any of
    which vLLM's hash may cover. A deploy-time bucket name is keyed as a fixed
    marker: token numbering moves between syntheses, and a key that moved would
    orphan the cache on every deploy.
    """
    return compile_cache_key(
        vllm_version=image_tag(image),
        model_uri=stable(model_uri),
        tensor_parallel_size=plan.tensor_parallel_size,
        gpu_model=plan.instance.gpu_model,
        extra=dict(factors or {}),
    )


def compile_cache_folder(
    plan: ServingPlan, *, image: str, model_uri: str, factors: Mapping[str, str] | None = None
) -> str:
    """The node-local folder for this configuration's cache; inside it vLLM's own hash still separates."""
    return f"{naming.COMPILE_CACHE_HOST_ROOT}/{cache_key_for(plan, image=image, model_uri=model_uri, factors=factors)}"


def compile_factors(args: Sequence[str], env: Mapping[str, str]) -> dict[str, str]:
    """What besides version, model, TP and GPU can change vLLM's compiled artifacts.

    Every server argument except the model path and the streamer's loader
    config (they change where weights come from, not what is compiled), and
    every VLLM_* variable except VLLM_CACHE_ROOT (excluded from vLLM's hash).
    """
    kept: list[str] = []
    skip_next = False
    for arg in list(args)[1:]:  # args[0] is the model path
        if skip_next:
            skip_next = False
            continue
        if arg == "--model-loader-extra-config":
            skip_next = True
            continue
        if not arg.startswith("--model-loader-extra-config="):
            kept.append(arg)
    vllm_env = {k: v for k, v in sorted(env.items()) if k.startswith("VLLM_") and k != "VLLM_CACHE_ROOT"}
    return {"args": json.dumps(kept), "vllm_env": json.dumps(vllm_env)}


def probes(plan: ServingPlan) -> tuple[HttpProbe, HttpProbe, HttpProbe]:
    """(startup, readiness, liveness).

    Startup: /health with the plan's budget. Readiness: /v1/models, answered
    only once the model is served. Liveness: /health, which Kubernetes runs only
    after the startup probe succeeded, allowed a minute of silence so a busy
    server is not restarted mid-batch.
    """
    startup = HttpProbe("/health", plan.startup_probe.period_seconds, plan.startup_probe.failure_threshold, 5)
    readiness = HttpProbe("/v1/models", 10, 3, 5)
    liveness = HttpProbe("/health", 10, 6, 10)
    return startup, readiness, liveness


@dataclass(frozen=True)
class ServerOptions:
    """How one model's vLLM server runs, beyond what the plan decides; checked once, here.

    Shared by `server_spec`, `k8s.VllmChart` and `infra.ServedModel`, so each
    option is defined (and documented) in one place. Checks that need the plan
    (instance store, replicas per node, the plan's source) run in `server_spec`.
    """

    namespace: str = naming.DEFAULT_NAMESPACE
    """Namespace of every object. Default: `inference`."""
    name: str | None = None
    """Deployment/Service name. Default: the model name; set it to run one model twice (e.g. on two types)."""
    replicas: int | None = 1
    """Pods of the Deployment. `None`: the Deployment has no `spec.replicas`, an autoscaler owns the count
    (KEDA's HPA with `ServedModel(autoscaling=...)`), so re-applying the manifest never resets it. Default: 1."""
    compile_cache: CompileCache = "host-path"
    """Where VLLM_CACHE_ROOT lives: `host-path` (node RAID0), `pvc` (one local-nvme volume), `empty-dir`.
    Default: `host-path`."""
    served_model_name: str | None = None
    """The model name clients send in requests. Default: the model name."""
    pvc_size_gib: int = DEFAULT_PVC_SIZE_GIB
    """Size of the compile-cache claim with `compile_cache="pvc"`. Default: 100."""
    endpoint_url: str | None = None
    """An S3 endpoint override for the streamer (tests, S3-compatible stores). Default: AWS S3."""
    extra_args: tuple[str, ...] = ()
    """More `vllm serve` arguments; flags the plan sets are refused (see MANAGED_FLAGS). Default: none."""
    compile_cache_prefix: str = DEFAULT_COMPILE_CACHE_PREFIX
    """Where shared compile-cache archives go in the model's bucket, when the plan's serving choice has
    `shared_compile_cache` (each model under its own folder). Default: `compile-cache`."""
    verify_staged_model: bool = False
    """With `node-local`, also check each file's SHA-256 against the staging manifest. Default: False."""
    priority_class_name: str | None = None
    """The pods' PriorityClass. Default: `fastload-vllm` (above the spares') when the plan has warm spares,
    else none (the cluster default). Set it on every model of a cluster where any model has spares."""
    shared_runtime_scripts: bool = False
    """Mount the in-pod scripts from the namespace's shared ConfigMap
    (`core.serving.runtime_scripts.shared_scripts_name()`, emitted by `k8s.RuntimeScriptsChart`) instead of
    embedding them in this model's chart. `infra.ServedModel` turns it on and applies that chart once per
    namespace; a standalone chart keeps its own. Default: False."""
    runtime_scripts_owner: str = ""
    """With `shared_runtime_scripts`: the owner the shared ConfigMap's name is keyed by (`ServedModel` sets its
    stack's), so two stacks never apply one object. Default: none."""
    follow_revisions: bool = True
    """Load the model's published revision (`fastload stage` writes immutable revisions and switches
    `<model_uri>/fastload-current.json`): the pod's first init container reads the pointer once, and the
    streamer, the node-local copy and the compile-cache key use that revision until the pod ends. A prefix
    staged flat (`--layout flat`, or before revisions) is read as it is. False: the server reads `model_uri`
    as given, with no init container (name a revision, `s3://.../revisions/<id>`, or a flat stage). Default: True."""
    do_not_disrupt: bool = False
    """Annotate the pods `karpenter.sh/do-not-disrupt: "true"` (`core.cluster.karpenter.DO_NOT_DISRUPT`): Karpenter's
    voluntary disruption (consolidation, drift) skips a node while a vLLM pod loads or serves on it. Set it
    where Karpenter manages the GPU nodes. Default: False."""

    def __post_init__(self) -> None:
        check_dns_label(self.namespace, "namespace")
        if self.name is not None:
            check_dns1035_label(self.name, "name")
        served = self.served_model_name
        require(
            served is None or (isinstance(served, str) and served != "" and not any(c.isspace() for c in served)),
            "served_model_name",
            served,
            "a non-empty name without spaces",
        )
        require(
            self.replicas is None or (is_whole_number(self.replicas) and self.replicas >= 1),
            "replicas",
            self.replicas,
            "a positive whole number, or None when an autoscaler owns the count",
        )
        one_of("compile_cache", self.compile_cache, COMPILE_CACHE_MODES)
        require(
            is_whole_number(self.pvc_size_gib) and self.pvc_size_gib >= 1,
            "pvc_size_gib",
            self.pvc_size_gib,
            "a positive whole number of GiB",
        )
        require(
            self.endpoint_url is None or (isinstance(self.endpoint_url, str) and self.endpoint_url != ""),
            "endpoint_url",
            self.endpoint_url,
            "None or an http(s) URL",
        )
        object.__setattr__(self, "extra_args", check_extra_args(self.extra_args))
        check_key_prefix(self.compile_cache_prefix, "compile_cache_prefix")
        require(isinstance(self.verify_staged_model, bool), "verify_staged_model", self.verify_staged_model, "a bool")
        if self.priority_class_name is not None:
            check_dns_subdomain(self.priority_class_name, "priority_class_name")
        require(isinstance(self.do_not_disrupt, bool), "do_not_disrupt", self.do_not_disrupt, "True or False")
        require(isinstance(self.follow_revisions, bool), "follow_revisions", self.follow_revisions, "True or False")


@dataclass(frozen=True)
class EngineLaunch:
    """What one engine decides about its container, given the model path the pod reads.

    `build_server_spec` does everything else (checks, node selection, caches, cache sync, resources)
    the same way for every engine; `server_spec` (vLLM) and `sglang_server.server_spec` fill this in.
    """

    engine: str
    container_name: str
    command: tuple[str, ...]
    args: tuple[str, ...]
    env: Mapping[str, str]
    port: int
    cache_mount_path: str
    probes: tuple[HttpProbe, HttpProbe, HttpProbe]  # startup, readiness, liveness
    compile_factors: Mapping[str, str]  # what besides version, model, TP and GPU changes compiled artifacts


def server_spec(
    plan: ServingPlan,
    *,
    model_name: str,
    model_uri: str,
    region: str,
    options: ServerOptions | None = None,
) -> VllmServerSpec:
    """Check every input and decide the pod; raises FastloadConfigError naming the bad field.

    What the model is served with (image, model cache, shared compile cache, warm spares) is the plan's
    (`plan.serving`): nothing here repeats it. With warm spares the pods get the PriorityClass above the
    spares' and a first init container that checks what a spare left on the node.
    """
    opts = options if options is not None else ServerOptions()
    require(isinstance(opts, ServerOptions), "options", opts, "a ServerOptions")

    def launch(model_path: str, served: str) -> EngineLaunch:
        args = vllm_args(plan, model_uri=model_path, served_model_name=served, extra_args=opts.extra_args)
        env = vllm_env(plan, region=region, endpoint_url=opts.endpoint_url)
        return EngineLaunch(
            engine="vllm",
            container_name=CONTAINER_NAME,
            command=SERVER_COMMAND,
            args=args,
            env=env,
            port=SERVER_PORT,
            cache_mount_path=CACHE_MOUNT_PATH,
            probes=probes(plan),
            compile_factors=compile_factors(args, env),
        )

    return build_server_spec(
        plan, model_name=model_name, model_uri=model_uri, region=region, options=opts, launch=launch
    )


def build_server_spec(
    plan: ServingPlan,
    *,
    model_name: str,
    model_uri: str,
    region: str,
    options: ServerOptions,
    launch: Callable[[str, str], EngineLaunch],
) -> VllmServerSpec:
    """The pod of one server, whatever the engine: `launch(model_path, served_model_name)` gives the engine's
    command, arguments, environment, port, probes and cache mount; the rest is decided here."""
    require(isinstance(plan, ServingPlan), "plan", plan, "a ServingPlan from fastload_constructs.tuning.plan")
    opts = options
    check_dns1035_label(model_name, "model_name")
    name = opts.name if opts.name is not None else check_dns1035_label(model_name, "name")
    namespace = opts.namespace
    serving = plan.serving
    image = serving.image
    replicas = opts.replicas
    compile_cache = opts.compile_cache
    model_cache = serving.model_cache
    tag = image_tag(image)
    uri = check_model_uri(model_uri)
    # The shared cache lives in the model's own bucket, under the options' prefix.
    shared_compile_cache = (
        SharedCompileCache(uri[len("s3://") :].split("/", 1)[0], opts.compile_cache_prefix)
        if serving.shared_compile_cache
        else None
    )
    warm_spares = serving.warm_spares > 0
    priority_class_name = opts.priority_class_name or (VLLM_PRIORITY_CLASS if warm_spares else None)
    served = opts.served_model_name if opts.served_model_name is not None else model_name
    instance = plan.instance
    if compile_cache in ("host-path", "pvc") and not instance.has_instance_store:
        raise FastloadConfigError(
            "compile_cache", compile_cache, f"'empty-dir' on {instance.name}, which has no instance-store NVMe"
        )
    if compile_cache == "pvc":
        # One local volume lives on one node: every replica must fit that node's GPUs (an autoscaler's
        # bound is checked where it is known, infra.ServedModel).
        require(
            (replicas or 1) * plan.tensor_parallel_size <= instance.gpu_count,
            "replicas",
            replicas,
            f"at most {instance.gpu_count // plan.tensor_parallel_size} with compile_cache='pvc' "
            f"(one local-nvme volume, one {instance.name}); use 'host-path' to spread replicas",
        )
    require(isinstance(region, str) and region != "", "region", region, "an AWS region such as us-east-1")
    if model_cache == "node-local" and not instance.has_instance_store:
        raise FastloadConfigError(
            "serving.model_cache", model_cache, f"'s3' on {instance.name}, which has no instance-store NVMe"
        )

    node_labels = {naming.WELL_KNOWN_INSTANCE_TYPE: instance.name}
    if compile_cache == "host-path" or model_cache == "node-local":
        node_labels[naming.LABEL_INSTANCE_STORE] = naming.INSTANCE_STORE_RAID0
    model_path = NODE_LOCAL_MODEL_LINK if model_cache == "node-local" else uri
    engine = launch(model_path, served)
    cache_root = engine.cache_mount_path
    key = cache_key_for(plan, image=image, model_uri=uri, factors=engine.compile_factors)
    startup, readiness, liveness = engine.probes
    init_containers: list[SyncContainer] = []
    sidecars: list[SyncContainer] = []
    follow = opts.follow_revisions
    if follow:
        init_containers.append(resolve_revision_container(uri))
    if warm_spares and (model_cache == "node-local" or compile_cache == "host-path"):
        init_containers.append(
            warm_check_container(
                uri,
                node_local_model=model_cache == "node-local",
                cache_root=cache_root if compile_cache == "host-path" else None,
                revision=follow,
            )
        )
    if model_cache == "node-local":
        init_containers.append(copy_model_container(uri, verify_sha256=opts.verify_staged_model, revision=follow))
    if shared_compile_cache is not None:
        # Each model reads and writes only its own folder of the cache prefix (the role's grant).
        model_cache_folder = shared_compile_cache.for_model(model_name)
        init_containers.append(restore_compile_cache(model_cache_folder, key, cache_root, revision=follow))
        sidecars.append(
            publish_compile_cache(
                model_cache_folder, key, cache_root, engine.port, wait_timeout_s=startup.budget_seconds, revision=follow
            )
        )
    return VllmServerSpec(
        name=name,
        model_name=model_name,
        served_model_name=served,
        image=image,
        image_tag=tag,
        command=engine.command,
        args=engine.args,
        env=engine.env,
        port=engine.port,
        replicas=replicas,
        gpus=plan.tensor_parallel_size,
        cpu=plan.pod_cpu,
        # The pod's memory is the plan's; sidecars take theirs out of vLLM's share.
        memory_bytes=plan.pod_memory_bytes - sum(c.memory_mib for c in sidecars) * 1024**2,
        shm_bytes=plan.shm_bytes,
        startup_probe=startup,
        readiness_probe=readiness,
        liveness_probe=liveness,
        compile_cache=compile_cache,
        compile_cache_key=key,
        cache_host_path=f"{naming.COMPILE_CACHE_HOST_ROOT}/{key}" if compile_cache == "host-path" else None,
        pvc_size_gib=opts.pvc_size_gib if compile_cache == "pvc" else None,
        node_labels=node_labels,
        toleration=Toleration(naming.GPU_TAINT_KEY, naming.GPU_TAINT_VALUE, naming.GPU_TAINT_EFFECT),
        service_account_name=naming.service_account_name(model_name),
        namespace=namespace,
        labels=recommended_labels(name=name, image_tag=tag, engine=engine.engine),
        model_cache=model_cache,
        model_path=model_path,
        model_host_path=naming.MODEL_CACHE_HOST_ROOT if model_cache == "node-local" else None,
        model_sub_path=node_local_model_dir(uri) if model_cache == "node-local" else None,
        init_containers=tuple(init_containers),
        sidecars=tuple(sidecars),
        priority_class_name=priority_class_name,
        pod_annotations={DO_NOT_DISRUPT: "true"} if opts.do_not_disrupt else {},
        annotations=plan_annotations(plan),
        scripts_config_map=(
            shared_scripts_name(opts.runtime_scripts_owner) if opts.shared_runtime_scripts else f"{name}-cache-sync"
        ),
        scripts_shared=opts.shared_runtime_scripts,
        engine=engine.engine,
        container_name=engine.container_name,
        cache_mount_path=cache_root,
        follows_revisions=follow,
    )
