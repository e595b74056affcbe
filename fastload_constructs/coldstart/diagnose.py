"""Why a pod is not serving yet: the blocking reason from its events and its status, and what to try next.

Pure: the inputs are parsed events (`coldstart.events`) and the pod's JSON (`kubectl get pod -o json`).
A problem the pod has since got past (a failed pull followed by a successful one, a FailedScheduling
before it was scheduled) is not blamed. The most decisive blocker wins, in this order: the container
was OOM-killed; its image cannot be pulled; it crash-loops; probes kill it; the node for it failed to
launch; it cannot be scheduled (with or without a node coming from Karpenter); volumes or sandbox.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from fastload_constructs.coldstart.events import K8sEvent

# A Karpenter node that launched but has not registered after this long is not coming: published EKS
# launches register in 29-65 s (issue 26), and Karpenter itself gives up after 15 minutes
# (its registration TTL); 5 minutes is well past the first and leaves time to act before the second.
NODE_JOIN_WARNING_S = 300.0


@dataclass(frozen=True)
class Blocker:
    code: str  # OOMKilled, ImagePullBackOff, CrashLoopBackOff, ProbeFailing, NodeLaunchFailed, ...
    message: str  # what Kubernetes says, one line
    next_step: str
    decisive: bool  # waiting longer will not fix it


def _latest(events: Sequence[K8sEvent], *reasons: str) -> K8sEvent | None:
    found = [e for e in events if e.reason in reasons and (e.last or e.at) is not None]
    return max(found, key=lambda e: e.last or e.at or datetime.min) if found else None


def _after(event: K8sEvent | None, than: K8sEvent | None) -> bool:
    """`event` happened (last) no earlier than `than` (first): it is still current."""
    if event is None:
        return False
    if than is None:
        return True
    return (event.last or event.at or datetime.min) >= (than.at or datetime.min)


def _statuses(pod: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    if not pod:
        return []
    status = pod.get("status") or {}
    return [
        s
        for s in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or [])
        if isinstance(s, Mapping)
    ]


def _one_line(text: str, limit: int = 400) -> str:
    return " ".join(text.split())[:limit]


def diagnose_pod(
    events: Sequence[K8sEvent],
    pod: Mapping[str, Any] | None = None,
    node_claim_events: Sequence[K8sEvent] = (),
    *,
    pod_name: str = "POD",
    namespace: str = "NAMESPACE",
) -> Blocker | None:
    """The reason `pod_name` is not serving, or None when nothing blocks it (it may still be loading)."""
    statuses = _statuses(pod)
    for s in statuses:
        terminated = (s.get("lastState") or {}).get("terminated") or (s.get("state") or {}).get("terminated") or {}
        if terminated.get("reason") == "OOMKilled":
            return Blocker(
                "OOMKilled",
                f"container {s.get('name')} was OOM-killed (exit code {terminated.get('exitCode')}, "
                f"restarts {s.get('restartCount', 0)})",
                "the container ran out of its memory limit while loading: raise the pod's memory limit, or lower "
                "the streamer's buffer (RUNAI_STREAMER_MEMORY_LIMIT; with TP it is shared by the node's ranks)",
                True,
            )
    pulled = _latest(events, "Pulled")
    pull_failed = _latest(events, "Failed", "ErrImagePull")
    pull_failed = pull_failed if pull_failed and "pull" in pull_failed.message.lower() else None
    pull_backoff = _latest(events, "BackOff")
    pull_backoff = pull_backoff if pull_backoff and "pulling image" in pull_backoff.message.lower() else None
    waiting = {str((s.get("state") or {}).get("waiting", {}).get("reason", "")) for s in statuses}
    if (
        waiting & {"ImagePullBackOff", "ErrImagePull", "InvalidImageName"}
        or _after(pull_failed, pulled)
        or (_after(pull_backoff, pulled))
    ):
        evidence = pull_failed or pull_backoff
        return Blocker(
            "ImagePullBackOff",
            _one_line(evidence.message) if evidence else "the image cannot be pulled",
            "check the image name and tag, that the node role may pull it (ECR pull-through cache rule, "
            "registry credentials), and that the node can reach the registry",
            True,
        )
    started = _latest(events, "Started")
    crash = _latest(events, "BackOff")
    crash = crash if crash and "restarting failed container" in crash.message.lower() else None
    restarts = max((int(s.get("restartCount") or 0) for s in statuses), default=0)
    if "CrashLoopBackOff" in waiting or _after(crash, started):
        last_exit = next(
            (((s.get("lastState") or {}).get("terminated") or {}) for s in statuses if s.get("lastState")), {}
        )
        why = f"exit code {last_exit.get('exitCode')} ({last_exit.get('reason')})" if last_exit else "see its log"
        return Blocker(
            "CrashLoopBackOff",
            f"the container keeps exiting after it starts ({restarts} restarts; last: {why})",
            f"read why: kubectl logs {pod_name} -n {namespace} --previous | "
            f".venv/bin/fastload coldstart - (the failure and the phase it happened in)",
            True,
        )
    killed = _latest(events, "Killing")
    probe = _latest(events, "Unhealthy")
    if killed is not None and "probe" in killed.message.lower() and probe is not None:
        return Blocker(
            "ProbeFailing",
            f"{_one_line(killed.message)}; last probe: {_one_line(probe.message)} (x{probe.count})",
            "the probe killed the server before it finished loading: compare the plan's startup-probe budget "
            "(fastload plan) with the time the log shows (fastload coldstart --pod ... --previous)",
            True,
        )
    failed_claim = _latest(node_claim_events, "InsufficientCapacityError", "NodeClassNotReady", "FailedLaunch")
    scheduled = _latest(events, "Scheduled")
    unschedulable = _latest(events, "FailedScheduling")
    if failed_claim is not None and not _after(scheduled, failed_claim):
        return Blocker(
            "NodeLaunchFailed",
            f"{failed_claim.reason} on nodeclaim/{failed_claim.name}: {_one_line(failed_claim.message)}",
            "Karpenter could not launch the GPU node: check the instance type's quota and availability in the "
            "region (Service Quotas: 'Running On-Demand G and VT instances'), or allow more types in the NodePool",
            False,
        )
    if unschedulable is not None and not _after(scheduled, unschedulable):
        nominated = _latest(events, "Nominated", "NominatePod")
        if nominated is None and unschedulable.source != "karpenter":
            return Blocker(
                "NoNodeLaunched",
                f"FailedScheduling: {_one_line(unschedulable.message)}; Karpenter nominated no node for it",
                "Karpenter launched no node: check `kubectl get nodepools` (limits, requirements), "
                "`kubectl get nodeclaims`, and the controller's log: kubectl logs -n karpenter deploy/karpenter",
                False,
            )
        if unschedulable.source == "karpenter" or "incompatible" in unschedulable.message:
            return Blocker(
                "NoNodeLaunched",
                f"Karpenter: {_one_line(unschedulable.message)}",
                "no NodePool can run this pod: compare its requests, node selector and tolerations with the "
                "NodePools (kubectl get nodepools -o yaml)",
                True,
            )
        target = nominated.message.split("on:")[-1].strip() if nominated else "a node"
        claim = target.split(",")[0].removeprefix("nodeclaim/")
        launched = _latest([e for e in node_claim_events if e.name == claim], "Launched")
        registered = _latest([e for e in node_claim_events if e.name == claim], "Registered")
        times = [t for e in (*events, *node_claim_events) if (t := e.last or e.at) is not None]
        newest = max(times, default=None)
        if launched is not None and launched.at is not None and registered is None and newest is not None:
            waited = (newest - launched.at).total_seconds()
            if waited > NODE_JOIN_WARNING_S:
                return Blocker(
                    "NodeNotJoining",
                    f"nodeclaim/{claim} launched {waited:.0f} s before the latest event and has not registered",
                    "the instance runs but its kubelet cannot join: check the node role's EKS access entry, the "
                    "EC2NodeClass user data (nodeadm), and the subnet's route to the cluster endpoint "
                    "(EC2 console: the instance's system log)",
                    False,
                )
        return Blocker(
            "WaitingForNode",
            f"Karpenter is bringing up {target}; the scheduler said: {_one_line(unschedulable.message, 200)}",
            f"wait, or follow the node: kubectl get nodeclaims; kubectl describe {target}",
            False,
        )
    mount = _latest(events, "FailedMount", "FailedAttachVolume", "FailedCreatePodSandBox")
    if mount is not None and not _after(started, mount):
        return Blocker(
            mount.reason,
            _one_line(mount.message),
            f"kubectl describe pod {pod_name} -n {namespace} (volumes, the CNI plugin's IP addresses)",
            False,
        )
    conditions = ((pod or {}).get("status") or {}).get("conditions") or []
    unscheduled = next(
        (
            c
            for c in conditions
            if isinstance(c, Mapping) and c.get("type") == "PodScheduled" and c.get("status") == "False"
        ),
        None,
    )
    if unscheduled is not None:
        return Blocker(
            "Unschedulable",
            _one_line(str(unscheduled.get("message") or unscheduled.get("reason") or "not scheduled")),
            "kubectl get nodepools; kubectl get nodeclaims; kubectl logs -n karpenter deploy/karpenter",
            False,
        )
    if probe is not None and _after(probe, started):
        return Blocker(
            "NotReadyYet",
            f"{_one_line(probe.message, 200)} (x{probe.count})",
            f"still loading? follow it: kubectl logs -f {pod_name} -n {namespace}",
            False,
        )
    return None
