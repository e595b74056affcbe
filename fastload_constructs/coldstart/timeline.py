"""One real scale-out, phase by phase, from Kubernetes events (and the pod's vLLM or SGLang log), beside the plan.

Boundaries, each the first occurrence of an event about the chosen pod or its node:

    pod created        the ReplicaSet's "Created pod: NAME" (else the pod's first event)
    node registered    Karpenter's NodeClaim `Registered` (else the Node's RegisteredNode/Starting)
    pod scheduled      the scheduler's `Scheduled` ("Successfully assigned ns/pod to NODE")
    image pulled       the kubelet's last `Pulled` before the engine's container started
    container started  the kubelet's `Started` of the engine's (vLLM's or SGLang's) container
    ready              the engine log's ready line (vLLM's "Application startup complete.", SGLang's "The server
                       is fired up and ready to roll!"), or the pod's Ready time

Phases are the intervals between them, so they add up to "pod created -> ready"; a boundary that
was not recorded merges its two neighbours into one row (named "a + b"), and a missing end is
"not recorded". The plan's fresh-node path (`core.planning.scale_out.ScaleOutPaths.fresh_node`) is beside each
row: node_launch, gpu_registration, image_pull, then the pod's process_start, weight_load, compile,
cuda_graph, kv_and_server (from the log, mapped as `fastload coldstart` maps them).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from fastload_constructs.coldstart.engine_log import EngineLog
from fastload_constructs.coldstart.events import K8sEvent
from fastload_constructs.coldstart.figures import MAX_BYTES, MAX_SECONDS, FigureOutOfRange, bounded, shown, whole
from fastload_constructs.coldstart.parser import DEFAULT, ENGINES, parse_log
from fastload_constructs.coldstart.report import PLAN_PHASES, ColdStartReport
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.planning.plan import ServingPlan

# The kubelet's Pulled message: 'Successfully pulled image "X" in 4m47.129s (5m3.623s including waiting).
# Image size: 16525161745 bytes.' (Go's time.Duration format; "including waiting" since Kubernetes 1.28.)
# A Go duration ends in its unit, so a message's closing period ("in 4.1s. Image size: ...") is not part of it.
_GO_TEXT = r"(?:\d+(?:\.\d+)?(?:h|ms|µs|us|ns|m|s))+"
_PULLED = re.compile(
    rf'Successfully pulled image "(?P<image>[^"]+)" in (?P<took>{_GO_TEXT})'
    rf"(?: \((?P<waiting>{_GO_TEXT}) including waiting\))?"
    r"(?:\. Image size: (?P<bytes>\d+) bytes)?"
)
_ALREADY_PRESENT = re.compile(r'Container image "(?P<image>[^"]+)" already present on machine')
_GO_DURATION = re.compile(r"(\d+(?:\.\d+)?)(h|ms|µs|us|ns|m|s)")
_GO_UNIT_S = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}
_ASSIGNED = re.compile(r"Successfully assigned (?P<pod>\S+) to (?P<node>\S+)")
# "Pod should schedule on: nodeclaim/NAME" (newer: ", node/NODE" after it; older: machine/NAME, or a node).
_NOMINATED = re.compile(r"should schedule on:? (?:(?P<kind>nodeclaim|machine|node)/)?(?P<name>[^\s,]+)")
_CREATED_POD = re.compile(r"Created pod: (?P<pod>\S+)")
_CONTAINER = re.compile(r"(?:Created|Started) container:? (?P<name>\S+)")
# A NodeClaim launched up to this long before the pod's first event can still be the pod's: Karpenter
# batches pending pods for 1 s (10 s at most) before it creates NodeClaims, and the pod's own first
# event may be recorded after the batch window opened.
_MATCH_SLACK_S = 10.0


def go_duration(text: str) -> float | None:
    """Go's time.Duration text ("1m2.3s", "313ms", "4m47.129s") -> seconds."""
    parts = _GO_DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(n) * _GO_UNIT_S[u] for n, u in parts)


@dataclass(frozen=True)
class ImagePull:
    image: str
    seconds: float | None  # None: already present on the node
    including_waiting_s: float | None
    size_bytes: int | None


