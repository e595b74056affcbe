"""The Karpenter controller's IAM policy, interruption events and managed-policy groups (pure).

Karpenter's documented policy for v1.14, for one cluster (the getting-started CloudFormation template,
https://github.com/aws/karpenter-provider-aws/blob/main/website/content/en/v1.14/getting-started/getting-started-with-karpenter/cloudformation.yaml).
With a customer-managed KMS key on node volumes or on the image snapshot, `kms_statements` adds what
RunInstances and CreateFleet need on that key.
"""

from __future__ import annotations

from typing import Any

from fastload_constructs.core.errors import require

KARPENTER_VERSION = "1.14.1"
NODEPOOL_TAG = "karpenter.sh/nodepool"
NODECLASS_TAG = "karpenter.k8s.aws/ec2nodeclass"
CLUSTER_NAME_TAG = "eks:eks-cluster-name"


def controller_policy_statements(
    *,
    cluster_name: str,
    partition: str,
    region: str,
    account: str,
    node_role_arn: str,
    interruption_queue_arn: str,
) -> list[dict[str, Any]]:
    """IAM policy statements (JSON form) of the Karpenter controller for `cluster_name`."""
    require(
        isinstance(cluster_name, str) and "${Token[" not in cluster_name and cluster_name != "",
        "cluster_name",
        cluster_name,
        "a literal EKS cluster name (it is part of IAM condition keys; name the cluster)",
    )
    ec2 = f"arn:{partition}:ec2:{region}"
    owned = {f"aws:ResourceTag/kubernetes.io/cluster/{cluster_name}": "owned"}
    request_owned = {
        f"aws:RequestTag/kubernetes.io/cluster/{cluster_name}": "owned",
        f"aws:RequestTag/{CLUSTER_NAME_TAG}": cluster_name,
    }
    created = [
        f"{ec2}:*:fleet/*",
        f"{ec2}:*:instance/*",
        f"{ec2}:*:volume/*",
        f"{ec2}:*:network-interface/*",
        f"{ec2}:*:launch-template/*",
        f"{ec2}:*:spot-instances-request/*",
    ]
    profile = f"arn:{partition}:iam::{account}:instance-profile/*"
    cluster_arn = f"arn:{partition}:eks:{region}:{account}:cluster/{cluster_name}"
    return [
        {
            "Sid": "AllowScopedEC2InstanceAccessActions",
            "Effect": "Allow",
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
            "Resource": [
                f"{ec2}::image/*",
                f"{ec2}::snapshot/*",
                f"{ec2}:*:security-group/*",
                f"{ec2}:*:subnet/*",
                f"{ec2}:*:capacity-reservation/*",
                f"{ec2}:*:placement-group/*",
            ],
        },
        {
            "Sid": "AllowScopedEC2LaunchTemplateAccessActions",
            "Effect": "Allow",
            "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
            "Resource": f"{ec2}:*:launch-template/*",
            "Condition": {"StringEquals": owned, "StringLike": {f"aws:ResourceTag/{NODEPOOL_TAG}": "*"}},
        },
        {
            "Sid": "AllowScopedEC2InstanceActionsWithTags",
            "Effect": "Allow",
            "Action": ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
            "Resource": created,
            "Condition": {"StringEquals": request_owned, "StringLike": {f"aws:RequestTag/{NODEPOOL_TAG}": "*"}},
        },
        {
            "Sid": "AllowScopedResourceCreationTagging",
            "Effect": "Allow",
            "Action": "ec2:CreateTags",
            "Resource": created,
            "Condition": {
                "StringEquals": {
                    **request_owned,
                    "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                },
                "StringLike": {f"aws:RequestTag/{NODEPOOL_TAG}": "*"},
            },
        },
        {
            "Sid": "AllowScopedResourceTagging",
            "Effect": "Allow",
            "Action": "ec2:CreateTags",
            "Resource": f"{ec2}:*:instance/*",
            "Condition": {
                "StringEquals": owned,
                "StringLike": {f"aws:ResourceTag/{NODEPOOL_TAG}": "*"},
                "StringEqualsIfExists": {f"aws:RequestTag/{CLUSTER_NAME_TAG}": cluster_name},
                "ForAllValues:StringEquals": {"aws:TagKeys": [CLUSTER_NAME_TAG, "karpenter.sh/nodeclaim", "Name"]},
            },
        },
        {
            "Sid": "AllowScopedDeletion",
            "Effect": "Allow",
            "Action": ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
            "Resource": [f"{ec2}:*:instance/*", f"{ec2}:*:launch-template/*"],
            "Condition": {"StringEquals": owned, "StringLike": {f"aws:ResourceTag/{NODEPOOL_TAG}": "*"}},
        },
        {
            "Sid": "AllowPassingInstanceRole",
            "Effect": "Allow",
            "Action": "iam:PassRole",
            "Resource": node_role_arn,
            "Condition": {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}},
        },
        {
            "Sid": "AllowScopedInstanceProfileCreationActions",
            "Effect": "Allow",
            "Action": "iam:CreateInstanceProfile",
            "Resource": profile,
            "Condition": {
                "StringEquals": {**request_owned, "aws:RequestTag/topology.kubernetes.io/region": region},
                "StringLike": {f"aws:RequestTag/{NODECLASS_TAG}": "*"},
            },
        },
        {
            "Sid": "AllowScopedInstanceProfileTagActions",
            "Effect": "Allow",
            "Action": "iam:TagInstanceProfile",
            "Resource": profile,
            "Condition": {
                "StringEquals": {
                    **owned,
                    "aws:ResourceTag/topology.kubernetes.io/region": region,
                    **request_owned,
                    "aws:RequestTag/topology.kubernetes.io/region": region,
                },
                "StringLike": {f"aws:ResourceTag/{NODECLASS_TAG}": "*", f"aws:RequestTag/{NODECLASS_TAG}": "*"},
            },
        },
        {
            "Sid": "AllowScopedInstanceProfileActions",
            "Effect": "Allow",
            "Action": [
                "iam:AddRoleToInstanceProfile",
                "iam:RemoveRoleFromInstanceProfile",
                "iam:DeleteInstanceProfile",
            ],
            "Resource": profile,
            "Condition": {
                "StringEquals": {**owned, "aws:ResourceTag/topology.kubernetes.io/region": region},
                "StringLike": {f"aws:ResourceTag/{NODECLASS_TAG}": "*"},
            },
        },
        {
            "Sid": "AllowAPIServerEndpointDiscovery",
            "Effect": "Allow",
            "Action": "eks:DescribeCluster",
            "Resource": cluster_arn,
        },
        {
            "Sid": "AllowInterruptionQueueActions",
            "Effect": "Allow",
            "Action": ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
            "Resource": interruption_queue_arn,
        },
        {
            "Sid": "AllowZonalShiftStatusReadOnly",
            "Effect": "Allow",
            "Action": "arc-zonal-shift:GetManagedResource",
            "Resource": "*",
            "Condition": {"StringEquals": {"arc-zonal-shift:ResourceIdentifier": cluster_arn}},
        },
        {
            "Sid": "AllowRegionalReadActions",
            "Effect": "Allow",
            "Action": [
                "ec2:DescribeCapacityReservations",
                "ec2:DescribeImages",
                "ec2:DescribeInstances",
                "ec2:DescribeInstanceStatus",
                "ec2:DescribeInstanceTypeOfferings",
                "ec2:DescribeInstanceTypes",
                "ec2:DescribeLaunchTemplates",
                "ec2:DescribePlacementGroups",
                "ec2:DescribeSecurityGroups",
                "ec2:DescribeSpotPriceHistory",
                "ec2:DescribeSubnets",
            ],
            "Resource": "*",
            "Condition": {"StringEquals": {"aws:RequestedRegion": region}},
        },
        {
            "Sid": "AllowSSMReadActions",
            "Effect": "Allow",
            "Action": "ssm:GetParameter",
            "Resource": f"arn:{partition}:ssm:{region}::parameter/aws/service/*",
        },
        {"Sid": "AllowPricingReadActions", "Effect": "Allow", "Action": "pricing:GetProducts", "Resource": "*"},
        {
            "Sid": "AllowUnscopedInstanceProfileListAction",
            "Effect": "Allow",
            "Action": "iam:ListInstanceProfiles",
            "Resource": "*",
        },
        {
            "Sid": "AllowInstanceProfileReadActions",
            "Effect": "Allow",
            "Action": "iam:GetInstanceProfile",
            "Resource": profile,
        },
    ]


