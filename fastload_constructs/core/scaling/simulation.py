"""A burst against the autoscaling chain, second by second (pure, deterministic, no cloud).

The chain, each link with the number the reference stack uses:
- vLLM pods report `vllm:num_requests_waiting`; the EKS managed scraper samples it every
  `SCRAPE_INTERVAL_S` (30 s, AMP user guide "Scraper configuration"), visible to queries after
  `ingestion_lag_s` (not published; 5 s assumed).
- KEDA's metrics server answers each HPA query with the workspace's latest value (no
  `useCachedMetrics`; KEDA docs "Scaling Deployments", "Caching Metrics"); `pollingInterval` only
  drives 0 <-> 1 activation, which a model with minReplicas >= 1 never uses.
- The HPA syncs every 15 s and decides with `core.scaling.hpa.HpaModel` (Kubernetes' algorithm).
- A new pod serves after its scale-out path's predicted time (`ServingPlan.scale_out_paths`): the
  first ones take the warm spares, then warm nodes (given), the rest fresh nodes.
- Requests: deterministic arrivals at `rate(t)` per second; one replica runs `slots` requests at
  once, each for `service_s` seconds; the rest wait in one FIFO queue (vLLM's waiting queue, summed).

The serving numbers (slots, service_s, the burst's shape) describe a workload, not a measurement:
they are parameters of a `Workload`, and `bench/burst_simulation.py` prints which were used.
"""

from __future__ import annotations

import dataclasses
import heapq
import math
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fastload_constructs.core.planning.plan import ServingPlan
from fastload_constructs.core.scaling.autoscaling import (
    SCRAPE_INTERVAL_S,
    Autoscaling,
    ScalingBehavior,
    hpa_behavior,
    scaling_behavior,
)
from fastload_constructs.core.scaling.hpa import (
    SYNC_PERIOD_S,
    HpaModel,
    HpaSpec,
    hpa_spec_from_scaled_object,
    replicas_over_time,
)

# remote_write -> queryable: not published (the AMP user guide gives ingestion rates, not a delay); a few seconds.
INGESTION_LAG_S = 5.0


def previous_hpa_behavior(behavior: ScalingBehavior) -> dict[str, object]:
    """The scale-up of a ScaledObject that waits for each start-up: window 0, at most max(1 pod, 50%) per
    start-up.

    Kept to compare the one-step policy against (`fastload plan` does not emit it). Scale-down is the current one.
    """
    period = min(1800, max(SCRAPE_INTERVAL_S, math.ceil(behavior.startup_s)))
    return {
        "scaleUp": {
            "stabilizationWindowSeconds": 0,
            "selectPolicy": "Max",
            "policies": [
                {"type": "Pods", "value": 1, "periodSeconds": period},
                {"type": "Percent", "value": 50, "periodSeconds": period},
            ],
        },
        "scaleDown": {
            "stabilizationWindowSeconds": behavior.scale_down_window_s,
            "selectPolicy": "Min",
            "policies": [{"type": "Pods", "value": 1, "periodSeconds": behavior.scale_down_period_s}],
        },
    }


def one_step_behavior(behavior: ScalingBehavior, window_s: int) -> dict[str, object]:
    """The one-step scale-up with another stabilisation window (for choosing the window)."""
    out = hpa_behavior(behavior)
    up = dict(out["scaleUp"])  # type: ignore[call-overload]
    up["stabilizationWindowSeconds"] = window_s
    return {**out, "scaleUp": up}


def scaled_object_timing(autoscaling: Autoscaling, behavior: Mapping[str, object]) -> dict[str, Any]:
    """The part of a ScaledObject's `spec` the HPA decides with (what `k8s.keda` emits around it)."""
    return {
        "minReplicaCount": autoscaling.min_replicas,
        "maxReplicaCount": autoscaling.max_replicas,
        "advanced": {"horizontalPodAutoscalerConfig": {"behavior": dict(behavior)}},
        "triggers": [{"metricType": "AverageValue", "metadata": {"threshold": f"{autoscaling.target:g}"}}],
    }


@dataclass(frozen=True)
class Workload:
    """Arrivals and service: `rate(t)` requests per second; `slots` concurrent requests per replica."""

    rate: Callable[[float], float]
    seconds: int
    slots: int = 32
    service_s: float = 12.0
    burst_start_s: float = 0.0

    @property
    def replica_rps(self) -> float:
        return self.slots / self.service_s


def step_burst(
    low_replicas: float, high_replicas: float, *, before_s: int, during_s: int, after_s: int, slots: int = 32
) -> Workload:
    """`low` replicas' worth of traffic, then `high` replicas' worth for `during_s`, then `low` again."""
    w = Workload(rate=lambda t: 0.0, seconds=0, slots=slots)
    rps = w.replica_rps

    def rate(t: float) -> float:
        return (high_replicas if before_s <= t < before_s + during_s else low_replicas) * rps

    return Workload(rate=rate, seconds=before_s + during_s + after_s, slots=slots, burst_start_s=before_s)


