"""An IAM role for one Kubernetes service account, handed to its pods by EKS Pod Identity.

Every role of fastload's pods (model readers, the Karpenter controller, the KEDA
operator, the EBS CSI controller) is one of these, so all trust policies say the
same thing: `pods.eks.amazonaws.com` may `sts:AssumeRole` + `sts:TagSession` only with the
session tags of this cluster (`aws:RequestTag/eks-cluster-arn`, which also pins the account),
this namespace and this service account (`core.access.pod_identity` says why and cites the EKS user
guide; no `aws:SourceArn` or `aws:SourceAccount`, which the guide does not document for Pod
Identity).

By default it also creates the `AWS::EKS::PodIdentityAssociation`, ordered after the
role and every policy granted to it (depending on the role construct covers its
default policy), so a pod started as soon as the association exists already has its
permissions. An add-on that takes `PodIdentityAssociations` itself (the EBS CSI
driver) passes `associate=False`.
"""

from __future__ import annotations

from collections.abc import Sequence

import jsii
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from constructs import Construct, DependencyGroup, IDependable

from fastload_constructs.core.access.pod_identity import POD_IDENTITY_SERVICE, pod_identity_trust_conditions
from fastload_constructs.core.validation import check_dns_label, check_dns_subdomain


@jsii.implements(iam.IGrantable)
class PodIdentityRole(Construct):
    """Role + association for `namespace/service_account` on `cluster`.

    Props: `cluster` (any `eks.ICluster`), `namespace`, `service_account`, `description`,
    `managed_policies` (default none), `associate` (default True: create the association).

    Attributes: `role` (`iam.Role`), `association` (`eks.CfnPodIdentityAssociation` or None),
    `namespace`, `service_account`, `grant_principal` (so `bucket.grant_read(reader)` works).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        namespace: str,
        service_account: str,
        description: str | None = None,
        managed_policies: Sequence[iam.IManagedPolicy] = (),
        associate: bool = True,
    ) -> None:
        self.namespace = check_dns_label(namespace, "namespace")
        self.service_account = check_dns_subdomain(service_account, "service_account")
        super().__init__(scope, id)
        conditions = pod_identity_trust_conditions(
            cluster_arn=cluster.cluster_arn,
            namespace=self.namespace,
            service_account=self.service_account,
        )
        # SessionTagsPrincipal adds sts:TagSession beside sts:AssumeRole (pod-id-role).
        principal = iam.SessionTagsPrincipal(iam.ServicePrincipal(POD_IDENTITY_SERVICE)).with_conditions(conditions)
        self.role = iam.Role(
            self,
            "Role",
            assumed_by=principal,
            description=description or f"EKS Pod Identity role of {self.namespace}/{self.service_account}",
            managed_policies=list(managed_policies) or None,
        )
        self.association: eks.CfnPodIdentityAssociation | None = None
        if associate:
            self.association = eks.CfnPodIdentityAssociation(
                self,
                "Association",
                cluster_name=cluster.cluster_name,
                namespace=self.namespace,
                service_account=self.service_account,
                role_arn=self.role.role_arn,
            )
            # The role's default policy is created by the first grant; a dependency on the
            # construct covers it whenever it appears.
            self.association.node.add_dependency(self.role)
        self._ready = DependencyGroup(self.association if self.association is not None else self.role)
        agent = cluster.eks_pod_identity_agent
        if agent is not None:
            self._ready.add(agent)

    @property
    def grant_principal(self) -> iam.IPrincipal:
        return self.role.grant_principal

    @property
    def role_arn(self) -> str:
        return self.role.role_arn

    @property
    def ready(self) -> IDependable:
        """What a workload using this identity must wait for before its pods start: the association
        (or the role, without one) and the cluster's Pod Identity agent add-on, which hands out the
        credentials (aws_eks_v2's `eks_pod_identity_agent`, as its own ServiceAccount uses it)."""
        return self._ready


__all__ = ["PodIdentityRole"]
