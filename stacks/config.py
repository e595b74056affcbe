"""The reference app's settings, read from CDK context and checked before synthesis.

`cdk.json` holds the defaults; `cdk synth -c fastload:instanceType=g6e.12xlarge`
overrides one. Parsing is pure Python so bad input fails with a clear message
before any construct is created or any file written.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from fastload_constructs.core import image_mirror
from fastload_constructs.core.calibration import assumptions_from_dict
from fastload_constructs.core.catalog import lookup
from fastload_constructs.core.cluster_settings import DEFAULT_KUBERNETES_VERSION, SUPPORTED_KUBERNETES_VERSIONS
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, require
from fastload_constructs.core.model import DTYPE_BYTES, ModelArchitecture, ModelProfile
from fastload_constructs.core.scaling import (
    DEFAULT_GPU_NODE_MODE,
    DEFAULT_SCALING_METRIC,
    DEFAULT_TARGET_WAITING_REQUESTS,
    Autoscaling,
    check_autoscaling,
    check_gpu_node_mode,
)
from fastload_constructs.core.tuning import LoadAssumptions, ServingPlan, TuningOptions, plan
from fastload_constructs.core.validation import check_bucket_name, check_dns_label, check_key_prefix, check_role_arn

PREFIX = "fastload:"
CONTEXT_KEYS = (
    PREFIX + "kubernetesVersion",
    PREFIX + "models",
    PREFIX + "stagerRoleArns",
    PREFIX + "modelBucketName",
    PREFIX + "compileCachePrefix",
    PREFIX + "assumptions",
    PREFIX + "gpuNodes",
    PREFIX + "vllmImageMirror",
)
DEFAULT_COMPILE_CACHE_PREFIX = "compile-cache"


@dataclass(frozen=True)
class ModelSpec:
    """One model the reference app serves."""

    name: str
    profile: ModelProfile
    s3_prefix: str
    instance_type: str
    replicas: int
    options: TuningOptions
    # Warm first launches (off by default): restore/publish the compile cache
    # through the model bucket; stream from a node-local NVMe copy of the model.
    shared_compile_cache: bool = False
    node_local_model_cache: bool = False
    # Pod autoscaling (KEDA) bounds and target; min == max means a fixed replica count.
    autoscaling: Autoscaling = field(default_factory=Autoscaling)

    @property
    def autoscaled(self) -> bool:
        return self.autoscaling.max_replicas > self.autoscaling.min_replicas

    # Warm headroom (core/warm_spares.py): placeholder pods of this model's shape that pre-warm nodes.
    warm_spares: int = 0

    def serving_plan(self) -> ServingPlan:
        return plan(self.profile, self.instance_type, self.options)


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
    # "karpenter" (node autoscaling, the default) or "managed" (fixed node groups sized for the peak).
    gpu_nodes: str = DEFAULT_GPU_NODE_MODE
    # The vLLM image through an ECR pull-through cache rule (None: pulled from its upstream registry).
    image_mirror: ImageMirrorConfig | None = None

    @property
    def instance_types(self) -> tuple[str, ...]:
        """Distinct instance types, in first-seen order: one node group each."""
        return tuple(dict.fromkeys(m.instance_type for m in self.models))


def _get(ctx: Mapping[str, Any], key: str, default: Any = None) -> Any:
    value = ctx.get(PREFIX + key)
    return default if value is None else value


def _flag(field: str, value: object) -> bool:
    require(isinstance(value, bool), field, value, "true or false")
    return value  # type: ignore[return-value]


def _positive_int(field: str, value: object) -> int:
    require(is_whole_number(value) and value > 0, field, value, "a positive whole number")
    return value  # type: ignore[return-value]


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


# The decision modules name their own fields; a user of cdk.json should read the context key.
_CONTEXT_KEY_OF = {
    "model.total_bytes": "totalBytes",
    "model.parameter_count": "parameterCount",
    "model.dtype": "dtype",
    "tensor_parallel_size": "tensorParallelSize",
    "gpu_memory_utilization": "gpuMemoryUtilization",
}


@contextmanager
def _context_field_names(where: str) -> Iterator[None]:
    """Re-raise a decision's FastloadConfigError under the cdk.json key it came from."""
    try:
        yield
    except FastloadConfigError as exc:
        key = _CONTEXT_KEY_OF.get(exc.field)
        if key is None:
            raise
        raise FastloadConfigError(f"{where}.{key}", exc.value, exc.accepted) from exc


