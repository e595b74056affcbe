"""Pod autoscaling decisions (pure): KEDA on the engine's queue, HPA behaviour from the plan, a fallback that holds.

Pod autoscaling: one KEDA ScaledObject per model drives a HorizontalPodAutoscaler
on a metric of the model's engine read from Prometheus. KEDA's Prometheus scaler with the default
`AverageValue` metric type makes the HPA aim for `sum(metric) / replicas =
target`, so `targetWaitingRequests: 4` means "add a pod when more than about four
requests per pod wait in vLLM's queue" (KEDA docs, scalers/prometheus; Kubernetes
HPA algorithm: desired = ceil(current x value / target)).

Scale-up is one step. With `AverageValue` on an external metric the HPA's
desired count is the queue's total over the per-pod target, whatever the current
count (`GetExternalPerPodMetricReplicas` in kubernetes/kubernetes
pkg/controller/podautoscaler/replica_calculator.go; KEDA docs, ScaledObject spec,
"metricType"): pods that are still starting do not lower the total, so adding all
of them at once does not double-count demand. The rate policy is
`Pods: MAX_REPLICAS_LIMIT per 15 s`, which never binds below maxReplicas, so the
HPA goes from 1 to the asked-for count in one step. A stabilisation window of one
scrape interval plus one HPA sync (45 s) makes a single scrape's spike (seen by
at most two 15 s syncs) never the minimum of the window, and is a fraction of any
start-up (`core.scaling.simulation` compares windows and the previous policy).

Scale-down must not flap: a pod that takes `startup_s` to become ready was asked
for because load grew. Removing it before it could ever serve throws the start-up
away, so the HPA's scale-down stabilisation window is at least twice the predicted
start-up, and never shorter than the HPA default of 300 s (Kubernetes docs,
"Horizontal Pod Autoscaling", behavior.scaleDown.stabilizationWindowSeconds
default), and it removes one pod per predicted start-up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar, Literal

from fastload_constructs.core.engines import DEFAULT_ENGINE, ENGINE_NAMES, engine_named
from fastload_constructs.core.errors import mention, one_of, require
from fastload_constructs.core.planning.plan import ServingPlan
from fastload_constructs.core.settings import Check, number_in, setting, settings_of, whole_number

# The metrics a model may scale on: the same keys for every engine (`Engine.scaling_metrics` names each
# engine's Prometheus series), so cdk.json's scalingMetric means the same thing whatever the engine.
SCALING_METRICS: tuple[str, ...] = tuple(DEFAULT_ENGINE.scaling_metrics)
DEFAULT_SCALING_METRIC = "num_requests_waiting"
DEFAULT_TARGET_WAITING_REQUESTS = 4.0
MAX_REPLICAS_LIMIT = 100
# Kubernetes HPA default scale-down stabilisation (docs, "Horizontal Pod Autoscaling").
HPA_DEFAULT_SCALE_DOWN_WINDOW_S = 300
# HPA windows and periods are at most one hour (autoscaling/v2 HPAScalingRules validation).
HPA_MAX_WINDOW_S = 3600
HPA_MAX_POLICY_PERIOD_S = 1800
# The EKS managed scraper refuses scrape intervals below 30 s (AMP user guide, "Scraper configuration").
SCRAPE_INTERVAL_S = 30
# KEDA polls no faster than the metric changes.
POLLING_INTERVAL_S = SCRAPE_INTERVAL_S
STARTUP_SAFETY_FACTOR = 2.0
# The HPA controller's sync period (kube-controller-manager --horizontal-pod-autoscaler-sync-period, default 15 s;
# EKS does not expose the flag) and the default policy period (pkg/apis/autoscaling/v2/defaults.go: 15 s).
HPA_SYNC_PERIOD_S = 15
HPA_DEFAULT_POLICY_PERIOD_S = 15
# One scrape's sample stays the latest value for one scrape interval, i.e. for at most
# SCRAPE_INTERVAL_S / HPA_SYNC_PERIOD_S = 2 syncs; the scale-up window is the minimum of the recommendations
# newer than now - window (horizontal.go stabilizeRecommendationWithBehaviors: `rec.timestamp.After(upCutoff)`),
# so a window of scrape + sync always holds a recommendation from before a one-scrape spike.
SCALE_UP_WINDOW_S = SCRAPE_INTERVAL_S + HPA_SYNC_PERIOD_S


def predicted_startup_seconds(plan: ServingPlan) -> float:
    """Seconds from 'a pod was asked for' to 'it serves', as the plan predicts it.

    The one place the scaling policy reads the plan: the fresh-node total (node
    launch, GPU registration, image pull, then the pod), because a scale-out
    beyond the running nodes lands on a new one; the windows must not count a
    pod as failed or idle before it could possibly serve. Plans without
    scale-out paths fall back to the pod's own total.
    """
    if plan.scale_out_paths is not None:
        return plan.scale_out_paths.fresh_node.total_s
    return plan.predicted.total_s


def _exactly(choices: tuple[str, ...]) -> Check:
    """One of `choices` as written: a metric or engine name is a key of `Engine.scaling_metrics`."""

    def checked(value: object, name: str) -> str:
        one_of(name, value, choices)
        assert isinstance(value, str)
        return value

    return checked


@dataclass(frozen=True)
class Autoscaling:
    """Per-model pod autoscaling: replicas between min and max on one metric of the model's engine.

    Each field is a `core.settings.Setting` (cdk.json's per-model keys); `check_autoscaling` checks them and
    how they bound each other. Errors name them `<where>.minReplicas`, `.maxReplicas`, `.target`, `.metric`.
    """

    settings_prefix: ClassVar[str] = "autoscaling."

    min_replicas: int = setting(
        1,
        check=whole_number(
            1,
            MAX_REPLICAS_LIMIT,
            f"a whole number from 1 to {MAX_REPLICAS_LIMIT} (with no pod there is no vLLM metric to scale up on)",
        ),
        accepted=f"a whole number from 1 to {MAX_REPLICAS_LIMIT}",
        doc="KEDA's lower bound (instead of replicas).",
        key="minReplicas",
        kind=int,
        error_name="autoscaling.minReplicas",
    )
    """The fewest pods. Default: 1."""
    max_replicas: int = setting(
        1,
        check=whole_number(1, MAX_REPLICAS_LIMIT),
        accepted=f"a whole number from minReplicas to {MAX_REPLICAS_LIMIT}",
        doc="KEDA's upper bound; above minReplicas, KEDA scales the model.",
        key="maxReplicas",
        kind=int,
        error_name="autoscaling.maxReplicas",
    )
    """The most pods; above `min_replicas` KEDA scales between them. Default: 1."""
    target: float = setting(
        DEFAULT_TARGET_WAITING_REQUESTS,
        check=number_in("a number in (0, 10000] per pod", 0, 10_000),
        accepted="a number above 0: per pod, or a fraction of the KV cache (at most 1) for kv_cache_usage",
        doc="The value of scalingMetric per pod that KEDA aims at.",
        key="scalingTarget",
        kind=float,
    )
    """The metric's value per pod the HPA aims at (a fraction of the KV cache for `kv_cache_usage`). Default: 4."""
    metric: str = setting(
        DEFAULT_SCALING_METRIC,
        check=_exactly(SCALING_METRICS),
        accepted=" or ".join(SCALING_METRICS),
        doc="The engine's metric KEDA scales on.",
        key="scalingMetric",
        choices=SCALING_METRICS,
    )
    """The engine's queue metric KEDA scales on (`Engine.scaling_metrics` names its series). Default:
    `num_requests_waiting`."""
    engine: str = setting(DEFAULT_ENGINE.name, check=_exactly(ENGINE_NAMES), accepted=" or ".join(ENGINE_NAMES))
    """Whose metric names (`Engine.scaling_metrics`); `ServedModel` sets the plan's. Default: `vllm`."""

    @property
    def prometheus_metric(self) -> str:
        return engine_named(self.engine).scaling_metrics[self.metric]


def check_autoscaling(autoscaling: Autoscaling, where: str = "autoscaling") -> Autoscaling:
    """Refuse replica bounds or targets no HPA could honour (errors name `<where>.minReplicas`, ...)."""
    a = autoscaling
    for record in settings_of(Autoscaling):
        record.check(getattr(a, record.name), f"{where}.{record.path.rsplit('.', 1)[-1]}")
    require(
        a.max_replicas >= a.min_replicas,
        f"{where}.maxReplicas",
        a.max_replicas,
        f"at least {mention('autoscaling.minReplicas')} ({a.min_replicas})",
    )
    require(
        a.metric != "kv_cache_usage" or a.target <= 1.0,
        f"{where}.target",
        a.target,
        "a number in (0, 1] (a fraction of the KV cache)",
    )
    return a


@dataclass(frozen=True)
class ScalingBehavior:
    """HPA behaviour and KEDA timing for one model, with the reason for each number."""

    startup_s: float
    scale_down_window_s: int
    scale_down_period_s: int
    scale_up_period_s: int
    cooldown_s: int
    polling_interval_s: int
    scale_up_window_s: int = SCALE_UP_WINDOW_S
    # Pods a scale-up may add per period: MAX_REPLICAS_LIMIT never binds, so maxReplicas is the only bound.
    scale_up_pods: int = MAX_REPLICAS_LIMIT

    def describe(self) -> tuple[str, ...]:
        return (
            f"scale up: to ceil(waiting / target) in one step (bounded by maxReplicas) once the demand has held "
            f"for {self.scale_up_window_s} s (one {SCRAPE_INTERVAL_S} s scrape + one {HPA_SYNC_PERIOD_S} s HPA sync: "
            "a single scrape's spike is ignored)",
            f"scale down: only after {self.scale_down_window_s} s of lower demand "
            f"(>= {STARTUP_SAFETY_FACTOR:g} x predicted start-up {self.startup_s:.0f} s, "
            f">= HPA default {HPA_DEFAULT_SCALE_DOWN_WINDOW_S} s), 1 pod per {self.scale_down_period_s} s",
            f"KEDA polls every {self.polling_interval_s} s (the scraper's minimum interval); "
            f"cooldown {self.cooldown_s} s",
        )


def scaling_behavior(plan: ServingPlan) -> ScalingBehavior:
    """Stabilisation windows and periods derived from the plan's predicted start-up."""
    startup = predicted_startup_seconds(plan)
    window = min(HPA_MAX_WINDOW_S, max(HPA_DEFAULT_SCALE_DOWN_WINDOW_S, math.ceil(STARTUP_SAFETY_FACTOR * startup)))
    down_period = min(HPA_MAX_POLICY_PERIOD_S, max(60, math.ceil(startup)))
    return ScalingBehavior(
        startup_s=startup,
        scale_down_window_s=window,
        scale_down_period_s=down_period,
        scale_up_period_s=HPA_DEFAULT_POLICY_PERIOD_S,
        cooldown_s=window,
        polling_interval_s=POLLING_INTERVAL_S,
    )


@dataclass(frozen=True)
class HpaPolicy:
    """One autoscaling/v2 HPAScalingPolicy: add or remove `value` pods (`Pods`) or percent (`Percent`) per period."""

    type: Literal["Pods", "Percent"]
    value: int
    period_s: int

    def as_dict(self) -> dict[str, object]:
        return {"type": self.type, "value": self.value, "periodSeconds": self.period_s}


@dataclass(frozen=True)
class HpaRules:
    """One direction of an autoscaling/v2 HorizontalPodAutoscalerBehavior (HPAScalingRules)."""

    window_s: int  # stabilizationWindowSeconds
    select: Literal["Max", "Min", "Disabled"]  # selectPolicy
    policies: tuple[HpaPolicy, ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "stabilizationWindowSeconds": self.window_s,
            "selectPolicy": self.select,
            "policies": [policy.as_dict() for policy in self.policies],
        }


@dataclass(frozen=True)
class HpaBehavior:
    """`spec.advanced.horizontalPodAutoscalerConfig.behavior` of the ScaledObject: what KEDA hands its HPA."""

    scale_up: HpaRules
    scale_down: HpaRules

    def as_dict(self) -> dict[str, object]:
        """The autoscaling/v2 JSON, as the HPA model (`core.scaling.hpa`) and the simulator read it."""
        return {"scaleUp": self.scale_up.as_dict(), "scaleDown": self.scale_down.as_dict()}


def scaling_rules(behavior: ScalingBehavior) -> HpaBehavior:
    """Scale up in one step once the demand has held for the window; scale down one pod per predicted start-up."""
    return HpaBehavior(
        scale_up=HpaRules(
            window_s=behavior.scale_up_window_s,
            select="Max",
            policies=(HpaPolicy("Pods", behavior.scale_up_pods, behavior.scale_up_period_s),),
        ),
        scale_down=HpaRules(
            window_s=behavior.scale_down_window_s,
            select="Min",
            policies=(HpaPolicy("Pods", 1, behavior.scale_down_period_s),),
        ),
    )


def hpa_behavior(behavior: ScalingBehavior) -> dict[str, object]:
    """`scaling_rules` as autoscaling/v2 JSON (HorizontalPodAutoscalerBehavior), for the HPA model."""
    return scaling_rules(behavior).as_dict()


# When the queue metric cannot be read (scraper down, workspace unreachable, query empty), KEDA
# errors instead of reading 0 (`ignoreNullValues: "false"`, KEDA docs scalers/prometheus), and after
# this many failed polls in a row its fallback takes over (KEDA docs "Scaling Deployments",
# spec.fallback): 3 polls of 30 s, so one lost scrape never triggers it.
FALLBACK_FAILURE_THRESHOLD = 3
# `currentReplicas` (in the enum of the vendored KEDA 2.20.2 ScaledObject CRD): keep the replicas the
# Deployment has; `replicas` is still required by the CRD and is the floor used by the other modes.
FALLBACK_BEHAVIOR = "currentReplicas"


@dataclass(frozen=True)
class Fallback:
    """`spec.fallback` of the ScaledObject: after `failure_threshold` failed polls, `behavior` takes over."""

    failure_threshold: int
    replicas: int  # required by the CRD; the floor of the other behaviours
    behavior: str


def fallback(autoscaling: Autoscaling) -> Fallback:
    """A broken metrics pipeline holds the current replicas.

    Never "0 requests waiting": reading an absent metric as zero would scale a busy model down to
    its minimum and never up again, silently. The `FastloadScalingMetricMissing` alert
    (`core.scaling.metrics.alert_rules`) says it happened.
    """
    return Fallback(
        failure_threshold=FALLBACK_FAILURE_THRESHOLD,
        replicas=autoscaling.min_replicas,
        behavior=FALLBACK_BEHAVIOR,
    )
