"""The image-cache snapshot path, per node family: the EC2NodeClass (against the vendored Karpenter 1.14.1 CRD),
the managed node group's launch template (CloudFormation), containerd kept on the restored volume (nodeadm's
`disabledMounts` on AL2023, Bottlerocket's `ephemeral-storage bind` without it), the restore modes, the boot
script and the builders' commands."""

from __future__ import annotations

import email

import aws_cdk as cdk
import cdk8s
import pytest
import yaml
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk.assertions import Template

from fastload_constructs.core.cluster.image_cache import (
    AL2023_SANDBOX_ARCHIVE,
    AL2023_SANDBOX_IMAGE,
    BOTTLEROCKET_CTR,
    CONTAINERD_ROOT,
    DEVICE_NAME,
    IMAGE_CACHE_LABEL,
    ImageCache,
    bottlerocket_builder_commands,
    builder_script,
    mount_script,
    snapshot_images,
)
from fastload_constructs.core.cluster.karpenter import NodePoolOptions
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.infra.gpu_nodegroup import GpuNodeGroup
from fastload_constructs.k8s.karpenter import KarpenterGpuNodePools
from tests.crd_schemas import crd_schema, validate_custom_resource
from tests.toml_read import tomllib

SNAPSHOT = "snap-0123456789abcdef0"
CACHE = ImageCache(snapshot_id=SNAPSHOT)


def parts(user_data: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for part in email.message_from_string(user_data).walk():
        if not part.is_multipart():
            out.setdefault(part.get_content_type(), []).append(part.get_payload())
    return out


def node_class(**options):
    chart = KarpenterGpuNodePools(
        cdk8s.Testing.app(),
        "gpu",
        cluster_name="c",
        node_role="r",
        instance_types=["g6e.2xlarge"],
        options=NodePoolOptions(**options),
    )
    (nc,) = [d for d in cdk8s.Testing.synth(chart) if d["kind"] == "EC2NodeClass"]
    return nc


def test_the_al2023_node_class_restores_the_snapshot_and_validates_against_the_crd():
    nc = node_class(image_cache=CACHE, ami_family="al2023")
    validate_custom_resource(nc)
    spec = nc["spec"]
    root, cache = spec["blockDeviceMappings"]
    assert root["rootVolume"] is True
    assert cache == {
        "deviceName": DEVICE_NAME,
        "ebs": {
            "snapshotID": SNAPSHOT,
            "volumeSize": "100Gi",
            "volumeType": "gp3",
            "iops": 16000,
            "throughput": 1000,
            "deleteOnTermination": True,
        },
    }
    # The CRD: "If you are creating a volume from a snapshot, you can't specify an encryption value."
    ebs_schema = crd_schema("karpenter.k8s.aws/v1", "EC2NodeClass")["properties"]["spec"]["properties"][
        "blockDeviceMappings"
    ]["items"]["properties"]["ebs"]["properties"]
    assert "snapshotID" in ebs_schema and "encrypted" not in cache["ebs"]
    # RAID0 written by us, with containerd left on the volume; no instanceStorePolicy (its NodeConfig lacks that).
    assert "instanceStorePolicy" not in spec
    by_type = parts(spec["userData"])
    (config,) = [yaml.safe_load(p) for p in by_type["application/node.eks.aws"]]
    assert config["spec"] == {"instance": {"localStorage": {"strategy": "RAID0", "disabledMounts": ["Containerd"]}}}
    (script,) = by_type["text/x-shellscript"]
    assert f"LABEL={IMAGE_CACHE_LABEL} {CONTAINERD_ROOT}" in script


def test_without_a_cache_the_al2023_node_class_is_unchanged():
    spec = node_class(ami_family="al2023")["spec"]
    assert len(spec["blockDeviceMappings"]) == 1 and spec["instanceStorePolicy"] == "RAID0"
    assert "text/x-shellscript" not in parts(spec["userData"])


def test_the_bottlerocket_node_class_restores_the_snapshot_as_its_data_volume_and_keeps_containerd_there():
    nc = node_class(image_cache=CACHE)
    validate_custom_resource(nc)
    spec = nc["spec"]
    os_volume, data = spec["blockDeviceMappings"]
    assert os_volume["deviceName"] == "/dev/xvda" and data["deviceName"] == DEVICE_NAME == "/dev/xvdb"
    assert data["rootVolume"] is True and data["ebs"]["snapshotID"] == SNAPSHOT and "encrypted" not in data["ebs"]
    # Karpenter's instanceStorePolicy would bind the array over /var/lib/containerd (Bottlerocket >= 1.46's
    # default directories) and hide the cached images: our own command binds kubelet and pod logs only.
    assert "instanceStorePolicy" not in spec
    settings = tomllib.loads(spec["userData"])["settings"]
    (command,) = settings["bootstrap-commands"].values()
    assert command["commands"] == [
        ["apiclient", "ephemeral-storage", "init"],
        ["apiclient", "ephemeral-storage", "bind", "--dirs", "/var/lib/kubelet", "/var/log/pods"],
    ]
    assert command["essential"] is True and command["mode"] == "always"
    assert CONTAINERD_ROOT not in command["commands"][1]


@pytest.mark.parametrize(
    "cache,rate",
    [(CACHE, None), (ImageCache(SNAPSHOT, restore="rate"), 300), (ImageCache(SNAPSHOT, restore="lazy"), None)],
)
def test_a_provisioned_initialization_rate_is_set_only_with_restore_rate(cache, rate):
    for family in ("bottlerocket", "al2023"):
        nc = node_class(image_cache=cache, ami_family=family)
        validate_custom_resource(nc)
        (restored,) = [d for d in nc["spec"]["blockDeviceMappings"] if d["ebs"].get("snapshotID")]
        assert restored["ebs"].get("volumeInitializationRate") == rate


def test_fast_image_pull_and_the_cache_are_refused_together():
    assert NodePoolOptions(image_cache=CACHE, ami_family="al2023").fast_image_pull is False  # the default adapts
    with pytest.raises(FastloadConfigError) as err:
        NodePoolOptions(image_cache=CACHE, ami_family="al2023", fast_image_pull=True)
    assert err.value.field == "fast_image_pull" and "image cache" in str(err.value)


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"snapshot_id": "snap-123"}, "imageCache.snapshotId"),
        ({"snapshot_id": "vol-0123456789abcdef0"}, "imageCache.snapshotId"),
        ({"snapshot_id": SNAPSHOT, "volume_gib": 10}, "imageCache.volumeGiB"),
        ({"snapshot_id": SNAPSHOT, "iops": 20000}, "imageCache.iops"),
        ({"snapshot_id": SNAPSHOT, "throughput_mibps": 2000}, "imageCache.throughputMiBps"),
        ({"snapshot_id": SNAPSHOT, "restore": "fast"}, "imageCache.restore"),
        (
            {"snapshot_id": SNAPSHOT, "restore": "rate", "initialization_rate_mibps": 500},
            "imageCache.initializationRateMiBps",
        ),
        ({"snapshot_id": SNAPSHOT, "initialization_rate_mibps": 200}, "imageCache.initializationRateMiBps"),
    ],
)
def test_bad_cache_settings_name_the_field(kwargs, field):
    with pytest.raises(FastloadConfigError) as err:
        ImageCache(**kwargs)
    assert err.value.field == field


