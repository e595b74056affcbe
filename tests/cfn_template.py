"""Reading synthesised CloudFormation in tests: one helper for every test module."""

from __future__ import annotations

from typing import Any

from aws_cdk.assertions import Template


def resources(template: Template | dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    """Logical id -> resource, for every resource of CloudFormation type `kind`."""
    body = template.to_json() if isinstance(template, Template) else template
    return {k: r for k, r in body["Resources"].items() if r["Type"] == kind}


def properties(template: Template | dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """The Properties of every resource of type `kind`, in template order."""
    return [r.get("Properties", {}) for r in resources(template, kind).values()]
