"""The model-bucket access rules, checked as plain data without CDK."""

import boto3
import pytest
from botocore.stub import Stubber
from runai_model_streamer_s3.files import files as streamer_files

from fastload_constructs.core.access import model_bucket as access
from fastload_constructs.core.access import pod_identity as pod_identity
from fastload_constructs.core.errors import FastloadConfigError
from tests.iam_eval import ALLOW, DENY, IMPLICIT_DENY, applies, decide, denied

BUCKET = "arn:aws:s3:::models-example"
VPCE = "vpce-0123456789abcdef0"
STAGER = "arn:aws:iam::111111111111:role/model-stager"
POD = "arn:aws:iam::111111111111:role/llama-reader"


def as_policy(spec: access.StatementSpec) -> dict:
    """The JSON shape IAM sees (what the constructs emit)."""
    policy = {
        "Effect": spec.effect,
        "Action": list(spec.actions),
        "Condition": {k: dict(v) for k, v in spec.conditions.items()},
    }
    if spec.not_resources:
        policy["NotResource"] = list(spec.not_resources)
    else:
        policy["Resource"] = list(spec.resources)
    return policy


def test_read_statements_are_get_object_below_the_prefix_and_a_prefix_scoped_listing():
    objects, listing = access.read_models_statements(BUCKET, "models/llama/")
    assert objects.actions == ("s3:GetObject",)
    assert objects.resources == (f"{BUCKET}/models/llama/*",)
    assert objects.conditions == {}
    assert listing.actions == ("s3:ListBucket",)
    assert listing.resources == (BUCKET,)
    # What the Run:ai streamer sends is allowed; the bucket root and a sibling prefix are not.
    policy = as_policy(listing)
    assert applies(policy, "s3:ListBucket", {"s3:prefix": "models/llama/"}, resource=BUCKET)
    assert applies(policy, "s3:ListBucket", {"s3:prefix": "models/llama/config/"}, resource=BUCKET)
    assert not applies(policy, "s3:ListBucket", {"s3:prefix": ""}, resource=BUCKET)
    assert not applies(policy, "s3:ListBucket", {"s3:prefix": "models/llama-70b/"}, resource=BUCKET)
    assert not applies(policy, "s3:ListBucket", {}, resource=BUCKET)
    assert not applies(policy, "s3:ListBucket", {"s3:prefix": "models/llama/"}, resource=BUCKET + "-other")
    read = as_policy(objects)
    assert applies(read, "s3:GetObject", resource=f"{BUCKET}/models/llama/model.safetensors")
    assert not applies(read, "s3:GetObject", resource=f"{BUCKET}/models/llama-70b/model.safetensors")
    assert not applies(read, "s3:PutObject", resource=f"{BUCKET}/models/llama/model.safetensors")


def test_no_statement_uses_wildcard_actions_or_resources():
    specs = (
        access.read_models_statements(BUCKET, "m/x")
        + access.stage_models_statements(BUCKET, "m/x")
        + [
            access.kms_statement(
                "arn:aws:kms:us-east-1:111111111111:key/k", access.KMS_STAGE_ACTIONS, "s3.us-east-1.amazonaws.com"
            )
        ]
    )
    for spec in specs:
        assert all(not a.endswith("*") for a in spec.actions), spec
        assert all(r != "*" for r in spec.resources), spec


def test_staging_can_delete_objects_but_never_erase_versions():
    specs = access.stage_models_statements(BUCKET, "m/x")
    actions = {a for s in specs for a in s.actions}
    assert "s3:PutObject" in actions and "s3:AbortMultipartUpload" in actions
    # `fastload stage` deletes the old manifest first; versioning keeps what is deleted.
    assert [a for a in actions if "Delete" in a] == ["s3:DeleteObject"]
    (objects,) = [s for s in specs if "s3:DeleteObject" in s.actions]
    assert objects.resources == (f"{BUCKET}/m/x/*",)


def test_compile_cache_access_is_confined_to_its_prefix():
    (spec,) = access.compile_cache_statements(BUCKET, "compile-cache/llama")
    assert spec.resources == (f"{BUCKET}/compile-cache/llama/*",)
    # PutObjectTagging: the temporary upload is tagged for the bucket's lifecycle rule, which removes it if abandoned.
    assert set(spec.actions) == {
        "s3:GetObject",
        "s3:PutObject",
        "s3:DeleteObject",
        "s3:AbortMultipartUpload",
        "s3:PutObjectTagging",
    }
    grant = as_policy(spec)
    assert applies(grant, "s3:PutObject", resource=f"{BUCKET}/compile-cache/llama/k.tar.gz")
    assert not applies(grant, "s3:PutObject", resource=f"{BUCKET}/compile-cache/qwen/k.tar.gz")
    assert not applies(grant, "s3:PutObject", resource=f"{BUCKET}/compile-cache/llama-2/k.tar.gz")


@pytest.mark.parametrize(
    "prefix", ["/models/x", "models/../secrets", "", "models//x", "./x", "models/*", "m/${aws:userid}", "m/[x]"]
)
def test_bad_prefixes_are_refused(prefix):
    with pytest.raises(FastloadConfigError) as err:
        access.read_models_statements(BUCKET, prefix)
    assert err.value.field == "prefix"


