"""`fastload calibrate`: plans made from calibrated assumptions reproduce the calibration logs."""

import json
from pathlib import Path

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.coldstart.parser import parse_log
from fastload_constructs.core.engines.sglang.phases import SglangFigures
from fastload_constructs.core.engines.vllm.phases import VllmFigures
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.assumptions_file import assumptions_as_dict, assumptions_from_dict, vllm_figures
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving

LOGS = Path(__file__).parent / "fixtures" / "vllm_logs"
COLD, WARM = LOGS / "cold_v0.34_s3_tp1.log", LOGS / "warm_v0.34_s3_tp1.log"


def _measured(path: Path) -> dict[str, float]:
    r = parse_log(path.read_text())
    return {
        "process_start": r.seconds("process_start") + r.seconds("engine_init"),
        "weight_load": r.seconds("weight_load"),
        "compile": r.seconds("dynamo_transform") + r.seconds("graph_compile"),
        "cuda_graph": r.seconds("cuda_graph"),
        "kv_and_server": r.seconds("kv_cache_profiling") + r.seconds("api_server"),
        "total": r.total_s,
    }


def test_calibrated_plans_reproduce_the_calibration_logs_within_10_percent(tmp_path, capsys):
    out = tmp_path / "assumptions.json"
    assert main(["calibrate", str(COLD), str(WARM), "--instance", "g6e.2xlarge", "-o", str(out)]) == 0
    assert "g6e.2xlarge s3:" in capsys.readouterr().out
    a = assumptions_from_dict(json.loads(out.read_text()))
    model = ModelProfile(total_bytes=round(14.99 * 2**30), dtype="BF16")  # what the logs loaded
    default = plan(model, "g6e.2xlarge", TuningOptions(compile_cache_warm=False))
    for log, warm in ((COLD, False), (WARM, True)):
        measured = _measured(log)
        p = plan(model, "g6e.2xlarge", TuningOptions(assumptions=a, compile_cache_warm=warm)).predicted
        predicted = {
            "process_start": p.process_start_s,
            "weight_load": p.weight_load_s,
            "compile": p.compile_s,
            "cuda_graph": p.cuda_graph_s,
            "kv_and_server": p.kv_and_server_s,
            "total": p.total_s,
        }
        for phase in ("weight_load", "compile", "cuda_graph", "total"):
            assert predicted[phase] == pytest.approx(measured[phase], rel=0.10), (log.name, phase)
    # KV + server is fitted per layer: the model's layers times the fitted figure give back the logs' median
    kv = [_measured(log)["kv_and_server"] for log in (COLD, WARM)]
    fitted_kv = plan(model, "g6e.2xlarge", TuningOptions(assumptions=a)).predicted.kv_and_server_s
    assert fitted_kv == pytest.approx(sum(kv) / 2, rel=0.01)
    # The defaults did not already match: the calibration changed the prediction.
    assert abs(default.predicted.weight_load_s - _measured(COLD)["weight_load"]) / _measured(COLD)["weight_load"] > 0.1


def test_plan_reads_the_assumptions_file(tmp_path, capsys):
    out = tmp_path / "a.json"
    assert main(["calibrate", str(COLD), "--instance", "g6e.2xlarge", "-o", str(out)]) == 0
    capsys.readouterr()
    args = ["plan", "--instance", "g6e.2xlarge", "--bytes", str(round(14.99 * 2**30)), "--json"]
    assert main([*args, "--assumptions", str(out)]) == 0
    calibrated = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    default = json.loads(capsys.readouterr().out)
    assert calibrated["load_throughput_mb_s"] != default["load_throughput_mb_s"]
    assert calibrated["predicted_seconds"]["weight_load"] == pytest.approx(_measured(COLD)["weight_load"], rel=0.02)


