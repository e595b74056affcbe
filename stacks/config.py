"""The reference app's settings, read from CDK context and checked before synthesis.

`cdk.json` holds the defaults; `cdk synth -c fastload:kubernetesVersion=1.34`
overrides one. `-c` values arrive as strings, so list and object keys also
accept JSON text (`-c 'fastload:stagerRoleArns=["arn:..."]'`). Every
`fastload:*` key and every per-model key is one row of a table
(`CONTEXT_KEYS`, `MODEL_KEYS`): an unknown one (a typo) is refused with the
closest known names. Parsing is pure Python so bad input fails with a clear
message before any construct is created or any file written.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from fastload_constructs.core.catalog import lookup
from fastload_constructs.core.cluster.image_cache import ImageCache
from fastload_constructs.core.cluster.karpenter import DEFAULT_AMI_ALIAS, check_ami_alias
from fastload_constructs.core.cluster.settings import DEFAULT_KUBERNETES_VERSION, SUPPORTED_KUBERNETES_VERSIONS
from fastload_constructs.core.engines import DEFAULT_ENGINE, ENGINE_NAMES, engine_named
from fastload_constructs.core.engines.args import check_arg_shape
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, require
from fastload_constructs.core.images import image_tag
from fastload_constructs.core.model import DTYPE_BYTES, PARAMETER_COUNT, TOTAL_BYTES, ModelArchitecture, ModelProfile
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.calibration import assumptions_from_dict
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import ServingPlan, plan
from fastload_constructs.core.planning.serving import DEFAULT_IMAGE, Serving, check_spares
from fastload_constructs.core.planning.standby import check_standbys
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
from fastload_constructs.core.validation import check_bucket_name, check_dns_label, check_key_prefix, check_role_arn

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
    # The Karpenter EC2NodeClass's AMI alias: a dated AL2023 release (core.cluster.karpenter.DEFAULT_AMI_ALIAS).
    ami_alias: str = DEFAULT_AMI_ALIAS
    # An EBS snapshot holding the vLLM image (core.cluster.image_cache): every GPU node restores it, the
    # models are planned with the snapshot pull mode. None: the image is pulled (FastImagePull).
    image_cache: ImageCache | None = None

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


def _flag(field: str, value: object) -> bool:
    require(isinstance(value, bool), field, value, "true or false")
    return value  # type: ignore[return-value]


def _positive_int(field: str, value: object) -> int:
    require(isinstance(value, int) and is_whole_number(value) and value > 0, field, value, "a positive whole number")
    assert isinstance(value, int)
    return value


@contextmanager
def _context_key(where: str, keys: Mapping[str, str] | None = None) -> Iterator[None]:
    """Re-raise a library check's FastloadConfigError under the cdk.json key it came from.

    The library names its own parameters (`image`, `model.dtype`, ...). With `keys` (library field ->
    key under `where`), a field listed there becomes `<where>.<key>` and any other passes unchanged;
    without `keys`, the error is named `where` unless it already names a field under it.
    """
    try:
        yield
    except FastloadConfigError as exc:
        if keys is None:
            field = exc.field if exc.field.startswith(where) else where
        elif exc.field in keys:
            field = f"{where}.{keys[exc.field]}"
        else:
            raise
        raise FastloadConfigError(field, exc.value, exc.accepted) from None


def _role_arns(field: str, raw: object) -> tuple[str, ...]:
    if raw is None:
        return ()
    require(isinstance(raw, list), field, raw, "a list of IAM role ARNs (JSON text when given with -c)")
    assert isinstance(raw, list)
    arns = tuple(check_role_arn(arn, f"{field}[{i}]") for i, arn in enumerate(raw))
    require(len(set(arns)) == len(arns), field, raw, "role ARNs listed once each")
    return arns


def _image(field: str, raw: object) -> str:
    if raw is None:
        return DEFAULT_IMAGE
    with _context_key(field):
        image_tag(raw)
    assert isinstance(raw, str)
    return raw


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


def parse_capture_sizes(raw: object, where: str) -> tuple[int, ...]:
    require(
        isinstance(raw, list) and all(is_whole_number(s) and 1 <= s <= 8192 for s in raw) and raw == sorted(set(raw)),
        where,
        raw,
        "an ascending list of distinct whole numbers from 1 to 8192, e.g. [1, 2, 4, 8, 16, 32]",
    )
    return tuple(raw)  # type: ignore[arg-type]


def _kv_dtype(field: str, value: object) -> Any:
    require(value in ("auto", "fp8"), field, value, "auto or fp8")
    return value


def load_assumptions_file(path: object) -> LoadAssumptions:
    """`fastload:assumptions`: an assumptions file written by `fastload calibrate`."""
    field = f"{PREFIX}assumptions"
    require(isinstance(path, str) and path != "", field, path, "the path of a `fastload calibrate` file")
    assert isinstance(path, str)
    try:
        with open(path, encoding="utf-8") as handle:
            raw = json.load(handle)
    except FileNotFoundError:
        raise FastloadConfigError(field, path, "an existing assumptions file") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FastloadConfigError(field, path, f"a JSON file ({exc})") from exc
    return assumptions_from_dict(raw, field=field)


# The decision modules name their own fields; a user of cdk.json should read the context key (_context_key).
_CONTEXT_KEY_OF = {
    "model.total_bytes": "totalBytes",
    "model.parameter_count": "parameterCount",
    "model.dtype": "dtype",
    "tensor_parallel_size": "tensorParallelSize",
    "gpu_memory_utilization": "gpuMemoryUtilization",
    "serving.engine_release": "engineRelease",
    "serving.engine": "engine",
    "serving.warm_spares": "warmSpares",
    "serving.standbys": "standbys",
    "serving.model_cache": "nodeLocalModelCache",
    "serving.shared_compile_cache": "sharedCompileCache",
}


def _fraction(field: str, value: object) -> float:
    """A number in (0, 1]: not a bool, not NaN or infinite."""
    # 0 < x <= 1 is False for NaN and infinities, and compares huge ints without a float conversion.
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1
    require(ok, field, value, "a number above 0 and at most 1, e.g. 0.9")
    return float(value)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Key:
    """One context key: its type as JSON (list/dict keys accept JSON text) and its check."""

    kind: type
    check: Callable[[str, Any], Any]  # (field, decoded raw value or None) -> parsed value
    help: str


# Per model. A new key is one row here plus its use in parse_model.
MODEL_KEYS: dict[str, Key] = {
    "name": Key(str, lambda f, v: check_dns_label(v, f), "DNS label naming every resource of the model"),
    "s3Prefix": Key(str, lambda f, v: v, "where the model is staged in the bucket"),
    "instanceType": Key(str, lambda f, v: v, "a GPU instance type of the catalog"),
    # The CLI's --params and --bytes accept the same numbers (70e9, 8.03e9): core.model's rules.
    "parameterCount": Key(int, lambda f, v: None if v is None else PARAMETER_COUNT.check(v, f), "or totalBytes"),
    "totalBytes": Key(int, lambda f, v: None if v is None else TOTAL_BYTES.check(v, f), "or parameterCount"),
    "dtype": Key(str, lambda f, v: v, "the checkpoint's dtype"),
    "replicas": Key(int, lambda f, v: _positive_int(f, 1 if v is None else v), "pods"),
    "tensorParallelSize": Key(int, lambda f, v: None if v is None else _positive_int(f, v), "default: smallest fit"),
    "gpuMemoryUtilization": Key(
        float, lambda f, v: _fraction(f, 0.90 if v is None else v), "vLLM's share of GPU memory"
    ),
    "sharedCompileCache": Key(bool, lambda f, v: _flag(f, False if v is None else v), "compile cache through S3"),
    "nodeLocalModelCache": Key(bool, lambda f, v: _flag(f, False if v is None else v), "stream an NVMe copy"),
    "engine": Key(
        str,
        lambda f, v: engine_named(DEFAULT_ENGINE.name if v is None else v, f).name,
        f"{' or '.join(ENGINE_NAMES)} (default {DEFAULT_ENGINE.name})",
    ),
    "image": Key(str, lambda f, v: _image(f, v), "a pinned image of the engine (not latest)"),
    "engineRelease": Key(str, lambda f, v: v, "the image's engine release, when its tag names none"),
    "vllmVersion": Key(str, lambda f, v: v, "engineRelease's former name (still read)"),
    "extraArgs": Key(
        # The shape here; the flags against the model's engine's in parse_model (both name `f` or `f[i]`).
        list,
        lambda f, v: () if v is None else check_arg_shape(v, f),
        "more server args (vllm serve, sglang.launch_server)",
    ),
    "maxModelLen": Key(int, lambda f, v: None if v is None else _positive_int(f, v), "vLLM --max-model-len"),
    "cudaGraphCaptureSizes": Key(
        list, lambda f, v: None if v is None else parse_capture_sizes(v, f), "CUDA-graph capture sizes"
    ),
    "kvCacheDtype": Key(str, lambda f, v: _kv_dtype(f, "auto" if v is None else v), "auto or fp8"),
    "architecture": Key(
        dict, lambda f, v: None if v is None else parse_architecture(v, f), "config.json figures for the KV fit"
    ),
    "warmSpares": Key(int, lambda f, v: _warm_spares(f, 0 if v is None else v), "placeholder pods (warm headroom)"),
    "standbys": Key(int, lambda f, v: check_standbys(0 if v is None else v, f), "sleeping vLLM engines woken on FMA"),
    # Checked together by parse_model_scaling (they constrain each other).
    "minReplicas": Key(int, lambda f, v: v, "KEDA's lower bound (instead of replicas)"),
    "maxReplicas": Key(int, lambda f, v: v, "KEDA's upper bound"),
    "targetWaitingRequests": Key(float, lambda f, v: v, "waiting requests per pod that KEDA aims at"),
    "scalingMetric": Key(str, lambda f, v: v, "the vLLM metric KEDA scales on"),
    "scalingTarget": Key(float, lambda f, v: v, "the target for scalingMetric"),
}


def parse_model(raw: object, index: int, assumptions: LoadAssumptions | None = None) -> ModelSpec:
    where = f"{PREFIX}models[{index}]"
    raw = decode(raw, where, dict)
    require(isinstance(raw, dict), where, raw, "an object with name, s3Prefix, instanceType and a size")
    assert isinstance(raw, dict)
    for key in raw:
        if key not in MODEL_KEYS:
            raise FastloadConfigError(f"{where}.{key}", raw[key], "a model key; " + closest(key, list(MODEL_KEYS)))
    raw = {key: decode(value, f"{where}.{key}", MODEL_KEYS[key].kind) for key, value in raw.items()}
    v = {key: spec.check(f"{where}.{key}", raw.get(key)) for key, spec in MODEL_KEYS.items()}
    name = v["name"]
    instance = lookup(str(v["instanceType"] or ""), f"{where}.instanceType")
    # The reference stack's GPU node groups stripe the instance store (RAID0); refuse here, before
    # the cluster's kubectl assets are staged into cdk.out, rather than half-way through the stack.
    require(
        instance.has_instance_store,
        f"{where}.instanceType",
        instance.name,
        "an instance type with instance-store NVMe (the reference stack's GPU nodes stripe it as RAID0)",
    )
    dtype = v["dtype"] or "BF16"
    require(
        isinstance(dtype, str) and dtype in DTYPE_BYTES, f"{where}.dtype", dtype, "one of " + ", ".join(DTYPE_BYTES)
    )
    require(
        v["totalBytes"] is not None or v["parameterCount"] is not None,
        f"{where}.parameterCount",
        None,
        "parameterCount or totalBytes",
    )
    with _context_key(where, _CONTEXT_KEY_OF):
        profile = ModelProfile.from_numbers(
            total_bytes=v["totalBytes"], parameter_count=v["parameterCount"], dtype=dtype, name=name
        )
    if v["architecture"] is not None:
        profile = profile.with_architecture(v["architecture"])
    release_key = _release_key(v, where)
    with _context_key(where, {**_CONTEXT_KEY_OF, "serving.engine_release": release_key}):
        options = TuningOptions(
            tensor_parallel_size=v["tensorParallelSize"],
            gpu_memory_utilization=v["gpuMemoryUtilization"],
            max_model_len=v["maxModelLen"],
            cudagraph_capture_sizes=v["cudaGraphCaptureSizes"],
            kv_cache_dtype=v["kvCacheDtype"],
            # How the model is served, given to the planner once: the charts derive from the plan.
            serving=Serving(
                engine=v["engine"],
                image=v["image"],
                engine_release=v[release_key],
                model_cache="node-local" if v["nodeLocalModelCache"] else "s3",
                shared_compile_cache=v["sharedCompileCache"],
                warm_spares=v["warmSpares"],
                standbys=v["standbys"],
            ),
            assumptions=assumptions if assumptions is not None else LoadAssumptions(),
        )
    autoscaling = parse_model_scaling(raw, where, v["replicas"])
    return ModelSpec(
        name=name,
        profile=profile,
        s3_prefix=check_key_prefix(v["s3Prefix"] or f"models/{name}", f"{where}.s3Prefix"),
        instance_type=instance.name,
        replicas=autoscaling.min_replicas,
        options=options,
        extra_args=engine_named(v["engine"]).check_extra_args(v["extraArgs"], f"{where}.extraArgs"),
        autoscaling=autoscaling,
    )


def _release_key(v: Mapping[str, Any], where: str) -> str:
    """The key that gives the engine release: `engineRelease`, or `vllmVersion` (its former name), never both."""
    if v["vllmVersion"] is None:
        return "engineRelease"
    require(
        v["engineRelease"] is None,
        f"{where}.vllmVersion",
        v["vllmVersion"],
        "no value with engineRelease (its former name)",
    )
    return "vllmVersion"


def _warm_spares(field: str, value: object) -> int:
    """0 (default) or more placeholders; without nodeLocalModelCache they warm the image (and shared cache)."""
    return check_spares(value, field)


def _version(field: str, raw: object) -> str:
    version = str(DEFAULT_KUBERNETES_VERSION if raw is None else raw)
    require(
        version in SUPPORTED_KUBERNETES_VERSIONS, field, version, "one of " + ", ".join(SUPPORTED_KUBERNETES_VERSIONS)
    )
    return version


def _models(field: str, raw: object, assumptions: LoadAssumptions | None = None) -> tuple[ModelSpec, ...]:
    require(
        isinstance(raw, list) and len(raw) > 0,
        field,
        raw,
        "a non-empty list of model objects (JSON text when given with -c)",
    )
    assert isinstance(raw, list)
    models = tuple(parse_model(m, i, assumptions) for i, m in enumerate(raw))
    names = [m.name for m in models]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise FastloadConfigError(f"{field}[].name", duplicates[0], "names unique across models")
    _refuse_nested_model_prefixes(models)
    return models


# Every fastload:* key. A new key is one row here plus its field on ReferenceConfig.
CONTEXT_KEYS: dict[str, Key] = {
    "kubernetesVersion": Key(str, _version, "Kubernetes version of the cluster"),
    "models": Key(list, _models, "the models to serve"),
    "stagerRoleArns": Key(list, _role_arns, "roles that upload models, exempt from the endpoint lock"),
    "adminRoleArns": Key(list, _role_arns, "roles given cluster-admin access entries"),
    "modelBucketName": Key(str, lambda f, v: None if v is None else check_bucket_name(v, f), "fixed bucket name"),
    "compileCachePrefix": Key(
        str, lambda f, v: check_key_prefix(DEFAULT_COMPILE_CACHE_PREFIX if v is None else v, f), "cache prefix"
    ),
    "assumptions": Key(str, lambda f, v: None if v is None else load_assumptions_file(v), "a calibrate file"),
    "gpuNodes": Key(str, lambda f, v: check_gpu_node_mode(DEFAULT_GPU_NODE_MODE if v is None else v, f), "nodes"),
    "vllmImageMirror": Key(dict, lambda f, v: parse_image_mirror(v), "the vLLM image through ECR"),
    "amiAlias": Key(str, lambda f, v: check_ami_alias(DEFAULT_AMI_ALIAS if v is None else v, f), "Karpenter AMI"),
    "imageCacheSnapshotId": Key(str, lambda f, v: _image_cache(f, v), "EBS snapshot holding the vLLM image"),
}


def _image_cache(field: str, value: str | None) -> ImageCache | None:
    """The snapshot id as an ImageCache, its error naming the context key."""
    if value is None:
        return None
    try:
        return ImageCache(snapshot_id=value)
    except FastloadConfigError as err:
        raise FastloadConfigError(field, value, err.accepted) from None


def parse_reference_config(ctx: Mapping[str, Any]) -> ReferenceConfig:
    """Read and check every `fastload:*` context value; plans each model to catch misfits now.

    `ctx` may hold the app's whole context: keys outside `fastload:` are CDK's and left alone.
    """
    for key in ctx:
        if key.startswith(PREFIX) and key[len(PREFIX) :] not in CONTEXT_KEYS:
            known = [PREFIX + k for k in CONTEXT_KEYS]
            raise FastloadConfigError(key, ctx[key], "a fastload context key; " + closest(key, known))
    raw = {key: decode(ctx.get(PREFIX + key), PREFIX + key, spec.kind) for key, spec in CONTEXT_KEYS.items()}
    # Models are planned with the calibrated assumptions, so those are read first.
    v = {key: spec.check(PREFIX + key, raw[key]) for key, spec in CONTEXT_KEYS.items() if key != "models"}
    models: tuple[ModelSpec, ...] = _models(PREFIX + "models", raw["models"], v["assumptions"])
    if v["imageCacheSnapshotId"] is not None:
        models = tuple(
            replace(
                m, options=replace(m.options, serving=replace(m.serving, pull_mode="snapshot", fast_image_pull=False))
            )
            for m in models
        )
    for spec in models:
        spec.serving_plan()  # raises on a model that does not fit its instance type
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
        ami_alias=v["amiAlias"],
        image_cache=v["imageCacheSnapshotId"],
    )


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


def parse_model_scaling(raw: Mapping[str, Any], where: str, replicas: int) -> Autoscaling:
    """Per-model `minReplicas`, `maxReplicas`, `targetWaitingRequests` (or `scalingMetric` + `scalingTarget`).

    Without them the model runs `replicas` pods, fixed. `replicas` and
    `minReplicas` together are refused (which one would win is a guess).
    """
    if "replicas" in raw and "minReplicas" in raw:
        raise FastloadConfigError(f"{where}.minReplicas", raw["minReplicas"], "replicas or minReplicas, not both")
    metric = raw.get("scalingMetric", DEFAULT_SCALING_METRIC)
    if "targetWaitingRequests" in raw:
        require(
            metric == DEFAULT_SCALING_METRIC and "scalingTarget" not in raw,
            f"{where}.targetWaitingRequests",
            raw["targetWaitingRequests"],
            f"only with scalingMetric {DEFAULT_SCALING_METRIC!r} and without scalingTarget",
        )
    target = raw.get("scalingTarget", raw.get("targetWaitingRequests", DEFAULT_TARGET_WAITING_REQUESTS))
    if "scalingMetric" in raw and metric != DEFAULT_SCALING_METRIC:
        require("scalingTarget" in raw, f"{where}.scalingTarget", None, f"a target for scalingMetric {metric!r}")
    min_replicas = raw.get("minReplicas", replicas)
    autoscaling = Autoscaling(
        min_replicas=min_replicas,
        max_replicas=raw.get("maxReplicas", min_replicas),
        target=target,
        metric=metric,
    )
    field_of = {"minReplicas": "minReplicas", "maxReplicas": "maxReplicas", "metric": "scalingMetric"}
    try:
        return check_autoscaling(autoscaling, where)
    except FastloadConfigError as exc:
        # Name the cdk.json key the user wrote.
        key = exc.field.rsplit(".", 1)[1]
        if key == "target":
            key = "scalingTarget" if "scalingTarget" in raw else "targetWaitingRequests"
        raise FastloadConfigError(f"{where}.{field_of.get(key, key)}", exc.value, exc.accepted) from None


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
    try:
        source = image_mirror.upstream(raw.get("upstream", image_mirror.DEFAULT_UPSTREAM))
        image_mirror.check_credentials(source, arn, arn.split(":secret:", 1)[-1] if arn else None)
    except FastloadConfigError as exc:  # name the cdk.json key
        key = "upstream" if exc.field == "upstream" else "credentialSecretArn"
        raise FastloadConfigError(f"{field}.{key}", exc.value, exc.accepted) from None
    return ImageMirrorConfig(source.name, arn)
