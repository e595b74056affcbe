"""core/serving/server_pod.py: the pod around any engine's container: env, cache folder, node selection, checks."""

import aws_cdk as cdk
import pytest

from fastload_constructs.core import naming
from fastload_constructs.core.engines import ENGINES
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.serving.server_pod import (
    ServerOptions,
    cache_key_for,
    recommended_labels,
    server_spec,
)
from fastload_constructs.core.serving.streamer_env import streamer_env
from fastload_constructs.core.tokens import is_token
from tests.serving_plans import MODEL_URI
from tests.serving_plans import spec_of as spec

URI = MODEL_URI


@pytest.fixture(scope="module")
def plan_8b():
    return plan(ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16", name="llama"), "g6e.2xlarge")


@pytest.fixture(scope="module")
def plan_70b_tp4():
    return plan(ModelProfile.from_numbers(parameter_count=70_600_000_000, dtype="BF16", name="llama70"), "g6e.12xlarge")


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_env_is_the_streamer_env_plus_the_engines_own_and_the_container_is_the_engines(engine):
    p = plan(
        ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16", name="llama"),
        "g6e.2xlarge",
        TuningOptions(serving=Serving(engine=engine)),
    )
    chosen = ENGINES[engine]
    s = spec(p)
    streamer = streamer_env(p.streamer, region="eu-west-1")
    assert dict(s.env) == {**streamer, **chosen.server_env()} and list(s.env)[: len(streamer)] == list(streamer)
    assert (s.engine, s.container_name, s.port, s.command) == (
        engine,
        chosen.container_name,
        chosen.port,
        chosen.command,
    )
    assert s.cache_mount_path == chosen.cache_mount_path and s.api_key_env == chosen.api_key_env
    assert s.labels["app.kubernetes.io/name"] == engine
    # Nothing replica-specific: more replicas, same env and args (the engines' cache hashes see both).
    s3 = spec(p, replicas=3)
    assert (s3.env, s3.args) == (s.env, s.args)


def test_compile_cache_folder_is_keyed_by_what_vllm_hashes(plan_8b, plan_70b_tp4):
    # The host-path folder is `<node cache root>/<key>` (test_server_chart); the key moves with what vLLM hashes.
    base = cache_key_for(plan_8b, image="vllm/vllm-openai:v0.34.0", model_uri=URI)
    assert base == cache_key_for(plan_8b, image="vllm/vllm-openai:v0.34.0", model_uri=URI)
    assert base != cache_key_for(plan_8b, image="vllm/vllm-openai:v0.35.0", model_uri=URI)
    assert base != cache_key_for(plan_8b, image="vllm/vllm-openai:v0.34.0", model_uri=URI + "-v2")
    assert base != cache_key_for(plan_70b_tp4, image="vllm/vllm-openai:v0.34.0", model_uri=URI)


def test_a_deploy_time_bucket_is_recognised_and_keeps_the_cache_folder_stable(plan_8b):
    stack = cdk.Stack(cdk.App(), "S")
    bucket = cdk.CfnParameter(stack, "Bucket").value_as_string
    assert is_token(bucket) and not is_token("fastload-test-models")
    s = spec(plan_8b, model_uri=f"s3://{bucket}/models/llama")
    assert s.args[0] == f"s3://{bucket}/models/llama"
    other = cdk.CfnParameter(stack, "Other").value_as_string
    assert other != bucket
    assert s.cache_host_path == spec(plan_8b, model_uri=f"s3://{other}/models/llama").cache_host_path
    with pytest.raises(FastloadConfigError) as err:
        spec(plan_8b, model_uri=f"s3://{bucket}/../etc")
    assert err.value.field == "model_uri.prefix"


def test_node_selection_follows_the_cache_mode(plan_8b):
    host = spec(plan_8b)
    assert host.node_labels == {
        naming.WELL_KNOWN_INSTANCE_TYPE: "g6e.2xlarge",
        naming.LABEL_INSTANCE_STORE: naming.INSTANCE_STORE_RAID0,
    }
    pvc = spec(plan_8b, compile_cache="pvc")
    assert pvc.node_labels == {naming.WELL_KNOWN_INSTANCE_TYPE: "g6e.2xlarge"}
    assert pvc.cache_host_path is None and pvc.pvc_size_gib is not None
    assert (host.toleration.key, host.toleration.effect) == (naming.GPU_TAINT_KEY, naming.GPU_TAINT_EFFECT)
    assert host.service_account_name == naming.service_account_name("llama")


def test_version_label_is_a_valid_label_value_for_digests():
    digest = "sha256:" + "ab" * 32
    value = recommended_labels(name="m", image_tag=digest, engine="vllm")["app.kubernetes.io/version"]
    assert len(value) <= 63 and ":" not in value and value.startswith("sha256-")


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"model_uri": "https://example.com/models/llama"}, "model_uri"),
        ({"model_uri": "s3://Bad_Bucket/models/llama"}, "model_uri.bucket"),
        ({"model_uri": "s3://fastload-test-models"}, "model_uri.prefix"),
        ({"replicas": 0}, "replicas"),
        ({"compile_cache": "nfs"}, "compile_cache"),
        ({"compile_cache": "pvc", "replicas": 2}, "replicas"),  # one local volume on a 1-GPU node
        ({"extra_args": ["--model=other"]}, "extra_args[0]"),
        ({"extra_args": ["-tp", "2"]}, "extra_args[0]"),
        ({"extra_args": ["--enforce-eager", "--tensor_parallel_size=2"]}, "extra_args[1]"),
        ({"extra_args": ["--pipeline-parallel-size", "2"]}, "extra_args[0]"),
        ({"extra_args": ["-dp=2"]}, "extra_args[0]"),
        ({"extra_args": ["s3://other/model"]}, "extra_args"),
        ({"extra_args": "--enforce-eager"}, "extra_args"),
        ({"extra_args": ["--max-num-seqs", ""]}, "extra_args"),
        ({"model_name": "8b-llama"}, "model_name"),
        ({"namespace": "Inference"}, "namespace"),
        ({"region": ""}, "region"),
        ({"served_model_name": "two words"}, "served_model_name"),
    ],
)
def test_bad_input_names_the_field(plan_8b, kwargs, field):
    with pytest.raises(FastloadConfigError) as err:
        spec(plan_8b, **kwargs)
    assert err.value.field == field


