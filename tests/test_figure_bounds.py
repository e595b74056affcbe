"""Planner figures at the edge: every figure a file, a fit or a caller sets is a finite number in its range.

A rate of 0 divides a size (ZeroDivisionError in `plan`), 1e308 overflows the first sum that meets it,
`Infinity` makes the assumptions file no longer JSON, a 400-digit integer cannot become a float. Each is
refused with one line naming the key, in the file `fastload plan --assumptions` and `fastload:assumptions`
read, in what `fastload calibrate` fits and writes, and where `LoadAssumptions` is built.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.core.engines.vllm.phases import VllmFigures
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.assumptions_file import (
    FORMAT,
    assumptions_as_dict,
    assumptions_from_dict,
    with_vllm_figures,
)
from fastload_constructs.core.planning.calibration import MeasuredLaunch, fit_assumptions
from fastload_constructs.core.planning.figure_bounds import FIGURE_RANGES, RATE_MB_S
from fastload_constructs.core.planning.options import TuningOptions

# The figures a rate divides by: 0 was a ZeroDivisionError in `fastload plan`.
DIVISORS = (
    "streamer_mb_per_unit",
    "network_efficiency",
    "nvme_mb_per_device",
    "streamer_local_mb_per_thread",
    "pcie_mb_per_gpu",
    "image_pull_mb_s",
    "fast_image_pull_speedup",
)
# What JSON text can carry that is no figure: Python's json reads Infinity and NaN, and big integers whole.
ABSURD_TEXT = {
    "Infinity": "Infinity",
    "-Infinity": "-Infinity",
    "NaN": "NaN",
    "1e308": "1e308",
    "400 digits": "9" * 400,
}
MODEL = ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16")


def _plan_with(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> tuple[int, list[str]]:
    path = tmp_path / "assumptions.json"
    path.write_text(text)
    rc = main(["plan", "--instance", "g6e.2xlarge", "--params", "8e9", "--assumptions", str(path)])
    return rc, capsys.readouterr().err.splitlines()


def _file(key: str, value_text: str) -> str:
    return f'{{"format": "{FORMAT}", "assumptions": {{"{key}": {value_text}}}}}'


@pytest.mark.parametrize("key", DIVISORS)
def test_a_zero_rate_in_the_assumptions_file_is_refused_by_plan_naming_the_key(tmp_path, capsys, key):
    rc, err = _plan_with(tmp_path, capsys, _file(key, "0"))
    assert rc == 2 and len(err) == 1, err
    assert f"--assumptions.assumptions.{key}" in err[0] and "ZeroDivision" not in err[0]


@pytest.mark.parametrize("text", sorted(ABSURD_TEXT.values()), ids=sorted(ABSURD_TEXT))
@pytest.mark.parametrize("key", ["streamer_mb_per_unit", "process_start_s", "compile_scale", "burst_window_s"])
def test_infinity_nan_1e308_and_400_digit_figures_are_refused_with_one_line(tmp_path, capsys, key, text):
    rc, err = _plan_with(tmp_path, capsys, _file(key, text))
    assert rc == 2 and len(err) == 1 and key in err[0], err
    assert "unexpected" not in err[0] and "Overflow" not in err[0]


def test_a_measured_throughput_too_small_to_divide_by_is_refused():
    raw = {
        "format": FORMAT,
        "measured_throughput_mb_s": [{"instance_type": "g6e.2xlarge", "source": "s3", "mb_s": 1e-300}],
    }
    with pytest.raises(FastloadConfigError) as refused:
        assumptions_from_dict(raw)
    assert refused.value.field == "assumptions.measured_throughput_mb_s[0]"


def test_every_figure_has_a_range_that_holds_its_cited_default():
    """A figure added to the planner without a range would be read unchecked: this names it."""
    figures = {
        **{f.name: f.default for f in dataclasses.fields(LoadAssumptions) if isinstance(f.default, float)},
        **{f.name: f.default for f in dataclasses.fields(VllmFigures)},
    }
    assert set(figures) <= set(FIGURE_RANGES), sorted(set(figures) - set(FIGURE_RANGES))
    for name, default in figures.items():
        assert FIGURE_RANGES[name].holds(default), (name, default)
    for name in DIVISORS:
        assert FIGURE_RANGES[name].low > 0, name


def test_ranges_refuse_what_is_no_number_and_keep_minus_zero_a_zero():
    seconds = FIGURE_RANGES["process_start_s"]
    for bad in (True, "12", None, float("nan"), float("inf"), -1.0, 10**400, 1e308):
        assert not seconds.holds(bad), bad
    assert seconds.holds(-0.0) and seconds.holds(0) and not RATE_MB_S.holds(-0.0)
    a = assumptions_from_dict({"format": FORMAT, "assumptions": {"burst_window_s": -0.0}})
    assert math.copysign(1.0, a.burst_window_s) == 1.0  # written back as 0.0, not -0.0


def test_load_assumptions_refuses_a_zero_rate_when_built():
    with pytest.raises(FastloadConfigError) as refused:
        LoadAssumptions(streamer_mb_per_unit=0.0)
    assert refused.value.field == "assumptions.streamer_mb_per_unit"
    with pytest.raises(FastloadConfigError):
        LoadAssumptions(measured_throughput_mb_s=(("g6e.2xlarge", "s3", float("inf")),))


def test_the_assumptions_file_is_never_written_with_a_figure_out_of_range():
    for bad in (float("inf"), float("nan"), 1e308):
        a = with_vllm_figures(LoadAssumptions(), compile_scale=bad)
        with pytest.raises(FastloadConfigError) as refused:
            assumptions_as_dict(a)
        assert refused.value.field == "assumptions.compile_scale"
    text = json.dumps(assumptions_as_dict(LoadAssumptions()), allow_nan=False)  # the defaults write as JSON
    assert assumptions_from_dict(json.loads(text)) == LoadAssumptions()


def _launch(label: str, **phases: float | None) -> MeasuredLaunch:
    measured: dict[str, float | None] = {
        "process_start_s": 20.0,
        "weight_load_s": 30.0,
        "compile_s": None,
        "cuda_graph_s": None,
        "kv_and_server_s": 10.0,
        **phases,
    }
    return MeasuredLaunch(
        label=label,
        instance_type="g6e.2xlarge",
        source="s3",
        model=MODEL,
        options=TuningOptions(),
        compile_warm=False,
        **measured,  # type: ignore[arg-type]
    )


def test_a_fit_that_comes_out_of_range_is_refused_naming_the_log():
    # A weight load a nanosecond longer than vLLM's own set-up: 16 GB in 1 ns, 1.6e10 MB/s.
    fixed = VllmFigures().weight_load_fixed_s
    with pytest.raises(FastloadConfigError) as refused:
        fit_assumptions([_launch("steady.log"), _launch("odd.log", weight_load_s=fixed + 1e-9)])
    assert refused.value.field == "log odd.log" and "MB/s" in refused.value.accepted
    # A compile 1e300 s long: finite, but 1e298 times the model.
    with pytest.raises(FastloadConfigError) as refused:
        fit_assumptions([_launch("slow.log", compile_s=1e300)])
    assert refused.value.field == "log slow.log" and "compile_scale" in str(refused.value)
    # The same launches without the odd one fit.
    assert fit_assumptions([_launch("steady.log")]).measured_throughput("g6e.2xlarge", "s3") is not None


def test_a_node_fit_that_comes_out_of_range_is_refused_naming_the_timeline():
    from fastload_constructs.core.planning.calibration import MeasuredNode, fit_node_phases

    # 9 GB pulled in a microsecond: 9e9 MB/s, far above any network.
    fast = MeasuredNode("fast.json", image_pull_s=1e-6, image_bytes=9_354_342_327, pull_mode="plain")
    with pytest.raises(FastloadConfigError) as refused:
        fit_node_phases([MeasuredNode("steady.json", node_s=120.0), fast])
    assert refused.value.field == "timeline fast.json" and "image_pull_mb_s" in str(refused.value)
    with pytest.raises(FastloadConfigError) as refused:
        fit_node_phases([MeasuredNode("slow.json", node_launch_s=1e300)])
    assert refused.value.field == "timeline slow.json"
    assert fit_node_phases([MeasuredNode("steady.json", node_s=120.0)]).node_launch_s is not None
