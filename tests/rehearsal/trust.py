"""Trust policies against the request context each service principal is documented to send.

`PRINCIPALS` says, per service principal, which condition keys its AssumeRole request
carries and with what value, each with the page that documents it. A trust policy
condition on any other key is an UNKNOWN: the service may leave it out (an `...IfExists`
then passes) or send a value we cannot predict (then nothing is allowed), so the
rehearsal reports it instead of guessing. Evaluation uses tests/iam_eval.py.

What the EKS user guide documents for Pod Identity (checked for this rehearsal):
- pod-id-role (https://docs.aws.amazon.com/eks/latest/userguide/pod-id-role.html):
  `sts:AssumeRole` + `sts:TagSession`, and "When the Pod Identity IAM Role is assumed, it
  sends the following Request Tags": eks-cluster-arn, eks-cluster-name, kubernetes-namespace,
  kubernetes-service-account, kubernetes-pod-name, kubernetes-pod-uid; its example conditions
  are `aws:RequestTag/...` only.
- pod-id-abac (https://docs.aws.amazon.com/eks/latest/userguide/pod-id-abac.html): the same
  six session tags, added to the AssumeRole request.
- cross-service-confused-deputy-prevention
  (https://docs.aws.amazon.com/eks/latest/userguide/cross-service-confused-deputy-prevention.html):
  `aws:SourceArn` (the cluster ARN) and `aws:SourceAccount` for the *cluster role*
  (eks.amazonaws.com) only; nothing about pods.eks.amazonaws.com.
Neither `aws:SourceAccount` nor `aws:SourceArn` is documented for pods.eks.amazonaws.com.
Field reports (not documentation): awslabs/mountpoint-s3-csi-driver#781 saw a trust with
`StringEquals aws:SourceAccount` work and an added `ArnLike aws:SourceArn` of the association
ARN break credentials. `OBSERVED` keeps these notes so the unknown message can cite them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from tests import iam_eval

POD_ID_ROLE = "https://docs.aws.amazon.com/eks/latest/userguide/pod-id-role.html"
POD_ID_ABAC = "https://docs.aws.amazon.com/eks/latest/userguide/pod-id-abac.html"
EKS_CONFUSED_DEPUTY = "https://docs.aws.amazon.com/eks/latest/userguide/cross-service-confused-deputy-prevention.html"
FLOW_LOGS_ROLE = "https://docs.aws.amazon.com/vpc/latest/userguide/flow-logs-iam-role.html"
GLOBAL_KEYS = "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html"
SESSION_TAGS = "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_session-tags.html"
POD_TAGS = (
    "eks-cluster-arn",
    "eks-cluster-name",
    "kubernetes-namespace",
    "kubernetes-service-account",
    "kubernetes-pod-name",
    "kubernetes-pod-uid",
)


@dataclass(frozen=True)
class Caller:
    """Who asks: the account, the cluster, and for Pod Identity the pod's namespace and service account."""

    account: str
    partition: str = "aws"
    region: str = "us-west-2"
    cluster_name: str = ""
    namespace: str = ""
    service_account: str = ""
    source_arn: str = ""  # for principals documented to send aws:SourceArn (the cluster role: the cluster ARN)

    @property
    def cluster_arn(self) -> str:
        return f"arn:{self.partition}:eks:{self.region}:{self.account}:cluster/{self.cluster_name}"


Documented = dict[str, tuple[Callable[[Caller], Any], str]]  # key -> (value for a caller, source URL)


@dataclass(frozen=True)
class Principal:
    actions: tuple[str, ...]
    keys: Documented
    source: str