@dataclass(frozen=True)
class Milestone:
    name: str
    at: datetime | None
    resolution_s: float
    evidence: str


@dataclass(frozen=True)
class TimelinePhase:
    name: str  # plan phase names joined by " + " when a boundary between them was not recorded
    seconds: float | None  # None: not recorded
    uncertainty_s: float
    predicted_s: float | None
    source: str  # "events", "vLLM log", "SGLang log"
    detail: str = ""


@dataclass(frozen=True)
class ScaleOutTimeline:
    pod: str
    namespace: str
    node_claim: str | None
    node: str | None
    milestones: tuple[Milestone, ...]
    phases: tuple[TimelinePhase, ...]
    total_s: float | None
    total_uncertainty_s: float
    predicted_total_s: float | None
    image_pulls: tuple[ImagePull, ...]
    problems: tuple[str, ...]
    notes: tuple[str, ...]


# A pod, image or container whose name holds an engine's name ("vllm", "sglang") serves a model.
SERVERS = " or ".join(engine.title for engine in ENGINES)  # "SGLang or vLLM"
_BY_NAME = {engine.name: engine for engine in ENGINES}


def _engine_named(*texts: str) -> EngineLog | None:
    """The engine whose name the texts hold (an image, a container, a pod name), first of ENGINES."""
    return next((engine for engine in ENGINES if any(engine.name in text.lower() for text in texts)), None)


@dataclass(frozen=True)
class PodSeen:
    name: str
    namespace: str
    created: datetime | None
    engine: EngineLog | None  # the engine its image, container or name names

    @property
    def is_server(self) -> bool:
        return self.engine is not None


def pods_in(events: Sequence[K8sEvent]) -> dict[str, PodSeen]:
    """Every pod the dump mentions (by its own events or a ReplicaSet's "Created pod"), with its creation."""
    created: dict[str, datetime | None] = {}
    namespaces: dict[str, str] = {}
    servers: dict[str, EngineLog] = {}
    for e in events:
        if e.kind == "Pod" and e.name:
            namespaces.setdefault(e.name, e.namespace)
            seen = created.get(e.name)
            created[e.name] = e.at if seen is None else (min(seen, e.at) if e.at is not None else seen)
            engine = _engine_named(e.message, e.field_path, e.name)
            if engine is not None:
                servers.setdefault(e.name, engine)
    for e in events:
        found = _CREATED_POD.search(e.message) if e.reason == "SuccessfulCreate" else None
        if found and e.at is not None:
            name = found["pod"]
            created[name] = e.at
            namespaces.setdefault(name, e.namespace)
            engine = _engine_named(name)
            if engine is not None:
                servers.setdefault(name, engine)
    return {name: PodSeen(name, namespaces.get(name, ""), at, servers.get(name)) for name, at in created.items()}


def listed_pods(events: Sequence[K8sEvent]) -> str:
    """The pods the events mention, for a message (the first ten)."""
    return ", ".join(sorted(pods_in(events))[:10]) or "none"


def server_pod(events: Sequence[K8sEvent]) -> PodSeen | None:
    """The newest pod serving a model (image, container or name of an engine), else the only pod, else None."""
    pods = pods_in(events)
    candidates = [p for p in pods.values() if p.is_server] or (list(pods.values()) if len(pods) == 1 else [])
    return max(candidates, key=lambda p: (p.created or datetime.min, p.name), default=None)


def select_pod(events: Sequence[K8sEvent], pod: str | None) -> PodSeen:
    """The pod named `pod`, else `server_pod`."""
    pods = pods_in(events)
    if pod is not None:
        if pod not in pods:
            raise FastloadConfigError("--pod", pod, f"a pod the events mention (found: {listed_pods(events)})")
        return pods[pod]
    chosen = server_pod(events)
    if chosen is None:
        raise FastloadConfigError(
            "pod", None, f"a pod name: no {SERVERS} pod in the events (pods: {listed_pods(events)})"
        )
    return chosen


