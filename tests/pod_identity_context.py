"""The request context EKS Pod Identity documents for its AssumeRole, for trust-policy tests.

Session tags only (Amazon EKS User Guide, pod-id-role and pod-id-abac, "List of session tags
added by EKS Pod Identity"). Whether Pod Identity sends `aws:SourceAccount` or `aws:SourceArn`
is not documented: `source_arn_guesses` gives requests a trust must neither need nor be broken
by (neither key, the account and the cluster ARN, an association ARN).
"""

from __future__ import annotations


def pod_identity_request(
    *, account: str, region: str, cluster: str, namespace: str, service_account: str
) -> dict[str, str]:
    cluster_arn = f"arn:aws:eks:{region}:{account}:cluster/{cluster}"
    return {
        "aws:RequestTag/eks-cluster-arn": cluster_arn,
        "aws:RequestTag/eks-cluster-name": cluster,
        "aws:RequestTag/kubernetes-namespace": namespace,
        "aws:RequestTag/kubernetes-service-account": service_account,
        "aws:RequestTag/kubernetes-pod-name": f"{service_account}-7d9c6b5f4-x2x7q",
        "aws:RequestTag/kubernetes-pod-uid": "0b6c1f0e-1111-2222-3333-444455556666",
    }


def source_arn_guesses(request: dict[str, str]) -> list[dict[str, str]]:
    """The request as documented, with the cluster's account and ARN, and with an association's ARN."""
    cluster_arn = request["aws:RequestTag/eks-cluster-arn"]
    account = cluster_arn.split(":")[4]
    association = cluster_arn.replace(":cluster/", ":podidentityassociation/") + "/a-0123456789abcdefg"
    return [
        request,
        {**request, "aws:SourceAccount": account, "aws:SourceArn": cluster_arn},
        {**request, "aws:SourceAccount": account, "aws:SourceArn": association},
    ]
