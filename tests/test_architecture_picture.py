"""docs/draw_architecture.py: what the architecture picture shows is what the reference app synthesises, and the
committed picture was drawn from the app as it is now."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from PIL import Image

from fastload_constructs.core.cluster.ami_family import DEFAULT_AMI_FAMILY, default_ami_alias, node_os
from fastload_constructs.core.naming import INSTANCE_STORE_MOUNTS
from fastload_constructs.core.planning import Serving
from fastload_constructs.core.serving.server_pod import server_spec
from fastload_constructs.infra.scale_out_metrics import KEDA_VERSION
from stacks.config import parse_reference_config

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str, path: Path):  # type: ignore[no-untyped-def]
    """A script beside the package, as a module (registered first: its dataclasses look themselves up)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


architecture = _load("draw_architecture", ROOT / "docs" / "draw_architecture.py")
MODEL = parse_reference_config(architecture.shown_context()).models[0]


@pytest.fixture(scope="module")
def inventory():  # type: ignore[no-untyped-def]
    return architecture.inventory()


def test_the_server_pod_shown_is_the_pod_the_code_renders(inventory):
    spec = server_spec(
        MODEL.serving_plan(),
        model_name=MODEL.name,
        model_uri=f"s3://bucket/{MODEL.s3_prefix}",
        region="us-east-1",
        options=MODEL.server_options(),
    )
    assert [c.name for c in inventory.init_containers] == [c.name for c in spec.init_containers]
    assert [c.name for c in inventory.containers] == [spec.container_name, *(c.name for c in spec.sidecars)]
    assert inventory.init_containers[0] == architecture.Container("resolve-revision", None)
    # Every key the picture turns on adds something it marks, and nothing else is marked.
    marked = {c.added_by for c in (*inventory.init_containers, *inventory.containers)} - {None}
    assert marked == {architecture._key_name(field) for field in architecture.SHOWN_KEYS}
    # Turned off again, the model's pod loses exactly what is marked.
    plain = dataclasses.replace(MODEL.serving, **{f: getattr(Serving(), f) for f in architecture.SHOWN_KEYS})
    base = server_spec(
        dataclasses.replace(MODEL, options=dataclasses.replace(MODEL.options, serving=plain)).serving_plan(),
        model_name=MODEL.name,
        model_uri=f"s3://bucket/{MODEL.s3_prefix}",
        region="us-east-1",
        options=MODEL.server_options(),
    )
    unmarked = [c.name for c in inventory.init_containers if c.added_by is None]
    assert unmarked == [c.name for c in base.init_containers]


def test_the_nodes_and_controllers_shown_are_the_defaults_the_app_emits(inventory):
    family = node_os(DEFAULT_AMI_FAMILY)
    assert inventory.ami_alias == default_ami_alias(DEFAULT_AMI_FAMILY)
    assert (inventory.node_family, inventory.instance_store) == (
        family.display_name,
        INSTANCE_STORE_MOUNTS[DEFAULT_AMI_FAMILY],
    )
    assert inventory.cache_paths and all(
        p.startswith(INSTANCE_STORE_MOUNTS[DEFAULT_AMI_FAMILY]) for p in inventory.cache_paths
    )
    assert inventory.instance_types == (MODEL.instance_type,)
    assert MODEL.image in inventory.snapshot_images and inventory.fast_snapshot_restore_zones >= 1
    assert f"keda {KEDA_VERSION}" in inventory.controllers
    assert any(c.startswith("karpenter ") for c in inventory.controllers)
    assert {"NodePool", "EC2NodeClass", "ScaledObject", "Deployment"} <= set(inventory.kinds)
    assert inventory.s3_gateway_endpoint and inventory.managed_scraper and inventory.interruption_queue
    assert f"{MODEL.name}-vllm" in inventory.pod_identity
    assert inventory.scaling_metric == "vllm:num_requests_waiting"


def test_the_picture_writes_what_the_inventory_holds(inventory, tmp_path):
    fig = architecture.draw(inventory, tmp_path / "a.png")
    try:
        text = "\n".join(t.get_text() for t in fig.axes[0].texts)
    finally:
        plt.close(fig)
    for i, c in enumerate(inventory.init_containers, 1):
        assert f"{i} {c.name}" in text
    for name in (*inventory.pod_identity, inventory.ami_alias, inventory.server, *inventory.bucket_layout):
        assert name in text


def test_the_committed_picture_is_drawn_from_the_app_as_it_is(inventory):
    stored = Image.open(ROOT / "docs" / "architecture.png").text.get("Description")
    assert stored == inventory.described(), "stale: run .venv/bin/python docs/draw_architecture.py"
    assert "](docs/architecture.png)" in (ROOT / "README.md").read_text()
