"""ServedModel: one construct per served model on any cluster and bucket, ordered, found by the export."""

import json
from pathlib import Path

import aws_cdk as cdk
import cdk8s
import pytest
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from aws_cdk.assertions import Annotations, Match, Template
from aws_cdk.lambda_layer_kubectl_v35 import KubectlV35Layer

from fastload_constructs.core.cluster.karpenter import DO_NOT_DISRUPT
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.naming import SERVER_PRIORITY_CLASS, SPARE_PRIORITY_CLASS
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.scaling.autoscaling import Autoscaling, scaling_behavior
from fastload_constructs.core.serving.access import ServingAccess
from fastload_constructs.core.serving.server_pod import ServerOptions
from fastload_constructs.infra import (
    AppliedChart,
    KedaController,
    KedaScaling,
    ManifestExport,
    ScaleOutMetrics,
    ServedModel,
    synth_with_manifests,
)
from fastload_constructs.k8s import NamespaceChart
from tests.imported_subnets import scraper_subnets
from tests.pod_views import model_uri_read
from tests.serving_plans import planned

ENV = cdk.Environment(account="111122223333", region="us-east-1")
LLAMA = ModelProfile.from_numbers(parameter_count=8_030_261_248)


def imported_cluster(stack, id="Cluster", name="prod"):
    """An imported aws_eks_v2 cluster with the kubectl provider it needs to take manifests (one provider per
    stack is created; another cluster of the stack gets an imported one)."""
    role = iam.Role.from_role_arn(stack, f"{id}Admin", "arn:aws:iam::111122223333:role/admin", mutable=False)
    if id != "Cluster":
        provider = eks.KubectlProvider.from_kubectl_provider_attributes(
            stack, f"{id}Kubectl", service_token="arn:aws:lambda:us-east-1:111122223333:function:kubectl", role=role
        )
    else:
        reference = eks.Cluster.from_cluster_attributes(stack, "Ref", cluster_name=name)
        provider = eks.KubectlProvider(
            stack, "Kubectl", cluster=reference, kubectl_layer=KubectlV35Layer(stack, "Layer"), role=role
        )
    return eks.Cluster.from_cluster_attributes(stack, id, cluster_name=name, kubectl_provider=provider)


def stack_with_cluster():
    stack = cdk.Stack(cdk.App(), "Serving", env=ENV)
    cluster = imported_cluster(stack)
    bucket = s3.Bucket.from_bucket_name(stack, "Models", "acme-models")
    return stack, cluster, bucket


