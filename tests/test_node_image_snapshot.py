"""`NodeImageSnapshot`: the builder it declares, and the job behind it driven step by step against fake AWS APIs."""

from __future__ import annotations

import base64
import importlib.util
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk.assertions import Match, Template
from botocore.exceptions import ClientError

from fastload_constructs.core.cluster.image_cache import AL2023_SANDBOX_IMAGE, BOTTLEROCKET_CTR
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.infra.node_image_snapshot import HANDLER, RESOURCE_TYPE, NodeImageSnapshot
from tests.toml_read import tomllib

IMAGE = "vllm/vllm-openai:v0.34.0"
PLUGIN = "nvcr.io/nvidia/k8s-device-plugin:v0.20.0"

_spec = importlib.util.spec_from_file_location("snapshot_handler", HANDLER / "index.py")
assert _spec is not None and _spec.loader is not None
handler = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(handler)


def stack_with(**kwargs: Any) -> tuple[cdk.Stack, NodeImageSnapshot]:
    app = cdk.App()
    stack = cdk.Stack(app, "S", env=cdk.Environment(account="123456789012", region="us-west-2"))
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2)
    return stack, NodeImageSnapshot(stack, "Images", vpc=vpc, **{"images": [IMAGE], **kwargs})


def properties(stack: cdk.Stack) -> dict[str, Any]:
    (resource,) = Template.from_stack(stack).find_resources(RESOURCE_TYPE).values()
    return resource["Properties"]


def test_a_bottlerocket_snapshot_is_built_from_the_nodes_release_through_the_admin_container():
    stack, snapshot = stack_with()
    props = properties(stack)
    assert props["Images"] == [IMAGE] and props["SandboxImage"] == "" and props["AmiFamily"] == "bottlerocket"
    assert any(c.startswith(f"{BOTTLEROCKET_CTR} images pull") for c in props["Commands"])
    assert props["DataDevice"] == "/dev/xvdb"
    template = Template.from_stack(stack)
    parameters = [p for p in template.to_json()["Parameters"].values() if "Default" in p]
    assert any(p["Default"] == "/aws/service/bottlerocket/aws-k8s-1.35/x86_64/1.64.0/image_id" for p in parameters)
    (lt,) = [
        r["Properties"]["LaunchTemplateData"]
        for r in template.find_resources("AWS::EC2::LaunchTemplate").values()
        if "UserData" in r["Properties"]["LaunchTemplateData"]
    ]
    assert lt["MetadataOptions"] == {"HttpPutResponseHopLimit": 1, "HttpTokens": "required"}
    (data,) = lt["BlockDeviceMappings"]
    assert data["DeviceName"] == "/dev/xvdb" and data["Ebs"]["Encrypted"] is True
    settings = tomllib.loads(lt["UserData"]["Fn::Base64"])["settings"]
    assert settings == {"host-containers": {"admin": {"enabled": True}}}
    (group,) = template.find_resources(
        "AWS::EC2::SecurityGroup", {"Properties": {"GroupDescription": Match.string_like_regexp("snapshot builder")}}
    ).values()
    assert "SecurityGroupIngress" not in group["Properties"]
    # Fast Snapshot Restore in the zones of the subnets the builder (and the nodes) use, by default.
    assert len(props["FastSnapshotRestoreZones"]) == 2
    assert snapshot.image_cache.restore == "fsr" and snapshot.image_cache.snapshot_id == snapshot.snapshot_id


def test_an_al2023_snapshot_carries_the_sandbox_image_and_the_device_plugin():
    stack, snapshot = stack_with(ami_family="al2023", images=[IMAGE, PLUGIN])
    props = properties(stack)
    assert props["SandboxImage"] == AL2023_SANDBOX_IMAGE == snapshot.sandbox_image
    assert props["Images"] == [IMAGE, PLUGIN]
    assert any("images import /etc/eks/pause.tar" in c for c in props["Commands"])
    parameters = [p["Default"] for p in Template.from_stack(stack).to_json()["Parameters"].values() if "Default" in p]
    assert (
        "/aws/service/eks/optimized-ami/1.35/amazon-linux-2023/x86_64/standard/"
        "amazon-eks-node-al2023-x86_64-standard-1.35-v20260714/image_id" in parameters
    )


