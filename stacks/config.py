"""The reference app's settings, read from CDK context and checked before synthesis.

`cdk.json` holds the defaults; `cdk synth -c fastload:kubernetesVersion=1.34`
overrides one. `-c` values arrive as strings, so list and object keys also
accept JSON text (`-c 'fastload:stagerRoleArns=["arn:..."]'`). Every
`fastload:*` key is one row of `CONTEXT_KEYS`; every per-model key is a
`core.settings.Setting` (`MODEL_SETTINGS`): the options' own, declared once on
their fields in core (`TuningOptions`, `Serving`, `ServerOptions`, `Autoscaling`,
the model's size and instance type), and the few only cdk.json has (`name`,
`s3Prefix`, `architecture`, `targetWaitingRequests`). An unknown key (a typo) is
refused with the closest known names. Parsing is pure Python so bad input fails
with a clear message naming the key before any construct is created or any file
written: each value goes through its setting's check under its key's name, and
the checks that span settings (and the plan) run while cdk.json's spelling of
the fields is declared (`core.errors.spelled_as`).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from fastload_constructs.core.catalog import INSTANCE_TYPE, lookup
from fastload_constructs.core.cluster.ami_family import (
    DEFAULT_AMI_FAMILY,
    AmiFamily,
    check_ami_alias,
    check_ami_family,
    default_ami_alias,
    has_fast_image_pull,
    node_os,
)
from fastload_constructs.core.cluster.eks_ami_releases import FAST_IMAGE_PULL_SINCE
from fastload_constructs.core.cluster.image_cache import (
    DEFAULT_RESTORE_MODE,
    ImageCache,
    RestoreMode,
    check_restore_mode,
    check_snapshot_id,
)
from fastload_constructs.core.cluster.settings import DEFAULT_KUBERNETES_VERSION, SUPPORTED_KUBERNETES_VERSIONS
from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.errors import MISSING, FastloadConfigError, choice, require, spelled_as
from fastload_constructs.core.model import MODEL_BYTES, MODEL_DTYPE, MODEL_PARAMETERS, ModelArchitecture, ModelProfile
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.assumptions_file import read_assumptions_file
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import ServingPlan, plan
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.scaling.autoscaling import (
    DEFAULT_SCALING_METRIC,
    DEFAULT_TARGET_WAITING_REQUESTS,
    Autoscaling,
    check_autoscaling,
)
from fastload_constructs.core.scaling.capacity import DEFAULT_GPU_NODE_MODE, check_gpu_node_mode
from fastload_constructs.core.serving import image_mirror as image_mirror
from fastload_constructs.core.serving.cache_sharing import DEFAULT_COMPILE_CACHE_PREFIX
from fastload_constructs.core.serving.server_pod import ServerOptions
from fastload_constructs.core.settings import (
    Key,
    Setting,
    key_spelling,
    number_in,
    renamed,
    settings_of,
    values_for,
)
from fastload_constructs.core.validation import (
    DNS1123_LABEL_RULE,
    check_bucket_name,
    check_dns_label,
    check_key_prefix,
    check_role_arn,
)

PREFIX = "fastload:"


@dataclass(frozen=True)
class ModelSpec:
    """One model the reference app serves."""

    name: str
    profile: ModelProfile
    s3_prefix: str
    instance_type: str
    replicas: int
    # Everything the planner takes, the serving choices (image, caches, warm spares) included.
    options: TuningOptions
    extra_args: tuple[str, ...] = ()
    # Pod autoscaling (KEDA) bounds and target; min == max means a fixed replica count.
    autoscaling: Autoscaling = field(default_factory=Autoscaling)

    @property
    def serving(self) -> Serving:
        return self.options.serving

    @property
    def warm_spares(self) -> int:
        return self.serving.warm_spares

    @property
    def standbys(self) -> int:
        return self.serving.standbys

    @property
    def image(self) -> str:
        return self.serving.image

    @property
    def autoscaled(self) -> bool:
        return self.autoscaling.max_replicas > self.autoscaling.min_replicas

    def serving_plan(self, *, image: str | None = None) -> ServingPlan:
        """The model's plan; `image` pulls the same release from elsewhere (an ECR mirror of it)."""
        options = self.options
        if image is not None:
            options = replace(options, serving=replace(options.serving, image=image))
        return plan(self.profile, self.instance_type, options)

    def server_options(
        self,
        *,
        compile_cache_prefix: str = DEFAULT_COMPILE_CACHE_PREFIX,
        priority_class_name: str | None = None,
        do_not_disrupt: bool = False,
    ) -> ServerOptions:
        """The vLLM server options of this model (the cache prefix, the PriorityClass and Karpenter's
        do-not-disrupt come from the stack). An autoscaled model has no replica count: KEDA's HPA owns it."""
        return ServerOptions(
            extra_args=self.extra_args,
            replicas=None if self.autoscaled else self.replicas,
            compile_cache_prefix=compile_cache_prefix,
            priority_class_name=priority_class_name,
            do_not_disrupt=do_not_disrupt,
        )


