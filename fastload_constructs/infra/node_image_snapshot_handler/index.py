"""The job behind `infra.NodeImageSnapshot`: a CloudFormation custom resource (aws-cdk-lib's Provider framework).

Builds an EBS snapshot of a node's containerd volume holding the server images, the way
aws-samples/bottlerocket-images-cache's snapshot.sh does by hand: launch a builder instance of the node's
OS, pull the images into containerd's `k8s.io` namespace on the data volume (SSM Run Command), stop the
instance, snapshot the volume, tag it, optionally enable Fast Snapshot Restore, terminate the builder.

`on_event` starts the work and names the resource after the builder instance; `is_complete` (called every
`query_interval` until it says done) advances one step per call, reading where it is from AWS itself (the
instance's state, its command, the snapshot tagged with the build): no state is kept in the function.
Deleting the resource disables Fast Snapshot Restore ("Fast snapshot restores must be disabled within all
Availability Zones before the snapshot may be deleted"), then deletes the snapshot and the builder.

Standard library and boto3 only (the Lambda runtime's).
"""

from __future__ import annotations

import base64
import os
from typing import Any

import boto3
from botocore.exceptions import ClientError

BUILD_TAG = "fastload:snapshot-build"
SSM_DOCUMENT = "AWS-RunShellScript"
ECR_PASSWORD_VARIABLE = "FASTLOAD_ECR_PASSWORD"
COMMAND_TIMEOUT_S = 3600


class BuildFailed(RuntimeError):
    """The builder's commands failed: the deploy fails with their output."""


def _clients() -> tuple[Any, Any, Any]:
    region = os.environ.get("AWS_REGION")
    return (
        boto3.client("ec2", region_name=region),
        boto3.client("ssm", region_name=region),
        boto3.client("ecr", region_name=region),
    )


def on_event(
    event: dict[str, Any], _context: object = None, clients: tuple[Any, Any, Any] | None = None
) -> dict[str, Any]:
    ec2, _, _ = clients or _clients()
    props = event["ResourceProperties"]
    if event["RequestType"] == "Delete":
        return {"PhysicalResourceId": event["PhysicalResourceId"]}
    # Create, or Update of anything (images, builder, zones): a new build; CloudFormation deletes the old one.
    tags = [{"Key": BUILD_TAG, "Value": props["BuildName"]}, {"Key": "Name", "Value": props["BuildName"]}]
    launched = ec2.run_instances(
        LaunchTemplate={"LaunchTemplateId": props["LaunchTemplateId"], "Version": str(props["LaunchTemplateVersion"])},
        SubnetId=props["SubnetId"],
        MinCount=1,
        MaxCount=1,
        TagSpecifications=[{"ResourceType": t, "Tags": tags} for t in ("instance", "volume")],
    )
    return {"PhysicalResourceId": launched["Instances"][0]["InstanceId"]}


def _instance(ec2: Any, instance_id: str) -> dict[str, Any] | None:
    try:
        reservations = ec2.describe_instances(InstanceIds=[instance_id])["Reservations"]
    except ClientError as err:  # gone long ago (terminated instances are listed for about an hour)
        if err.response.get("Error", {}).get("Code") == "InvalidInstanceID.NotFound":
            return None
        raise
    return reservations[0]["Instances"][0] if reservations and reservations[0]["Instances"] else None


def _tag(resource: dict[str, Any], key: str) -> str | None:
    return next((t["Value"] for t in resource.get("Tags", []) if t["Key"] == key), None)


def _snapshot(ec2: Any, instance_id: str) -> dict[str, Any] | None:
    found = ec2.describe_snapshots(
        OwnerIds=["self"], Filters=[{"Name": "tag:fastload:builder-instance", "Values": [instance_id]}]
    )["Snapshots"]
    return found[0] if found else None


def _commands(props: dict[str, Any], ecr: Any) -> list[str]:
    commands = list(props["Commands"])
    if props.get("EcrPassword") == "true":  # Bottlerocket's host has no AWS CLI: the job hands it a token
        token = ecr.get_authorization_token()["authorizationData"][0]["authorizationToken"]
        password = base64.b64decode(token).decode().split(":", 1)[1]
        commands.insert(0, f"export {ECR_PASSWORD_VARIABLE}='{password}'")
    return commands


def _run_commands(ssm: Any, ec2: Any, ecr: Any, instance: dict[str, Any], props: dict[str, Any]) -> None:
    """Send the builder's commands once the SSM agent is online; remember the command on the instance."""
    instance_id = instance["InstanceId"]
    online = ssm.describe_instance_information(Filters=[{"Key": "InstanceIds", "Values": [instance_id]}])
    if not any(i.get("PingStatus") == "Online" for i in online.get("InstanceInformationList", [])):
        return
    sent = ssm.send_command(
        InstanceIds=[instance_id],
        DocumentName=SSM_DOCUMENT,
        Parameters={"commands": _commands(props, ecr), "executionTimeout": [str(COMMAND_TIMEOUT_S)]},
        TimeoutSeconds=600,
        Comment=f"fastload node image snapshot {props['BuildName']}"[:100],
    )
    ec2.create_tags(Resources=[instance_id], Tags=[{"Key": "fastload:command", "Value": sent["Command"]["CommandId"]}])


