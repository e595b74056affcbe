"""ServedModel: one construct per served model on any cluster and bucket, ordered, found by the export."""

import json

import aws_cdk as cdk
import cdk8s
import pytest
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from aws_cdk.assertions import Annotations, Match, Template
from aws_cdk.lambda_layer_kubectl_v35 import KubectlV35Layer

from fastload_constructs.core.cache_sharing import SharedCompileCache
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.tuning import TuningOptions, plan
from fastload_constructs.core.vllm_args import ServerOptions
from fastload_constructs.infra import AppliedChart, ServedModel
from fastload_constructs.k8s import ManifestExport, NamespaceChart

ENV = cdk.Environment(account="111122223333", region="us-east-1")
LLAMA = ModelProfile.from_numbers(parameter_count=8_030_261_248)


def stack_with_cluster():
    stack = cdk.Stack(cdk.App(), "Serving", env=ENV)
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
    return stack, cluster, bucket


def manifests(template):
    return {lid: r for lid, r in template["Resources"].items() if r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"}


def test_identity_then_server_from_the_inputs_of_a_plan():
    stack, cluster, bucket = stack_with_cluster()
    served = ServedModel(
        stack,
        "Llama",
        cluster=cluster,
        bucket=bucket,
        prefix="models/llama",
        model_name="llama",
        profile=LLAMA,
        instance_type="g6e.2xlarge",
        server=ServerOptions(replicas=3, namespace="serving"),
    )
    template = Template.from_stack(stack).to_json()
    assert served.plan == plan(LLAMA, "g6e.2xlarge")
    (association_id,) = [
        lid for lid, r in template["Resources"].items() if r["Type"] == "AWS::EKS::PodIdentityAssociation"
    ]
    association = template["Resources"][association_id]["Properties"]
    assert (association["Namespace"], association["ServiceAccount"]) == ("serving", "llama-vllm")
    ((server_id, server),) = manifests(template).items()
    assert association_id in server["DependsOn"]
    docs = json.loads(server["Properties"]["Manifest"])
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    assert deployment["spec"]["replicas"] == 3 and deployment["metadata"]["namespace"] == "serving"
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["args"][0] == "s3://acme-models/models/llama" == served.model_uri
    assert served.service_url == "http://llama.serving.svc.cluster.local:8000"
    assert stack.get_logical_id(served.server.manifest.node.default_child) == server_id


def test_added_charts_apply_after_the_server_and_the_export_finds_every_chart_in_order():
    stack, cluster, bucket = stack_with_cluster()
    namespace = AppliedChart(stack, "Namespace", cluster=cluster, chart=NamespaceChart(cdk8s.App(), "namespace"))
    served = ServedModel(
        stack,
        "Llama",
        cluster=cluster,
        bucket=bucket,
        prefix="models/llama",
        model_name="llama",
        plan=plan(LLAMA, "g6e.2xlarge"),
        after=[namespace],
    )
    export = ManifestExport(stack, "Export")  # created before the chart below: found at synth all the same
    extra = served.add_chart("Scaler", NamespaceChart(cdk8s.App(), "scaler", namespace="scaler"))
    template = Template.from_stack(stack).to_json()
    server_id = stack.get_logical_id(served.server.manifest.node.default_child)
    extra_id = stack.get_logical_id(extra.manifest.node.default_child)
    namespace_id = stack.get_logical_id(namespace.manifest.node.default_child)
    assert server_id in manifests(template)[extra_id]["DependsOn"]
    assert namespace_id in manifests(template)[server_id]["DependsOn"]
    assert export.file_names() == ["01-namespace.yaml", "02-llama.yaml", "03-scaler.yaml"]
    assert served.applied == [served.server, extra]


def test_a_shared_compile_cache_in_the_bucket_is_granted_under_its_prefix_only():
    stack, cluster, bucket = stack_with_cluster()
    ServedModel(
        stack,
        "Llama",
        cluster=cluster,
        bucket=bucket,
        prefix="models/llama",
        model_name="llama",
        plan=plan(LLAMA, "g6e.2xlarge"),
        server=ServerOptions(shared_compile_cache=SharedCompileCache("acme-models", "cache")),
    )
    template = Template.from_stack(stack).to_json()
    puts = [
        s
        for r in template["Resources"].values()
        if r["Type"] == "AWS::IAM::Policy"
        for s in r["Properties"]["PolicyDocument"]["Statement"]
        if "s3:PutObject" in json.dumps(s["Action"])
    ]
    assert [json.dumps(s["Resource"]) for s in puts] == [
        # The model's own folder of the cache prefix (core.cache_sharing.model_cache_prefix).
        json.dumps({"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":s3:::acme-models/cache/llama/*"]]})
    ]


@pytest.mark.parametrize(
    "props, field",
    [
        ({}, "profile"),
        ({"plan": plan(LLAMA, "g6e.2xlarge"), "instance_type": "g6e.2xlarge"}, "plan"),
        ({"profile": LLAMA, "instance_type": "g6e.3xlarge"}, "instance_type"),
        ({"profile": LLAMA, "instance_type": "g6e.2xlarge", "tuning": TuningOptions(tensor_parallel_size=3)}, None),
        (
            {
                "profile": LLAMA,
                "instance_type": "g6e.2xlarge",
                "server": ServerOptions(shared_compile_cache=SharedCompileCache("other-bucket")),
            },
            "server.shared_compile_cache.bucket",
        ),
        ({"plan": plan(LLAMA, "g6e.2xlarge"), "server": {"replicas": 2}}, "server"),
        ({"plan": plan(LLAMA, "g6e.2xlarge"), "prefix": "/models/llama"}, "prefix"),
    ],
)
def test_bad_input_is_refused_before_anything_is_added(props, field):
    stack, cluster, bucket = stack_with_cluster()
    before = len(stack.node.children)
    kwargs = {"prefix": "models/llama", **props}
    with pytest.raises(FastloadConfigError) as err:
        ServedModel(stack, "Llama", cluster=cluster, bucket=bucket, model_name="llama", **kwargs)
    if field is not None:
        assert err.value.field == field
    assert len(stack.node.children) == before


def test_a_second_server_of_the_same_model_in_the_namespace_is_refused():
    stack, cluster, bucket = stack_with_cluster()
    props = dict(
        cluster=cluster, bucket=bucket, prefix="models/llama", model_name="llama", plan=plan(LLAMA, "g6e.2xlarge")
    )
    ServedModel(stack, "Llama", **props)
    with pytest.raises(FastloadConfigError) as err:
        ServedModel(stack, "Again", **props)
    assert err.value.field == "server.name"
    with pytest.raises(FastloadConfigError) as err:
        ServedModel(stack, "Renamed", **props, server=ServerOptions(name="llama-b"))
    assert err.value.field == "model_name"  # its service account already has an association
    ServedModel(stack, "Elsewhere", **props, server=ServerOptions(namespace="other"))


def test_the_export_warns_about_a_manifest_applied_around_it():
    stack, cluster, _bucket = stack_with_cluster()
    AppliedChart(stack, "Namespace", cluster=cluster, chart=NamespaceChart(cdk8s.App(), "namespace"))
    cluster.add_cdk8s_chart("Direct", NamespaceChart(cdk8s.App(), "direct", namespace="direct"))
    export = ManifestExport(stack, "Export")
    cdk.App.of(stack).synth()
    Annotations.from_stack(stack).has_warning("/Serving/Export", Match.string_like_regexp("manifest-Direct|Direct"))
    assert export.file_names() == ["01-namespace.yaml"]
