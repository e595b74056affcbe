"""The pure vLLM server decisions: args, env, cache folder, probes, and input checks."""

import json

import aws_cdk as cdk
import pytest

from fastload_constructs.core import naming
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.serving.streamer_env import streamer_env
from fastload_constructs.core.serving.vllm_server import (
    CACHE_MOUNT_PATH,
    ServerOptions,
    compile_cache_folder,
    is_token,
    recommended_labels,
    server_spec,
)

URI = "s3://fastload-test-models/models/llama-3.1-8b"


@pytest.fixture(scope="module")
def plan_8b():
    return plan(ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16", name="llama"), "g6e.2xlarge")


@pytest.fixture(scope="module")
def plan_70b_tp4():
    return plan(ModelProfile.from_numbers(parameter_count=70_600_000_000, dtype="BF16", name="llama70"), "g6e.12xlarge")


def flag(args, name):
    return args[args.index(name) + 1]


def spec(p, *, model_name="llama", model_uri=URI, region="eu-west-1", **options):
    return server_spec(p, model_name=model_name, model_uri=model_uri, region=region, options=ServerOptions(**options))


def test_args_carry_the_plan(plan_8b):
    s = spec(plan_8b)
    assert s.command == ("vllm", "serve")
    assert s.args[0] == URI
    assert flag(s.args, "--load-format") == "runai_streamer"
    assert json.loads(flag(s.args, "--model-loader-extra-config")) == plan_8b.streamer.loader_extra_config()
    assert int(flag(s.args, "--tensor-parallel-size")) == plan_8b.tensor_parallel_size
    assert float(flag(s.args, "--gpu-memory-utilization")) == plan_8b.gpu_memory_utilization
    assert flag(s.args, "--served-model-name") == "llama"
    assert int(flag(s.args, "--port")) == s.port == 8000


def test_served_model_name_and_extra_args(plan_8b):
    s = spec(plan_8b, served_model_name="meta-llama/Llama-3.1-8B-Instruct", extra_args=["--max-model-len", "8192"])
    assert flag(s.args, "--served-model-name") == "meta-llama/Llama-3.1-8B-Instruct"
    assert s.args[-2:] == ("--max-model-len", "8192")


def test_tp4_plan_streams_distributed_with_more_shm_and_gpus(plan_8b, plan_70b_tp4):
    assert plan_70b_tp4.tensor_parallel_size == 4
    s4, s1 = spec(plan_70b_tp4, model_name="llama70"), spec(plan_8b)
    loader = json.loads(flag(s4.args, "--model-loader-extra-config"))
    assert loader["distributed"] is True
    assert loader == plan_70b_tp4.streamer.loader_extra_config()
    assert "distributed" not in json.loads(flag(s1.args, "--model-loader-extra-config"))
    assert s4.gpus == 4 and s1.gpus == 1
    assert s4.shm_bytes == plan_70b_tp4.shm_bytes > s1.shm_bytes


def test_env_is_the_streamer_env_plus_a_fixed_cache_root(plan_8b):
    s = spec(plan_8b)
    expected = streamer_env(plan_8b.streamer, region="eu-west-1")
    assert {k: v for k, v in s.env.items() if k != "VLLM_CACHE_ROOT"} == expected
    assert s.env["VLLM_CACHE_ROOT"] == CACHE_MOUNT_PATH
    # Nothing replica-specific: more replicas, same env and args (vLLM's cache hash sees both).
    s3 = spec(plan_8b, replicas=3)
    assert (s3.env, s3.args) == (s.env, s.args)


def test_compile_cache_folder_is_keyed_by_what_vllm_hashes(plan_8b, plan_70b_tp4):
    base = compile_cache_folder(plan_8b, image="vllm/vllm-openai:v0.34.0", model_uri=URI)
    assert base.startswith(naming.COMPILE_CACHE_HOST_ROOT + "/")
    assert base == compile_cache_folder(plan_8b, image="vllm/vllm-openai:v0.34.0", model_uri=URI)
    assert base != compile_cache_folder(plan_8b, image="vllm/vllm-openai:v0.35.0", model_uri=URI)
    assert base != compile_cache_folder(plan_8b, image="vllm/vllm-openai:v0.34.0", model_uri=URI + "-v2")
    assert base != compile_cache_folder(plan_70b_tp4, image="vllm/vllm-openai:v0.34.0", model_uri=URI)


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


def test_probes_startup_from_plan_liveness_sane(plan_8b):
    s = spec(plan_8b)
    assert (s.startup_probe.path, s.startup_probe.period_seconds, s.startup_probe.failure_threshold) == (
        "/health",
        plan_8b.startup_probe.period_seconds,
        plan_8b.startup_probe.failure_threshold,
    )
    assert s.readiness_probe.path == "/v1/models"
    assert s.liveness_probe.path == "/health"
    assert 30 <= s.liveness_probe.budget_seconds < s.startup_probe.budget_seconds
    assert s.liveness_probe.timeout_seconds < s.liveness_probe.budget_seconds


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
    value = recommended_labels(name="m", image_tag=digest)["app.kubernetes.io/version"]
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


def test_instance_without_instance_store_needs_empty_dir():
    p3 = plan(ModelProfile.from_numbers(parameter_count=1_000_000_000, dtype="BF16"), "p3.2xlarge", TuningOptions())
    with pytest.raises(FastloadConfigError) as err:
        spec(p3)
    assert err.value.field == "compile_cache"
    s = spec(p3, compile_cache="empty-dir")
    assert s.cache_host_path is None and naming.LABEL_INSTANCE_STORE not in s.node_labels


def test_max_model_len_and_capture_sizes_become_vllm_flags():
    model = ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16", name="llama")
    p = plan(model, "g6e.2xlarge", TuningOptions(max_model_len=16384, cudagraph_capture_sizes=(1, 2, 4, 8)))
    args = spec(p).args
    assert flag(args, "--max-model-len") == "16384"
    assert json.loads(flag(args, "--compilation-config")) == {"cudagraph_capture_sizes": [1, 2, 4, 8]}
    # They change what vLLM compiles, so they change the compile-cache key.
    assert spec(p).compile_cache_key != spec(plan(model, "g6e.2xlarge")).compile_cache_key
    with pytest.raises(FastloadConfigError) as err:
        spec(p, extra_args=["--max-model-len=8192"])
    assert err.value.field == "extra_args"
    fp8 = plan(model, "g6e.2xlarge", TuningOptions(kv_cache_dtype="fp8"))
    assert flag(spec(fp8).args, "--kv-cache-dtype") == "fp8"
    # Not set: vLLM's defaults, no flag.
    plain = spec(plan(model, "g6e.2xlarge")).args
    assert "--max-model-len" not in plain and "--compilation-config" not in plain and "--kv-cache-dtype" not in plain
