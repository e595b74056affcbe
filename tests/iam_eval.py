"""A small IAM statement matcher for tests: does a statement apply to one request?

Covers what the model-bucket, Karpenter and KEDA policies use: Action
wildcards, Resource wildcards (`allowed(..., resource=...)`), AWS principals,
and the condition operators StringEquals, StringNotEquals, StringLike,
StringEqualsIfExists, ForAllValues:StringEquals, ArnLike, ArnNotLike,
ArnEquals, Bool and NumericLessThan. Values that are CDK intrinsics (dicts)
compare by equality with the request's value, so a test can pass the same
`{"Ref": ...}` it expects in the template; an `Fn::Join` resource is matched
after joining it with the test's values for its references (`refs`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fnmatch import fnmatchcase
from typing import Any


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _like(pattern: Any, value: Any) -> bool:
    if isinstance(pattern, str) and isinstance(value, str):
        return fnmatchcase(value, pattern)
    return bool(pattern == value)


_OPERATORS: dict[str, Callable[[list[Any], Any], bool]] = {
    "StringEquals": lambda values, v: any(p == v for p in values),
    "StringNotEquals": lambda values, v: all(p != v for p in values),
    "StringLike": lambda values, v: any(_like(p, v) for p in values),
    "ArnEquals": lambda values, v: any(p == v for p in values),
    "ArnLike": lambda values, v: any(_like(p, v) for p in values),
    "ArnNotLike": lambda values, v: all(not _like(p, v) for p in values),
    "Bool": lambda values, v: any(str(p).lower() == str(v).lower() for p in values),
    "NumericLessThan": lambda values, v: any(float(v) < float(p) for p in values),
    "StringEqualsIfExists": lambda values, v: any(p == v for p in values),
    # The request's multi-valued key (a list) must be a subset of the allowed values.
    "ForAllValues:StringEquals": lambda values, v: all(x in values for x in _as_list(v)),
}


def conditions_hold(conditions: Mapping[str, Mapping[str, Any]], context: Mapping[str, Any]) -> bool:
    """All operators and keys must hold (AND); a missing key fails every operator but the negated ones."""
    for operator, keys in conditions.items():
        test = _OPERATORS[operator]
        for key, expected in keys.items():
            if key not in context:
                if operator.startswith(("StringNot", "ArnNot", "ForAllValues:")) or operator.endswith("IfExists"):
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


def resolve(value: Any, refs: Mapping[str, str]) -> Any:
    """A template value with `Ref`s (and `Fn::GetAtt` as 'Logical.Attr') replaced from `refs`, joins joined."""
    if isinstance(value, dict):
        if "Ref" in value:
            return refs.get(value["Ref"], value)
        if "Fn::GetAtt" in value:
            return refs.get(".".join(value["Fn::GetAtt"]), value)
        if "Fn::Join" in value:
            delimiter, parts = value["Fn::Join"]
            resolved = [resolve(p, refs) for p in parts]
            if all(isinstance(p, str) for p in resolved):
                return delimiter.join(resolved)
            return {"Fn::Join": [delimiter, resolved]}
        return {k: resolve(v, refs) for k, v in value.items()}
    if isinstance(value, list):
        return [resolve(v, refs) for v in value]
    return value


def covers(statement: Mapping[str, Any], resource: str, refs: Mapping[str, str]) -> bool:
    resources = [resolve(r, refs) for r in _as_list(statement.get("Resource", []))]
    return any(_like(r, resource) for r in resources)


def allowed(
    statements: list[Mapping[str, Any]],
    action: str,
    context: Mapping[str, Any],
    *,
    resource: str,
    refs: Mapping[str, str] | None = None,
) -> bool:
    """An identity policy allows `action` on `resource` under `context`, and no Deny applies."""
    refs = refs or {}

    def hit(s: Mapping[str, Any]) -> bool:
        resolved = {**s, "Condition": resolve(s.get("Condition", {}), refs)}
        return applies(resolved, action, context) and covers(s, resource, refs)

    return any(s["Effect"] == "Allow" and hit(s) for s in statements) and not any(
        s["Effect"] == "Deny" and hit(s) for s in statements
    )
