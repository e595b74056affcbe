"""Kubernetes events (what the scheduler, the kubelet and Karpenter record) -> typed `K8sEvent`s.

Three inputs are read, all pure text:

* `kubectl get events -o json` (an EventList, a bare list, or one Event), in both API forms:
  core/v1 (`involvedObject`, `firstTimestamp`/`lastTimestamp`/`count`, `message`) and
  events.k8s.io/v1 (`regarding`, `eventTime`, `series.count`/`series.lastObservedTime`, `note`,
  `deprecatedFirstTimestamp`...). An aggregated event keeps its first and last occurrence.
* `kubectl get events` / `kubectl events` tables (LAST SEEN, TYPE, REASON, OBJECT, MESSAGE; with
  NAMESPACE for `-A`; `-o wide` adds FIRST SEEN and COUNT).
* the `Events:` block of `kubectl describe pod|nodeclaim|node` (Type, Reason, Age, From, Message;
  "3s (x3 over 13s)"). The object is the one described: its `Name:` (and `Kind:`) line above.

Tables carry ages ("2m55s", "31m") relative to when kubectl ran, not times: they are turned into
times before an arbitrary common anchor, so only differences are meaningful, and each time keeps
its resolution (kubectl prints seconds below 10 minutes, whole minutes below 3 hours, then hours),
which the timeline reports as the uncertainty of every phase measured from them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from fastload_constructs.coldstart.figures import MAX_COUNT, FigureOutOfRange, shown, whole
from fastload_constructs.core.errors import FastloadConfigError

# Ages in a table are subtracted from this anchor: a fixed, obviously synthetic moment, so a table's
# times never pass for wall-clock times (the timeline prints them relative to the pod's creation).
TABLE_ANCHOR = datetime(2000, 1, 1)
# A dump larger than this is refused before parsing (a real namespace's events are a few MB at most;
# the API server keeps them one hour by default).
MAX_INPUT_CHARS = 64 * 1024 * 1024
# The name given to the object of a `kubectl describe` Events block pasted without its Name: line.
UNNAMED = "(unnamed)"
# Times outside these bounds are not event times (Go's zero time marks an unset field); keeping them
# out also keeps every later subtraction of seconds inside datetime's range.
_EARLIEST = datetime(1971, 1, 1)
_LATEST = datetime(9000, 1, 1)
# kubectl prints ages up to years; more than a century is no age (and would leave datetime's range).
_MAX_AGE_S = 100 * 365 * 86400
_AGE_PART = re.compile(r"(\d+)([smhdy])")
_AGE_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "y": 365 * 86400}
_REPEATED = re.compile(r"^(?P<last>\S+)\s+\(x(?P<count>\d+) over (?P<first>\S+)\)$")


@dataclass(frozen=True)
class K8sEvent:
    """One recorded event about one object; `first`/`last` are naive UTC (or table-anchored) times."""

    kind: str  # the object's kind: Pod, NodeClaim, Node, ReplicaSet, ... ("" when not recorded)
    name: str
    namespace: str
    reason: str
    message: str
    type: str  # Normal or Warning
    first: datetime | None
    last: datetime | None
    count: int = 1
    source: str = ""  # kubelet, default-scheduler, karpenter, ...
    field_path: str = ""  # spec.containers{vllm}, spec.initContainers{...}: JSON only
    # Seconds either time may be off by: 1 for RFC 3339 seconds, 0.000001 for eventTime, the age's
    # unit for tables (60 for "31m").
    resolution_s: float = 1.0
    from_table: bool = False

    @property
    def at(self) -> datetime | None:
        """When it first happened (the moment a phase boundary means)."""
        return self.first or self.last


def _timestamp(value: object) -> tuple[datetime | None, float]:
    """An RFC 3339 time as naive UTC, and its resolution in seconds."""
    if not isinstance(value, str) or not value.strip():
        return None, 1.0
    text = value.strip().replace("Z", "+00:00")
    try:
        parsed = datetime.fromisoformat(text)
        if parsed.tzinfo is not None:
            parsed = parsed.astimezone(timezone.utc).replace(tzinfo=None)
    except (ValueError, OverflowError):
        return None, 1.0
    if not _EARLIEST <= parsed <= _LATEST:  # Go's zero time ("0001-01-01T00:00:00Z") means "not set"
        return None, 1.0
    return parsed, (1e-6 if "." in value else 1.0)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _count(value: object, where: str) -> int:
    """An event's count: 1 when it holds none (null, 0, not a whole number), refused above MAX_COUNT."""
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return 1
    if value > MAX_COUNT:
        raise FigureOutOfRange(where, shown(value), f"a count from 1 to {MAX_COUNT:,}")
    return value


