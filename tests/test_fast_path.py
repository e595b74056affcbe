"""The reference app's default path: a brand-new g6e.2xlarge serves Llama-3.1-8B within 150 s, and `cdk synth`
deploys exactly that path.

`fastload plan --instance g6e.2xlarge --params 8.03e9` plans the default: Bottlerocket NVIDIA nodes, the image
on a data volume restored from the node snapshot the stack builds (Fast Snapshot Restore). These tests hold
that plan to 150 s with every phase cited, then read the synthesized stack (the rehearsal's resolver gives
each deploy-time token the value CloudFormation returns) for the same nodes, snapshot, restore mode, images
and cache paths. A buffered node (Karpenter's CapacityBuffer) is the path under 90 s. Then the choices:
AL2023 nodes, a provisioned rate, no snapshot; and bad input, one line naming its field.
"""

from __future__ import annotations

import contextlib
import copy
import email
import io
import json
from pathlib import Path

import pytest
import yaml

from app import build_app
from fastload_constructs.cli.main import main
from fastload_constructs.core.cluster.ami_family import default_ami_alias
from fastload_constructs.core.cluster.image_cache import DEVICE_NAME, ImageCache
from fastload_constructs.core.cluster.karpenter import NodePoolOptions
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.naming import node_cache_paths
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.k8s.local_storage import PROVISIONER_IMAGE
from stacks.config import parse_reference_config
from tests.rehearsal.deployment import Deployment
from tests.rehearsal.environment import Environment
from tests.toml_read import tomllib

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]
ACCOUNT, REGION = "123456789012", "us-west-2"
BUDGET_S = 150.0


