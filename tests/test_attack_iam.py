"""IAM attacks on the synthesized reference stack: across models, from outside the endpoint, by a stager.

The reference app with two models sharing the compile cache and one stager is
synthesized; each request is decided over the role's own policies plus the
model bucket's policy (same account: an explicit Deny wins, else any Allow),
with resources and conditions evaluated (`tests/iam_eval.py`).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from aws_cdk.assertions import Template

from app import build_app
from tests.iam_eval import ALLOW, DENY, IMPLICIT_DENY, applies, decide, resolve
from tests.pod_identity_context import pod_identity_request, source_arn_guesses

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]
STAGER = "arn:aws:iam::123456789012:role/model-stager"
BUCKET = "arn:aws:s3:::models"
VPCE = "vpce-0123456789abcdef0"
MODELS = {"llama": "models/llama", "qwen": "models/qwen"}
CLUSTER_ARN = "arn:aws:eks:us-west-2:123456789012:cluster/FastloadReference"


@pytest.fixture(scope="module")
def policies(tmp_path_factory):
    ctx = copy.deepcopy(CDK_JSON)
    base = ctx["fastload:models"][0]
    ctx["fastload:models"] = [dict(base, name=n, s3Prefix=p, sharedCompileCache=True) for n, p in MODELS.items()]
    ctx["fastload:stagerRoleArns"] = [STAGER]
    app = build_app(context=ctx, outdir=str(tmp_path_factory.mktemp("cdk.out")))
    (stack,) = [c for c in app.node.children if c.node.id == "FastloadReference"]
    template = Template.from_json(app.synth().get_stack_by_name("FastloadReference").template).to_json()
    bucket_id = stack.get_logical_id(stack.model_bucket.bucket.node.default_child)
    endpoint_id = stack.get_logical_id(stack.network.s3_endpoint.node.default_child)
    role_ids = {n: stack.get_logical_id(r.role.node.default_child) for n, r in stack.model_readers.items()}
    cluster_id = stack.get_logical_id(stack.cluster.node.default_child)
    refs = {
        f"{bucket_id}.Arn": BUCKET,
        bucket_id: "models",
        endpoint_id: VPCE,
        f"{cluster_id}.Arn": CLUSTER_ARN,
        "AWS::AccountId": "123456789012",
    }
    refs.update({f"{rid}.Arn": f"arn:aws:iam::123456789012:role/{n}-reader" for n, rid in role_ids.items()})
    resources = template["Resources"]
    (bucket_policy,) = [
        r
        for r in resources.values()
        if r["Type"] == "AWS::S3::BucketPolicy" and r["Properties"]["Bucket"] == {"Ref": bucket_id}
    ]
    roles = {
        name: resolve(
            [
                s
                for r in resources.values()
                if r["Type"] == "AWS::IAM::Policy" and {"Ref": rid} in r["Properties"]["Roles"]
                for s in r["Properties"]["PolicyDocument"]["Statement"]
            ],
            refs,
        )
        for name, rid in role_ids.items()
    }
    trusts = {
        name: resolve(resources[rid]["Properties"]["AssumeRolePolicyDocument"]["Statement"], refs)
        for name, rid in role_ids.items()
    }
    return {
        "bucket": resolve(bucket_policy["Properties"]["PolicyDocument"]["Statement"], refs),
        "roles": roles,
        "trusts": trusts,
    }


def pod(policies, model: str, action: str, resource: str, *, inside: bool = True, prefix: str | None = None) -> str:
    arn = f"arn:aws:iam::123456789012:role/{model}-reader"
    context = {"aws:SecureTransport": "true", "aws:PrincipalArn": arn}
    if inside:
        context["aws:SourceVpce"] = VPCE
    if prefix is not None:
        context["s3:prefix"] = prefix
    return decide([*policies["roles"][model], *policies["bucket"]], action, context, resource=resource, principal=arn)


def stager(policies, action: str, resource: str, prefix: str | None = None) -> str:
    context = {"aws:SecureTransport": "true", "aws:PrincipalArn": STAGER}  # from a workstation: no endpoint
    if prefix is not None:
        context["s3:prefix"] = prefix
    return decide(policies["bucket"], action, context, resource=resource, principal=STAGER)


def test_a_pod_reads_its_own_model_and_writes_only_its_own_cache_folder(policies):
    assert pod(policies, "llama", "s3:GetObject", f"{BUCKET}/models/llama/model.safetensors") == ALLOW
    assert pod(policies, "llama", "s3:ListBucket", BUCKET, prefix="models/llama/") == ALLOW
    for action in ("s3:PutObject", "s3:GetObject", "s3:DeleteObject"):
        assert pod(policies, "llama", action, f"{BUCKET}/compile-cache/llama/key.tar.gz") == ALLOW


@pytest.mark.parametrize(
    "action, resource",
    [
        ("s3:GetObject", f"{BUCKET}/models/qwen/model.safetensors"),  # another model's weights
        ("s3:PutObject", f"{BUCKET}/compile-cache/qwen/key.tar.gz"),  # another model's cache
        ("s3:DeleteObject", f"{BUCKET}/compile-cache/qwen/key.tar.gz"),
        ("s3:GetObject", f"{BUCKET}/compile-cache/qwen/key.tar.gz"),
        ("s3:PutObject", f"{BUCKET}/compile-cache/key.tar.gz"),  # the shared root of the cache prefix
        ("s3:PutObject", f"{BUCKET}/models/llama/model.safetensors"),  # its own weights stay read-only
        ("s3:DeleteObject", f"{BUCKET}/models/llama/config.json"),
        ("s3:DeleteObjectVersion", f"{BUCKET}/compile-cache/llama/key.tar.gz"),
        ("s3:PutBucketPolicy", BUCKET),
    ],
)
def test_a_pod_cannot_reach_across_models(policies, action, resource):
    assert pod(policies, "llama", action, resource) in (IMPLICIT_DENY, DENY)


@pytest.mark.parametrize("prefix", ["models/qwen/", "models/", "", "compile-cache/"])
def test_a_pod_cannot_list_beyond_its_model(policies, prefix):
    assert pod(policies, "llama", "s3:ListBucket", BUCKET, prefix=prefix) == IMPLICIT_DENY


@pytest.mark.parametrize(
    "action, resource",
    [
        ("s3:GetObject", f"{BUCKET}/models/llama/model.safetensors"),
        ("s3:PutObject", f"{BUCKET}/compile-cache/llama/key.tar.gz"),
        ("s3:DeleteObject", f"{BUCKET}/compile-cache/llama/key.tar.gz"),
        ("s3:GetObject", f"{BUCKET}/compile-cache/llama/key.tar.gz"),
    ],
)
def test_a_leaked_pod_credential_is_useless_outside_the_vpc(policies, action, resource):
    assert pod(policies, "llama", action, resource, inside=False) == DENY


def test_the_stager_reaches_only_its_models_from_outside(policies):
    for model, prefix in MODELS.items():
        assert stager(policies, "s3:PutObject", f"{BUCKET}/{prefix}/model.safetensors") == ALLOW
        assert stager(policies, "s3:DeleteObject", f"{BUCKET}/{prefix}/fastload-manifest.json") == ALLOW
        assert stager(policies, "s3:ListBucket", BUCKET, prefix=f"{prefix}/") == ALLOW
        assert stager(policies, "s3:PutObject", f"{BUCKET}/compile-cache/{model}/k.tar.gz") == DENY
    assert stager(policies, "s3:PutObject", f"{BUCKET}/models/other/model.safetensors") == DENY
    assert stager(policies, "s3:ListBucket", BUCKET, prefix="compile-cache/") == DENY
    assert stager(policies, "s3:ListBucket", BUCKET) == DENY
    assert stager(policies, "s3:ListBucketMultipartUploads", BUCKET) == DENY
    assert stager(policies, "s3:DeleteObjectVersion", f"{BUCKET}/models/llama/model.safetensors") == IMPLICIT_DENY


def test_one_models_service_account_cannot_assume_the_others_role(policies):
    (trust,) = policies["trusts"]["llama"]
    conditions = trust["Condition"]
    assert set(conditions) == {"StringEquals"}  # no condition on an undocumented key (aws:SourceArn)
    own = pod_identity_request(
        account="123456789012",
        region="us-west-2",
        cluster="FastloadReference",
        namespace="inference",
        service_account="llama-vllm",
    )
    for request in source_arn_guesses(own):
        assert applies(trust, "sts:AssumeRole", request, resource="*")
    assert not applies(
        trust, "sts:AssumeRole", {**own, "aws:RequestTag/kubernetes-service-account": "qwen-vllm"}, resource="*"
    )
    other_account = own["aws:RequestTag/eks-cluster-arn"].replace("123456789012", "999999999999")
    assert not applies(trust, "sts:AssumeRole", {**own, "aws:RequestTag/eks-cluster-arn": other_account}, resource="*")