def _count_text(text: str, where: str) -> int:
    """A count a table prints (its digits)."""
    count = whole(text, MAX_COUNT)
    if count is None:
        raise FigureOutOfRange(where, shown(text), f"a count from 1 to {MAX_COUNT:,}")
    return max(count, 1)


def event_from_dict(raw: dict[str, Any], where: str = "event") -> K8sEvent:
    """One Event object (core/v1 or events.k8s.io/v1) -> K8sEvent; `where` names it in a refusal."""
    regarding = raw.get("involvedObject") or raw.get("regarding") or {}
    if not isinstance(regarding, dict):
        regarding = {}
    series = raw.get("series") if isinstance(raw.get("series"), dict) else {}
    assert isinstance(series, dict)
    metadata = raw.get("metadata") if isinstance(raw.get("metadata"), dict) else {}
    assert isinstance(metadata, dict)
    first, first_res = _timestamp(raw.get("firstTimestamp") or raw.get("deprecatedFirstTimestamp"))
    event_time, event_res = _timestamp(raw.get("eventTime"))
    last, last_res = _timestamp(raw.get("lastTimestamp") or raw.get("deprecatedLastTimestamp"))
    observed, observed_res = _timestamp(series.get("lastObservedTime"))
    created, created_res = _timestamp(metadata.get("creationTimestamp"))
    if first is None:
        first, first_res = (event_time, event_res) if event_time is not None else (created, created_res)
    if last is None:
        last, last_res = (observed, observed_res) if observed is not None else (first, first_res)
    count_key = next((k for k in ("count", "deprecatedCount") if raw.get(k)), None)
    count = (
        _count(raw[count_key], f"{where}.{count_key}")
        if count_key
        else _count(series.get("count"), f"{where}.series.count")
    )
    source = raw.get("source") if isinstance(raw.get("source"), dict) else {}
    assert isinstance(source, dict)
    return K8sEvent(
        kind=_text(regarding.get("kind")),
        name=_text(regarding.get("name")),
        namespace=_text(regarding.get("namespace")) or _text(metadata.get("namespace")),
        reason=_text(raw.get("reason")),
        message=_container_prefix(_text(raw.get("message")) or _text(raw.get("note")))[0],
        type=_text(raw.get("type")) or "Normal",
        first=first,
        last=last,
        count=count,
        source=_text(source.get("component")) or _text(raw.get("reportingController")),
        field_path=_text(regarding.get("fieldPath")),
        resolution_s=max(first_res, last_res),
    )


def parse_events_json(text: str) -> list[K8sEvent]:
    """`kubectl get events -o json` text -> events; FastloadConfigError when it is not an event list."""
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise FastloadConfigError("events", text[:80], f"kubectl's JSON event list ({exc})") from None
    items: Iterable[Any]
    if isinstance(raw, dict) and isinstance(raw.get("items"), list):
        items, where = raw["items"], "items"
    elif isinstance(raw, list):
        items, where = raw, ""
    elif isinstance(raw, dict) and ("reason" in raw or "involvedObject" in raw or "regarding" in raw):
        return [event_from_dict(raw)]
    else:
        raise FastloadConfigError("events", text[:80], "an EventList (kubectl get events -o json)")
    return [event_from_dict(item, f"{where}[{i}]") for i, item in enumerate(items) if isinstance(item, dict)]


# `kubectl get events -o yaml`: a List (or one Event) with the same fields as -o json.
_YAML_START = re.compile(r"^(apiVersion|kind|items):", re.MULTILINE)