@dataclass(frozen=True)
class ImageMirrorConfig:
    """`fastload:vllmImageMirror`: {"upstream": "docker-hub", "credentialSecretArn": "arn:...:secret:..."}."""

    upstream: str
    credential_secret_arn: str | None


SNAPSHOT_CHOICES = ("build", "none")


@dataclass(frozen=True)
class NodeSettings:
    """The stack's GPU nodes: their OS (`fastload:amiFamily`), where the image comes from
    (`fastload:imageSnapshot`: a snapshot the stack builds, the default, or none: pulled; or a snapshot of
    yours, `fastload:imageCacheSnapshotId`) and how its restored volume loads (`fastload:imageRestore`)."""

    ami_family: AmiFamily = DEFAULT_AMI_FAMILY
    snapshot: str | ImageCache = "build"
    restore: RestoreMode = DEFAULT_RESTORE_MODE

    @property
    def serving(self) -> dict[str, Any]:
        """What every model's `Serving` takes from the nodes: the family, and the pull mode they give it."""
        if self.snapshot == "none":
            parallel = node_os(self.ami_family).supports_fast_image_pull
            pull = {"pull_mode": "parallel" if parallel else "plain", "fast_image_pull": parallel}
        else:
            pull = {"pull_mode": "snapshot", "fast_image_pull": False}
        return {"ami_family": self.ami_family, "image_restore": self.restore, **pull}


@dataclass(frozen=True)
class ReferenceConfig:
    kubernetes_version: str
    models: tuple[ModelSpec, ...]
    # Roles that upload models from outside the VPC (workstations, CI): exempt
    # from the model bucket's VPC-endpoint lock and granted staging rights.
    stager_role_arns: tuple[str, ...] = ()
    # An explicit, globally unique name for the model bucket; None lets
    # CloudFormation name it (the YAML export then says ${MODEL_BUCKET_NAME}).
    model_bucket_name: str | None = None
    # Where shared compile-cache archives go in the model bucket (models with sharedCompileCache).
    compile_cache_prefix: str = DEFAULT_COMPILE_CACHE_PREFIX
    # Roles given cluster-admin access entries (AmazonEKSClusterAdminPolicy): the humans and
    # pipelines that run kubectl after `cdk deploy`.
    admin_role_arns: tuple[str, ...] = ()
    # "karpenter" (node autoscaling, the default) or "managed" (fixed node groups sized for the peak).
    gpu_nodes: str = DEFAULT_GPU_NODE_MODE
    # The vLLM image through an ECR pull-through cache rule (None: pulled from its upstream registry).
    image_mirror: ImageMirrorConfig | None = None
    # The GPU nodes, how their image arrives and how fast: `NodeSettings`.
    nodes: NodeSettings = field(default_factory=lambda: NodeSettings())
    # The Karpenter EC2NodeClass's AMI alias: a pinned release of the node family
    # (core.cluster.ami_family.default_ami_alias), checked against the Kubernetes version.
    ami_alias: str = default_ami_alias(DEFAULT_AMI_FAMILY)

    @property
    def image_cache(self) -> ImageCache | None:
        """A snapshot brought by id (`fastload:imageCacheSnapshotId`); None when the stack builds one or pulls."""
        return self.nodes.snapshot if isinstance(self.nodes.snapshot, ImageCache) else None

    @property
    def instance_types(self) -> tuple[str, ...]:
        """Distinct instance types, in first-seen order: one node group each."""
        return tuple(dict.fromkeys(m.instance_type for m in self.models))


