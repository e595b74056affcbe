"""A small IAM policy evaluator for tests: which statements apply to one request, and the decision.

A request is (principal ARN, action, resource ARN, condition context). A
statement applies when its Action/NotAction, Resource/NotResource, Principal
(when it has one and the request names one) and every Condition hold; the
decision follows IAM's rule within one account: an explicit Deny wins, else
any Allow, else the implicit deny (IAM User Guide, "Policy evaluation logic").

Wildcards follow IAM, not the shell: `*` is any run of characters (slashes
included), `?` is one character, and nothing else is special (`[` is literal).
Actions compare case-insensitively, resources and condition values
case-sensitively. Conditions: the String*, Arn*, Bool, Numeric* and Null
operators, each with an `...IfExists` form; an operator this file does not
know raises rather than passing. Values that are CDK intrinsics can be
resolved first with `resolve` (a map of `Ref` / `Fn::GetAtt` results), or
compare by equality with a request value holding the same intrinsic.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

ALLOW = "Allow"
DENY = "Deny"
IMPLICIT_DENY = "ImplicitDeny"

PSEUDO = {"AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com"}


def _as_list(value: Any) -> list:
    return value if isinstance(value, list) else [value]


@cache
def _glob(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    return re.compile(body, re.DOTALL | (re.IGNORECASE if ignore_case else 0))


def _like(pattern: Any, value: Any, ignore_case: bool = False) -> bool:
    if isinstance(pattern, str) and isinstance(value, str):
        return _glob(pattern, ignore_case).fullmatch(value) is not None
    return pattern == value


def _equals(pattern: Any, value: Any) -> bool:
    return pattern == value


def _number(value: Any) -> float:
    return float(value)


_BASE_OPERATORS = {
    "StringEquals": (lambda p, v: _equals(p, v), False),
    "StringNotEquals": (lambda p, v: _equals(p, v), True),
    "StringEqualsIgnoreCase": (lambda p, v: str(p).lower() == str(v).lower(), False),
    "StringNotEqualsIgnoreCase": (lambda p, v: str(p).lower() == str(v).lower(), True),
    "StringLike": (lambda p, v: _like(p, v), False),
    "StringNotLike": (lambda p, v: _like(p, v), True),
    "ArnEquals": (lambda p, v: _like(p, v), False),
    "ArnLike": (lambda p, v: _like(p, v), False),
    "ArnNotEquals": (lambda p, v: _like(p, v), True),
    "ArnNotLike": (lambda p, v: _like(p, v), True),
    "Bool": (lambda p, v: str(p).lower() == str(v).lower(), False),
    "NumericEquals": (lambda p, v: _number(v) == _number(p), False),
    "NumericNotEquals": (lambda p, v: _number(v) == _number(p), True),
    "NumericLessThan": (lambda p, v: _number(v) < _number(p), False),
    "NumericLessThanEquals": (lambda p, v: _number(v) <= _number(p), False),
    "NumericGreaterThan": (lambda p, v: _number(v) > _number(p), False),
    "NumericGreaterThanEquals": (lambda p, v: _number(v) >= _number(p), False),
}


def _condition_holds(operator: str, key: str, expected: Any, context: Mapping[str, Any]) -> bool:
    for qualifier in ("ForAllValues:", "ForAnyValue:"):
        if operator.startswith(qualifier):
            # Set operators over a multi-valued request key (IAM User Guide, "multivalued context keys"):
            # ForAllValues holds when every request value matches (and when the key is absent),
            # ForAnyValue when at least one does.
            if key not in context:
                return qualifier == "ForAllValues:"
            base = operator.removeprefix(qualifier)
            match = [_condition_holds(base, key, expected, {key: v}) for v in _as_list(context[key])]
            return all(match) if qualifier == "ForAllValues:" else any(match)
    if operator == "Null":
        # Null: true means "the key is absent", false "the key is present".
        return any((key not in context) == (str(e).lower() == "true") for e in _as_list(expected))
    if_exists = operator.endswith("IfExists")
    base = operator.removesuffix("IfExists")
    if base not in _BASE_OPERATORS:
        raise ValueError(f"iam_eval does not know the condition operator {operator!r}")
    test, negated = _BASE_OPERATORS[base]
    if key not in context:
        # A missing key: the ...IfExists forms and the negated operators hold, the others fail.
        return if_exists or negated
    values = _as_list(context[key])  # a multi-valued request key matches if any value does
    patterns = _as_list(expected)
    if negated:
        return all(not test(p, v) for p in patterns for v in values)
    return any(test(p, v) for p in patterns for v in values)


def conditions_hold(conditions: Mapping[str, Mapping[str, Any]], context: Mapping[str, Any]) -> bool:
    """All operators and keys must hold (AND); values of one key are alternatives (OR)."""
    return all(
        _condition_holds(operator, key, expected, context)
        for operator, keys in conditions.items()
        for key, expected in keys.items()
    )


def _action_matches(statement: Mapping[str, Any], action: str) -> bool:
    if "NotAction" in statement:
        return not any(_like(a, action, ignore_case=True) for a in _as_list(statement["NotAction"]))
    return any(_like(a, action, ignore_case=True) for a in _as_list(statement.get("Action", [])))


def _resource_matches(statement: Mapping[str, Any], resource: Any) -> bool:
    """A role trust policy has no Resource: it is about the role it is attached to."""
    if "Resource" not in statement and "NotResource" not in statement:
        return True
    if "NotResource" in statement:
        return not any(_like(r, resource) for r in _as_list(statement["NotResource"]))
    return any(_like(r, resource) for r in _as_list(statement.get("Resource", [])))


def _principal_matches(statement: Mapping[str, Any], principal: Any) -> bool:
    """A statement without Principal is an identity policy's: it applies to its holder."""
    if principal is None or "Principal" not in statement:
        return True
    declared = statement["Principal"]
    if declared == "*":
        return True
    candidates = [p for values in declared.values() for p in _as_list(values)]
    return any(p == "*" or p == principal for p in candidates)