def parse_events_yaml(text: str) -> list[K8sEvent]:
    """`kubectl get events -o yaml` text -> events (a prompt line such as "% kubectl ..." before it is skipped)."""
    import yaml  # a runtime dependency (pyproject); imported here so JSON and tables never need it

    body = text[_YAML_START.search(text).start() :] if _YAML_START.search(text) else text  # type: ignore[union-attr]
    try:
        raw = yaml.safe_load(body)
    except yaml.YAMLError as exc:
        raise FastloadConfigError(
            "events", text[:80], f"kubectl's YAML event list ({' '.join(str(exc).split())[:200]})"
        ) from None
    return parse_events_json(json.dumps(raw, default=str))


def parse_age(text: str) -> tuple[float, float] | None:
    """kubectl's age ("2m55s", "31m", "3h", "5d") -> (seconds, resolution); None for "<unknown>"."""
    parts = _AGE_PART.findall(text.strip())
    if not parts or "".join(n + u for n, u in parts) != text.strip() or any(len(n) > 12 for n, _ in parts):
        return None
    seconds = sum(int(n) * _AGE_SECONDS[u] for n, u in parts)
    if seconds > _MAX_AGE_S:
        return None
    return float(seconds), float(_AGE_SECONDS[parts[-1][1]])


def _time_cell(cell: str) -> tuple[datetime | None, datetime | None, int, float, bool]:
    """A time cell: RFC 3339 (custom columns) or an age -> (first, last, count, resolution, relative)."""
    at, resolution = _timestamp(cell.strip()) if _RFC3339.match(cell.strip()) else (None, 1.0)
    if at is not None:
        return at, at, 1, resolution, False
    return (*_age_cell(cell), True)


def _age_cell(cell: str) -> tuple[datetime | None, datetime | None, int, float]:
    """An age cell, plain or "3s (x3 over 13s)" -> (first, last, count, resolution)."""
    cell = cell.strip()
    repeated = _REPEATED.match(cell)
    count = 1
    last_text = first_text = cell
    if repeated:
        last_text, first_text = repeated["last"], repeated["first"]
        count = _count_text(repeated["count"], f"age '{cell[:40]}'")
    last_age, first_age = parse_age(last_text), parse_age(first_text)
    if last_age is None and first_age is None:
        return None, None, count, 1.0
    last_age = last_age or first_age
    first_age = first_age or last_age
    assert last_age is not None and first_age is not None
    return (
        TABLE_ANCHOR - timedelta(seconds=first_age[0]),
        TABLE_ANCHOR - timedelta(seconds=last_age[0]),
        count,
        max(first_age[1], last_age[1]),
    )


_OBJECT = re.compile(r"^(?P<kind>[a-z0-9.]+)/(?P<name>.+)$")
# Resource names as kubectl prints them in OBJECT -> the kind in JSON.
_KINDS = {
    "pod": "Pod",
    "nodeclaim": "NodeClaim",
    "node": "Node",
    "replicaset": "ReplicaSet",
    "deployment": "Deployment",
    "horizontalpodautoscaler": "HorizontalPodAutoscaler",
    "nodepool": "NodePool",
    "machine": "Machine",
    "scaledobject": "ScaledObject",
}


def _split_row(line: str, columns: int) -> list[str]:
    """Cells are separated by two or more spaces (kubectl's tabwriter pads with at least three)."""
    cells = re.split(r"\s{2,}", line.strip(), maxsplit=columns - 1)
    return cells + [""] * (columns - len(cells))


def _table_rows(lines: list[str], header_at: int) -> list[list[str]]:
    header = [h.strip() for h in re.split(r"\s{2,}", lines[header_at].strip())]
    rows: list[list[str]] = []
    for line in lines[header_at + 1 :]:
        if not line.strip() or set(line.strip()) <= {"-", " "}:
            if rows and not line.strip():
                break
            continue
        if rows and _SECTION_MARK.match(line):  # "---- next command ----", "# ...", a shell prompt: table ends
            break
        rows.append(_split_row(line, len(header)))
    return [header, *rows]


# Lines that end a table pasted among other output: a section rule, a comment, a shell prompt.
_SECTION_MARK = re.compile(r"^\s*(?:-{3,}\s*\S|={3,}|#|[$%>] )")


def _kind_of(resource: str) -> str:
    base = resource.split(".", 1)[0]
    return _KINDS.get(base, base[:1].upper() + base[1:])


