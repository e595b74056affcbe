"""CloudFormation schema and rule errors in a synthesised template, via cfn-lint."""

from __future__ import annotations

import json

from cfnlint.api import lint_all


def lint_errors(template: dict) -> list[str]:
    """Error-level findings (rule ids starting with E); warnings and style hints are ignored."""
    return [f"{m.rule.id} {m.message}" for m in lint_all(json.dumps(template)) if m.rule.id.startswith("E")]
