"""ModelBucket: encrypted, versioned, TLS-only, readable only through the VPC endpoint or by stagers."""

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from aws_cdk.assertions import Annotations, Match, Template

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.infra.model_bucket import ModelBucket
from tests.cfn_lint_errors import lint_errors
from tests.cfn_template import resources
from tests.iam_eval import ALLOW, IMPLICIT_DENY, applies, decide, denied, resolve

ENV = cdk.Environment(account="111111111111", region="eu-west-1")
VPCE = "vpce-0123456789abcdef0"
KEY_ID = "1234abcd-12ab-34cd-56ef-1234567890ab"
STAGER_ARN = "arn:aws:iam::111111111111:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_Stager_0a1b"
POD_ARN = "arn:aws:iam::111111111111:role/some-pod-role"


def new_stack(env=ENV, name="Models") -> cdk.Stack:
    return cdk.Stack(cdk.App(), name, env=env)


def endpoint(stack) -> ec2.IGatewayVpcEndpoint:
    return ec2.GatewayVpcEndpoint.from_gateway_vpc_endpoint_id(stack, "Endpoint", VPCE)


def bucket_policy_statements(template: dict, bucket_logical_id: str) -> list[dict]:
    (policy,) = [
        r
        for r in resources(template, "AWS::S3::BucketPolicy").values()
        if r["Properties"]["Bucket"] == {"Ref": bucket_logical_id}
    ]
    return policy["Properties"]["PolicyDocument"]["Statement"]


@pytest.fixture(scope="module")
def default():
    """SSE-S3, access logs into a bucket it creates, one stager staging one prefix."""
    stack = new_stack()
    stager = iam.Role.from_role_arn(stack, "Stager", STAGER_ARN, mutable=False)
    models = ModelBucket(stack, "ModelBucket", vpc_endpoint=endpoint(stack), stager_principals=[stager])
    models.grant_stage_models(stager, "models/llama")
    template = Template.from_stack(stack).to_json()
    bucket_id = stack.get_logical_id(models.bucket.node.default_child)
    return models, template, bucket_id


@pytest.fixture(scope="module")
def with_kms():
    stack = new_stack(name="KmsModels")
    key = kms.Key(stack, "Key")
    stager = iam.Role.from_role_arn(stack, "Stager", STAGER_ARN, mutable=False)
    models = ModelBucket(
        stack, "ModelBucket", vpc_endpoint=endpoint(stack), stager_principals=[stager], kms_key=key, access_logs=False
    )
    models.grant_stage_models(stager, "models/llama")
    template = Template.from_stack(stack).to_json()
    return (
        models,
        template,
        stack.get_logical_id(models.bucket.node.default_child),
        stack.get_logical_id(key.node.default_child),
    )


def test_bucket_is_private_versioned_sse_s3_and_retained(default):
    _, template, bucket_id = default
    bucket = template["Resources"][bucket_id]
    props = bucket["Properties"]
    assert props["PublicAccessBlockConfiguration"] == {
        "BlockPublicAcls": True,
        "BlockPublicPolicy": True,
        "IgnorePublicAcls": True,
        "RestrictPublicBuckets": True,
    }
    assert props["BucketEncryption"]["ServerSideEncryptionConfiguration"] == [
        {"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}
    ]
    assert props["VersioningConfiguration"] == {"Status": "Enabled"}
    assert props["OwnershipControls"] == {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]}
    assert bucket["DeletionPolicy"] == "Retain" and bucket["UpdateReplacePolicy"] == "Retain"


def _rules(template, bucket_id) -> dict[str, dict]:
    return {r["Id"]: r for r in template["Resources"][bucket_id]["Properties"]["LifecycleConfiguration"]["Rules"]}


def test_noncurrent_versions_and_stale_uploads_expire(default):
    _, template, bucket_id = default
    rule = _rules(template, bucket_id)["ExpireNoncurrentVersions"]
    assert rule["Status"] == "Enabled"
    assert "Prefix" not in rule and "TagFilters" not in rule  # the whole bucket: every incomplete upload
    assert rule["NoncurrentVersionExpiration"] == {"NoncurrentDays": 30}
    assert rule["AbortIncompleteMultipartUpload"] == {"DaysAfterInitiation": 7}


def test_temporary_objects_a_killed_publisher_left_expire_in_a_day(default):
    from fastload_constructs.runtime.compile_cache import TEMPORARY_TAGGING

    _, template, bucket_id = default
    rule = _rules(template, bucket_id)["ExpireTemporaryObjects"]
    assert rule["Status"] == "Enabled"
    assert rule["ExpirationInDays"] == 1 and rule["NoncurrentVersionExpiration"] == {"NoncurrentDays": 1}
    # The tag the publisher puts on its temporary upload, exactly.
    (tag,) = rule["TagFilters"]
    assert f"{tag['Key']}={tag['Value']}" == TEMPORARY_TAGGING