# Column names kubectl and custom-columns dumps use for times.
_LAST_COLUMNS = ("LAST SEEN", "LAST_SEEN", "LASTSEEN", "TIME", "LAST TIMESTAMP", "LASTTIMESTAMP", "TIMESTAMP")
_FIRST_COLUMNS = ("FIRST SEEN", "FIRST_SEEN", "FIRSTSEEN", "FIRST TIMESTAMP", "FIRSTTIMESTAMP")
_RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
_ASSIGNED_POD = re.compile(r"Successfully assigned (?:[^/\s]+/)?(?P<pod>\S+) to ")
# Reasons recorded on other objects than pods, for tables without an OBJECT column.
_OTHER_KINDS = {
    "SuccessfulCreate": "ReplicaSet",
    "ScalingReplicaSet": "Deployment",
    "Launched": "NodeClaim",
    "Registered": "NodeClaim",
    "Initialized": "NodeClaim",
    "DisruptionBlocked": "NodeClaim",
    "SuccessfulRescale": "HorizontalPodAutoscaler",
    "KEDAScaleTargetActivated": "ScaledObject",
    "KEDAScaleTargetDeactivated": "ScaledObject",
}


def _column(cell: dict[str, str], names: tuple[str, ...]) -> str | None:
    return next((cell[n] for n in names if n in cell), None)


def _objectless(events: list[K8sEvent]) -> list[K8sEvent]:
    """Rows of a table without an OBJECT column: the kind from the reason, the pod's name from its
    Scheduled message when the table holds one pod (a custom-columns dump of one pod's events)."""
    pods = {m["pod"] for e in events if e.reason == "Scheduled" and (m := _ASSIGNED_POD.search(e.message))}
    pod = pods.pop() if len(pods) == 1 else UNNAMED
    out = []
    for e in events:
        if e.kind or e.name:
            out.append(e)
        elif e.reason in _OTHER_KINDS:
            out.append(replace(e, kind=_OTHER_KINDS[e.reason], name=UNNAMED))
        else:
            out.append(replace(e, kind="Pod", name=pod))
    return out


def _from_get_table(lines: list[str], header_at: int) -> list[K8sEvent]:
    header, *rows = _table_rows(lines, header_at)
    index = {name: i for i, name in enumerate(header)}
    events: list[K8sEvent] = []
    for row in rows:
        cell = {name: row[i] if i < len(row) else "" for name, i in index.items()}
        first, last, count, resolution, relative = _time_cell(_column(cell, _LAST_COLUMNS) or "")
        if events and first is None and cell.get("TYPE", "").strip() not in ("Normal", "Warning"):
            # A message with a newline continues on the next line, which has no time and no TYPE cell.
            previous = events[-1]
            events[-1] = replace(previous, message=f"{previous.message} {' '.join(row).strip()}".strip())
            continue
        found = _OBJECT.match(cell.get("OBJECT", "").strip())
        kind, name = (_kind_of(found["kind"]), found["name"]) if found else ("", "")
        first_cell = _column(cell, _FIRST_COLUMNS)
        if first_cell:  # -o wide, or a custom column
            wide_first, _, _, wide_res, _ = _time_cell(first_cell)
            first, resolution = wide_first or first, max(resolution, wide_res)
        if cell.get("COUNT", "").strip().isdigit():
            count = _count_text(cell["COUNT"].strip(), f"row {len(events) + 1} COUNT")
        message, field_path = _container_prefix(cell.get("MESSAGE", "").strip(), cell.get("SUBOBJECT", "").strip())
        events.append(
            K8sEvent(
                kind=kind,
                name=name,
                namespace=cell.get("NAMESPACE", "").strip(),
                reason=cell.get("REASON", "").strip(),
                message=message,
                type=_event_type(cell.get("TYPE", ""), cell.get("REASON", "").strip()),
                first=first,
                last=last,
                count=count,
                source=cell.get("SOURCE", "").strip(),
                field_path=field_path,
                resolution_s=resolution,
                from_table=relative,
            )
        )
    return events if "OBJECT" in index else _objectless(events)


# Newer kubelets prefix a container's event with its field path: "spec.containers{vllm}: Container started".
_FIELD_PREFIX = re.compile(r"^(?P<path>spec\.(?:initContainers|containers|ephemeralContainers)\{[^}]*\}):\s*")


