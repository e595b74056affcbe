"""The model-bucket access rules, checked as plain data without CDK."""

from fnmatch import fnmatchcase

import boto3
import pytest
from botocore.stub import Stubber
from runai_model_streamer_s3.files import files as streamer_files

from fastload_constructs.core import model_access as access
from fastload_constructs.core.errors import FastloadConfigError
from tests.iam_eval import applies, denied

BUCKET = "arn:aws:s3:::models-example"
VPCE = "vpce-0123456789abcdef0"
STAGER = "arn:aws:iam::111111111111:role/model-stager"
POD = "arn:aws:iam::111111111111:role/llama-reader"


def as_policy(spec: access.StatementSpec) -> dict:
    """The JSON shape IAM sees (what the constructs emit)."""
    return {
        "Effect": spec.effect,
        "Action": list(spec.actions),
        "Resource": list(spec.resources),
        "Condition": {k: dict(v) for k, v in spec.conditions.items()},
    }


def test_read_statements_are_get_object_below_the_prefix_and_a_prefix_scoped_listing():
    objects, listing = access.read_models_statements(BUCKET, "models/llama/")
    assert objects.actions == ("s3:GetObject",)
    assert objects.resources == (f"{BUCKET}/models/llama/*",)
    assert objects.conditions == {}
    assert listing.actions == ("s3:ListBucket",)
    assert listing.resources == (BUCKET,)
    # What the Run:ai streamer sends is allowed; the bucket root and a sibling prefix are not.
    policy = as_policy(listing)
    assert applies(policy, "s3:ListBucket", {"s3:prefix": "models/llama/"})
    assert applies(policy, "s3:ListBucket", {"s3:prefix": "models/llama/config/"})
    assert not applies(policy, "s3:ListBucket", {"s3:prefix": ""})
    assert not applies(policy, "s3:ListBucket", {"s3:prefix": "models/llama-70b/"})
    assert not applies(policy, "s3:ListBucket", {})


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
    (spec,) = access.compile_cache_statements(BUCKET, "compile-cache")
    assert spec.resources == (f"{BUCKET}/compile-cache/*",)
    assert set(spec.actions) == {"s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"}


@pytest.mark.parametrize("prefix", ["/models/x", "models/../secrets", "", "models//x", "./x"])
def test_bad_prefixes_are_refused(prefix):
    with pytest.raises(FastloadConfigError) as err:
        access.read_models_statements(BUCKET, prefix)
    assert err.value.field == "prefix"


def test_endpoint_lock_denies_reads_from_outside_the_endpoint_except_for_stagers():
    lock = as_policy(access.endpoint_lock_statement(BUCKET, VPCE, [STAGER]))
    statements = [lock]
    inside = {"aws:SourceVpce": VPCE, "aws:PrincipalArn": POD}
    outside = {"aws:PrincipalArn": POD}
    other_vpce = {"aws:SourceVpce": "vpce-0ther", "aws:PrincipalArn": POD}
    stager_outside = {"aws:PrincipalArn": STAGER}
    for action in ("s3:GetObject", "s3:GetObjectVersion", "s3:ListBucket"):
        assert not denied(statements, action, inside)
        assert denied(statements, action, outside)
        assert denied(statements, action, other_vpce)
        assert not denied(statements, action, stager_outside)
    # Uploads are not what the lock is about: a stager uploads from anywhere.
    assert not denied(statements, "s3:PutObject", outside)
    assert lock["Resource"] == [BUCKET, f"{BUCKET}/*"]


def test_endpoint_lock_without_stagers_has_no_exception():
    lock = as_policy(access.endpoint_lock_statement(BUCKET, VPCE))
    assert "ArnNotLike" not in lock["Condition"]
    assert denied([lock], "s3:GetObject", {"aws:PrincipalArn": STAGER})


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
    assert applies(listing, "s3:ListBucket", {"s3:prefix": request["Prefix"]})
    for key in listed:
        assert any(fnmatchcase(f"{BUCKET}/{key}", pattern) for pattern in objects["Resource"])
