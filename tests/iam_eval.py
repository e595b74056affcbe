"""A small IAM statement matcher for tests: does a statement apply to one request?

Covers what the model-bucket policies use: Action/NotAction wildcards, AWS
principals, and the condition operators StringEquals, StringNotEquals,
StringLike, ArnLike, ArnNotLike, ArnEquals, Bool and NumericLessThan. Values that are CDK
intrinsics (dicts) compare by equality with the request's value, so a test
can pass the same `{"Ref": ...}` it expects in the template.
"""

from __future__ import annotations

from collections.abc import Mapping
from fnmatch import fnmatchcase
from typing import Any


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else [value]


def _like(pattern: Any, value: Any) -> bool:
    if isinstance(pattern, str) and isinstance(value, str):
        return fnmatchcase(value, pattern)
    return pattern == value


_OPERATORS = {
    "StringEquals": lambda values, v: any(p == v for p in values),
    "StringNotEquals": lambda values, v: all(p != v for p in values),
    "StringLike": lambda values, v: any(_like(p, v) for p in values),
    "ArnEquals": lambda values, v: any(p == v for p in values),
    "ArnLike": lambda values, v: any(_like(p, v) for p in values),
    "ArnNotLike": lambda values, v: all(not _like(p, v) for p in values),
    "Bool": lambda values, v: any(str(p).lower() == str(v).lower() for p in values),
    "NumericLessThan": lambda values, v: any(float(v) < float(p) for p in values),
}


def conditions_hold(conditions: Mapping[str, Mapping[str, Any]], context: Mapping[str, Any]) -> bool:
    """All operators and keys must hold (AND); a missing key fails every operator but the negated ones."""
    for operator, keys in conditions.items():
        test = _OPERATORS[operator]
        for key, expected in keys.items():
            if key not in context:
                if operator.startswith(("StringNot", "ArnNot")):
                    continue
                return False
            if not test(_as_list(expected), context[key]):
                return False
    return True


def applies(statement: Mapping[str, Any], action: str, context: Mapping[str, Any]) -> bool:
    """Whether `statement` covers `action` under the request `context` (resources not checked)."""
    actions = _as_list(statement.get("Action", []))
    if not any(_like(a, action) for a in actions):
        return False
    return conditions_hold(statement.get("Condition", {}), context)


def denied(statements: list[Mapping[str, Any]], action: str, context: Mapping[str, Any]) -> bool:
    """An explicit Deny among `statements` applies to this request."""
    return any(s["Effect"] == "Deny" and applies(s, action, context) for s in statements)
