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

# A Karpenter node that launched but has not registered after this long is not coming: published launches
# register in 26-40 s (CPU, karpenter.sh's NodeClaim example) to about 80 s (GPU, "~70 seconds vs ~80
# seconds from instance launch to node registration", aws/karpenter-provider-aws#6128), and Karpenter itself
# gives up after 15 minutes (its registration TTL); 5 minutes is well past the first and leaves time to act
# before the second.
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


@dataclass(frozen=True)
class _Pod:
    """What each check reads: the pod's events, its container statuses, its node's NodeClaim events."""

    events: Sequence[K8sEvent]
    pod: Mapping[str, Any] | None
    node_claim_events: Sequence[K8sEvent]
    name: str
    namespace: str

    @property
    def statuses(self) -> list[Mapping[str, Any]]:
        return _statuses(self.pod)

    @property
    def waiting(self) -> set[str]:
        return {str((s.get("state") or {}).get("waiting", {}).get("reason", "")) for s in self.statuses}


def _oom_killed(p: _Pod) -> Blocker | None:
    for s in p.statuses:
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
    return None


def _image_pull(p: _Pod) -> Blocker | None:
    pulled = _latest(p.events, "Pulled")
    failed = _latest(p.events, "Failed", "ErrImagePull")
    failed = failed if failed and "pull" in failed.message.lower() else None
    backoff = _latest(p.events, "BackOff")
    backoff = backoff if backoff and "pulling image" in backoff.message.lower() else None
    if not (p.waiting & {"ImagePullBackOff", "ErrImagePull", "InvalidImageName"}) and not (
        _after(failed, pulled) or _after(backoff, pulled)
    ):
        return None
    evidence = failed or backoff
    return Blocker(
        "ImagePullBackOff",
        _one_line(evidence.message) if evidence else "the image cannot be pulled",
        "check the image name and tag, that the node role may pull it (ECR pull-through cache rule, "
        "registry credentials), and that the node can reach the registry",
        True,
    )


def _crash_loop(p: _Pod) -> Blocker | None:
    crash = _latest(p.events, "BackOff")
    crash = crash if crash and "restarting failed container" in crash.message.lower() else None
    if "CrashLoopBackOff" not in p.waiting and not _after(crash, _latest(p.events, "Started")):
        return None
    restarts = max((int(s.get("restartCount") or 0) for s in p.statuses), default=0)
    last_exit = next(
        (((s.get("lastState") or {}).get("terminated") or {}) for s in p.statuses if s.get("lastState")), {}
    )
    why = f"exit code {last_exit.get('exitCode')} ({last_exit.get('reason')})" if last_exit else "see its log"
    return Blocker(
        "CrashLoopBackOff",
        f"the container keeps exiting after it starts ({restarts} restarts; last: {why})",
        f"read why: kubectl logs {p.name} -n {p.namespace} --previous | "
        f".venv/bin/fastload coldstart - (the failure and the phase it happened in)",
        True,
    )


def _probe_killing(p: _Pod) -> Blocker | None:
    killed = _latest(p.events, "Killing")
    probe = _latest(p.events, "Unhealthy")
    if killed is None or "probe" not in killed.message.lower() or probe is None:
        return None
    return Blocker(
        "ProbeFailing",
        f"{_one_line(killed.message)}; last probe: {_one_line(probe.message)} (x{probe.count})",
        "the probe killed the server before it finished loading: compare the plan's startup-probe budget "
        "(fastload plan) with the time the log shows (fastload coldstart --pod ... --previous)",
        True,
    )


def _node_launch(p: _Pod) -> Blocker | None:
    failed = _latest(p.node_claim_events, "InsufficientCapacityError", "NodeClassNotReady", "FailedLaunch")
    if failed is None or _after(_latest(p.events, "Scheduled"), failed):
        return None
    return Blocker(
        "NodeLaunchFailed",
        f"{failed.reason} on nodeclaim/{failed.name}: {_one_line(failed.message)}",
        "Karpenter could not launch the GPU node: check the instance type's quota and availability in the "
        "region (Service Quotas: 'Running On-Demand G and VT instances'), or allow more types in the NodePool",
        False,
    )


