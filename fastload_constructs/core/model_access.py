"""The IAM statements behind model-bucket access, as plain data.

Which actions a reader or a stager gets, on which ARNs and under which
conditions, is decided here without CDK, so the rules are testable on their
own and the constructs only turn them into `PolicyStatement`s. ARNs may be CDK
tokens: they are only concatenated, never parsed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from fastload_constructs.core.errors import require
from fastload_constructs.core.validation import check_key_prefix

# What an inference pod needs: HEAD and ranged GETs (both s3:GetObject) on the
# weights, and a listing of the model's "directory". The Run:ai streamer lists
# with Prefix='<prefix>/' (runai_model_streamer_s3.files.list_files).
READ_OBJECT_ACTIONS = ("s3:GetObject",)
LIST_ACTIONS = ("s3:ListBucket",)

# What staging needs: multipart uploads (large safetensors shards), reading
# back what was written, and DeleteObject: `fastload stage` removes the old
# manifest before it changes a staged model (so a half-changed model never has
# one) and `--delete-stale` removes files the model no longer has. Versioning
# turns those deletes into delete markers; DeleteObjectVersion, which would
# erase history for good, stays an operator's decision.
STAGE_OBJECT_ACTIONS = (
    "s3:AbortMultipartUpload",
    "s3:DeleteObject",
    "s3:GetObject",
    "s3:ListMultipartUploadParts",
    "s3:PutObject",
)
# What the vLLM pods need for a shared compile cache: read archives, write a
# temporary upload, copy it into place (GetObject + PutObject) and delete the
# temporary key. Only under the cache prefix.
COMPILE_CACHE_OBJECT_ACTIONS = (
    "s3:AbortMultipartUpload",
    "s3:DeleteObject",
    "s3:GetObject",
    "s3:PutObject",
)
STAGE_BUCKET_ACTIONS = ("s3:ListBucket", "s3:ListBucketMultipartUploads")

# SSE-KMS: reading needs Decrypt; writing needs a data key, and multipart
# uploads also Decrypt it to assemble the parts.
KMS_READ_ACTIONS = ("kms:Decrypt",)
KMS_STAGE_ACTIONS = ("kms:Decrypt", "kms:GenerateDataKey")

# The reads (and listings) the bucket policy refuses unless they arrive
# through the VPC endpoint.
ENDPOINT_LOCKED_ACTIONS = (
    "s3:GetObject",
    "s3:GetObjectAttributes",
    "s3:GetObjectVersion",
    "s3:GetObjectVersionAttributes",
    "s3:ListBucket",
    "s3:ListBucketVersions",
)


@dataclass(frozen=True)
class StatementSpec:
    """An Allow or Deny statement before it becomes a CDK `PolicyStatement`."""

    sid: str
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    conditions: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    effect: str = "Allow"


def objects_under(bucket_arn: str, prefix: str) -> str:
    """The object ARN pattern for every key below `prefix/`."""
    return f"{bucket_arn}/{check_key_prefix(prefix)}/*"


def listing_condition(prefix: str) -> dict[str, dict[str, object]]:
    """Allow ListBucket only for request prefixes at or below `prefix/`.

    `prefix/*` also matches `prefix/` itself, which is what the streamer sends.
    A bare `prefix` (no slash) is refused on purpose: it would also list
    sibling keys such as `prefix-other/...`.
    """
    return {"StringLike": {"s3:prefix": [f"{check_key_prefix(prefix)}/*"]}}


def read_models_statements(bucket_arn: str, prefix: str) -> list[StatementSpec]:
    """Read-only access to one model prefix: GetObject below it, ListBucket limited to it."""
    return [
        StatementSpec("ReadModelObjects", READ_OBJECT_ACTIONS, (objects_under(bucket_arn, prefix),)),
        StatementSpec("ListModelPrefix", LIST_ACTIONS, (bucket_arn,), listing_condition(prefix)),
    ]


def stage_models_statements(bucket_arn: str, prefix: str) -> list[StatementSpec]:
    """Upload access to one model prefix, including multipart uploads and reading back."""
    return [
        StatementSpec("StageModelObjects", STAGE_OBJECT_ACTIONS, (objects_under(bucket_arn, prefix),)),
        StatementSpec("ListStagePrefix", ("s3:ListBucket",), (bucket_arn,), listing_condition(prefix)),
        StatementSpec("ListStageUploads", ("s3:ListBucketMultipartUploads",), (bucket_arn,)),
    ]


def compile_cache_statements(bucket_arn: str, prefix: str) -> list[StatementSpec]:
    """Read and publish compile-cache archives under `prefix`; nothing else in the bucket."""
    return [StatementSpec("ShareCompileCache", COMPILE_CACHE_OBJECT_ACTIONS, (objects_under(bucket_arn, prefix),))]


def kms_statement(key_arn: str, actions: Sequence[str], s3_service: str) -> StatementSpec:
    """Use of the bucket key, and only through S3 (`kms:ViaService`), never directly."""
    return StatementSpec(
        "UseModelBucketKey",
        tuple(actions),
        (key_arn,),
        {"StringEquals": {"kms:ViaService": s3_service}},
    )


def endpoint_lock_statement(
    bucket_arn: str, vpc_endpoint_id: str, exempt_principal_arns: Sequence[str] = ()
) -> StatementSpec:
    """Deny reads that do not come through `vpc_endpoint_id`, except for the exempt principals.

    Conditions in one statement are ANDed, so the deny applies only when the
    request is not from the endpoint AND the caller is not an exempt
    principal. `aws:PrincipalArn` of an assumed-role session is the role ARN,
    so listing a role exempts all its sessions (a workstation's SSO or CLI
    session included).
    """
    conditions: dict[str, dict[str, object]] = {"StringNotEquals": {"aws:SourceVpce": vpc_endpoint_id}}
    if exempt_principal_arns:
        conditions["ArnNotLike"] = {"aws:PrincipalArn": list(exempt_principal_arns)}
    return StatementSpec(
        "DenyModelReadsOutsideVpcEndpoint",
        ENDPOINT_LOCKED_ACTIONS,
        (bucket_arn, f"{bucket_arn}/*"),
        conditions,
        effect="Deny",
    )


def check_key_region(key_region: str | None, bucket_region: str | None) -> None:
    """SSE-KMS needs a key in the bucket's region; `None` means "not known at synth" and passes."""
    if key_region is None or bucket_region is None:
        return
    require(key_region == bucket_region, "kms_key", key_region, f"a KMS key in the bucket's region {bucket_region}")
