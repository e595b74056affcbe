"""Every Kubernetes manifest the library emits: from synthesised templates and from its cdk8s charts.

Templates: the documents of each `Custom::AWSCDK-EKS-KubernetesResource` (what
`add_cdk8s_chart` and `add_manifest` apply). Helm releases
(`Custom::AWSCDK-EKS-HelmChart`) carry only values; the chart itself is
rendered at deploy time, so there is nothing plain to validate here.

Charts: every `cdk8s.Chart` subclass in `fastload_constructs.k8s`, found by
import, synthesised with the representative inputs in `CHART_INPUTS`. A chart
class without inputs there fails `test_every_chart_class_has_inputs`, so a new
chart cannot slip past the schema and Pod Security checks.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
from collections.abc import Callable
from typing import Any

import cdk8s

import fastload_constructs.k8s as k8s_package
from fastload_constructs.core.cluster.karpenter import NodePoolOptions

KUBERNETES_RESOURCE = "Custom::AWSCDK-EKS-KubernetesResource"
DEPLOY_TIME = "deploy-time-value"


def _join(value: Any) -> str:
    """A Manifest property as text; references (only known at deploy time) become a placeholder."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "Fn::Join" in value:
        delimiter, parts = value["Fn::Join"]
        return delimiter.join(p if isinstance(p, str) else DEPLOY_TIME for p in parts)
    raise AssertionError(f"unexpected Manifest value {value!r}")


def template_manifests(template: dict) -> list[tuple[str, dict]]:
    """(resource logical id, document) for every manifest applied through the template."""
    found = []
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] == KUBERNETES_RESOURCE:
            for doc in json.loads(_join(resource["Properties"]["Manifest"])):
                found.append((logical_id, doc))
    return found


def cluster_version(template: dict) -> str:
    (version,) = [
        r["Properties"]["Version"] for r in template["Resources"].values() if r["Type"] == "AWS::EKS::Cluster"
    ]
    return version


def chart_classes() -> dict[str, type]:
    """Name -> class of every cdk8s Chart defined in a module of fastload_constructs.k8s."""
    classes = {}
    for module_info in pkgutil.iter_modules(k8s_package.__path__):
        module = importlib.import_module(f"{k8s_package.__name__}.{module_info.name}")
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, cdk8s.Chart) and cls is not cdk8s.Chart and cls.__module__ == module.__name__:
                classes[name] = cls
    return classes


def _vllm_plan(instance_type: str = "g6e.12xlarge", **serving: Any):
    from fastload_constructs.core.model import ModelProfile
    from tests.serving_plans import planned

    return planned(ModelProfile.from_numbers(parameter_count=70_000_000_000, dtype="BF16"), instance_type, **serving)


def _vllm(compile_cache: str, serving: dict[str, Any] | None = None, **options: Any) -> dict[str, Any]:
    from fastload_constructs.core.serving.server_pod import ServerOptions

    return dict(
        plan=_vllm_plan(**(serving or {})),
        model_name="llama-70b",
        model_uri="s3://models-bucket/models/llama-70b",
        region="us-east-1",
        options=ServerOptions(compile_cache=compile_cache, **options),  # type: ignore[arg-type]
    )


def _autoscaling(metric: str, target: float) -> dict[str, Any]:
    from fastload_constructs.core.scaling.autoscaling import Autoscaling, scaling_behavior

    return dict(
        server="llama-70b",
        autoscaling=Autoscaling(min_replicas=1, max_replicas=4, target=target, metric=metric),
        behavior=scaling_behavior(_vllm_plan()),
        server_address="https://aps-workspaces.us-east-1.amazonaws.com/workspaces/ws-0123",
        region="us-east-1",
    )


def _warm_spares(model_cache: str, engine: str = "vllm") -> dict[str, Any]:
    from fastload_constructs.core.model import ModelProfile
    from fastload_constructs.core.serving.server_pod import server_spec
    from tests.serving_plans import planned

    serving = planned(
        ModelProfile.from_numbers(parameter_count=70_000_000_000),
        "g6e.12xlarge",
        model_cache=model_cache,
        shared_compile_cache=model_cache == "node-local",
        warm_spares=2,
        engine=engine,
    )
    server = server_spec(
        serving,
        model_name="llama-70b",
        model_uri="s3://models-bucket/models/llama-70b",
        region="us-east-1",
    )
    return dict(plan=serving, server=server)


