"""Limits CloudFormation and IAM enforce at deploy time, each with its source.

IAM policy sizes count characters without whitespace (IAM User Guide, "IAM and AWS STS
quotas": "IAM does not count white space when calculating the size of a policy").
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

IAM_QUOTAS = "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html"
CFN_QUOTAS = "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-limits.html"
SQS_QUOTAS = "https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-queues.html"
S3_POLICY = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucket-policies.html"
S3_NAMES = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html"
EKS_NODEGROUP = "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateNodegroup.html"
EKS_CLUSTER = "https://docs.aws.amazon.com/eks/latest/APIReference/API_CreateCluster.html"
LAMBDA_QUOTAS = "https://docs.aws.amazon.com/lambda/latest/api/API_CreateFunction.html"
EVENTS_RULE = "https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutRule.html"

ROLE_NAME_MAX = 64
TRUST_POLICY_MAX = 2_048  # default quota, "Role trust policy length" (adjustable up to 8,192)
MANAGED_POLICY_MAX = 6_144
INLINE_POLICIES_PER_ROLE_MAX = 10_240
TEMPLATE_BODY_MAX = 1_000_000  # template uploaded to S3 (CDK does); 51,200 bytes when passed inline
RESOURCES_MAX = 500
OUTPUTS_MAX = 200
BUCKET_POLICY_MAX = 20 * 1024


def policy_size(document: Any) -> int:
    return len(re.sub(r"\s", "", json.dumps(document, separators=(",", ":"))))


def _name(value: Any, pattern: str, max_length: int, what: str, source: str) -> list[str]:
    if not isinstance(value, str) or len(value) > max_length or not re.fullmatch(pattern, value):
        return [f"{what} {value!r}: must match {pattern} and be at most {max_length} characters ({source})"]
    return []


def check(template: Mapping[str, Any], resources: Mapping[str, Mapping[str, Any]], ref: Any) -> list[str]:
    """Every limit below on the resolved resources; `ref(logical_id)` gives a resource's resolved Ref."""
    problems = []
    body = json.dumps(template, indent=1)
    if len(body.encode()) > TEMPLATE_BODY_MAX:
        problems.append(f"template body is {len(body.encode())} bytes > {TEMPLATE_BODY_MAX} ({CFN_QUOTAS})")
    if len(template["Resources"]) > RESOURCES_MAX:
        problems.append(f"{len(template['Resources'])} resources > {RESOURCES_MAX} ({CFN_QUOTAS})")
    if len(template.get("Outputs", {})) > OUTPUTS_MAX:
        problems.append(f"{len(template['Outputs'])} outputs > {OUTPUTS_MAX} ({CFN_QUOTAS})")
    inline: dict[str, int] = {}
    for logical_id, r in resources.items():
        props, kind = r["Properties"], r["Type"]
        if kind == "AWS::IAM::Role":
            problems += _name(ref(logical_id), r"[\w+=,.@-]+", ROLE_NAME_MAX, f"IAM role {logical_id} name", IAM_QUOTAS)
            size = policy_size(props["AssumeRolePolicyDocument"])
            if size > TRUST_POLICY_MAX:
                problems.append(
                    f"IAM role {logical_id}: trust policy {size} characters > {TRUST_POLICY_MAX} ({IAM_QUOTAS})"
                )
            inline[ref(logical_id)] = inline.get(ref(logical_id), 0) + sum(
                policy_size(p["PolicyDocument"]) for p in props.get("Policies", [])
            )
        elif kind == "AWS::IAM::ManagedPolicy":
            size = policy_size(props["PolicyDocument"])
            if size > MANAGED_POLICY_MAX:
                problems.append(f"managed policy {logical_id}: {size} characters > {MANAGED_POLICY_MAX} ({IAM_QUOTAS})")
        elif kind == "AWS::IAM::Policy":
            for role in props.get("Roles", []):
                inline[role] = inline.get(role, 0) + policy_size(props["PolicyDocument"])
        elif kind == "AWS::SQS::Queue":
            problems += _name(
                ref(logical_id).rsplit("/", 1)[-1], r"[A-Za-z0-9_-]+", 80, f"SQS queue {logical_id}", SQS_QUOTAS
            )
        elif kind == "AWS::S3::Bucket":
            problems += _name(
                ref(logical_id), r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]", 63, f"S3 bucket {logical_id}", S3_NAMES
            )
        elif kind == "AWS::S3::BucketPolicy":
            size = len(json.dumps(props["PolicyDocument"], separators=(",", ":")).encode())
            if size > BUCKET_POLICY_MAX:
                problems.append(f"bucket policy {logical_id}: {size} bytes > {BUCKET_POLICY_MAX} ({S3_POLICY})")
        elif kind == "AWS::EKS::Nodegroup":
            name = ref(logical_id).split("/", 1)[1]
            problems += _name(
                name, r"[0-9A-Za-z][A-Za-z0-9_-]*", 63, f"EKS node group {logical_id} name", EKS_NODEGROUP
            )
        elif kind == "AWS::EKS::Cluster":
            problems += _name(
                ref(logical_id), r"[0-9A-Za-z][A-Za-z0-9_-]*", 100, f"EKS cluster {logical_id}", EKS_CLUSTER
            )
        elif kind == "AWS::Lambda::Function":
            problems += _name(ref(logical_id), r"[a-zA-Z0-9_-]+", 64, f"Lambda function {logical_id}", LAMBDA_QUOTAS)
        elif kind == "AWS::Events::Rule":
            problems += _name(ref(logical_id), r"[.\-_A-Za-z0-9]+", 64, f"EventBridge rule {logical_id}", EVENTS_RULE)
    for role, size in inline.items():
        if size > INLINE_POLICIES_PER_ROLE_MAX:
            problems.append(
                f"IAM role {role}: inline policies {size} characters > {INLINE_POLICIES_PER_ROLE_MAX} ({IAM_QUOTAS})"
            )
    return problems