# Interruption events Karpenter handles (same template): source, detail-type.
INTERRUPTION_EVENTS: dict[str, tuple[str, str]] = {
    "ScheduledChange": ("aws.health", "AWS Health Event"),
    "SpotInterruption": ("aws.ec2", "EC2 Spot Instance Interruption Warning"),
    "Rebalance": ("aws.ec2", "EC2 Instance Rebalance Recommendation"),
    "InstanceStateChange": ("aws.ec2", "EC2 Instance State-change Notification"),
    "CapacityReservationInterruption": ("aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"),
}
# The template's queue: messages older than 5 minutes are stale for a 2-minute warning.
INTERRUPTION_QUEUE_RETENTION_S = 300

# The template's managed policies (each stays under IAM's 6,144-character managed-policy limit).
POLICY_GROUPS: dict[str, tuple[str, ...]] = {
    "NodeLifecycle": (
        "AllowScopedEC2InstanceAccessActions",
        "AllowScopedEC2LaunchTemplateAccessActions",
        "AllowScopedEC2InstanceActionsWithTags",
        "AllowScopedResourceCreationTagging",
        "AllowScopedResourceTagging",
        "AllowScopedDeletion",
    ),
    "IAMIntegration": (
        "AllowPassingInstanceRole",
        "AllowScopedInstanceProfileCreationActions",
        "AllowScopedInstanceProfileTagActions",
        "AllowScopedInstanceProfileActions",
    ),
    "EKSIntegration": ("AllowAPIServerEndpointDiscovery",),
    "Interruption": ("AllowInterruptionQueueActions",),
    "ZonalShift": ("AllowZonalShiftStatusReadOnly",),
    "ResourceDiscovery": (
        "AllowRegionalReadActions",
        "AllowSSMReadActions",
        "AllowPricingReadActions",
        "AllowUnscopedInstanceProfileListAction",
        "AllowInstanceProfileReadActions",
    ),
}


