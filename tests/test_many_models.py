"""Many models: the in-pod scripts once per namespace, not in every model's chart."""

from __future__ import annotations

import aws_cdk as cdk
import aws_cdk.assertions

from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.serving.cache_sharing import REVISION_SCRIPT
from fastload_constructs.core.serving.runtime_scripts import runtime_scripts, shared_scripts_name
from tests.emitted_manifests import template_manifests

LLAMA_8B = ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16")


def _stack_with_models(count: int, stack=None, cluster=None, bucket=None, render=True):  # type: ignore[no-untyped-def]
    from fastload_constructs.infra import ServedModel
    from tests.test_served_model import stack_with_cluster

    if stack is None:
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
    return cdk.assertions.Template.from_stack(stack).to_json() if render else stack


def _owner(template: dict) -> str:
    """The shared ConfigMap's name in `template` (keyed by the stack that applies it)."""
    carriers = [doc for _, doc in template_manifests(template) if REVISION_SCRIPT in doc.get("data", {})]
    (name,) = {doc["metadata"]["name"] for doc in carriers}
    return name


def test_the_scripts_are_applied_once_per_namespace_not_per_model():
    template = _stack_with_models(2)
    scripts = runtime_scripts()
    carriers = [doc for _, doc in template_manifests(template) if REVISION_SCRIPT in doc.get("data", {})]
    assert len(carriers) == 1  # one ConfigMap for the namespace, both models mount it
    (shared,) = carriers
    name = shared["metadata"]["name"]
    assert name.startswith("fastload-runtime-") and shared["data"] == scripts
    deployments = [doc for _, doc in template_manifests(template) if doc["kind"] == "Deployment"]
    assert len(deployments) == 2
    for deployment in deployments:
        volumes = {v["name"]: v for v in deployment["spec"]["template"]["spec"]["volumes"]}
        assert any(v.get("configMap", {}).get("name") == name for v in volumes.values())


def test_two_stacks_serving_in_one_namespace_apply_configmaps_of_their_own():
    """`kubectl create` of one name from two stacks fails the second deploy; deleting either stack would
    take the other's scripts away. The name is keyed by the stack."""
    import aws_cdk as cdk_
    from aws_cdk import aws_eks_v2 as eks
    from aws_cdk import aws_iam as iam
    from aws_cdk import aws_s3 as s3
    from aws_cdk.lambda_layer_kubectl_v35 import KubectlV35Layer

    from fastload_constructs.infra import ServingNamespace

    app = cdk_.App()
    stacks = []
    for id in ("First", "Second"):
        stack = cdk_.Stack(app, id, env=cdk_.Environment(account="111122223333", region="us-east-1"))
        reference = eks.Cluster.from_cluster_attributes(stack, "Ref", cluster_name="prod")
        provider = eks.KubectlProvider(
            stack,
            "Kubectl",
            cluster=reference,
            kubectl_layer=KubectlV35Layer(stack, "Layer"),
            role=iam.Role.from_role_arn(stack, "Admin", "arn:aws:iam::111122223333:role/admin", mutable=False),
        )
        cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="prod", kubectl_provider=provider)
        bucket = s3.Bucket.from_bucket_name(stack, "Models", "acme-models")
        if id == "Second":  # the namespace is the first stack's (ServingNamespace)
            ServingNamespace(stack, "Namespace", cluster=cluster, existing=True)
        stacks.append(_stack_with_models(1, stack, cluster, bucket, render=False))
    names = {_owner(cdk.assertions.Template.from_stack(stack).to_json()) for stack in stacks}
    assert len(names) == 2 and shared_scripts_name() not in names