def _first(events: Sequence[K8sEvent], *reasons: str) -> K8sEvent | None:
    found = [e for e in events if e.reason in reasons and e.at is not None]
    return min(found, key=lambda e: e.at or datetime.min) if found else None


def _pulled(event: K8sEvent, found: re.Match[str]) -> ImagePull:
    """One Pulled message's figures: a duration Go did not print reads as none; a figure out of range is refused."""
    durations = []
    for text in (found["took"], found["waiting"]):
        seconds = go_duration(text) if text else None
        if seconds is not None and bounded(seconds, MAX_SECONDS) is None:
            raise FigureOutOfRange(f"Pulled on pod/{event.name}", shown(text), f"a time from 0 to {MAX_SECONDS:.0f} s")
        durations.append(seconds)
    size = whole(found["bytes"], int(MAX_BYTES)) if found["bytes"] else None
    if found["bytes"] and size is None:
        raise FigureOutOfRange(f"Pulled on pod/{event.name}", shown(found["bytes"]), "an image size up to 1 PiB")
    return ImagePull(found["image"], durations[0], durations[1], size)


def image_pulls(pod_events: Sequence[K8sEvent]) -> list[ImagePull]:
    """The kubelet's own timing of each pull ("in X", "Image size: N bytes"); a figure out of range is refused."""
    pulls: list[ImagePull] = []
    for e in pod_events:
        if e.reason != "Pulled":
            continue
        found = _PULLED.search(e.message)
        if found:
            pulls.append(_pulled(e, found))
        elif already := _ALREADY_PRESENT.search(e.message):
            pulls.append(ImagePull(already["image"], None, None, None))
    return pulls


def _container_name(event: K8sEvent) -> str:
    """The container an event is about: its field path (spec.containers{NAME}) or its message."""
    if "{" in event.field_path:
        return event.field_path.split("{", 1)[1].rstrip("}")
    found = _CONTAINER.search(event.message)
    return found["name"] if found else ""


def _main_container_event(pod_events: Sequence[K8sEvent], reason: str) -> K8sEvent | None:
    """The engine container's Created/Started: named after an engine, else the regular container started last."""
    found = [e for e in pod_events if e.reason == reason and e.at is not None]
    if not found:
        return None
    main = [e for e in found if "initContainers" not in e.field_path]
    named = [e for e in main if _engine_named(_container_name(e)) is not None]
    pool = named or main or found
    return min(pool, key=lambda e: e.at or datetime.min) if named else max(pool, key=lambda e: e.at or datetime.min)


def _node_claim(
    events: Sequence[K8sEvent], pod_events: Sequence[K8sEvent], created: datetime | None, scheduled: K8sEvent | None
) -> tuple[str | None, str]:
    """The NodeClaim launched for this pod: Karpenter's Nominated event names it; else matched by time."""
    end = scheduled.at if scheduled else None
    nominations = [e for e in pod_events if e.reason in ("Nominated", "NominatePod") and e.at is not None]
    if end is not None:
        nominations = [e for e in nominations if e.at is not None and e.at <= end] or nominations
    for e in sorted(nominations, key=lambda e: e.last or e.at or datetime.min, reverse=True):
        found = _NOMINATED.search(e.message)
        if found and found["kind"] in (None, "nodeclaim", "machine"):
            return found["name"], "named by Karpenter's Nominated event"
    launched = [
        e
        for e in events
        if e.kind in ("NodeClaim", "Machine")
        and e.reason == "Launched"
        and e.at is not None
        and (created is None or e.at >= created - timedelta(seconds=_MATCH_SLACK_S))
        and (end is None or e.at <= end)
    ]
    if launched:
        chosen = max(launched, key=lambda e: e.at or datetime.min)
        return chosen.name, "matched by time (no Nominated event names it)"
    return None, ""


def _milestone(name: str, event: K8sEvent | None) -> Milestone:
    if event is None:
        return Milestone(name, None, 0.0, "not recorded")
    what = f"{event.kind.lower()}/{event.name}" if event.name else event.kind
    return Milestone(name, event.at, event.resolution_s, f"{event.reason} on {what}: {event.message}"[:300])


