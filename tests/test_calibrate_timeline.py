"""`fastload calibrate --timeline`: the fresh-node phases learnt from `fastload timeline --json` of real scale-outs
(the event dumps in tests/fixtures/k8s_events, each with its source in SOURCES.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.assumptions_file import assumptions_from_dict
from fastload_constructs.core.planning.calibration import MeasuredNode, fit_node_phases

EVENTS = Path(__file__).parent / "fixtures" / "k8s_events"
# EKS + Karpenter (Nominated -> Scheduled 167 s; pull "in 3m44s", no size) and GKE + KEDA (74 s; pull 244.956 s).
EKS = EVENTS / "get-events-custom-columns-eks-karpenter-vllm-v0.28.0-coldstart-workshop.txt"
GKE = EVENTS / "get-events-sorted-gke-keda-vllm-v0.27.1-coldstart-truncated.txt"
# A pod on a node that was already up (0 s to schedule), pulled 16,525,161,745 B in 287.129 s.
RUNNING_NODE = EVENTS / "aibrix_1054_vllm_describe_pod_excerpt.txt"


def timeline_json(events: Path, out: Path, capsys) -> Path:
    assert main(["timeline", str(events), "--json"]) == 0
    out.write_text(capsys.readouterr().out)
    return out


def test_fit_takes_medians_of_the_split_phases():
    a = fit_node_phases(
        [
            MeasuredNode("a", node_launch_s=70.0, gpu_registration_s=50.0),
            MeasuredNode("b", node_launch_s=80.0, gpu_registration_s=70.0),
            MeasuredNode("c", node_launch_s=90.0, gpu_registration_s=60.0),
        ]
    )
    assert (a.node_launch_s, a.gpu_registration_s) == (80.0, 60.0)


def test_a_sum_without_its_split_keeps_the_split_known_so_far():
    base = LoadAssumptions()
    launch, registration = base.node_phases("al2023")  # the fitted split of the family measured
    a = fit_node_phases([MeasuredNode("a", node_s=100.0), MeasuredNode("b", node_s=130.0)], base, family="al2023")
    assert a.node_launch_s + a.gpu_registration_s == pytest.approx(115.0, abs=1e-2)
    assert a.node_launch_s / a.gpu_registration_s == pytest.approx(launch / registration, rel=1e-3)


def test_pull_rates_stay_consistent_across_modes():
    base = LoadAssumptions()
    parallel = fit_node_phases([MeasuredNode("p", image_pull_s=40.0, image_bytes=9_354_342_327)], base)
    # 233.9 MB/s measured with FastImagePull is 122.5 MB/s plain at the fitted 1.91x.
    speedup = base.fast_image_pull_speedup
    assert parallel.image_pull_mb_s == pytest.approx(9_354_342_327 / 40.0 / 1e6 / speedup, rel=1e-3)
    plain = fit_node_phases([MeasuredNode("q", image_pull_s=130.0, image_bytes=9_354_342_327, pull_mode="plain")])
    assert plain.image_pull_mb_s == pytest.approx(71.96, rel=1e-3)
    snap = fit_node_phases([MeasuredNode("s", image_pull_s=3.0, pull_mode="snapshot")])
    assert snap.snapshot_image_s == 3.0 and snap.image_pull_mb_s == base.image_pull_mb_s
    # Nothing recorded: nothing changes.
    assert fit_node_phases([MeasuredNode("n")]) == base
    with pytest.raises(FastloadConfigError) as err:
        fit_node_phases([])
    assert err.value.field == "timelines"


def test_calibrate_learns_the_fresh_node_from_real_event_dumps(tmp_path, capsys):
    eks = timeline_json(EKS, tmp_path / "eks.json", capsys)
    gke = timeline_json(GKE, tmp_path / "gke.json", capsys)
    running = timeline_json(RUNNING_NODE, tmp_path / "running.json", capsys)
    out = tmp_path / "assumptions.json"
    args = ["calibrate", "--timeline", str(eks), "--timeline", str(gke), "--timeline", str(running)]
    assert main([*args, "--pull-mode", "plain", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    a = assumptions_from_dict(json.loads(out.read_text()))
    # Neither dump has a NodeClaim Registered event: the median sum (167 + 74) / 2 = 120.5 s, split as the
    # default family's fitted figures (40.3 : 5).
    assert a.node_launch_s + a.gpu_registration_s == pytest.approx(120.5, abs=0.01)
    # The one pull with an "Image size" (the pod on a running node: no node phases from it, its pull counts).
    assert a.image_pull_mb_s == pytest.approx(16_525_161_745 / 287.129 / 1e6, rel=1e-3)
    launch, registration = LoadAssumptions().node_phases("bottlerocket")
    share = launch / (launch + registration)
    assert f"fresh node: launch {120.5 * share:.1f} s, GPU registration {120.5 * (1 - share):.1f} s" in printed
    # The plan reads it back.
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8e9", "--assumptions", str(out), "--json"]) == 0
    phases = json.loads(capsys.readouterr().out)["scale_out_paths"]["fresh_node"]["phases"]
    assert phases["node_launch"] + phases["gpu_registration"] == pytest.approx(120.5, abs=0.1)


def test_a_pod_on_a_running_node_teaches_no_node_phases(tmp_path, capsys):
    running = timeline_json(RUNNING_NODE, tmp_path / "running.json", capsys)
    out = tmp_path / "a.json"
    assert main(["calibrate", "--timeline", str(running), "-o", str(out)]) == 0
    a = assumptions_from_dict(json.loads(out.read_text()))
    base = LoadAssumptions()
    assert (a.node_launch_s, a.gpu_registration_s) == (base.node_launch_s, base.gpu_registration_s)


@pytest.mark.parametrize(
    "args,field",
    [
        (["calibrate", "-o", "OUT"], "LOGS"),
        (["calibrate", "--timeline", "NOTJSON", "-o", "OUT"], "--timeline"),
        (["calibrate", "--timeline", "MISSING", "-o", "OUT"], "--timeline"),
        (["calibrate", "LOG", "-o", "OUT"], "--instance"),
        (["calibrate", "--timeline", "NOTJSON", "-o", "NODIR"], "--out"),
        (["calibrate", "--timeline", "NOTJSON", "-o", ""], "--out"),
    ],
)
def test_bad_calibrate_input_is_one_line_naming_the_field(tmp_path, capsys, args, field):
    (tmp_path / "notjson").write_text("pod vllm-0 Started\n")
    (tmp_path / "log").write_text("INFO vLLM\n")
    paths = {"OUT": tmp_path / "out.json", "NOTJSON": tmp_path / "notjson", "MISSING": tmp_path / "missing.json"}
    paths["LOG"] = tmp_path / "log"
    paths["NODIR"] = tmp_path / "no-such-folder" / "out.json"
    assert main([str(paths.get(a, a)) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"fastload: {field}") and "Traceback" not in err
    assert not (tmp_path / "out.json").exists()
