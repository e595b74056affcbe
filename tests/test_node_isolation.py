"""Isolation on the node: a vLLM container sees only its own model's node-local copy."""

from __future__ import annotations

import cdk8s

from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.serving.cache_sharing import (
    MODEL_CACHE_VOLUME,
    MODEL_MOUNT_PATH,
    NODE_LOCAL_MODEL_LINK,
    node_local_model_dir,
)
from fastload_constructs.k8s.server_chart import ServerChart
from fastload_constructs.k8s.warm_spares import WarmSparesChart
from tests.emitted_manifests import _warm_spares

URI = "s3://fastload-test-models/models/llama-3.1-8b"


def _pod(docs: list[dict]) -> dict:
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    return deployment["spec"]["template"]["spec"]


def test_the_vllm_container_mounts_only_its_own_models_folder():
    local = plan(
        ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16"),
        "g6e.2xlarge",
        TuningOptions(serving=Serving(model_cache="node-local")),
    )
    chart = ServerChart(
        cdk8s.Testing.app(),
        "isolated",
        plan=local,
        model_name="llama",
        model_uri=URI,
        region="us-east-1",
    )
    pod = _pod(cdk8s.Testing.synth(chart))
    (vllm,) = [c for c in pod["containers"] if c["name"] == "vllm"]
    (mount,) = [m for m in vllm["volumeMounts"] if m["name"] == MODEL_CACHE_VOLUME]
    folder = node_local_model_dir(URI)
    assert mount["subPath"] == folder  # not the node's whole model cache
    # Where stage-model copies and links to, at the same path: the pod's link to its copy resolves in here.
    (stage,) = [c for c in pod["initContainers"] if c["name"] == "stage-model"]
    assert (
        mount["mountPath"] == stage["command"][stage["command"].index("--dest") + 1] == f"{MODEL_MOUNT_PATH}/{folder}"
    )
    assert vllm["args"][0] == NODE_LOCAL_MODEL_LINK
    assert mount["readOnly"] is True


def test_warm_spares_give_their_main_container_no_model_cache():
    chart = WarmSparesChart(cdk8s.Testing.app(), "spares", **_warm_spares("node-local"))
    pod = _pod(cdk8s.Testing.synth(chart))
    for container in pod["containers"]:
        assert all(m["name"] != MODEL_CACHE_VOLUME for m in container.get("volumeMounts", [])), container["name"]