def _check_commands(ssm: Any, ec2: Any, instance: dict[str, Any], command_id: str) -> None:
    """Stop the builder once its commands succeeded; fail the deploy with their output if they did not."""
    instance_id = instance["InstanceId"]
    try:
        invocation = ssm.get_command_invocation(CommandId=command_id, InstanceId=instance_id)
    except ssm.exceptions.InvocationDoesNotExist:
        return
    status = invocation["Status"]
    if status in ("Pending", "InProgress", "Delayed"):
        return
    if status != "Success":
        tail = (invocation.get("StandardErrorContent") or invocation.get("StandardOutputContent") or "")[-2000:]
        raise BuildFailed(f"the image builder's commands ended {status}: {tail}")
    ec2.stop_instances(InstanceIds=[instance_id])


def _snapshot_volume(ec2: Any, instance: dict[str, Any], props: dict[str, Any]) -> None:
    volume = next(
        m["Ebs"]["VolumeId"] for m in instance["BlockDeviceMappings"] if m["DeviceName"] == props["DataDevice"]
    )
    tags = [
        {"Key": BUILD_TAG, "Value": props["BuildName"]},
        {"Key": "fastload:builder-instance", "Value": instance["InstanceId"]},
        {"Key": "fastload:images", "Value": " ".join(props["Images"])[:255]},
        {"Key": "Name", "Value": props["BuildName"]},
    ]
    ec2.create_snapshot(
        VolumeId=volume,
        Description=f"fastload node image snapshot: {', '.join(props['Images'])}"[:255],
        TagSpecifications=[{"ResourceType": "snapshot", "Tags": tags}],
    )


def _fast_restore_ready(ec2: Any, snapshot_id: str, zones: list[str]) -> bool:
    """Enable Fast Snapshot Restore in each zone once; ready when every zone is `enabled`."""
    states = {
        s["AvailabilityZone"]: s["State"]
        for s in ec2.describe_fast_snapshot_restores(Filters=[{"Name": "snapshot-id", "Values": [snapshot_id]}])[
            "FastSnapshotRestores"
        ]
    }
    missing = [z for z in zones if z not in states or states[z] in ("disabling", "disabled")]
    if missing:
        ec2.enable_fast_snapshot_restores(AvailabilityZones=missing, SourceSnapshotIds=[snapshot_id])
        return False
    return all(states[z] == "enabled" for z in zones)


def _advance(ec2: Any, ssm: Any, ecr: Any, instance_id: str, props: dict[str, Any]) -> dict[str, Any]:
    snapshot = _snapshot(ec2, instance_id)
    if snapshot is not None:
        if snapshot["State"] == "error":
            raise BuildFailed(f"snapshot {snapshot['SnapshotId']} failed: {snapshot.get('StateMessage', '')}")
        if snapshot["State"] != "completed":
            return {"IsComplete": False}
        zones = list(props.get("FastSnapshotRestoreZones") or [])
        if zones and not _fast_restore_ready(ec2, snapshot["SnapshotId"], zones):
            return {"IsComplete": False}
        ec2.terminate_instances(InstanceIds=[instance_id])
        return {"IsComplete": True, "Data": {"SnapshotId": snapshot["SnapshotId"]}}
    instance = _instance(ec2, instance_id)
    if instance is None or instance["State"]["Name"] in ("shutting-down", "terminated"):
        raise BuildFailed(f"the image builder {instance_id} ended before its snapshot was taken")
    state = instance["State"]["Name"]
    command = _tag(instance, "fastload:command")
    if state == "stopped":
        _snapshot_volume(ec2, instance, props)
    elif state == "running" and command is None:
        _run_commands(ssm, ec2, ecr, instance, props)
    elif state == "running" and command is not None:
        _check_commands(ssm, ec2, instance, command)
    return {"IsComplete": False}


def _retire(ec2: Any, instance_id: str, props: dict[str, Any]) -> dict[str, Any]:
    """Delete: disable Fast Snapshot Restore, wait for it, delete the snapshot, terminate the builder."""
    snapshot = _snapshot(ec2, instance_id)
    if snapshot is not None:
        restores = ec2.describe_fast_snapshot_restores(
            Filters=[{"Name": "snapshot-id", "Values": [snapshot["SnapshotId"]]}]
        )["FastSnapshotRestores"]
        live = [r["AvailabilityZone"] for r in restores if r["State"] in ("enabling", "optimizing", "enabled")]
        if live:
            ec2.disable_fast_snapshot_restores(AvailabilityZones=live, SourceSnapshotIds=[snapshot["SnapshotId"]])
            return {"IsComplete": False}
        if any(r["State"] == "disabling" for r in restores):
            return {"IsComplete": False}
        ec2.delete_snapshot(SnapshotId=snapshot["SnapshotId"])
    instance = _instance(ec2, instance_id) if instance_id.startswith("i-") else None
    if instance is not None and instance["State"]["Name"] != "terminated":
        ec2.terminate_instances(InstanceIds=[instance_id])
    return {"IsComplete": True}


def is_complete(
    event: dict[str, Any], _context: object = None, clients: tuple[Any, Any, Any] | None = None
) -> dict[str, Any]:
    ec2, ssm, ecr = clients or _clients()
    instance_id = event["PhysicalResourceId"]
    if event["RequestType"] == "Delete":
        return _retire(ec2, instance_id, event["ResourceProperties"])
    return _advance(ec2, ssm, ecr, instance_id, event["ResourceProperties"])
