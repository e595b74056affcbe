"""The reference app's settings, read from CDK context and checked before synthesis.

`cdk.json` holds the defaults; `cdk synth -c fastload:instanceType=g6e.12xlarge`
overrides one. Parsing is pure Python so bad input fails with a clear message
before any construct is created or any file written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.cache_sharing import SharedCompileCache
from fastload_constructs.core.catalog import lookup
from fastload_constructs.core.cluster_settings import DEFAULT_KUBERNETES_VERSION, SUPPORTED_KUBERNETES_VERSIONS
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, require
from fastload_constructs.core.model import DTYPE_BYTES, ModelProfile
from fastload_constructs.core.tuning import ServingPlan, TuningOptions, plan
from fastload_constructs.core.validation import check_bucket_name, check_dns_label, check_key_prefix, check_role_arn
from fastload_constructs.core.vllm_args import ServerOptions

PREFIX = "fastload:"
CONTEXT_KEYS = (
    PREFIX + "kubernetesVersion",
    PREFIX + "models",
    PREFIX + "stagerRoleArns",
    PREFIX + "modelBucketName",
    PREFIX + "compileCachePrefix",
)
DEFAULT_COMPILE_CACHE_PREFIX = "compile-cache"

# arn:<partition>:iam::<account>:role/<optional path/><name>; IAM names allow [\w+=,.@-].


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

    def serving_plan(self) -> ServingPlan:
        return plan(self.profile, self.instance_type, self.options)

    def server_options(self, shared_compile_cache: SharedCompileCache | None = None) -> ServerOptions:
        """The vLLM server options of this model (the bucket's cache location comes from the stack)."""
        return ServerOptions(
            replicas=self.replicas,
            shared_compile_cache=shared_compile_cache,
            model_cache="node-local" if self.node_local_model_cache else "s3",
        )


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


def parse_model(raw: object, index: int) -> ModelSpec:
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
    require(dtype in DTYPE_BYTES, f"{where}.dtype", dtype, "one of " + ", ".join(DTYPE_BYTES))
    total = raw.get("totalBytes")
    params = raw.get("parameterCount")
    require(total is not None or params is not None, f"{where}.parameterCount", None, "parameterCount or totalBytes")
    profile = ModelProfile.from_numbers(
        total_bytes=_positive_int(f"{where}.totalBytes", total) if total is not None else None,
        parameter_count=_positive_int(f"{where}.parameterCount", params) if params is not None else None,
        dtype=dtype,
        name=name,
    )
    shared_cache = _flag(f"{where}.sharedCompileCache", raw.get("sharedCompileCache", False))
    node_local = _flag(f"{where}.nodeLocalModelCache", raw.get("nodeLocalModelCache", False))
    tp = raw.get("tensorParallelSize")
    options = TuningOptions(
        tensor_parallel_size=_positive_int(f"{where}.tensorParallelSize", tp) if tp is not None else None,
        gpu_memory_utilization=raw.get("gpuMemoryUtilization", 0.90),
        # The streamer reads the node-local copy: tune it and predict for NVMe.
        source="local" if node_local else "s3",
    )
    return ModelSpec(
        name=name,
        profile=profile,
        s3_prefix=check_key_prefix(raw.get("s3Prefix", f"models/{name}"), f"{where}.s3Prefix"),
        instance_type=instance_type,
        replicas=_positive_int(f"{where}.replicas", raw.get("replicas", 1)),
        options=options,
        shared_compile_cache=shared_cache,
        node_local_model_cache=node_local,
    )


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
    models = tuple(parse_model(m, i) for i, m in enumerate(raw_models))
    names = [m.name for m in models]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise FastloadConfigError(f"{PREFIX}models[].name", duplicates[0], "names unique across models")
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
        kubernetes_version=version,
        models=models,
        stager_role_arns=parse_stager_role_arns(_get(ctx, "stagerRoleArns")),
        model_bucket_name=bucket,
        compile_cache_prefix=cache_prefix,
    )


def _nested(a: str, b: str) -> bool:
    """True when key prefix `a` equals `b` or one contains the other."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")