def test_assumptions_file_round_trips_and_rejects_bad_keys():
    vllm = VllmFigures(compile_scale=1.3)
    a = LoadAssumptions(measured_throughput_mb_s=(("g5.xlarge", "s3", 700.0),), engine_figures={"vllm": vllm})
    assert assumptions_from_dict(assumptions_as_dict(a)) == a
    assert assumptions_from_dict(assumptions_as_dict(LoadAssumptions())) == LoadAssumptions()
    with pytest.raises(FastloadConfigError) as err:
        assumptions_from_dict({"format": "fastload-assumptions/1", "assumptions": {"s3_mb_per_conn": 1}})
    assert err.value.field == "assumptions.assumptions.s3_mb_per_conn"
    # A figure an older planner fitted, which the re-derived engine model no longer has: named, with the fix.
    with pytest.raises(FastloadConfigError) as err:
        assumptions_from_dict({"format": "fastload-assumptions/1", "assumptions": {"cuda_graph_hopper_factor": 0.13}})
    assert err.value.field == "assumptions.assumptions.cuda_graph_hopper_factor"
    assert "fastload calibrate" in str(err.value) and len(str(err.value)) < 200
    # KV + server became a cost per layer and the cold compile lost its per-layer term: old keys refused alike
    for retired in ("kv_and_server_s", "compile_cold_s_per_layer"):
        with pytest.raises(FastloadConfigError) as err:
            assumptions_from_dict({"format": "fastload-assumptions/1", "assumptions": {retired: 10.3}})
        assert err.value.field == f"assumptions.assumptions.{retired}" and "fastload calibrate" in str(err.value)
    with pytest.raises(FastloadConfigError, match="format"):
        assumptions_from_dict({"format": "other"})
    with pytest.raises(FastloadConfigError, match=r"measured_throughput_mb_s\[0\]"):
        assumptions_from_dict({"format": "fastload-assumptions/1", "measured_throughput_mb_s": [{"mb_s": -1}]})


def test_a_file_of_the_first_format_still_reads_its_flat_keys_as_vllms_and_the_platforms_figures():
    """Files `fastload calibrate` wrote before the engine figures moved: one flat object, vLLM's keys in it."""
    raw = {
        "format": "fastload-assumptions/1",
        "fitted_from": ["cold.log"],
        "assumptions": {
            "process_start_s": 15.636,
            "compile_scale": 1.4344,
            "weight_load_fixed_s": 1.5,
            "burst_window_s": 200,
        },
        "measured_throughput_mb_s": [{"instance_type": "g6e.2xlarge", "source": "s3", "mb_s": 538.0}],
    }
    a = assumptions_from_dict(raw)
    vllm = vllm_figures(a)
    assert (vllm.process_start_s, vllm.compile_scale, vllm.weight_load_fixed_s) == (15.636, 1.4344, 1.5)
    assert vllm.kv_and_server_s_per_layer == VllmFigures().kv_and_server_s_per_layer  # left out: the cited default
    assert a.burst_window_s == 200.0 and a.measured_throughput("g6e.2xlarge", "s3") == 538.0
    written = assumptions_as_dict(a)["assumptions"]
    assert isinstance(written, dict) and {**written, **raw["assumptions"]} == written  # the same keys, flat
    model = ModelProfile.from_numbers(parameter_count=8_030_261_248)
    assert plan(model, "g6e.2xlarge", TuningOptions(assumptions=a)).predicted.process_start_s == 15.636


def test_another_engines_figures_stay_its_own():
    sglang = SglangFigures(process_start_s=10.0)
    a = LoadAssumptions(engine_figures={"sglang": sglang})
    assert a.figures_for("sglang") == sglang and vllm_figures(a) == VllmFigures()
    model = ModelProfile.from_numbers(parameter_count=8_030_261_248)
    on_sglang = TuningOptions(assumptions=a, serving=Serving(engine="sglang"))
    assert plan(model, "g6e.2xlarge", on_sglang).predicted.process_start_s == 10.0
    assert plan(model, "g6e.2xlarge", TuningOptions(assumptions=a)).predicted.process_start_s == 25.0
    with pytest.raises(FastloadConfigError) as caught:
        LoadAssumptions(engine_figures={"vllm": sglang})
    assert caught.value.field == "assumptions.engine_figures.vllm"
    with pytest.raises(FastloadConfigError, match="one of vllm, sglang"):
        LoadAssumptions(engine_figures={"tgi": sglang})
    # An engine's own defaults are no calibration: the same assumptions as none at all.
    assert LoadAssumptions(engine_figures={"vllm": VllmFigures()}) == LoadAssumptions()


def test_calibrate_refuses_a_failed_launch(tmp_path, capsys):
    code = main(
        ["calibrate", str(LOGS / "failed_v0.11_oom.log"), "--instance", "g6e.2xlarge", "-o", str(tmp_path / "x")]
    )
    assert code == 2 and "failed" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_plan_with_a_bad_assumptions_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8e9", "--assumptions", str(bad)]) == 2
    assert "--assumptions" in capsys.readouterr().err