def _container_prefix(message: str, field_path: str = "") -> tuple[str, str]:
    found = _FIELD_PREFIX.match(message)
    if found is None:
        return message, field_path
    return message[found.end() :], field_path or found["path"]


_DESCRIBE_FIELD = re.compile(r"^(?P<key>Name|Namespace|Kind|Controlled By|Containers|Node):\s*(?P<value>.*)$")
# Reasons only ever recorded on pods (scheduler, kubelet, Karpenter's nomination).
_POD_REASONS = frozenset(
    {
        "Scheduled",
        "FailedScheduling",
        "Nominated",
        "NominatePod",
        "Pulling",
        "Pulled",
        "Created",
        "Started",
        "Killing",
        "BackOff",
        "Unhealthy",
        "FailedMount",
        "FailedCreatePodSandBox",
    }
)
_NODECLAIM_REASONS = frozenset({"Launched", "Registered", "Initialized"})
# Reasons the kubelet and the scheduler record as Warning, for tables without a TYPE column.
_WARNING_REASONS = frozenset(
    {"FailedScheduling", "Unhealthy", "Failed", "BackOff", "FailedMount", "FailedCreatePodSandBox", "ErrImagePull"}
)


def _event_type(cell: str, reason: str) -> str:
    cell = cell.strip()
    if cell:
        return cell
    return "Warning" if reason in _WARNING_REASONS else "Normal"


# The kubelet's and the node controller's reasons on a Node.
_NODE_REASONS = frozenset({"Starting", "RegisteredNode", "NodeReady", "NodeAllocatableEnforced", "Synced"})


def _from_describe(lines: list[str], header_at: int) -> list[K8sEvent]:
    """The `Events:` block under a `kubectl describe` header (Name:, Kind: ... above it)."""
    fields: dict[str, str] = {}
    for line in lines[:header_at]:
        found = _DESCRIBE_FIELD.match(line.strip()) if line[:1] not in (" ", "\t") or "Kind:" in line else None
        if found and found["key"] not in fields:
            fields[found["key"]] = found["value"].strip()
    header, *rows = _table_rows(lines, header_at)
    index = {name: i for i, name in enumerate(header)}
    reasons = {row[index["Reason"]].strip() for row in rows if "Reason" in index}
    kind = fields.get("Kind", "")
    if not kind:
        if "Containers" in fields or reasons & _POD_REASONS:
            kind = "Pod"
        elif reasons & _NODECLAIM_REASONS:
            kind = "NodeClaim"
        elif reasons & _NODE_REASONS:
            kind = "Node"
    events: list[K8sEvent] = []
    for row in rows:
        cell = {name: row[i] if i < len(row) else "" for name, i in index.items()}
        first, last, count, resolution = _age_cell(cell.get("Age", ""))
        message, field_path = _container_prefix(cell.get("Message", "").strip())
        events.append(
            K8sEvent(
                kind=kind,
                # An Events block pasted without its describe header still describes one object.
                name=fields.get("Name", "") or UNNAMED,
                namespace=fields.get("Namespace", ""),
                reason=cell.get("Reason", "").strip(),
                message=message,
                field_path=field_path,
                type=cell.get("Type", "").strip() or "Normal",
                first=first,
                last=last,
                count=count,
                source=cell.get("From", "").strip(),
                resolution_s=resolution,
                from_table=True,
            )
        )
    return events


def _is_get_header(line: str) -> bool:
    cells = [c.strip() for c in re.split(r"\s{2,}", line.strip())]
    return "REASON" in cells and "MESSAGE" in cells and any(c in cells for c in _LAST_COLUMNS)


def _is_describe_header(line: str) -> bool:
    cells = [c.strip() for c in re.split(r"\s{2,}", line.strip())]
    return cells[:2] == ["Type", "Reason"] and "Message" in cells