def test_a_new_image_list_builds_a_new_snapshot_and_a_provisioned_rate_needs_no_fast_restore():
    first = properties(stack_with()[0])["Fingerprint"]
    second = properties(stack_with(images=[IMAGE, "lmsysorg/sglang:v0.5.23"])[0])["Fingerprint"]
    assert first != second
    stack, snapshot = stack_with(restore="rate")
    assert properties(stack)["FastSnapshotRestoreZones"] == []
    assert snapshot.image_cache.initialization_rate_mibps == 300


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"restore": "fast"}, "restore_mode"),
        ({"ami_family": "ubuntu"}, "ami_family"),
        ({"images": ["vllm/vllm-openai:latest"]}, "images"),
        ({"ami_alias": "bottlerocket@v1.58.0", "kubernetes_version": "1.36"}, "ami_alias"),
    ],
)
def test_bad_inputs_are_one_line_naming_the_field(kwargs, field):
    with pytest.raises(FastloadConfigError) as err:
        stack_with(**kwargs)
    assert err.value.field == field and "\n" not in str(err.value)


# --- the job, against fake EC2, SSM and ECR ------------------------------------------------------------


class Fake:
    """Just enough of EC2, SSM and ECR for the job: one builder instance, its command, its snapshot."""

    class exceptions:
        class InvocationDoesNotExist(Exception):
            pass

    def __init__(self) -> None:
        self.instance: dict[str, Any] | None = None
        self.online = False
        self.command_status = "InProgress"
        self.snapshots: list[dict[str, Any]] = []
        self.restores: dict[str, str] = {}
        self.calls: list[str] = []
        self.sent: list[list[str]] = []

    # EC2
    def run_instances(self, **kw: Any) -> dict[str, Any]:
        self.calls.append("run_instances")
        tags = kw["TagSpecifications"][0]["Tags"]
        self.instance = {
            "InstanceId": "i-0123456789abcdef0",
            "State": {"Name": "running"},
            "Tags": list(tags),
            "BlockDeviceMappings": [
                {"DeviceName": "/dev/xvda", "Ebs": {"VolumeId": "vol-os"}},
                {"DeviceName": "/dev/xvdb", "Ebs": {"VolumeId": "vol-data"}},
            ],
        }
        return {"Instances": [self.instance]}

    def describe_instances(self, **kw: Any) -> dict[str, Any]:
        if self.instance is None:
            raise ClientError({"Error": {"Code": "InvalidInstanceID.NotFound"}}, "DescribeInstances")
        return {"Reservations": [{"Instances": [self.instance]}]}

    def create_tags(self, **kw: Any) -> None:
        assert self.instance is not None
        self.instance["Tags"] += kw["Tags"]

    def stop_instances(self, **kw: Any) -> None:
        self.calls.append("stop_instances")
        assert self.instance is not None
        self.instance["State"] = {"Name": "stopped"}

    def terminate_instances(self, **kw: Any) -> None:
        self.calls.append("terminate_instances")
        assert self.instance is not None
        self.instance["State"] = {"Name": "terminated"}

    def create_snapshot(self, **kw: Any) -> None:
        self.calls.append("create_snapshot")
        assert kw["VolumeId"] == "vol-data"
        tags = kw["TagSpecifications"][0]["Tags"]
        self.snapshots.append({"SnapshotId": "snap-0123456789abcdef0", "State": "pending", "Tags": tags})

    def describe_snapshots(self, **kw: Any) -> dict[str, Any]:
        (wanted,) = kw["Filters"][0]["Values"]
        return {
            "Snapshots": [
                s for s in self.snapshots if {"Key": "fastload:builder-instance", "Value": wanted} in s["Tags"]
            ]
        }

    def describe_fast_snapshot_restores(self, **kw: Any) -> dict[str, Any]:
        return {"FastSnapshotRestores": [{"AvailabilityZone": z, "State": s} for z, s in self.restores.items()]}

    def enable_fast_snapshot_restores(self, **kw: Any) -> None:
        self.calls.append("enable_fast_snapshot_restores")
        self.restores.update(dict.fromkeys(kw["AvailabilityZones"], "optimizing"))

    def disable_fast_snapshot_restores(self, **kw: Any) -> None:
        self.calls.append("disable_fast_snapshot_restores")
        self.restores.update(dict.fromkeys(kw["AvailabilityZones"], "disabling"))

    def delete_snapshot(self, **kw: Any) -> None:
        self.calls.append("delete_snapshot")
        self.snapshots = [s for s in self.snapshots if s["SnapshotId"] != kw["SnapshotId"]]

    # SSM
    def describe_instance_information(self, **kw: Any) -> dict[str, Any]:
        return {"InstanceInformationList": [{"PingStatus": "Online"}] if self.online else []}

    def send_command(self, **kw: Any) -> dict[str, Any]:
        self.calls.append("send_command")
        self.sent.append(kw["Parameters"]["commands"])
        return {"Command": {"CommandId": "c-1"}}

    def get_command_invocation(self, **kw: Any) -> dict[str, Any]:
        return {"Status": self.command_status, "StandardErrorContent": "pull failed: 401"}

    # ECR
    def get_authorization_token(self) -> dict[str, Any]:
        return {"authorizationData": [{"authorizationToken": base64.b64encode(b"AWS:s3cret").decode()}]}