def closest(name: str, known: list[str]) -> str:
    """'closest: a, b' for a misspelt key, or the whole list when nothing is close."""
    near = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
    return ("closest: " + ", ".join(near)) if near else ("known: " + ", ".join(sorted(known)))


def decode(raw: object, field: str, kind: type) -> object:
    """A list or object given as JSON text (how `-c key=value` delivers it) is decoded; others pass."""
    if isinstance(raw, str) and kind in (list, dict) and raw.lstrip()[:1] in ("[", "{"):
        try:
            return json.loads(raw)
        except json.JSONDecodeError as exc:
            raise FastloadConfigError(field, raw, f"valid JSON ({exc.msg} at character {exc.pos})") from None
    return raw


def _role_arns(field: str, raw: object) -> tuple[str, ...]:
    if raw is None:
        return ()
    require(isinstance(raw, list), field, raw, "a list of IAM role ARNs (JSON text when given with -c)")
    assert isinstance(raw, list)
    arns = tuple(check_role_arn(arn, f"{field}[{i}]") for i, arn in enumerate(raw))
    require(len(set(arns)) == len(arns), field, raw, "role ARNs listed once each")
    return arns


_ARCH_KEYS = {
    "numHiddenLayers": "num_hidden_layers",
    "hiddenSize": "hidden_size",
    "numAttentionHeads": "num_attention_heads",
    "numKeyValueHeads": "num_key_value_heads",
    "headDim": "head_dim",
    "maxPositionEmbeddings": "max_position_embeddings",
}


def parse_architecture(raw: object, where: str) -> ModelArchitecture:
    """`architecture`: the config.json figures the KV-aware fit needs, in cdk.json's camelCase."""
    require(isinstance(raw, dict), where, raw, "an object with " + ", ".join(_ARCH_KEYS))
    assert isinstance(raw, dict)
    unknown = sorted(set(raw) - set(_ARCH_KEYS))
    require(not unknown, f"{where}.{unknown[0] if unknown else ''}", unknown, "keys " + ", ".join(_ARCH_KEYS))
    return ModelArchitecture.from_config({_ARCH_KEYS[k]: v for k, v in raw.items()}, field=where)


def _key_prefix(value: object, name: str) -> str | None:
    return None if value is None else check_key_prefix(value, name)


def _architecture(value: object, name: str) -> ModelArchitecture | None:
    return None if value is None else parse_architecture(value, name)


# The per-model keys only cdk.json has; every other per-model key is declared on its option's field in core.
NAME = Setting(
    check=check_dns_label,
    accepted=DNS1123_LABEL_RULE,
    doc="Names every resource of the model.",
    key=Key("name"),
    name="name",
    path="name",
)
S3_PREFIX = Setting(
    check=_key_prefix,
    accepted="a relative S3 key prefix",
    doc="Where the model is staged in the bucket (default: models/<name>).",
    key=Key("s3Prefix"),
    name="s3_prefix",
    path="s3_prefix",
)
ARCHITECTURE = Setting(
    check=_architecture,
    accepted="an object with " + ", ".join(_ARCH_KEYS),
    doc="config.json figures that make the fit KV-aware.",
    key=Key("architecture"),
    kind=dict,
    name="architecture",
    path="architecture",
)
TARGET_WAITING_REQUESTS = Setting(
    check=number_in("a number in (0, 10000] per pod", 0, 10_000),
    accepted="a number above 0 (with the default scalingMetric only)",
    default=DEFAULT_TARGET_WAITING_REQUESTS,
    doc="Requests waiting per pod before one more is added (scalingTarget of the default metric).",
    key=Key("targetWaitingRequests"),
    kind=float,
    name="target_waiting_requests",
    path="target_waiting_requests",
)
MODEL_SETTINGS: tuple[Setting, ...] = tuple(
    s
    for s in (
        NAME,
        INSTANCE_TYPE,
        MODEL_PARAMETERS,
        MODEL_BYTES,
        MODEL_DTYPE,
        S3_PREFIX,
        ARCHITECTURE,
        *settings_of(TuningOptions),
        *settings_of(Serving),
        *settings_of(ServerOptions),
        *settings_of(Autoscaling),
        TARGET_WAITING_REQUESTS,
    )
    if s.key is not None
)
"""Every per-model key, in the order the docs list them."""
MODEL_KEYS: dict[str, Setting] = {
    **{s.key.name: s for s in MODEL_SETTINGS if s.key is not None},
    **{s.key.former: s for s in MODEL_SETTINGS if s.key is not None and s.key.former is not None},
}
"""Per-model key (a former name too) -> its setting."""


