"""Limits that would otherwise fail at deploy, checked at synth with one clear message each.

* CloudFormation: at most 500 resources per stack (CDK refuses more during synthesis, with a
  jsii traceback), a template of at most 1 MB, the limit for a template CloudFormation reads
  from S3, as `cdk deploy` uploads it (CDK does not check it at all), and at most 200 outputs
  and 200 parameters per template (CDK only warns): a stack whose resources other stacks use
  exports one output per value they import.
* S3: a bucket policy of at most 20 KB (PutBucketPolicy fails at deploy, after everything before
  the bucket policy was created). The model bucket's endpoint lock grows with every stager prefix.

`check_stack_limits(stack)` runs before synthesis (it counts resources and sizes bucket policies
from the construct tree); `check_assembly_limits(assembly)` runs after it on the written templates.
Both raise FastloadConfigError naming the stack, the figure and the limit, which the reference
app prints as one line (exit 2). The sources of the numbers are beside them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_s3 as s3
from aws_cdk import cx_api

from fastload_constructs.core.errors import FastloadConfigError

# CloudFormation User Guide, "Understand CloudFormation quotas": Resources, 500 per stack.
MAX_STACK_RESOURCES = 500
# Same page: template body size in an S3 object, 1 MB (1,048,576 bytes); `cdk deploy` uploads templates to S3.
MAX_TEMPLATE_BYTES = 1024 * 1024
# Amazon S3 User Guide, bucket policies: "Bucket policies are limited to 20 KB in size".
MAX_BUCKET_POLICY_BYTES = 20 * 1024
# Same page: Outputs, 200 per template; Parameters, 200 per template.
MAX_TEMPLATE_OUTPUTS = 200
MAX_TEMPLATE_PARAMETERS = 200
# An intrinsic in a policy resolves at deploy into an ARN: a bucket's is arn:aws:s3::: plus at most 63
# characters (76); a role's arn:aws:iam::<12 digits>:role/ plus a CloudFormation-generated name of at most
# 64 characters (95). Every Ref / Fn::GetAtt / Fn::ImportValue is counted at the larger, 96.
INTRINSIC_BYTES = 96
# What to do past a stack's limits, the same advice everywhere.
SPLIT_ADVICE = "split the models over several stacks of one app (README: Many models)"


def check_stack_limits(stack: cdk.Stack) -> None:
    """Refuse, before synthesis, a stack over CloudFormation's resource limit or with a bucket policy over 20 KB."""
    resources = sum(1 for c in stack.node.find_all() if cdk.CfnResource.is_cfn_resource(c))
    if resources > MAX_STACK_RESOURCES:
        raise FastloadConfigError(
            f"stack {stack.stack_name}",
            f"{resources} CloudFormation resources",
            f"at most {MAX_STACK_RESOURCES} per stack (CloudFormation's limit); {SPLIT_ADVICE}",
        )
    for policy in (c for c in stack.node.find_all() if isinstance(c, s3.CfnBucketPolicy)):
        size = policy_bytes(stack.resolve(policy.policy_document))
        if size > MAX_BUCKET_POLICY_BYTES:
            raise FastloadConfigError(
                f"stack {stack.stack_name}: bucket policy {policy.node.path}",
                f"about {size} bytes",
                f"at most {MAX_BUCKET_POLICY_BYTES} bytes (S3's 20 KB bucket policy limit): fewer stager "
                "principals or model prefixes per bucket, stagers granted a common parent prefix, or a second bucket",
            )


def policy_bytes(document: Any) -> int:
    """The policy's size as S3 will see it: compact JSON, intrinsics rendered (each value at INTRINSIC_BYTES)."""
    return len(json.dumps(_rendered(document), separators=(",", ":")).encode())


def _rendered(value: Any) -> Any:
    """`value` with Fn::Join joined and every other intrinsic replaced by a string as long as what it becomes."""
    if isinstance(value, list):
        return [_rendered(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((key, argument),) = value.items()
        if key == "Fn::Join" and isinstance(argument, list) and len(argument) == 2:
            delimiter, parts = argument
            return str(delimiter).join(str(_rendered(p)) for p in parts)
        if key == "Ref" or key.startswith("Fn::"):
            return "x" * INTRINSIC_BYTES
    return {k: _rendered(v) for k, v in value.items()}


def check_assembly_limits(assembly: cx_api.CloudAssembly) -> None:
    """Refuse, after synthesis, a stack template over 1 MB, or with more than 200 outputs or parameters
    (CloudFormation would refuse it at deploy)."""
    for stack in assembly.stacks_recursively:
        size = Path(stack.template_full_path).stat().st_size
        if size > MAX_TEMPLATE_BYTES:
            raise FastloadConfigError(
                f"stack {stack.stack_name}",
                f"a {size}-byte template",
                f"at most {MAX_TEMPLATE_BYTES} bytes (CloudFormation's 1 MB template limit); {SPLIT_ADVICE}",
            )
        for section, most in (("Outputs", MAX_TEMPLATE_OUTPUTS), ("Parameters", MAX_TEMPLATE_PARAMETERS)):
            count = len(stack.template.get(section, {}))
            if count > most:
                raise FastloadConfigError(
                    f"stack {stack.stack_name}",
                    f"{count} {section.lower()}",
                    f"at most {most} per template (CloudFormation's limit); {SPLIT_ADVICE}",
                )