def _at_offset(anchor: Milestone, seconds: float, name: str, evidence: str) -> Milestone:
    assert anchor.at is not None
    return Milestone(name, anchor.at + timedelta(seconds=seconds), anchor.resolution_s, evidence)


def container_started(events: Sequence[K8sEvent], pod: str | None = None) -> K8sEvent | None:
    """The kubelet's Started event of the chosen pod's engine container: where its log's clock starts."""
    chosen = select_pod(events, pod)
    return _main_container_event([e for e in events if e.kind == "Pod" and e.name == chosen.name], "Started")


# vLLM prints its first line within seconds of the process starting (image entrypoint, Python imports);
# a log whose first line comes more than 10 minutes after the container's Started event is on another
# clock (or from another container start), so its process-start phase is left out.
MAX_PROCESS_START_S = 600.0


def parse_pod_log(
    text: str | bytes, started: K8sEvent | None, label: str = "log"
) -> tuple[ColdStartReport, str | None]:
    """The pod's engine log, timed from the container's Started event when both clocks are comparable: the
    log carries a collector prefix (`kubectl logs --timestamps`, UTC) and the event has a real time (not a
    table age). Otherwise the log's own durations only, with a note saying why."""
    report = parse_log(text, label=label)
    if started is None or started.at is None or started.from_table:
        return report, None
    if report.clock != "collector":
        return report, "the log has no collector timestamps (kubectl logs --timestamps): process start left out"
    try:
        timed = parse_log(text, label=label, started_at=started.at)
    except FastloadConfigError as exc:
        if exc.field != "started_at":
            raise
        return report, "the container's Started event is after the log's first line: process start left out"
    if timed.seconds("process_start") > MAX_PROCESS_START_S:
        return report, (
            f"the log's first line is {timed.seconds('process_start'):.0f} s after the container started: "
            "another clock or another start, process start left out"
        )
    return timed, None


@dataclass(frozen=True)
class _PodEvents:
    """The events that bound one pod's phases: what `build_timeline` selects before it measures anything."""

    pod: PodSeen
    events: list[K8sEvent]  # the pod's own
    created: K8sEvent | None
    created_by_replica_set: bool
    scheduled: K8sEvent | None
    node: str | None
    claim: str | None
    claim_how: str
    launched: K8sEvent | None
    registered: K8sEvent | None
    registered_by_node: bool  # the Node's own event stands in for the NodeClaim's Registered
    initialized: K8sEvent | None
    started: K8sEvent | None
    pulled: K8sEvent | None
    other_containers: list[K8sEvent]  # init containers and sidecars started before the engine's container

    @property
    def fresh_node(self) -> bool:
        """A node was launched for the pod (Karpenter nominated one, or it could not be scheduled at first)."""
        return bool(self.claim) or any(e.reason == "FailedScheduling" for e in self.events)


def _created(events: Sequence[K8sEvent], pod: PodSeen, pod_events: list[K8sEvent]) -> tuple[K8sEvent | None, bool]:
    """The ReplicaSet's "Created pod: NAME" (True), else the pod's first event (False)."""
    for e in events:
        if e.reason == "SuccessfulCreate" and (m := _CREATED_POD.search(e.message)) and m["pod"] == pod.name:
            return e, True
    return min((e for e in pod_events if e.at is not None), key=lambda e: e.at or datetime.min, default=None), False


def _node_milestones(
    events: Sequence[K8sEvent], claim: str | None, node: str | None
) -> tuple[K8sEvent | None, K8sEvent | None, bool, K8sEvent | None]:
    """(launched, registered, registered by the Node's own event, initialized): the NodeClaim's events, else the
    Node's."""
    claim_events = [e for e in events if claim and e.kind in ("NodeClaim", "Machine") and e.name == claim]
    node_events = [e for e in events if node and e.kind == "Node" and e.name == node]
    registered = _first(claim_events, "Registered")
    by_node = False
    if registered is None and node_events:
        registered = _first(node_events, "RegisteredNode") or _first(node_events, "Starting")
        by_node = registered is not None
    initialized = _first(claim_events, "Initialized")
    if initialized is None and node_events:
        initialized = _first(node_events, "NodeReady")
    return _first(claim_events, "Launched"), registered, by_node, initialized