def test_server_access_logs_go_to_a_private_logs_bucket_by_policy_not_acl(default):
    models, template, bucket_id = default
    logs_id = models.bucket.stack.get_logical_id(models.access_logs_bucket.node.default_child)
    assert template["Resources"][bucket_id]["Properties"]["LoggingConfiguration"] == {
        "DestinationBucketName": {"Ref": logs_id},
        "LogFilePrefix": "ModelBucket/",
    }
    logs = template["Resources"][logs_id]["Properties"]
    assert "AccessControl" not in logs
    assert logs["OwnershipControls"] == {"Rules": [{"ObjectOwnership": "BucketOwnerEnforced"}]}
    delivery = [
        s
        for s in bucket_policy_statements(template, logs_id)
        if s.get("Principal") == {"Service": "logging.s3.amazonaws.com"}
    ]
    assert len(delivery) == 1 and delivery[0]["Action"] == "s3:PutObject"


BUCKET_ARN = "arn:aws:s3:::models-bucket"


def resolved_policy(template: dict, bucket_id: str) -> list[dict]:
    return resolve(bucket_policy_statements(template, bucket_id), {f"{bucket_id}.Arn": BUCKET_ARN, bucket_id: "models"})


def test_every_request_without_tls_is_denied(default):
    _, template, bucket_id = default
    statements = resolved_policy(template, bucket_id)
    obj = f"{BUCKET_ARN}/models/llama/config.json"
    plain = {"aws:SecureTransport": "false"}
    assert denied(statements, "s3:PutObject", {**plain, "aws:PrincipalArn": STAGER_ARN}, resource=obj)
    assert denied(
        statements,
        "s3:GetObject",
        {**plain, "aws:SourceVpce": VPCE, "aws:PrincipalArn": POD_ARN},
        resource=obj,
    )
    (tls,) = [s for s in statements if "Bool" in s.get("Condition", {})]
    assert tls["Action"] == "s3:*" and tls["Principal"] == {"AWS": "*"}


def test_reads_and_writes_are_denied_unless_through_the_endpoint_or_by_a_stager_on_its_prefix(default):
    _, template, bucket_id = default
    statements = resolved_policy(template, bucket_id)
    tls = {"aws:SecureTransport": "true"}
    staged = f"{BUCKET_ARN}/models/llama/model.safetensors"
    elsewhere = f"{BUCKET_ARN}/compile-cache/llama/key.tar.gz"
    for action in ("s3:GetObject", "s3:GetObjectVersion", "s3:PutObject", "s3:DeleteObject"):
        for resource in (staged, elsewhere):
            assert denied(statements, action, {**tls, "aws:PrincipalArn": POD_ARN}, resource=resource)
            assert denied(
                statements,
                action,
                {**tls, "aws:PrincipalArn": POD_ARN, "aws:SourceVpce": "vpce-other"},
                resource=resource,
            )
            assert not denied(
                statements, action, {**tls, "aws:PrincipalArn": POD_ARN, "aws:SourceVpce": VPCE}, resource=resource
            )
        # The stager is exempt on the prefix it stages, nowhere else.
        assert not denied(statements, action, {**tls, "aws:PrincipalArn": STAGER_ARN}, resource=staged)
        assert denied(statements, action, {**tls, "aws:PrincipalArn": STAGER_ARN}, resource=elsewhere)
    listing = {**tls, "aws:PrincipalArn": STAGER_ARN}
    assert not denied(statements, "s3:ListBucket", {**listing, "s3:prefix": "models/llama/"}, resource=BUCKET_ARN)
    assert denied(statements, "s3:ListBucket", {**listing, "s3:prefix": "compile-cache/"}, resource=BUCKET_ARN)
    assert denied(statements, "s3:ListBucketMultipartUploads", listing, resource=BUCKET_ARN)
    (lock,) = [s for s in statements if s.get("Sid") == "DenyObjectAccessOutsideVpcEndpoint"]
    assert lock["Principal"] == {"AWS": "*"}
    assert lock["NotResource"] == [BUCKET_ARN, f"{BUCKET_ARN}/models/llama/*"]