_AGE_CELL = r"(?P<age>\S+(?: \(x\d+ over \S+\))?)"
# Rows without their header, as `kubectl events | grep ...` and `kubectl describe pod | grep ...` print them.
_GET_ROW = re.compile(
    r"^(?:(?P<namespace>[a-z0-9-]+)\s{2,})?" + _AGE_CELL + r"\s{2,}(?P<type>Normal|Warning)\s{2,}(?P<reason>\S+)\s{2,}"
    r"(?P<object>[a-z0-9.]+/\S+)\s{2,}(?P<message>.*)$"
)
_DESCRIBE_ROW = re.compile(
    r"^\s*(?P<type>Normal|Warning)\s{2,}(?P<reason>\S+)\s{2,}"
    + _AGE_CELL
    + r"\s{2,}(?P<source>\S+)\s{2,}(?P<message>.*)$"
)


# A custom-columns dump whose header was cut off: TIME [TYPE] REASON MESSAGE.
_TIMED_ROW = re.compile(
    r"^(?P<time>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z)\s{2,}(?:(?P<type>Normal|Warning)\s{2,})?"
    r"(?P<reason>[A-Za-z]+)\s{2,}(?P<message>.*)$"
)


def _headerless_timed(lines: list[str]) -> list[K8sEvent]:
    events: list[K8sEvent] = []
    for line in lines:
        row = _TIMED_ROW.match(line.strip())
        if row is None:
            continue
        at, resolution = _timestamp(row["time"])
        message, field_path = _container_prefix(row["message"].strip())
        events.append(
            K8sEvent(
                kind="",
                name="",
                namespace="",
                reason=row["reason"],
                message=message,
                type=_event_type(row["type"] or "", row["reason"]),
                first=at,
                last=at,
                field_path=field_path,
                resolution_s=resolution,
            )
        )
    return _objectless(events) if events else []


def _headerless(lines: list[str]) -> list[K8sEvent]:
    timed = _headerless_timed(lines)
    if timed:
        return timed
    events: list[K8sEvent] = []
    for line in lines:
        row = _GET_ROW.match(line.strip()) or _DESCRIBE_ROW.match(line)
        if row is None:
            if events and line.startswith(" ") and line.strip():  # a wrapped message continues
                events[-1] = replace(events[-1], message=f"{events[-1].message} {line.strip()}")
            continue
        first, last, count, resolution = _age_cell(row["age"])
        # A describe row names no object: a pod's reasons make it the (unnamed) pod described.
        kind, name = ("Pod", UNNAMED) if row["reason"] in _POD_REASONS else ("", "")
        groups = row.groupdict()
        if groups.get("object"):
            found = _OBJECT.match(groups["object"])
            if found:
                kind, name = _kind_of(found["kind"]), found["name"]
        message, field_path = _container_prefix(row["message"].strip())
        events.append(
            K8sEvent(
                kind=kind,
                name=name,
                namespace=groups.get("namespace") or "",
                reason=row["reason"],
                message=message,
                field_path=field_path,
                type=row["type"],
                first=first,
                last=last,
                count=count,
                source=groups.get("source") or "",
                resolution_s=resolution,
                from_table=True,
            )
        )
    return events


def parse_events_table(text: str) -> list[K8sEvent]:
    """`kubectl get events` tables and `kubectl describe` Events blocks (several may follow each other)."""
    lines = text.splitlines()
    events: list[K8sEvent] = []
    start = 0  # each describe block reads its Name:/Kind: from the lines since the previous block
    for number, line in enumerate(lines):
        if _is_get_header(line):
            events += _from_get_table(lines, number)
        elif _is_describe_header(line):
            events += _from_describe(lines[start:], number - start)
            start = number + 1
        elif line.startswith("Name:"):
            start = number
    if not events:
        events = _headerless(lines)
    if not events:
        raise FastloadConfigError(
            "events",
            text[:80],
            "kubectl get events output (-o json, or its table with LAST SEEN/TYPE/REASON/OBJECT/MESSAGE), "
            "or the Events: block of kubectl describe",
        )
    return events


def parse_events(text: str) -> list[K8sEvent]:
    """JSON when it looks like JSON, else a table; events sorted by when they first happened."""
    if len(text) > MAX_INPUT_CHARS:
        raise FastloadConfigError("events", f"{len(text)} characters", f"at most {MAX_INPUT_CHARS} characters")
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        events = parse_events_json(stripped)
    elif _YAML_START.search(text):
        events = parse_events_yaml(text)
    else:
        events = parse_events_table(text)
    return sorted(events, key=lambda e: (e.at or datetime.min, e.last or datetime.min))