def _fraction(field: str, value: object) -> float:
    """A number in (0, 1]: not a bool, not NaN or infinite."""
    # 0 < x <= 1 is False for NaN and infinities, and compares huge ints without a float conversion.
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < value <= 1
    require(ok, field, value, "a number above 0 and at most 1, e.g. 0.9")
    return float(value)  # type: ignore[arg-type]


def parse_model(raw: object, index: int, assumptions: LoadAssumptions | None = None) -> ModelSpec:
    where = f"{PREFIX}models[{index}]"
    require(isinstance(raw, dict), where, raw, "an object with name, s3Prefix, instanceType and a size")
    assert isinstance(raw, dict)
    known = {
        "name",
        "s3Prefix",
        "instanceType",
        "replicas",
        "parameterCount",
        "totalBytes",
        "dtype",
        "tensorParallelSize",
        "gpuMemoryUtilization",
        "sharedCompileCache",
        "nodeLocalModelCache",
        "maxModelLen",
        "cudaGraphCaptureSizes",
        "kvCacheDtype",
        "architecture",
        *SCALING_KEYS,
        "warmSpares",
    }
    unknown = sorted(set(raw) - known)
    require(not unknown, f"{where}.{unknown[0] if unknown else ''}", unknown, "keys " + ", ".join(sorted(known)))
    name = check_dns_label(raw.get("name"), f"{where}.name")
    instance = lookup(str(raw.get("instanceType", "")), f"{where}.instanceType")
    # The reference stack's GPU node groups stripe the instance store (RAID0); refuse here, before
    # the cluster's kubectl assets are staged into cdk.out, rather than half-way through the stack.
    require(
        instance.has_instance_store,
        f"{where}.instanceType",
        instance.name,
        "an instance type with instance-store NVMe (the reference stack's GPU nodes stripe it as RAID0)",
    )
    instance_type = instance.name
    dtype = raw.get("dtype", "BF16")
    require(
        isinstance(dtype, str) and dtype in DTYPE_BYTES, f"{where}.dtype", dtype, "one of " + ", ".join(DTYPE_BYTES)
    )
    total = raw.get("totalBytes")
    params = raw.get("parameterCount")
    require(total is not None or params is not None, f"{where}.parameterCount", None, "parameterCount or totalBytes")
    with _context_field_names(where):
        profile = ModelProfile.from_numbers(
            total_bytes=_positive_int(f"{where}.totalBytes", total) if total is not None else None,
            parameter_count=_positive_int(f"{where}.parameterCount", params) if params is not None else None,
            dtype=dtype,
            name=name,
        )
    if raw.get("architecture") is not None:
        profile = profile.with_architecture(parse_architecture(raw["architecture"], f"{where}.architecture"))
    max_len = raw.get("maxModelLen")
    sizes = raw.get("cudaGraphCaptureSizes")
    shared_cache = _flag(f"{where}.sharedCompileCache", raw.get("sharedCompileCache", False))
    node_local = _flag(f"{where}.nodeLocalModelCache", raw.get("nodeLocalModelCache", False))
    tp = raw.get("tensorParallelSize")
    with _context_field_names(where):
        options = TuningOptions(
            tensor_parallel_size=_positive_int(f"{where}.tensorParallelSize", tp) if tp is not None else None,
            gpu_memory_utilization=_fraction(f"{where}.gpuMemoryUtilization", raw.get("gpuMemoryUtilization", 0.90)),
            # The streamer reads the node-local copy: tune it and predict for NVMe.
            source="local" if node_local else "s3",
            max_model_len=_positive_int(f"{where}.maxModelLen", max_len) if max_len is not None else None,
            cudagraph_capture_sizes=(
                parse_capture_sizes(sizes, f"{where}.cudaGraphCaptureSizes") if sizes is not None else None
            ),
            kv_cache_dtype=_kv_dtype(f"{where}.kvCacheDtype", raw.get("kvCacheDtype", "auto")),
            node_local_model_cache=node_local,
            shared_compile_cache=shared_cache,
            **({"assumptions": assumptions} if assumptions is not None else {}),
        )
    replicas = _positive_int(f"{where}.replicas", raw.get("replicas", 1))
    autoscaling = parse_model_scaling(raw, where, replicas)
    return ModelSpec(
        name=name,
        profile=profile,
        s3_prefix=check_key_prefix(raw.get("s3Prefix", f"models/{name}"), f"{where}.s3Prefix"),
        instance_type=instance_type,
        replicas=autoscaling.min_replicas,
        options=options,
        shared_compile_cache=shared_cache,
        node_local_model_cache=node_local,
        autoscaling=autoscaling,
        warm_spares=_warm_spares(f"{where}.warmSpares", raw.get("warmSpares", 0)),
    )