STAGER_B = "arn:aws:iam::111111111111:role/other-stager"


def lock_policy(exemptions=None) -> list[dict]:
    return [as_policy(s) for s in access.endpoint_lock_statements(BUCKET, VPCE, exemptions)]


def test_endpoint_lock_denies_reads_and_writes_from_outside_the_endpoint():
    statements = lock_policy({"models/llama": [STAGER]})
    inside = {"aws:SourceVpce": VPCE, "aws:PrincipalArn": POD}
    outside = {"aws:PrincipalArn": POD}
    other_vpce = {"aws:SourceVpce": "vpce-0ther", "aws:PrincipalArn": POD}
    for action, resource in (
        ("s3:GetObject", f"{BUCKET}/models/llama/model.safetensors"),
        ("s3:GetObjectVersion", f"{BUCKET}/models/llama/model.safetensors"),
        ("s3:PutObject", f"{BUCKET}/compile-cache/llama/k.tar.gz"),
        ("s3:DeleteObject", f"{BUCKET}/compile-cache/llama/k.tar.gz"),
        ("s3:AbortMultipartUpload", f"{BUCKET}/compile-cache/llama/k.tar.gz"),
        ("s3:PutObjectTagging", f"{BUCKET}/models/llama/config.json"),
    ):
        assert not denied(statements, action, inside, resource=resource), (action, resource)
        assert denied(statements, action, outside, resource=resource), (action, resource)
        assert denied(statements, action, other_vpce, resource=resource), (action, resource)
    for action, prefix in (("s3:ListBucket", "models/llama/"), ("s3:ListBucket", ""), ("s3:ListBucketVersions", "")):
        assert not denied(statements, action, {**inside, "s3:prefix": prefix}, resource=BUCKET)
        assert denied(statements, action, {**outside, "s3:prefix": prefix}, resource=BUCKET)
    # Bucket configuration stays manageable by CloudFormation from anywhere.
    assert not denied(statements, "s3:PutBucketPolicy", outside, resource=BUCKET)


def test_stager_exemption_covers_only_its_own_prefixes():
    statements = lock_policy({"models/llama": [STAGER], "models/qwen": [STAGER_B]})
    own = f"{BUCKET}/models/llama/model.safetensors"
    for action in ("s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:ListMultipartUploadParts"):
        assert not denied(statements, action, {"aws:PrincipalArn": STAGER}, resource=own)
        # Another model's prefix, the compile cache and an unstaged prefix stay locked to the endpoint.
        for resource in (
            f"{BUCKET}/models/qwen/model.safetensors",
            f"{BUCKET}/compile-cache/llama/k.tar.gz",
            f"{BUCKET}/models/llama-70b/x",
            f"{BUCKET}/other",
        ):
            assert denied(statements, action, {"aws:PrincipalArn": STAGER}, resource=resource), (action, resource)
        # A non-stager gets nothing from the exemption.
        assert denied(statements, action, {"aws:PrincipalArn": POD}, resource=own)
    listing = {"aws:PrincipalArn": STAGER}
    assert not denied(statements, "s3:ListBucket", {**listing, "s3:prefix": "models/llama/"}, resource=BUCKET)
    for prefix in ("models/qwen/", "", "models/", "compile-cache/"):
        assert denied(statements, "s3:ListBucket", {**listing, "s3:prefix": prefix}, resource=BUCKET), prefix
    assert denied(statements, "s3:ListBucket", listing, resource=BUCKET)  # no prefix: the whole bucket
    assert denied(statements, "s3:ListBucketMultipartUploads", listing, resource=BUCKET)
    assert denied(statements, "s3:ListBucketVersions", {**listing, "s3:prefix": "models/llama/"}, resource=BUCKET)
    assert denied(statements, "s3:ListBucket", {"aws:PrincipalArn": POD, "s3:prefix": "models/llama/"}, resource=BUCKET)


def test_endpoint_lock_without_stagers_has_no_exception():
    statements = lock_policy()
    assert all("ArnNotLike" not in s["Condition"] for s in statements)
    assert denied(statements, "s3:GetObject", {"aws:PrincipalArn": STAGER}, resource=f"{BUCKET}/models/llama/x")
    assert denied(statements, "s3:ListBucket", {"aws:PrincipalArn": STAGER, "s3:prefix": "m/"}, resource=BUCKET)