def test_the_al2023_managed_launch_template_restores_the_snapshot_and_mounts_it(tmp_path):
    stack = cdk.Stack(cdk.App(outdir=str(tmp_path)), "Stack")
    vpc = ec2.Vpc.from_vpc_attributes(
        stack,
        "Vpc",
        vpc_id="vpc-0123456789abcdef0",
        availability_zones=["us-west-2a"],
        private_subnet_ids=["subnet-0123456789abcdef0"],
    )
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="c", vpc=vpc)
    group = GpuNodeGroup(
        stack, "Gpu", cluster=cluster, instance_type="g6e.2xlarge", image_cache=CACHE, ami_family="al2023"
    )
    with pytest.raises(FastloadConfigError) as err:
        GpuNodeGroup(
            stack,
            "Gpu2",
            cluster=cluster,
            instance_type="g6e.2xlarge",
            image_cache=CACHE,
            fast_image_pull=True,
            ami_family="al2023",
        )
    assert err.value.field == "fast_image_pull"
    data = Template.from_stack(stack).find_resources("AWS::EC2::LaunchTemplate")
    (template,) = data.values()
    mappings = template["Properties"]["LaunchTemplateData"]["BlockDeviceMappings"]
    (cache,) = [m for m in mappings if m["DeviceName"] == DEVICE_NAME]
    assert cache["Ebs"] == {
        "SnapshotId": SNAPSHOT,
        "VolumeSize": 100,
        "VolumeType": "gp3",
        "Iops": 16000,
        "Throughput": 1000,
        "DeleteOnTermination": True,
    }
    by_type = parts(group.user_data)
    (config,) = [yaml.safe_load(p) for p in by_type["application/node.eks.aws"]]
    assert config["spec"]["instance"]["localStorage"] == {"strategy": "RAID0", "disabledMounts": ["Containerd"]}
    assert "featureGates" not in config["spec"]
    assert [s.strip() for s in by_type["text/x-shellscript"]] == [mount_script().strip()]