def cli_plan(*args: str) -> dict:
    return _run(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", *args, "--json"])


def _run(args: list[str]) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    return json.loads(out.getvalue())


def _deployment(tmp_path_factory, **context) -> Deployment:
    ctx = {**copy.deepcopy(CDK_JSON), **context}
    app = build_app(context=ctx, outdir=str(tmp_path_factory.mktemp("cdk.out")))
    stack = app.synth().get_stack_by_name("FastloadReference")
    return Deployment(stack.template, Environment(stack.stack_name, account=ACCOUNT, region=REGION))


@pytest.fixture(scope="module")
def default_plan() -> dict:
    return cli_plan()


@pytest.fixture(scope="module")
def karpenter(tmp_path_factory) -> Deployment:
    return _deployment(tmp_path_factory)  # cdk.json as it is: `make synth`


@pytest.fixture(scope="module")
def managed(tmp_path_factory) -> Deployment:
    return _deployment(tmp_path_factory, **{"fastload:gpuNodes": "managed"})


# --- the plan --------------------------------------------------------------------------------------------------


def test_a_brand_new_g6e_2xlarge_serves_within_150_s_on_the_default_path(default_plan):
    fresh = default_plan["scale_out_paths"]["fresh_node"]
    assert fresh["total"] <= BUDGET_S
    assert default_plan["nodes"] == {
        "ami_family": "bottlerocket",
        "image": "snapshot",
        "buffered_nodes": 0,
        "buffered_idle_gpu_hours_per_day": 0.0,
        "restore_mode": "fsr",
        "fast_snapshot_restore_hours_per_day_per_zone": 24,
        # A 100 GiB snapshot's credit bucket: 10 initialized volumes per zone at once, 10 more an hour.
        "fast_snapshot_restore_nodes_per_zone_per_hour": 10,
    }
    assert list(fresh["phases"]) == [
        "node_launch",
        "gpu_registration",
        "image_pull",
        "process_start",
        "weight_load",
        "compile",
        "cuda_graph",
        "kv_and_server",
    ]
    # A brand-new node compiles cold (the shared compile cache is a choice: it makes the compile a hit).
    assert fresh["phases"]["compile"] == default_plan["predicted_seconds"]["compile"]
    cached = cli_plan("--shared-compile-cache")["scale_out_paths"]["fresh_node"]
    assert cached["phases"]["compile"] < fresh["phases"]["compile"] and cached["total"] < fresh["total"]
    # The node image snapshot is what fits the budget: the same path pulling the image would not.
    pulled = cli_plan("--pull-mode", "plain")["scale_out_paths"]["fresh_node"]
    assert pulled["total"] > BUDGET_S


def test_every_phase_of_the_default_path_is_cited(default_plan):
    fresh = default_plan["scale_out_paths"]["fresh_node"]
    assert list(fresh["sources"]) == list(fresh["phases"])
    for phase, line in fresh["sources"].items():
        assert line.startswith(f"{phase} {fresh['phases'][phase]:.1f} s (")
        assert "https://" in line, line
    assert default_plan["fresh_node_sources"] == list(fresh["sources"].values())
    # The node-side figures come from the fit over published start-ups (tests/test_node_phase_fit.py).
    assert "(fitted)" in fresh["sources"]["node_launch"] and "gpu_node_startups.json" in fresh["sources"]["node_launch"]


def test_a_buffered_node_is_the_path_under_90_s(default_plan):
    """A node Karpenter keeps up and empty (a CapacityBuffer, `bufferedNodes`): the image restore and the pod's
    own start only. It costs the node's GPUs all day."""
    paths = default_plan["scale_out_paths"]
    assert paths["buffered_node"]["total"] < 90.0
    assert "node_launch" not in paths["buffered_node"]["phases"]
    buffered = cli_plan("--buffered-nodes", "1")
    assert buffered["nodes"]["buffered_idle_gpu_hours_per_day"] == 24.0
    assert buffered["scale_out_paths"]["buffered_node"] == paths["buffered_node"]


def test_the_stack_plans_its_models_on_the_path_the_cli_plans():
    (model,) = parse_reference_config(CDK_JSON).models
    paths = model.serving_plan().scale_out_paths
    assert paths is not None
    cli = cli_plan()["scale_out_paths"]["fresh_node"]
    assert {n: round(s, 1) for n, s in paths.fresh_node.phases} == cli["phases"]
    assert (paths.ami_family, paths.pull_mode, paths.restore_mode) == ("bottlerocket", "snapshot", "fsr")


# --- what `cdk synth` deploys ------------------------------------------------------------------------------------


def _snapshot(deployment: Deployment) -> tuple[str, dict]:
    (lid, props), *_ = deployment.of_type("Custom::NodeImageSnapshot").items()
    assert len(deployment.of_type("Custom::NodeImageSnapshot")) == 1
    return deployment.get_att(lid, "SnapshotId"), props


def _server_pod(deployment: Deployment) -> dict:
    (pod,) = [
        o["spec"]["template"]["spec"]
        for _, o in deployment.manifests
        if o.get("kind") == "Deployment" and o["metadata"]["name"] == CDK_JSON["fastload:models"][0]["name"]
    ]
    return pod


def test_synth_deploys_the_planned_nodes_snapshot_restore_and_caches_with_karpenter(karpenter, default_plan):
    snapshot_id, built = _snapshot(karpenter)
    (node_class,) = [o for _, o in karpenter.manifests if o.get("kind") == "EC2NodeClass"]
    spec = node_class["spec"]
    assert spec["amiSelectorTerms"] == [{"alias": default_ami_alias("bottlerocket")}]
    (data,) = [m for m in spec["blockDeviceMappings"] if m["deviceName"] == DEVICE_NAME]
    assert data["ebs"]["snapshotID"] == snapshot_id and data["rootVolume"] is True
    assert "volumeInitializationRate" not in data["ebs"]  # restore mode fsr: the snapshot is initialized already
    assert "instanceStorePolicy" not in spec  # its bind would hide the restored containerd store
    (command,) = tomllib.loads(spec["userData"])["settings"]["bootstrap-commands"].values()
    assert "/var/lib/containerd" not in command["commands"][1]
    _check_snapshot_and_pods(karpenter, built, default_plan)


def test_synth_deploys_the_same_path_on_managed_nodes(managed, default_plan):
    snapshot_id, built = _snapshot(managed)
    groups = [p for p in managed.of_type("AWS::EKS::Nodegroup").values() if "NVIDIA" in str(p.get("AmiType"))]
    assert groups and {g["AmiType"] for g in groups} == {"BOTTLEROCKET_x86_64_NVIDIA"}
    templates = {managed.ref(lid): p for lid, p in managed.of_type("AWS::EC2::LaunchTemplate").items()}
    for group in groups:
        data = templates[group["LaunchTemplate"]["Id"]]["LaunchTemplateData"]
        (volume,) = [m for m in data["BlockDeviceMappings"] if m["DeviceName"] == DEVICE_NAME]
        assert volume["Ebs"]["SnapshotId"] == snapshot_id and "VolumeInitializationRate" not in volume["Ebs"]
    _check_snapshot_and_pods(managed, built, default_plan)


def _check_snapshot_and_pods(deployment: Deployment, built: dict, plan: dict) -> None:
    # The snapshot holds the plan's image (and the local-volume provisioner's); Bottlerocket brings the sandbox.
    pod = _server_pod(deployment)
    images = {c["image"] for c in (*pod["containers"], *pod.get("initContainers", []))}
    assert images == {f"vllm/vllm-openai:v{plan['vllm_version']}"}
    assert built["AmiFamily"] == "bottlerocket" and built["SandboxImage"] == ""
    assert built["Images"] == [*sorted(images), PROVISIONER_IMAGE]
    # Fast Snapshot Restore in every zone the GPU nodes launch in (the network's private subnets), no other.
    zones = {p["AvailabilityZone"] for p in _gpu_subnets(deployment)}
    assert len(zones) == 2 and sorted(built["FastSnapshotRestoreZones"]) == sorted(zones)
    # No device-plugin DaemonSet: Bottlerocket's NVIDIA variant runs the plugin itself.
    assert all(
        p.get("Chart") != "nvidia-device-plugin" for p in deployment.of_type("Custom::AWSCDK-EKS-HelmChart").values()
    )
    # The caches land on the instance-store array Bottlerocket mounts at /mnt/.ephemeral.
    paths = node_cache_paths("bottlerocket")
    host_paths = [v["hostPath"]["path"] for v in pod["volumes"] if "hostPath" in v]
    assert host_paths and all(p.startswith(paths.root) for p in host_paths)
    # The plan's compile is cold: no compile cache is restored (the shared compile cache is off by default).
    assert "restore-compile-cache" not in [c["name"] for c in pod.get("initContainers", [])]
    assert [c["name"] for c in pod["containers"]] == ["vllm"]


def _gpu_subnets(deployment: Deployment) -> list[dict]:
    """The subnets the GPU nodes (and the snapshot's builder) launch in: the network's private ones."""
    private = [
        p
        for p in deployment.of_type("AWS::EC2::Subnet").values()
        if {"Key": "aws-cdk:subnet-type", "Value": "Private"} in p.get("Tags", [])
    ]
    (built,) = deployment.of_type("Custom::NodeImageSnapshot").values()
    subnet_ids = {deployment.ref(lid) for lid, p in deployment.of_type("AWS::EC2::Subnet").items() if p in private}
    assert built["SubnetId"] in subnet_ids
    return private


# --- the choices --------------------------------------------------------------------------------------------


def test_al2023_nodes_plan_their_own_phases_and_get_the_device_plugin_and_the_sandbox_image(tmp_path_factory):
    plan = cli_plan("--ami", "al2023")
    fresh = plan["scale_out_paths"]["fresh_node"]
    bottlerocket = cli_plan()["scale_out_paths"]["fresh_node"]
    assert fresh["phases"]["node_launch"] > bottlerocket["phases"]["node_launch"]
    assert fresh["phases"]["gpu_registration"] > bottlerocket["phases"]["gpu_registration"]
    deployment = _deployment(tmp_path_factory, **{"fastload:amiFamily": "al2023"})
    _, built = _snapshot(deployment)
    assert built["AmiFamily"] == "al2023" and built["SandboxImage"] == "localhost/kubernetes/pause:latest"
    assert "nvcr.io/nvidia/k8s-device-plugin:v0.20.0" in built["Images"]
    charts = {p.get("Chart") for p in deployment.of_type("Custom::AWSCDK-EKS-HelmChart").values()}
    assert "nvidia-device-plugin" in charts
    (node_class,) = [o for _, o in deployment.manifests if o.get("kind") == "EC2NodeClass"]
    assert node_class["spec"]["amiSelectorTerms"] == [{"alias": default_ami_alias("al2023")}]
    # RAID0 written by us, leaving containerd on the restored volume (Karpenter's policy would bind it away).
    assert "instanceStorePolicy" not in node_class["spec"]
    message = email.message_from_string(node_class["spec"]["userData"])
    (config,) = [
        yaml.safe_load(p.get_payload()) for p in message.walk() if p.get_content_type() == "application/node.eks.aws"
    ]
    storage = config["spec"]["instance"]["localStorage"]
    assert storage["strategy"] == "RAID0" and storage["disabledMounts"] == ["Containerd"]
    pod = _server_pod(deployment)
    root = node_cache_paths("al2023").root
    assert all(v["hostPath"]["path"].startswith(root) for v in pod["volumes"] if "hostPath" in v)


def test_a_provisioned_rate_is_planned_and_deployed_instead_of_fast_snapshot_restore(tmp_path_factory):
    plan = cli_plan("--restore-mode", "rate")
    assert (
        plan["nodes"]["restore_mode"] == "rate" and "fast_snapshot_restore_hours_per_day_per_zone" not in plan["nodes"]
    )
    assert plan["scale_out_paths"]["fresh_node"]["phases"]["image_pull"] == 32.0  # at 300 MiB/s
    deployment = _deployment(tmp_path_factory, **{"fastload:imageRestore": "rate"})
    _, built = _snapshot(deployment)
    assert "FastSnapshotRestoreZones" not in built or built["FastSnapshotRestoreZones"] == []
    (node_class,) = [o for _, o in deployment.manifests if o.get("kind") == "EC2NodeClass"]
    (data,) = [m for m in node_class["spec"]["blockDeviceMappings"] if m["deviceName"] == DEVICE_NAME]
    assert data["ebs"]["volumeInitializationRate"] == 300


def test_without_a_snapshot_the_image_is_pulled_and_the_plan_says_so(tmp_path_factory):
    (model,) = parse_reference_config({**CDK_JSON, "fastload:imageSnapshot": "none"}).models
    paths = model.serving_plan().scale_out_paths
    assert paths is not None and paths.pull_mode == "plain"
    assert paths.fresh_node.total_s > BUDGET_S  # 11.6 GB at containerd's pace: the snapshot is what fits
    deployment = _deployment(tmp_path_factory, **{"fastload:imageSnapshot": "none"})
    assert not deployment.of_type("Custom::NodeImageSnapshot")


# --- bad input: one line naming the field --------------------------------------------------------------------


@pytest.mark.parametrize(
    "context, field",
    [
        ({"fastload:amiFamily": "ubuntu"}, "fastload:amiFamily"),
        ({"fastload:imageRestore": "fast"}, "fastload:imageRestore"),
        ({"fastload:imageSnapshot": "yes"}, "fastload:imageSnapshot"),
        ({"fastload:imageCacheSnapshotId": "snap-12"}, "fastload:imageCacheSnapshotId"),
        ({"fastload:amiAlias": "bottlerocket@v1.40.0"}, "fastload:amiAlias"),  # serves no Kubernetes 1.35
        ({"fastload:amiAlias": "al2023@v20260714"}, "fastload:amiAlias"),  # not the family's
    ],
)
def test_bad_cdk_json_is_one_line_naming_its_key(context, field):
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config({**CDK_JSON, **context})
    assert err.value.field == field and "\n" not in str(err.value)


@pytest.mark.parametrize(
    "args, flag",
    [
        (["--ami", "ubuntu"], "--ami"),
        (["--restore-mode", "fast"], "--restore-mode"),
        (["--ami", "al2023", "--buffered-nodes", "-1"], "--buffered-nodes"),
    ],
)
def test_bad_cli_input_is_one_line_naming_its_flag(args, flag, capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert flag in err and "Traceback" not in err and len(err.splitlines()) == 1


@pytest.mark.parametrize(
    "build, field",
    [
        (lambda: Serving(ami_family="ubuntu"), "serving.ami_family"),  # type: ignore[arg-type]
        (lambda: Serving(image_restore="fast"), "serving.image_restore"),  # type: ignore[arg-type]
        (lambda: NodePoolOptions(ami_family="ubuntu"), "ami_family"),  # type: ignore[arg-type]
        (lambda: NodePoolOptions(ami_alias="bottlerocket@v1.40.0", kubernetes_version="1.35"), "ami_alias"),
        (lambda: ImageCache(snapshot_id="snap-xyz"), "imageCache.snapshotId"),
        (lambda: ImageCache(snapshot_id="snap-0123456789abcdef0", restore="fast"), "imageCache.restore"),  # type: ignore[arg-type]
    ],
)
def test_bad_props_are_one_line_naming_their_field(build, field):
    with pytest.raises(FastloadConfigError) as err:
        build()
    assert err.value.field == field and "\n" not in str(err.value)


def test_every_phase_of_every_path_has_a_public_source():
    from fastload_constructs.core.planning.phase_sources import phase_source
    from fastload_constructs.core.planning.scale_out import PHASE_ORDER

    for family in ("bottlerocket", "al2023"):
        for pull_mode in ("snapshot", "plain", "parallel", "lazy"):
            for restore in ("fsr", "rate", "lazy"):
                for engine in ("vllm", "sglang"):
                    for phase in PHASE_ORDER:
                        source = phase_source(
                            phase,
                            ami_family=family,
                            pull_mode=pull_mode,
                            restore=restore,
                            engine=engine,
                            warm_compile=False,
                        )
                        assert source.urls and all(u.startswith("https://") for u in source.urls), phase
    with pytest.raises(KeyError):
        phase_source(
            "teleport", ami_family="al2023", pull_mode="plain", restore="fsr", engine="vllm", warm_compile=False
        )