def test_extra_args_are_checked_against_the_plans_engine_and_name_its_flags(plan_8b):
    sglang_plan = plan(
        ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16", name="llama"),
        "g6e.2xlarge",
        TuningOptions(serving=Serving(engine="sglang")),
    )
    # The options know no engine: their extra args are checked for shape only.
    sglang_only, vllm_only = ServerOptions(extra_args=("--tp-size", "2")), ServerOptions(extra_args=("-tp", "2"))
    for p, options, own, foreign in (
        (sglang_plan, sglang_only, "SGLang flags other than --model-path, ", "-tp,"),
        (plan_8b, vllm_only, "vLLM flags other than --model, ", "--mem-fraction-static"),
    ):
        with pytest.raises(FastloadConfigError) as err:
            server_spec(p, model_name="llama", model_uri=URI, region="eu-west-1", options=options)
        assert err.value.field == "extra_args[0]" and err.value.accepted.startswith(own)
        assert foreign not in err.value.accepted
    # Each is another engine's flag, left to that engine: the plan's engine does not own it.
    assert server_spec(plan_8b, model_name="llama", model_uri=URI, region="eu-west-1", options=sglang_only).args[
        -2:
    ] == ("--tp-size", "2")
    assert server_spec(sglang_plan, model_name="llama", model_uri=URI, region="eu-west-1", options=vllm_only).args[
        -2:
    ] == ("-tp", "2")


def test_instance_without_instance_store_needs_empty_dir():
    p3 = plan(ModelProfile.from_numbers(parameter_count=1_000_000_000, dtype="BF16"), "p3.2xlarge", TuningOptions())
    with pytest.raises(FastloadConfigError) as err:
        spec(p3)
    assert err.value.field == "compile_cache"
    s = spec(p3, compile_cache="empty-dir")
    assert s.cache_host_path is None and naming.LABEL_INSTANCE_STORE not in s.node_labels
