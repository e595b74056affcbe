"""Warm first launches in the vLLM chart: the shared compile cache and the node-local model cache."""

from __future__ import annotations

import json
import subprocess
import sys

import cdk8s
import kubernetes_validate
import pytest

from fastload_constructs.core import naming
from fastload_constructs.core.engines.vllm.launch import CACHE_MOUNT_PATH
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.serving.cache_sharing import (
    COMPILE_CACHE_SCRIPT,
    MODEL_COPY_SCRIPT,
    MODEL_MOUNT_PATH,
    NODE_LOCAL_MODEL_LINK,
    REVISION_MOUNT_PATH,
    REVISION_SCRIPT,
    SCRIPT_MOUNT_PATH,
    SharedCompileCache,
    node_local_model_dir,
)
from fastload_constructs.core.serving.runtime_scripts import runtime_scripts
from fastload_constructs.core.serving.server_pod import ServerOptions, server_spec
from fastload_constructs.core.serving.warm_check import WARM_CHECK_SCRIPT
from fastload_constructs.infra.synth_limits import MAX_TEMPLATE_BYTES
from fastload_constructs.k8s.server_chart import ServerChart
from fastload_constructs.runtime import compile_cache, revision
from stacks.config import DEFAULT_KUBERNETES_VERSION
from tests.serving_plans import planned, served_as

URI = "s3://fastload-test-models/models/llama-3.1-8b"
LLAMA_8B = ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16")
LLAMA_70B = ModelProfile.from_numbers(parameter_count=70_600_000_000, dtype="BF16")
CACHE = SharedCompileCache("fastload-test-models")


@pytest.fixture(scope="module")
def s3_plan():
    return plan(LLAMA_8B, "g6e.2xlarge")


@pytest.fixture(scope="module")
def local_plan():
    return planned(LLAMA_8B, "g6e.2xlarge", model_cache="node-local")


def spec(p, **kw):
    """The server spec of `p`, with serving choices (image, shared_compile_cache...) planned into it."""
    serving = {k: kw.pop(k) for k in ("image", "shared_compile_cache", "model_cache") if k in kw}
    if serving:
        p = served_as(p, **serving)
    return server_spec(p, model_name="llama", model_uri=URI, region="us-east-1", options=ServerOptions(**kw))


def cache_steps(s):
    """The pod's init steps after resolve-revision (which every pod following revisions runs first)."""
    assert s.init_containers[0].name == "resolve-revision"
    return s.init_containers[1:]


def test_off_by_default(s3_plan):
    s = spec(s3_plan)
    assert cache_steps(s) == () and s.sidecars == ()
    assert s.model_path == URI and s.model_host_path is None
    plain = spec(s3_plan, follow_revisions=False)  # the URI as given: no step at all
    assert plain.init_containers == () and plain.container_command == plain.command


def test_shared_cache_restores_before_and_publishes_after(s3_plan):
    s = spec(s3_plan, shared_compile_cache=True)
    (restore,) = cache_steps(s)
    (publish,) = s.sidecars
    for step, command in ((restore, "restore"), (publish, "publish")):
        args = list(step.args)
        assert step.script == COMPILE_CACHE_SCRIPT and args[0] == command
        assert args[args.index("--bucket") + 1] == "fastload-test-models"
        # Each model has its own folder of the cache prefix: its role may write nowhere else.
        assert args[args.index("--prefix") + 1] == "compile-cache/llama"
        # The archive key is the same key as the node-local folder: one configuration, one key.
        assert args[args.index("--cache-key") + 1] == s.compile_cache_key
        assert s.cache_host_path.endswith("/" + s.compile_cache_key)
        assert args[args.index("--cache-root") + 1] == CACHE_MOUNT_PATH
    assert publish.sidecar and "--then-sleep" in publish.args
    # The pod still fits the plan's memory: the sidecar's share comes out of vLLM's.
    assert s.memory_bytes + publish.memory_mib * 1024**2 == s3_plan.pod_memory_bytes
    assert spec(s3_plan).memory_bytes == s3_plan.pod_memory_bytes
    # Publishing waits as long as the startup probe allows the server to start.
    wait = list(publish.args)
    assert wait[wait.index("--wait-url") + 1] == "http://127.0.0.1:8000/health"
    assert int(wait[wait.index("--wait-timeout") + 1]) == s.startup_probe.budget_seconds