PROPS = {
    "BuildName": "S-Images",
    "LaunchTemplateId": "lt-0123",
    "LaunchTemplateVersion": "1",
    "SubnetId": "subnet-1",
    "DataDevice": "/dev/xvdb",
    "Images": [IMAGE],
    "Commands": ["set -eu", "echo pull"],
    "EcrPassword": "false",
    "FastSnapshotRestoreZones": ["us-west-2a", "us-west-2b"],
}


def run_until_done(fake: Fake, props: dict[str, Any], steps: int = 30) -> dict[str, Any]:
    clients = (fake, fake, fake)
    created = handler.on_event({"RequestType": "Create", "ResourceProperties": props}, None, clients)
    event = {"RequestType": "Create", "ResourceProperties": props, **created}
    for step in range(steps):
        result = handler.is_complete(event, None, clients)
        if result["IsComplete"]:
            return {**created, **result}
        # The outside world moves between calls.
        fake.online = fake.online or step >= 1
        if fake.snapshots and step >= 8:
            fake.snapshots[0]["State"] = "completed"
        if fake.restores and step >= 10:
            fake.restores = dict.fromkeys(fake.restores, "enabled")
        if "send_command" in fake.calls and step >= 4:
            fake.command_status = "Success"
    raise AssertionError(f"not done after {steps} steps: {fake.calls}")


def test_the_job_pulls_stops_snapshots_enables_fast_restore_then_terminates_the_builder():
    fake = Fake()
    done = run_until_done(fake, PROPS)
    assert done["PhysicalResourceId"] == "i-0123456789abcdef0"
    assert done["Data"] == {"SnapshotId": "snap-0123456789abcdef0"}
    order = [c for c in fake.calls if c != "enable_fast_snapshot_restores"]
    assert order == ["run_instances", "send_command", "stop_instances", "create_snapshot", "terminate_instances"]
    assert fake.restores == {"us-west-2a": "enabled", "us-west-2b": "enabled"}
    assert fake.sent == [PROPS["Commands"]]


def test_a_bottlerocket_builder_gets_an_ecr_password_for_ecr_images():
    fake = Fake()
    run_until_done(fake, {**PROPS, "EcrPassword": "true", "FastSnapshotRestoreZones": []})
    assert (
        fake.sent[0][0] == "export FASTLOAD_ECR_PASSWORD='s3cret'" and "enable_fast_snapshot_restores" not in fake.calls
    )


def test_failed_pulls_fail_the_deploy_with_their_output():
    fake = Fake()
    clients = (fake, fake, fake)
    created = handler.on_event({"RequestType": "Create", "ResourceProperties": PROPS}, None, clients)
    event = {"RequestType": "Create", "ResourceProperties": PROPS, **created}
    fake.online = True
    handler.is_complete(event, None, clients)  # sends
    fake.command_status = "Failed"
    with pytest.raises(handler.BuildFailed, match="pull failed: 401"):
        handler.is_complete(event, None, clients)


def test_delete_disables_fast_restore_before_deleting_the_snapshot():
    fake = Fake()
    done = run_until_done(fake, PROPS)
    event = {"RequestType": "Delete", "ResourceProperties": PROPS, "PhysicalResourceId": done["PhysicalResourceId"]}
    assert handler.on_event(event, None, (fake, fake, fake)) == {"PhysicalResourceId": "i-0123456789abcdef0"}
    assert handler.is_complete(event, None, (fake, fake, fake)) == {"IsComplete": False}
    assert fake.restores == {"us-west-2a": "disabling", "us-west-2b": "disabling"} and fake.snapshots
    fake.restores = dict.fromkeys(fake.restores, "disabled")
    assert handler.is_complete(event, None, (fake, fake, fake)) == {"IsComplete": True}
    assert not fake.snapshots and fake.calls[-1] == "delete_snapshot"
    # A builder gone for good (and no snapshot): delete is done at once.
    fake.instance = None
    assert handler.is_complete(event, None, (fake, fake, fake)) == {"IsComplete": True}
