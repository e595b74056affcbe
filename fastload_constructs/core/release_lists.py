"""Which releases of the software the stack pins are known to exist, read from each project's release list.

A pinned release that does not exist stops a deploy late: no node joins (an AMI alias Karpenter cannot
resolve), no pod starts (an image tag that is not there). The lists in `data/releases.json` were read from
the projects' own release records (PyPI for vLLM and SGLang, the repositories' tags for the others), each
with its address and the day it was read, so the defaults can be checked against them in the tests, and a
user's pin can be told apart: a release in the list, one newer than the list (unknown here, not wrong), or
one older than the list's newest that the list does not hold (likely a typo).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal

from fastload_constructs.core.errors import require

Known = Literal["listed", "newer than the list", "not listed"]


@dataclass(frozen=True)
class ReleaseList:
    """One project's releases as its own release record lists them, oldest first."""

    project: str
    what: str
    source: str  # the address the list was read from
    read_on: str  # YYYY-MM-DD
    releases: tuple[tuple[str, str], ...]  # (version as the project tags it, release date YYYY-MM-DD)

    @property
    def versions(self) -> tuple[str, ...]:
        return tuple(version for version, _ in self.releases)

    def holds(self, version: str) -> bool:
        """`version` is in the list, with or without a leading `v` (`0.34.0` and `v0.34.0` are one release)."""
        wanted = version.removeprefix("v")
        return any(v.removeprefix("v") == wanted for v in self.versions)

    def known(self, version: str) -> Known:
        """Listed; newer than every listed release (released after `read_on`, perhaps); or not listed."""
        if self.holds(version):
            return "listed"
        newest = _numbers(self.versions[-1]) if self.versions else ()
        mine = _numbers(version)
        return "newer than the list" if mine and newest and mine > newest else "not listed"


def _numbers(version: str) -> tuple[int, ...]:
    """The leading dotted numbers of a version (`v1.14.1` -> (1, 14, 1), `release-1.31.4` -> (1, 31, 4))."""
    digits = version.rsplit("-", 1)[-1] if version.startswith("release-") else version.removeprefix("v")
    out = []
    for part in digits.split("."):
        number = "".join(c for c in part if c.isdigit()) if part[:1].isdigit() else ""
        if not number:
            break
        out.append(int(number))
    return tuple(out)


@cache
def release_lists() -> dict[str, ReleaseList]:
    """Every vendored list, by project name."""
    raw = json.loads(resources.files("fastload_constructs.core").joinpath("data/releases.json").read_text("utf-8"))
    return {
        name: ReleaseList(
            project=name,
            what=entry["what"],
            source=entry["source"],
            read_on=entry["read_on"],
            releases=tuple((r["version"], r["date"]) for r in entry["releases"]),
        )
        for name, entry in raw["projects"].items()
    }


def release_list(project: str) -> ReleaseList:
    lists = release_lists()
    require(project in lists, "project", project, "one of " + ", ".join(sorted(lists)))
    return lists[project]


def describe(project: str, version: str) -> str:
    """One sentence on where `version` stands against `project`'s list, for a synth-time warning."""
    known = release_list(project)
    status = known.known(version)
    if status == "listed":
        return f"{project} {version} is in its release list ({known.source}, read {known.read_on})"
    if status == "newer than the list":
        return (
            f"{project} {version} is newer than its release list ({known.source}, read {known.read_on}); "
            "check that it exists before deploying"
        )
    return (
        f"{project} {version} is not in its release list ({known.source}, read {known.read_on}), whose newest is "
        f"{known.versions[-1]}: check the version"
    )
