"""Plain-YAML export: tokens become declared placeholders, never `${Token[...]}`; the reference
app applies the charts to the cluster and writes the same manifests under cdk.out/manifests/."""

import copy
import json
from pathlib import Path

import aws_cdk as cdk
import cdk8s
import kubernetes_validate
import pytest
import yaml
from aws_cdk import aws_eks_v2 as eks
from aws_cdk.assertions import Template

from app import build_app
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.tokens import CDK_TOKEN
from fastload_constructs.infra import AppliedChart
from fastload_constructs.infra.manifest_export import ManifestExport, substitute_tokens, synth_with_manifests
from fastload_constructs.k8s.server_chart import ServerChart
from stacks.config import DEFAULT_KUBERNETES_VERSION, parse_reference_config
from tests.crd_schemas import validate_custom_resource
from tests.pod_views import model_uri_read

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]
MODEL = CDK_JSON["fastload:models"][0]
SECOND_MODEL = {
    "name": "llama-3-1-70b-instruct",
    "s3Prefix": "models/meta-llama/Llama-3.1-70B-Instruct",
    "instanceType": "g6e.12xlarge",
    "parameterCount": 70_553_706_496,
    "replicas": 2,
}


@pytest.fixture(scope="module")
def plan_8b():
    return plan(ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16"), "g6e.2xlarge")


def container(docs):
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    (c,) = deployment["spec"]["template"]["spec"]["containers"]
    return c


def pod_of(docs):
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    return deployment["spec"]["template"]["spec"]


def env_of(docs):
    return {e["name"]: e["value"] for e in container(docs)["env"]}


def token_chart(plan_8b):
    """A chart fed deploy-time values, as it is inside an environment-agnostic stack."""
    stack = cdk.Stack(cdk.App(), "S")
    bucket = cdk.CfnParameter(stack, "Bucket").value_as_string
    chart = ServerChart(
        cdk8s.App(),
        "llama",
        plan=plan_8b,
        model_name="llama",
        model_uri=f"s3://{bucket}/models/llama",
        region=stack.region,
    )
    return stack, chart, bucket


def test_mapped_tokens_become_placeholders(plan_8b):
    stack, chart, bucket = token_chart(plan_8b)
    docs = substitute_tokens(chart.to_json(), {stack.region: "${AWS_REGION}", bucket: "${MODEL_BUCKET_NAME}"})
    text = json.dumps(docs)
    assert CDK_TOKEN.search(json.dumps(chart.to_json()))  # the chart itself does carry tokens
    assert not CDK_TOKEN.search(text) and "Token[" not in text
    assert env_of(docs)["AWS_REGION"] == env_of(docs)["AWS_DEFAULT_REGION"] == "${AWS_REGION}"
    assert model_uri_read(pod_of(docs)) == "s3://${MODEL_BUCKET_NAME}/models/llama"


def test_an_unmapped_token_is_refused_with_its_location(plan_8b):
    stack, chart, bucket = token_chart(plan_8b)
    with pytest.raises(FastloadConfigError) as err:
        substitute_tokens(chart.to_json(), {bucket: "${MODEL_BUCKET_NAME}"}, "llama")
    assert err.value.field.startswith("llama/Deployment/llama")
    assert err.value.value == stack.region


@pytest.mark.parametrize("placeholders", [{"not-a-token": "${X}"}, "bad-placeholder"])
def test_placeholders_are_checked(plan_8b, placeholders):
    _stack, chart, bucket = token_chart(plan_8b)
    mapping = placeholders if isinstance(placeholders, dict) else {bucket: "$bucket"}
    with pytest.raises(FastloadConfigError):
        substitute_tokens(chart.to_json(), mapping)


def test_unmapped_token_fails_synth_before_anything_is_written(plan_8b, tmp_path):
    app = cdk.App(outdir=str(tmp_path / "out"))
    stack = cdk.Stack(app, "S")
    chart = ServerChart(
        cdk8s.App(),
        "llama",
        plan=plan_8b,
        model_name="llama",
        model_uri="s3://fastload-test-models/models/llama",
        region=stack.region,
    )
    ManifestExport(stack, "Export", charts=[chart])
    with pytest.raises(Exception, match=r"manifest export: llama/Deployment/llama.*Token\[AWS\.Region"):
        synth_with_manifests(app)
    out = tmp_path / "out"
    assert not out.exists() or (not list(out.rglob("*.yaml")) and not list(out.rglob("*.template.json")))


def test_bad_model_bucket_name_in_context_is_refused():
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:modelBucketName"] = "Not_A_Bucket"
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(ctx)
    assert err.value.field == "fastload:modelBucketName"


# --- the reference app: bucket named by -c fastload:modelBucketName, or by CloudFormation ---


@pytest.fixture(scope="module")
def with_bucket_app(tmp_path_factory):
    outdir = tmp_path_factory.mktemp("cdk.out")
    ctx = {**copy.deepcopy(CDK_JSON), "fastload:modelBucketName": "fastload-test-models"}
    ctx["fastload:models"].append(SECOND_MODEL)
    app = build_app(context=ctx, outdir=str(outdir))
    return app, synth_with_manifests(app)


@pytest.fixture(scope="module")
def with_bucket(with_bucket_app):
    return with_bucket_app[1]


@pytest.fixture(scope="module")
def agnostic(tmp_path_factory):
    outdir = tmp_path_factory.mktemp("cdk.out")
    app = build_app(context=copy.deepcopy(CDK_JSON), outdir=str(outdir))
    return synth_with_manifests(app)


def load(path):
    return [d for d in yaml.safe_load_all(Path(path).read_text()) if d is not None]


def applied_manifests(assembly):
    """{logical id: (resource, docs)} of every chart the stack applies, AWS::Region read as ${AWS_REGION}
    and the prune label CDK adds for `kubectl apply --prune` removed."""
    template = Template.from_json(assembly.get_stack_by_name("FastloadReference").template)
    out = {}
    for logical_id, resource in template.find_resources("Custom::AWSCDK-EKS-KubernetesResource").items():
        manifest = resource["Properties"]["Manifest"]
        if isinstance(manifest, dict):
            parts = manifest["Fn::Join"][1]
            manifest = "".join(
                p if isinstance(p, str) else "${AWS_REGION}" if p == {"Ref": "AWS::Region"} else "${DEPLOY_TIME}"
                for p in parts
            )
            if any(d["kind"] == "Deployment" for d in json.loads(manifest)):
                # A model chart: the region is its only deploy-time value (the KEDA objects carry more).
                assert all(isinstance(p, str) or p == {"Ref": "AWS::Region"} for p in parts), parts
        docs = json.loads(manifest)
        for doc in docs:
            labels = doc["metadata"].get("labels", {})
            for key in [k for k in labels if k.startswith("aws.cdk.eks/prune-")]:
                del labels[key]
        out[logical_id] = (resource, docs)
    return out


def test_reference_stack_applies_namespace_then_model_servers_after_their_identity(with_bucket):
    assembly = with_bucket
    applied = applied_manifests(assembly)
    template = Template.from_json(assembly.get_stack_by_name("FastloadReference").template).to_json()
    associations = {
        r["Properties"]["ServiceAccount"]: lid
        for lid, r in template["Resources"].items()
        if r["Type"] == "AWS::EKS::PodIdentityAssociation"
    }
    (ns_id,) = [lid for lid, (_, docs) in applied.items() if [d["kind"] for d in docs] == ["Namespace"]]
    deployments = {}
    for resource, docs in applied.values():
        (deployment,) = [d for d in docs if d["kind"] == "Deployment"] or [None]
        if deployment is None:
            continue
        assert ns_id in resource["DependsOn"]
        sa = deployment["spec"]["template"]["spec"]["serviceAccountName"]
        assert associations[sa] in resource["DependsOn"]  # credentials exist before the first pod
        deployments[deployment["metadata"]["name"]] = deployment
    assert set(deployments) == {MODEL["name"], SECOND_MODEL["name"]}
    big = deployments[SECOND_MODEL["name"]]
    assert big["spec"]["replicas"] == 2
    (c,) = big["spec"]["template"]["spec"]["containers"]
    assert c["resources"]["limits"]["nvidia.com/gpu"] == 4


# What envsubst fills in from the stack's outputs (README, "Manifests").
FILLED = {
    "${NODE_IMAGE_SNAPSHOT_ID}": "snap-0123456789abcdef0",
    "${KARPENTER_NODE_ROLE}": "node-role",
    "${CLUSTER_SECURITY_GROUP_ID}": "sg-0123456789abcdef0",
    "${PROMETHEUS_QUERY_URL}": "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1",
    "${AWS_REGION}": "us-west-2",
    "${MODEL_BUCKET_NAME}": "fastload-test-models",
}


def identities(docs):
    return [(d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]) for d in docs]


