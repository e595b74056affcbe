"""The prefixes the reference app grants its stagers: each model's own while the bucket policy holds them,
else coarser folders (`core.access.stager_prefixes`), as few levels up as S3's 20 KB needs.

Whether a set of prefixes fits is measured, not estimated: the same `ModelBucket` with the same stagers and
grants, built in an app of its own (never synthesised) and sized as `infra.check_stack_limits` sizes the real
one, so the choice and the check cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3

from fastload_constructs.core.access.stager_prefixes import coarser, outermost
from fastload_constructs.infra.model_bucket import ModelBucket
from fastload_constructs.infra.synth_limits import MAX_BUCKET_POLICY_BYTES, policy_bytes

# CDK's feature flags change how a policy renders (`@aws-cdk/aws-iam:minimizePolicies` merges statements).
FLAG_PREFIX = "@aws-cdk/"


def stager_prefixes(
    model_prefixes: Sequence[str],
    stager_arns: Sequence[str],
    *,
    cache_prefix: str,
    bucket_name: str | None,
    context: Mapping[str, object],
) -> tuple[str, ...]:
    """The prefixes to grant every stager: the models' own, or the finest coarser folders whose grants keep
    the bucket policy within 20 KB. When even the coarsest allowed do not, the models' own (the stack's limit
    check then refuses the policy, in one line)."""
    prefixes = outermost(model_prefixes)
    candidate: tuple[str, ...] | None = prefixes
    while candidate is not None:
        if bucket_policy_bytes(stager_arns, candidate, bucket_name=bucket_name, context=context) <= (
            MAX_BUCKET_POLICY_BYTES
        ):
            return candidate
        candidate = coarser(candidate, apart_from=(cache_prefix,))
    return prefixes


def bucket_policy_bytes(
    stager_arns: Sequence[str], prefixes: Sequence[str], *, bucket_name: str | None, context: Mapping[str, object]
) -> int:
    """The size of the model bucket's policy with every stager granted every prefix, as the limit check counts
    it (the endpoint id a deploy-time value, as the network's is)."""
    flags = {k: v for k, v in context.items() if k.startswith(FLAG_PREFIX)}
    stack = cdk.Stack(cdk.App(context=flags), "StagerPolicy")
    endpoint_id = cdk.CfnParameter(stack, "EndpointId").value_as_string
    endpoint = ec2.GatewayVpcEndpoint.from_gateway_vpc_endpoint_id(stack, "Endpoint", endpoint_id)
    stagers = [iam.Role.from_role_arn(stack, f"Stager{i}", arn, mutable=False) for i, arn in enumerate(stager_arns)]
    bucket = ModelBucket(
        stack,
        "ModelBucket",
        vpc_endpoint=endpoint,
        stager_principals=stagers,
        bucket_name=bucket_name,
        access_logs=False,
    )
    for prefix in prefixes:
        for stager in stagers:
            bucket.grant_stage_models(stager, prefix)
    policies = [c for c in stack.node.find_all() if isinstance(c, s3.CfnBucketPolicy)]
    return max((policy_bytes(stack.resolve(p.policy_document)) for p in policies), default=0)
