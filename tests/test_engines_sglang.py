"""core/engines/sglang: SGLang's phases from published SGLang measurements, and `fastload plan --engine`.

The figures are core/engines/sglang/phases.py's (each cited there); these tests hold the plan to them and
the rates to the public logs they came from.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.core.engines.sglang import phases as sglang_phases
from fastload_constructs.core.engines.sglang.phases import SglangFigures
from fastload_constructs.core.engines.vllm.phases import VllmFigures
from fastload_constructs.core.model import ModelProfile, estimated_layers
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from tests.serving_plans import planned

LLAMA_8B = ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16")
A = SglangFigures()


def test_the_capture_rate_reproduces_the_sglang_logs_it_came_from():
    # PR 13666 (v0.5.5): Olmo 3 32B, 64 layers, 52 sizes, 37.99 s; issue 4257 (v0.4.3): 14B Qwen2, 48 layers,
    # 23 sizes, 9.41 s. The geometric-mean rate puts each within 20%.
    for sizes, layers, measured in ((52, 64, 37.99), (23, 48, 9.41)):
        assert sizes * layers * A.cuda_graph_s_per_size_layer == pytest.approx(measured, rel=0.2)


def test_sglang_phases_replace_vllms_but_the_stream_is_the_same():
    vllm = plan(LLAMA_8B, "g6e.2xlarge")
    sglang = planned(LLAMA_8B, "g6e.2xlarge", engine="sglang")
    assert sglang.engine == "sglang" and sglang.streamer.concurrency == vllm.streamer.concurrency
    # SGLang streams s3:// distributed by default, even at TP 1; vLLM's plan does so only with TP > 1.
    assert (sglang.streamer.distributed, vllm.streamer.distributed) == (True, False)
    p, v = sglang.predicted, vllm.predicted
    assert p.load_throughput_mb_s == v.load_throughput_mb_s
    # The same transfer; SGLang's 3.5 s of model construction instead of vLLM's 1.5 s.
    assert p.weight_load_s - v.weight_load_s == pytest.approx(A.weight_load_fixed_s - VllmFigures().weight_load_fixed_s)
    layers = estimated_layers(LLAMA_8B)
    assert layers == 32
    assert p.cuda_graph_s == pytest.approx(1.0 + 52 * 32 * 0.0099)
    assert (p.process_start_s, p.compile_s, p.kv_and_server_s) == (25.0, 0.0, 5.0)
    assert sglang.startup_probe.budget_seconds >= 2 * p.total_s
    assert any(note.startswith("SGLang 0.5.23: torch.compile off") for note in sglang.assumptions)


def test_torch_compile_is_costed_only_when_enabled_and_halved_on_a_cache_hit():
    cold = planned(LLAMA_8B, "g6e.2xlarge", TuningOptions(sglang_torch_compile=True), engine="sglang")
    warm = planned(
        LLAMA_8B, "g6e.2xlarge", TuningOptions(sglang_torch_compile=True, compile_cache_warm=True), engine="sglang"
    )
    assert cold.predicted.compile_s == pytest.approx(4.4 * 32)
    assert warm.predicted.compile_s == pytest.approx(cold.predicted.compile_s / 2)
    paths = cold.scale_out_paths
    assert paths is not None
    # A warm spare restored the cache: compile warm there, cold on a fresh node without the shared cache.
    assert paths.warm_spare.seconds("compile") == pytest.approx(warm.predicted.compile_s)
    assert paths.fresh_node.seconds("compile") == pytest.approx(cold.predicted.compile_s)
    assert paths.fresh_node.seconds("cuda_graph") == pytest.approx(cold.predicted.cuda_graph_s)


def test_torch_compile_for_vllm_is_refused():
    from fastload_constructs.core.errors import FastloadConfigError

    with pytest.raises(FastloadConfigError) as err:
        plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(sglang_torch_compile=True))
    assert err.value.field == "sglang_torch_compile"


def test_sglang_figures_are_all_positive_and_documented():
    source = Path(sglang_phases.__file__).read_text(encoding="utf-8")
    for f in dataclasses.fields(SglangFigures):
        assert getattr(A, f.name) > 0, f.name
    # Every figure's comment names its source (a PR, an issue or the post).
    assert source.count("sglang PR") + source.count("sglang issue") >= 6 and "fergusfinn.com" in source


def test_fastload_plan_engine_sglang(capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", "--engine", "sglang", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["engine"] == "sglang" and view["vllm_version"] is None
    extra = view["model_loader_extra_config"]
    assert set(extra) == {"concurrency", "distributed", "memory_limit"} and extra["distributed"] is True
    assert view["predicted_seconds"]["cuda_graph"] == pytest.approx(1.0 + 52 * 32 * 0.0099, abs=0.1)
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["engine"] == "vllm"