def _last_pull(pod_events: Sequence[K8sEvent], started: K8sEvent | None) -> K8sEvent | None:
    """The kubelet's last Pulled before the engine's container started (any Pulled when none came before)."""
    pulled = [e for e in pod_events if e.reason == "Pulled" and e.at is not None]
    if started is not None and started.at is not None:
        pulled = [e for e in pulled if e.at is not None and e.at <= started.at] or pulled
    return max(pulled, key=lambda e: e.at or datetime.min) if pulled else None


def _other_containers(pod_events: Sequence[K8sEvent], started: K8sEvent | None) -> list[K8sEvent]:
    main_name = _container_name(started) if started is not None else ""
    return [
        e
        for e in pod_events
        if e.reason == "Started"
        and e is not started
        and ("initContainers" in e.field_path or (main_name and _container_name(e) not in ("", main_name)))
    ]


def _select(events: Sequence[K8sEvent], pod: str | None) -> _PodEvents:
    chosen = select_pod(events, pod)
    pod_events = [e for e in events if e.kind == "Pod" and e.name == chosen.name]
    created, by_replica_set = _created(events, chosen, pod_events)
    scheduled = _first(pod_events, "Scheduled")
    claim, claim_how = _node_claim(events, pod_events, created.at if created else None, scheduled)
    node = m["node"] if scheduled and (m := _ASSIGNED.search(scheduled.message)) else None
    launched, registered, registered_by_node, initialized = _node_milestones(events, claim, node)
    started = _main_container_event(pod_events, "Started")
    return _PodEvents(
        chosen,
        pod_events,
        created,
        by_replica_set,
        scheduled,
        node,
        claim,
        claim_how,
        launched,
        registered,
        registered_by_node,
        initialized,
        started,
        _last_pull(pod_events, started),
        _other_containers(pod_events, started),
    )


# The boundaries the phases run between, and the plan's phases that end at each (after the first).
_BOUNDARIES = ("pod created", "node registered", "pod scheduled", "image pulled", "container started")
_ENDING_AT: list[tuple[str, ...]] = [(), ("node_launch",), ("gpu_registration",), ("image_pull",), ("container_start",)]


def _points(seen: _PodEvents) -> list[Milestone]:
    bounds = (seen.created, seen.registered, seen.scheduled, seen.pulled, seen.started)
    return [_milestone(name, event) for name, event in zip(_BOUNDARIES, bounds, strict=True)]


def _log_rows(log: ColdStartReport | None) -> list[tuple[str, float | None]]:
    """The log's phases in the plan's names; a phase the log has no line for (no compile with --enforce-eager)
    is "not recorded" (None), not 0."""
    return [] if log is None else list(log.plan_phase_seconds.items())


def _ready(
    started: Milestone, log: ColdStartReport | None, ready_at: datetime | None, engine: EngineLog
) -> Milestone | None:
    """Ready: the container's start plus the log's time to ready, else the pod's Ready time when known."""
    if log is not None and log.ready and started.at is not None:
        return _at_offset(started, log.total_s, "ready", f"{engine.title} log: {engine.ready_line}")
    return Milestone("ready", ready_at, 1.0, "the pod's Ready condition") if ready_at is not None else None


def _on_existing_node(phases: list[TimelinePhase]) -> list[TimelinePhase]:
    """The fresh-node path's node phases do not apply to a pod placed on a running node."""
    return [
        dataclasses.replace(p, predicted_s=None, detail=f"{p.detail} (existing node)")
        if set(p.name.split(" + ")) & {"node_launch", "gpu_registration"}
        else p
        for p in phases
    ]


