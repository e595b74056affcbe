"""ModelReaderIdentity: a Pod Identity role reading exactly one model prefix, bound to the chart's service account."""

import json

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from aws_cdk.assertions import Annotations, Match, Template

from fastload_constructs.core import naming
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.infra.model_bucket import ModelBucket, ModelBucketLock
from fastload_constructs.infra.model_reader_identity import ModelReaderIdentity
from tests.cfn_template import resources
from tests.iam_eval import DENY, applies, decide, resolve
from tests.pod_identity_context import pod_identity_request, source_arn_guesses

ENV = cdk.Environment(account="111111111111", region="eu-west-1")
MODEL = "llama-3-1-8b"
PREFIX = "models/meta-llama/Llama-3.1-8B"


def build(kms_key: bool = False, **props):
    stack = cdk.Stack(cdk.App(), "Readers", env=ENV)
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="gpu-cluster")
    endpoint = ec2.GatewayVpcEndpoint.from_gateway_vpc_endpoint_id(stack, "Endpoint", "vpce-0123")
    key = kms.Key(stack, "Key") if kms_key else None
    models = ModelBucket(stack, "ModelBucket", vpc_endpoint=endpoint, kms_key=key, access_logs=False)
    reader = ModelReaderIdentity(
        stack,
        "Reader",
        cluster=cluster,
        bucket=models,
        prefix=props.pop("prefix", PREFIX),
        model_name=props.pop("model_name", MODEL),
        **props,
    )
    ids = {
        "bucket": stack.get_logical_id(models.bucket.node.default_child),
        "role": stack.get_logical_id(reader.role.node.default_child),
    }
    if key is not None:
        ids["key"] = stack.get_logical_id(key.node.default_child)
    return reader, Template.from_stack(stack).to_json(), ids


def role_statements(template, role_id):
    return [
        s
        for p in list(resources(template, "AWS::IAM::Policy").values())
        if {"Ref": role_id} in p["Properties"]["Roles"]
        for s in p["Properties"]["PolicyDocument"]["Statement"]
    ]


@pytest.fixture(scope="module")
def sse_s3():
    return build()


@pytest.fixture(scope="module")
def sse_kms():
    return build(kms_key=True)


def test_association_names_the_charts_namespace_and_service_account(sse_s3):
    reader, template, ids = sse_s3
    (association,) = list(resources(template, "AWS::EKS::PodIdentityAssociation").values())
    assert association["Properties"] == {
        "ClusterName": "gpu-cluster",
        "Namespace": naming.DEFAULT_NAMESPACE,
        "ServiceAccount": naming.service_account_name(MODEL),
        "RoleArn": {"Fn::GetAtt": [ids["role"], "Arn"]},
    }
    # The role and its permissions exist before a pod can get its credentials.
    policies = [p for p, r in template["Resources"].items() if r["Type"] == "AWS::IAM::Policy"]
    assert sorted(association["DependsOn"]) == sorted([*policies, ids["role"]])
    assert reader.service_account == naming.service_account_name(MODEL)


