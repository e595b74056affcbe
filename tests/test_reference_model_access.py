"""The reference stack wires network, model bucket and per-model readers together."""

import copy
import json
from pathlib import Path

import pytest
from aws_cdk.assertions import Template

from app import build_app
from fastload_constructs.core import naming
from tests.cfn_lint_errors import lint_errors
from tests.iam_eval import denied, resolve

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]
STAGER = "arn:aws:iam::123456789012:role/model-stager"


@pytest.fixture(scope="module")
def synthesized(tmp_path_factory):
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:stagerRoleArns"] = [STAGER]
    second = dict(ctx["fastload:models"][0], name="qwen-7b", s3Prefix="models/qwen-7b")
    ctx["fastload:models"].append(second)
    app = build_app(context=ctx, outdir=str(tmp_path_factory.mktemp("cdk.out")))
    (stack,) = [c for c in app.node.children if c.node.id == "FastloadReference"]
    template = Template.from_json(app.synth().get_stack_by_name("FastloadReference").template).to_json()
    return stack, template


def by_type(template, cfn_type):
    return {k: r for k, r in template["Resources"].items() if r["Type"] == cfn_type}


def test_cluster_runs_in_the_networks_private_subnets(synthesized):
    stack, template = synthesized
    (cluster,) = by_type(template, "AWS::EKS::Cluster").values()
    subnet_ids = [ref["Ref"] for ref in cluster["Properties"]["ResourcesVpcConfig"]["SubnetIds"]]
    expected = [stack.get_logical_id(s.node.default_child) for s in stack.network.vpc.private_subnets]
    assert subnet_ids == expected and len(expected) >= 2


def test_model_bucket_is_locked_to_the_networks_endpoint_and_lets_the_stager_in(synthesized):
    stack, template = synthesized
    endpoint_id = stack.get_logical_id(stack.network.s3_endpoint.node.default_child)
    bucket_id = stack.get_logical_id(stack.model_bucket.bucket.node.default_child)
    (policy,) = [
        p
        for p in by_type(template, "AWS::S3::BucketPolicy").values()
        if p["Properties"]["Bucket"] == {"Ref": bucket_id}
    ]
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    bucket_arn = "arn:aws:s3:::models"
    resolved = resolve(statements, {f"{bucket_id}.Arn": bucket_arn, endpoint_id: "vpce-1"})
    tls = {"aws:SecureTransport": "true"}
    pod = "arn:aws:iam::123456789012:role/pod"
    weights = f"{bucket_arn}/models/qwen-7b/model.safetensors"
    assert denied(resolved, "s3:GetObject", {**tls, "aws:PrincipalArn": pod}, resource=weights)
    assert not denied(
        resolved, "s3:GetObject", {**tls, "aws:PrincipalArn": pod, "aws:SourceVpce": "vpce-1"}, resource=weights
    )
    assert not denied(resolved, "s3:GetObject", {**tls, "aws:PrincipalArn": STAGER}, resource=weights)
    # The stager's exemption ends at the models it stages.
    cache = f"{bucket_arn}/compile-cache/qwen-7b/k.tar.gz"
    assert denied(resolved, "s3:PutObject", {**tls, "aws:PrincipalArn": STAGER}, resource=cache)
    puts = [s for s in statements if s["Effect"] == "Allow" and "s3:PutObject" in s["Action"]]
    # One statement or several, depending on @aws-cdk/aws-iam:minimizePolicies.
    staged = sorted(
        r["Fn::Join"][1][1]
        for s in puts
        for r in (s["Resource"] if isinstance(s["Resource"], list) else [s["Resource"]])
    )
    assert staged == ["/models/meta-llama/Llama-3.1-8B-Instruct/*", "/models/qwen-7b/*"]


def test_every_model_gets_its_own_reader_bound_to_the_charts_service_account(synthesized):
    stack, template = synthesized
    associations = sorted(
        (a["Properties"]["Namespace"], a["Properties"]["ServiceAccount"])
        for a in by_type(template, "AWS::EKS::PodIdentityAssociation").values()
        if a["Properties"]["Namespace"] == naming.DEFAULT_NAMESPACE  # not Karpenter's or KEDA's
    )
    names = sorted(stack.model_readers)
    assert names == ["llama-3-1-8b-instruct", "qwen-7b"]
    assert associations == [(naming.DEFAULT_NAMESPACE, naming.service_account_name(n)) for n in names]
    cluster_id = stack.get_logical_id(stack.cluster.node.default_child)
    for association in by_type(template, "AWS::EKS::PodIdentityAssociation").values():
        assert association["Properties"]["ClusterName"] == {"Ref": cluster_id}
    assert stack.model_readers["qwen-7b"].prefix == "models/qwen-7b"


def test_template_has_no_cloudformation_errors(synthesized):
    _, template = synthesized
    assert lint_errors(template) == []
