"""The engine's figures are re-derived from published measurements, and the code keeps them.

Rows: tests/fixtures/engine_phase_measurements.json (each with its public source and independent group).
bench/engine_phase_fits.py fits each figure set the way its module docstring says; these tests refit
every one and fail when a constant in core/ drifts from its fit, check the rows, and hold CUDA-graph
capture to the bar: within 35% at the median over sources left out one at a time.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import math
import re
import sys
from pathlib import Path

import pytest

from fastload_constructs.core.catalog import CATALOG, gpu_spec, lookup
from fastload_constructs.core.engines.vllm.phases import VllmFigures, cold_compile_seconds, warm_compile_seconds
from fastload_constructs.core.model import ModelArchitecture, ModelProfile
from fastload_constructs.core.planning import TuningOptions, plan
from fastload_constructs.core.planning.standby import StandbyAssumptions

BENCH = Path(__file__).resolve().parent.parent / "bench" / "engine_phase_fits.py"
_spec = importlib.util.spec_from_file_location("engine_phase_fits", BENCH)
assert _spec is not None and _spec.loader is not None
fits = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = fits  # its dataclasses resolve their annotations through it
_spec.loader.exec_module(fits)

ROWS = fits.load_rows()
REPORTS = {r.spec.name: r for r in fits.all_reports()}
PHASES = ("cuda_graph", "wake", "compile_warm", "compile_cold", "process_start", "kv_and_server")


def test_every_row_names_its_public_source_its_group_and_what_it_measured():
    ids = [r["id"] for r in ROWS]
    assert len(ids) == len(set(ids))
    for row in ROWS:
        assert row["source_url"].startswith("https://"), row["id"]
        assert not re.search(r"/(work|tmp)/", row["source_url"] + row["quote"] + row.get("notes", "")), row["id"]
        assert row["group"] and row["quote"] and row["seconds"] > 0, row["id"]
        assert row["fitted"] or row.get("why_not_fitted"), row["id"]


@pytest.mark.parametrize("phase", PHASES)
def test_at_least_ten_measurements_per_phase(phase):
    rows = [r for r in ROWS if r["phase"] == phase]
    assert len(rows) >= 10, phase


def test_capture_rows_span_gpus_and_releases():
    fitted = [r for r in ROWS if r["phase"] == "cuda_graph" and r["fitted"]]
    assert len({r["gpu"] for r in fitted}) >= 4
    assert len({r["engine_release"] for r in fitted}) >= 4
    assert len({r["group"] for r in fitted}) >= 6


def _figures_of(report) -> object:
    return StandbyAssumptions() if report.spec.build is fits._standby else VllmFigures()


@pytest.mark.parametrize("name", sorted(REPORTS))
def test_each_constant_is_its_fit_from_the_fixture(name):
    report = REPORTS[name]
    figures = _figures_of(report)
    for field, value in report.values.items():
        assert getattr(figures, field) == pytest.approx(value, rel=1e-9), f"{field}: code {getattr(figures, field)}"


def test_the_v0_capture_factor_is_its_fit():
    capture = REPORTS["CUDA-graph capture"]
    assert VllmFigures().cuda_graph_v0_factor == fits.v0_capture_factor(ROWS, dict(capture.values))


def test_a_drifted_constant_would_be_caught():
    capture = REPORTS["CUDA-graph capture"]
    drifted = dataclasses.replace(VllmFigures(), cuda_graph_fixed_s=VllmFigures().cuda_graph_fixed_s * 2)
    assert any(getattr(drifted, k) != pytest.approx(v) for k, v in capture.values.items())
    # and the fit itself moves when the rows do (it is fitted, not a copied number)
    slower = [{**r, "seconds": r["seconds"] * 3} if r["phase"] == "cuda_graph" else r for r in ROWS]
    refit = fits.report(capture.spec, slower).values
    assert refit != capture.values


def test_cuda_graph_capture_is_within_35_percent_leaving_each_source_out():
    capture = REPORTS["CUDA-graph capture"]
    assert len(capture.loso_by_group) >= 6
    assert capture.loso < 1.35, capture.loso_by_group
    assert capture.groups_within >= len(capture.loso_by_group) // 2 + 1


def test_the_warm_compile_scatter_is_explained_by_layers():
    warm = REPORTS["torch.compile, cache hit"]
    assert warm.values["compile_warm_s_per_layer"] > 0
    assert warm.loso < 1.35


@pytest.mark.parametrize("release", ["0.10.1", "0.11.0", "0.34.0"])
@pytest.mark.parametrize("layers", [1, 2, 4, 16, 32, 80, 126])
def test_a_warm_compile_never_costs_more_than_a_cold_one(release, layers):
    from fastload_constructs.core.engines.vllm.releases import uses_aot_compile

    figures = VllmFigures()
    assert warm_compile_seconds(layers, uses_aot_compile(release), figures) <= cold_compile_seconds(figures)


def test_the_tiny_two_layer_models_plan_compiles_faster_warm_than_cold():
    arch = ModelArchitecture(
        num_layers=2, hidden_size=64, num_attention_heads=4, num_kv_heads=4, head_dim=16, max_position_embeddings=2048
    )
    tiny = ModelProfile(total_bytes=2_000_000, dtype="BF16", name="tiny").with_architecture(arch)
    for image in ("vllm/vllm-openai:v0.10.1", "vllm/vllm-openai:v0.34.0"):
        cold = plan(tiny, "g6e.2xlarge", TuningOptions(serving=_serving(image))).predicted.compile_s
        warm = plan(tiny, "g6e.2xlarge", TuningOptions(compile_cache_warm=True, serving=_serving(image))).predicted
        assert warm.compile_s <= cold, image


def _serving(image: str):
    from fastload_constructs.core.planning import Serving

    return Serving(image=image)


def test_every_catalog_gpu_has_a_memory_bandwidth_and_host_link():
    for instance in CATALOG.values():
        spec = gpu_spec(instance)
        assert spec.memory_gb_s > 0 and spec.host_link in ("pcie3", "pcie4", "pcie5")
    # the fixture's rows for catalog GPUs carry the same data-sheet figures
    named = {"L40S": "g6e.2xlarge", "H100": "p5.48xlarge"}
    for row in ROWS:
        if row.get("gpu") in named:
            assert row["memory_gb_s"] == gpu_spec(lookup(named[row["gpu"]])).memory_gb_s


def test_capture_follows_the_gpu_the_model_and_tp():
    llama = ModelProfile.from_numbers(parameter_count=8_030_261_248)
    by_gpu = {i: plan(llama, i).predicted.cuda_graph_s for i in ("g6.2xlarge", "g6e.2xlarge", "p5.48xlarge")}
    # the slowest memory (L4) reads the weights slowest; H100 captures twice the graphs (max_num_seqs 1024)
    assert by_gpu["g6.2xlarge"] > by_gpu["g6e.2xlarge"]
    big = ModelProfile.from_numbers(parameter_count=70_600_000_000)
    assert plan(big, "g6e.12xlarge").predicted.cuda_graph_s > by_gpu["g6e.2xlarge"]
    # the reference model's capture: between 3 and 10 s, not the 27.5 s the old model gave
    assert 3 < by_gpu["g6e.2xlarge"] < 10


def test_wake_follows_the_host_link():
    from fastload_constructs.core.planning.standby import wake_seconds

    llama = ModelProfile.from_numbers(parameter_count=8_030_261_248)
    a = StandbyAssumptions()
    gen4 = wake_seconds(llama, 1, a, lookup("g6e.2xlarge"))
    gen5 = wake_seconds(llama, 1, a, lookup("p5.48xlarge"))
    assert gen5 < gen4 < wake_seconds(llama, 1, a, lookup("g4dn.xlarge"))
    assert gen4 == pytest.approx(a.wake_fixed_s + 16.06e9 / (a.wake_pcie4_gb_s * 1e9), rel=1e-3)
    # Gen5 moves the bytes at twice Gen4's rate (twice the signalling rate), the fixed cost unchanged
    assert gen5 - a.wake_fixed_s == pytest.approx((gen4 - a.wake_fixed_s) / 2, rel=1e-3)


def test_every_wake_row_says_its_level_what_it_timed_and_whether_http_is_inside():
    wakes = [r for r in ROWS if r["phase"] == "wake"]
    for row in wakes:
        assert row["sleep_level"] in (1, 2) and row["kv_reallocated"] is True, row["id"]
        assert row["includes_http"] in (True, False, None) and row["span"], row["id"]
    # only level-1 wakes are fitted: a level-2 wake re-reads the weights, the standby path sleeps at level 1
    assert all(r["sleep_level"] == 1 for r in wakes if r["fitted"])
    assert sum(1 for r in wakes if r["sleep_level"] == 2) >= 2


@pytest.mark.parametrize("name", ["wake from sleep (level 1)", "KV cache, profiling and warm-up"])
def test_wake_and_kv_are_within_35_percent_leaving_each_source_out(name):
    report = REPORTS[name]
    assert report.loso < 1.35, report.loso_by_group
    assert report.groups_within >= len(report.loso_by_group) // 2 + 1, report.loso_by_group


def test_tensor_parallelism_is_in_the_cold_compile_and_layers_in_the_kv_phase():
    cold = REPORTS["torch.compile, cache miss"]
    assert cold.values["compile_cold_tp_exponent"] > 0 and cold.groups >= 10
    # Within one host and release (anyscale's starts at TP1, TP4 and TP8) TP is what moves a miss, and the
    # fit follows it there; without TP that source is out by more than 35%. Across hosts a miss scatters
    # with the CPU, which the plan does not know: docs/planning.md names the sources out.
    assert cold.loso_by_group["anyscale"] < 1.35
    flat = dataclasses.replace(cold.spec, grid={**cold.spec.grid, "compile_cold_tp_exponent": (0.0,)})
    assert fits.report(flat, ROWS).loso_by_group["anyscale"] > 1.35
    kv = REPORTS["KV cache, profiling and warm-up"]
    assert kv.values["kv_and_server_s_per_layer"] > 0
    llama8 = ModelProfile.from_numbers(parameter_count=8_030_261_248)
    llama70 = ModelProfile.from_numbers(parameter_count=70_600_000_000)
    deeper = plan(llama70, "g6e.12xlarge").predicted.kv_and_server_s
    assert deeper > plan(llama8, "g6e.2xlarge").predicted.kv_and_server_s


_NUMBER = r"([\d.]+)"


def test_a_hit_counts_the_cache_load_that_0_10_leaves_out_of_its_total():
    """0.9.2-0.10.x print the cache load apart from "torch.compile takes X s in total": the rows add it back to
    the compile and take it out of KV + server, as `fastload coldstart` does with a user's log."""
    checked = 0
    for row in ROWS:
        cached = re.search(r'"graph_compile_cached": ' + _NUMBER, row["quote"])
        if row["phase"] == "compile_warm" and cached and row["fitted"]:
            total = float(re.search(r'"torch.compile": ' + _NUMBER, row["quote"]).group(1))
            assert row["seconds"] == pytest.approx(total + float(cached.group(1)), abs=1e-3), row["id"]
            checked += 1
        if row["phase"] == "kv_and_server" and cached:
            init, compiled, graphs = (
                float(re.search(f'"{key}": ' + _NUMBER, row["quote"]).group(1))
                for key in ("init_engine", "torch.compile", "graph_capturing")
            )
            assert row["seconds"] == pytest.approx(init - compiled - float(cached.group(1)) - graphs, abs=1e-2)
            checked += 1
    assert checked >= 30


def test_the_leave_one_source_out_table_in_docs_is_the_fits():
    text = (Path(__file__).resolve().parent.parent / "docs" / "planning.md").read_text()
    assert fits.markdown(list(REPORTS.values())) in text
    assert math.isfinite(REPORTS["wake from sleep (level 1)"].loso)