def test_the_bucket_policy_allows_the_stager_to_upload_under_its_prefix(default):
    _, template, bucket_id = default
    allows = [s for s in resolved_policy(template, bucket_id) if s["Effect"] == "Allow"]
    assert {s["Principal"]["AWS"] for s in allows} == {STAGER_ARN}
    own = f"{BUCKET_ARN}/models/llama/model.safetensors"
    put = [s for s in allows if applies(s, "s3:PutObject", resource=own, principal=STAGER_ARN)]
    assert len(put) == 1
    assert put[0]["Resource"] == f"{BUCKET_ARN}/models/llama/*"
    for action in ("s3:PutObject", "s3:DeleteObject"):
        for resource in (f"{BUCKET_ARN}/models/llama-70b/x", f"{BUCKET_ARN}/compile-cache/llama/k.tar.gz"):
            assert decide(allows, action, resource=resource, principal=STAGER_ARN) == IMPLICIT_DENY
        assert decide(allows, action, resource=own, principal=POD_ARN) == IMPLICIT_DENY
    assert decide(allows, "s3:DeleteObjectVersion", resource=own, principal=STAGER_ARN) == IMPLICIT_DENY
    assert decide(allows, "s3:ListBucketMultipartUploads", resource=BUCKET_ARN, principal=STAGER_ARN) == IMPLICIT_DENY
    listing = {"s3:prefix": "models/llama/"}
    assert decide(allows, "s3:ListBucket", listing, resource=BUCKET_ARN, principal=STAGER_ARN) == ALLOW
    assert (
        decide(allows, "s3:ListBucket", {"s3:prefix": "models/other/"}, resource=BUCKET_ARN, principal=STAGER_ARN)
        == IMPLICIT_DENY
    )


def test_a_listed_stager_without_a_grant_is_exempt_nowhere():
    stack = new_stack()
    stager = iam.Role.from_role_arn(stack, "Stager", STAGER_ARN, mutable=False)
    models = ModelBucket(stack, "ModelBucket", vpc_endpoint=endpoint(stack), stager_principals=[stager])
    bucket_id = stack.get_logical_id(models.bucket.node.default_child)
    statements = resolved_policy(Template.from_stack(stack).to_json(), bucket_id)
    ctx = {"aws:SecureTransport": "true", "aws:PrincipalArn": STAGER_ARN}
    assert denied(statements, "s3:GetObject", ctx, resource=f"{BUCKET_ARN}/models/llama/x")
    assert denied(statements, "s3:ListBucket", {**ctx, "s3:prefix": "models/llama/"}, resource=BUCKET_ARN)


def test_kms_variant_uses_the_key_with_a_bucket_key_and_no_access_logs(with_kms):
    _, template, bucket_id, key_id = with_kms
    props = template["Resources"][bucket_id]["Properties"]
    assert props["BucketEncryption"]["ServerSideEncryptionConfiguration"] == [
        {
            "BucketKeyEnabled": True,
            "ServerSideEncryptionByDefault": {
                "KMSMasterKeyID": {"Fn::GetAtt": [key_id, "Arn"]},
                "SSEAlgorithm": "aws:kms",
            },
        }
    ]
    assert "LoggingConfiguration" not in props
    assert len(resources(template, "AWS::S3::Bucket")) == 1


def test_kms_variant_lets_the_stager_use_the_key_only_through_s3(with_kms):
    _, template, _, key_id = with_kms
    statements = template["Resources"][key_id]["Properties"]["KeyPolicy"]["Statement"]
    (stager,) = [s for s in statements if s["Principal"] == {"AWS": STAGER_ARN}]
    assert sorted(stager["Action"]) == ["kms:Decrypt", "kms:GenerateDataKey"]
    assert stager["Condition"] == {
        "StringEquals": {"kms:ViaService": {"Fn::Join": ["", ["s3.eu-west-1.", {"Ref": "AWS::URLSuffix"}]]}}
    }


