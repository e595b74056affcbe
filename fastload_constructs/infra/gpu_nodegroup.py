"""A managed node group of one GPU instance type: Bottlerocket NVIDIA (default) or AL2023 NVIDIA, RAID0 of the NVMe.

EKS picks the NVIDIA AMI of the node family (`amiType`; driver and container toolkit preinstalled, and
on Bottlerocket the device plugin too) and merges its own cluster settings into our launch template's
user data: TOML settings on Bottlerocket (`core.cluster.bottlerocket`: Bottlerocket's own instance-store
RAID0 bootstrap command, the admin container off), nodeadm MIME parts on AL2023
(`core.cluster.nodeadm`). Labels and the GPU taint come from `core.cluster.gpu_nodes` and go on the node
group (EKS: "we recommend that you configure these within your node group"), so the server chart and the
Karpenter node pools agree with these nodes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from aws_cdk import Annotations, Aws, Size
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from constructs import Construct

from fastload_constructs.core.cluster import bottlerocket
from fastload_constructs.core.cluster.ami_family import DEFAULT_AMI_FAMILY, AmiFamily, NodeOs, node_os
from fastload_constructs.core.cluster.gpu_nodes import DEFAULT_ROOT_VOLUME_GIB, GpuNodeSpec, Taint, gpu_node_spec
from fastload_constructs.core.cluster.image_cache import DEVICE_NAME as IMAGE_CACHE_DEVICE
from fastload_constructs.core.cluster.image_cache import ImageCache, mount_script
from fastload_constructs.core.cluster.karpenter import BOTTLEROCKET_OS_VOLUME_GIB
from fastload_constructs.core.cluster.nodeadm import mime_user_data, node_config
from fastload_constructs.core.cluster.warm_pool import WarmPool, check_warm_pool
from fastload_constructs.core.errors import is_whole_number, require
from fastload_constructs.infra.cfn import cfn_resource
from fastload_constructs.infra.nag_findings import EKS_NODE_POLICY_REASONS, acknowledge_managed_policies

# eks.CapacityType -> the name core.cluster.gpu_nodes decides with.
_CAPACITY = {
    eks.CapacityType.ON_DEMAND: "on-demand",
    eks.CapacityType.SPOT: "spot",
    eks.CapacityType.CAPACITY_BLOCK: "capacity-block",
}
_EFFECT = {
    "NoSchedule": eks.TaintEffect.NO_SCHEDULE,
    "PreferNoSchedule": eks.TaintEffect.PREFER_NO_SCHEDULE,
    "NoExecute": eks.TaintEffect.NO_EXECUTE,
}
_AMI_TYPE = {
    "bottlerocket": eks.NodegroupAmiType.BOTTLEROCKET_X86_64_NVIDIA,
    "al2023": eks.NodegroupAmiType.AL2023_X86_64_NVIDIA,
}
_RESERVATION_ID = re.compile(r"^cr-[0-9a-f]{8}([0-9a-f]{9})?$")
# The Auto Scaling service-linked role launches a managed node group's instances; its permissions are fixed
# and "do not include access to your customer managed keys" (EC2 Auto Scaling user guide, "Required AWS KMS
# key policy for use with encrypted volumes"): the key's own policy must admit it.
AUTOSCALING_ROLE = "aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"


def _check_sizes(min_size: object, max_size: object, desired_size: object) -> None:
    for name, value in (("min_size", min_size), ("max_size", max_size), ("desired_size", desired_size)):
        require(is_whole_number(value) and value >= 0, name, value, "a whole number >= 0")
    assert is_whole_number(min_size) and is_whole_number(max_size) and is_whole_number(desired_size)
    require(max_size >= 1, "max_size", max_size, "at least 1")
    require(
        min_size <= desired_size <= max_size,
        "desired_size",
        desired_size,
        f"between min_size ({min_size}) and max_size ({max_size})",
    )


def node_user_data(spec: GpuNodeSpec, *, fast_image_pull: bool, image_cache: ImageCache | None) -> str:
    """The launch template's user data for `spec`'s family (EKS merges its own cluster settings into it)."""
    if spec.ami_family == "bottlerocket":
        settings = bottlerocket.gpu_node_settings(
            raid0_command=spec.instance_store_raid0, keep_containerd=image_cache is not None
        )
        return bottlerocket.user_data(settings)
    config = node_config(
        local_storage=spec.local_storage_strategy,
        fast_image_pull=fast_image_pull,
        containerd_on_image_cache=image_cache is not None,
    )
    return mime_user_data(config, scripts=(mount_script(),) if image_cache is not None else ())


def _block_devices(spec: GpuNodeSpec, os: NodeOs, image_cache: ImageCache | None) -> list[ec2.BlockDevice]:
    """AL2023: the root volume, plus the snapshot's volume. Bottlerocket: the OS volume and the data volume
    (containerd, kubelet), restored from the snapshot when there is one."""

    def ebs(size: int, throughput: int) -> ec2.BlockDeviceVolume:
        return ec2.BlockDeviceVolume.ebs(
            size,
            volume_type=ec2.EbsDeviceVolumeType.GP3,
            encrypted=True,
            delete_on_termination=True,
            throughput=throughput,
        )

    devices = []
    if spec.ami_family == "bottlerocket":
        devices.append(ec2.BlockDevice(device_name=os.root_device, volume=ebs(BOTTLEROCKET_OS_VOLUME_GIB, 125)))
        if image_cache is None:
            devices.append(
                ec2.BlockDevice(
                    device_name=IMAGE_CACHE_DEVICE,
                    volume=ebs(spec.root_volume_gib, spec.root_volume_throughput_mibps),
                )
            )
    else:
        devices.append(
            ec2.BlockDevice(
                device_name=os.root_device, volume=ebs(spec.root_volume_gib, spec.root_volume_throughput_mibps)
            )
        )
    if image_cache is not None:
        rate = image_cache.initialization_rate_mibps
        devices.append(
            ec2.BlockDevice(
                device_name=IMAGE_CACHE_DEVICE,
                volume=ec2.BlockDeviceVolume.ebs_from_snapshot(
                    image_cache.snapshot_id,
                    volume_size=image_cache.volume_gib,
                    volume_type=ec2.EbsDeviceVolumeType.GP3,
                    iops=image_cache.iops,
                    throughput=image_cache.throughput_mibps,
                    delete_on_termination=True,
                    volume_initialization_rate=Size.mebibytes(rate) if rate is not None else None,
                ),
            )
        )
    return devices


class GpuNodeGroup(Construct):
    """GPU nodes of `instance_type` for `cluster`, labelled and tainted for server pods.

    Props: `instance_type` an `ec2.InstanceType` (or its name) in the fastload catalog;
    `ami_family` `bottlerocket` (default: NVIDIA variant, device plugin built in) or `al2023`;
    `capacity_type` an `eks.CapacityType` (default ON_DEMAND; CAPACITY_BLOCK needs
    `capacity_reservation_id`); sizes default min 0, max 2, desired = min;
    `instance_store` (default True: RAID0 of the NVMe), `root_volume_gib` (default 200: AL2023's root,
    Bottlerocket's data volume), `fast_image_pull` (default False; AL2023 only), `image_cache` (a
    `core.cluster.image_cache.ImageCache`: the snapshot holding the server image, restored as the volume
    containerd uses, at its restore mode's speed; refused with `fast_image_pull`), `warm_pool` (a
    `core.cluster.warm_pool.WarmPool`: instances booted once and kept stopped; on-demand only),
    `kms_key` (the customer-managed key the snapshot is encrypted with: the Auto Scaling service-linked role
    that launches the instances is admitted in the key's policy when the key belongs to this app; an imported
    key needs that statement added by its owner), `node_role`, `subnets` (default: the cluster's),
    `extra_labels` and `extra_taints` (a `core.cluster.gpu_nodes.Taint` each) beside the GPU label set and taint.

    EKS does not document whether a managed node group keeps a launch template's `VolumeInitializationRate`
    (restore mode `rate`); it is set, and docs/gpu-nodes.md says so.

    Attributes: `nodegroup` (eks.Nodegroup), `launch_template`, `role` (node IAM
    role), `spec` (the GpuNodeSpec decided), `labels`, `user_data` (TOML or MIME text).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        instance_type: ec2.InstanceType | str,
        min_size: int = 0,
        max_size: int = 2,
        desired_size: int | None = None,
        capacity_type: eks.CapacityType = eks.CapacityType.ON_DEMAND,
        capacity_reservation_id: str | None = None,
        instance_store: bool = True,
        root_volume_gib: int = DEFAULT_ROOT_VOLUME_GIB,
        fast_image_pull: bool = False,
        image_cache: ImageCache | None = None,
        ami_family: AmiFamily = DEFAULT_AMI_FAMILY,
        warm_pool: WarmPool | None = None,
        kms_key: kms.IKey | None = None,
        node_role: iam.IRole | None = None,
        subnets: ec2.SubnetSelection | None = None,
        extra_labels: Mapping[str, str] | None = None,
        extra_taints: Sequence[Taint] = (),
    ) -> None:
        require(
            isinstance(capacity_type, eks.CapacityType) and capacity_type in _CAPACITY,
            "capacity_type",
            capacity_type,
            "an eks.CapacityType: ON_DEMAND, SPOT or CAPACITY_BLOCK",
        )
        type_name = instance_type.to_string() if isinstance(instance_type, ec2.InstanceType) else instance_type
        spec = gpu_node_spec(
            type_name,
            instance_store=instance_store,
            root_volume_gib=root_volume_gib,
            capacity_type=_CAPACITY[capacity_type],
            ami_family=ami_family,
        )
        os = node_os(spec.ami_family)
        desired = min_size if desired_size is None else desired_size
        _check_sizes(min_size, max_size, desired)
        self._check_reservation(capacity_type, capacity_reservation_id)
        pool = check_warm_pool(warm_pool, _CAPACITY[capacity_type])
        require(
            image_cache is None or isinstance(image_cache, ImageCache),
            "image_cache",
            image_cache,
            "a core.cluster.image_cache.ImageCache or None",
        )
        require(
            not fast_image_pull or os.supports_fast_image_pull,
            "fast_image_pull",
            fast_image_pull,
            f"False on {spec.ami_family} nodes (FastImagePull is an AL2023 nodeadm feature gate)",
        )
        require(
            image_cache is None or not fast_image_pull,
            "fast_image_pull",
            fast_image_pull,
            "False with an image cache (the SOCI snapshotter would unpack the cached image again)",
        )
        super().__init__(scope, id)
        self.spec: GpuNodeSpec = spec
        # A pool of its own beside the GPU label set (the standby pool: label and taint fastload.io/standby).
        self.labels = {**spec.labels, **(extra_labels or {})}
        taints = (*spec.taints, *extra_taints)
        self.user_data = node_user_data(spec, fast_image_pull=fast_image_pull, image_cache=image_cache)
        self.launch_template = ec2.LaunchTemplate(
            self,
            "LaunchTemplate",
            user_data=ec2.UserData.custom(self.user_data),
            block_devices=_block_devices(spec, os, image_cache),
            # IMDSv2 only, one hop: pods get AWS credentials from Pod Identity,
            # never from the node role through the metadata service.
            require_imdsv2=True,
            http_put_response_hop_limit=1,
        )
        if capacity_type == eks.CapacityType.CAPACITY_BLOCK:
            cfn = cfn_resource(self.launch_template)
            cfn.add_property_override("LaunchTemplateData.InstanceMarketOptions", {"MarketType": "capacity-block"})
            cfn.add_property_override(
                "LaunchTemplateData.CapacityReservationSpecification",
                {"CapacityReservationTarget": {"CapacityReservationId": capacity_reservation_id}},
            )
        launch_template_id = self.launch_template.launch_template_id
        assert launch_template_id is not None  # set for every template created in this stack
        self.nodegroup = eks.Nodegroup(
            self,
            "Nodegroup",
            cluster=cluster,
            ami_type=_AMI_TYPE[spec.ami_family],
            capacity_type=capacity_type,
            launch_template_spec=eks.LaunchTemplateSpec(
                id=launch_template_id,
                version=self.launch_template.latest_version_number,
            ),
            min_size=min_size,
            max_size=max_size,
            desired_size=desired,
            labels=self.labels,
            taints=[eks.TaintSpec(key=t.key, value=t.value, effect=_EFFECT[t.effect]) for t in taints],
            node_role=node_role,
            subnets=subnets,
        )
        # Set on the resource, not through `instance_types`: CDK's list of GPU
        # classes (aws_eks_v2 private/nodegroup isGpuInstanceType, 2.275) lacks
        # p5, p5e, p5en and g7e and would refuse the NVIDIA AMI type for them.
        cfn_resource(self.nodegroup).add_property_override("InstanceTypes", [spec.instance.name])
        self.warm_pool = pool
        if pool is not None:
            cfn_resource(self.nodegroup).add_property_override("WarmPoolConfig", pool.as_cfn())
        if kms_key is not None:
            self._admit_autoscaling(kms_key)
        self.role: iam.IRole = self.nodegroup.role
        # Only the role the node group created (none when node_role is given).
        acknowledge_managed_policies(self.nodegroup, EKS_NODE_POLICY_REASONS)

    @staticmethod
    def _check_reservation(capacity_type: eks.CapacityType, capacity_reservation_id: str | None) -> None:
        if capacity_type == eks.CapacityType.CAPACITY_BLOCK:
            require(
                isinstance(capacity_reservation_id, str) and bool(_RESERVATION_ID.match(capacity_reservation_id)),
                "capacity_reservation_id",
                capacity_reservation_id,
                "the id of an EC2 Capacity Block reservation (cr-...) when capacity_type is capacity-block",
            )
        else:
            require(
                capacity_reservation_id is None,
                "capacity_reservation_id",
                capacity_reservation_id,
                "None unless capacity_type is capacity-block",
            )

    def _admit_autoscaling(self, key: kms.IKey) -> None:
        """The EC2 Auto Scaling user guide's two key-policy statements for its service-linked role: use of the
        key, and grants for AWS resources (`kms:GrantIsForAWSResource`)."""
        role = iam.ArnPrincipal(f"arn:{Aws.PARTITION}:iam::{Aws.ACCOUNT_ID}:role/{AUTOSCALING_ROLE}")
        use = key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AllowAutoScalingUseOfTheKey",
                principals=[role],
                actions=["kms:Encrypt", "kms:Decrypt", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:DescribeKey"],
                resources=["*"],
            )
        )
        key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="AllowAutoScalingGrantsForVolumes",
                principals=[role],
                actions=["kms:CreateGrant"],
                resources=["*"],
                conditions={"Bool": {"kms:GrantIsForAWSResource": "true"}},
            )
        )
        if not use.statement_added:
            Annotations.of(self).add_warning_v2(
                "fastload:kmsKeyPolicy",
                "kms_key is imported: add the EC2 Auto Scaling service-linked role "
                f"({AUTOSCALING_ROLE}) to its key policy, or the node group's instances cannot use the snapshot",
            )
