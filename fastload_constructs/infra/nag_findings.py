"""cdk-nag (AwsSolutions) findings this library accepts, acknowledged where they arise.

cdk-nag 3 reports through CDK's policy validation (`Validations.of(app).add_plugins(
AwsSolutionsChecks(app))`) and matches an acknowledgement to a finding by its exact
id (`AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/X]`) on the
resource or any construct above it; there is no prefix match. The ids are built
here the way cdk-nag builds them (a port of its `flattenCfnReference`), so each
construct acknowledges only the findings it knows it causes, each with its reason;
anything else still fails the check.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from aws_cdk import Acknowledgment, CfnElement, Stack, Validations
from aws_cdk import aws_iam as iam
from constructs import IConstruct


def flatten(reference: Any) -> str:
    """A resolved CloudFormation value as cdk-nag prints it: `<Logical.Arn>`, `<AWS::Partition>`."""
    if reference is None:
        return ""
    if isinstance(reference, str):
        return reference.replace("${", "<").replace("}", ">")
    if isinstance(reference, dict):
        if "Fn::Join" in reference:
            delimiter, items = reference["Fn::Join"]
            return str(delimiter).join(flatten(i) for i in items)
        if "Fn::Sub" in reference:
            return flatten(reference["Fn::Sub"])
        if "Fn::GetAtt" in reference:
            resource, attribute = reference["Fn::GetAtt"]
            return f"<{flatten(resource)}.{flatten(attribute)}>"
        if "Fn::ImportValue" in reference:
            return flatten(reference["Fn::ImportValue"])
        if "Ref" in reference:
            return f"<{flatten(reference['Ref'])}>"
    return json.dumps(reference, separators=(",", ":"))


def acknowledge(scope: IConstruct, finding: str, reason: str) -> None:
    """Acknowledge one finding id on `scope` (and everything under it) with a written reason."""
    Validations.of(scope).acknowledge(Acknowledgment(id=finding, reason=reason))


def arn_of(element: CfnElement) -> str:
    """How cdk-nag prints `Fn::GetAtt [element, Arn]`."""
    return f"<{Stack.of(element).resolve(element.logical_id)}.Arn>"


def managed_policy_findings(role: iam.CfnRole) -> dict[str, str]:
    """AWS managed policy name -> the AwsSolutions-IAM4 finding id cdk-nag gives `role` for it."""
    stack = Stack.of(role)
    found = {}
    for arn in stack.resolve(role.managed_policy_arns) or []:
        flat = flatten(arn)
        if ":iam::aws:" in flat:
            name = flat.split(":policy/", 1)[1].split('"', 1)[0].rsplit("/", 1)[-1]
            found[name] = f"AwsSolutions-IAM4[Policy::{flat}]"
    return found


def acknowledge_managed_policies(scope: IConstruct, reasons: Mapping[str, str]) -> None:
    """Acknowledge IAM4 for each role under `scope` whose AWS managed policies are in `reasons`.

    A managed policy not named in `reasons` stays a finding.
    """
    for node in [scope, *scope.node.find_all()]:
        if isinstance(node, iam.CfnRole):
            for name, finding in managed_policy_findings(node).items():
                if name in reasons:
                    acknowledge(node, finding, reasons[name])


# Reasons shared by every construct whose nodes or cluster use these AWS managed policies.
EKS_NODE_POLICY_REASONS = {
    "AmazonEKSWorkerNodePolicy": "EKS worker nodes need it to join and describe the cluster; the EKS user "
    "guide requires this AWS managed policy on the node role and AWS keeps it current with EKS",
    "AmazonEKS_CNI_Policy": "the VPC CNI (aws-node) assigns pod IPs from the node's ENIs with the node role, "
    "as on every EKS managed node group; AWS maintains the exact EC2 actions it needs",
    "AmazonEC2ContainerRegistryReadOnly": "nodes pull the EKS add-on images and the vLLM image from ECR; "
    "the AWS managed policy is read-only",
    "AmazonEC2ContainerRegistryPullOnly": "nodes pull images from ECR; the AWS managed policy is pull-only",
    "AmazonSSMManagedInstanceCore": "Session Manager access to GPU nodes instead of SSH keys and open ports",
}