def applies(
    statement: Mapping[str, Any],
    action: str,
    context: Mapping[str, Any] | None = None,
    *,
    resource: Any,
    principal: Any = None,
) -> bool:
    """Whether `statement` covers this request: action, resource, principal and conditions."""
    return (
        _action_matches(statement, action)
        and _resource_matches(statement, resource)
        and _principal_matches(statement, principal)
        and conditions_hold(statement.get("Condition", {}), context or {})
    )


def denied(
    statements: Sequence[Mapping[str, Any]],
    action: str,
    context: Mapping[str, Any] | None = None,
    *,
    resource: Any,
    principal: Any = None,
) -> bool:
    """An explicit Deny among `statements` applies to this request."""
    return any(
        s["Effect"] == DENY and applies(s, action, context, resource=resource, principal=principal) for s in statements
    )


def decide(
    statements: Sequence[Mapping[str, Any]],
    action: str,
    context: Mapping[str, Any] | None = None,
    *,
    resource: Any,
    principal: Any = None,
) -> str:
    """ALLOW, DENY or IMPLICIT_DENY for one request over identity and resource statements together."""
    if denied(statements, action, context, resource=resource, principal=principal):
        return DENY
    if any(
        s["Effect"] == ALLOW and applies(s, action, context, resource=resource, principal=principal) for s in statements
    ):
        return ALLOW
    return IMPLICIT_DENY


def resolve(value: Any, refs: Mapping[str, Any]) -> Any:
    """Replace CDK intrinsics with concrete values: `Ref` and `Fn::GetAtt` from `refs`
    (keys `LogicalId` and `LogicalId.Attribute`), `Fn::Join`, and the partition/URL pseudo
    parameters. An intrinsic without a value raises, so a test never compares a half-resolved ARN."""
    if isinstance(value, list):
        return [resolve(v, refs) for v in value]
    if not isinstance(value, dict):
        return value
    if set(value) == {"Ref"}:
        name = value["Ref"]
        if name in refs:
            return refs[name]
        if name in PSEUDO:
            return PSEUDO[name]
        raise KeyError(f"no value for Ref {name}")
    if set(value) == {"Fn::GetAtt"}:
        logical_id, attribute = value["Fn::GetAtt"]
        return refs[f"{logical_id}.{attribute}"]
    if set(value) == {"Fn::Join"}:
        separator, parts = value["Fn::Join"]
        return separator.join(str(resolve(p, refs)) for p in parts)
    return {k: resolve(v, refs) for k, v in value.items()}


def _resolve_known(value: Any, refs: Mapping[str, Any]) -> Any:
    """Like `resolve`, but an intrinsic without a value stays as it is (and then matches nothing)."""
    try:
        return resolve(value, refs)
    except KeyError:
        if isinstance(value, list):
            return [_resolve_known(v, refs) for v in value]
        if isinstance(value, dict) and not ({"Ref", "Fn::GetAtt", "Fn::Join"} & set(value)):
            return {k: _resolve_known(v, refs) for k, v in value.items()}
        return value


def allowed(
    statements: Sequence[Mapping[str, Any]],
    action: str,
    context: Mapping[str, Any] | None = None,
    *,
    resource: str,
    refs: Mapping[str, Any] | None = None,
) -> bool:
    """An identity policy allows `action` on `resource` and no Deny applies; intrinsics resolved from `refs`."""
    resolved = [_resolve_known(dict(s), refs or {}) for s in statements]
    return decide(resolved, action, context, resource=resource) == ALLOW
