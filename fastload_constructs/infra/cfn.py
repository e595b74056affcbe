"""The CloudFormation resource behind an L2 construct, typed, for the few overrides L2 does not offer."""

from __future__ import annotations

from aws_cdk import CfnResource
from constructs import IConstruct


def cfn_resource(construct: IConstruct) -> CfnResource:
    """`construct.node.default_child` as a CfnResource; an L2 without one is a programming error."""
    child = construct.node.default_child
    if not isinstance(child, CfnResource):
        raise TypeError(f"{construct.node.path} has no CloudFormation resource as its default child")
    return child