def _selection_notes(seen: _PodEvents, engine: EngineLog) -> list[str]:
    """What the events did not record, and how the rest was matched."""
    notes: list[str] = []
    if seen.created is not None and not seen.created_by_replica_set:
        notes.append("pod creation not recorded (no ReplicaSet SuccessfulCreate event): timed from its first event")
    if seen.claim:
        notes.append(f"node: nodeclaim/{seen.claim}, {seen.claim_how}")
    if seen.registered_by_node and seen.registered is not None:
        notes.append(f"registration from the Node's {seen.registered.reason} event (no NodeClaim Registered)")
    if not seen.fresh_node and seen.scheduled is not None:
        notes.append(
            "no node was launched for this pod (no Nominated or FailedScheduling): it went to an existing node"
        )
    if seen.other_containers and seen.pulled is not None:
        names = ", ".join(sorted({_container_name(e) or "?" for e in seen.other_containers}))
        notes.append(
            f"{len(seen.other_containers)} other container(s) started before the {engine.title} container "
            f"({names}): their run time is inside image_pull; the kubelet's own pull times are listed below"
        )
    return notes


def _log_notes(log: ColdStartReport | None, engine: EngineLog) -> list[str]:
    if log is None:
        return []
    notes: list[str] = []
    if not log.ready:
        why = f"{log.failure or 'no root cause logged'} (in {log.failed_in})"
        notes.append(f"the {engine.title} log never got ready: {why}")
    if not any(p.name == "process_start" for p in log.phases):
        notes.append("the log's clock is not the events' clock: process start is counted from its first line")
    return notes + [f"the {engine.title} log: {note}" for note in log.notes]


def _table_note(seen: _PodEvents) -> list[str]:
    if not any(e.from_table for e in seen.events):
        return []
    return [
        "times come from kubectl's relative ages (whole seconds below 10 minutes, minutes below 3 hours): "
        "a phase is good to about a second, or to the ± shown"
    ]


def build_timeline(
    events: Sequence[K8sEvent],
    pod: str | None = None,
    log: ColdStartReport | None = None,
    plan: ServingPlan | None = None,
    ready_at: datetime | None = None,
) -> ScaleOutTimeline:
    """The phases of one pod's scale-out; `log` is its engine log's report (parsed with the container's
    start time when the log's clock is comparable), `ready_at` the pod's Ready time when known.

    Select the events that bound the phases, measure between them, then explain what was missing."""
    seen = _select(events, pod)
    points = _points(seen)
    started = points[-1]
    engine = _BY_NAME.get(log.engine, DEFAULT) if log is not None else (seen.pod.engine or DEFAULT)
    ready = _ready(started, log, ready_at, engine)
    pod_log = _PodLog(_log_rows(log), log is not None and log.ready and started.at is not None, engine)
    phases, out_of_order = _phases(points, _ENDING_AT, pod_log, ready, plan)
    if not seen.fresh_node:
        phases = _on_existing_node(phases)
    created = points[0]
    total: float | None = None
    total_unc = 0.0
    if ready is not None and ready.at is not None and created.at is not None:
        total = max(0.0, (ready.at - created.at).total_seconds())  # a Ready time before the pod: a clock went back
        total_unc = created.resolution_s + ready.resolution_s
    extra = [
        _milestone("nodeclaim launched", seen.launched),
        _milestone("node initialized", seen.initialized),
        _milestone("image pulling", _first(seen.events, "Pulling")),
    ]
    milestones = tuple(sorted([m for m in points + extra if m.at is not None], key=lambda m: m.at or datetime.min))
    return ScaleOutTimeline(
        pod=seen.pod.name,
        namespace=seen.pod.namespace,
        node_claim=seen.claim,
        node=seen.node,
        milestones=milestones + ((ready,) if ready is not None else ()),
        phases=tuple(phases),
        total_s=round(total, 3) if total is not None else None,
        total_uncertainty_s=total_unc,
        predicted_total_s=plan.scale_out_paths.fresh_node.total_s if plan and plan.scale_out_paths else None,
        image_pulls=tuple(image_pulls(seen.events)),
        problems=tuple(
            f"{e.reason}: {e.message}"[:300]
            for e in seen.events
            if e.type == "Warning" and e.reason != "FailedScheduling"
        ),
        notes=(*_selection_notes(seen, engine), *_log_notes(log, engine), *out_of_order, *_table_note(seen)),
    )


