"""Who may receive a Pod Identity role: the trust policy's conditions, as plain data.

EKS Pod Identity assumes the role as the service principal `pods.eks.amazonaws.com`
with `sts:AssumeRole` and `sts:TagSession` (Amazon EKS User Guide, "Create IAM role
with trust policy required by EKS Pod Identity", pod-id-role), and attaches session
tags naming the cluster, the namespace and the service account of the pod (same
guide, "Enable or disable session tags", pod-id-abac: eks-cluster-arn,
eks-cluster-name, kubernetes-namespace, kubernetes-service-account,
kubernetes-pod-name, kubernetes-pod-uid).

Only documented keys are used here. In particular no `aws:SourceArn`: the EKS user
guide documents a cluster-ARN `aws:SourceArn` only for the cluster's own service role,
and what (if anything) Pod Identity sends as `aws:SourceArn` is not documented; a
condition on it (even `...IfExists`) would refuse every pod if EKS sends a value that
differs (awslabs/mountpoint-s3-csi-driver#781 saw an association-ARN condition break
credentials). The session tags pin the cluster (by ARN), the namespace and the service
account; `aws:SourceAccount` pins the account whose EKS service acts (confused-deputy
protection).
"""

from __future__ import annotations

from fastload_constructs.core.errors import require
from fastload_constructs.core.validation import check_dns_label, check_dns_subdomain

POD_IDENTITY_SERVICE = "pods.eks.amazonaws.com"
TRUST_ACTIONS = ("sts:AssumeRole", "sts:TagSession")

# Session tags Pod Identity attaches (pod-id-abac, "List of session tags added by EKS Pod Identity").
CLUSTER_ARN_TAG = "eks-cluster-arn"
CLUSTER_NAME_TAG = "eks-cluster-name"
NAMESPACE_TAG = "kubernetes-namespace"
SERVICE_ACCOUNT_TAG = "kubernetes-service-account"
POD_NAME_TAG = "kubernetes-pod-name"
POD_UID_TAG = "kubernetes-pod-uid"
SESSION_TAGS = (CLUSTER_ARN_TAG, CLUSTER_NAME_TAG, NAMESPACE_TAG, SERVICE_ACCOUNT_TAG, POD_NAME_TAG, POD_UID_TAG)


def pod_identity_trust_conditions(
    *, account: str, cluster_arn: str, namespace: str, service_account: str
) -> dict[str, dict[str, str]]:
    """Only this account's EKS, for this cluster's `namespace/service_account`, may assume the role.

    `account` and `cluster_arn` may be CDK tokens (the stack's account, the cluster's ARN):
    they are placed, never parsed. Keep session tags enabled on the association
    (`DisableSessionTags` false, the default): without them no request matches.
    """
    check_dns_label(namespace, "namespace")
    check_dns_subdomain(service_account, "service_account")
    for field, value in (("account", account), ("cluster_arn", cluster_arn)):
        require(isinstance(value, str) and value != "", field, value, "a non-empty string (or a CDK token)")
    return {
        "StringEquals": {
            "aws:SourceAccount": account,
            f"aws:RequestTag/{CLUSTER_ARN_TAG}": cluster_arn,
            f"aws:RequestTag/{NAMESPACE_TAG}": namespace,
            f"aws:RequestTag/{SERVICE_ACCOUNT_TAG}": service_account,
        }
    }


__all__ = [
    "CLUSTER_ARN_TAG",
    "CLUSTER_NAME_TAG",
    "NAMESPACE_TAG",
    "POD_IDENTITY_SERVICE",
    "POD_NAME_TAG",
    "POD_UID_TAG",
    "SERVICE_ACCOUNT_TAG",
    "SESSION_TAGS",
    "TRUST_ACTIONS",
    "pod_identity_trust_conditions",
]
