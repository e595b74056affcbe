"""Many models (issue 28): the in-pod scripts once per namespace, not in every model's chart."""

from __future__ import annotations

import aws_cdk as cdk
import aws_cdk.assertions

from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.serving.cache_sharing import SCRIPT_NAME, cache_sync_script
from fastload_constructs.core.serving.runtime_scripts import shared_scripts_name
from tests.emitted_manifests import template_manifests

LLAMA_8B = ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16")


def _stack_with_models(count: int) -> dict:
    from fastload_constructs.infra import ServedModel
    from tests.test_served_model import stack_with_cluster

    stack, cluster, bucket = stack_with_cluster()
    local = plan(
        LLAMA_8B, "g6e.2xlarge", TuningOptions(serving=Serving(model_cache="node-local", shared_compile_cache=True))
    )
    for i in range(count):
        ServedModel(
            stack,
            f"M{i}",
            cluster=cluster,
            bucket=bucket,
            prefix=f"models/m{i}",
            model_name=f"m{i}",
            plan=local,
        )
    return cdk.assertions.Template.from_stack(stack).to_json()


def test_the_scripts_are_applied_once_per_namespace_not_per_model():
    template = _stack_with_models(2)
    script = cache_sync_script()
    carriers = [doc for _, doc in template_manifests(template) if SCRIPT_NAME in doc.get("data", {})]
    assert len(carriers) == 1  # one ConfigMap for the namespace, both models mount it
    (shared,) = carriers
    assert shared["metadata"]["name"] == shared_scripts_name() and shared["data"][SCRIPT_NAME] == script
    deployments = [doc for _, doc in template_manifests(template) if doc["kind"] == "Deployment"]
    assert len(deployments) == 2
    for deployment in deployments:
        volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
        assert any(v.get("configMap", {}).get("name") == shared_scripts_name() for v in volumes.values())