def test_key_changes_whenever_vllms_would(s3_plan):
    base = spec(s3_plan).compile_cache_key
    assert spec(s3_plan).compile_cache_key == base  # stable across syntheses and replicas
    tp2 = plan(LLAMA_8B, "g6e.12xlarge", TuningOptions(tensor_parallel_size=2))
    assert spec(tp2).compile_cache_key != base
    assert spec(s3_plan, image="vllm/vllm-openai:v0.35.0").compile_cache_key != base
    assert spec(s3_plan, extra_args=["--max-model-len=8192"]).compile_cache_key != base
    assert spec(s3_plan, extra_args=["--enforce-eager"]).compile_cache_key != base
    a10g = plan(LLAMA_8B, "g5.2xlarge")
    assert spec(a10g).compile_cache_key != base
    # The streamer's settings decide where weights come from, not what is compiled.
    more_threads = plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(concurrency=4))
    assert spec(more_threads).compile_cache_key == base


def test_node_local_model_cache_reads_nvme(local_plan):
    s = spec(local_plan)
    (stage,) = cache_steps(s)
    folder = f"{MODEL_MOUNT_PATH}/{node_local_model_dir(URI)}"
    # vLLM streams the local copy through the pod's own link to it, which stage-model makes.
    assert s.args[0] == s.model_path == NODE_LOCAL_MODEL_LINK
    args = list(stage.args)
    assert stage.script == MODEL_COPY_SCRIPT and args[args.index("--dest") + 1] == folder
    assert args[args.index("--link") + 1] == NODE_LOCAL_MODEL_LINK
    assert args[args.index("--prefix") + 1] == "models/llama-3.1-8b"
    assert s.model_host_path == naming.node_cache_paths("bottlerocket").models
    assert s.node_labels[naming.LABEL_INSTANCE_STORE] == naming.INSTANCE_STORE_RAID0
    # Tuned for NVMe: 16 streams of local reads, not S3 connections.
    assert json.loads(s.args[s.args.index("--model-loader-extra-config") + 1])["concurrency"] == 16


def test_model_stage_runs_before_cache_restore(local_plan):
    s = spec(local_plan, shared_compile_cache=True, verify_staged_model=True)
    assert [c.name for c in s.init_containers] == ["resolve-revision", "stage-model", "restore-compile-cache"]
    assert "--verify-sha256" in s.init_containers[1].args


def test_the_pod_reads_what_the_plan_was_made_for(s3_plan, local_plan):
    """One value: the spec has no model-cache option of its own to disagree with the plan's."""
    assert spec(s3_plan).model_path == URI and s3_plan.source == "s3"
    assert spec(local_plan).model_path == NODE_LOCAL_MODEL_LINK and local_plan.source == "local"
    assert not hasattr(ServerOptions(), "model_cache") and not hasattr(ServerOptions(), "image")
    # The shared cache is in the model's own bucket, under the options' prefix.
    (restore,) = cache_steps(spec(s3_plan, shared_compile_cache=True, compile_cache_prefix="cc"))
    assert list(restore.args)[list(restore.args).index("--prefix") + 1] == "cc/llama"
    with pytest.raises(FastloadConfigError) as err:
        ServerOptions(compile_cache_prefix="/abs")
    assert err.value.field == "compile_cache_prefix"


def test_no_instance_store_cannot_cache_models_locally():
    p3 = planned(ModelProfile.from_numbers(parameter_count=1_000_000_000), "p3.2xlarge", model_cache="node-local")
    with pytest.raises(FastloadConfigError, match="model_cache"):
        spec(p3, compile_cache="empty-dir")


@pytest.mark.parametrize(
    "bucket, prefix, field",
    [
        ("Bad_Bucket", "compile-cache", "shared_compile_cache.bucket"),
        ("fine-bucket", "/abs", "shared_compile_cache.prefix"),
        ("fine-bucket", "a/../b", "shared_compile_cache.prefix"),
    ],
)
def test_shared_cache_location_is_checked(bucket, prefix, field):
    with pytest.raises(FastloadConfigError) as err:
        SharedCompileCache(bucket, prefix)
    assert err.value.field == field


def test_ephemeral_cache_can_still_be_shared(s3_plan):
    """Without NVMe the cache lives for the pod only, and restoring it still skips torch.compile."""
    s = spec(s3_plan, compile_cache="empty-dir", shared_compile_cache=True)
    assert [c.name for c in cache_steps(s)] == ["restore-compile-cache"]


@pytest.fixture(scope="module")
def warm_docs(local_plan):
    app = cdk8s.Testing.app()
    chart = ServerChart(
        app,
        "warm",
        plan=served_as(local_plan, shared_compile_cache=True),
        model_name="llama",
        model_uri=URI,
        region="us-east-1",
    )
    return cdk8s.Testing.synth(chart)


