"""Limits CloudFormation and IAM enforce at deploy time, each with its source.

IAM policy sizes count characters without whitespace (IAM User Guide, "IAM and AWS STS
quotas": "IAM does not count white space when calculating the size of a policy").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
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
PARAMETERS_MAX = 200
BUCKET_POLICY_MAX = 20 * 1024


def policy_size(document: Any) -> int:
    return len(re.sub(r"\s", "", json.dumps(document, separators=(",", ":"))))


def _name(value: Any, pattern: str, max_length: int, what: str, source: str) -> list[str]:
    if not isinstance(value, str) or len(value) > max_length or not re.fullmatch(pattern, value):
        return [f"{what} {value!r}: must match {pattern} and be at most {max_length} characters ({source})"]
    return []


@dataclass(frozen=True)
class NameRule:
    """A physical name's rule: the name within the resource's resolved Ref, its pattern and length, its source."""

    name_of: Callable[[str], str]
    pattern: str
    most: int
    what: str  # with {} for the logical id
    source: str


def _whole(ref: str) -> str:
    return ref


NAME_RULES = {
    "AWS::IAM::Role": NameRule(_whole, r"[\w+=,.@-]+", ROLE_NAME_MAX, "IAM role {} name", IAM_QUOTAS),
    "AWS::SQS::Queue": NameRule(lambda r: r.rsplit("/", 1)[-1], r"[A-Za-z0-9_-]+", 80, "SQS queue {}", SQS_QUOTAS),
    "AWS::S3::Bucket": NameRule(_whole, r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]", 63, "S3 bucket {}", S3_NAMES),
    "AWS::EKS::Nodegroup": NameRule(
        lambda r: r.split("/", 1)[1], r"[0-9A-Za-z][A-Za-z0-9_-]*", 63, "EKS node group {} name", EKS_NODEGROUP
    ),
    "AWS::EKS::Cluster": NameRule(_whole, r"[0-9A-Za-z][A-Za-z0-9_-]*", 100, "EKS cluster {}", EKS_CLUSTER),
    "AWS::Lambda::Function": NameRule(_whole, r"[a-zA-Z0-9_-]+", 64, "Lambda function {}", LAMBDA_QUOTAS),
    "AWS::Events::Rule": NameRule(_whole, r"[.\-_A-Za-z0-9]+", 64, "EventBridge rule {}", EVENTS_RULE),
}


def check(template: Mapping[str, Any], resources: Mapping[str, Mapping[str, Any]], ref: Any) -> list[str]:
    """Every limit below on the resolved resources; `ref(logical_id)` gives a resource's resolved Ref."""
    problems = _template_problems(template)
    for logical_id, r in resources.items():
        rule = NAME_RULES.get(r["Type"])
        if rule is not None:
            name = rule.name_of(ref(logical_id))
            problems += _name(name, rule.pattern, rule.most, rule.what.format(logical_id), rule.source)
        problems += _policy_problems(logical_id, r["Type"], r["Properties"])
    for role, size in _inline_policy_sizes(resources, ref).items():
        if size > INLINE_POLICIES_PER_ROLE_MAX:
            problems.append(
                f"IAM role {role}: inline policies {size} characters > {INLINE_POLICIES_PER_ROLE_MAX} ({IAM_QUOTAS})"
            )
    return problems


def _template_problems(template: Mapping[str, Any]) -> list[str]:
    """The template's body size, and how many resources, outputs and parameters it declares."""
    problems = []
    body = json.dumps(template, indent=1)
    if len(body.encode()) > TEMPLATE_BODY_MAX:
        problems.append(f"template body is {len(body.encode())} bytes > {TEMPLATE_BODY_MAX} ({CFN_QUOTAS})")
    for section, most in (("Resources", RESOURCES_MAX), ("Outputs", OUTPUTS_MAX), ("Parameters", PARAMETERS_MAX)):
        count = len(template.get(section, {}))
        if count > most:
            problems.append(f"{count} {section.lower()} > {most} ({CFN_QUOTAS})")
    return problems


def _policy_problems(logical_id: str, kind: str, props: Mapping[str, Any]) -> list[str]:
    """A trust policy, a managed policy or a bucket policy over its size."""
    if kind == "AWS::IAM::Role":
        size = policy_size(props["AssumeRolePolicyDocument"])
        if size > TRUST_POLICY_MAX:
            return [f"IAM role {logical_id}: trust policy {size} characters > {TRUST_POLICY_MAX} ({IAM_QUOTAS})"]
    elif kind == "AWS::IAM::ManagedPolicy":
        size = policy_size(props["PolicyDocument"])
        if size > MANAGED_POLICY_MAX:
            return [f"managed policy {logical_id}: {size} characters > {MANAGED_POLICY_MAX} ({IAM_QUOTAS})"]
    elif kind == "AWS::S3::BucketPolicy":
        size = len(json.dumps(props["PolicyDocument"], separators=(",", ":")).encode())
        if size > BUCKET_POLICY_MAX:
            return [f"bucket policy {logical_id}: {size} bytes > {BUCKET_POLICY_MAX} ({S3_POLICY})"]
    return []


def _inline_policy_sizes(resources: Mapping[str, Mapping[str, Any]], ref: Any) -> dict[str, int]:
    """Role name -> the size of its inline policies: its own `Policies` and the `AWS::IAM::Policy`s naming it."""
    inline: dict[str, int] = {}
    for logical_id, r in resources.items():
        props = r["Properties"]
        if r["Type"] == "AWS::IAM::Role":
            own = sum(policy_size(p["PolicyDocument"]) for p in props.get("Policies", []))
            inline[ref(logical_id)] = inline.get(ref(logical_id), 0) + own
        elif r["Type"] == "AWS::IAM::Policy":
            for role in props.get("Roles", []):
                inline[role] = inline.get(role, 0) + policy_size(props["PolicyDocument"])
    return inline
