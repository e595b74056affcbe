"""Who may receive a Pod Identity role: the trust policy's conditions, as plain data.

EKS Pod Identity assumes the role as the service principal `pods.eks.amazonaws.com`
with `sts:AssumeRole` and `sts:TagSession` (Amazon EKS User Guide, "Create IAM role
with trust policy required by EKS Pod Identity", pod-id-role), and attaches session
tags naming the cluster, the namespace and the service account of the pod (same
guide, "Enable or disable session tags", pod-id-abac: eks-cluster-arn,
eks-cluster-name, kubernetes-namespace, kubernetes-service-account,
kubernetes-pod-name, kubernetes-pod-uid).

Only documented keys are used here: the request tags. No `aws:SourceArn` and no
`aws:SourceAccount`: the EKS user guide documents both only for the cluster's own service
role (`eks.amazonaws.com`, "Cross-service confused deputy prevention"), never for
`pods.eks.amazonaws.com`, so whether Pod Identity sends them, and with what value, is
undocumented. A condition on an undocumented key refuses every pod the day the service
sends something else (awslabs/mountpoint-s3-csi-driver#781 saw an association-ARN
`aws:SourceArn` condition break credentials). The `eks-cluster-arn` tag already pins the
account, the region and the cluster (an ARN holds all three), so another account's cluster
naming this role (the confused deputy) is refused; `kubernetes-namespace` and
`kubernetes-service-account` pin the pods.
"""

from __future__ import annotations

from fastload_constructs.core.errors import require
from fastload_constructs.core.validation import check_dns_label, check_dns_subdomain

POD_IDENTITY_SERVICE = "pods.eks.amazonaws.com"

# The session tags the trust pins, of those Pod Identity attaches (pod-id-abac, "List of session tags added
# by EKS Pod Identity").
CLUSTER_ARN_TAG = "eks-cluster-arn"
NAMESPACE_TAG = "kubernetes-namespace"
SERVICE_ACCOUNT_TAG = "kubernetes-service-account"


def pod_identity_trust_conditions(
    *, cluster_arn: str, namespace: str, service_account: str
) -> dict[str, dict[str, str]]:
    """Only pods of this cluster's `namespace/service_account` may receive the role.

    `cluster_arn` may be a CDK token (the cluster's ARN): it is placed, never parsed. Keep
    session tags enabled on the association (`DisableSessionTags` false, the default):
    without them no request matches.
    """
    check_dns_label(namespace, "namespace")
    check_dns_subdomain(service_account, "service_account")
    require(
        isinstance(cluster_arn, str) and cluster_arn != "", "cluster_arn", cluster_arn, "an EKS cluster ARN (or token)"
    )
    return {
        "StringEquals": {
            f"aws:RequestTag/{CLUSTER_ARN_TAG}": cluster_arn,
            f"aws:RequestTag/{NAMESPACE_TAG}": namespace,
            f"aws:RequestTag/{SERVICE_ACCOUNT_TAG}": service_account,
        }
    }


__all__ = [
    "CLUSTER_ARN_TAG",
    "NAMESPACE_TAG",
    "POD_IDENTITY_SERVICE",
    "SERVICE_ACCOUNT_TAG",
    "pod_identity_trust_conditions",
]
