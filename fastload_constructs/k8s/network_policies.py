"""An ingress NetworkPolicy for the pods of one workload: what the charts admit to pods they own.

Egress stays open (S3, STS through the Pod Identity agent, DNS, the API server). No rules: no ingress at
all (the rule list left out, as in the Kubernetes docs' default-deny example), for pods that listen on no
port. The VPC CNI's policy agent enforces these (`InferenceCluster` turns it on).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cdk8s_plus_28 import k8s
from constructs import Construct


def ingress_policy(
    scope: Construct,
    id: str,
    *,
    pods: Mapping[str, str],
    rules: Sequence[k8s.NetworkPolicyIngressRule] = (),
    name: str | None = None,
) -> k8s.KubeNetworkPolicy:
    """Admit to the pods labelled `pods` only what `rules` allow."""
    return k8s.KubeNetworkPolicy(
        scope,
        id,
        metadata=k8s.ObjectMeta(name=name) if name is not None else None,
        spec=k8s.NetworkPolicySpec(
            pod_selector=k8s.LabelSelector(match_labels=dict(pods)),
            policy_types=["Ingress"],
            ingress=list(rules) or None,
        ),
    )
