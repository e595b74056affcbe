"""Pure decisions: the nodeadm user data and the shape of GPU nodes (no CDK)."""

import email

import pytest
import yaml

from fastload_constructs.core.cluster.gpu_nodes import DEFAULT_ROOT_VOLUME_GIB, gpu_node_spec
from fastload_constructs.core.cluster.nodeadm import NODEADM_CONTENT_TYPE, mime_user_data, node_config
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.naming import (
    GPU_TAINT_EFFECT,
    GPU_TAINT_KEY,
    GPU_TAINT_VALUE,
    INSTANCE_STORE_NONE,
    INSTANCE_STORE_RAID0,
    LABEL_AMI_FAMILY,
    LABEL_GPU_MODEL,
    LABEL_INSTANCE_FAMILY,
    LABEL_INSTANCE_STORE,
)


def parse_node_configs(user_data: str) -> list[dict]:
    """MIME multipart -> the YAML documents of every nodeadm part."""
    message = email.message_from_string(user_data)
    assert message.is_multipart() and message.get_content_type() == "multipart/mixed"
    parts = [p for p in message.get_payload() if p.get_content_type() == NODEADM_CONTENT_TYPE]
    return [yaml.safe_load(p.get_payload()) for p in parts]


def test_user_data_is_mime_with_a_raid0_node_config():
    (config,) = parse_node_configs(mime_user_data(node_config()))
    assert config["apiVersion"] == "node.eks.aws/v1alpha1"
    assert config["kind"] == "NodeConfig"
    assert config["spec"]["instance"]["localStorage"]["strategy"] == "RAID0"
    # A managed node group adds the cluster coordinates itself.
    assert "cluster" not in config["spec"]


def test_every_document_gets_its_own_part():
    docs = [node_config(), node_config(local_storage=None, fast_image_pull=True)]
    assert parse_node_configs(mime_user_data(*docs)) == docs


def test_opting_out_of_local_storage_leaves_the_disks_alone():
    config = node_config(local_storage=None, fast_image_pull=True)
    assert "instance" not in config["spec"]
    assert config["spec"]["featureGates"] == {"FastImagePull": True}


def test_unknown_strategy_is_refused():
    with pytest.raises(FastloadConfigError) as err:
        node_config(local_storage="raid0")
    assert err.value.field == "local_storage"


def test_labels_and_taint_of_a_raid0_node():
    spec = gpu_node_spec("g6e.12xlarge")
    assert spec.labels == {
        LABEL_INSTANCE_FAMILY: "g6e",
        LABEL_GPU_MODEL: "l40s",
        LABEL_INSTANCE_STORE: INSTANCE_STORE_RAID0,
        LABEL_AMI_FAMILY: "bottlerocket",
    }
    assert gpu_node_spec("g6e.12xlarge", ami_family="al2023").labels[LABEL_AMI_FAMILY] == "al2023"
    assert [(t.key, t.value, t.effect) for t in spec.taints] == [(GPU_TAINT_KEY, GPU_TAINT_VALUE, GPU_TAINT_EFFECT)]
    assert spec.local_storage_strategy == "RAID0"
    assert spec.root_volume_gib == DEFAULT_ROOT_VOLUME_GIB


def test_raid0_on_a_type_without_instance_store_is_refused():
    with pytest.raises(FastloadConfigError) as err:
        gpu_node_spec("p3.8xlarge")
    assert err.value.field == "instance_type"
    assert err.value.value == "p3.8xlarge"
    assert "instance_store=False" in err.value.accepted


def test_opting_out_puts_caches_on_the_root_volume():
    spec = gpu_node_spec("p3.8xlarge", instance_store=False)
    assert spec.labels[LABEL_INSTANCE_STORE] == INSTANCE_STORE_NONE
    assert spec.local_storage_strategy is None


@pytest.mark.parametrize(
    "field,kwargs",
    [
        ("root_volume_gib", {"root_volume_gib": 20}),
        ("root_volume_gib", {"root_volume_gib": 200.5}),
        ("capacity_type", {"capacity_type": "SPOT"}),
        ("instance_type", {"instance_type": "g6e.3xlarge"}),
        ("ami_family", {"ami_family": "ubuntu"}),
    ],
)
def test_bad_node_inputs_name_their_field(field, kwargs):
    args = {"instance_type": "g6e.2xlarge", **kwargs}
    with pytest.raises(FastloadConfigError) as err:
        gpu_node_spec(args.pop("instance_type"), **args)
    assert err.value.field == field
