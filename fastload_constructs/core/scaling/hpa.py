"""A model of the HorizontalPodAutoscaler's decision for one External `AverageValue` metric (pure).

What is modelled, from kubernetes/kubernetes pkg/controller/podautoscaler (read at master, 2026; the
behaviour code has the same shape since v1.23):

- replica_calculator.go `GetExternalPerPodMetricReplicas`: usage ratio = total / (target x current);
  when it is off 1 by more than the tolerance (0.1, `--horizontal-pod-autoscaler-tolerance`), the
  recommendation is ceil(total / target), whatever the current count.
- horizontal.go `stabilizeRecommendationWithBehaviors`: every sync records its raw recommendation; the
  stabilised value is the current count raised to the minimum of the recommendations newer than
  now - scaleUp window (`rec.timestamp.After(upCutoff)`, the current one included) and lowered to the
  maximum of those newer than now - scaleDown window.
- horizontal.go `convertDesiredReplicasWithBehaviorRate` with `calculateScaleUpLimitWithScalingRules` /
  `calculateScaleDownLimitWithScalingRules` and `getReplicasChangePerPeriod`: each policy proposes a
  limit from the count at the start of its period (current - added + removed in the last periodSeconds);
  Pods adds/removes `value`, Percent multiplies by (1 +/- value/100), rounded up for scale-up;
  selectPolicy Max takes the most permissive, Min the least, Disabled blocks; then min/maxReplicas.
- pkg/apis/autoscaling/v2/defaults.go: omitted fields take scaleUp window 0, Max, Pods 4 / Percent 100
  per 15 s; scaleDown window 300 s, Percent 100 per 15 s.

Not modelled: the readiness handling of Resource/Pods metrics (External metrics do not use it) and
the legacy path without `behavior` (KEDA always writes one when the ScaledObject sets it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fastload_constructs.core.errors import FastloadConfigError

DEFAULT_TOLERANCE = 0.1
SYNC_PERIOD_S = 15
_DEFAULT_UP = {
    "stabilizationWindowSeconds": 0,
    "selectPolicy": "Max",
    "policies": [
        {"type": "Pods", "value": 4, "periodSeconds": 15},
        {"type": "Percent", "value": 100, "periodSeconds": 15},
    ],
}
_DEFAULT_DOWN = {
    "stabilizationWindowSeconds": 300,
    "selectPolicy": "Max",
    "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
}


@dataclass(frozen=True)
class Policy:
    type: str  # "Pods" or "Percent"
    value: int
    period_s: int


@dataclass(frozen=True)
class Rules:
    window_s: int
    select: str  # "Max", "Min" or "Disabled"
    policies: tuple[Policy, ...]


@dataclass(frozen=True)
class HpaSpec:
    """What the HPA that KEDA generates from a ScaledObject decides with."""

    min_replicas: int
    max_replicas: int
    target: float
    scale_up: Rules
    scale_down: Rules
    tolerance: float = DEFAULT_TOLERANCE


def _rules(given: Mapping[str, Any] | None, default: Mapping[str, Any], where: str) -> Rules:
    merged = {**default, **(given or {})}  # copyHPAScalingRules: omitted fields take the defaults
    policies = []
    for i, p in enumerate(merged["policies"]):
        if p.get("type") not in ("Pods", "Percent"):
            raise FastloadConfigError(f"{where}.policies[{i}].type", p.get("type"), "Pods or Percent")
        policies.append(Policy(str(p["type"]), int(p["value"]), int(p["periodSeconds"])))
    select = str(merged["selectPolicy"])
    if select not in ("Max", "Min", "Disabled"):
        raise FastloadConfigError(f"{where}.selectPolicy", select, "Max, Min or Disabled")
    return Rules(int(merged["stabilizationWindowSeconds"]), select, tuple(policies))


def hpa_spec_from_scaled_object(spec: Mapping[str, Any]) -> HpaSpec:
    """The HPA that KEDA derives from a ScaledObject's `spec` (its first trigger's threshold is the target)."""
    behavior = spec.get("advanced", {}).get("horizontalPodAutoscalerConfig", {}).get("behavior", {})
    trigger = spec["triggers"][0]
    if trigger.get("metricType", "AverageValue") != "AverageValue":
        raise FastloadConfigError("triggers[0].metricType", trigger.get("metricType"), "AverageValue")
    return HpaSpec(
        min_replicas=int(spec.get("minReplicaCount", 0)),
        max_replicas=int(spec.get("maxReplicaCount", 100)),
        target=float(trigger["metadata"]["threshold"]),
        scale_up=_rules(behavior.get("scaleUp"), _DEFAULT_UP, "behavior.scaleUp"),
        scale_down=_rules(behavior.get("scaleDown"), _DEFAULT_DOWN, "behavior.scaleDown"),
    )


def _change_in_period(events: list[tuple[float, int]], now: float, period_s: int) -> int:
    return sum(change for t, change in events if t > now - period_s)


@dataclass
class HpaModel:
    """One HPA's state: recommendations and scale events, as the controller keeps them in memory."""

    spec: HpaSpec
    recommendations: list[tuple[float, int]] = field(default_factory=list)
    up_events: list[tuple[float, int]] = field(default_factory=list)
    down_events: list[tuple[float, int]] = field(default_factory=list)

    def recommend(self, total: float, current: int) -> int:
        """Raw recommendation from the metric's total (GetExternalPerPodMetricReplicas)."""
        if current == 0:
            return max(self.spec.min_replicas, math.ceil(total / self.spec.target))
        ratio = total / (self.spec.target * current)
        if abs(1.0 - ratio) <= self.spec.tolerance:
            return current
        return math.ceil(total / self.spec.target)

    def _stabilise(self, now: float, current: int, desired: int) -> int:
        up_cut = now - self.spec.scale_up.window_s
        down_cut = now - self.spec.scale_down.window_s
        up, down = desired, desired
        for t, rec in self.recommendations:
            if t > up_cut:
                up = min(up, rec)
            if t > down_cut:
                down = max(down, rec)
        keep = max(self.spec.scale_up.window_s, self.spec.scale_down.window_s)
        self.recommendations = [(t, r) for t, r in self.recommendations if t >= now - keep]
        self.recommendations.append((now, desired))
        return min(max(current, up), down)

    def _limit(self, now: float, current: int, desired: int) -> int:
        s = self.spec
        if desired > current:
            rules = s.scale_up
            if rules.select == "Disabled":
                return current
            proposals = []
            for p in rules.policies:
                start = (
                    current
                    - _change_in_period(self.up_events, now, p.period_s)
                    + _change_in_period(self.down_events, now, p.period_s)
                )
                proposals.append(
                    start + p.value if p.type == "Pods" else math.ceil(start * (1 + p.value / 100)),
                )
            limit = max(proposals) if rules.select == "Max" else min(proposals)
            return min(desired, max(limit, current), s.max_replicas)
        if desired < current:
            rules = s.scale_down
            if rules.select == "Disabled":
                return current
            proposals = []
            for p in rules.policies:
                start = (
                    current
                    + _change_in_period(self.down_events, now, p.period_s)
                    - _change_in_period(self.up_events, now, p.period_s)
                )
                proposals.append(start - p.value if p.type == "Pods" else int(start * (1 - p.value / 100)))
            # For scale-down the most permissive (Max) policy is the lowest count.
            limit = min(proposals) if rules.select == "Max" else max(proposals)
            return max(desired, min(limit, current), s.min_replicas)
        return desired

    def sync(self, now: float, current: int, total: float) -> int:
        """One reconcile at `now`: the replica count the HPA writes to the scale subresource."""
        raw = min(max(self.recommend(total, current), self.spec.min_replicas), self.spec.max_replicas)
        stabilised = self._stabilise(now, current, raw)
        new = self._limit(now, current, stabilised)
        if new > current:
            self.up_events.append((now, new - current))
        elif new < current:
            self.down_events.append((now, current - new))
        return new


def replicas_over_time(
    spec: HpaSpec,
    total_at: Any,
    *,
    start_replicas: int,
    seconds: float,
    sync_period_s: int = SYNC_PERIOD_S,
) -> list[tuple[float, int]]:
    """(time, replicas) after each sync, the metric's total read at each sync as `total_at(t)`."""
    hpa = HpaModel(spec)
    current = start_replicas
    out = []
    t = 0.0
    while t <= seconds:
        current = hpa.sync(t, current, float(total_at(t)))
        out.append((t, current))
        t += sync_period_s
    return out
