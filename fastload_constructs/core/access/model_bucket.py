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
    # The temporary upload carries TEMPORARY_OBJECT_TAG, so the bucket's lifecycle rule expires one a
    # killed publisher left; S3 checks PutObjectTagging for a PUT or copy that sets tags.
    "s3:PutObjectTagging",
)
# The tag on temporary objects (a compile-cache archive still being published) and how long a lifecycle
# rule keeps one: a publish takes minutes, so a day-old temporary belongs to a publisher that was killed.
TEMPORARY_OBJECT_TAG = ("fastload-temporary", "true")
TEMPORARY_OBJECT_DAYS = 1
# ListBucketMultipartUploads is not granted: nothing in `fastload stage` lists uploads
# (s3transfer keeps its own upload ids), and the action has no `s3:prefix` condition
# key to confine it to a model (Service Authorization Reference, Amazon S3: only
# ListBucket and ListBucketVersions take s3:prefix), so granting it would show every
# model's pending uploads. The endpoint lock denies it outside the VPC for everyone.
STAGE_BUCKET_ACTIONS = ("s3:ListBucket",)

# SSE-KMS: reading needs Decrypt; writing needs a data key, and multipart
# uploads also Decrypt it to assemble the parts.
KMS_READ_ACTIONS = ("kms:Decrypt",)
KMS_STAGE_ACTIONS = ("kms:Decrypt", "kms:GenerateDataKey")

# What the bucket policy refuses unless the request arrives through the VPC endpoint:
# every object read AND write (a leaked pod credential can neither read weights nor
# write a compile-cache archive from outside the VPC), and every listing. Bucket
# configuration (PutBucketPolicy, ...) stays out, so CloudFormation can still manage
# the bucket. Stagers are exempt only under the prefixes they were granted.
ENDPOINT_LOCKED_OBJECT_ACTIONS = (
    "s3:AbortMultipartUpload",
    "s3:DeleteObject*",
    "s3:GetObject*",
    "s3:ListMultipartUploadParts",
    "s3:PutObject*",
    "s3:RestoreObject",
)


@dataclass(frozen=True)
class StatementSpec:
    """An Allow or Deny statement before it becomes a CDK `PolicyStatement`."""

    sid: str
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    conditions: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    effect: str = "Allow"
    # Set instead of `resources` for a statement that covers everything except these ARNs.
    not_resources: tuple[str, ...] = ()


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
        StatementSpec("ListStagePrefix", STAGE_BUCKET_ACTIONS, (bucket_arn,), listing_condition(prefix)),
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


def endpoint_lock_statements(
    bucket_arn: str, vpc_endpoint_id: str, stager_prefixes: Mapping[str, Sequence[str]] | None = None
) -> list[StatementSpec]:
    """Deny object reads, writes and listings that do not come through `vpc_endpoint_id`.

    `stager_prefixes` maps a model prefix to the principal ARNs exempt there (the
    stagers granted that prefix, who upload from workstations or CI). The exemption
    is per prefix: a stager outside the VPC reaches only its own models, never the
    compile cache or another model. Conditions in one statement are ANDed, so:

    - objects outside every stager prefix: denied outside the endpoint, to everyone
      (`NotResource`: the stager prefixes; the bucket ARN itself is no object);
    - listings: denied outside the endpoint unless `s3:prefix` is under a stager
      prefix (a missing `s3:prefix` counts as "not under": a negated operator holds
      on a missing key), and ListBucketVersions / ListBucketMultipartUploads always;
    - per stager prefix: its objects and its listing denied outside the endpoint to
      every principal but that prefix's stagers.

    `aws:PrincipalArn` of an assumed-role session is the role ARN, so listing a role
    exempts all its sessions (a workstation's SSO or CLI session included).
    """
    exempt = {check_key_prefix(p): tuple(arns) for p, arns in (stager_prefixes or {}).items() if arns}
    outside: dict[str, object] = {"aws:SourceVpce": vpc_endpoint_id}
    prefix_patterns = [f"{p}/*" for p in exempt]
    listing_conditions: dict[str, dict[str, object]] = {"StringNotEquals": dict(outside)}
    if prefix_patterns:
        listing_conditions["StringNotLike"] = {"s3:prefix": prefix_patterns}
    statements = [
        StatementSpec(
            "DenyObjectAccessOutsideVpcEndpoint",
            ENDPOINT_LOCKED_OBJECT_ACTIONS,
            (),
            {"StringNotEquals": dict(outside)},
            effect="Deny",
            not_resources=(bucket_arn, *(objects_under(bucket_arn, p) for p in exempt)),
        ),
        StatementSpec(
            "DenyListingOutsideVpcEndpoint",
            ("s3:ListBucket",),
            (bucket_arn,),
            listing_conditions,
            effect="Deny",
        ),
        StatementSpec(
            "DenyVersionAndUploadListingOutsideVpcEndpoint",
            ("s3:ListBucketMultipartUploads", "s3:ListBucketVersions"),
            (bucket_arn,),
            {"StringNotEquals": dict(outside)},
            effect="Deny",
        ),
    ]
    for index, (prefix, arns) in enumerate(exempt.items()):
        not_stager: dict[str, object] = {"aws:PrincipalArn": list(arns)}
        statements.append(
            StatementSpec(
                f"DenyStagedObjectsOutsideVpcEndpoint{index}",
                ENDPOINT_LOCKED_OBJECT_ACTIONS,
                (objects_under(bucket_arn, prefix),),
                {"StringNotEquals": dict(outside), "ArnNotLike": not_stager},
                effect="Deny",
            )
        )
        statements.append(
            StatementSpec(
                f"DenyStagedListingOutsideVpcEndpoint{index}",
                ("s3:ListBucket",),
                (bucket_arn,),
                {"StringNotEquals": dict(outside), "ArnNotLike": not_stager, **listing_condition(prefix)},
                effect="Deny",
            )
        )
    return statements


def check_key_region(key_region: str | None, bucket_region: str | None) -> None:
    """SSE-KMS needs a key in the bucket's region; `None` means "not known at synth" and passes."""
    if key_region is None or bucket_region is None:
        return
    require(key_region == bucket_region, "kms_key", key_region, f"a KMS key in the bucket's region {bucket_region}")
