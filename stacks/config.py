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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.cache_sharing import SharedCompileCache
from fastload_constructs.core.catalog import lookup
from fastload_constructs.core.cluster_settings import DEFAULT_KUBERNETES_VERSION, SUPPORTED_KUBERNETES_VERSIONS
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, require
from fastload_constructs.core.model import DTYPE_BYTES, ModelProfile
from fastload_constructs.core.tuning import ServingPlan, TuningOptions, plan
from fastload_constructs.core.validation import check_bucket_name, check_dns_label, check_key_prefix, check_role_arn
from fastload_constructs.core.vllm_args import DEFAULT_IMAGE, ServerOptions, check_extra_args, image_tag

PREFIX = "fastload:"
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
    image: str = DEFAULT_IMAGE
    extra_args: tuple[str, ...] = ()

    def serving_plan(self) -> ServingPlan:
        return plan(self.profile, self.instance_type, self.options)

    def server_options(self, shared_compile_cache: SharedCompileCache | None = None) -> ServerOptions:
        """The vLLM server options of this model (the bucket's cache location comes from the stack)."""
        return ServerOptions(
            image=self.image,
            extra_args=self.extra_args,
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
    # Roles given cluster-admin access entries (AmazonEKSClusterAdminPolicy): the humans and
    # pipelines that run kubectl after `cdk deploy`.
    admin_role_arns: tuple[str, ...] = ()

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


def _scoped(where: str, check: Callable[[], Any]) -> Any:
    """Run a library check, naming the context field in its error instead of the library's parameter."""
    try:
        return check()
    except FastloadConfigError as exc:
        field = exc.field if exc.field.startswith(where) else where
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
    _scoped(field, lambda: image_tag(raw))
    assert isinstance(raw, str)
    return raw


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
    "parameterCount": Key(int, lambda f, v: None if v is None else _positive_int(f, v), "or totalBytes"),
    "totalBytes": Key(int, lambda f, v: None if v is None else _positive_int(f, v), "or parameterCount"),
    "dtype": Key(str, lambda f, v: v, "the checkpoint's dtype"),
    "replicas": Key(int, lambda f, v: _positive_int(f, 1 if v is None else v), "pods"),
    "tensorParallelSize": Key(int, lambda f, v: None if v is None else _positive_int(f, v), "default: smallest fit"),
    "gpuMemoryUtilization": Key(float, lambda f, v: 0.90 if v is None else v, "vLLM's share of GPU memory"),
    "sharedCompileCache": Key(bool, lambda f, v: _flag(f, False if v is None else v), "compile cache through S3"),
    "nodeLocalModelCache": Key(bool, lambda f, v: _flag(f, False if v is None else v), "stream an NVMe copy"),
    "image": Key(str, lambda f, v: _image(f, v), "a pinned vLLM image (not latest)"),
    "extraArgs": Key(
        list, lambda f, v: () if v is None else _scoped(f, lambda: check_extra_args(v, f)), "more vllm serve args"
    ),
}


def parse_model(raw: object, index: int) -> ModelSpec:
    where = f"{PREFIX}models[{index}]"
    raw = decode(raw, where, dict)
    require(isinstance(raw, dict), where, raw, "an object with name, s3Prefix, instanceType and a size")
    assert isinstance(raw, dict)
    for key in raw:
        if key not in MODEL_KEYS:
            raise FastloadConfigError(f"{where}.{key}", raw[key], "a model key; " + closest(key, list(MODEL_KEYS)))
    v = {
        key: spec.check(f"{where}.{key}", decode(raw.get(key), f"{where}.{key}", spec.kind))
        for key, spec in MODEL_KEYS.items()
    }
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
    require(dtype in DTYPE_BYTES, f"{where}.dtype", dtype, "one of " + ", ".join(DTYPE_BYTES))
    require(
        v["totalBytes"] is not None or v["parameterCount"] is not None,
        f"{where}.parameterCount",
        None,
        "parameterCount or totalBytes",
    )
    profile = ModelProfile.from_numbers(
        total_bytes=v["totalBytes"], parameter_count=v["parameterCount"], dtype=dtype, name=name
    )
    options = TuningOptions(
        tensor_parallel_size=v["tensorParallelSize"],
        gpu_memory_utilization=v["gpuMemoryUtilization"],
        # The streamer reads the node-local copy: tune it and predict for NVMe.
        source="local" if v["nodeLocalModelCache"] else "s3",
    )
    return ModelSpec(
        name=name,
        profile=profile,
        s3_prefix=check_key_prefix(v["s3Prefix"] or f"models/{name}", f"{where}.s3Prefix"),
        instance_type=instance.name,
        replicas=v["replicas"],
        options=options,
        shared_compile_cache=v["sharedCompileCache"],
        node_local_model_cache=v["nodeLocalModelCache"],
        image=v["image"],
        extra_args=v["extraArgs"],
    )


def _version(field: str, raw: object) -> str:
    version = str(DEFAULT_KUBERNETES_VERSION if raw is None else raw)
    require(
        version in SUPPORTED_KUBERNETES_VERSIONS, field, version, "one of " + ", ".join(SUPPORTED_KUBERNETES_VERSIONS)
    )
    return version


def _models(field: str, raw: object) -> tuple[ModelSpec, ...]:
    require(
        isinstance(raw, list) and len(raw) > 0,
        field,
        raw,
        "a non-empty list of model objects (JSON text when given with -c)",
    )
    assert isinstance(raw, list)
    models = tuple(parse_model(m, i) for i, m in enumerate(raw))
    names = [m.name for m in models]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise FastloadConfigError(f"{field}[].name", duplicates[0], "names unique across models")
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
}


def parse_reference_config(ctx: Mapping[str, Any]) -> ReferenceConfig:
    """Read and check every `fastload:*` context value; plans each model to catch misfits now.

    `ctx` may hold the app's whole context: keys outside `fastload:` are CDK's and left alone.
    """
    for key in ctx:
        if key.startswith(PREFIX) and key[len(PREFIX) :] not in CONTEXT_KEYS:
            known = [PREFIX + k for k in CONTEXT_KEYS]
            raise FastloadConfigError(key, ctx[key], "a fastload context key; " + closest(key, known))
    v = {
        key: spec.check(PREFIX + key, decode(ctx.get(PREFIX + key), PREFIX + key, spec.kind))
        for key, spec in CONTEXT_KEYS.items()
    }
    models: tuple[ModelSpec, ...] = v["models"]
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
    )


def parse_stager_role_arns(raw: object) -> tuple[str, ...]:
    """`fastload:stagerRoleArns` alone (a list, or its JSON text)."""
    field = f"{PREFIX}stagerRoleArns"
    return _role_arns(field, decode(raw, field, list))


def _nested(a: str, b: str) -> bool:
    """True when key prefix `a` equals `b` or one contains the other."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")