@dataclass(frozen=True)
class StartPaths:
    """Seconds to serve per path, and how many pods each of the faster paths can take."""

    fresh_node_s: float
    warm_node_s: float
    warm_spare_s: float
    warm_spares: int = 0
    warm_nodes: int = 0
    gpus_per_replica: int = 1


def start_paths(plan: ServingPlan, warm_nodes: int = 0) -> StartPaths:
    """The plan's three scale-out paths (falls back to the pod's own total without them)."""
    p = plan.scale_out_paths
    if p is None:
        total = plan.predicted.total_s
        return StartPaths(total, total, total, gpus_per_replica=plan.tensor_parallel_size)
    return StartPaths(
        fresh_node_s=p.fresh_node.total_s,
        warm_node_s=p.warm_node.total_s,
        warm_spare_s=p.warm_spare.total_s,
        warm_spares=p.warm_spares,
        warm_nodes=warm_nodes,
        gpus_per_replica=plan.tensor_parallel_size,
    )


@dataclass
class _Pod:
    created: float
    ready_at: float


@dataclass
class _Replicas:
    """The Deployment's pods, and how many more the faster start paths (warm spares, warm nodes) can take."""

    paths: StartPaths
    pods: list[_Pod]
    spares: int
    warm_nodes: int

    def ready(self, t: float) -> int:
        return sum(1 for p in self.pods if p.ready_at <= t)

    def scale_to(self, t: float, replicas: int) -> None:
        """New pods take the warm spares first, then the warm nodes, then fresh nodes; the ReplicaSet removes
        pods that are not ready first, then the newest."""
        while len(self.pods) < replicas:
            self.pods.append(_Pod(t, t + self._next_start_s()))
        if len(self.pods) > replicas:
            self.pods.sort(key=lambda p: (p.ready_at <= t, -p.created))
            del self.pods[: len(self.pods) - replicas]

    def _next_start_s(self) -> float:
        if self.spares > 0:
            self.spares -= 1
            return self.paths.warm_spare_s
        if self.warm_nodes > 0:
            self.warm_nodes -= 1
            return self.paths.warm_node_s
        return self.paths.fresh_node_s


@dataclass
class _Queue:
    """vLLM's waiting requests, summed over the replicas: one FIFO queue in front of `slots` per ready replica."""

    workload: Workload
    waiting: deque[float] = field(default_factory=deque)  # arrival times
    running: list[float] = field(default_factory=list)  # finish times (a heap)
    waits: list[float] = field(default_factory=list)
    carry: float = 0.0  # the fraction of a request arrived so far

    def step(self, t: float, ready: int) -> int:
        """Arrivals at `t`, then service on `ready` replicas; the number left waiting."""
        self.carry += self.workload.rate(t)
        arrived = int(self.carry)
        self.carry -= arrived
        self.waiting.extend([t] * arrived)
        while self.running and self.running[0] <= t:
            heapq.heappop(self.running)
        free = ready * self.workload.slots - len(self.running)
        while free > 0 and self.waiting:
            self.waits.append(t - self.waiting.popleft())
            heapq.heappush(self.running, t + self.workload.service_s)
            free -= 1
        return len(self.waiting)


@dataclass(frozen=True)
class SimulationResult:
    policy: str
    time_to_capacity_s: float | None  # from the burst's start until enough replicas serve
    needed_replicas: int
    peak_waiting: int
    p95_wait_s: float
    mean_wait_s: float
    served: int
    gpu_hours: float
    max_replicas_reached: int
    timeline: tuple[tuple[float, float, int, int, int], ...] = field(repr=False)  # t, rate, replicas, ready, waiting


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    i = min(len(sorted_values) - 1, max(0, math.ceil(q * len(sorted_values)) - 1))
    return sorted_values[i]


def _needed_replicas(workload: Workload, max_replicas: int) -> int:
    """Replicas that serve the workload's peak rate (at most the HPA's maximum)."""
    peak_rate = max(workload.rate(float(t)) for t in range(workload.seconds))
    return min(max_replicas, math.ceil(peak_rate / workload.replica_rps - 1e-9))


def _latest_visible(samples: Sequence[tuple[float, int]], t: float) -> int | None:
    """The last scraped value queryable at `t` (samples are (visible_at, value), in scrape order)."""
    visible = [v for at, v in samples if at <= t]
    return visible[-1] if visible else None


