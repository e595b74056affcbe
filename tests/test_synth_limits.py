"""Limits found at synth, not at deploy: resources, template size, bucket policy size; one line each."""

from __future__ import annotations

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.infra import ModelBucket, synth_limits
from fastload_constructs.infra.synth_limits import (
    MAX_BUCKET_POLICY_BYTES,
    check_assembly_limits,
    check_stack_limits,
)

ENV = cdk.Environment(account="111122223333", region="us-east-1")


def _topics(stack: cdk.Stack, count: int, payload: str = "") -> None:
    for i in range(count):
        cdk.CfnResource(stack, f"T{i}", type="AWS::SNS::Topic", properties={"DisplayName": payload} if payload else {})


@pytest.fixture()
def limit_of_5(monkeypatch):
    """CloudFormation's 500, scaled down to 5: the same check, without building 500 constructs through jsii."""
    monkeypatch.setattr(synth_limits, "MAX_STACK_RESOURCES", 5)


def test_more_resources_than_the_limit_are_refused_before_synthesis(limit_of_5):
    stack = cdk.Stack(cdk.App(), "Big", env=ENV)
    _topics(stack, 6)
    with pytest.raises(FastloadConfigError) as refused:
        check_stack_limits(stack)
    assert "6 CloudFormation resources" in str(refused.value) and "at most 5 per stack" in str(refused.value)


def test_as_many_resources_as_the_limit_pass(limit_of_5):
    stack = cdk.Stack(cdk.App(), "Full", env=ENV)
    _topics(stack, 5)
    check_stack_limits(stack)
    assert synth_limits.MAX_STACK_RESOURCES == 5


def test_a_template_over_1_mb_is_refused_after_synthesis():
    app = cdk.App()
    stack = cdk.Stack(app, "Wide", env=ENV)
    _topics(stack, 12, payload="x" * 100_000)  # 1.2 MB of properties, far below 500 resources
    check_stack_limits(stack)
    with pytest.raises(FastloadConfigError) as refused:
        check_assembly_limits(app.synth())
    assert "1 MB template limit" in str(refused.value)


def _bucket_with_stager_prefixes(count: int) -> cdk.Stack:
    stack = cdk.Stack(cdk.App(), "Policy", env=ENV)
    endpoint = ec2.GatewayVpcEndpoint.from_gateway_vpc_endpoint_id(stack, "Endpoint", "vpce-0123456789abcdef0")
    stager = iam.Role.from_role_arn(stack, "Stager", "arn:aws:iam::111122223333:role/stager", mutable=False)
    bucket = ModelBucket(stack, "Models", vpc_endpoint=endpoint, stager_principals=[stager], access_logs=False)
    for i in range(count):
        bucket.grant_stage_models(stager, f"models/team-{i:03d}/model-{i:03d}")
    return stack


def test_a_bucket_policy_over_20_kb_is_refused_with_one_message():
    stack = _bucket_with_stager_prefixes(60)
    with pytest.raises(FastloadConfigError) as refused:
        check_stack_limits(stack)
    message = str(refused.value)
    assert "bucket policy" in message and str(MAX_BUCKET_POLICY_BYTES) in message and "\n" not in message


def test_a_few_prefixes_fit():
    check_stack_limits(_bucket_with_stager_prefixes(3))


def test_the_reference_app_prints_one_line_and_exits_2_past_a_limit(limit_of_5, monkeypatch, capsys, tmp_path):
    import app as reference_app

    def too_big(context=None, outdir=None):
        big = cdk.App(outdir=str(tmp_path / "cdk.out"))
        _topics(cdk.Stack(big, "FastloadReference", env=ENV), 6)
        return big

    monkeypatch.setattr(reference_app, "build_app", too_big)
    assert reference_app.main() == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "6 CloudFormation resources" in err and "Traceback" not in err


def test_policy_size_counts_intrinsics_as_the_arns_they_become():
    from fastload_constructs.infra.synth_limits import INTRINSIC_BYTES, policy_bytes

    joined = {"Fn::Join": ["", [{"Fn::GetAtt": ["Bucket", "Arn"]}, "/models/m/*"]]}
    assert policy_bytes({"Resource": joined}) == len('{"Resource":""}') + INTRINSIC_BYTES + len("/models/m/*")


@pytest.mark.parametrize("kind", ["outputs", "parameters"])
def test_more_outputs_or_parameters_than_a_template_may_declare_are_refused_after_synthesis(kind):
    """A base stack's exports grow with what the model stacks import: 200 outputs (and 200 parameters) at most."""
    app = cdk.App()
    stack = cdk.Stack(app, "Exports", env=ENV)
    for i in range(201):
        if kind == "outputs":
            cdk.CfnOutput(stack, f"O{i}", value=str(i))
        else:
            cdk.CfnParameter(stack, f"P{i}", default=str(i))
    with pytest.raises(FastloadConfigError) as refused:
        check_assembly_limits(app.synth())
    message = str(refused.value)
    assert f"{201 + (kind == 'parameters')} {kind}" in message and "at most 200" in message and "\n" not in message


def test_two_hundred_outputs_pass():
    app = cdk.App()
    stack = cdk.Stack(app, "Exports", env=ENV)
    for i in range(200):
        cdk.CfnOutput(stack, f"O{i}", value=str(i))
    check_assembly_limits(app.synth())
