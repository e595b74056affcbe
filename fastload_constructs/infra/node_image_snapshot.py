"""`NodeImageSnapshot`: the EBS snapshot every GPU node restores its containerd volume from, built in the stack.

A custom resource (aws-cdk-lib's Provider framework, `node_image_snapshot_handler/index.py`) runs the job
of aws-samples/bottlerocket-images-cache as part of `cdk deploy`: it launches a builder instance of the
nodes' OS and release (the non-GPU variant: same containerd), pulls the images with the commands
`core.cluster.image_cache` writes (on AL2023 also importing and pinning the sandbox image the restored
volume would hide), stops it, snapshots the data volume, tags the snapshot with the images, optionally
enables Fast Snapshot Restore in the nodes' Availability Zones, and terminates the builder. Its
`snapshot_id` goes to the EC2NodeClass or launch template in the same deploy. Any change of the images
(or the builder) builds a new snapshot; CloudFormation then deletes the old one (Fast Snapshot Restore is
disabled first, as EBS requires).

The builder runs in private subnets with a route out (NAT) to the registries and Systems Manager; its role
has the SSM core policy and ECR read access; IMDSv2 with one hop; no inbound rule.

Cost while it exists: the snapshot's storage; with restore mode `fsr`, one Fast Snapshot Restore per
Availability Zone, billed per hour ($0.75 per snapshot-AZ hour in us-east-1), and each zone's bucket of
MIN(10, 1024 / snapshot GiB) volume-creation credits (refilled at that many per hour): a larger burst of
new nodes in an hour is restored lazily (docs/gpu-nodes.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

from aws_cdk import CustomResource, Duration, Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_stepfunctions as sfn
from aws_cdk import custom_resources as cr
from constructs import Construct

from fastload_constructs.core.cluster import bottlerocket
from fastload_constructs.core.cluster.ami_family import (
    DEFAULT_AMI_FAMILY,
    AmiFamily,
    check_ami_alias,
    default_ami_alias,
    node_os,
)
from fastload_constructs.core.cluster.image_cache import (
    AL2023_SANDBOX_IMAGE,
    DEFAULT_IOPS,
    DEFAULT_RESTORE_MODE,
    DEFAULT_THROUGHPUT_MIBPS,
    DEFAULT_VOLUME_GIB,
    DEVICE_NAME,
    ImageCache,
    RestoreMode,
    bottlerocket_builder_commands,
    builder_ami_parameter,
    builder_script,
    check_restore_mode,
)
from fastload_constructs.core.cluster.settings import DEFAULT_KUBERNETES_VERSION, check_version
from fastload_constructs.core.errors import require
from fastload_constructs.infra.checkov_findings import (
    CDK_FUNCTION_ENVIRONMENT,
    CUSTOM_RESOURCE_HANDLER,
    OUTSIDE_VPC,
    SERVICE_LOG_GROUP,
    skip_checks,
)
from fastload_constructs.infra.nag_findings import acknowledge, acknowledge_managed_policies, flatten

HANDLER = Path(__file__).parent / "node_image_snapshot_handler"
RESOURCE_TYPE = "Custom::NodeImageSnapshot"
# An x86_64 type (the GPU nodes' architecture, so the images pulled are theirs) offered in every commercial,
# China and GovCloud Region (cfn-lint's per-Region EC2 type lists), with network and EBS bandwidth for a
# ~12 GB image in minutes (t3.2xlarge: up to 5 Gbps; T3 launches in unlimited credit mode, so the unpacking
# is not throttled). Any current x86_64 type of the Region will do: `instance_type`.
DEFAULT_BUILDER_INSTANCE_TYPE = "t3.2xlarge"
BUILDER_ROOT_GIB = 30  # AL2023's root (the AMI's is 20 GiB) with room for containerd's temporary files
# The builder's own volumes: the AMI's OS volume is left as the AMI has it.
BUILD_TAG = "fastload:snapshot-build"


class NodeImageSnapshot(Construct):
    """Builds the snapshot holding `images` for nodes of `ami_family` at `ami_alias` on `kubernetes_version`.

    Props: `images` (pinned references: the server image(s), and on AL2023 the DaemonSet images a GPU node needs
    before it offers a GPU); `vpc` and `subnets` (default: private with egress); `restore` (`fsr`, `rate`,
    `lazy`: core.cluster.image_cache), `fast_snapshot_restore_zones` (with `fsr`: the zones the nodes launch
    in; default the selected subnets' zones), `initialization_rate_mibps` (with `rate`; default 300);
    `volume_gib` (100), `instance_type` (t3.2xlarge), `kms_key` (encrypt the data volume, so the snapshot,
    with this customer-managed key; nodes then need it too: `KarpenterGpuNodes(kms_key=)`,
    `GpuNodeGroup(kms_key=)`).

    Attributes: `snapshot_id` (a deploy-time token), `image_cache` (the `ImageCache` nodes restore), `images`
    and `sandbox_image` (what the snapshot holds), `resource` (the CustomResource), `builder_role`.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        images: Sequence[str],
        vpc: ec2.IVpc,
        subnets: ec2.SubnetSelection | None = None,
        ami_family: AmiFamily = DEFAULT_AMI_FAMILY,
        kubernetes_version: str = DEFAULT_KUBERNETES_VERSION,
        ami_alias: str | None = None,
        restore: RestoreMode = DEFAULT_RESTORE_MODE,
        fast_snapshot_restore_zones: Sequence[str] | None = None,
        initialization_rate_mibps: int | None = None,
        volume_gib: int = DEFAULT_VOLUME_GIB,
        instance_type: str = DEFAULT_BUILDER_INSTANCE_TYPE,
        kms_key: kms.IKey | None = None,
    ) -> None:
        family = node_os(ami_family).family
        version = check_version(kubernetes_version, "kubernetes_version")
        alias = check_ami_alias(ami_alias or default_ami_alias(family), family, version)
        check_restore_mode(restore)
        self.images = tuple(images)
        self.commands = (
            bottlerocket_builder_commands(self.images)
            if family == "bottlerocket"
            else tuple(builder_script(self.images).splitlines()[1:])
        )
        self.sandbox_image = None if node_os(family).sandbox_image_in_os else AL2023_SANDBOX_IMAGE
        super().__init__(scope, id)
        selection = subnets or ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS)
        chosen = vpc.select_subnets(
            subnet_type=selection.subnet_type,
            subnets=selection.subnets,
            subnet_group_name=selection.subnet_group_name,
            availability_zones=selection.availability_zones,
            one_per_az=selection.one_per_az,
        )
        require(len(chosen.subnet_ids) > 0, "subnets", selection, "at least one subnet with a route out (NAT)")
        zones = (
            list(fast_snapshot_restore_zones) if fast_snapshot_restore_zones is not None else chosen.availability_zones
        )
        self.fast_snapshot_restore_zones = tuple(zones) if restore == "fsr" else ()
        self.builder_role = iam.Role(
            self,
            "BuilderRole",
            assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
            managed_policies=[
                iam.ManagedPolicy.from_aws_managed_policy_name("AmazonSSMManagedInstanceCore"),
                iam.ManagedPolicy.from_aws_managed_policy_name("AmazonEC2ContainerRegistryReadOnly"),
            ],
        )
        acknowledge_managed_policies(
            self.builder_role,
            {
                "AmazonSSMManagedInstanceCore": "the snapshot builder receives its pull commands through SSM Run "
                "Command, with no inbound port or SSH key",
                "AmazonEC2ContainerRegistryReadOnly": "the builder pulls the images it caches, ECR ones included; "
                "read-only",
            },
        )
        self.launch_template = self._launch_template(family, version, alias, instance_type, volume_gib, vpc, kms_key)
        self.resource = self._custom_resource(family, chosen.subnet_ids[0], kms_key)
        self.snapshot_id: str = self.resource.get_att_string("SnapshotId")
        self.image_cache = ImageCache(
            snapshot_id=self.snapshot_id,
            volume_gib=volume_gib,
            iops=DEFAULT_IOPS,
            throughput_mibps=DEFAULT_THROUGHPUT_MIBPS,
            restore=restore,
            initialization_rate_mibps=initialization_rate_mibps,
        )

    def _launch_template(
        self,
        family: str,
        version: str,
        alias: str,
        instance_type: str,
        volume_gib: int,
        vpc: ec2.IVpc,
        kms_key: kms.IKey | None,
    ) -> ec2.LaunchTemplate:
        data = ec2.BlockDeviceVolume.ebs(
            volume_gib,
            volume_type=ec2.EbsDeviceVolumeType.GP3,
            iops=DEFAULT_IOPS,
            throughput=DEFAULT_THROUGHPUT_MIBPS,
            encrypted=True,
            kms_key=kms_key,
            delete_on_termination=True,
        )
        devices = [ec2.BlockDevice(device_name=DEVICE_NAME, volume=data)]
        if family == "al2023":
            root = ec2.BlockDeviceVolume.ebs(
                BUILDER_ROOT_GIB, volume_type=ec2.EbsDeviceVolumeType.GP3, encrypted=True, delete_on_termination=True
            )
            devices.insert(0, ec2.BlockDevice(device_name=node_os("al2023").root_device, volume=root))
        user_data = (
            ec2.UserData.custom(bottlerocket.user_data(bottlerocket.builder_settings()))
            if family == "bottlerocket"
            else ec2.UserData.for_linux()
        )
        group = ec2.SecurityGroup(
            self, "Builder", vpc=vpc, allow_all_outbound=True, description="fastload node image snapshot builder"
        )
        return ec2.LaunchTemplate(
            self,
            "BuilderTemplate",
            machine_image=ec2.MachineImage.from_ssm_parameter(builder_ami_parameter(family, version, alias)),
            instance_type=ec2.InstanceType(instance_type),
            role=self.builder_role,
            security_group=group,
            user_data=user_data,
            block_devices=devices,
            require_imdsv2=True,
            http_put_response_hop_limit=1,
        )

    def _custom_resource(self, family: str, subnet_id: str, kms_key: kms.IKey | None) -> CustomResource:
        stack = Stack.of(self)
        build = f"{stack.stack_name}-{self.node.id}"[:120]
        functions = {
            name: lambda_.Function(
                self,
                name.title().replace("_", ""),
                runtime=lambda_.Runtime.PYTHON_3_14,
                handler=f"index.{name}",
                code=lambda_.Code.from_asset(str(HANDLER)),
                timeout=Duration.minutes(2),
                description=f"fastload node image snapshot: {name}",
            )
            for name in ("on_event", "is_complete")
        }
        for function in functions.values():
            self._grant(function, build, kms_key)
        provider = cr.Provider(
            self,
            "Provider",
            on_event_handler=functions["on_event"],
            is_complete_handler=functions["is_complete"],
            query_interval=Duration.seconds(30),
            total_timeout=Duration.hours(2),
            # Every step of the waiter in CloudWatch Logs: a build that fails shows where.
            disable_waiter_state_machine_logging=False,
            waiter_state_machine_log_options=cr.LogOptions(
                destination=logs.LogGroup(self, "WaiterLogs", retention=logs.RetentionDays.ONE_MONTH),
                level=sfn.LogLevel.ALL,
            ),
        )
        self._acknowledge(provider, functions)
        self._acknowledge_checkov(provider)
        template_id = self.launch_template.launch_template_id
        assert template_id is not None
        return CustomResource(
            self,
            "Snapshot",
            service_token=provider.service_token,
            resource_type=RESOURCE_TYPE,
            properties={
                "BuildName": build,
                "LaunchTemplateId": template_id,
                "LaunchTemplateVersion": self.launch_template.latest_version_number,
                "SubnetId": subnet_id,
                "DataDevice": DEVICE_NAME,
                "Images": list(self.images),
                "SandboxImage": self.sandbox_image or "",
                "AmiFamily": family,
                "Commands": list(self.commands),
                "EcrPassword": "true"
                if family == "bottlerocket" and any(".dkr.ecr." in i for i in self.images)
                else "false",
                "FastSnapshotRestoreZones": list(self.fast_snapshot_restore_zones),
                # A new build whenever the commands change (images, family, release); the hash keeps it short.
                "Fingerprint": hashlib.sha256("\n".join(self.commands).encode()).hexdigest()[:16],
            },
        )

    def _grant(self, function: lambda_.Function, build: str, kms_key: kms.IKey | None) -> None:
        """What the job does, scoped to its own builder and snapshot by the build tag where EC2 allows it."""
        stack = Stack.of(self)
        ec2_arn = f"arn:{stack.partition}:ec2:{stack.region}"
        tagged = {"StringEquals": {f"aws:ResourceTag/{BUILD_TAG}": build}}
        statements = [
            iam.PolicyStatement(
                actions=["ec2:RunInstances"],
                resources=[
                    f"{ec2_arn}:{stack.account}:launch-template/{self.launch_template.launch_template_id}",
                    f"{ec2_arn}:{stack.account}:subnet/*",
                    f"{ec2_arn}:{stack.account}:security-group/*",
                    f"{ec2_arn}:{stack.account}:network-interface/*",
                    f"{ec2_arn}::image/*",
                ],
            ),
            iam.PolicyStatement(
                actions=["ec2:RunInstances", "ec2:CreateTags"],
                resources=[f"{ec2_arn}:{stack.account}:instance/*", f"{ec2_arn}:{stack.account}:volume/*"],
                conditions={"StringEquals": {f"aws:RequestTag/{BUILD_TAG}": build}},
            ),
            iam.PolicyStatement(
                actions=["ec2:StopInstances", "ec2:TerminateInstances", "ec2:CreateTags", "ec2:CreateSnapshot"],
                resources=[f"{ec2_arn}:{stack.account}:instance/*", f"{ec2_arn}:{stack.account}:volume/*"],
                conditions=tagged,
            ),
            iam.PolicyStatement(
                actions=["ec2:CreateSnapshot", "ec2:CreateTags"],
                resources=[f"{ec2_arn}::snapshot/*"],
                conditions={"StringEquals": {f"aws:RequestTag/{BUILD_TAG}": build}},
            ),
            iam.PolicyStatement(
                actions=["ec2:DeleteSnapshot", "ec2:EnableFastSnapshotRestores", "ec2:DisableFastSnapshotRestores"],
                resources=[f"{ec2_arn}::snapshot/*"],
                conditions=tagged,
            ),
            iam.PolicyStatement(
                actions=[
                    "ec2:DescribeInstances",
                    "ec2:DescribeSnapshots",
                    "ec2:DescribeFastSnapshotRestores",
                    "ssm:DescribeInstanceInformation",
                    "ssm:GetCommandInvocation",
                    "ecr:GetAuthorizationToken",
                ],
                resources=["*"],
            ),
            iam.PolicyStatement(
                actions=["ssm:SendCommand"],
                resources=[f"arn:{stack.partition}:ssm:{stack.region}::document/AWS-RunShellScript"],
            ),
            iam.PolicyStatement(
                actions=["ssm:SendCommand"],
                resources=[f"{ec2_arn}:{stack.account}:instance/*"],
                conditions={"StringEquals": {f"ssm:resourceTag/{BUILD_TAG}": build}},
            ),
            iam.PolicyStatement(actions=["iam:PassRole"], resources=[self.builder_role.role_arn]),
        ]
        for statement in statements:
            function.add_to_role_policy(statement)
        if kms_key is not None:
            kms_key.grant(
                function, "kms:CreateGrant", "kms:Decrypt", "kms:DescribeKey", "kms:GenerateDataKeyWithoutPlaintext"
            )
            kms_key.grant_encrypt_decrypt(self.builder_role)

    def _acknowledge(self, provider: cr.Provider, functions: dict[str, lambda_.Function]) -> None:
        """AwsSolutions findings of the job, each with why it stays: the AWS managed log policy, and the `*`
        resources of every policy under this construct, by whose they are."""
        reasons = {
            "AWSLambdaBasicExecutionRole": "the snapshot job's functions (and aws-cdk-lib's Provider framework "
            "around them) write their own logs to CloudWatch Logs; the AWS managed policy grants only that"
        }
        for function in functions.values():
            acknowledge_managed_policies(function, reasons)
        acknowledge_managed_policies(provider, reasons)
        acknowledge(
            provider,
            "AwsSolutions-SF2",
            "aws-cdk-lib's Provider framework builds the waiter state machine without an X-Ray option; each step "
            "is logged to CloudWatch Logs instead",
        )
        stack = Stack.of(self)
        framework = provider.node.path
        for policy in [c for c in self.node.find_all() if isinstance(c, iam.CfnPolicy)]:
            document = stack.resolve(policy.policy_document)
            for statement in document.get("Statement", []):
                resources = statement.get("Resource", [])
                for resource in resources if isinstance(resources, list) else [resources]:
                    flat = flatten(resource)
                    if "*" in flat:
                        why = (
                            _FRAMEWORK_REASON
                            if policy.node.path.startswith(framework)
                            else _JOB_REASONS["*" if flat == "*" else "arn"]
                        )
                        acknowledge(policy, f"AwsSolutions-IAM5[Resource::{flat}]", why)

    def _acknowledge_checkov(self, provider: cr.Provider) -> None:
        """checkov findings of the job, each with why it stays: its functions are custom-resource handlers
        that call only AWS APIs, and the waiter's log delivery cannot be scoped."""
        lambda_type = "AWS::Lambda::Function"
        skip_checks(self, {**CUSTOM_RESOURCE_HANDLER, **OUTSIDE_VPC}, resource_type=lambda_type)
        skip_checks(provider, CDK_FUNCTION_ENVIRONMENT, resource_type=lambda_type)
        skip_checks(self, SERVICE_LOG_GROUP, resource_type="AWS::Logs::LogGroup")
        skip_checks(
            provider.node.find_child("waiter-state-machine"),
            {
                "CKV_AWS_111": "Step Functions' log delivery actions (logs:CreateLogDelivery and the rest) take no "
                "resource-level permissions, so aws-cdk-lib's waiter role must name `*` for them (Step Functions "
                'developer guide, "Logging using CloudWatch Logs")'
            },
            resource_type="AWS::IAM::Policy",
        )


_FRAMEWORK_REASON = (
    "aws-cdk-lib's Provider framework invokes the job's functions in any version (<function ARN>:*) and runs its "
    "waiter state machine; the wildcard is the framework's own, scoped to these functions"
)
_JOB_REASONS = {
    "*": "EC2 Describe*, ssm:DescribeInstanceInformation, ssm:GetCommandInvocation and ecr:GetAuthorizationToken "
    "take no resource-level permissions",
    "arn": "the builder instance, its volumes and its snapshot get ids only at run time (and public AMIs and "
    "snapshots carry no account); every action that changes them is conditioned on this build's tag",
}