def simulate(
    scaled_object_spec: Mapping[str, Any],
    workload: Workload,
    paths: StartPaths,
    *,
    policy: str = "",
    start_replicas: int | None = None,
    ingestion_lag_s: float = INGESTION_LAG_S,
    scrape_phase_s: float = 0.0,
    sync_phase_s: float = 7.0,
    timeline_every_s: int = 5,
) -> SimulationResult:
    """Run `workload` against the HPA of `scaled_object_spec` (a ScaledObject's `spec`), one second a step:
    arrivals and service, then the scrape, then the HPA's sync on the latest sample it can see."""
    spec: HpaSpec = hpa_spec_from_scaled_object(scaled_object_spec)
    hpa = HpaModel(spec)
    replicas = start_replicas if start_replicas is not None else spec.min_replicas
    deployment = _Replicas(paths, [_Pod(-1e9, -1e9) for _ in range(replicas)], paths.warm_spares, paths.warm_nodes)
    queue = _Queue(workload)
    samples: list[tuple[float, int]] = []  # (visible_at, value)
    needed = _needed_replicas(workload, spec.max_replicas)
    capacity_at: float | None = None
    peak_waiting, max_reached, gpu_seconds = 0, replicas, 0.0
    timeline = []
    for step in range(workload.seconds):
        t = float(step)
        ready = deployment.ready(t)
        waiting = queue.step(t, ready)
        peak_waiting = max(peak_waiting, waiting)
        if capacity_at is None and t >= workload.burst_start_s and ready >= needed:
            capacity_at = t - workload.burst_start_s
        if (t - scrape_phase_s) % SCRAPE_INTERVAL_S == 0:
            samples.append((t + ingestion_lag_s, waiting))
        latest = _latest_visible(samples, t) if (t - sync_phase_s) % SYNC_PERIOD_S == 0 else None
        if latest is not None:
            deployment.scale_to(t, hpa.sync(t, len(deployment.pods), float(latest)))
            max_reached = max(max_reached, len(deployment.pods))
        gpu_seconds += (len(deployment.pods) + deployment.spares) * paths.gpus_per_replica
        if step % timeline_every_s == 0:
            timeline.append((t, workload.rate(t), len(deployment.pods), ready, waiting))
    waits = sorted(queue.waits)
    return SimulationResult(
        policy=policy,
        time_to_capacity_s=capacity_at,
        needed_replicas=needed,
        peak_waiting=peak_waiting,
        p95_wait_s=_percentile(waits, 0.95),
        mean_wait_s=sum(waits) / len(waits) if waits else 0.0,
        served=len(waits),
        gpu_hours=gpu_seconds / 3600.0,
        max_replicas_reached=max_reached,
        timeline=tuple(timeline),
    )


def spike_false_scale_ups(scaled_object_spec: Mapping[str, Any], *, spike_replicas: int = 10, phases: int = 6) -> int:
    """How many of `phases` scrape/sync alignments turn one scrape's spike into a scale-up (HPA alone)."""
    spec = hpa_spec_from_scaled_object(scaled_object_spec)
    count = 0
    for i in range(phases):
        start = 60 + i * SCRAPE_INTERVAL_S / phases

        def total(t: float, start: float = start) -> float:
            return spike_replicas * spec.target if start <= t < start + SCRAPE_INTERVAL_S else 0.0

        history = replicas_over_time(spec, total, start_replicas=spec.min_replicas, seconds=240)
        count += max(r for _, r in history) > spec.min_replicas
    return count


# The burst the README and bench/burst_simulation.py compare policies on (illustrative, not a measurement):
# 32 concurrent requests of 12 s per replica; 0.8 replicas' worth of traffic for 5 minutes, 9.5 replicas'
# worth (10 needed) for 30, then 0.8 again for 15; replicas 1 to 10 on 4 waiting requests per pod.
BURST_AUTOSCALING = Autoscaling(min_replicas=1, max_replicas=10, target=4.0)


def one_to_ten_burst() -> Workload:
    return step_burst(0.8, 9.5, before_s=300, during_s=1800, after_s=900)


def burst_comparison(
    plan: ServingPlan, pulled_plan: ServingPlan | None = None, *, warm_spares: int = 2
) -> dict[str, SimulationResult]:
    """The 1 -> 10 burst under the per-start-up policy (`previous_hpa_behavior`), the one-step policy, one step
    with warm spares and (given the same model planned with the image pulled from its registry, `pulled_plan`)
    one step without the node image snapshot the reference stack restores by default."""
    workload = one_to_ten_burst()
    b = scaling_behavior(plan)
    paths = start_paths(plan)
    cases: list[tuple[str, Mapping[str, object], StartPaths]] = [
        ("before (1 pod or 50% per start-up)", previous_hpa_behavior(b), paths),
        ("after (one step, 45 s window)", hpa_behavior(b), paths),
        (f"after + {warm_spares} warm spares", hpa_behavior(b), dataclasses.replace(paths, warm_spares=warm_spares)),
    ]
    if pulled_plan is not None:
        cases.append(
            ("after, image pulled (no snapshot)", hpa_behavior(scaling_behavior(pulled_plan)), start_paths(pulled_plan))
        )
    return {
        name: simulate(scaled_object_timing(BURST_AUTOSCALING, behavior), workload, case_paths, policy=name)
        for name, behavior, case_paths in cases
    }


def comparison_table(results: Mapping[str, SimulationResult]) -> str:
    """Markdown: time to capacity, peak waiting, p95 and mean wait, GPU-hours per policy."""
    rows = [
        "| policy | time to capacity | peak waiting | p95 wait | mean wait | GPU-hours |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results.values():
        ttc = "never" if r.time_to_capacity_s is None else f"{r.time_to_capacity_s:.0f} s"
        rows.append(
            f"| {r.policy} | {ttc} | {r.peak_waiting:,} | {r.p95_wait_s:.0f} s | {r.mean_wait_s:.0f} s "
            f"| {r.gpu_hours:.2f} |"
        )
    return "\n".join(rows)
