"""The standby path in the plan: phases from cited figures, the idle cost, and `fastload plan --standbys`."""

from __future__ import annotations

import dataclasses
import json

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.core.catalog import GIB, lookup
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.planning.standby import (
    StandbyAssumptions,
    standby_gpu_memory_utilization,
    standby_path,
    wake_seconds,
)

LLAMA_8B = ModelProfile.from_numbers(parameter_count=8_030_261_248)


def test_without_standbys_the_plan_has_no_standby_path():
    paths = plan(LLAMA_8B, "g6e.2xlarge").scale_out_paths
    assert paths is not None and paths.standby is None
    assert [p.name for p in paths.as_tuple()] == [
        "fresh_node",
        "warm_node",
        "warm_spare",
        "buffered_node",
        "stopped_node",
    ]


def test_8b_on_g6e_2xlarge_wakes_within_10_s_and_says_what_is_estimated():
    paths = plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(serving=Serving(standbys=2))).scale_out_paths
    assert paths is not None and paths.standby is not None
    standby = paths.standby
    assert [p.name for p in standby.phases] == ["requester_start", "bind", "wake", "route", "first_token"]
    # The L40S sits on PCIe Gen4: 16.06 GB at the fitted Gen4 rate + the fixed cost.
    a = StandbyAssumptions()
    wake = a.wake_fixed_s + 16.06e9 / (a.wake_pcie4_gb_s * 1e9)
    assert standby.seconds("wake") == pytest.approx(wake, abs=0.01)
    assert standby.total_s == pytest.approx(2.0 + 1.0 + wake + 1.0 + 1.0, abs=0.02)
    assert standby.total_s <= 10
    # Only the wake and the first token rest on published measurements.
    assert {p.name for p in standby.phases if p.measured} == {"wake", "first_token"}
    assert standby.measured_s == pytest.approx(standby.seconds("wake") + 1.0)
    assert all(p.source for p in standby.phases)
    # The standby row is the fastest, far below the warm spare's engine start.
    (*_, row) = paths.as_tuple()
    assert row.name == "standby" and row.total_s == pytest.approx(standby.total_s)
    assert row.total_s < paths.warm_spare.total_s / 5
    # The pessimistic published bound is stated, not hidden.
    assert any("13 s" in n for n in standby.notes)


def test_wake_grows_with_the_bytes_per_gpu_and_shrinks_with_tensor_parallelism():
    a = StandbyAssumptions()
    g6e = lookup("g6e.12xlarge")
    big = ModelProfile.from_numbers(parameter_count=70_000_000_000)
    assert wake_seconds(big, 1, a, g6e) > wake_seconds(LLAMA_8B, 1, a, g6e)
    assert wake_seconds(big, 4, a, g6e) == pytest.approx(a.wake_fixed_s + 140e9 / 4 / (a.wake_pcie4_gb_s * 1e9))
    # Fitted to the published A100 wakes (tests/test_engine_phase_fits.py): Qwen3-Coder-30B's 2.87 s within
    # a third, QwQ-32B's 4 s on an A800 within 10%.
    qwen30b = ModelProfile.from_numbers(total_bytes=61_100_000_000)
    assert 2.87 / 1.35 < wake_seconds(qwen30b, 1, a, g6e) < 2.87 * 1.35
    qwq = ModelProfile.from_numbers(total_bytes=65_500_000_000)
    assert wake_seconds(qwq, 1, a, g6e) == pytest.approx(4.0, rel=0.1)


def test_idle_cost_counts_gpus_pinned_host_ram_and_gpu_memory():
    instance = lookup("g6e.12xlarge")
    standby = standby_path(LLAMA_8B, instance, 2, 3)
    assert standby.idle.gpus == 6
    assert standby.idle.gpu_hours_per_day == 6 * 24
    assert standby.idle.instance_hours_per_day == pytest.approx(6 / 4 * 24)
    assert standby.idle.pinned_host_bytes_per_standby == LLAMA_8B.total_bytes
    assert standby.idle.host_bytes_per_standby == LLAMA_8B.total_bytes + 4 * GIB
    assert standby.idle.gpu_bytes_per_sleeper_per_gpu == 2 * GIB


def test_changing_an_assumption_moves_the_path():
    slow = dataclasses.replace(StandbyAssumptions(), wake_pcie4_gb_s=4.0)
    instance = lookup("g6e.2xlarge")
    assert standby_path(LLAMA_8B, instance, 1, 1, slow).seconds("wake") > 4


def test_reduced_gpu_memory_utilization_leaves_two_gib_per_sleeper():
    gpu = 45_776 * 1024**2
    a = StandbyAssumptions()
    reduced = standby_gpu_memory_utilization(0.9, gpu, 1, a)
    assert reduced < 0.9
    assert (0.9 - reduced) * gpu >= 2 * GIB
    assert standby_gpu_memory_utilization(0.9, gpu, 0, a) == 0.9


@pytest.mark.parametrize("value", [-1, 101, 1.5, True, "2"])
def test_bad_standby_counts_name_the_field(value):
    with pytest.raises(FastloadConfigError) as err:
        Serving(standbys=value)
    assert err.value.field == "serving.standbys"


def test_standbys_and_warm_spares_are_one_choice_or_the_other():
    with pytest.raises(FastloadConfigError) as err:
        Serving(standbys=1, warm_spares=1)
    assert err.value.field == "serving.standbys"


def test_cli_prints_the_standby_path_with_its_sources(capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", "--standbys", "2", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["standbys"]["count"] == 2
    assert view["standbys"]["total_seconds"] <= 10
    assert view["standbys"]["idle_gpu_hours_per_day"] == 48.0
    a = StandbyAssumptions()
    wake = a.wake_fixed_s + 16.06e9 / (a.wake_pcie4_gb_s * 1e9)
    assert view["scale_out_paths"]["standby"]["phases"]["wake"] == pytest.approx(wake, abs=0.05)
    sources = view["standby_sources"]
    assert any(
        s.startswith("wake") and "measured" in s and "pcie4" in s and "vllm-project/vllm#16663" in s for s in sources
    )
    assert any(s.startswith("bind") and "estimated" in s for s in sources)
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", "--standbys", "2"]) == 0
    table = capsys.readouterr().out
    assert "standby_sources:" in table and "standby" in table.split("scale-out paths")[1]


def test_cli_bad_standbys_exits_2_naming_the_field(capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", "--standbys", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fastload: --standbys:") and "Traceback" not in err