def file_of(folder, chart_id):
    """The exported file of one chart, whatever its number."""
    (path,) = [p for p in folder.iterdir() if p.name.split("-", 1)[1] == f"{chart_id}.yaml"]
    return path


def test_export_holds_every_applied_chart_in_apply_order_and_validates(with_bucket):
    assembly = with_bucket
    folder = Path(assembly.directory) / "manifests"
    files = sorted(p.name for p in folder.iterdir())
    # Cluster-wide first, the node pools, then per model its server and its ScaledObject.
    assert files == [
        "01-local-nvme.yaml",
        "02-namespace.yaml",
        "03-fastload-gpu.yaml",
        "04-fastload-runtime-inference.yaml",  # the in-pod scripts every model's pods run
        f"05-{MODEL['name']}.yaml",
        f"06-{MODEL['name']}-autoscaling.yaml",
        f"07-{SECOND_MODEL['name']}.yaml",
    ]
    applied = applied_manifests(assembly)
    by_objects = {json.dumps(identities(docs)): (lid, resource) for lid, (resource, docs) in applied.items()}
    # Every applied chart is in this one folder, once; nowhere else.
    assert len(by_objects) == len(applied) == len(files)
    assert [p.name for p in Path(assembly.directory).iterdir() if p.name.startswith("manifests")] == ["manifests"]
    seen: list[str] = []
    for name in files:
        text = (folder / name).read_text()
        assert "Token[" not in text
        lid, resource = by_objects[json.dumps(identities(load(folder / name)))]
        # A file's manifest depends only on manifests of earlier files: `kubectl apply -f` order works.
        assert not ({d for d in resource.get("DependsOn", []) if d in applied} - set(seen)), name
        seen.append(lid)
        for placeholder, value in FILLED.items():
            text = text.replace(placeholder, value)
        assert "${" not in text, name
        for doc in yaml.safe_load_all(text):
            group = doc["apiVersion"].rpartition("/")[0]
            if "." in group and not group.endswith(".k8s.io"):
                validate_custom_resource(doc)  # Karpenter and KEDA kinds, against their vendored CRDs
            else:
                kubernetes_validate.validate(doc, DEFAULT_KUBERNETES_VERSION, strict=True)
    model_docs = load(folder / files[4])
    assert model_uri_read(pod_of(model_docs)) == f"s3://fastload-test-models/{MODEL['s3Prefix']}"
    assert env_of(model_docs)["AWS_REGION"] == "${AWS_REGION}"  # the stack is environment-agnostic


