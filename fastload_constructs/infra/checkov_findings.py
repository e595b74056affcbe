"""checkov findings this library accepts, acknowledged on the resources they concern, each with its reason.

checkov reads a CloudFormation resource's `Metadata.checkov.skip`, a list of `{"id": ..., "comment": ...}`
(https://www.checkov.io/2.Basics/Suppressing%20and%20Skipping%20Policies.html, "CloudFormation"), and
reports the check as skipped with that comment. Each construct acknowledges only what it knows it causes,
as with cdk-nag (`nag_findings`); anything else still fails `tests/test_checkov.py`.
"""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import CfnResource
from constructs import IConstruct

# The Lambda functions behind CloudFormation custom resources (aws-cdk-lib's provider frameworks and the
# handlers they call): CloudFormation invokes them through the framework once per deploy and reads their
# outcome from the framework, so an asynchronous dead-letter queue never receives anything.
CUSTOM_RESOURCE_HANDLER: Mapping[str, str] = {
    "CKV_AWS_115": "a custom-resource handler runs once per deploy; reserved concurrency would only take "
    "capacity from the account's pool",
    "CKV_AWS_116": "invoked synchronously by CloudFormation's custom-resource framework, which reports a failure "
    "to the stack; an asynchronous dead-letter queue would never receive one",
}
OUTSIDE_VPC: Mapping[str, str] = {
    "CKV_AWS_117": "calls only AWS APIs; inside the VPC it would need NAT or interface endpoints to reach "
    "them and would gain nothing",
}
CDK_FUNCTION_ENVIRONMENT: Mapping[str, str] = {
    "CKV_AWS_173": "aws-cdk-lib's custom-resource functions hold only the ARNs of the functions they call and "
    "endpoint settings in their environment, no secret; Lambda encrypts it at rest with an AWS owned key",
}
SERVICE_LOG_GROUP: Mapping[str, str] = {
    "CKV_AWS_158": "CloudWatch Logs encrypts every log group at rest; a customer managed key would add a key "
    "policy for the logs service and an hourly cost for records that hold no secrets",
}


def skip_checks(scope: IConstruct, findings: Mapping[str, str], *, resource_type: str) -> None:
    """Acknowledge `findings` (check id -> reason) on every `resource_type` resource at or below `scope`."""
    for construct in scope.node.find_all():
        if isinstance(construct, CfnResource) and construct.cfn_resource_type == resource_type:
            _add(construct, findings)


def _add(resource: CfnResource, findings: Mapping[str, str]) -> None:
    existing = resource.get_metadata("checkov") or {}
    skips = [s for s in existing.get("skip", []) if s["id"] not in findings]
    skips += [{"id": check, "comment": reason} for check, reason in sorted(findings.items())]
    resource.add_metadata("checkov", {**existing, "skip": skips})


__all__ = [
    "CDK_FUNCTION_ENVIRONMENT",
    "CUSTOM_RESOURCE_HANDLER",
    "OUTSIDE_VPC",
    "SERVICE_LOG_GROUP",
    "skip_checks",
]