def _warm_spares(field: str, value: object) -> int:
    """0 (default) or more placeholders; without nodeLocalModelCache they warm the image (and shared cache)."""
    require(isinstance(value, int) and is_whole_number(value) and value >= 0, field, value, "a whole number >= 0")
    assert isinstance(value, int)
    return value


def parse_stager_role_arns(raw: object) -> tuple[str, ...]:
    field = f"{PREFIX}stagerRoleArns"
    if raw is None:
        return ()
    require(isinstance(raw, list), field, raw, "a list of IAM role ARNs")
    assert isinstance(raw, list)
    arns = tuple(check_role_arn(arn, f"{field}[{i}]") for i, arn in enumerate(raw))
    require(len(set(arns)) == len(arns), field, raw, "role ARNs listed once each")
    return arns


def parse_reference_config(ctx: Mapping[str, Any]) -> ReferenceConfig:
    """Read and check every `fastload:*` context value; plans each model to catch misfits now."""
    version = str(_get(ctx, "kubernetesVersion", DEFAULT_KUBERNETES_VERSION))
    require(
        version in SUPPORTED_KUBERNETES_VERSIONS,
        f"{PREFIX}kubernetesVersion",
        version,
        "one of " + ", ".join(SUPPORTED_KUBERNETES_VERSIONS),
    )
    raw_models = _get(ctx, "models", [])
    require(
        isinstance(raw_models, list) and len(raw_models) > 0,
        f"{PREFIX}models",
        raw_models,
        "a non-empty list of model objects",
    )
    raw_assumptions = _get(ctx, "assumptions")
    assumptions = load_assumptions_file(raw_assumptions) if raw_assumptions is not None else None
    models = tuple(parse_model(m, i, assumptions) for i, m in enumerate(raw_models))
    names = [m.name for m in models]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise FastloadConfigError(f"{PREFIX}models[].name", duplicates[0], "names unique across models")
    _refuse_nested_model_prefixes(models)
    for spec in models:
        spec.serving_plan()  # raises on a model that does not fit its instance type
    bucket = _get(ctx, "modelBucketName")
    if bucket is not None:
        check_bucket_name(bucket, f"{PREFIX}modelBucketName")
    cache_prefix = check_key_prefix(
        _get(ctx, "compileCachePrefix", DEFAULT_COMPILE_CACHE_PREFIX), f"{PREFIX}compileCachePrefix"
    )
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
        gpu_nodes=parse_gpu_nodes(ctx),
        kubernetes_version=version,
        models=models,
        stager_role_arns=parse_stager_role_arns(_get(ctx, "stagerRoleArns")),
        model_bucket_name=bucket,
        compile_cache_prefix=cache_prefix,
        image_mirror=parse_image_mirror(_get(ctx, "vllmImageMirror")),
    )


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


# Scale-out settings (issue 13) -------------------------------------------------------------------

SCALING_KEYS = ("minReplicas", "maxReplicas", "targetWaitingRequests", "scalingMetric", "scalingTarget")


def parse_gpu_nodes(ctx: Mapping[str, Any]) -> str:
    """`fastload:gpuNodes`: "karpenter" (default) or "managed"."""
    return check_gpu_node_mode(_get(ctx, "gpuNodes", DEFAULT_GPU_NODE_MODE), f"{PREFIX}gpuNodes")


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


def _nested(a: str, b: str) -> bool:
    """True when key prefix `a` equals `b` or one contains the other."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")
