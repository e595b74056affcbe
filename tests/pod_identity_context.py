"""The request context EKS Pod Identity documents for its AssumeRole, for trust-policy tests.

Session tags (Amazon EKS User Guide, pod-id-abac, "List of session tags added by EKS Pod
Identity") and the account of the cluster (`aws:SourceAccount`). What Pod Identity sends as
`aws:SourceArn` is not documented: `SOURCE_ARN_GUESSES` are values a trust must neither need
nor be broken by (none at all, the cluster ARN, an association ARN).
"""

from __future__ import annotations


def pod_identity_request(
    *, account: str, region: str, cluster: str, namespace: str, service_account: str
) -> dict[str, str]:
    cluster_arn = f"arn:aws:eks:{region}:{account}:cluster/{cluster}"
    return {
        "aws:SourceAccount": account,
        "aws:RequestTag/eks-cluster-arn": cluster_arn,
        "aws:RequestTag/eks-cluster-name": cluster,
        "aws:RequestTag/kubernetes-namespace": namespace,
        "aws:RequestTag/kubernetes-service-account": service_account,
        "aws:RequestTag/kubernetes-pod-name": f"{service_account}-7d9c6b5f4-x2x7q",
        "aws:RequestTag/kubernetes-pod-uid": "0b6c1f0e-1111-2222-3333-444455556666",
    }


def source_arn_guesses(request: dict[str, str]) -> list[dict[str, str]]:
    """The request with no aws:SourceArn, with the cluster's ARN, and with an association's ARN."""
    cluster_arn = request["aws:RequestTag/eks-cluster-arn"]
    association = cluster_arn.replace(":cluster/", ":podidentityassociation/") + "/a-0123456789abcdefg"
    return [request, {**request, "aws:SourceArn": cluster_arn}, {**request, "aws:SourceArn": association}]
