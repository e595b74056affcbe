"""Immutable model revisions: how a staged model is laid out under its prefix, and which revisions may go.

Layout under a model prefix `s3://bucket/<prefix>`:

* `revisions/<id>/...`: one staging of the model, written once and never modified.
  Its `fastload-manifest.json` is written last, so a revision with a manifest is complete.
* `fastload-current.json`: the pointer, naming the revision pods load. Switching it is
  one conditional PUT (If-Match on the pointer's ETag), so publishing is atomic and two
  publishers cannot both win.

A pod reads the pointer once, in its first init container, and from then on reads only
that revision: the streamer's `s3://` path, the node-local copy and the compile-cache
key all come from it. So a restage or a rollback never changes bytes under a running
or starting pod, and two stagers at once each write their own revision: whichever
publishes, the published revision holds one run's bytes only.

A prefix staged before revisions (files and manifest at the top level, no pointer) is
still served as it is. Pure: no boto3; `s3/revisions.py` does the requests and
`runtime/revision.py` (stdlib only, in the pod) reads the pointer with the same rules,
which a test holds equal.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone

from fastload_constructs.core.errors import FastloadConfigError, require

REVISIONS_FOLDER = "revisions"
POINTER_NAME = "fastload-current.json"
POINTER_VERSION = 1
# `<UTC time>-<8 hex of the run's id>`: sorts by staging time, unique per run.
REVISION_ID = re.compile(r"^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$")
# How many past publications the pointer remembers (for rollback and for when a revision stopped
# being current, which collection needs); older ones only cost bytes in every pod's first GET.
HISTORY_LIMIT = 50
# Collection keeps this many complete revisions besides the current and the pinned ones.
DEFAULT_KEEP = 3
# A revision stops being read once every pod that resolved it has loaded it. A pod resolves the
# pointer in its first init container and has loaded the weights when its start-up probe passes,
# which the chart bounds by the plan's start-up budget (`HttpProbe.budget_seconds`). Collection
# waits this long after a revision stopped being current (and after an unpublished one was last
# written); the default is a round figure, not a measurement: pass a grace longer than your
# pods' start-up budget (`fastload plan` prints it) if it is longer.
DEFAULT_GRACE_S = 6 * 3600


def new_revision_id(now: datetime, run_id: str) -> str:
    """`YYYYMMDDTHHMMSSZ-<first 8 hex of run_id>` for a staging run started at `now`."""
    require(re.fullmatch(r"[0-9a-f]{8,}", run_id) is not None, "run_id", run_id, "at least 8 lowercase hex characters")
    return f"{now.astimezone(timezone.utc):%Y%m%dT%H%M%SZ}-{run_id[:8]}"


def check_revision_id(value: object, field_name: str = "revision") -> str:
    require(
        isinstance(value, str) and REVISION_ID.fullmatch(value) is not None,
        field_name,
        value,
        "a revision id such as 20261203T101500Z-1a2b3c4d (see `fastload revisions list`)",
    )
    assert isinstance(value, str)
    return value


def revision_prefix(model_prefix: str, revision: str) -> str:
    """The key prefix of one revision under a model prefix."""
    return f"{model_prefix.strip('/')}/{REVISIONS_FOLDER}/{check_revision_id(revision)}"


def require_model_prefix(prefix: str, uri: str, field_name: str = "s3_uri") -> None:
    """Refuse a URI that is (or is inside) a revision folder: staging or publishing there would write into
    a revision, which pods stream whole (every *.safetensors under it) and which is never to change."""
    parts = prefix.strip("/").split("/")
    inside = any(parts[i] == REVISIONS_FOLDER and REVISION_ID.fullmatch(parts[i + 1]) for i in range(len(parts) - 1))
    require(
        not inside,
        field_name,
        uri,
        "a model prefix, not a revision folder or a path inside one (revisions are written once: "
        "stage, publish and collect at the prefix above revisions/)",
    )


def stamp(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_stamp(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return None


@dataclass(frozen=True)
class Publication:
    """One revision's time as the current one: from `since` until `until` (None: still current)."""

    revision: str
    since: datetime
    until: datetime | None = None


@dataclass(frozen=True)
class Pointer:
    """What `fastload-current.json` says: the current revision, whether it is pinned, and past publications."""

    revision: str
    since: datetime
    pinned: bool = False
    history: tuple[Publication, ...] = field(default=())

    def to_json(self) -> bytes:
        return (
            json.dumps(
                {
                    "fastload_pointer_version": POINTER_VERSION,
                    "revision": self.revision,
                    "since": stamp(self.since),
                    "pinned": self.pinned,
                    "history": [
                        {"revision": p.revision, "since": stamp(p.since), "until": stamp(p.until) if p.until else None}
                        for p in self.history
                    ],
                },
                indent=2,
            ).encode()
            + b"\n"
        )

    def switched_to(self, revision: str, now: datetime, *, pinned: bool) -> Pointer:
        """The pointer after publishing `revision` at `now`: this one goes into the history."""
        check_revision_id(revision)
        if revision == self.revision:
            return Pointer(revision, self.since, pinned, self.history)
        ended = Publication(self.revision, self.since, now)
        return Pointer(revision, now, pinned, (ended, *self.history)[:HISTORY_LIMIT])

    def previous(self) -> str | None:
        """The revision that was current before this one (what a rollback goes back to)."""
        for past in self.history:
            if past.revision != self.revision:
                return past.revision
        return None

    def stopped_being_current(self) -> dict[str, datetime]:
        """When each past revision was last current (its latest `until`)."""
        out: dict[str, datetime] = {}
        for past in self.history:
            if past.until is not None and (past.revision not in out or past.until > out[past.revision]):
                out[past.revision] = past.until
        return out