def test_a_widened_grant_fails_the_evaluator():
    """The evaluator checks resources and conditions: a grant one wildcard wider is caught."""
    objects, listing = (as_policy(s) for s in access.read_models_statements(BUCKET, "models/llama"))
    widened_objects = {**objects, "Resource": [f"{BUCKET}/models/*"]}
    widened_listing = {**listing, "Condition": {"StringLike": {"s3:prefix": ["models/*"]}}}
    neighbour = f"{BUCKET}/models/qwen/model.safetensors"
    assert decide([objects, listing], "s3:GetObject", resource=neighbour) == IMPLICIT_DENY
    assert decide([widened_objects, listing], "s3:GetObject", resource=neighbour) == ALLOW
    request = {"s3:prefix": "models/qwen/"}
    assert decide([objects, listing], "s3:ListBucket", request, resource=BUCKET) == IMPLICIT_DENY
    assert decide([objects, widened_listing], "s3:ListBucket", request, resource=BUCKET) == ALLOW
    # An explicit deny wins over the allow.
    lock = lock_policy()
    assert decide([objects, *lock], "s3:GetObject", resource=f"{BUCKET}/models/llama/x") == DENY


def test_pod_identity_trust_pins_account_cluster_namespace_and_service_account():
    cluster_arn = "arn:aws:eks:eu-west-1:111111111111:cluster/c"
    conditions = pod_identity.pod_identity_trust_conditions(
        cluster_arn=cluster_arn, namespace="inference", service_account="llama-vllm"
    )
    trust = {
        "Effect": "Allow",
        "Action": ["sts:AssumeRole", "sts:TagSession"],
        "Resource": "*",
        "Condition": conditions,
    }
    # What Pod Identity documents sending: the session tags (pod-id-role, pod-id-abac).
    own = {
        "aws:RequestTag/eks-cluster-arn": cluster_arn,
        "aws:RequestTag/eks-cluster-name": "c",
        "aws:RequestTag/kubernetes-namespace": "inference",
        "aws:RequestTag/kubernetes-service-account": "llama-vllm",
        "aws:RequestTag/kubernetes-pod-name": "llama-abc",
        "aws:RequestTag/kubernetes-pod-uid": "0b6c1f0e-1111-2222-3333-444455556666",
    }
    assert applies(trust, "sts:AssumeRole", own, resource="*")
    # Whatever EKS sends (or not) as aws:SourceArn or aws:SourceAccount, the trust does not depend on it.
    for source_arn in ("arn:aws:eks:eu-west-1:111111111111:podidentityassociation/c/a-1", cluster_arn):
        assert applies(trust, "sts:AssumeRole", {**own, "aws:SourceArn": source_arn}, resource="*")
    assert "aws:Source" not in str(conditions)
    for key, value in (
        # Another account's cluster of the same name (confused deputy): its ARN names its account.
        ("aws:RequestTag/eks-cluster-arn", "arn:aws:eks:eu-west-1:222222222222:cluster/c"),
        ("aws:RequestTag/eks-cluster-arn", "arn:aws:eks:eu-west-1:111111111111:cluster/other"),
        ("aws:RequestTag/kubernetes-service-account", "qwen-vllm"),
        ("aws:RequestTag/kubernetes-namespace", "default"),
    ):
        assert not applies(trust, "sts:AssumeRole", {**own, key: value}, resource="*"), key
    for missing in ("aws:RequestTag/eks-cluster-arn", "aws:RequestTag/kubernetes-namespace"):
        assert not applies(trust, "sts:AssumeRole", {k: v for k, v in own.items() if k != missing}, resource="*")


def test_kms_use_is_only_through_s3():
    spec = access.kms_statement("arn:aws:kms:eu-west-1:1:key/k", access.KMS_READ_ACTIONS, "s3.eu-west-1.amazonaws.com")
    assert spec.actions == ("kms:Decrypt",)
    assert spec.conditions == {"StringEquals": {"kms:ViaService": "s3.eu-west-1.amazonaws.com"}}


def test_key_region_must_match_when_both_are_known():
    access.check_key_region("eu-west-1", "eu-west-1")
    access.check_key_region(None, "eu-west-1")
    access.check_key_region("eu-west-1", None)
    with pytest.raises(FastloadConfigError) as err:
        access.check_key_region("us-west-2", "eu-west-1")
    assert err.value.field == "kms_key" and "eu-west-1" in err.value.accepted


def test_the_streamers_own_listing_and_reads_fit_the_read_grant():
    """Drive the Run:ai streamer's S3 file listing against a stubbed client (no network) and
    check every request it makes is allowed by the read statements."""
    client = boto3.client("s3", region_name="eu-west-1", aws_access_key_id="test", aws_secret_access_key="test")
    requests: list[dict] = []
    client.meta.events.register(
        "provide-client-params.s3.ListObjectsV2", lambda params, **_: requests.append(dict(params))
    )
    keys = ["models/llama/config.json", "models/llama/model-00001-of-00002.safetensors"]
    with Stubber(client) as stub:
        stub.add_response("list_objects_v2", {"Contents": [{"Key": k} for k in keys], "IsTruncated": False})
        bucket, _base, listed = streamer_files.list_files(client, "s3://models-example/models/llama", recursive=True)
    assert (bucket, listed) == ("models-example", keys)
    objects, listing = [as_policy(s) for s in access.read_models_statements(BUCKET, "models/llama")]
    (request,) = requests
    assert applies(listing, "s3:ListBucket", {"s3:prefix": request["Prefix"]}, resource=BUCKET)
    for key in listed:
        assert applies(objects, "s3:GetObject", resource=f"{BUCKET}/{key}")