def _pod_tag(tag: str) -> Callable[[Caller], str]:
    values: dict[str, Callable[[Caller], str]] = {
        "eks-cluster-arn": lambda c: c.cluster_arn,
        "eks-cluster-name": lambda c: c.cluster_name,
        "kubernetes-namespace": lambda c: c.namespace,
        "kubernetes-service-account": lambda c: c.service_account,
        "kubernetes-pod-name": lambda c: f"{c.service_account}-7d9f8b6c5d-x2k4p",
        "kubernetes-pod-uid": lambda c: "3f2b7c1e-9a4d-4e8b-b0c6-5d1e2f3a4b5c",
    }
    return values[tag]


PRINCIPALS: dict[str, Principal] = {
    "pods.eks.amazonaws.com": Principal(
        actions=("sts:AssumeRole", "sts:TagSession"),
        keys={
            **{f"aws:RequestTag/{tag}": (_pod_tag(tag), POD_ID_ROLE + " ; " + POD_ID_ABAC) for tag in POD_TAGS},
            "aws:TagKeys": (lambda c: list(POD_TAGS), SESSION_TAGS),
        },
        source=POD_ID_ROLE,
    ),
    "eks.amazonaws.com": Principal(
        actions=("sts:AssumeRole",),
        keys={
            "aws:SourceArn": (lambda c: c.source_arn or c.cluster_arn, EKS_CONFUSED_DEPUTY),
            "aws:SourceAccount": (lambda c: c.account, EKS_CONFUSED_DEPUTY),
        },
        source=EKS_CONFUSED_DEPUTY,
    ),
    "vpc-flow-logs.amazonaws.com": Principal(
        actions=("sts:AssumeRole",),
        keys={
            "aws:SourceAccount": (lambda c: c.account, FLOW_LOGS_ROLE),
            "aws:SourceArn": (
                lambda c: c.source_arn or f"arn:{c.partition}:ec2:{c.region}:{c.account}:vpc-flow-log/fl-0",
                FLOW_LOGS_ROLE,
            ),
        },
        source=FLOW_LOGS_ROLE,
    ),
    # Instance profiles and Lambda execution roles: the guides give the bare trust, no condition keys.
    "ec2.amazonaws.com": Principal(
        ("sts:AssumeRole",), {}, "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_use_switch-role-ec2.html"
    ),
    "lambda.amazonaws.com": Principal(
        ("sts:AssumeRole",), {}, "https://docs.aws.amazon.com/lambda/latest/dg/lambda-intro-execution-role.html"
    ),
    # State machine roles (the CDK Provider framework's waiter): the guide's trust is the bare principal.
    "states.amazonaws.com": Principal(
        ("sts:AssumeRole",), {}, "https://docs.aws.amazon.com/step-functions/latest/dg/procedure-create-iam-role.html"
    ),
}

OBSERVED = {
    ("pods.eks.amazonaws.com", "aws:SourceAccount"): (
        "seen working on live clusters (https://github.com/awslabs/mountpoint-s3-csi-driver/issues/781) "
        "but not in the EKS user guide"
    ),
    ("pods.eks.amazonaws.com", "aws:SourceArn"): (
        "not in the EKS user guide; field reports only: trusts validated on live clusters scope it to the "
        "association ARN arn:aws:eks:REGION:ACCOUNT:podidentityassociation/CLUSTER/* "
        "(terraform-aws-modules/terraform-aws-eks#3743), and awslabs/mountpoint-s3-csi-driver#781 saw even that "
        "break credentials"
    ),
}


def context(service: str, caller: Caller, principals: Mapping[str, Principal] = PRINCIPALS) -> dict[str, Any]:
    """The request context `service` is documented to send for `caller`."""
    ctx = {key: value(caller) for key, (value, _) in principals[service].keys.items()}
    ctx["aws:PrincipalServiceName"] = service  # IAM UG: present on every request a service principal makes
    return ctx


def _statements_for(document: Mapping[str, Any], service: str) -> list[Mapping[str, Any]]:
    out = []
    for s in document.get("Statement", []):
        services = s.get("Principal", {}).get("Service", []) if isinstance(s.get("Principal"), Mapping) else []
        if service in iam_eval._as_list(services):
            out.append(s)
    return out