def first_pointer(revision: str, now: datetime, *, pinned: bool = False) -> Pointer:
    return Pointer(check_revision_id(revision), now, pinned, ())


def parse_pointer(body: bytes, where: str = POINTER_NAME) -> Pointer:
    """Read a pointer; raises FastloadConfigError naming what is wrong (a pod refuses the same bodies)."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep
        raise FastloadConfigError(where, str(exc)[:80], "a fastload pointer (JSON)") from None
    require(isinstance(data, dict), where, type(data).__name__, "a JSON object")
    assert isinstance(data, dict)
    version = data.get("fastload_pointer_version")
    require(
        type(version) is int and version == POINTER_VERSION,
        f"{where}.fastload_pointer_version",
        data.get("fastload_pointer_version"),
        f"{POINTER_VERSION} (written by this fastload)",
    )
    revision = check_revision_id(data.get("revision"), f"{where}.revision")
    since = parse_stamp(data.get("since"))
    require(since is not None, f"{where}.since", data.get("since"), "a UTC time such as 2026-12-03T10:15:00Z")
    assert since is not None
    history = []
    raw = data.get("history", [])
    require(isinstance(raw, list), f"{where}.history", type(raw).__name__, "a list")
    for i, entry in enumerate(raw):
        here = f"{where}.history[{i}]"
        require(isinstance(entry, dict), here, entry, "an object with revision, since and until")
        past_since, until = parse_stamp(entry.get("since")), parse_stamp(entry.get("until"))
        require(past_since is not None, f"{here}.since", entry.get("since"), "a UTC time")
        assert past_since is not None
        history.append(Publication(check_revision_id(entry.get("revision"), f"{here}.revision"), past_since, until))
    pinned = data.get("pinned", False)
    require(isinstance(pinned, bool), f"{where}.pinned", pinned, "true or false")
    return Pointer(revision, since, pinned, tuple(history))


@dataclass(frozen=True)
class RevisionInfo:
    """One revision folder as listed: complete (has its manifest) or not, and when it was last written."""

    revision: str
    complete: bool
    last_written: datetime
    objects: int = 0
    bytes: int = 0


@dataclass(frozen=True)
class Collection:
    """What a collection would delete (oldest written first), and why each revision it keeps stays."""

    delete: tuple[str, ...]
    keep: dict[str, str]


def _newest_reason(keep: int) -> str:
    """Why a rollback target is kept, counted as `--keep` counts: besides the current revision."""
    if keep == 1:
        return "the newest besides the current one (--keep 1)"
    return f"one of the {keep} newest besides the current one (--keep {keep})"


def choose_collection(
    revisions: list[RevisionInfo],
    pointer: Pointer | None,
    now: datetime,
    *,
    keep: int = DEFAULT_KEEP,
    grace_s: float = DEFAULT_GRACE_S,
) -> Collection:
    """Which revisions no pod can still be reading, beyond the `keep` newest complete ones.

    Kept: the current (and pinned) revision; the `keep` newest other complete revisions (for
    rollback); any revision current less than `grace_s` ago (a pod that resolved it just before
    the switch may still be loading it); any revision written to less than `grace_s` ago (a stage
    may be writing it, or about to publish it). Everything else goes, incomplete ones included.
    """
    require(isinstance(keep, int) and not isinstance(keep, bool) and keep >= 0, "keep", keep, "a whole number >= 0")
    require(
        isinstance(grace_s, (int, float)) and not isinstance(grace_s, bool) and grace_s >= 0,
        "grace",
        grace_s,
        "a number of seconds >= 0",
    )
    stopped = pointer.stopped_being_current() if pointer else {}
    current = pointer.revision if pointer else None
    reasons: dict[str, str] = {}
    newest_complete = [
        r.revision
        for r in sorted(revisions, key=lambda r: (r.last_written, r.revision), reverse=True)
        if r.complete and r.revision != current
    ][:keep]
    for r in revisions:
        age = (now - r.last_written).total_seconds()
        if r.revision == current:
            reasons[r.revision] = "pinned, current" if pointer and pointer.pinned else "current"
        elif r.revision in newest_complete:
            reasons[r.revision] = _newest_reason(keep)
        elif r.revision in stopped and (now - stopped[r.revision]).total_seconds() < grace_s:
            reasons[r.revision] = "was current within the grace period (pods may still be loading it)"
        elif age < grace_s:
            reasons[r.revision] = "written within the grace period (a stage may still be writing it)"
    oldest_first = sorted(revisions, key=lambda r: (r.last_written, r.revision))
    delete = tuple(r.revision for r in oldest_first if r.revision not in reasons)
    return Collection(delete, reasons)
