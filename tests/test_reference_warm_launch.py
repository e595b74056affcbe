"""The reference stack with warm first launches switched on for one model, off for another."""

import copy
import json
from pathlib import Path

import pytest
import yaml
from aws_cdk.assertions import Template

from app import build_app
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.serving.cache_sharing import NODE_LOCAL_MODEL_LINK
from fastload_constructs.infra.manifest_export import synth_with_manifests
from stacks.config import parse_reference_config
from tests.iam_eval import applies, resolve

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]
WARM = {
    "name": "warm-8b",
    "s3Prefix": "models/warm-8b",
    "instanceType": "g6e.2xlarge",
    "parameterCount": 8_030_261_248,
    "sharedCompileCache": True,
    "nodeLocalModelCache": True,
}


def context(**extra):
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:models"].append(dict(WARM))
    ctx.update(extra)
    return ctx


@pytest.fixture(scope="module")
def synthesized(tmp_path_factory):
    ctx = context(**{"fastload:modelBucketName": "fastload-warm-models"})
    outdir = tmp_path_factory.mktemp("cdk.out")
    assembly = synth_with_manifests(build_app(context=ctx, outdir=str(outdir)))
    template = Template.from_json(assembly.get_stack_by_name("FastloadReference").template).to_json()
    return assembly, template


def _role_statements(template, model):
    """The statements of every IAM policy attached to the model reader's role."""
    (role_id,) = [
        k
        for k, r in template["Resources"].items()
        if r["Type"] == "AWS::IAM::Role" and k.startswith(f"Model{model.replace('-', '')}Reader")
    ]
    out = []
    for r in template["Resources"].values():
        if r["Type"] == "AWS::IAM::Policy" and {"Ref": role_id} in r["Properties"]["Roles"]:
            out += r["Properties"]["PolicyDocument"]["Statement"]
    return out


BUCKET_ARN = "arn:aws:s3:::fastload-warm-models"


def _resolved(template, statements):
    (bucket_id,) = [
        k
        for k, r in template["Resources"].items()
        if r["Type"] == "AWS::S3::Bucket" and r["Properties"].get("BucketName") == "fastload-warm-models"
    ]
    return resolve(statements, {f"{bucket_id}.Arn": BUCKET_ARN, bucket_id: "fastload-warm-models"})


def test_warm_model_may_publish_only_under_its_own_cache_folder(synthesized):
    _, template = synthesized
    statements = _resolved(template, _role_statements(template, "warm-8b"))
    own = f"{BUCKET_ARN}/compile-cache/warm-8b/0123abcd.tar.gz"
    assert any(applies(s, "s3:PutObject", resource=own) for s in statements)
    for resource in (
        f"{BUCKET_ARN}/compile-cache/llama-3-1-8b-instruct/0123abcd.tar.gz",  # another model's cache
        f"{BUCKET_ARN}/compile-cache/warm-8b-evil/0123abcd.tar.gz",
        f"{BUCKET_ARN}/compile-cache/0123abcd.tar.gz",
        f"{BUCKET_ARN}/models/warm-8b/model.safetensors",  # its weights stay read-only
    ):
        for action in ("s3:PutObject", "s3:DeleteObject"):
            assert not any(applies(s, action, resource=resource) for s in statements), (action, resource)
    assert any(applies(s, "s3:GetObject", resource=f"{BUCKET_ARN}/models/warm-8b/config.json") for s in statements)
    assert not any(
        applies(s, "s3:GetObject", resource=f"{BUCKET_ARN}/models/meta-llama/Llama-3.1-8B-Instruct/config.json")
        for s in statements
    )


def test_cold_model_has_no_cache_write_access(synthesized):
    _, template = synthesized
    cold = CDK_JSON["fastload:models"][0]["name"]
    statements = _resolved(template, _role_statements(template, cold))
    for resource in (f"{BUCKET_ARN}/compile-cache/{cold}/k.tar.gz", f"{BUCKET_ARN}/compile-cache/warm-8b/k.tar.gz"):
        assert not any(applies(s, "s3:PutObject", resource=resource) for s in statements)


def test_exported_manifests_carry_the_cache_containers(synthesized):
    assembly, _ = synthesized
    folder = Path(assembly.directory) / "manifests"
    # After the cluster-wide charts, the node pools and cdk.json's model with its ScaledObject.
    # The namespace's shared in-pod scripts come first, applied once before the first model using them.
    files = sorted(p.name for p in folder.iterdir())
    # Every model's pods run resolve-revision, so the scripts come before the first model.
    assert files[3:6] == [
        "04-fastload-runtime-inference.yaml",
        "05-llama-3-1-8b-instruct.yaml",
        "06-llama-3-1-8b-instruct-autoscaling.yaml",
    ]
    (scripts,) = [d for d in yaml.safe_load_all((folder / "04-fastload-runtime-inference.yaml").read_text()) if d]
    assert scripts["kind"] == "ConfigMap" and scripts["metadata"]["name"].startswith("fastload-runtime-")
    docs = [d for d in yaml.safe_load_all((folder / "07-warm-8b.yaml").read_text()) if d]
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    assert [c["name"] for c in pod["initContainers"]] == ["resolve-revision", "stage-model", "restore-compile-cache"]
    restore = pod["initContainers"][2]["command"]
    assert restore[restore.index("--bucket") + 1] == "fastload-warm-models"
    assert restore[restore.index("--prefix") + 1] == "compile-cache/warm-8b"
    (vllm,) = [c for c in pod["containers"] if c["name"] == "vllm"]
    assert vllm["args"][0] == NODE_LOCAL_MODEL_LINK  # streams the node-local copy, through the pod's own link
    cold = [d for d in yaml.safe_load_all((folder / "05-llama-3-1-8b-instruct.yaml").read_text()) if d]
    (cold_deployment,) = [d for d in cold if d["kind"] == "Deployment"]
    cold_steps = cold_deployment["spec"]["template"]["spec"]["initContainers"]
    assert [c["name"] for c in cold_steps] == ["resolve-revision"]  # no cache steps, only the revision


def test_node_local_plan_is_tuned_for_nvme():
    config = parse_reference_config(context())
    warm = next(m for m in config.models if m.name == "warm-8b")
    assert warm.serving_plan().source == "local"


@pytest.mark.parametrize(
    "extra, model_changes, field",
    [
        ({"fastload:compileCachePrefix": "models"}, {}, "fastload:compileCachePrefix"),
        ({"fastload:compileCachePrefix": "models/warm-8b/cc"}, {}, "fastload:compileCachePrefix"),
        ({"fastload:compileCachePrefix": "/cc"}, {}, "fastload:compileCachePrefix"),
        ({}, {"sharedCompileCache": "yes"}, "fastload:models[1].sharedCompileCache"),
        ({}, {"nodeLocalModelCache": 1}, "fastload:models[1].nodeLocalModelCache"),
    ],
)
def test_bad_warm_launch_settings_are_refused(extra, model_changes, field):
    ctx = context(**extra)
    ctx["fastload:models"][1].update(model_changes)
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(ctx)
    assert err.value.field == field