def _pod(docs):
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    return deployment["spec"]["template"]["spec"]


def test_chart_renders_init_containers_sidecar_and_script(warm_docs):
    pod = _pod(warm_docs)
    assert [c["name"] for c in pod["initContainers"]] == ["resolve-revision", "stage-model", "restore-compile-cache"]
    assert [c["name"] for c in pod["containers"]] == ["vllm", "publish-compile-cache"]
    (deployment,) = [d for d in warm_docs if d["kind"] == "Deployment"]
    annotations = deployment["spec"]["template"]["metadata"]["annotations"]
    assert annotations["kubectl.kubernetes.io/default-container"] == "vllm"  # kubectl logs skips the sidecar
    vllm, sidecar = pod["containers"]
    assert vllm["resources"]["limits"]["nvidia.com/gpu"] == 1  # the GPU stays on the vLLM container
    assert "nvidia.com/gpu" not in sidecar["resources"].get("limits", {})
    scripts = {
        "resolve-revision": REVISION_SCRIPT,
        "stage-model": MODEL_COPY_SCRIPT,
        "restore-compile-cache": COMPILE_CACHE_SCRIPT,
        "publish-compile-cache": COMPILE_CACHE_SCRIPT,
    }
    for c in [*pod["initContainers"], sidecar]:
        assert c["image"] == vllm["image"]
        assert c["command"][:2] == ["python3", f"{SCRIPT_MOUNT_PATH}/{scripts[c['name']]}"]
        env = {e["name"]: e["value"] for e in c["env"]}
        assert set(env) == {"AWS_REGION", "AWS_DEFAULT_REGION"}
        assert c["securityContext"]["allowPrivilegeEscalation"] is False
    (config_map,) = [d for d in warm_docs if d["kind"] == "ConfigMap"]
    assert config_map["data"] == runtime_scripts()  # each file its own key, side by side in the mount
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["cache-sync"]["configMap"]["name"] == config_map["metadata"]["name"]
    assert volumes["model-cache"]["hostPath"]["path"] == naming.node_cache_paths("bottlerocket").models
    mounts = {m["name"]: m for m in vllm["volumeMounts"]}
    # Only the model's own folder, at the path vLLM reads.
    assert mounts["model-cache"]["mountPath"] == f"{MODEL_MOUNT_PATH}/{node_local_model_dir(URI)}"
    assert mounts["model-cache"]["subPath"] == node_local_model_dir(URI) and mounts["model-cache"]["readOnly"] is True
    # The pod's own link to its copy lives in its in-memory revision volume, read-only to the server.
    assert mounts["model-revision"] == {"mountPath": REVISION_MOUNT_PATH, "name": "model-revision", "readOnly": True}


def test_every_manifest_validates(warm_docs):
    for doc in warm_docs:
        kubernetes_validate.validate(doc, DEFAULT_KUBERNETES_VERSION, strict=True)


# Runs a script as the pod does, from a folder of the ConfigMap's files, with the package made unimportable.
WITHOUT_THE_PACKAGE = """
import importlib.abc, runpy, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "fastload_constructs":
            raise ImportError(f"the pod has no {name}")
sys.meta_path.insert(0, Block())
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.parametrize("script", [REVISION_SCRIPT, MODEL_COPY_SCRIPT, COMPILE_CACHE_SCRIPT, WARM_CHECK_SCRIPT])
def test_shipped_scripts_run_with_only_the_standard_library_and_boto3(tmp_path, script):
    """The ConfigMap's files must stand alone: run each step from their folder, outside the package."""
    for name, text in runtime_scripts().items():
        (tmp_path / name).write_text(text)
    out = subprocess.run(
        [sys.executable, "-c", WITHOUT_THE_PACKAGE, str(tmp_path / script), "--help"],
        capture_output=True,
        text=True,
        cwd="/",
        env={"PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert out.stdout.startswith(f"usage: {script.removesuffix('.py')}")


def test_the_runtime_configmap_stays_well_under_the_template_limit():
    """The shared ConfigMap is inline in one stack's template (a CloudFormation update sends the old and the new
    properties): the scripts together stay under an eighth of the 1 MB template limit the synth check enforces."""
    assert sum(len(text.encode()) for text in runtime_scripts().values()) < MAX_TEMPLATE_BYTES // 8


def test_script_constants_agree_with_the_stager():
    assert revision.MANIFEST_NAME == naming.STAGE_MANIFEST_NAME
    assert compile_cache.SHA256_METADATA == naming.SHA256_METADATA_KEY
