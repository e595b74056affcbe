"""ServingNamespace and ServingPriorityClasses: what a stack's models share on a cluster, made once, on demand."""

import aws_cdk as cdk
import cdk8s
import pytest
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_s3 as s3
from aws_cdk.assertions import Match, Template

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.naming import SERVER_PRIORITY_CLASS
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.serving.server_pod import ServerOptions
from fastload_constructs.infra import (
    AppliedChart,
    FmaController,
    ManifestExport,
    ServedModel,
    ServingNamespace,
    ServingPriorityClasses,
)
from fastload_constructs.k8s import NamespaceChart, PriorityClassesChart
from tests.serving_plans import planned
from tests.test_served_model import ENV, applies, imported_cluster, manifest_id, stack_with_cluster

LLAMA = ModelProfile.from_numbers(parameter_count=8_030_261_248)
MANIFEST = "Custom::AWSCDK-EKS-KubernetesResource"
NAMESPACE = {"kind": "Namespace"}
CLASSES = {"kind": "PriorityClass", "metadata": Match.object_like({"name": SERVER_PRIORITY_CLASS})}


def serve(stack, cluster, bucket, name, namespace="inference", warm_spares=1, id=None):
    return ServedModel(
        stack,
        id or name,
        cluster=cluster,
        bucket=bucket,
        prefix=f"models/{name}",
        model_name=name,
        plan=planned(LLAMA, "g6e.2xlarge", warm_spares=warm_spares),
        server=ServerOptions(namespace=namespace),
    )


def applying(template, doc, **properties):
    """The manifests that apply `doc` (a partial object), by logical id."""
    return template.find_resources(MANIFEST, {"Properties": {**applies(doc), **properties}})


def test_two_models_with_warm_spares_in_one_namespace_share_one_namespace_and_one_set_of_classes():
    stack, cluster, bucket = stack_with_cluster()
    llama, qwen = serve(stack, cluster, bucket, "llama"), serve(stack, cluster, bucket, "qwen")
    template = Template.from_stack(stack)
    assert llama.serving_namespace is qwen.serving_namespace and llama.priority_classes is qwen.priority_classes
    assert llama.runtime_scripts is qwen.runtime_scripts
    (namespace_id,) = applying(template, NAMESPACE)
    (classes_id,) = applying(template, CLASSES)
    for model in (llama, qwen):
        template.has_resource(
            MANIFEST,
            {
                "Properties": applies({"kind": "Deployment", "metadata": Match.object_like({"name": model.name})}),
                "DependsOn": Match.array_with(sorted([namespace_id, classes_id])),
            },
        )
    # The namespace before all that lives in it: the scripts too.
    assert namespace_id in template.to_json()["Resources"][manifest_id(llama.runtime_scripts)]["DependsOn"]


def test_two_namespaces_get_one_namespace_chart_each_and_still_one_set_of_classes():
    stack, cluster, bucket = stack_with_cluster()
    serve(stack, cluster, bucket, "llama")
    team = serve(stack, cluster, bucket, "qwen", namespace="team-a")
    template = Template.from_stack(stack)
    assert len(applying(template, NAMESPACE)) == 2 and len(applying(template, CLASSES)) == 1
    template.has_resource_properties(
        MANIFEST, applies({"kind": "ConfigMap", "metadata": Match.object_like({"namespace": "team-a"})})
    )
    assert team.serving_namespace.namespace_chart.chart.node.id == "namespace-team-a"
    assert ManifestExport(stack, "Export").file_names()[:3] == [
        "01-namespace.yaml",
        "02-priority-classes.yaml",
        "03-fastload-runtime-inference.yaml",
    ]


def test_two_clusters_get_their_own_classes():
    stack, cluster, bucket = stack_with_cluster()
    staging = imported_cluster(stack, "Staging", "staging")
    serve(stack, cluster, bucket, "llama")
    serve(stack, staging, bucket, "llama", id="staging-llama")
    template = Template.from_stack(stack)
    for name in ("prod", "staging"):
        assert len(applying(template, CLASSES, ClusterName=name)) == 1
        assert len(applying(template, NAMESPACE, ClusterName=name)) == 1


def test_a_model_without_warm_spares_naming_no_class_brings_no_classes():
    stack, cluster, bucket = stack_with_cluster()
    served = serve(stack, cluster, bucket, "llama", warm_spares=0)
    assert served.priority_classes is None
    assert applying(Template.from_stack(stack), CLASSES) == {}


def test_declared_under_the_id_of_your_namespace_chart_its_manifest_keeps_its_logical_id():
    """Replacing `AppliedChart(self, "Namespace", chart=NamespaceChart(...))` by a ServingNamespace of the same id
    changes nothing CloudFormation sees: no manifest created again, no namespace deleted."""
    before, cluster, _ = stack_with_cluster()
    AppliedChart(before, "Namespace", cluster=cluster, chart=NamespaceChart(cdk8s.App(), "namespace"))
    AppliedChart(before, "Classes", cluster=cluster, chart=PriorityClassesChart(cdk8s.App(), "priority-classes"))
    after, cluster, bucket = stack_with_cluster()
    ServingNamespace(after, "Namespace", cluster=cluster)
    ServingPriorityClasses(after, "Classes", cluster=cluster)
    served = serve(after, cluster, bucket, "llama")
    assert served.serving_namespace.node.path == "Serving/Namespace"
    assert served.priority_classes.node.path == "Serving/Classes"
    old, new = (Template.from_stack(s).find_resources(MANIFEST) for s in (before, after))
    assert {k: v for k, v in new.items() if k in old} == old  # same ids, same manifests, same prune labels


