"""The reference stack with `fastload:gpuNodes: managed`: GPU node groups per instance type, plugin, local-nvme.

Bottlerocket nodes (the default) and AL2023 nodes (`fastload:amiFamily: al2023`), both restoring the image
snapshot the stack builds."""

import copy
import email
import json
from pathlib import Path

import pytest
import yaml
from aws_cdk.assertions import Template

from app import build_app
from fastload_constructs.core.cluster.karpenter import DO_NOT_DISRUPT
from fastload_constructs.core.naming import LOCAL_NVME_STORAGE_CLASS
from stacks.config import parse_reference_config
from tests.cfn_template import properties
from tests.toml_read import tomllib

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]


def _template(tmp_path_factory, **context):
    context = {**copy.deepcopy(CDK_JSON), "fastload:gpuNodes": "managed", **context}
    app = build_app(context=context, outdir=str(tmp_path_factory.mktemp("cdk.out")))
    return Template.from_json(app.synth().get_stack_by_name("FastloadReference").template)


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return _template(tmp_path_factory)


@pytest.fixture(scope="module")
def al2023(tmp_path_factory):
    return _template(tmp_path_factory, **{"fastload:amiFamily": "al2023"})


@pytest.mark.parametrize(
    "family, ami_type", [("template", "BOTTLEROCKET_x86_64_NVIDIA"), ("al2023", "AL2023_x86_64_NVIDIA")]
)
def test_one_gpu_node_group_per_instance_type(request, family, ami_type):
    expected = parse_reference_config(CDK_JSON).instance_types
    groups = properties(request.getfixturevalue(family), "AWS::EKS::Nodegroup")
    gpu = [ng for ng in groups if ng["AmiType"] == ami_type]
    assert sorted(ng["InstanceTypes"][0] for ng in gpu) == sorted(expected)


@pytest.mark.parametrize("family, charts", [("template", {"keda"}), ("al2023", {"nvidia-device-plugin", "keda"})])
def test_device_plugin_on_al2023_only_and_local_nvme_are_applied(request, family, charts):
    template = request.getfixturevalue(family)
    # No Karpenter in managed mode; Bottlerocket's NVIDIA variant runs the device plugin as a host service.
    assert {c["Chart"] for c in properties(template, "Custom::AWSCDK-EKS-HelmChart")} == charts
    manifests = properties(template, "Custom::AWSCDK-EKS-KubernetesResource")
    rendered = json.dumps(manifests)
    docs = [doc for m in manifests for doc in _manifest_docs(m["Manifest"])]
    kinds = {(d.get("kind"), d.get("metadata", {}).get("name")) for d in docs if isinstance(d, dict)}
    assert ("StorageClass", LOCAL_NVME_STORAGE_CLASS) in kinds, rendered[:500]
    assert any(kind == "DaemonSet" for kind, _ in kinds)


def test_vllm_pods_carry_karpenters_annotation_only_where_karpenter_runs(template):
    docs = [
        d for m in properties(template, "Custom::AWSCDK-EKS-KubernetesResource") for d in _manifest_docs(m["Manifest"])
    ]
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    assert deployment["spec"]["template"]["metadata"]["annotations"] == {
        "kubectl.kubernetes.io/default-container": "vllm"
    }
    assert DO_NOT_DISRUPT not in json.dumps(docs)
    assert "replicas" not in deployment["spec"]  # KEDA scales the pods on managed nodes too


def _manifest_docs(manifest):
    """The Manifest property is a JSON string, possibly an Fn::Join with tokens inside its strings."""
    if isinstance(manifest, dict) and "Fn::Join" in manifest:
        manifest = "".join(p if isinstance(p, str) else "TOKEN" for p in manifest["Fn::Join"][1])
    return json.loads(manifest)


def _user_data(template):
    every = properties(template, "AWS::EC2::LaunchTemplate")
    # The system node group's template carries only the metadata options (IMDSv2, one hop); the snapshot
    # builder's template is the one with an instance type of its own.
    templates = [lt for lt in every if "UserData" in lt["LaunchTemplateData"]]
    for lt in every:
        assert lt["LaunchTemplateData"]["MetadataOptions"]["HttpPutResponseHopLimit"] == 1
    nodes = [lt for lt in templates if "InstanceType" not in lt["LaunchTemplateData"]]
    assert nodes and len(every) == len(templates) + 1
    return [(lt["LaunchTemplateData"], lt["LaunchTemplateData"]["UserData"]["Fn::Base64"]) for lt in nodes]


def test_bottlerocket_nodes_stripe_the_nvme_and_keep_containerd_on_the_restored_volume(template):
    """TOML user data: `apiclient ephemeral-storage` makes the RAID0 and binds kubelet's dirs onto it, not
    containerd's (the image snapshot is restored as the data volume, /dev/xvdb)."""
    for data, user_data in _user_data(template):
        settings = tomllib.loads(user_data)["settings"]
        (command,) = settings["bootstrap-commands"].values()
        assert command["commands"][0] == ["apiclient", "ephemeral-storage", "init"]
        assert command["commands"][1][:4] == ["apiclient", "ephemeral-storage", "bind", "--dirs"]
        assert "/var/lib/containerd" not in command["commands"][1]
        assert settings["host-containers"]["admin"]["enabled"] is False
        assert "kubernetes" not in settings  # EKS merges the cluster's own settings in
        (data_volume,) = [m for m in data["BlockDeviceMappings"] if m["DeviceName"] == "/dev/xvdb"]
        assert data_volume["Ebs"]["SnapshotId"] == {"Fn::GetAtt": ["NodeImagesSnapshotA8124D6D", "SnapshotId"]}


def test_al2023_nodes_mount_the_restored_volume_as_containerds_root_next_to_raid0(al2023):
    """The MIME user data: nodeadm's RAID0 and containerd on the labelled snapshot volume (SOCI off: the image is
    unpacked already)."""
    for _, user_data in _user_data(al2023):
        message = email.message_from_string(user_data)
        (config,) = [
            yaml.safe_load(part.get_payload())
            for part in message.walk()
            if part.get_content_type() == "application/node.eks.aws"
        ]
        assert "featureGates" not in config["spec"] or not config["spec"]["featureGates"].get("FastImagePull")
        assert config["spec"]["instance"]["localStorage"]["strategy"] == "RAID0"
        assert any(part.get_content_type() == "text/x-shellscript" for part in message.walk())


def test_al2023_nodes_without_a_snapshot_pull_in_parallel(tmp_path_factory):
    """`fastload:imageSnapshot: none`: nothing restored, the image pulled; on AL2023 with nodeadm's
    FastImagePull (SOCI's parallel pull and unpack), as the plan then says."""
    template = _template(tmp_path_factory, **{"fastload:amiFamily": "al2023", "fastload:imageSnapshot": "none"})
    for _, user_data in _user_data(template):
        message = email.message_from_string(user_data)
        (config,) = [
            yaml.safe_load(part.get_payload())
            for part in message.walk()
            if part.get_content_type() == "application/node.eks.aws"
        ]
        assert config["spec"]["featureGates"] == {"FastImagePull": True}
    assert not properties(template, "Custom::NodeImageSnapshot")