def test_role_is_assumable_only_by_pod_identity_for_that_service_account(sse_s3):
    _, template, ids = sse_s3
    (trust,) = template["Resources"][ids["role"]]["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert sorted(trust["Action"]) == ["sts:AssumeRole", "sts:TagSession"]
    trust = resolve(trust, {})
    own = pod_identity_request(
        account="111111111111",
        region="eu-west-1",
        cluster="gpu-cluster",
        namespace="inference",
        service_account=naming.service_account_name(MODEL),
    )
    for request in source_arn_guesses(own):
        assert applies(trust, "sts:AssumeRole", request, resource="*")
    for key, other in (
        ("aws:RequestTag/kubernetes-service-account", "other-vllm"),
        ("aws:RequestTag/eks-cluster-arn", "arn:aws:eks:eu-west-1:111111111111:cluster/other-cluster"),
        ("aws:RequestTag/kubernetes-namespace", "default"),
        # Another account's cluster naming this role (confused deputy).
        ("aws:RequestTag/eks-cluster-arn", "arn:aws:eks:eu-west-1:222222222222:cluster/gpu-cluster"),
    ):
        assert not applies(trust, "sts:AssumeRole", {**own, key: other}, resource="*"), key


def test_role_policy_is_exactly_the_read_actions_on_exactly_the_prefix(sse_s3):
    _, template, ids = sse_s3
    statements = role_statements(template, ids["role"])
    bucket_arn = {"Fn::GetAtt": [ids["bucket"], "Arn"]}
    assert sorted((s["Action"], str(s["Resource"])) for s in statements) == sorted(
        [
            ("s3:GetObject", str({"Fn::Join": ["", [bucket_arn, f"/{PREFIX}/*"]]})),
            ("s3:ListBucket", str(bucket_arn)),
        ]
    )
    (listing,) = [s for s in statements if s["Action"] == "s3:ListBucket"]
    assert listing["Condition"] == {"StringLike": {"s3:prefix": [f"{PREFIX}/*"]}}
    for statement in statements:
        assert statement["Effect"] == "Allow"
        assert "*" not in str(statement["Action"]) and statement["Resource"] != "*"
    bucket = "arn:aws:s3:::models"
    resolved = resolve(statements, {f"{ids['bucket']}.Arn": bucket})
    for action in ("s3:PutObject", "s3:DeleteObject", "kms:Decrypt"):
        assert not any(applies(s, action, resource=f"{bucket}/{PREFIX}/config.json") for s in resolved)
    assert any(applies(s, "s3:GetObject", resource=f"{bucket}/{PREFIX}/config.json") for s in resolved)
    # Not a neighbouring model whose prefix merely starts the same way.
    assert not any(applies(s, "s3:GetObject", resource=f"{bucket}/{PREFIX}-Instruct/config.json") for s in resolved)


def test_with_kms_the_role_may_decrypt_only_with_that_key_and_only_through_s3(sse_kms):
    _, template, ids = sse_kms
    statements = role_statements(template, ids["role"])
    (kms_statement,) = [s for s in statements if str(s["Action"]).startswith("kms:")]
    assert kms_statement["Action"] == "kms:Decrypt"
    assert kms_statement["Resource"] == {"Fn::GetAtt": [ids["key"], "Arn"]}
    assert kms_statement["Condition"] == {
        "StringEquals": {"kms:ViaService": {"Fn::Join": ["", ["s3.eu-west-1.", {"Ref": "AWS::URLSuffix"}]]}}
    }
    assert {s["Action"] for s in statements} == {"s3:GetObject", "s3:ListBucket", "kms:Decrypt"}


def test_namespace_and_service_account_can_be_overridden():
    reader, template, _ = build(namespace="serving", service_account="shared-reader")
    (association,) = list(resources(template, "AWS::EKS::PodIdentityAssociation").values())
    assert association["Properties"]["Namespace"] == "serving"
    assert association["Properties"]["ServiceAccount"] == "shared-reader"
    assert reader.model_uri.endswith(f"/{PREFIX}")


@pytest.mark.parametrize(
    "props, field",
    [
        ({"prefix": "/models/llama"}, "prefix"),
        ({"prefix": "models/../other"}, "prefix"),
        ({"model_name": "Llama_8B"}, "model_name"),
        ({"namespace": "Inference"}, "namespace"),
        ({"service_account": "Bad_Name"}, "service_account"),
    ],
)
def test_bad_input_is_refused_naming_the_field(props, field):
    with pytest.raises(FastloadConfigError) as err:
        build(**props)
    assert err.value.field == field


# Bring your own bucket: any s3.IBucket (+ its KMS key) works, its policy is left alone.
KEY_ARN = "arn:aws:kms:eu-west-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def build_imported(**props):
    stack = cdk.Stack(cdk.App(), "Imported", env=ENV)
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="gpu-cluster")
    key = kms.Key.from_key_arn(stack, "Key", KEY_ARN)
    bucket = s3.Bucket.from_bucket_attributes(stack, "Models", bucket_name="acme-models", encryption_key=key)
    reader = ModelReaderIdentity(stack, "Reader", cluster=cluster, bucket=bucket, prefix=PREFIX, model_name=MODEL)
    return stack, reader, Template.from_stack(stack).to_json()


