"""What `Ref` and `Fn::GetAtt` return, per CloudFormation resource type in our templates.

Each entry is the "Return values" section of the type's page in the CloudFormation
Template Reference (the URL beside it). A form the table leaves out (`ref=None`, or an
attribute not listed) is not modelled: a template that uses it fails the rehearsal
with the type and form named, never a placeholder. A type missing from the table
fails the same way (`UnknownReturnValue`).

Names CloudFormation generates follow `environment.generated_name` within the type's
documented length limit; IDs have the service's documented shape (`vpc-` + 17 hex digits).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tests.rehearsal.environment import hex_id, random_chars, uuid_for

if TYPE_CHECKING:
    from tests.rehearsal.resolve import ResourceContext

Value = Callable[["ResourceContext"], Any]
DOCS = "https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-{}.html"


class UnknownReturnValue(AssertionError):
    """A resource type or `Ref`/`GetAtt` form the table does not model."""


@dataclass(frozen=True)
class ReturnValues:
    url: str
    ref: Value | None
    attributes: dict[str, Value] = field(default_factory=dict)


def _arn(c: ResourceContext, service: str, resource: str, *, region: bool = True, account: bool = True) -> str:
    e = c.env
    return f"arn:{e.partition}:{service}:{e.region if region else ''}:{e.account if account else ''}:{resource}"


def _name(prop: str, max_length: int, *, lowercase: bool = False) -> Value:
    """The name property when the template sets it, else the name CloudFormation generates."""
    return lambda c: c.prop(prop) or c.generated_name(max_length, lowercase=lowercase)


def _id(prefix: str) -> Value:
    return lambda c: hex_id(prefix, c.seed)


# --- names and ARNs used by several entries ---------------------------------------------------------------
ROLE_NAME = _name("RoleName", 64)  # IAM: role names up to 64 characters (IAM User Guide, "IAM quotas")
INSTANCE_PROFILE_NAME = _name("InstanceProfileName", 128)  # IAM: instance profile names up to 128 characters
STATE_MACHINE_NAME = _name("StateMachineName", 80)  # Step Functions: state machine names up to 80 characters
QUEUE_NAME = _name("QueueName", 80)  # SQS: queue names up to 80 characters (SQS Developer Guide, quotas)
BUCKET_NAME = _name("BucketName", 63, lowercase=True)  # S3 bucket naming rules: 3-63, lower case
FUNCTION_NAME = _name("FunctionName", 64)  # Lambda: function names up to 64 characters
RULE_NAME = _name("Name", 64)  # EventBridge: rule names up to 64 characters
LOG_GROUP_NAME = _name("LogGroupName", 512)  # CloudWatch Logs: log group names up to 512 characters


def _cluster_name(c: ResourceContext) -> str:
    return c.prop("Name") or c.generated_name(100)


def _nodegroup_name(c: ResourceContext) -> str:
    """NodegroupName, else `<LogicalId>-<12 random>` as EKS/CloudFormation name it (observed in
    aws/aws-cdk#29794: `ng19F1EA947-sSziNMzPVkik`)."""
    return c.prop("NodegroupName") or f"{c.logical_id}-{random_chars(c.seed, 12)}"


def _workspace_id(c: ResourceContext) -> str:
    return "ws-" + uuid_for(c.seed)


def _association_id(c: ResourceContext) -> str:
    return "a-" + random_chars(c.seed, 17, "abcdefghijklmnopqrstuvwxyz0123456789")


def _queue_url(c: ResourceContext) -> str:
    return f"https://sqs.{c.env.region}.{c.env.url_suffix}/{c.env.account}/{QUEUE_NAME(c)}"


def _layer_arn(c: ResourceContext) -> str:
    return _arn(c, "lambda", f"layer:{c.prop('LayerName') or c.generated_name(140)}:1")


def _log_group_arn(c: ResourceContext) -> str:
    return _arn(c, "logs", f"log-group:{LOG_GROUP_NAME(c)}:*")


def _role_arn(c: ResourceContext) -> str:
    path = c.prop("Path") or "/"
    return f"arn:{c.env.partition}:iam::{c.env.account}:role{path}{ROLE_NAME(c)}"


def _instance_profile_arn(c: ResourceContext) -> str:
    path = c.prop("Path") or "/"
    return f"arn:{c.env.partition}:iam::{c.env.account}:instance-profile{path}{INSTANCE_PROFILE_NAME(c)}"


def _state_machine_arn(c: ResourceContext) -> str:
    return _arn(c, "states", f"stateMachine:{STATE_MACHINE_NAME(c)}")


def _managed_policy_arn(c: ResourceContext) -> str:
    path = c.prop("Path") or "/"
    name = c.prop("ManagedPolicyName") or c.generated_name(128)
    return f"arn:{c.env.partition}:iam::{c.env.account}:policy{path}{name}"


def _eip(c: ResourceContext) -> str:
    b = random_chars(c.seed, 3, "".join(chr(i) for i in range(1, 255)))
    return f"54.{ord(b[0])}.{ord(b[1])}.{ord(b[2])}"


TABLE: dict[str, ReturnValues] = {
    "AWS::APS::RuleGroupsNamespace": ReturnValues(
        DOCS.format("aps-rulegroupsnamespace"),
        # Ref is the ARN: arn:<partition>:aps:<region>:<account>:rulegroupsnamespace/<workspace id>/<name>.
        ref=lambda c: _arn(
            c, "aps", "rulegroupsnamespace/ws-" + uuid_for(c.seed) + "/" + str(c.prop("Name") or c.logical_id)
        ),
        attributes={
            "Arn": lambda c: _arn(
                c, "aps", "rulegroupsnamespace/ws-" + uuid_for(c.seed) + "/" + str(c.prop("Name") or c.logical_id)
            ),
        },
    ),
    "AWS::APS::Scraper": ReturnValues(
        DOCS.format("aps-scraper"),
        ref=lambda c: _arn(c, "aps", "scraper/s-" + uuid_for(c.seed)),
        attributes={
            "Arn": lambda c: _arn(c, "aps", "scraper/s-" + uuid_for(c.seed)),
            "ScraperId": lambda c: "s-" + uuid_for(c.seed),
        },
    ),
    "AWS::APS::Workspace": ReturnValues(
        DOCS.format("aps-workspace"),
        ref=lambda c: _arn(c, "aps", "workspace/" + _workspace_id(c)),  # Ref is the ARN, not the ID
        attributes={
            "Arn": lambda c: _arn(c, "aps", "workspace/" + _workspace_id(c)),
            "WorkspaceId": _workspace_id,
            "PrometheusEndpoint": lambda c: (
                f"https://aps-workspaces.{c.env.region}.{c.env.url_suffix}/workspaces/{_workspace_id(c)}/"
            ),
        },
    ),
    "AWS::EC2::EIP": ReturnValues(
        DOCS.format("ec2-eip"),
        ref=_eip,
        attributes={"AllocationId": _id("eipalloc"), "PublicIp": _eip},
    ),
    "AWS::EC2::FlowLog": ReturnValues(DOCS.format("ec2-flowlog"), ref=_id("fl"), attributes={"Id": _id("fl")}),
    "AWS::EC2::InternetGateway": ReturnValues(
        DOCS.format("ec2-internetgateway"), ref=_id("igw"), attributes={"InternetGatewayId": _id("igw")}
    ),
    "AWS::EC2::LaunchTemplate": ReturnValues(
        DOCS.format("ec2-launchtemplate"),
        ref=_id("lt"),
        attributes={
            "LaunchTemplateId": _id("lt"),
            "LatestVersionNumber": lambda c: "1",
            "DefaultVersionNumber": lambda c: "1",
        },
    ),
    "AWS::EC2::NatGateway": ReturnValues(
        DOCS.format("ec2-natgateway"), ref=_id("nat"), attributes={"NatGatewayId": _id("nat")}
    ),
    "AWS::EC2::Route": ReturnValues(DOCS.format("ec2-route"), ref=None),
    "AWS::EC2::RouteTable": ReturnValues(
        DOCS.format("ec2-routetable"), ref=_id("rtb"), attributes={"RouteTableId": _id("rtb")}
    ),
    "AWS::EC2::SecurityGroup": ReturnValues(
        DOCS.format("ec2-securitygroup"),
        ref=_id("sg"),  # in a VPC, Ref is the group ID
        attributes={"GroupId": _id("sg"), "VpcId": lambda c: c.prop("VpcId")},
    ),
    "AWS::EC2::Subnet": ReturnValues(
        DOCS.format("ec2-subnet"),
        ref=_id("subnet"),
        attributes={
            "SubnetId": _id("subnet"),
            "AvailabilityZone": lambda c: c.prop("AvailabilityZone"),
            "CidrBlock": lambda c: c.prop("CidrBlock"),
            "VpcId": lambda c: c.prop("VpcId"),
        },
    ),
    "AWS::EC2::SubnetRouteTableAssociation": ReturnValues(
        DOCS.format("ec2-subnetroutetableassociation"), ref=_id("rtbassoc"), attributes={"Id": _id("rtbassoc")}
    ),
    "AWS::EC2::VPC": ReturnValues(
        DOCS.format("ec2-vpc"),
        ref=_id("vpc"),
        attributes={
            "VpcId": _id("vpc"),
            "CidrBlock": lambda c: c.prop("CidrBlock"),
            "DefaultSecurityGroup": lambda c: hex_id("sg", c.seed + "/default"),
            "DefaultNetworkAcl": _id("acl"),
        },
    ),
    "AWS::EC2::VPCEndpoint": ReturnValues(
        DOCS.format("ec2-vpcendpoint"), ref=_id("vpce"), attributes={"Id": _id("vpce")}
    ),
    "AWS::EC2::VPCGatewayAttachment": ReturnValues(DOCS.format("ec2-vpcgatewayattachment"), ref=None),
    "AWS::EKS::AccessEntry": ReturnValues(
        DOCS.format("eks-accessentry"),
        ref=None,
        attributes={
            "AccessEntryArn": lambda c: _arn(c, "eks", f"access-entry/{c.prop('ClusterName')}/role/{uuid_for(c.seed)}")
        },
    ),
    "AWS::EKS::Addon": ReturnValues(
        DOCS.format("eks-addon"),
        ref=lambda c: f"{c.prop('ClusterName')}|{c.prop('AddonName')}",
        attributes={
            "Arn": lambda c: _arn(c, "eks", f"addon/{c.prop('ClusterName')}/{c.prop('AddonName')}/{uuid_for(c.seed)}")
        },
    ),
    "AWS::EKS::Cluster": ReturnValues(
        DOCS.format("eks-cluster"),
        ref=_cluster_name,
        attributes={
            "Arn": lambda c: _arn(c, "eks", f"cluster/{_cluster_name(c)}"),
            "ClusterSecurityGroupId": lambda c: hex_id("sg", c.seed + "/cluster"),
            "Endpoint": lambda c: (
                f"https://{random_chars(c.seed, 32, '0123456789ABCDEF')}.gr7.{c.env.region}.eks.{c.env.url_suffix}"
            ),
            "CertificateAuthorityData": lambda c: base64.b64encode(c.seed.encode()).decode(),
            "OpenIdConnectIssuerUrl": lambda c: (
                f"https://oidc.eks.{c.env.region}.{c.env.url_suffix}/id/{random_chars(c.seed, 32, '0123456789ABCDEF')}"
            ),
        },
    ),
    "AWS::EKS::Nodegroup": ReturnValues(
        DOCS.format("eks-nodegroup"),
        ref=lambda c: f"{c.prop('ClusterName')}/{_nodegroup_name(c)}",  # <cluster>/<node group>: no label value
        attributes={
            "NodegroupName": _nodegroup_name,
            "ClusterName": lambda c: c.prop("ClusterName"),
            "Arn": lambda c: _arn(
                c, "eks", f"nodegroup/{c.prop('ClusterName')}/{_nodegroup_name(c)}/{uuid_for(c.seed)}"
            ),
        },
    ),
    "AWS::EKS::PodIdentityAssociation": ReturnValues(
        DOCS.format("eks-podidentityassociation"),
        ref=lambda c: _arn(c, "eks", f"podidentityassociation/{c.prop('ClusterName')}/{_association_id(c)}"),
        attributes={
            "AssociationArn": lambda c: _arn(
                c, "eks", f"podidentityassociation/{c.prop('ClusterName')}/{_association_id(c)}"
            ),
            "AssociationId": _association_id,
        },
    ),
    "AWS::Events::Rule": ReturnValues(
        DOCS.format("events-rule"),
        ref=RULE_NAME,  # the rule name on the default event bus
        attributes={"Arn": lambda c: _arn(c, "events", f"rule/{RULE_NAME(c)}")},
    ),
    "AWS::IAM::ManagedPolicy": ReturnValues(
        DOCS.format("iam-managedpolicy"), ref=_managed_policy_arn, attributes={"PolicyArn": _managed_policy_arn}
    ),
    "AWS::IAM::Policy": ReturnValues(DOCS.format("iam-policy"), ref=None),
    "AWS::IAM::Role": ReturnValues(
        DOCS.format("iam-role"),
        ref=ROLE_NAME,
        attributes={
            "Arn": _role_arn,
            "RoleId": lambda c: "AROA" + random_chars(c.seed, 17, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"),
        },
    ),
    # Ref: the instance profile's name; GetAtt Arn.
    "AWS::IAM::InstanceProfile": ReturnValues(
        DOCS.format("iam-instanceprofile"), ref=INSTANCE_PROFILE_NAME, attributes={"Arn": _instance_profile_arn}
    ),
    "AWS::Lambda::Function": ReturnValues(
        DOCS.format("lambda-function"),
        ref=FUNCTION_NAME,
        attributes={"Arn": lambda c: _arn(c, "lambda", f"function:{FUNCTION_NAME(c)}")},
    ),
    "AWS::Lambda::LayerVersion": ReturnValues(
        DOCS.format("lambda-layerversion"), ref=_layer_arn, attributes={"LayerVersionArn": _layer_arn}
    ),
    # Ref: the key ID, a UUID; GetAtt Arn (arn:<partition>:kms:<region>:<account>:key/<key ID>) and KeyId.
    "AWS::KMS::Key": ReturnValues(
        DOCS.format("kms-key"),
        ref=lambda c: uuid_for(c.seed),
        attributes={"Arn": lambda c: _arn(c, "kms", "key/" + uuid_for(c.seed)), "KeyId": lambda c: uuid_for(c.seed)},
    ),
    "AWS::Logs::LogGroup": ReturnValues(
        DOCS.format("logs-loggroup"), ref=LOG_GROUP_NAME, attributes={"Arn": _log_group_arn}
    ),
    "AWS::S3::Bucket": ReturnValues(
        DOCS.format("s3-bucket"),
        ref=BUCKET_NAME,
        attributes={
            "Arn": lambda c: f"arn:{c.env.partition}:s3:::{BUCKET_NAME(c)}",
            "DomainName": lambda c: f"{BUCKET_NAME(c)}.s3.{c.env.url_suffix}",
            "RegionalDomainName": lambda c: f"{BUCKET_NAME(c)}.s3.{c.env.region}.{c.env.url_suffix}",
        },
    ),
    "AWS::S3::BucketPolicy": ReturnValues(DOCS.format("s3-bucketpolicy"), ref=None),
    "AWS::SQS::Queue": ReturnValues(
        DOCS.format("sqs-queue"),
        ref=_queue_url,  # Ref is the queue URL
        attributes={"Arn": lambda c: _arn(c, "sqs", QUEUE_NAME(c)), "QueueName": QUEUE_NAME, "QueueUrl": _queue_url},
    ),
    "AWS::SQS::QueuePolicy": ReturnValues(DOCS.format("sqs-queuepolicy"), ref=None),
    "AWS::SSM::Parameter": ReturnValues(
        DOCS.format("ssm-parameter"),
        # Name left out: CloudFormation names it `CFN-<LogicalId>-<random>` (observed).
        ref=lambda c: c.prop("Name") or f"CFN-{c.logical_id}-{random_chars(c.seed, 12)}",
        attributes={"Type": lambda c: c.prop("Type"), "Value": lambda c: c.prop("Value")},
    ),
    # Ref: the state machine's ARN; GetAtt Arn and Name (the CDK Provider framework's waiter for
    # infra.NodeImageSnapshot's job).
    "AWS::StepFunctions::StateMachine": ReturnValues(
        DOCS.format("stepfunctions-statemachine"),
        ref=_state_machine_arn,
        attributes={"Arn": _state_machine_arn, "Name": STATE_MACHINE_NAME},
    ),
    # Custom resources: Ref is the PhysicalResourceId the handler returns, GetAtt its Data; the CDK
    # handlers behind these return values we do not model, and no template here references them.
    "Custom::AWSCDK-EKS-HelmChart": ReturnValues(DOCS.format("cloudformation-customresource"), ref=None),
    "Custom::AWSCDK-EKS-KubernetesResource": ReturnValues(DOCS.format("cloudformation-customresource"), ref=None),
    "Custom::VpcRestrictDefaultSG": ReturnValues(DOCS.format("cloudformation-customresource"), ref=None),
    # infra.NodeImageSnapshot's job (node_image_snapshot_handler/index.py): the builder instance's id is the
    # physical id, its Data the snapshot's id.
    "Custom::NodeImageSnapshot": ReturnValues(
        DOCS.format("cloudformation-customresource"),
        ref=_id("i"),
        attributes={"SnapshotId": _id("snap")},
    ),
}


def entry(resource_type: str) -> ReturnValues:
    if resource_type not in TABLE:
        raise UnknownReturnValue(
            f"resource type {resource_type} has no entry in tests/rehearsal/return_values.TABLE: add its Ref and "
            f"GetAtt forms from its CloudFormation page ({DOCS.format('<service>-<type>')})"
        )
    return TABLE[resource_type]