def test_the_bottlerocket_managed_launch_template_restores_the_data_volume_at_its_rate(tmp_path):
    stack = cdk.Stack(cdk.App(outdir=str(tmp_path)), "Stack")
    vpc = ec2.Vpc.from_vpc_attributes(
        stack,
        "Vpc",
        vpc_id="vpc-0123456789abcdef0",
        availability_zones=["us-west-2a"],
        private_subnet_ids=["subnet-0123456789abcdef0"],
    )
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="c", vpc=vpc)
    group = GpuNodeGroup(
        stack, "Gpu", cluster=cluster, instance_type="g6e.2xlarge", image_cache=ImageCache(SNAPSHOT, restore="rate")
    )
    template = Template.from_stack(stack)
    template.has_resource_properties("AWS::EKS::Nodegroup", {"AmiType": "BOTTLEROCKET_x86_64_NVIDIA"})
    (lt,) = template.find_resources("AWS::EC2::LaunchTemplate").values()
    mappings = {m["DeviceName"]: m["Ebs"] for m in lt["Properties"]["LaunchTemplateData"]["BlockDeviceMappings"]}
    assert mappings["/dev/xvda"]["Encrypted"] is True and mappings["/dev/xvda"]["VolumeSize"] == 4
    assert mappings[DEVICE_NAME]["SnapshotId"] == SNAPSHOT and mappings[DEVICE_NAME]["VolumeInitializationRate"] == 300
    settings = tomllib.loads(group.user_data)["settings"]
    assert "kubernetes" not in settings  # EKS merges the cluster's own; labels and taints are the node group's
    (command,) = settings["bootstrap-commands"].values()
    assert command["commands"][1][-3:] == ["--dirs", "/var/lib/kubelet", "/var/log/pods"]


def test_the_mount_script_waits_for_the_volume_and_says_when_it_is_missing():
    """nodeadm-run runs only After= cloud-final: the script cannot stop the boot, it records its failure."""
    script = mount_script()
    assert script.startswith("#!/bin/bash\nset -euo pipefail")
    lines = script.splitlines()
    mount = next(i for i, line in enumerate(lines) if "mount -o noatime" in line)
    wait = next(i for i, line in enumerate(lines) if "/dev/disk/by-label/" in line)
    assert wait < mount  # waits for the device, then mounts (a missing label fails `mount` and the script)
    assert "fails the boot" not in mount_script.__doc__ and "not a broken" in mount_script.__doc__


def test_the_al2023_builder_carries_the_sandbox_image_the_node_cannot_pull():
    """nodeadm points containerd at localhost/kubernetes/pause:latest, which lives only in the AMI's own
    /var/lib/containerd; the restored volume hides it, so the snapshot must hold it, pinned."""
    lines = builder_script(["vllm/vllm-openai:v0.34.0"]).splitlines()
    start = lines.index("systemctl start containerd")
    imported = lines.index(f"ctr -n k8s.io images import {AL2023_SANDBOX_ARCHIVE}")
    pinned = lines.index(f"ctr -n k8s.io images label {AL2023_SANDBOX_IMAGE} io.cri-containerd.pinned=pinned")
    assert start < imported < pinned < lines.index("systemctl stop containerd")


def test_the_bottlerocket_builder_pulls_through_the_admin_container_as_the_kubelet_would():
    commands = bottlerocket_builder_commands(
        ["vllm/vllm-openai:v0.34.0", "123456789012.dkr.ecr.us-west-2.amazonaws.com/vllm:0.34.0"]
    )
    pulls = [c for c in commands if " images pull " in c]
    assert all(c.startswith(BOTTLEROCKET_CTR + " images pull --label io.cri-containerd.image=managed") for c in pulls)
    assert pulls[0].endswith("docker.io/vllm/vllm-openai:v0.34.0") and "--user" not in pulls[0]
    assert '--user "AWS:$FASTLOAD_ECR_PASSWORD"' in pulls[1]
    assert any("systemctl stop kubelet" in c for c in commands)


def test_what_a_node_snapshot_must_hold_per_family():
    server, plugin = ["vllm/vllm-openai:v0.34.0"], ["nvcr.io/nvidia/k8s-device-plugin:v0.20.0"]
    assert snapshot_images("bottlerocket", server, plugin) == tuple(server)  # the plugin is a host service
    assert snapshot_images("al2023", [*server, *server], plugin) == (*server, *plugin)  # once each
    assert snapshot_images("al2023", server, plugin) == (*server, *plugin)