def test_no_manifest_of_the_reference_stack_is_applied_outside_an_applied_chart(with_bucket_app):
    app, assembly = with_bucket_app
    stack = app.node.find_child("FastloadReference")
    manifests = [c for c in stack.node.find_all() if isinstance(c, eks.KubernetesManifest)]
    assert len(manifests) == 7
    assert all(isinstance(m.node.scope, AppliedChart) for m in manifests), [m.node.path for m in manifests]
    messages = assembly.get_stack_by_name("FastloadReference").messages
    assert not [m for m in messages if "not exported" in str(m.entry.data)]  # ManifestExport's warning


def test_a_model_removed_from_the_app_leaves_no_file_behind(tmp_path):
    outdir = tmp_path / "cdk.out"
    two = {**copy.deepcopy(CDK_JSON), "fastload:modelBucketName": "fastload-test-models"}
    two["fastload:models"].append(SECOND_MODEL)
    synth_with_manifests(build_app(context=two, outdir=str(outdir)))
    assert (outdir / "manifests" / f"07-{SECOND_MODEL['name']}.yaml").exists()
    one = {**copy.deepcopy(CDK_JSON), "fastload:modelBucketName": "fastload-test-models"}
    synth_with_manifests(build_app(context=one, outdir=str(outdir)))
    assert sorted(p.name for p in (outdir / "manifests").iterdir()) == [
        "01-local-nvme.yaml",
        "02-namespace.yaml",
        "03-fastload-gpu.yaml",
        "04-fastload-runtime-inference.yaml",
        f"05-{MODEL['name']}.yaml",
        f"06-{MODEL['name']}-autoscaling.yaml",
    ]
    assert not [p for p in outdir.iterdir() if p.name.startswith(".manifests")]  # no temporary folder left


def test_a_failed_write_leaves_the_previous_export_intact(plan_8b, tmp_path, monkeypatch):
    chart = ServerChart(
        cdk8s.App(),
        "llama",
        plan=plan_8b,
        model_name="llama",
        model_uri="s3://fastload-test-models/models/llama",
        region="us-east-1",
    )
    export = ManifestExport(cdk.Stack(cdk.App(), "S"), "Export", charts=[chart])
    previous = tmp_path / "manifests"
    previous.mkdir()
    (previous / "01-old.yaml").write_text("kind: Old\n")

    def fail(*_args, **_kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(Path, "write_text", fail)
    with pytest.raises(OSError, match="disk full"):
        export.write(tmp_path)
    monkeypatch.undo()
    assert [p.name for p in previous.iterdir()] == ["01-old.yaml"]
    assert [p.name for p in tmp_path.iterdir()] == ["manifests"]
    export.write(tmp_path)
    assert [p.name for p in previous.iterdir()] == ["01-llama.yaml"]


def test_environment_agnostic_export_uses_placeholders(agnostic):
    folder = Path(agnostic.directory) / "manifests"
    text = file_of(folder, MODEL["name"]).read_text()
    assert "Token[" not in text
    docs = load(file_of(folder, MODEL["name"]))
    assert env_of(docs)["AWS_REGION"] == "${AWS_REGION}"
    assert model_uri_read(pod_of(docs)) == f"s3://${{MODEL_BUCKET_NAME}}/{MODEL['s3Prefix']}"
    template = Template.from_json(agnostic.get_stack_by_name("FastloadReference").template)
    # The applied manifest takes the name CloudFormation gives the bucket.
    (bucket_id,) = [
        lid for lid in template.find_resources("AWS::S3::Bucket") if lid.startswith("ModelBucket") and "Logs" not in lid
    ]
    manifests = template.find_resources("Custom::AWSCDK-EKS-KubernetesResource")
    model_manifest = next(r for r in manifests.values() if "Deployment" in json.dumps(r["Properties"]["Manifest"]))
    assert {"Ref": bucket_id} in model_manifest["Properties"]["Manifest"]["Fn::Join"][1]
