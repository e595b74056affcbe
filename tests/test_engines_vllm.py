"""core/engines/vllm: vLLM's command line, probes, release families and figures, through the pod they go in."""

import dataclasses
import json
import re
from pathlib import Path

import pytest

from fastload_constructs.core.engines.vllm import VLLM, launch
from fastload_constructs.core.engines.vllm import phases as vllm_phases
from fastload_constructs.core.engines.vllm.phases import VllmFigures
from fastload_constructs.core.engines.vllm.releases import captured_graphs, default_capture_sizes, release_family
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from tests.serving_plans import MODEL_URI
from tests.serving_plans import flag_value as flag
from tests.serving_plans import spec_of as spec

URI = MODEL_URI


@pytest.fixture(scope="module")
def plan_8b():
    return plan(ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16", name="llama"), "g6e.2xlarge")


@pytest.fixture(scope="module")
def plan_70b_tp4():
    return plan(ModelProfile.from_numbers(parameter_count=70_600_000_000, dtype="BF16", name="llama70"), "g6e.12xlarge")


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


def test_release_families_and_capture_sizes():
    assert release_family("0.6.6") == "v0" and release_family("v0.8.5") == "v1"
    assert release_family("0.11.0") == "recent" and release_family("0.34.0") == "recent"
    with pytest.raises(FastloadConfigError, match="engine_release"):
        release_family("latest")
    recent = default_capture_sizes("recent")
    assert recent[:4] == (1, 2, 4, 8) and recent[-1] == 512 and len(recent) == 51
    legacy = default_capture_sizes("v1")
    assert legacy[-1] == 512 and len(legacy) == 67
    # FULL_AND_PIECEWISE also captures a full decode graph for each size <= max_num_seqs (256).
    assert captured_graphs("recent", recent, 256) == 51 + 35
    assert captured_graphs("v1", legacy, 256) == 67
    # vLLM bounds its default list by max_num_seqs: up to 2 x max_num_seqs.
    assert default_capture_sizes("recent", 32) == (1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64)


@pytest.mark.parametrize(
    ("release", "instance", "expected"),
    [
        ("0.34.0", "g6e.2xlarge", 256),  # L40S, 45 GiB
        ("0.34.0", "p5.48xlarge", 1024),  # H100, 80 GiB
        ("0.34.0", "p5e.48xlarge", 1024),  # H200
        ("0.34.0", "p4de.24xlarge", 256),  # A100 80 GB: vLLM >= 0.9 keeps 256 on an A100
        ("0.8.5", "p4de.24xlarge", 1024),  # ... 0.8 did not
        ("0.6.6", "p5.48xlarge", 256),  # V0
    ],
)
def test_vllms_default_max_num_seqs_follows_the_release_and_gpu(release, instance, expected):
    from fastload_constructs.core.catalog import lookup
    from fastload_constructs.core.engines.vllm.phases import deployed_max_num_seqs

    assert deployed_max_num_seqs(None, release, lookup(instance)) == expected
    assert deployed_max_num_seqs(48, release, lookup(instance)) == 48


def test_the_plan_states_the_capture_it_deploys_and_a_concurrency_bound_reaches_vllm():
    model = ModelProfile.from_numbers(parameter_count=8_030_261_248)
    default = plan(model, "g6e.2xlarge")
    assert default.capture is not None and len(default.capture.sizes) == 51 and default.capture.graphs == 86
    assert "--max-num-seqs" not in spec(default).args  # vLLM's own default: no flag
    bounded = plan(model, "g6e.2xlarge", TuningOptions(max_num_seqs=64))
    assert bounded.capture is not None and bounded.capture.max_num_seqs == 64
    assert max(bounded.capture.sizes) == 128 and bounded.capture.graphs == len(bounded.capture.sizes) + 11
    assert bounded.predicted.cuda_graph_s < default.predicted.cuda_graph_s
    args = spec(bounded).args
    assert flag(args, "--max-num-seqs") == "64" and "--compilation-config" not in args
    with pytest.raises(FastloadConfigError) as err:
        spec(bounded, extra_args=["--max-num-seqs", "128"])
    assert err.value.field == "extra_args"
    # On an H100 vLLM runs 1024 sequences by default: every default size gets its FULL decode graph too.
    h100 = plan(model, "p5.48xlarge")
    assert h100.capture is not None and h100.capture.graphs == 102


def test_the_engine_sets_only_its_cache_root_and_keys_the_cache_on_its_own_variables(plan_8b):
    assert launch.vllm_env() == {"VLLM_CACHE_ROOT": VLLM.cache_mount_path}
    args = spec(plan_8b).args
    factors = launch.compile_factors(args, {"VLLM_CACHE_ROOT": "/x", "VLLM_USE_V1": "1", "AWS_REGION": "r"})
    # Neither where weights come from nor the cache root: only what can change what vLLM compiles.
    assert json.loads(factors["vllm_env"]) == {"VLLM_USE_V1": "1"}
    kept = json.loads(factors["args"])
    assert URI not in kept and "--model-loader-extra-config" not in kept and "--tensor-parallel-size" in kept


def test_vllm_figures_are_all_positive_and_documented():
    source = Path(vllm_phases.__file__).read_text(encoding="utf-8")
    for f in dataclasses.fields(VllmFigures):
        assert getattr(VllmFigures(), f.name) > 0, f.name
    # Every figure sits under a comment that names its source or says it is fitted (to the published rows of
    # tests/fixtures/engine_phase_measurements.json), or is a calibration factor.
    lines = source.splitlines()
    for f in dataclasses.fields(VllmFigures):
        at = next(i for i, line in enumerate(lines) if line.strip().startswith(f"{f.name}:"))
        comment = []
        for line in reversed(lines[:at]):
            if not line.strip().startswith("#"):
                if comment:
                    break
                continue
            comment.append(line)
        text = " ".join(comment)
        assert re.search(r"fitted|Fitted|vllm PR|vllm-project/vllm#\d|github|\.com|calibration", text), f.name
