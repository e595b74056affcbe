"""Pull modes: how the image reaches a fresh node, one planner row each, each backed by a published row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.pull_modes import PULL_MODES, effective_pull_mode, image_phases
from fastload_constructs.core.planning.serving import Serving

MODEL_8B = ModelProfile.from_numbers(parameter_count=8_030_000_000)
ROWS = json.loads((Path(__file__).parent / "fixtures" / "published_measurements.json").read_text())["rows"]


def fresh(
    mode: str | None, shared_compile_cache: bool = False, fast_image_pull: bool | None = None, ami_family="al2023"
):
    """The paths on AL2023 nodes (every mode is theirs; Bottlerocket's are the snapshot and the plain pull)."""
    if fast_image_pull is None:
        fast_image_pull = mode in (None, "parallel")
    serving = Serving(
        pull_mode=mode,  # type: ignore[arg-type]
        fast_image_pull=fast_image_pull,
        shared_compile_cache=shared_compile_cache,
        ami_family=ami_family,
    )
    p = plan(MODEL_8B, "g6e.2xlarge", TuningOptions(serving=serving))
    assert p.scale_out_paths is not None and p.serving.image_pull_mode == p.scale_out_paths.pull_mode
    return p.scale_out_paths


def test_every_pull_mode_has_a_published_row():
    modes = set()
    for row in ROWS:
        s = row["settings"]
        if "image_pull_s" in row["measured"]:
            modes.add(effective_pull_mode(s.get("pull_mode"), bool(s.get("fast_image_pull", True))))
    assert modes == set(PULL_MODES)


def test_each_mode_is_its_own_row_in_the_fresh_node_path():
    a = LoadAssumptions()
    image = 11_600_000_000
    pulls = {m: dict(fresh(m).fresh_node.phases)["image_pull"] for m in PULL_MODES}
    assert pulls["plain"] == pytest.approx(image / (a.image_pull_mb_s * 1e6))
    assert pulls["parallel"] == pytest.approx(image / (a.image_pull_mb_s * a.fast_image_pull_speedup * 1e6))
    assert pulls["lazy"] == a.lazy_image_pull_s and pulls["snapshot"] == a.snapshot_image_s
    # Lazy loading moves the cost into vLLM's imports: a phase of its own, after the pull.
    names = [n for n, _ in fresh("lazy").fresh_node.phases]
    assert names[:4] == ["node_launch", "gpu_registration", "image_pull", "lazy_imports"]
    assert "lazy_imports" not in dict(fresh("snapshot").fresh_node.phases)
    totals = {m: fresh(m).fresh_node.total_s for m in PULL_MODES}
    assert totals["snapshot"] < totals["parallel"] < totals["plain"]
    assert totals["snapshot"] < totals["lazy"]
    # A node that ran the model has the image whatever the mode.
    assert {fresh(m).warm_node.total_s for m in PULL_MODES} == {fresh("plain").warm_node.total_s}


def test_the_default_is_the_snapshot_unless_fast_image_pull_asks_for_the_parallel_pull():
    assert fresh(None, fast_image_pull=False, ami_family="bottlerocket").pull_mode == "snapshot"
    assert fresh(None).pull_mode == "parallel"
    assert fresh(None, fast_image_pull=False).pull_mode == "snapshot"
    assert fresh("snapshot").pull_mode == "snapshot"
    assert fresh("plain", ami_family="bottlerocket").pull_mode == "plain"
    assert image_phases("plain", 84_200_000, LoadAssumptions()) == (("image_pull", 1.0),)


def test_a_bad_pull_mode_names_the_field():
    with pytest.raises(FastloadConfigError) as err:
        Serving(pull_mode="fast")  # type: ignore[arg-type]
    assert err.value.field == "serving.pull_mode" and "snapshot" in str(err.value)
    # FastImagePull is the parallel pull: on for parallel, off for the others (a snapshot's image would be
    # unpacked again by the SOCI snapshotter).
    for mode, fast in (("snapshot", True), ("parallel", False), ("plain", True)):
        with pytest.raises(FastloadConfigError) as err:
            Serving(pull_mode=mode, fast_image_pull=fast, ami_family="al2023")  # type: ignore[arg-type]
        assert err.value.field == "serving.fast_image_pull"
    # SOCI's modes are AL2023's: on Bottlerocket they are refused, naming what was given.
    for given, field in (
        ({"pull_mode": "lazy"}, "serving.pull_mode"),
        ({"fast_image_pull": True}, "serving.fast_image_pull"),
    ):
        with pytest.raises(FastloadConfigError) as err:
            Serving(**given)  # type: ignore[arg-type]
        assert err.value.field == field and "ami_family='al2023'" in err.value.accepted


def test_cli_plan_pull_mode(capsys):
    from fastload_constructs.cli.main import main

    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", "--pull-mode", "snapshot", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["image_pull_mode"] == "snapshot"
    assert view["scale_out_paths"]["fresh_node"]["phases"]["image_pull"] == 5.0
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8e9", "--pull-mode", "fast"]) == 2
    assert "--pull-mode" in capsys.readouterr().err


def test_cli_plan_pull_mode_contradicting_fast_image_pull(capsys):
    from fastload_constructs.cli.main import main

    base = ["plan", "--instance", "g6e.2xlarge", "--params", "8e9", "--ami", "al2023"]
    # FastImagePull is the parallel pull: on with parallel only, so these contradict...
    assert main([*base, "--pull-mode", "snapshot", "--fast-image-pull"]) == 2
    err = capsys.readouterr().err
    assert "--fast-image-pull" in err and "Traceback" not in err
    assert main([*base, "--pull-mode", "parallel", "--no-fast-image-pull"]) == 2
    capsys.readouterr()
    # ...while agreeing flags, or --pull-mode alone, plan fine.
    assert main([*base, "--pull-mode", "snapshot", "--no-fast-image-pull", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["image_pull_mode"] == "snapshot"
    assert main([*base, "--pull-mode", "parallel", "--json"]) == 0