def _predicted(plan: ServingPlan | None, names: Sequence[str]) -> float | None:
    if plan is None or plan.scale_out_paths is None:
        return None
    path = plan.scale_out_paths.fresh_node
    known = {n for n, _ in path.phases}
    if not any(n in known for n in names):
        return None
    return sum(path.seconds(n) for n in names)


def _between_events(
    points: list[Milestone], between: list[tuple[str, ...]], plan: ServingPlan | None
) -> tuple[list[TimelinePhase], Milestone | None, list[str], list[str]]:
    """The phases between consecutive recorded boundaries; a boundary not recorded merges its neighbours.
    Also returns the last recorded boundary, the plan phases still open after it, and notes on disorder."""
    phases: list[TimelinePhase] = []
    notes: list[str] = []
    last_known: Milestone | None = points[0] if points[0].at is not None else None
    pending: list[str] = []
    for point, names in zip(points[1:], between[1:], strict=True):
        pending += names
        if point.at is None or last_known is None or last_known.at is None:
            if last_known is None and point.at is not None:
                last_known, pending = point, []
            continue
        seconds = (point.at - last_known.at).total_seconds()
        if seconds < 0:  # the recording component's clock went back (a fresh node's, corrected by NTP)
            notes.append(
                f"{point.name} is recorded {-seconds:g} s before {last_known.name}: a clock went back between them "
                f"(a fresh node's, set by NTP?); {' + '.join(pending)} counted as 0"
            )
            seconds = 0.0
        phases.append(
            TimelinePhase(
                " + ".join(pending),
                round(seconds, 3),
                last_known.resolution_s + point.resolution_s,
                _predicted(plan, pending),
                "events",
                f"{last_known.name} -> {point.name}",
            )
        )
        last_known, pending = point, []
    if pending:
        phases.append(
            TimelinePhase(" + ".join(pending), None, 0.0, _predicted(plan, pending), "events", "not recorded")
        )
    return phases, last_known, pending, notes


@dataclass(frozen=True)
class _PodLog:
    """The pod's log as the timeline reads it: its phases in the plan's names, whether the events place it
    (it got ready and the container's start is recorded), and the engine that wrote it (which names its rows)."""

    rows: list[tuple[str, float | None]]
    placed: bool
    engine: EngineLog

    @property
    def source(self) -> str:
        return f"{self.engine.title} log"


def _in_the_pod(
    last_known: Milestone | None, pod_log: _PodLog, ready: Milestone | None, plan: ServingPlan | None
) -> list[TimelinePhase]:
    """The pod's own phases after its container started: the log's when the events place it, else one span
    from the events to ready, else the log's durations alone, else "not recorded"."""
    pod_names = list(PLAN_PHASES)
    log_rows = pod_log.rows
    log_phases = [
        TimelinePhase(name, None if s is None else round(s, 3), 0.0, _predicted(plan, [name]), pod_log.source)
        for name, s in log_rows
    ]
    if log_rows and pod_log.placed:
        return log_phases
    if ready is not None and ready.at is not None and last_known is not None and last_known.at is not None:
        return [
            TimelinePhase(
                " + ".join(pod_names),
                round(max(0.0, (ready.at - last_known.at).total_seconds()), 3),
                last_known.resolution_s + ready.resolution_s,
                _predicted(plan, pod_names),
                "events",
                f"{last_known.name} -> ready (give the pod's log for the {pod_log.engine.title} phases)",
            )
        ]
    if log_rows and any(s is not None for _, s in log_rows):
        return log_phases  # the log's own durations, even when the events cannot place them
    return [
        TimelinePhase(
            " + ".join(pod_names),
            None,
            0.0,
            _predicted(plan, pod_names),
            pod_log.source,
            f"not recorded (give the pod's {pod_log.source})",
        )
    ]