def test_read_grant_is_exactly_get_object_and_a_prefix_scoped_listing():
    stack = new_stack()
    models = ModelBucket(stack, "ModelBucket", vpc_endpoint=endpoint(stack), access_logs=False)
    reader = iam.Role(stack, "Reader", assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com"))
    models.grant_read_models(reader, "models/llama/")
    template = Template.from_stack(stack).to_json()
    bucket_id = stack.get_logical_id(models.bucket.node.default_child)
    (policy,) = resources(template, "AWS::IAM::Policy").values()
    assert policy["Properties"]["PolicyDocument"]["Statement"] == [
        {
            "Action": "s3:GetObject",
            "Effect": "Allow",
            "Resource": {"Fn::Join": ["", [{"Fn::GetAtt": [bucket_id, "Arn"]}, "/models/llama/*"]]},
        },
        {
            "Action": "s3:ListBucket",
            "Effect": "Allow",
            "Resource": {"Fn::GetAtt": [bucket_id, "Arn"]},
            "Condition": {"StringLike": {"s3:prefix": ["models/llama/*"]}},
        },
    ]
    assert models.s3_uri("models/llama/") == f"s3://{models.bucket.bucket_name}/models/llama"


def test_imported_key_arn_is_checked_for_its_region():
    stack = new_stack()
    key = kms.Key.from_key_arn(stack, "Key", f"arn:aws:kms:us-east-1:111111111111:key/{KEY_ID}")
    with pytest.raises(FastloadConfigError) as err:
        ModelBucket(stack, "ModelBucket", vpc_endpoint=endpoint(stack), kms_key=key)
    assert err.value.field == "kms_key" and err.value.value == "us-east-1"


def test_key_from_a_stack_in_another_region_is_refused():
    app = cdk.App()
    key_stack = cdk.Stack(app, "Keys", env=cdk.Environment(account="111111111111", region="us-west-2"))
    key = kms.Key(key_stack, "Key")
    stack = cdk.Stack(app, "Models", env=ENV)
    with pytest.raises(FastloadConfigError, match="eu-west-1"):
        ModelBucket(stack, "ModelBucket", vpc_endpoint=endpoint(stack), kms_key=key)


def test_region_agnostic_stacks_cannot_be_checked_and_pass():
    stack = cdk.Stack(cdk.App(), "Agnostic")
    ModelBucket(stack, "ModelBucket", vpc_endpoint=endpoint(stack), kms_key=kms.Key(stack, "Key"))


def test_imported_key_warns_that_stagers_need_key_rights_elsewhere():
    stack = new_stack()
    key = kms.Key.from_key_arn(stack, "Key", f"arn:aws:kms:eu-west-1:111111111111:key/{KEY_ID}")
    stager = iam.Role.from_role_arn(stack, "Stager", STAGER_ARN, mutable=False)
    models = ModelBucket(stack, "ModelBucket", vpc_endpoint=endpoint(stack), kms_key=key, access_logs=False)
    models.grant_stage_models(stager, "models/x")
    Annotations.from_stack(stack).has_warning(
        "/Models/ModelBucket/Bucket", Match.string_like_regexp("kms:GenerateDataKey")
    )


@pytest.mark.parametrize("name", ["Models", "ab", "my..bucket", "192.168.1.1", "bucket-s3alias", "-bucket"])
def test_invalid_bucket_names_are_refused(name):
    stack = new_stack()
    with pytest.raises(FastloadConfigError) as err:
        ModelBucket(stack, "ModelBucket", vpc_endpoint=endpoint(stack), bucket_name=name)
    assert err.value.field == "bucket_name" and err.value.value == name


def test_a_valid_bucket_name_is_used():
    stack = new_stack()
    ModelBucket(stack, "ModelBucket", vpc_endpoint=endpoint(stack), bucket_name="acme-models-eu-west-1")
    Template.from_stack(stack).has_resource_properties("AWS::S3::Bucket", {"BucketName": "acme-models-eu-west-1"})


@pytest.mark.parametrize("prefix", ["/models/llama", "models/../other", ""])
def test_grants_refuse_bad_prefixes(prefix):
    stack = new_stack()
    models = ModelBucket(stack, "ModelBucket", vpc_endpoint=endpoint(stack), access_logs=False)
    reader = iam.Role(stack, "Reader", assumed_by=iam.ServicePrincipal("pods.eks.amazonaws.com"))
    with pytest.raises(FastloadConfigError):
        models.grant_read_models(reader, prefix)
    with pytest.raises(FastloadConfigError):
        models.grant_stage_models(reader, prefix)


def test_logging_opt_out_cannot_name_a_logs_bucket():
    stack = new_stack()
    logs = s3.Bucket.from_bucket_name(stack, "Logs", "acme-logs")
    with pytest.raises(FastloadConfigError) as err:
        ModelBucket(stack, "ModelBucket", vpc_endpoint=endpoint(stack), access_logs=False, access_logs_bucket=logs)
    assert err.value.field == "access_logs_bucket"


def test_noncurrent_expiry_under_a_day_is_refused():
    stack = new_stack()
    with pytest.raises(FastloadConfigError) as err:
        ModelBucket(
            stack, "ModelBucket", vpc_endpoint=endpoint(stack), noncurrent_version_expiration=cdk.Duration.hours(2)
        )
    assert err.value.field == "noncurrent_version_expiration"


def test_templates_have_no_cloudformation_errors(default, with_kms):
    assert lint_errors(default[1]) == []
    assert lint_errors(with_kms[1]) == []