def test_declaring_a_namespace_after_a_model_made_it_is_refused():
    stack, cluster, bucket = stack_with_cluster()
    serve(stack, cluster, bucket, "llama")
    with pytest.raises(FastloadConfigError) as err:
        ServingNamespace(stack, "Namespace", cluster=cluster)
    assert err.value.field == "namespace"
    assert "Serving/FastloadNamespace-inference-" in err.value.accepted and "declare yours before" in err.value.accepted
    with pytest.raises(FastloadConfigError) as err:
        ServingPriorityClasses(stack, "Classes", cluster=cluster)
    assert err.value.field == "cluster" and stack.node.try_find_child("Classes") is None


@pytest.mark.parametrize(
    "props, field",
    [({"namespace": "Team_A"}, "namespace"), ({"existing": "yes"}, "existing"), ({"cluster": None}, "cluster")],
)
def test_bad_props_are_refused_naming_the_field(props, field):
    stack, cluster, _ = stack_with_cluster()
    bare = eks.Cluster.from_cluster_attributes(stack, "Bare", cluster_name="bare")  # no kubectl provider
    kwargs = {"cluster": cluster, **props}
    kwargs["cluster"] = kwargs["cluster"] or bare
    with pytest.raises(FastloadConfigError) as err:
        ServingNamespace(stack, "Namespace", **kwargs)
    assert err.value.field == field and stack.node.try_find_child("Namespace") is None


def test_a_second_stack_on_the_same_namespace_and_cluster_declares_them_existing():
    """The namespace and the classes are the first stack's: only it applies them, and only it deletes them."""
    app = cdk.App()
    stacks = []
    for id in ("First", "Second"):
        stack = cdk.Stack(app, id, env=ENV)
        cluster = imported_cluster(stack)
        bucket = s3.Bucket.from_bucket_name(stack, "Models", "acme-models")
        if id == "Second":
            ServingNamespace(stack, "Namespace", cluster=cluster, existing=True)
            ServingPriorityClasses(stack, "Classes", cluster=cluster, existing=True)
        stacks.append((stack, serve(stack, cluster, bucket, f"{id.lower()}-llama")))
    (first, first_model), (second, model) = [(Template.from_stack(s), m) for s, m in stacks]
    assert len(applying(first, NAMESPACE)) == 1 and len(applying(first, CLASSES)) == 1
    assert applying(second, NAMESPACE) == {} and applying(second, CLASSES) == {}
    assert model.serving_namespace.namespace_chart is None and model.priority_classes.classes_chart is None
    # Each stack applies (and deletes) a scripts ConfigMap of its own.
    names = [m.runtime_scripts.chart.config_map_name for m in (first_model, model)]
    assert names[0] != names[1]
    for template, name in zip((first, second), names, strict=True):
        assert len(applying(template, {"kind": "ConfigMap", "metadata": Match.object_like({"name": name})})) == 1


def test_a_chart_living_in_the_namespace_waits_for_it_through_the_same_lookup():
    """FMA's controllers run in the models' namespace: their Helm chart waits for it as the models do."""
    stack, cluster, bucket = stack_with_cluster()
    fma = FmaController(stack, "Fma", cluster=cluster)
    namespace = ServingNamespace.of(stack, cluster, fma.namespace)
    fma.chart.node.add_dependency(namespace.ready)
    served = serve(stack, cluster, bucket, "llama", warm_spares=0)
    assert served.serving_namespace is namespace
    template = Template.from_stack(stack)
    (namespace_id,) = applying(template, NAMESPACE)
    template.has_resource("Custom::AWSCDK-EKS-HelmChart", {"DependsOn": Match.array_with([namespace_id])})


def test_the_reference_plan_of_a_model_is_untouched_by_where_its_namespace_comes_from():
    stack, cluster, bucket = stack_with_cluster()
    ServingNamespace(stack, "Namespace", cluster=cluster, existing=True)
    served = ServedModel(
        stack, "Llama", cluster=cluster, bucket=bucket, prefix="m", model_name="llama", plan=plan(LLAMA, "g6e.2xlarge")
    )
    assert served.plan == plan(LLAMA, "g6e.2xlarge")
    deps = Template.from_stack(stack).to_json()["Resources"][manifest_id(served.server)]["DependsOn"]
    # Its identity and the namespace's scripts; no namespace manifest to wait for.
    assert sorted(deps) == sorted(
        [stack.get_logical_id(served.reader.association), manifest_id(served.runtime_scripts)]
    )