def test_an_imported_bucket_is_read_through_the_roles_own_policy_with_its_key():
    stack, reader, template = build_imported()
    role_id = stack.get_logical_id(reader.role.node.default_child)
    statements = role_statements(template, role_id)
    bucket_arn = {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":s3:::acme-models"]]}
    objects = {"Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, f":s3:::acme-models/{PREFIX}/*"]]}
    by_action = {s["Action"]: s for s in statements}
    assert set(by_action) == {"s3:GetObject", "s3:ListBucket", "kms:Decrypt"}
    assert by_action["s3:GetObject"]["Resource"] == objects
    assert by_action["s3:ListBucket"]["Resource"] == bucket_arn
    assert by_action["kms:Decrypt"]["Resource"] == KEY_ARN  # the bucket's encryption_key by default
    assert not applies(by_action["s3:GetObject"], "s3:PutObject", {}, resource=f"arn:aws:s3:::acme-models/{PREFIX}/x")
    assert not list(resources(template, "AWS::S3::BucketPolicy").values())  # an imported bucket's policy is its owner's
    assert reader.model_uri == f"s3://acme-models/{PREFIX}"


def test_the_lock_on_an_imported_bucket_goes_into_a_policy_the_app_owns_or_is_printed():
    stack = cdk.Stack(cdk.App(), "Lock", env=ENV)
    endpoint = ec2.GatewayVpcEndpoint.from_gateway_vpc_endpoint_id(stack, "Endpoint", "vpce-0123")
    bucket = s3.Bucket.from_bucket_name(stack, "Models", "acme-models")
    stager = iam.Role.from_role_arn(stack, "Stager", "arn:aws:iam::111111111111:role/stager", mutable=False)
    printed = ModelBucketLock(
        stack, "Printed", bucket=bucket, vpc_endpoint=endpoint, stager_prefixes={"models/llama": [stager]}
    )
    policy = s3.BucketPolicy(stack, "OwnedPolicy", bucket=bucket)
    applied = ModelBucketLock(stack, "Applied", bucket=bucket, vpc_endpoint=endpoint, policy=policy)
    template = Template.from_stack(stack).to_json()
    assert (printed.applied, applied.applied) == (False, True)
    (bucket_policy,) = list(resources(template, "AWS::S3::BucketPolicy").values())
    statements = resolve(bucket_policy["Properties"]["PolicyDocument"]["Statement"], {})
    assert {s["Sid"] for s in statements} == {*applied.statements, "DenyInsecureTransport"}
    obj = "arn:aws:s3:::acme-models/models/llama/model.safetensors"
    assert decide(statements, "s3:GetObject", {"aws:SourceVpce": "vpce-other"}, resource=obj) == DENY
    assert decide(statements, "s3:PutObject", {"aws:SourceVpce": "vpce-other"}, resource=obj) == DENY
    assert decide(statements, "s3:GetObject", {"aws:SourceVpce": "vpce-0123"}, resource=obj) != DENY
    assert decide(statements, "s3:GetObject", {"aws:SecureTransport": "false"}, resource=obj) == DENY
    # The printed lock exempts the stager on its own prefix only, outside the endpoint.
    printed_statements = [stack.resolve(s.to_statement_json()) for s in printed.statements.values()]
    stager_ctx = {"aws:SourceVpce": "vpce-other", "aws:PrincipalArn": "arn:aws:iam::111111111111:role/stager"}
    resolved = resolve(printed_statements, {})
    assert decide(resolved, "s3:PutObject", stager_ctx, resource=obj) != DENY
    assert decide(resolved, "s3:PutObject", stager_ctx, resource="arn:aws:s3:::acme-models/other/x") == DENY
    (output,) = [o for k, o in template["Outputs"].items() if k.startswith("Printed")]
    assert "Fn::Join" in output["Value"] and "stager" in json.dumps(output["Value"])  # resolved at deploy
    Annotations.from_stack(stack).has_warning("/Lock/Printed", Match.string_like_regexp("endpoint lock is not applied"))


def test_a_model_bucket_is_unwrapped_to_its_bucket_and_key(sse_kms):
    reader, _, _ = sse_kms
    assert isinstance(reader.bucket, s3.Bucket)