def _given(raw: dict[str, Any], where: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The model's keys (decoded, nulls left out: a null is the default) by setting name, and the settings given
    under a former key (path -> that key). An unknown key, or a key and its former name together, is refused."""
    given: dict[str, Any] = {}
    former: dict[str, str] = {}
    for key, value in raw.items():
        if key not in MODEL_KEYS:
            raise FastloadConfigError(f"{where}.{key}", value, "a model key; " + closest(key, list(MODEL_KEYS)))
        s = MODEL_KEYS[key]
        assert s.key is not None
        if value is None:
            continue
        if key == s.key.former:
            require(
                s.key.name not in raw or raw[s.key.name] is None,
                f"{where}.{key}",
                value,
                f"no value with {s.key.name} (its former name)",
            )
            former[s.path] = key
        given[s.name] = (key, decode(value, f"{where}.{key}", s.kind))
    return given, former


# The keys every model gives, by setting name (its size is checked apart: parameterCount or totalBytes).
REQUIRED = ("name", "instance_type")


def _read(given: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Every per-model setting's typed value by name: what its key gave, checked under the key's name, else the
    setting's default. A required key left out is named missing."""
    values: dict[str, Any] = {}
    for s in MODEL_SETTINGS:
        assert s.key is not None
        if s.name in given:
            key, raw = given[s.name]
            values[s.name] = s.read_key(raw, f"{where}.{key}")
        elif s.name in REQUIRED:
            raise FastloadConfigError(f"{where}.{s.key.name}", MISSING, s.accepted)
        else:
            values[s.name] = s.default
    return values


def parse_model(
    raw: object, index: int, assumptions: LoadAssumptions | None = None, nodes: NodeSettings | None = None
) -> ModelSpec:
    """One `fastload:models[i]` entry, checked and planned (a model that does not fit its instance is refused
    here) for the stack's nodes (their family and image: `NodeSettings`)."""
    where = f"{PREFIX}models[{index}]"
    raw = decode(raw, where, dict)
    require(isinstance(raw, dict), where, raw, "an object with name, s3Prefix, instanceType and a size")
    assert isinstance(raw, dict)
    given, former = _given(raw, where)
    with spelled_as(key_spelling(MODEL_SETTINGS, where, former)):
        v = _read(given, where)
        spec = _model_spec(v, given, where, assumptions, nodes or NodeSettings())
        spec.serving_plan()  # raises on a model that does not fit its instance type, naming the key
    return spec


def _model_spec(
    v: Mapping[str, Any],
    given: Mapping[str, Any],
    where: str,
    assumptions: LoadAssumptions | None,
    nodes: NodeSettings,
) -> ModelSpec:
    """The ModelSpec of a model's checked values; the checks that span its keys raise naming them."""
    instance = lookup(v["instance_type"])
    # The reference stack's GPU node groups stripe the instance store (RAID0); refuse here, before
    # the cluster's kubectl assets are staged into cdk.out, rather than half-way through the stack.
    require(
        instance.has_instance_store,
        f"{where}.instanceType",
        instance.name,
        "an instance type with instance-store NVMe (the reference stack's GPU nodes stripe it as RAID0)",
    )
    profile = _profile(v, given, where)
    options = TuningOptions(
        **values_for(TuningOptions, v),
        # How the model is served, given to the planner once: the charts derive from the plan. The nodes'
        # family and image are the stack's, so each model is planned on the nodes it gets.
        serving=Serving(**{**values_for(Serving, v), **nodes.serving}),
        assumptions=assumptions if assumptions is not None else LoadAssumptions(),
    )
    autoscaling = parse_model_scaling(given, v, where)
    name = v["name"]
    return ModelSpec(
        name=name,
        profile=profile,
        s3_prefix=v["s3_prefix"] or check_key_prefix(f"models/{name}", f"{where}.s3Prefix"),
        instance_type=instance.name,
        replicas=autoscaling.min_replicas,
        options=options,
        extra_args=engine_named(v["engine"]).check_extra_args(v["extra_args"], f"{where}.extraArgs"),
        autoscaling=autoscaling,
    )


def _profile(v: Mapping[str, Any], given: Mapping[str, Any], where: str) -> ModelProfile:
    """The model's size: parameterCount or totalBytes (one of them), its dtype and architecture."""
    require(
        "parameter_count" in given or "total_bytes" in given,
        f"{where}.parameterCount",
        MISSING,
        "parameterCount or totalBytes: the model's size",
    )
    require(
        "parameter_count" not in given or "total_bytes" not in given,
        f"{where}.totalBytes",
        v["total_bytes"],
        "parameterCount or totalBytes, not both (both give the model's size)",
    )
    profile = ModelProfile.from_numbers(
        total_bytes=v["total_bytes"], parameter_count=v["parameter_count"], dtype=v["dtype"], name=v["name"]
    )
    return profile if v["architecture"] is None else profile.with_architecture(v["architecture"])


def _version(field: str, raw: object) -> str:
    version = str(DEFAULT_KUBERNETES_VERSION if raw is None else raw)
    require(
        version in SUPPORTED_KUBERNETES_VERSIONS, field, version, "one of " + ", ".join(SUPPORTED_KUBERNETES_VERSIONS)
    )
    return version


def _models(
    field: str, raw: object, assumptions: LoadAssumptions | None = None, nodes: NodeSettings | None = None
) -> tuple[ModelSpec, ...]:
    require(raw is not None, field, MISSING, "a non-empty list of model objects (JSON text when given with -c)")
    require(
        isinstance(raw, list) and len(raw) > 0,
        field,
        raw,
        "a non-empty list of model objects (JSON text when given with -c)",
    )
    assert isinstance(raw, list)
    models = tuple(parse_model(m, i, assumptions, nodes) for i, m in enumerate(raw))
    names = [m.name for m in models]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise FastloadConfigError(f"{field}[].name", duplicates[0], "names unique across models")
    _refuse_nested_model_prefixes(models)
    return models


@dataclass(frozen=True)
class ContextKey:
    """One `fastload:*` key: its type as JSON (list/dict keys accept JSON text) and its check."""

    kind: type
    check: Callable[[str, Any], Any]  # (field, decoded raw value or None) -> parsed value
    help: str


# Every fastload:* key. A new key is one row here plus its field on ReferenceConfig.
CONTEXT_KEYS: dict[str, ContextKey] = {
    "kubernetesVersion": ContextKey(str, _version, "Kubernetes version of the cluster"),
    "models": ContextKey(list, _models, "the models to serve, each an object of the per-model keys"),
    "stagerRoleArns": ContextKey(list, _role_arns, "roles that upload models, exempt from the endpoint lock"),
    "adminRoleArns": ContextKey(list, _role_arns, "roles given cluster-admin access entries"),
    "modelBucketName": ContextKey(
        str, lambda f, v: None if v is None else check_bucket_name(v, f), "fixed bucket name"
    ),
    "compileCachePrefix": ContextKey(
        str,
        lambda f, v: check_key_prefix(DEFAULT_COMPILE_CACHE_PREFIX if v is None else v, f),
        "where shared compile caches go; apart from every model's s3Prefix",
    ),
    "assumptions": ContextKey(
        str, lambda f, v: None if v is None else read_assumptions_file(v, f), "a `fastload calibrate` file"
    ),
    "gpuNodes": ContextKey(
        str,
        lambda f, v: check_gpu_node_mode(DEFAULT_GPU_NODE_MODE if v is None else v, f),
        "karpenter, or managed: fixed node groups sized for the peak",
    ),
    "vllmImageMirror": ContextKey(dict, lambda f, v: parse_image_mirror(v), "the vLLM image through ECR"),
    "amiFamily": ContextKey(
        str,
        lambda f, v: check_ami_family(DEFAULT_AMI_FAMILY if v is None else v, f),
        "the GPU nodes' OS: bottlerocket (default; NVIDIA variant, device plugin built in) or al2023",
    ),
    # Checked against the node family and kubernetesVersion in parse_reference_config (the release must serve it).
    "amiAlias": ContextKey(str, lambda f, v: v, "Karpenter's AMI alias, pinned to a release of amiFamily"),
    "imageSnapshot": ContextKey(
        str,
        lambda f, v: choice("build" if v is None else v, f, SNAPSHOT_CHOICES),
        "build (default: the stack builds the snapshot of the server images every GPU node restores) or none",
    ),
    "imageRestore": ContextKey(
        str,
        lambda f, v: check_restore_mode(DEFAULT_RESTORE_MODE if v is None else v, f),
        "how the snapshot's volume loads: fsr (default), rate (provisioned, 300 MiB/s) or lazy",
    ),
    "imageCacheSnapshotId": ContextKey(
        str, lambda f, v: None if v is None else check_snapshot_id(v, f), "your own snapshot instead of a built one"
    ),
}


def _nodes(v: Mapping[str, Any]) -> NodeSettings:
    """The nodes' settings from the context values: a snapshot id of yours replaces the built one."""
    snapshot: str | ImageCache = v["imageSnapshot"]
    if v["imageCacheSnapshotId"] is not None:
        require(
            snapshot == "build",
            f"{PREFIX}imageSnapshot",
            snapshot,
            f"build (or left out) with {PREFIX}imageCacheSnapshotId, whose snapshot every GPU node restores",
        )
        snapshot = ImageCache(snapshot_id=v["imageCacheSnapshotId"], restore=v["imageRestore"])
    return NodeSettings(ami_family=v["amiFamily"], snapshot=snapshot, restore=v["imageRestore"])


def parse_reference_config(ctx: Mapping[str, Any]) -> ReferenceConfig:
    """Read and check every `fastload:*` context value; plans each model to catch misfits now.

    `ctx` may hold the app's whole context: keys outside `fastload:` are CDK's and left alone.
    """
    for key in ctx:
        if key.startswith(PREFIX) and key[len(PREFIX) :] not in CONTEXT_KEYS:
            known = [PREFIX + k for k in CONTEXT_KEYS]
            raise FastloadConfigError(key, ctx[key], "a fastload context key; " + closest(key, known))
    raw = {key: decode(ctx.get(PREFIX + key), PREFIX + key, spec.kind) for key, spec in CONTEXT_KEYS.items()}
    # Models are planned with the calibrated assumptions and the image cache, so those are read first.
    v = {key: spec.check(PREFIX + key, raw[key]) for key, spec in CONTEXT_KEYS.items() if key != "models"}
    nodes = _nodes(v)
    models = _models(PREFIX + "models", raw["models"], v["assumptions"], nodes)
    for i, spec in enumerate(models):
        # A CapacityBuffer is Karpenter's: managed node groups are sized for the peak instead.
        require(
            v["gpuNodes"] == "karpenter" or spec.serving.buffered_nodes == 0,
            f"{PREFIX}models[{i}].bufferedNodes",
            spec.serving.buffered_nodes,
            f"0 with {PREFIX}gpuNodes managed (buffered nodes are Karpenter CapacityBuffers; managed node groups "
            "already hold every replica's node)",
        )
    cache_prefix = v["compileCachePrefix"]
    for spec in models:
        # Pods may write under the cache prefix: it must never overlap a model's weights.
        overlap = _nested(cache_prefix, spec.s3_prefix)
        require(
            not overlap,
            f"{PREFIX}compileCachePrefix",
            cache_prefix,
            f"a prefix apart from every model's s3Prefix (it overlaps {spec.s3_prefix!r})",
        )
    return ReferenceConfig(
        kubernetes_version=v["kubernetesVersion"],
        models=models,
        stager_role_arns=v["stagerRoleArns"],
        model_bucket_name=v["modelBucketName"],
        compile_cache_prefix=cache_prefix,
        admin_role_arns=v["adminRoleArns"],
        gpu_nodes=v["gpuNodes"],
        image_mirror=v["vllmImageMirror"],
        nodes=nodes,
        ami_alias=_ami_alias(v, nodes),
    )


def _ami_alias(v: Mapping[str, Any], nodes: NodeSettings) -> str:
    """Karpenter's alias for the nodes; with Karpenter nodes that pull with FastImagePull, a release whose nodeadm
    has the gate (an older one ignores it, and the nodes would pull serially against the plan)."""
    key = f"{PREFIX}amiAlias"
    alias = check_ami_alias(
        default_ami_alias(nodes.ami_family) if v["amiAlias"] is None else v["amiAlias"],
        nodes.ami_family,
        v["kubernetesVersion"],
        key,
    )
    require(
        v["gpuNodes"] != "karpenter" or not nodes.serving["fast_image_pull"] or has_fast_image_pull(alias),
        key,
        alias,
        f"al2023@v{FAST_IMAGE_PULL_SINCE} or later with {PREFIX}imageSnapshot none (the nodes pull with nodeadm's "
        "FastImagePull gate, which older releases ignore)",
    )
    return alias


def _nested(a: str, b: str) -> bool:
    """True when key prefix `a` equals `b` or one contains the other."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def _refuse_nested_model_prefixes(models: tuple[ModelSpec, ...]) -> None:
    """One model's prefix inside another's would let the outer model's pods read (and its stagers
    overwrite or --delete-stale) the inner model's files. The same prefix twice is one model
    served twice (e.g. on two instance types) and is allowed."""
    for i, inner in enumerate(models):
        for outer in models:
            if inner.s3_prefix.startswith(outer.s3_prefix + "/"):
                raise FastloadConfigError(
                    f"{PREFIX}models[{i}].s3Prefix",
                    inner.s3_prefix,
                    f"a prefix not inside another model's ({outer.name!r} has {outer.s3_prefix!r})",
                )


def parse_model_scaling(given: Mapping[str, Any], v: Mapping[str, Any], where: str) -> Autoscaling:
    """Per-model `minReplicas`, `maxReplicas`, `targetWaitingRequests` (or `scalingMetric` + `scalingTarget`).

    Without them the model runs `replicas` pods, fixed. `replicas` and `minReplicas` together are refused
    (which one would win is a guess). Each value was checked under its key (`v`); here how they go together,
    `check_autoscaling`'s errors naming the keys given (the model's spelling is in force).
    """
    if "replicas" in given and "min_replicas" in given:
        raise FastloadConfigError(f"{where}.minReplicas", v["min_replicas"], "replicas or minReplicas, not both")
    metric = v["metric"]
    if "target_waiting_requests" in given:
        require(
            metric == DEFAULT_SCALING_METRIC and "target" not in given,
            f"{where}.targetWaitingRequests",
            v["target_waiting_requests"],
            f"only with scalingMetric {DEFAULT_SCALING_METRIC!r} and without scalingTarget",
        )
    if "metric" in given and metric != DEFAULT_SCALING_METRIC:
        require("target" in given, f"{where}.scalingTarget", MISSING, f"a target for scalingMetric {metric!r}")
    min_replicas = v["min_replicas"] if "min_replicas" in given else v["replicas"]
    autoscaling = Autoscaling(
        min_replicas=min_replicas,
        max_replicas=v["max_replicas"] if "max_replicas" in given else min_replicas,
        target=v["target"] if "target" in given else v["target_waiting_requests"],
        metric=metric,
    )
    target_key = "targetWaitingRequests" if "target_waiting_requests" in given else "scalingTarget"
    with spelled_as(key_spelling(settings_of(Autoscaling), where, {"autoscaling.target": target_key})):
        return check_autoscaling(autoscaling)


def parse_image_mirror(raw: object) -> ImageMirrorConfig | None:
    """The mirror option, its credentials checked against what the upstream requires."""
    field = f"{PREFIX}vllmImageMirror"
    if raw is None:
        return None
    require(isinstance(raw, dict), field, raw, "an object with upstream and (where it needs one) credentialSecretArn")
    assert isinstance(raw, dict)
    unknown = sorted(set(raw) - {"upstream", "credentialSecretArn"})
    require(not unknown, f"{field}.{unknown[0] if unknown else ''}", unknown, "keys upstream, credentialSecretArn")
    arn = raw.get("credentialSecretArn")
    require(arn is None or isinstance(arn, str), f"{field}.credentialSecretArn", arn, "a secret ARN")
    credential = f"{field}.credentialSecretArn"
    keys = {
        "upstream": f"{field}.upstream",
        "credential_secret": credential,
        "credential_secret.secret_name": credential,
        "credential_secret.secret_arn": credential,
    }
    with spelled_as(renamed(keys, "key")):
        source = image_mirror.upstream(raw.get("upstream", image_mirror.DEFAULT_UPSTREAM))
        image_mirror.check_credentials(source, arn, arn.split(":secret:", 1)[-1] if arn else None)
    return ImageMirrorConfig(source.name, arn)