def _phases(
    points: list[Milestone],
    between: list[tuple[str, ...]],
    pod_log: _PodLog,
    ready: Milestone | None,
    plan: ServingPlan | None,
) -> tuple[list[TimelinePhase], list[str]]:
    """Every phase from pod creation to ready, and notes on boundaries recorded out of order."""
    phases, last_known, pending, notes = _between_events(points, between, plan)
    if pending:  # the events end before the container started: the pod's phases cannot be placed
        return phases + _in_the_pod(None, dataclasses.replace(pod_log, placed=False), None, plan), notes
    return phases + _in_the_pod(last_known, pod_log, ready, plan), notes


# The evidence printed beside a milestone (JSON keeps it whole, up to 300 characters).
_EVIDENCE_SHOWN = 160


def render_timeline(t: ScaleOutTimeline) -> str:
    """A table: the milestones, then each phase with the plan's fresh-node prediction beside it."""
    origin = next((m.at for m in t.milestones if m.name == "pod created"), None) or (
        t.milestones[0].at if t.milestones else None
    )
    lines = [
        f"pod {t.namespace + '/' if t.namespace else ''}{t.pod}"
        + (f" on node {t.node}" if t.node else "")
        + (f" (nodeclaim/{t.node_claim})" if t.node_claim else "")
    ]
    lines.append("")
    lines.append("milestones (seconds after the pod was created)")
    for m in t.milestones:
        offset = (m.at - origin).total_seconds() if m.at is not None and origin is not None else None
        approx = f" ±{m.resolution_s:g}" if m.resolution_s > 1 else ""
        when = f"{offset:+9.1f}{approx}" if offset is not None else f"{'-':>9}"
        evidence = m.evidence if len(m.evidence) <= _EVIDENCE_SHOWN else m.evidence[: _EVIDENCE_SHOWN - 3] + "..."
        lines.append(f"  {when:>14}  {m.name:<20} {evidence}")
    lines.append("")
    width = max([len(p.name) for p in t.phases] + [len("total to ready")])
    lines.append(f"  {'phase':<{width}}  {'actual s':>12}  {'plan s':>8}  {'diff':>7}  from")
    lines.append(f"  {'-' * width}  {'-' * 12}  {'-' * 8}  {'-' * 7}  ----")

    def cell(seconds: float | None, unc: float) -> str:
        if seconds is None:
            return "not recorded"
        return f"{seconds:.1f}" + (f" ±{unc:g}" if unc > 2 else "")

    def diff(actual: float | None, predicted: float | None) -> str:
        if actual is None or predicted is None or predicted == 0:
            return "-"
        return f"{(actual - predicted) / predicted * 100:+.0f}%"

    for p in t.phases:
        predicted = f"{p.predicted_s:.1f}" if p.predicted_s is not None else "-"
        lines.append(
            f"  {p.name:<{width}}  {cell(p.seconds, p.uncertainty_s):>12}  {predicted:>8}  "
            f"{diff(p.seconds, p.predicted_s):>7}  {p.source}{': ' + p.detail if p.detail else ''}"
        )
    predicted_total = f"{t.predicted_total_s:.1f}" if t.predicted_total_s is not None else "-"
    lines.append(
        f"  {'total to ready':<{width}}  {cell(t.total_s, t.total_uncertainty_s):>12}  {predicted_total:>8}  "
        f"{diff(t.total_s, t.predicted_total_s):>7}"
    )
    if t.image_pulls:
        lines.append("")
        lines.append("image pulls (the kubelet's own timing)")
        for pull in t.image_pulls:
            if pull.seconds is None:
                lines.append(f"  {pull.image}: already on the node")
                continue
            size = (
                f", {pull.size_bytes / 1e9:.2f} GB ({pull.size_bytes / 1e6 / pull.seconds:.0f} MB/s)"
                if (pull.size_bytes and pull.seconds)
                else ""
            )
            waiting = f" ({pull.including_waiting_s:.1f} s including waiting)" if pull.including_waiting_s else ""
            lines.append(f"  {pull.image}: {pull.seconds:.1f} s{waiting}{size}")
    for title, items in (("warnings on the pod", t.problems), ("notes", t.notes)):
        if items:
            lines.append("")
            lines.append(title)
            lines += [f"  - {item}" for item in items]
    return "\n".join(lines)
