"""A managed node group of one GPU instance type, booting with instance-store RAID0.

The launch template carries nodeadm MIME user data (`fastload_constructs.nodeadm`)
and an encrypted gp3 root volume; EKS picks the AL2023 NVIDIA AMI (driver and
container toolkit preinstalled) and appends the cluster's own NodeConfig part.
Labels and the GPU taint come from `fastload_constructs.gpu_nodes`, so the vLLM
chart and Karpenter node pools agree with these nodes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from constructs import Construct

from fastload_constructs.core.cluster.gpu_nodes import (
    DEFAULT_ROOT_VOLUME_GIB,
    ROOT_DEVICE_NAME,
    GpuNodeSpec,
    Taint,
    gpu_node_spec,
)
from fastload_constructs.core.cluster.image_cache import DEVICE_NAME as IMAGE_CACHE_DEVICE
from fastload_constructs.core.cluster.image_cache import ImageCache, mount_script
from fastload_constructs.core.cluster.nodeadm import mime_user_data, node_config
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
_RESERVATION_ID = re.compile(r"^cr-[0-9a-f]{8}([0-9a-f]{9})?$")


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


class GpuNodeGroup(Construct):
    """GPU nodes of `instance_type` for `cluster`, labelled and tainted for vLLM pods.

    Props: `instance_type` an `ec2.InstanceType` (or its name) in the fastload catalog;
    `capacity_type` an `eks.CapacityType` (default ON_DEMAND; CAPACITY_BLOCK needs
    `capacity_reservation_id`); sizes default min 0, max 2, desired = min;
    `instance_store` (default True: RAID0 of the NVMe), `root_volume_gib` (default 200),
    `fast_image_pull` (default False), `image_cache` (a `core.cluster.image_cache.ImageCache`: the
    snapshot holding the vLLM image restored as a second volume and mounted as containerd's root;
    refused with `fast_image_pull`), `node_role`, `subnets` (default: the cluster's), `extra_labels` and
    `extra_taints` (a `core.cluster.gpu_nodes.Taint` each) beside the GPU label set and taint.

    Attributes: `nodegroup` (eks.Nodegroup), `launch_template`, `role` (node IAM
    role), `spec` (the GpuNodeSpec decided), `labels`, `user_data` (the MIME text).
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
        )
        desired = min_size if desired_size is None else desired_size
        _check_sizes(min_size, max_size, desired)
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
        super().__init__(scope, id)
        self.spec: GpuNodeSpec = spec
        # A pool of its own beside the GPU label set (the standby pool: label and taint fastload.io/standby).
        self.labels = {**spec.labels, **(extra_labels or {})}
        taints = (*spec.taints, *extra_taints)
        require(
            image_cache is None or isinstance(image_cache, ImageCache),
            "image_cache",
            image_cache,
            "a core.cluster.image_cache.ImageCache or None",
        )
        require(
            image_cache is None or not fast_image_pull,
            "fast_image_pull",
            fast_image_pull,
            "False with an image cache (the SOCI snapshotter would unpack the cached image again)",
        )
        config = node_config(
            local_storage=spec.local_storage_strategy,
            fast_image_pull=fast_image_pull,
            containerd_on_image_cache=image_cache is not None,
        )
        self.user_data = mime_user_data(config, scripts=(mount_script(),) if image_cache is not None else ())
        block_devices = [
            ec2.BlockDevice(
                device_name=ROOT_DEVICE_NAME,
                volume=ec2.BlockDeviceVolume.ebs(
                    spec.root_volume_gib,
                    volume_type=ec2.EbsDeviceVolumeType.GP3,
                    encrypted=True,
                    delete_on_termination=True,
                    throughput=spec.root_volume_throughput_mibps,
                ),
            )
        ]
        if image_cache is not None:
            block_devices.append(
                ec2.BlockDevice(
                    device_name=IMAGE_CACHE_DEVICE,
                    volume=ec2.BlockDeviceVolume.ebs_from_snapshot(
                        image_cache.snapshot_id,
                        volume_size=image_cache.volume_gib,
                        volume_type=ec2.EbsDeviceVolumeType.GP3,
                        iops=image_cache.iops,
                        throughput=image_cache.throughput_mibps,
                        delete_on_termination=True,
                    ),
                )
            )
        self.launch_template = ec2.LaunchTemplate(
            self,
            "LaunchTemplate",
            user_data=ec2.UserData.custom(self.user_data),
            block_devices=block_devices,
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
            ami_type=eks.NodegroupAmiType.AL2023_X86_64_NVIDIA,
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
        self.role: iam.IRole = self.nodegroup.role
        # Only the role the node group created (none when node_role is given).
        acknowledge_managed_policies(self.nodegroup, EKS_NODE_POLICY_REASONS)