def kms_statements(*, key_arn: str, region: str, url_suffix: str = "amazonaws.com") -> list[dict[str, Any]]:
    """What Karpenter's role needs on a customer-managed KMS key to launch nodes whose volumes it encrypts, or
    that restore a snapshot encrypted with it.

    Without them the node terminates "almost immediately upon creation" (Karpenter v1.14 troubleshooting,
    "Node terminates before ready on failed encrypted EBS volume"); CloudTrail shows the role "is not
    authorized to perform: kms:GenerateDataKeyWithoutPlaintext", and the fix is the controller role's own
    policy (https://github.com/aws/karpenter-provider-aws/issues/4935). Scoped to EC2's use of the key
    (`kms:ViaService`, as the troubleshooting page's key policy) and to grants for AWS resources.
    The key's policy must delegate to IAM (the account root principal, the default key policy).
    """
    via_ec2 = {"StringEquals": {"kms:ViaService": f"ec2.{region}.{url_suffix}"}}
    return [
        {
            "Sid": "AllowNodeVolumeKeyUse",
            "Effect": "Allow",
            "Action": [
                "kms:Decrypt",
                "kms:DescribeKey",
                "kms:GenerateDataKeyWithoutPlaintext",
                "kms:ReEncryptFrom",
                "kms:ReEncryptTo",
            ],
            "Resource": key_arn,
            "Condition": via_ec2,
        },
        {
            "Sid": "AllowNodeVolumeKeyGrants",
            "Effect": "Allow",
            "Action": "kms:CreateGrant",
            "Resource": key_arn,
            "Condition": {**via_ec2, "Bool": {"kms:GrantIsForAWSResource": "true"}},
        },
    ]