def services_of(document: Mapping[str, Any]) -> list[str]:
    found: list[str] = []
    for s in document.get("Statement", []):
        principal = s.get("Principal", {})
        if isinstance(principal, Mapping):
            found += [p for p in iam_eval._as_list(principal.get("Service", [])) if p not in found]
    return found


def unknown_keys(
    role: str, document: Mapping[str, Any], service: str, principals: Mapping[str, Principal] = PRINCIPALS
) -> list[str]:
    """(c): every condition key `service` is not documented to send, said so with what we know of it."""
    documented = set(principals[service].keys) | {"aws:PrincipalServiceName"}
    problems = []
    for s in _statements_for(document, service):
        for operator, keys in s.get("Condition", {}).items():
            for key in keys:
                if key not in documented:
                    note = OBSERVED.get((service, key), "no documentation or field report found")
                    problems.append(
                        f"trust of role {role}: condition {operator} {key} is an UNKNOWN for {service} ({note}); "
                        f"documented keys: {', '.join(sorted(documented))} ({principals[service].source})"
                    )
    return problems


def failing_conditions(document: Mapping[str, Any], service: str, ctx: Mapping[str, Any]) -> list[str]:
    """Each condition of the principal's statements that does not hold for `ctx`, with the value it saw."""
    failing = []
    for s in _statements_for(document, service):
        for operator, keys in s.get("Condition", {}).items():
            for key, expected in keys.items():
                if not iam_eval.conditions_hold({operator: {key: expected}}, ctx):
                    failing.append(f"{operator} {key} {expected!r} fails on {ctx.get(key, '(key absent)')!r}")
    return failing


def allowed(document: Mapping[str, Any], service: str, ctx: Mapping[str, Any], role_arn: str, action: str) -> bool:
    return iam_eval.decide(document["Statement"], action, ctx, resource=role_arn, principal=service) == iam_eval.ALLOW


def check_pod_identity_role(
    role: str,
    role_arn: str,
    document: Mapping[str, Any],
    own: Caller,
    principals: Mapping[str, Principal] = PRINCIPALS,
) -> list[str]:
    """(a) the role's own association is allowed every documented action; (b) every other namespace, service
    account, cluster and account is denied; (c) unknown keys are reported."""
    service = "pods.eks.amazonaws.com"
    problems = unknown_keys(role, document, service, principals)
    ctx = context(service, own, principals)
    for action in principals[service].actions:
        if not allowed(document, service, ctx, role_arn, action):
            problems.append(
                f"trust of role {role}: {action} by {service} for its own association "
                f"{own.namespace}/{own.service_account} on cluster {own.cluster_name} is not allowed with the "
                f"documented request context: {'; '.join(failing_conditions(document, service, ctx)) or 'no Allow'}"
            )
    others = {
        "another namespace": replace(own, namespace=own.namespace + "-other"),
        "another service account": replace(own, service_account=own.service_account + "-other"),
        "another cluster": replace(own, cluster_name=own.cluster_name + "-other"),
        "another account": replace(own, account="999999999999"),
    }
    for what, caller in others.items():
        if allowed(document, service, context(service, caller, principals), role_arn, "sts:AssumeRole"):
            problems.append(f"trust of role {role}: {what} ({caller}) may assume it")
    return problems


def check_service_role(
    role: str, role_arn: str, document: Mapping[str, Any], service: str, caller: Caller
) -> list[str]:
    """A role for another service principal: documented principal, only documented keys, allowed its action."""
    if service not in PRINCIPALS:
        return [f"trust of role {role}: service principal {service} has no entry in tests/rehearsal/trust.PRINCIPALS"]
    problems = unknown_keys(role, document, service)
    for action in PRINCIPALS[service].actions:
        if not allowed(document, service, context(service, caller), role_arn, action):
            problems.append(f"trust of role {role}: {action} by {service} with its documented context is not allowed")
    return problems