def manifests(template):
    return {lid: r for lid, r in template["Resources"].items() if r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"}


def manifest_id(applied):
    """The logical id of an AppliedChart's manifest."""
    return cdk.Stack.of(applied).get_logical_id(applied.manifest.node.default_child)


def applies(*docs):
    """A KubernetesManifest whose documents include `docs` (each a partial object)."""
    return {"Manifest": Match.serialized_json(Match.array_with([Match.object_like(d) for d in docs]))}


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
    template = Template.from_stack(stack)
    assert served.plan == plan(LLAMA, "g6e.2xlarge")
    template.has_resource_properties(
        "AWS::EKS::PodIdentityAssociation", {"Namespace": "serving", "ServiceAccount": "llama-vllm"}
    )
    association_id = stack.get_logical_id(served.reader.association)
    # The model's namespace, then its in-pod scripts (resolve-revision runs in every pod), then the server.
    namespace_id = manifest_id(served.serving_namespace.namespace_chart)
    scripts_id = manifest_id(served.runtime_scripts)
    template.has_resource_properties(
        "Custom::AWSCDK-EKS-KubernetesResource",
        applies({"kind": "Namespace", "metadata": Match.object_like({"name": "serving"})}),
    )
    template.has_resource(
        "Custom::AWSCDK-EKS-KubernetesResource",
        {"Properties": applies({"kind": "ConfigMap", "metadata": Match.object_like({"namespace": "serving"})})},
    )
    assert manifests(template.to_json())[scripts_id]["DependsOn"] == [namespace_id]
    template.has_resource(
        "Custom::AWSCDK-EKS-KubernetesResource",
        {
            "Properties": applies(
                {
                    "kind": "Deployment",
                    "metadata": Match.object_like({"namespace": "serving"}),
                    "spec": Match.object_like({"replicas": 3}),
                }
            ),
            # CloudFormation's DependsOn, sorted as CDK writes it.
            "DependsOn": Match.array_with(sorted([association_id, namespace_id, scripts_id])),
        },
    )
    deployment = next(d for d in served.chart.to_json() if d["kind"] == "Deployment")
    assert model_uri_read(deployment["spec"]["template"]["spec"]) == "s3://acme-models/models/llama" == served.model_uri
    assert served.service_url == "http://llama.serving.svc.cluster.local:8000"
    assert served.priority_classes is None  # its pods name no class


def test_added_charts_apply_after_the_server_and_the_export_finds_every_chart_in_order():
    stack, cluster, bucket = stack_with_cluster()
    served = ServedModel(
        stack,
        "Llama",
        cluster=cluster,
        bucket=bucket,
        prefix="models/llama",
        model_name="llama",
        plan=plan(LLAMA, "g6e.2xlarge"),
    )
    export = ManifestExport(stack, "Export")  # created before the chart below: found at synth all the same
    extra = served.add_chart("Scaler", NamespaceChart(cdk8s.App(), "scaler", namespace="scaler"))
    applied = manifests(Template.from_stack(stack).to_json())
    assert manifest_id(served.server) in applied[manifest_id(extra)]["DependsOn"]
    assert manifest_id(served.serving_namespace.namespace_chart) in applied[manifest_id(served.server)]["DependsOn"]
    assert export.file_names() == [
        "01-namespace.yaml",
        "02-fastload-runtime-inference.yaml",
        "03-llama.yaml",
        "04-scaler.yaml",
    ]
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
        plan=planned(LLAMA, "g6e.2xlarge", shared_compile_cache=True),
        server=ServerOptions(compile_cache_prefix="cache"),
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
        # The model's own folder of the cache prefix (core.serving.cache_sharing.model_cache_prefix).
        json.dumps({"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":s3:::acme-models/cache/llama/*"]]})
    ]


@pytest.mark.parametrize(
    "props, field",
    [
        ({}, "profile"),
        ({"plan": plan(LLAMA, "g6e.2xlarge"), "instance_type": "g6e.2xlarge"}, "plan"),
        ({"profile": LLAMA, "instance_type": "g6e.3xlarge"}, "instance_type"),
        ({"profile": LLAMA, "instance_type": "g6e.2xlarge", "tuning": TuningOptions(tensor_parallel_size=3)}, None),
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


def synth_refusal(stack):
    """The FastloadConfigError synthesis stops with (the reference app prints its one line); nothing is written."""
    app = cdk.App.of(stack)
    with pytest.raises(FastloadConfigError) as err:
        synth_with_manifests(app)
    outdir = Path(app.outdir)
    assert not list(outdir.glob("*.template.json")) and not (outdir / "manifest.json").exists()
    return err.value


def test_a_second_server_of_the_same_model_in_the_namespace_is_refused_at_synth():
    props = dict(prefix="models/llama", model_name="llama", plan=plan(LLAMA, "g6e.2xlarge"))
    stack, cluster, bucket = stack_with_cluster()
    ServedModel(stack, "Llama", cluster=cluster, bucket=bucket, **props)
    ServedModel(stack, "Again", cluster=cluster, bucket=bucket, **props)
    err = synth_refusal(stack)
    assert err.field == "server.name" and "Serving/Llama serves it" in err.accepted
    # As `cdk synth` of your own app reports it: one line per failed check, under the stack's registry.
    with pytest.raises(RuntimeError, match=r"\[Serving/FastloadServing\] server\.name: got 'llama'; accepted: "):
        Template.from_stack(stack)

    stack, cluster, bucket = stack_with_cluster()
    ServedModel(stack, "Llama", cluster=cluster, bucket=bucket, **props)
    ServedModel(stack, "Renamed", cluster=cluster, bucket=bucket, **props, server=ServerOptions(name="llama-b"))
    err = synth_refusal(stack)
    assert err.field == "model_name"  # its service account already has an association
    assert str(err).startswith("model_name: got 'llama-vllm'; accepted: one ServedModel per model and namespace")

    stack, cluster, bucket = stack_with_cluster()
    ServedModel(stack, "Llama", cluster=cluster, bucket=bucket, **props)
    ServedModel(stack, "Elsewhere", cluster=cluster, bucket=bucket, **props, server=ServerOptions(namespace="other"))
    Template.from_stack(stack).resource_count_is("AWS::EKS::PodIdentityAssociation", 2)


def test_the_same_model_on_another_cluster_of_the_stack_is_not_a_clash():
    stack, cluster, bucket = stack_with_cluster()
    other = imported_cluster(stack, "Other", "staging")
    props = dict(bucket=bucket, prefix="models/llama", model_name="llama", plan=plan(LLAMA, "g6e.2xlarge"))
    prod = ServedModel(stack, "Prod", cluster=cluster, **props)
    staging = ServedModel(stack, "Staging", cluster=other, **props)
    template = Template.from_stack(stack)
    # Each cluster gets its own namespace and scripts; both namespaces are called `inference`.
    assert prod.serving_namespace is not staging.serving_namespace
    assert prod.runtime_scripts is not staging.runtime_scripts
    for cluster_name in ("prod", "staging"):
        template.has_resource_properties(
            "Custom::AWSCDK-EKS-KubernetesResource",
            {"ClusterName": cluster_name, **applies({"kind": "Namespace", "metadata": {"name": "inference"}})},
        )


def test_the_export_warns_about_a_manifest_applied_around_it():
    stack, cluster, _bucket = stack_with_cluster()
    AppliedChart(stack, "Namespace", cluster=cluster, chart=NamespaceChart(cdk8s.App(), "namespace"))
    cluster.add_cdk8s_chart("Direct", NamespaceChart(cdk8s.App(), "direct", namespace="direct"))
    export = ManifestExport(stack, "Export")
    cdk.App.of(stack).synth()
    Annotations.from_stack(stack).has_warning("/Serving/Export", Match.string_like_regexp("manifest-Direct|Direct"))
    assert export.file_names() == ["01-namespace.yaml"]


def kinds(manifest):
    return {d["kind"]: d for d in json.loads(manifest["Properties"]["Manifest"])}


def keda_on(stack, cluster):
    metrics = ScaleOutMetrics(
        stack,
        "Metrics",
        cluster=cluster,
        scraper_subnets=scraper_subnets(stack),
        security_group_ids=["sg-0123456789abcdef0"],
        cluster_label="prod",
    )
    return KedaController(stack, "Keda", cluster=cluster, metrics=metrics)


def test_warm_spares_apply_after_the_server_as_its_service_account():
    stack, cluster, bucket = stack_with_cluster()
    served = ServedModel(
        stack,
        "Llama",
        cluster=cluster,
        bucket=bucket,
        prefix="models/llama",
        model_name="llama",
        # Spares are the plan's: the server gets the class above theirs and a warm check from it.
        plan=planned(LLAMA, "g6e.2xlarge", warm_spares=2),
    )
    template = Template.from_stack(stack)
    applied = manifests(template.to_json())
    classes_id = manifest_id(served.priority_classes.classes_chart)
    assert applied[manifest_id(served.spares)]["DependsOn"] == [manifest_id(served.server)]
    assert classes_id in applied[manifest_id(served.server)]["DependsOn"]
    # The pods name both classes, so the model brought them: admission refuses a pod whose class is missing.
    template.has_resource_properties(
        "Custom::AWSCDK-EKS-KubernetesResource",
        applies(
            {"kind": "PriorityClass", "metadata": Match.object_like({"name": SERVER_PRIORITY_CLASS})},
            {"kind": "PriorityClass", "metadata": Match.object_like({"name": SPARE_PRIORITY_CLASS})},
        ),
    )
    server_pod = kinds(applied[manifest_id(served.server)])["Deployment"]["spec"]["template"]["spec"]
    spares = kinds(applied[manifest_id(served.spares)])["Deployment"]
    assert spares["spec"]["replicas"] == 2
    spare_pod = spares["spec"]["template"]["spec"]
    # One association serves both: the spares read the model through the server's service account.
    assert spare_pod["serviceAccountName"] == server_pod["serviceAccountName"] == served.reader.service_account
    assert (server_pod["priorityClassName"], spare_pod["priorityClassName"]) == (
        SERVER_PRIORITY_CLASS,
        SPARE_PRIORITY_CLASS,
    )
    assert served.applied == [served.server, served.spares] and served.autoscaler is None
    assert ManifestExport(stack, "Export").file_names() == [
        "01-namespace.yaml",
        "02-priority-classes.yaml",
        "03-fastload-runtime-inference.yaml",  # the namespace's in-pod scripts, shared by its models
        "04-llama.yaml",
        "05-llama-warm-spares.yaml",
    ]


def test_an_autoscaled_server_has_no_replica_count_and_its_scaled_object_waits_for_keda():
    stack, cluster, bucket = stack_with_cluster()
    keda = keda_on(stack, cluster)
    serving = plan(LLAMA, "g6e.2xlarge")
    served = ServedModel(
        stack,
        "Llama",
        cluster=cluster,
        bucket=bucket,
        prefix="models/llama",
        model_name="llama",
        plan=serving,
        autoscaling=KedaScaling(controller=keda, settings=Autoscaling(min_replicas=1, max_replicas=4)),
    )
    template = Template.from_stack(stack).to_json()
    applied = manifests(template)
    server_id = stack.get_logical_id(served.server.manifest.node.default_child)
    scaler_id = stack.get_logical_id(served.autoscaler.manifest.node.default_child)
    keda_id = stack.get_logical_id(keda.chart.node.default_child.node.default_child)
    assert "replicas" not in kinds(applied[server_id])["Deployment"]["spec"]  # KEDA's HPA owns it
    assert served.chart.spec.replicas is None
    assert {server_id, keda_id} <= set(applied[scaler_id]["DependsOn"])
    scaled = stack.resolve(served.autoscaling_chart.scaled_object.to_json())["spec"]
    assert (scaled["scaleTargetRef"]["name"], scaled["minReplicaCount"], scaled["maxReplicaCount"]) == ("llama", 1, 4)
    assert scaled["cooldownPeriod"] == scaling_behavior(serving).cooldown_s
    assert scaled["triggers"][0]["metadata"]["serverAddress"] == stack.resolve(keda.metrics.query_endpoint)
    assert scaled["triggers"][0]["metadata"]["awsRegion"] == "us-east-1"


def test_access_and_do_not_disrupt_are_rendered_on_the_server():
    stack, cluster, bucket = stack_with_cluster()
    served = ServedModel(
        stack,
        "Llama",
        cluster=cluster,
        bucket=bucket,
        prefix="models/llama",
        model_name="llama",
        plan=plan(LLAMA, "g6e.2xlarge"),
        server=ServerOptions(do_not_disrupt=True),
        access=ServingAccess(allow_from_cidrs=("10.1.0.0/16",), api_key_secret="llama-key"),
    )
    docs = kinds(
        manifests(Template.from_stack(stack).to_json())[stack.get_logical_id(served.server.manifest.node.default_child)]
    )
    assert docs["Deployment"]["spec"]["template"]["metadata"]["annotations"][DO_NOT_DISRUPT] == "true"
    cidrs = [
        p["ipBlock"]["cidr"] for r in docs["NetworkPolicy"]["spec"]["ingress"] for p in r["from"] if "ipBlock" in p
    ]
    assert cidrs == ["10.1.0.0/16"]
    (container,) = docs["Deployment"]["spec"]["template"]["spec"]["containers"]
    assert {
        "name": "VLLM_API_KEY",
        "valueFrom": {"secretKeyRef": {"key": "api-key", "name": "llama-key"}},
    } in container["env"]
    plain = ServedModel(
        stack,
        "Plain",
        cluster=cluster,
        bucket=bucket,
        prefix="models/q",
        model_name="qwen",
        plan=plan(LLAMA, "g6e.2xlarge"),
    )
    pod = next(d for d in plain.chart.to_json() if d["kind"] == "Deployment")["spec"]["template"]
    assert DO_NOT_DISRUPT not in pod["metadata"]["annotations"]


@pytest.mark.parametrize(
    "props, field",
    [
        (
            {"plan": planned(LLAMA, "g6e.2xlarge", warm_spares=1), "server": ServerOptions(priority_class_name="low")},
            "server.priority_class_name",
        ),
        ({"access": "namespace-only"}, "access"),
        ({"autoscaling": "keda"}, "autoscaling"),
        ({"keda": Autoscaling(1, 3), "server": ServerOptions(replicas=2)}, "server.replicas"),
        ({"keda": Autoscaling(1, 3), "server": ServerOptions(compile_cache="pvc")}, "autoscaling.settings.maxReplicas"),
        ({"keda": Autoscaling(0, 3)}, "autoscaling.settings.minReplicas"),
        ({"keda": Autoscaling(1, 3), "controller": "keda"}, "autoscaling.controller"),
    ],
)
def test_bad_new_options_are_refused_naming_the_field(props, field):
    stack, cluster, bucket = stack_with_cluster()
    keda = keda_on(stack, cluster)
    if "keda" in props:
        settings, controller = props.pop("keda"), props.pop("controller", keda)
        with pytest.raises(FastloadConfigError) as err:
            props["autoscaling"] = KedaScaling(controller=controller, settings=settings)
            ServedModel(
                stack,
                "Llama",
                cluster=cluster,
                bucket=bucket,
                prefix="m",
                model_name="llama",
                plan=plan(LLAMA, "g6e.2xlarge"),
                **props,
            )
    else:
        with pytest.raises(FastloadConfigError) as err:
            ServedModel(
                stack,
                "Llama",
                cluster=cluster,
                bucket=bucket,
                prefix="m",
                model_name="llama",
                **{"plan": plan(LLAMA, "g6e.2xlarge"), **props},
            )
    assert err.value.field == field
    assert str(err.value).startswith(f"{field}: got ")
    assert stack.node.try_find_child("Llama") is None


def test_a_model_named_like_anothers_warm_spares_is_refused_before_deploy():
    """`llama` with warm spares renders Deployment `llama-warm-spare`; a model of that name would render it
    again, and the second `kubectl create` would fail the deploy."""
    stack, cluster, bucket = stack_with_cluster()
    ServedModel(
        stack,
        "Llama",
        cluster=cluster,
        bucket=bucket,
        prefix="models/llama",
        model_name="llama",
        plan=planned(LLAMA, "g6e.2xlarge", warm_spares=1),
    )
    ServedModel(
        stack,
        "Spare",
        cluster=cluster,
        bucket=bucket,
        prefix="models/other",
        model_name="llama-warm-spare",
        plan=plan(LLAMA, "g6e.2xlarge"),
    )
    err = synth_refusal(stack)
    assert err.field == "model_name" and "Serving/Llama already applies Deployment inference/llama-warm-spare" in str(
        err
    )


def test_an_autoscaled_server_outside_the_scraped_namespaces_is_refused():
    """Its ScaledObject would query a metric nobody collects: KEDA's fallback would hold it forever."""
    stack, cluster, bucket = stack_with_cluster()
    keda = keda_on(stack, cluster)
    with pytest.raises(FastloadConfigError) as err:
        ServedModel(
            stack,
            "Llama",
            cluster=cluster,
            bucket=bucket,
            prefix="models/llama",
            model_name="llama",
            plan=plan(LLAMA, "g6e.2xlarge"),
            server=ServerOptions(namespace="team-a", replicas=None),
            autoscaling=KedaScaling(controller=keda, settings=Autoscaling(1, 3)),
        )
    assert err.value.field == "server.namespace" and "vllm_namespaces" in err.value.accepted


def test_a_namespace_chart_of_your_own_beside_the_models_is_refused_naming_the_way_out():
    """Applying the namespace yourself as well would `kubectl create` it twice: the deploy would fail."""
    stack, cluster, bucket = stack_with_cluster()
    AppliedChart(stack, "Namespace", cluster=cluster, chart=NamespaceChart(cdk8s.App(), "namespace"))
    ServedModel(
        stack, "Llama", cluster=cluster, bucket=bucket, prefix="m", model_name="llama", plan=plan(LLAMA, "g6e.2xlarge")
    )
    err = synth_refusal(stack)
    assert err.field == "chart" and err.value == "Namespace inference"
    assert "Serving/Namespace and Serving/FastloadNamespace-inference-" in err.accepted
    assert "declare ServingNamespace(scope, <your chart's id>, cluster=...) in place of your chart" in err.accepted


def test_the_readme_install_snippet_is_the_whole_of_serving_a_model_with_a_warm_spare():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    install = readme[readme.index("## Install") : readme.index("## Quick start")]
    snippet = install.split("```python\n", 1)[1].split("```", 1)[0]
    stack, cluster, bucket = stack_with_cluster()
    exec(snippet, {"self": stack, "cluster": cluster, "bucket": bucket})
    template = Template.from_stack(stack)
    for doc in (
        {"kind": "Namespace", "metadata": Match.object_like({"name": "inference"})},
        {"kind": "PriorityClass", "metadata": Match.object_like({"name": SPARE_PRIORITY_CLASS})},
        {"kind": "Deployment", "metadata": Match.object_like({"name": "llama-3-1-8b-warm-spare"})},
    ):
        template.has_resource_properties("Custom::AWSCDK-EKS-KubernetesResource", applies(doc))