def _standby(model_cache: str) -> dict[str, Any]:
    from fastload_constructs.core.model import ModelProfile
    from fastload_constructs.core.serving.server_pod import ServerOptions, server_spec
    from tests.serving_plans import planned

    serving = planned(
        ModelProfile.from_numbers(parameter_count=8_030_261_248), "g6e.2xlarge", model_cache=model_cache, standbys=2
    )
    server = server_spec(
        serving,
        model_name="llama",
        model_uri="s3://models-bucket/models/llama",
        region="us-east-1",
        # FMA's launcher reads an s3:// model as written: a flat stage or a named revision, not the pointer.
        options=ServerOptions(replicas=None, do_not_disrupt=True, follow_revisions=model_cache != "s3"),
    )
    return dict(plan=serving, server=server)


def _capacity_buffer(replicas: int) -> dict[str, Any]:
    from fastload_constructs.core.model import ModelProfile
    from fastload_constructs.core.serving.capacity_buffer import buffered_pod
    from fastload_constructs.core.serving.server_pod import ServerOptions, server_spec
    from tests.serving_plans import planned

    server = server_spec(
        planned(ModelProfile.from_numbers(parameter_count=8_030_261_248), "g6e.2xlarge"),
        model_name="llama",
        model_uri="s3://models-bucket/models/llama",
        region="us-east-1",
        options=ServerOptions(replicas=None, do_not_disrupt=True),
    )
    return dict(pod=buffered_pod(server, replicas))


# Chart class name -> (case name, keyword arguments) to synthesise it with.
CHART_INPUTS: dict[str, list[tuple[str, Callable[[], dict[str, Any]]]]] = {
    "LocalNvmeStorage": [("default", dict), ("16-volumes", lambda: {"volumes_per_node": 16})],
    "KarpenterGpuNodePools": [
        (
            "families",
            lambda: dict(
                cluster_name="c",
                node_role="r",
                instance_types=["g6e", "p5.48xlarge"],
                options=NodePoolOptions(capacity_types=("on-demand", "spot"), gpu_limit=16),
            ),
        ),
        (
            "reserved",
            lambda: dict(
                cluster_name="c",
                node_role="r",
                instance_types=["p5.48xlarge"],
                options=NodePoolOptions(
                    capacity_types=("reserved", "on-demand"),
                    capacity_reservation_ids=("cr-0123456789abcdef0",),
                    gpu_limits={"p5": 16},
                ),
                security_group_ids=["sg-0123456789abcdef0"],
            ),
        ),
        (
            "no-instance-store",
            lambda: dict(
                cluster_name="c",
                node_role="r",
                instance_types=["p3.8xlarge"],
                options=NodePoolOptions(instance_store=False),
            ),
        ),
    ],
    "NamespaceChart": [("default", dict)],
    "AutoscalingChart": [
        ("waiting", lambda: _autoscaling("num_requests_waiting", 4)),
        ("kv-cache", lambda: _autoscaling("kv_cache_usage", 0.8)),
    ],
    "ServerChart": [
        *((mode, lambda mode=mode: _vllm(mode)) for mode in ("host-path", "pvc", "empty-dir")),
        # KEDA owns the replica count; Karpenter leaves the node alone.
        ("autoscaled-on-karpenter", lambda: _vllm("host-path", replicas=None, do_not_disrupt=True)),
        # The same chart running SGLang: S3 streaming, and the node-local copy with the shared cache.
        ("sglang-host-path", lambda: _vllm("host-path", {"engine": "sglang"}, replicas=None)),
        (
            "sglang-node-local-shared-cache",
            lambda: _vllm(
                "host-path",
                {"engine": "sglang", "model_cache": "node-local", "shared_compile_cache": True, "warm_spares": 1},
            ),
        ),
    ],
    "PriorityClassesChart": [("default", dict)],
    "RuntimeScriptsChart": [("default", dict)],
    "WarmSparesChart": [
        *((mode, lambda mode=mode: _warm_spares(mode)) for mode in ("node-local", "s3")),
        ("sglang-node-local", lambda: _warm_spares("node-local", engine="sglang")),
    ],
    "StandbyEnginesChart": [(mode, lambda mode=mode: _standby(mode)) for mode in ("node-local", "s3")],
    "CapacityBufferChart": [("one-node", lambda: _capacity_buffer(1)), ("three-nodes", lambda: _capacity_buffer(3))],
    "StandbyNodePoolChart": [
        ("g6e", lambda: dict(instance_type="g6e.2xlarge", node_class="fastload-gpu", gpu_limit=2)),
    ],
}


def chart_manifests(name: str, cls: type) -> list[tuple[str, dict]]:
    """(case, document) for every representative input of chart class `name`."""
    docs = []
    for case, kwargs in CHART_INPUTS[name]:
        chart = cls(cdk8s.Testing.app(), "fastload-test", **kwargs())
        docs += [(f"{name}[{case}]", doc) for doc in cdk8s.Testing.synth(chart)]
    return docs
