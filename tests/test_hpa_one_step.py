"""One-step scale-up: the HPA that KEDA derives from the EMITTED ScaledObject, run through a model of the
Kubernetes HPA algorithm (core.scaling.hpa, which cites the controller functions it follows)."""

from __future__ import annotations

import cdk8s
import pytest

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.scaling.autoscaling import (
    SCALE_UP_WINDOW_S,
    SCRAPE_INTERVAL_S,
    Autoscaling,
    hpa_behavior,
    scaling_behavior,
)
from fastload_constructs.core.scaling.hpa import (
    HpaModel,
    hpa_spec_from_scaled_object,
    replicas_over_time,
)
from fastload_constructs.core.scaling.simulation import previous_hpa_behavior
from fastload_constructs.k8s.keda import AutoscalingChart
from tests.crd_schemas import validate_custom_resource

TARGET = 4.0


def seconds_to_reach(history: list[tuple[float, int]], replicas: int) -> float | None:
    """The first sync time at which the HPA asked for at least `replicas`, or None."""
    return next((t for t, r in history if r >= replicas), None)


PLAN_8B = plan(ModelProfile.from_numbers(parameter_count=8_000_000_000), "g6e.2xlarge")


def emitted_scaled_object(max_replicas: int = 10) -> dict:
    chart = AutoscalingChart(
        cdk8s.Testing.app(),
        "a",
        server="llama",
        autoscaling=Autoscaling(min_replicas=1, max_replicas=max_replicas, target=TARGET),
        behavior=scaling_behavior(PLAN_8B),
        server_address="https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1",
        region="us-west-2",
    )
    (so,) = [d for d in cdk8s.Testing.synth(chart) if d["kind"] == "ScaledObject"]
    validate_custom_resource(so)
    return so


BURST_AT = 60  # an idle minute first: the HPA has recorded low recommendations, as a running one has


def burst(replicas: int):
    """A queue that asks for `replicas` pods from BURST_AT on (the new pods do not serve within the run)."""
    return lambda t: replicas * TARGET if t >= BURST_AT else 0.0


def test_a_1_to_10_burst_reaches_10_replicas_within_2_minutes_of_hpa_time():
    spec = hpa_spec_from_scaled_object(emitted_scaled_object()["spec"])
    history = replicas_over_time(spec, burst(10), start_replicas=1, seconds=600)
    reached = seconds_to_reach(history, 10)
    assert reached is not None and reached - BURST_AT <= 120
    assert reached - BURST_AT == SCALE_UP_WINDOW_S - 15  # the window's recommendations must all be high
    # One step: the count goes 1 -> 10 with nothing in between.
    assert sorted({r for _, r in history}) == [1, 10]
    # Even counting the scrape that first shows the burst (up to 30 s late), it is within 2 minutes.
    assert reached - BURST_AT + SCRAPE_INTERVAL_S <= 120


def test_the_previous_policy_takes_one_start_up_per_step_for_the_same_burst():
    so = emitted_scaled_object()
    behavior = scaling_behavior(PLAN_8B)
    so["spec"]["advanced"]["horizontalPodAutoscalerConfig"]["behavior"] = previous_hpa_behavior(behavior)
    history = replicas_over_time(hpa_spec_from_scaled_object(so["spec"]), burst(10), start_replicas=1, seconds=3600)
    reached = seconds_to_reach(history, 10)
    # 1 -> 2 -> 3 -> 5 -> 8 -> 10, one step per start-up: four start-ups after the first step (9 minutes here).
    assert reached is not None and reached - BURST_AT > 4 * behavior.startup_s
    steps = []
    for _, r in history:
        if not steps or steps[-1] != r:
            steps.append(r)
    assert steps == [1, 2, 3, 5, 8, 10]


@pytest.mark.parametrize("max_replicas", [1, 3, 10, 100])
def test_one_step_is_bounded_by_max_replicas(max_replicas):
    spec = hpa_spec_from_scaled_object(emitted_scaled_object(max_replicas)["spec"])
    history = replicas_over_time(spec, burst(250), start_replicas=1, seconds=300)
    assert max(r for _, r in history) == max_replicas
    assert seconds_to_reach(history, max_replicas) == (0 if max_replicas == 1 else BURST_AT + SCALE_UP_WINDOW_S - 15)


def test_a_single_scrape_spike_is_ignored_at_every_phase_of_the_sync():
    spec = hpa_spec_from_scaled_object(emitted_scaled_object()["spec"])
    for offset in range(0, SCRAPE_INTERVAL_S, 5):
        # One scrape (held for 30 s) reports 10 pods' worth of queue; the scrapes around it report none.
        start = 60 + offset

        def spike(t, start=start):
            return 10 * TARGET if start <= t < start + SCRAPE_INTERVAL_S else 0.0

        history = replicas_over_time(spec, spike, start_replicas=1, seconds=300)
        assert max(r for _, r in history) == 1, offset


def test_two_scrapes_of_demand_are_enough():
    spec = hpa_spec_from_scaled_object(emitted_scaled_object()["spec"])
    history = replicas_over_time(
        spec, lambda t: 10 * TARGET if 60 <= t < 60 + 2 * SCRAPE_INTERVAL_S else 0.0, start_replicas=1, seconds=200
    )
    assert max(r for _, r in history) == 10


def test_scale_down_stays_slow():
    b = scaling_behavior(PLAN_8B)
    spec = hpa_spec_from_scaled_object(emitted_scaled_object()["spec"])
    # 10 replicas, then the queue empties: nothing is removed within the scale-down window, then 1 pod per period.
    history = replicas_over_time(
        spec, lambda t: 10 * TARGET if t < BURST_AT else 0.0, start_replicas=10, seconds=b.scale_down_window_s + 900
    )
    assert all(r == 10 for t, r in history if t < BURST_AT + b.scale_down_window_s - 15)
    first_drop = next(t for t, r in history if r < 10)
    assert [r for t, r in history if t == first_drop] == [9]
    assert [r for t, r in history if first_drop <= t < first_drop + b.scale_down_period_s] == [9] * len(
        range(0, b.scale_down_period_s, 15)
    )
    assert hpa_behavior(b)["scaleDown"]["policies"] == [
        {"type": "Pods", "value": 1, "periodSeconds": b.scale_down_period_s}
    ]


def test_the_model_follows_the_kubernetes_defaults_when_behavior_is_omitted():
    so = emitted_scaled_object()
    del so["spec"]["advanced"]
    spec = hpa_spec_from_scaled_object(so["spec"])
    history = replicas_over_time(spec, burst(20), start_replicas=1, seconds=120)
    # Default scaleUp: window 0, max(Pods 4, Percent 100) per 15 s: 1 -> 5 -> 10 (capped at maxReplicas 10).
    assert [r for t, r in history if t >= BURST_AT][:3] == [5, 10, 10]


def test_tolerance_keeps_the_count_when_the_ratio_is_within_ten_percent():
    spec = hpa_spec_from_scaled_object(emitted_scaled_object()["spec"])
    hpa = HpaModel(spec)
    assert hpa.recommend(total=4 * TARGET * 1.05, current=4) == 4
    assert hpa.recommend(total=4 * TARGET * 1.2, current=4) == 5


def test_a_value_metric_is_refused_by_the_model():
    so = emitted_scaled_object()
    so["spec"]["triggers"][0]["metricType"] = "Value"
    with pytest.raises(FastloadConfigError) as err:
        hpa_spec_from_scaled_object(so["spec"])
    assert err.value.field == "triggers[0].metricType"
