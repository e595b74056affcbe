"""The reference stack with `fastload:gpuNodes: managed`: GPU node groups per instance type, plugin, local-nvme."""

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

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    context = {**copy.deepcopy(CDK_JSON), "fastload:gpuNodes": "managed"}
    app = build_app(context=context, outdir=str(tmp_path_factory.mktemp("cdk.out")))
    return Template.from_json(app.synth().get_stack_by_name("FastloadReference").template)


def test_one_gpu_node_group_per_instance_type(template):
    expected = parse_reference_config(CDK_JSON).instance_types
    gpu = [ng for ng in properties(template, "AWS::EKS::Nodegroup") if ng["AmiType"] == "AL2023_x86_64_NVIDIA"]
    assert sorted(ng["InstanceTypes"][0] for ng in gpu) == sorted(expected)


def test_device_plugin_and_local_nvme_are_applied(template):
    charts = {c["Chart"] for c in properties(template, "Custom::AWSCDK-EKS-HelmChart")}
    assert charts == {"nvidia-device-plugin", "keda"}  # no Karpenter in managed mode
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


def test_gpu_nodes_pull_images_in_parallel(template):
    """The reference stack turns on nodeadm's FastImagePull next to RAID0 (read from the MIME user data)."""
    every = properties(template, "AWS::EC2::LaunchTemplate")
    # The system node group's template carries only the metadata options (IMDSv2, one hop).
    templates = [lt for lt in every if "UserData" in lt["LaunchTemplateData"]]
    assert templates and len(every) == len(templates) + 1
    for lt in every:
        assert lt["LaunchTemplateData"]["MetadataOptions"]["HttpPutResponseHopLimit"] == 1
    for lt in templates:
        user_data = lt["LaunchTemplateData"]["UserData"]["Fn::Base64"]
        message = email.message_from_string(user_data)
        (config,) = [
            yaml.safe_load(part.get_payload())
            for part in message.walk()
            if part.get_content_type() == "application/node.eks.aws"
        ]
        assert config["spec"]["featureGates"] == {"FastImagePull": True}
        assert config["spec"]["instance"]["localStorage"]["strategy"] == "RAID0"