def _node_not_joining(p: _Pod, claim: str) -> Blocker | None:
    """A NodeClaim that launched long ago and never registered: its kubelet cannot join."""
    launched = _latest([e for e in p.node_claim_events if e.name == claim], "Launched")
    registered = _latest([e for e in p.node_claim_events if e.name == claim], "Registered")
    newest = max((t for e in (*p.events, *p.node_claim_events) if (t := e.last or e.at) is not None), default=None)
    if launched is None or launched.at is None or registered is not None or newest is None:
        return None
    waited = (newest - launched.at).total_seconds()
    if waited <= NODE_JOIN_WARNING_S:
        return None
    return Blocker(
        "NodeNotJoining",
        f"nodeclaim/{claim} launched {waited:.0f} s before the latest event and has not registered",
        "the instance runs but its kubelet cannot join: check the node role's EKS access entry, the "
        "EC2NodeClass user data (nodeadm), and the subnet's route to the cluster endpoint "
        "(EC2 console: the instance's system log)",
        False,
    )


def _unschedulable(p: _Pod) -> Blocker | None:
    """FailedScheduling not yet followed by Scheduled: no node can take it, none is coming, or one is on its way."""
    unschedulable = _latest(p.events, "FailedScheduling")
    if unschedulable is None or _after(_latest(p.events, "Scheduled"), unschedulable):
        return None
    nominated = _latest(p.events, "Nominated", "NominatePod")
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
    return _node_not_joining(p, target.split(",")[0].removeprefix("nodeclaim/")) or Blocker(
        "WaitingForNode",
        f"Karpenter is bringing up {target}; the scheduler said: {_one_line(unschedulable.message, 200)}",
        f"wait, or follow the node: kubectl get nodeclaims; kubectl describe {target}",
        False,
    )


def _volumes(p: _Pod) -> Blocker | None:
    mount = _latest(p.events, "FailedMount", "FailedAttachVolume", "FailedCreatePodSandBox")
    if mount is None or _after(_latest(p.events, "Started"), mount):
        return None
    return Blocker(
        mount.reason,
        _one_line(mount.message),
        f"kubectl describe pod {p.name} -n {p.namespace} (volumes, the CNI plugin's IP addresses)",
        False,
    )


def _not_scheduled(p: _Pod) -> Blocker | None:
    """The pod's own PodScheduled=False condition, when no event said why."""
    conditions = ((p.pod or {}).get("status") or {}).get("conditions") or []
    unscheduled = next(
        (
            c
            for c in conditions
            if isinstance(c, Mapping) and c.get("type") == "PodScheduled" and c.get("status") == "False"
        ),
        None,
    )
    if unscheduled is None:
        return None
    return Blocker(
        "Unschedulable",
        _one_line(str(unscheduled.get("message") or unscheduled.get("reason") or "not scheduled")),
        "kubectl get nodepools; kubectl get nodeclaims; kubectl logs -n karpenter deploy/karpenter",
        False,
    )


def _not_ready_yet(p: _Pod) -> Blocker | None:
    probe = _latest(p.events, "Unhealthy")
    if probe is None or not _after(probe, _latest(p.events, "Started")):
        return None
    return Blocker(
        "NotReadyYet",
        f"{_one_line(probe.message, 200)} (x{probe.count})",
        f"still loading? follow it: kubectl logs -f {p.name} -n {p.namespace}",
        False,
    )


# The blockers, most decisive first: the first that applies is the reason.
_CHECKS = (
    _oom_killed,
    _image_pull,
    _crash_loop,
    _probe_killing,
    _node_launch,
    _unschedulable,
    _volumes,
    _not_scheduled,
    _not_ready_yet,
)


def diagnose_pod(
    events: Sequence[K8sEvent],
    pod: Mapping[str, Any] | None = None,
    node_claim_events: Sequence[K8sEvent] = (),
    *,
    pod_name: str = "POD",
    namespace: str = "NAMESPACE",
) -> Blocker | None:
    """The reason `pod_name` is not serving, or None when nothing blocks it (it may still be loading)."""
    state = _Pod(events, pod, node_claim_events, pod_name, namespace)
    return next((blocker for check in _CHECKS if (blocker := check(state)) is not None), None)