def test_the_builder_pulls_into_the_k8s_namespace_on_the_labelled_volume():
    script = builder_script(["vllm/vllm-openai:v0.34.0", "123456789012.dkr.ecr.us-west-2.amazonaws.com/vllm:0.34.0"])
    lines = script.splitlines()
    assert any(line.startswith(f"mkfs.ext4 -F -L {IMAGE_CACHE_LABEL}") for line in lines)
    pulls = [line for line in lines if "images pull" in line]
    assert all(line.startswith("ctr -n k8s.io images pull --platform linux/amd64") for line in pulls)
    assert "--user" not in pulls[0] and "get-login-password --region us-west-2" in pulls[1]
    assert lines.index(next(x for x in lines if x.startswith("mkfs"))) < lines.index(pulls[0])
    assert lines[-1] == f"sync && umount {CONTAINERD_ROOT}"
    with pytest.raises(FastloadConfigError) as err:
        builder_script([])
    assert err.value.field == "images"


def test_the_builder_pulls_the_names_the_kubelet_asks_for_and_refuses_what_it_cannot_run():
    """`ctr` expands no short names, and the kubelet asks containerd for `docker.io/...`."""
    script = builder_script(["vllm/vllm-openai:v0.34.0", "busybox:1.36"])
    assert "pull --platform linux/amd64 docker.io/vllm/vllm-openai:v0.34.0" in script
    assert "pull --platform linux/amd64 docker.io/library/busybox:1.36" in script
    for images, platform, field in (
        (["evil:1; rm -rf /"], "linux/amd64", "images"),  # not an image reference: never printed
        (["vllm/vllm-openai:latest"], "linux/amd64", "images"),
        (["vllm/vllm-openai:v0.34.0"], "", "platform"),
        (["vllm/vllm-openai:v0.34.0"], "linux/amd64; reboot", "platform"),
    ):
        with pytest.raises(FastloadConfigError) as err:
            builder_script(images, platform=platform)
        assert err.value.field == field


@pytest.mark.parametrize("family", ["bottlerocket", "al2023"])
def test_the_reference_app_restores_your_snapshot_on_every_gpu_node_and_plans_with_it(tmp_path, family):
    """`fastload:imageCacheSnapshotId`: a snapshot of yours (of the family's data volume) instead of the one
    the stack builds."""
    import copy
    import json
    from pathlib import Path

    from app import build_app
    from stacks.config import parse_reference_config

    ctx = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]
    ctx = {**copy.deepcopy(ctx), "fastload:imageCacheSnapshotId": SNAPSHOT, "fastload:amiFamily": family}
    config = parse_reference_config(ctx)
    assert config.image_cache == CACHE
    for model in config.models:
        paths = model.serving_plan().scale_out_paths
        assert paths is not None and paths.pull_mode == "snapshot"
    from fastload_constructs.infra.manifest_export import synth_with_manifests

    assembly = synth_with_manifests(build_app(ctx, str(tmp_path)))
    assert "NodeImageSnapshotId" not in assembly.get_stack_by_name("FastloadReference").template["Outputs"]
    docs = list(yaml.safe_load_all((Path(assembly.directory) / "manifests" / "03-fastload-gpu.yaml").read_text()))
    (nc,) = [d for d in docs if d and d["kind"] == "EC2NodeClass"]  # deploy-time placeholders: no CRD check here
    # The OS volume, then the data volume containerd uses, restored from the snapshot.
    assert [m["ebs"].get("snapshotID") for m in nc["spec"]["blockDeviceMappings"]] == [None, SNAPSHOT]
    if family == "al2023":
        assert "featureGates" not in parts(nc["spec"]["userData"])["application/node.eks.aws"][0]
    else:
        (command,) = tomllib.loads(nc["spec"]["userData"])["settings"]["bootstrap-commands"].values()
        assert "/var/lib/containerd" not in command["commands"][1]


def test_cli_prints_the_builder_and_node_scripts(capsys):
    from fastload_constructs.cli.main import main

    assert main(["image-cache", "--image", "vllm/vllm-openai:v0.34.0"]) == 0
    assert capsys.readouterr().out == builder_script(["vllm/vllm-openai:v0.34.0"])
    assert main(["image-cache", "--node-script"]) == 0
    assert capsys.readouterr().out == mount_script()
    assert main(["image-cache"]) == 2
    err = capsys.readouterr().err
    assert "--image" in err and "Traceback" not in err
