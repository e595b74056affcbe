"""An EKS cluster ready for GPU node groups: aws_eks_v2, access entries, managed add-ons.

Why aws_eks_v2: a native `AWS::EKS::Cluster`, EKS access entries instead of
the aws-auth ConfigMap, and an optional kubectl provider (created here, with
the layer matching the Kubernetes version, because Helm charts and cdk8s
charts are applied through it). Managed node groups rather than Auto Mode:
GPU nodes need our launch template (nodeadm RAID0 of the instance store).

Every other fastload construct takes an `eks.ICluster`, so a cluster made
elsewhere (`eks.Cluster.from_cluster_attributes` with a kubectl provider)
works in place of this one.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from aws_cdk import Token
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

from fastload_constructs.core.cluster.settings import (
    CORE_ADDONS,
    DEFAULT_VERSION,
    EBS_CSI_ADDON,
    addon_names,
    check_admin_role_arns,
    check_version,
    kubectl_layer_module,
)
from fastload_constructs.core.errors import require, whole_number_in
from fastload_constructs.core.naming import LABEL_NODE_ROLE, NODE_ROLE_SYSTEM
from fastload_constructs.infra.cfn import cfn_resource
from fastload_constructs.infra.checkov_findings import CDK_FUNCTION_ENVIRONMENT, CUSTOM_RESOURCE_HANDLER, skip_checks
from fastload_constructs.infra.nag_findings import (
    EKS_NODE_POLICY_REASONS,
    acknowledge,
    acknowledge_managed_policies,
    arn_of,
)
from fastload_constructs.infra.pod_identity_role import PodIdentityRole

# API calls, audit trail and IAM authentication: who did what to the cluster (fastload's default).
DEFAULT_LOGGING: tuple[eks.ClusterLoggingTypes, ...] = (
    eks.ClusterLoggingTypes.API,
    eks.ClusterLoggingTypes.AUDIT,
    eks.ClusterLoggingTypes.AUTHENTICATOR,
)
DEFAULT_SYSTEM_INSTANCE_TYPE = "m6i.large"
_CLUSTER_NAME = re.compile(r"^[0-9A-Za-z][A-Za-z0-9_-]{0,99}$")
EBS_CSI_SERVICE_ACCOUNT = "ebs-csi-controller-sa"
EBS_CSI_POLICY = "service-role/AmazonEBSCSIDriverPolicy"
# Each add-on's configuration values (the add-on's own schema).
ADDON_CONFIGURATION: dict[str, dict[str, object]] = {
    # The VPC CNI's network policy agent enforces the vLLM charts' NetworkPolicy objects; without it EKS
    # accepts them and enforces nothing (Amazon EKS User Guide, cni-network-policy).
    "vpc-cni": {"enableNetworkPolicy": "true"},
    # A default StorageClass (ebs-csi-default-sc, gp3): from Kubernetes 1.30 EKS marks none, so a claim that
    # names no class (FMA's controller chart makes one) stays Pending. "deploy the Amazon EBS recommended default
    # storage class by setting the defaultStorageClass.enabled parameter to true when installing v1.31.0 or later
    # of the aws-ebs-csi-driver add-on" (Amazon EKS User Guide, Kubernetes 1.30:
    # https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions-standard.html).
    EBS_CSI_ADDON: {"defaultStorageClass": {"enabled": True}},
}


@dataclass(frozen=True)
class SystemNodes:
    """Where cluster controllers (Karpenter, KEDA) run: a node selector and what must exist first.

    `node_selector` selects the untainted system nodes by a label set on them (never by
    `eks.amazonaws.com/nodegroup`, whose value CloudFormation only knows as
    `<cluster>/<nodegroup>`); `nodegroup` is ordered before the controllers' Helm charts.
    For nodes you manage yourself, pass their label and `nodegroup=None`.
    """

    node_selector: dict[str, str] = field(default_factory=lambda: {LABEL_NODE_ROLE: NODE_ROLE_SYSTEM})
    nodegroup: eks.Nodegroup | None = None


class InferenceCluster(Construct):
    """EKS control plane, add-ons, admin access and a small untainted system node group.

    Props (CDK types; the cdk.json parser turns strings into them):
    - `version`: "1.33" to "1.36". Default: "1.35".
    - `vpc`, `vpc_subnets`: where the cluster lives. Default: a new VPC (aws_eks_v2's).
    - `endpoint_access`: an `eks.EndpointAccess`. Default: `PUBLIC_AND_PRIVATE`.
    - `admin_role_arns`: role ARNs given cluster-admin access entries (aws_eks_v2's
      `grant_cluster_admin`; call `cluster.grant_cluster_admin(id, arn)` for more). Default: none.
    - `logging`: `eks.ClusterLoggingTypes` to send to CloudWatch. Default: API, AUDIT, AUTHENTICATOR.
    - `ebs_csi`: the aws-ebs-csi-driver add-on with its Pod Identity role and the default StorageClass
      `ebs-csi-default-sc` (gp3) it makes: needed by claims that name no class (FMA's controller). Default: False.
    - `system_nodes`, `system_instance_type`: untainted nodes for CoreDNS and controllers.
      Default: 2 x `ec2.InstanceType("m6i.large")`.
    - `secrets_encryption_key`: the KMS key that envelope-encrypts Kubernetes Secrets (the API key Secret,
      Helm release state). Default: a new customer-managed key with yearly rotation, so access to the
      Secrets can be revoked and audited in KMS apart from the cluster.

    Attributes: `cluster` (an `eks.ICluster`, the `eks.Cluster`), `secrets_key`, `addons`
    (add-on name -> `eks.IAddon`), `system_nodegroup` (or None), `system_nodes` (a `SystemNodes`
    for the controllers' `system_nodes=`, or None without system nodes).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        version: str = DEFAULT_VERSION,
        vpc: ec2.IVpc | None = None,
        vpc_subnets: Sequence[ec2.SubnetSelection] | None = None,
        endpoint_access: eks.EndpointAccess = eks.EndpointAccess.PUBLIC_AND_PRIVATE,
        admin_role_arns: Sequence[str] = (),
        logging: Sequence[eks.ClusterLoggingTypes] = DEFAULT_LOGGING,
        ebs_csi: bool = False,
        system_nodes: int = 2,
        system_instance_type: ec2.InstanceType | None = None,
        cluster_name: str | None = None,
        secrets_encryption_key: kms.IKey | None = None,
    ) -> None:
        """`cluster_name`: a fixed EKS name (CloudFormation names it otherwise); Karpenter needs a literal one."""
        check_version(version)
        if cluster_name is not None:
            require(
                isinstance(cluster_name, str) and bool(_CLUSTER_NAME.match(cluster_name)),
                "cluster_name",
                cluster_name,
                "1-100 letters, digits, '-' or '_', starting with a letter or digit (EKS CreateCluster)",
            )
        require(
            isinstance(endpoint_access, eks.EndpointAccess),
            "endpoint_access",
            endpoint_access,
            "an eks.EndpointAccess (PUBLIC, PRIVATE, PUBLIC_AND_PRIVATE, or .only_from(...))",
        )
        require(
            not isinstance(logging, str)
            and all(isinstance(t, eks.ClusterLoggingTypes) for t in logging)
            and len(set(logging)) == len(logging),
            "logging",
            logging,
            "a list of distinct eks.ClusterLoggingTypes",
        )
        require(
            system_instance_type is None or isinstance(system_instance_type, ec2.InstanceType),
            "system_instance_type",
            system_instance_type,
            "an ec2.InstanceType",
        )
        require(not isinstance(admin_role_arns, str), "admin_role_arns", admin_role_arns, "a list of IAM role ARNs")
        check_admin_role_arns([a for a in admin_role_arns if not Token.is_unresolved(a)])
        require(isinstance(ebs_csi, bool), "ebs_csi", ebs_csi, "True or False")
        require(
            # jsii interfaces do not support isinstance: a key has key_arn and grant.
            secrets_encryption_key is None
            or (hasattr(secrets_encryption_key, "key_arn") and hasattr(secrets_encryption_key, "grant")),
            "secrets_encryption_key",
            secrets_encryption_key,
            "a kms.IKey, or None for a new key",
        )
        whole_number_in(system_nodes, "system_nodes", 0, 10)
        super().__init__(scope, id)

        module, layer_class = kubectl_layer_module(version)
        kubectl_layer = getattr(importlib.import_module(module), layer_class)(self, "KubectlLayer")
        self.secrets_key: kms.IKey = secrets_encryption_key or kms.Key(
            self, "SecretsKey", description="Envelope encryption of the EKS cluster's Secrets", enable_key_rotation=True
        )
        self._cluster = eks.Cluster(
            self,
            "Cluster",
            version=eks.KubernetesVersion.of(version),
            cluster_name=cluster_name,
            vpc=vpc,
            vpc_subnets=list(vpc_subnets) if vpc_subnets else None,
            endpoint_access=endpoint_access,
            cluster_logging=list(logging),
            # Managed node groups, not Auto Mode: GPU nodes need our launch template.
            default_capacity_type=eks.DefaultCapacityType.NODEGROUP,
            default_capacity=0,
            kubectl_provider_options=eks.KubectlProviderOptions(kubectl_layer=kubectl_layer),
            secrets_encryption_key=self.secrets_key,
        )
        # EKS calls KMS as the cluster role to wrap and unwrap the Secrets' data keys; aws_eks_v2 (2.275) grants
        # nothing for the key it is given. The actions are those the terraform-aws-eks module grants its cluster
        # role for the same key (https://github.com/terraform-aws-modules/terraform-aws-eks, cluster_encryption).
        # Ordered before the cluster: EKS checks the key when it creates the cluster.
        self.secrets_key.grant(
            self._cluster.role, "kms:Encrypt", "kms:Decrypt", "kms:ListGrants", "kms:DescribeKey"
        ).apply_before(self._cluster.node.find_child("Resource"))
        # aws_eks_v2's Python stubs (2.27x) omit ICluster.kubectl_provider_options on Cluster.
        self.cluster: eks.ICluster = cast(eks.ICluster, self._cluster)
        # aws_eks_v2's own grant: an access entry with AmazonEKSClusterAdminPolicy, cluster scope.
        self.admin_access_entries = [
            self._cluster.grant_cluster_admin(f"Admin{index}", arn) for index, arn in enumerate(admin_role_arns)
        ]

        # CoreDNS and the controllers of add-ons need nodes without the GPU taint.
        self.system_nodegroup: eks.Nodegroup | None = None
        self.system_nodes: SystemNodes | None = None
        self.system_launch_template: ec2.LaunchTemplate | None = None
        if system_nodes:
            # IMDSv2 only, one hop, as on the GPU nodes: a pod on a system node (controllers, CoreDNS)
            # cannot reach the node role's credentials through the metadata service (a container's
            # request needs a second hop); pods get AWS credentials from Pod Identity only.
            self.system_launch_template = ec2.LaunchTemplate(
                self,
                "SystemNodesLaunchTemplate",
                require_imdsv2=True,
                http_put_response_hop_limit=1,
            )
            self.system_nodegroup = self._cluster.add_nodegroup_capacity(
                "SystemNodes",
                instance_types=[system_instance_type or ec2.InstanceType(DEFAULT_SYSTEM_INSTANCE_TYPE)],
                ami_type=eks.NodegroupAmiType.AL2023_X86_64_STANDARD,
                labels={LABEL_NODE_ROLE: NODE_ROLE_SYSTEM},
                min_size=system_nodes,
                desired_size=system_nodes,
                max_size=max(system_nodes, 2 * system_nodes),
                launch_template_spec=eks.LaunchTemplateSpec(
                    id=str(self.system_launch_template.launch_template_id),  # a token, never None once created
                    version=self.system_launch_template.latest_version_number,
                ),
            )
            self.system_nodes = SystemNodes(nodegroup=self.system_nodegroup)

        self.addons: dict[str, eks.IAddon] = {}
        for name in addon_names(ebs_csi=ebs_csi):
            self.addons[name] = self._add_addon(name)
        self._acknowledge_nag_findings()
        if self._cluster.kubectl_provider is not None:
            # The kubectl provider's functions (aws-cdk-lib's KubectlProvider) run in the cluster's VPC.
            skip_checks(
                self._cluster.kubectl_provider,
                {**CUSTOM_RESOURCE_HANDLER, **CDK_FUNCTION_ENVIRONMENT},
                resource_type="AWS::Lambda::Function",
            )

    def _acknowledge_nag_findings(self) -> None:
        """AwsSolutions findings on what aws_eks_v2 creates for us, each with why it stays."""
        acknowledge_managed_policies(
            self._cluster.role,
            {
                "AmazonEKSClusterPolicy": "the EKS cluster service role; EKS requires this AWS managed policy "
                "and AWS updates it as the control plane needs new permissions",
            },
        )
        if self.system_nodegroup is not None:
            acknowledge_managed_policies(self.system_nodegroup.role, EKS_NODE_POLICY_REASONS)
        provider = self._cluster.kubectl_provider
        if provider is None:
            return
        # The kubectl provider (aws-cdk-lib aws_eks_v2 KubectlProvider): two Lambda functions we do not
        # define, applying manifests and Helm charts from inside the VPC.
        acknowledge_managed_policies(
            provider,
            {
                "AWSLambdaBasicExecutionRole": "the kubectl provider's Lambda functions write their own logs to "
                "CloudWatch Logs; role created by aws-cdk-lib's KubectlProvider",
                "AWSLambdaVPCAccessExecutionRole": "the kubectl provider's Lambda functions run in the cluster's VPC "
                "(to reach a private API endpoint) and must manage their ENIs",
                "AmazonEC2ContainerRegistryReadOnly": "the kubectl handler pulls Helm charts from ECR OCI "
                "repositories; read-only",
                "AmazonElasticContainerRegistryPublicReadOnly": "the kubectl handler pulls Helm charts from ECR "
                "Public in partitions that have it (the policy is attached only there); read-only",
            },
        )
        handler = provider.node.find_child("Handler")
        acknowledge(
            handler,
            "AwsSolutions-L1",
            "aws-cdk-lib pins the kubectl handler's runtime to the Python version its kubectl, Helm "
            "and AWS CLI layers are built for; a newer runtime is not supported by those layers",
        )
        on_event = provider.node.find_child("Provider").node.find_child("framework-onEvent")
        acknowledge(
            on_event,
            f"AwsSolutions-IAM5[Resource::{arn_of(cfn_resource(handler))}:*]",
            "the custom-resource framework may invoke any version of the kubectl handler function "
            "(lambda:InvokeFunction on <handler ARN>:*); it is scoped to that one function",
        )

    def _add_addon(self, name: str) -> eks.IAddon:
        if name == "eks-pod-identity-agent":
            # The cluster creates this one lazily for Pod Identity service
            # accounts; asking for it here keeps a single instance.
            addon = self._cluster.eks_pod_identity_agent
            assert addon is not None
            return addon
        addon = eks.Addon(
            self,
            _construct_id(name),
            cluster=self.cluster,
            addon_name=name,
            configuration_values=ADDON_CONFIGURATION.get(name),
        )
        cfn = cfn_resource(addon)
        # EKS installs self-managed vpc-cni, coredns and kube-proxy with the
        # cluster; the managed add-on takes them over instead of failing.
        cfn.add_property_override("ResolveConflicts", "OVERWRITE")
        if name == "coredns" and self.system_nodegroup is not None:
            addon.node.add_dependency(self.system_nodegroup)
        if name == EBS_CSI_ADDON:
            identity = PodIdentityRole(
                self,
                "EbsCsi",
                cluster=self.cluster,
                namespace="kube-system",
                service_account=EBS_CSI_SERVICE_ACCOUNT,
                description="EBS CSI controller (kube-system/ebs-csi-controller-sa)",
                managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(EBS_CSI_POLICY)],
                # The add-on creates the association from its PodIdentityAssociations below.
                associate=False,
            )
            role = identity.role
            acknowledge_managed_policies(
                role,
                {
                    "AmazonEBSCSIDriverPolicy": "the EBS CSI controller's actions (create, attach, tag volumes, "
                    "snapshots) as AWS documents and maintains them for the aws-ebs-csi-driver add-on",
                },
            )
            cfn.add_property_override(
                "PodIdentityAssociations",
                [
                    {"ServiceAccount": EBS_CSI_SERVICE_ACCOUNT, "RoleArn": role.role_arn},
                ],
            )
            addon.node.add_dependency(self._cluster.eks_pod_identity_agent)
        return addon

    @property
    def security_group_id(self) -> str:
        """The EKS cluster security group: what managed nodes get, and what reaches their pods."""
        return self._cluster.cluster_security_group_id


def _construct_id(addon_name: str) -> str:
    return "".join(part.capitalize() for part in addon_name.split("-")) + "Addon"


__all__ = ["CORE_ADDONS", "EBS_CSI_ADDON", "InferenceCluster", "SystemNodes"]
