"""The burst simulation (core.scaling.simulation): what it says about the old and new scale-up, and that it is
wired to the same numbers the ScaledObject is emitted with."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

import cdk8s

from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.scaling.autoscaling import SCALE_UP_WINDOW_S, Autoscaling, hpa_behavior, scaling_behavior
from fastload_constructs.core.scaling.simulation import (
    StartPaths,
    one_step_behavior,
    previous_hpa_behavior,
    scaled_object_timing,
    simulate,
    spike_false_scale_ups,
    start_paths,
    step_burst,
)
from fastload_constructs.k8s.keda import AutoscalingChart

ROOT = Path(__file__).resolve().parent.parent
PLAN = plan(ModelProfile.from_numbers(parameter_count=8_000_000_000), "g6e.2xlarge")
BEHAVIOR = scaling_behavior(PLAN)
AUTOSCALING = Autoscaling(min_replicas=1, max_replicas=10, target=4.0)
BURST = step_burst(0.8, 9.5, before_s=300, during_s=1800, after_s=900)


def test_the_simulated_timing_is_what_the_chart_emits():
    chart = AutoscalingChart(
        cdk8s.Testing.app(),
        "a",
        server="llama",
        autoscaling=AUTOSCALING,
        behavior=BEHAVIOR,
        server_address="https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1",
        region="us-west-2",
    )
    (so,) = [d["spec"] for d in cdk8s.Testing.synth(chart) if d["kind"] == "ScaledObject"]
    timing = scaled_object_timing(AUTOSCALING, hpa_behavior(BEHAVIOR))
    assert timing["advanced"] == so["advanced"]
    assert (timing["minReplicaCount"], timing["maxReplicaCount"]) == (so["minReplicaCount"], so["maxReplicaCount"])
    assert timing["triggers"][0]["metadata"]["threshold"] == so["triggers"][0]["metadata"]["threshold"]
    assert timing["triggers"][0]["metricType"] == so["triggers"][0]["metricType"]


def test_one_step_reaches_capacity_one_start_up_after_the_burst_is_confirmed():
    paths = start_paths(PLAN)
    old = simulate(scaled_object_timing(AUTOSCALING, previous_hpa_behavior(BEHAVIOR)), BURST, paths)
    new = simulate(scaled_object_timing(AUTOSCALING, hpa_behavior(BEHAVIOR)), BURST, paths)
    assert old.needed_replicas == new.needed_replicas == 10
    assert new.time_to_capacity_s is not None and old.time_to_capacity_s is not None
    # Scrape (<= 30 s + lag) + HPA sync (<= 15 s) + the window, then one fresh-node start-up.
    assert new.time_to_capacity_s <= 30 + 5 + 15 + SCALE_UP_WINDOW_S + paths.fresh_node_s + 1
    assert old.time_to_capacity_s > 3 * new.time_to_capacity_s
    assert new.p95_wait_s < old.p95_wait_s / 2 and new.peak_waiting < old.peak_waiting / 2
    assert new.served >= old.served  # every request the old policy served, and those it left waiting at the end
    assert new.gpu_hours > old.gpu_hours  # the price: GPUs bought earlier


def test_the_window_is_the_shortest_that_ignores_a_one_scrape_spike():
    spikes = {
        w: spike_false_scale_ups(scaled_object_timing(AUTOSCALING, one_step_behavior(BEHAVIOR, w)))
        for w in (0, 15, 30, SCALE_UP_WINDOW_S, 60)
    }
    assert spikes[SCALE_UP_WINDOW_S] == spikes[60] == 0
    assert spikes[0] == spikes[15] == spikes[30] == 6
    # The old policy (window 0) ordered a GPU node for every such spike.
    assert spike_false_scale_ups(scaled_object_timing(AUTOSCALING, previous_hpa_behavior(BEHAVIOR))) == 6


def test_warm_spares_serve_the_first_pods_sooner():
    paths = start_paths(PLAN)
    timing = scaled_object_timing(AUTOSCALING, hpa_behavior(BEHAVIOR))
    cold = simulate(timing, BURST, paths)
    spared = simulate(timing, BURST, dataclasses.replace(paths, warm_spares=2))
    first_extra = [next(t for t, _, _, ready, _ in r.timeline if ready >= 3) for r in (cold, spared)]
    assert first_extra[1] < first_extra[0]
    assert spared.p95_wait_s < cold.p95_wait_s


def test_steady_load_within_one_replica_never_scales():
    flat = step_burst(0.5, 0.5, before_s=60, during_s=600, after_s=60)
    r = simulate(scaled_object_timing(AUTOSCALING, hpa_behavior(BEHAVIOR)), flat, StartPaths(275, 75, 70))
    assert r.max_replicas_reached == 1 and r.peak_waiting == 0 and r.p95_wait_s == 0
    assert abs(r.gpu_hours - 720 / 3600) < 1e-9


def _burst_script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("burst_simulation", ROOT / "bench" / "burst_simulation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_pictures_legend_sits_below_the_panels_and_covers_no_curve(tmp_path):
    import matplotlib.pyplot as plt

    burst = _burst_script()
    fig = burst.draw(burst.run("g6e.2xlarge", 8e9, TuningOptions()), tmp_path / "b.png")
    try:
        assert [ax.get_legend() for ax in fig.axes] == [None, None]  # no legend inside a panel
        (legend,) = fig.legends
        fig.canvas.draw()
        box = legend.get_window_extent()
        assert all(box.y1 <= ax.get_window_extent().y0 for ax in fig.axes)  # wholly below both panels
    finally:
        plt.close(fig)


def test_the_committed_picture_is_the_readmes_burst_table():
    """The PNG carries the table its curves were simulated for: the README's generated burst table."""
    from PIL import Image

    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    stored = Image.open(ROOT / "docs" / "burst_simulation.png").text.get("Description")
    assert stored == generate.burst_simulation().rstrip("\n"), (
        "stale: run .venv/bin/python bench/burst_simulation.py --png docs/burst_simulation.png"
    )
