"""The planner against published measurements (tests/fixtures/published_measurements.json).

Every row is a measurement copied from a public source (URL in the row). The planner runs on each
row with that row's own settings only; its constants come from the sources cited in core/planning/
and core/engines/, and a row whose phase fed a constant says so in `constants_from`. The bar: the median
|ln(predicted / measured)| stays under ln(1.35) for weight load and total, over all rows and over
the held-out rows alone. bench/planner_accuracy.py prints every ratio.
"""

import importlib.util
import math
import statistics
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "planner_accuracy.py"
_spec = importlib.util.spec_from_file_location("planner_accuracy", BENCH)
assert _spec is not None and _spec.loader is not None
accuracy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(accuracy)

ROWS = accuracy.load_rows()
TABLE = accuracy.ratios(ROWS)
LIMIT = math.log(1.35)


def test_every_row_is_sourced_and_complete():
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids)) and len(ROWS) >= 20
    for row in ROWS:
        assert row["source_url"].startswith("https://"), row["id"]
        assert row["source_note"] and "storage" in row and "settings" in row and row["measured"], row["id"]
        assert all(isinstance(v, (int, float)) and v > 0 for v in row["measured"].values()), row["id"]
        assert set(row["constants_from"]) <= {k.removesuffix("_s") for k in row["measured"]}, row["id"]
    assert len({row["source_url"] for row in ROWS}) >= 6


def test_every_measured_phase_gets_a_prediction():
    predicted = {(row_id, phase) for row_id, phase, *_ in TABLE}
    for row in ROWS:
        for key in row["measured"]:
            assert (row["id"], key.removesuffix("_s")) in predicted, (row["id"], key)


@pytest.mark.parametrize("phase", ["weight_load", "total"])
def test_median_log_ratio_is_under_ln_1_35(phase):
    every = accuracy.median_abs_log_ratio(TABLE, phase, held_out_only=False)
    held_out = accuracy.median_abs_log_ratio(TABLE, phase, held_out_only=True)
    assert every is not None and held_out is not None
    assert sum(1 for r in TABLE if r[1] == phase and r[4]) >= 3
    assert every < LIMIT, f"{phase}: median factor {math.exp(every):.2f}"
    assert held_out < LIMIT, f"{phase} (held out): median factor {math.exp(held_out):.2f}"


def test_a_wrong_constant_would_fail_the_bar():
    # The check can fail: the old model's per-connection figure (90 MB/s) spread over a quarter of the
    # units, or a streamer thread a quarter as fast, misses the published loads.
    from fastload_constructs.core.planning.assumptions import LoadAssumptions

    wrong = LoadAssumptions(streamer_mb_per_unit=30.0, streamer_local_mb_per_thread=90.0)
    assert accuracy.median_abs_log_ratio(accuracy.ratios(ROWS, wrong), "weight_load", False) > LIMIT


def _median_factor(table, keep) -> float:
    logs = [abs(math.log(p / m)) for row_id, phase, p, m, _ in table if keep(row_id, phase)]
    assert len(logs) >= 2
    return math.exp(statistics.median(logs))


BY_ID = {row["id"]: row for row in ROWS}


# GPU registration is left to tests/test_node_phase_fit.py: this table's two rows waited for Node Feature
# Discovery's label (36-61 s), which the plan's device plugin does not, and the per-family fit keeps apart.
@pytest.mark.parametrize("phase", ["node_launch", "image_pull"])
def test_fresh_node_phases_are_within_35_percent_of_the_gpu_node_measurements(phase):
    every = accuracy.median_abs_log_ratio(TABLE, phase, held_out_only=False)
    assert every is not None and every < LIMIT, f"{phase}: median factor {math.exp(every or 0):.2f}"


def test_a_gpu_node_is_planned_from_gpu_measurements_not_cpu_ones():
    # Launch + registration, end to end: 140.3 s on g6.12xlarge (a constant's source), ~90 s (g4dn/g5, 2022),
    # 91 s (g4dn.xlarge on Bottlerocket, 2023) and 80-120 s ("cloud providers"); the CPU nodes' 26-40 s
    # would be off by about 3x.
    predicted = {row_id: p for row_id, phase, p, _, _ in TABLE if phase == "node"}
    assert set(predicted) == {
        "karpenter-g6-12xlarge-node",
        "device-plugin-291-gpu-node",
        "tensorfuse-gpu-node",
        "karpenter-g4dn-xlarge-bottlerocket-node",
    }
    factor = math.exp(accuracy.median_abs_log_ratio(TABLE, "node", held_out_only=False) or 0)
    # 1.45: the held-out rows (one-GPU nodes on 2022-23 AMIs) are faster than the four-GPU AL2023 log
    # the constants come from; reported, not tuned away.
    assert factor < 1.5
    from fastload_constructs.core.planning.assumptions import LoadAssumptions

    cpu = LoadAssumptions(node_launch_s=30.0, gpu_registration_s=3.0)  # a CPU node's created -> initialized
    assert accuracy.median_abs_log_ratio(accuracy.ratios(ROWS, cpu), "node", False) > math.log(2.5)
