"""Bottlerocket releases and the Kubernetes versions each ships an NVIDIA variant for (vendored, pure).

A Karpenter alias `bottlerocket@v1.64.0` resolves to the SSM parameter
`/aws/service/bottlerocket/aws-k8s-<k8s>-nvidia/x86_64/1.64.0/image_id` for GPU instance types
(aws/karpenter-provider-aws v1.14.1 pkg/providers/amifamily/bottlerocket.go); a release without
`aws-k8s-<k8s>-nvidia` has no such parameter, and Karpenter reports "failed to discover any AMIs for
alias": no GPU node ever launches. So the release is checked against the cluster's Kubernetes version
before anything is synthesised.

Table as of 2026-12-04, by minor release (a patch release ships the variants of its minor):
- 1.39.x-1.57.x: read from bottlerocket-os/bottlerocket-project-website @ 6102096 (2026-04-14),
  `data/variants/<minor>.x/aws-k8s-*-nvidia.toml` ("Extracted from .../variants/<v>/Cargo.toml");
- 1.58.0-1.66.0: the 1.57.x set changed only by the variant additions and removals each release's
  changelog states (bottlerocket-os/bottlerocket PRs and release tracking issues below).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fastload_constructs.core.errors import require

_WEBSITE = "https://github.com/bottlerocket-os/bottlerocket-project-website/tree/610209648110feaf61e5ce9996f1ad19887230eb/data/variants"
_PR = "https://github.com/bottlerocket-os/bottlerocket/pull/"
_ISSUE = "https://github.com/bottlerocket-os/bottlerocket/issues/"


def _versions(first: int, last: int) -> tuple[str, ...]:
    return tuple(f"1.{minor}" for minor in range(first, last + 1))


@dataclass(frozen=True)
class BottlerocketRelease:
    """A Bottlerocket minor release: its `aws-k8s-<k8s>-nvidia` variants, when published, and the source."""

    minor: str  # "1.64"
    nvidia_kubernetes_versions: tuple[str, ...]
    published: str
    source: str


RELEASES: dict[str, BottlerocketRelease] = {
    r.minor: r
    for r in (
        *(BottlerocketRelease(f"1.{m}", _versions(26, 33), "2025-05", f"{_WEBSITE}/1.{m}.x") for m in (39, 40)),
        *(BottlerocketRelease(f"1.{m}", _versions(27, 33), "2025-06/07", f"{_WEBSITE}/1.{m}.x") for m in (41, 42, 43)),
        *(BottlerocketRelease(f"1.{m}", _versions(28, 33), "2025-08/09", f"{_WEBSITE}/1.{m}.x") for m in (44, 45, 46)),
        *(
            BottlerocketRelease(f"1.{m}", _versions(28, 34), "2025-09/11", f"{_WEBSITE}/1.{m}.x")
            for m in (47, 48, 49, 50, 51)
        ),
        BottlerocketRelease("1.52", _versions(29, 34), "2025-12-16", f"{_WEBSITE}/1.52.x"),
        *(
            BottlerocketRelease(f"1.{m}", _versions(29, 35), "2026-01/03", f"{_WEBSITE}/1.{m}.x")
            for m in (53, 54, 55, 56, 57)
        ),
        # "Remove aws-k8s-1.29 variants"
        BottlerocketRelease("1.58", _versions(30, 35), "2026-04-06", f"{_PR}4797"),
        BottlerocketRelease("1.59", _versions(30, 35), "2026-04-23", f"{_ISSUE}4810"),
        BottlerocketRelease("1.60", _versions(30, 35), "2026-04-28", f"{_PR}4824"),
        # "Add aws-k8s-1.36, aws-k8s-1.36-nvidia, aws-k8s-1.36-fips, aws-k8s-1.36-nvidia-fips"
        BottlerocketRelease("1.61", _versions(30, 36), "2026-05-20", f"{_ISSUE}4843"),
        BottlerocketRelease("1.62", _versions(30, 36), "2026-06-04", f"{_ISSUE}4849"),
        BottlerocketRelease("1.63", _versions(30, 36), "2026-07-06", f"{_PR}4876"),
        # "Remove aws-k8s-1.30 variants"; released 2026-08-05 (release tracking issue)
        BottlerocketRelease("1.64", _versions(31, 36), "2026-08-05", f"{_ISSUE}4895"),
        BottlerocketRelease("1.65", _versions(31, 36), "2026-09-03", f"{_PR}4928"),
        # "All k8s-1.37 variants ... use kernel-6.18 and containerd-2.3"
        BottlerocketRelease("1.66", _versions(31, 37), "2026-09-22", f"{_ISSUE}4947"),
    )
}

# The newest release whose publication its release tracking issue states (bottlerocket-os/bottlerocket#4895:
# "released" 2026-08-05), serving every Kubernetes version this library supports (1.33-1.36).
# Newer ones (1.65, 1.66) are in the table for users who pin them; their tracking issues were seen only
# at "passed validation".
DEFAULT_BOTTLEROCKET_VERSION = "1.64.0"
_VERSION = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")


def bottlerocket_release(version: object, kubernetes_version: str, field: str = "bottlerocket_version") -> str:
    """`version` (1.64.0 or v1.64.0) normalised to 1.64.0, if that release ships `aws-k8s-<k8s>-nvidia`."""
    match = _VERSION.match(version) if isinstance(version, str) else None
    known = ", ".join(f"{r}.x" for r in RELEASES)
    require(match is not None, field, version, f"a Bottlerocket release such as {DEFAULT_BOTTLEROCKET_VERSION}")
    assert match is not None
    minor = f"{match.group(1)}.{match.group(2)}"
    release = RELEASES.get(minor)
    require(release is not None, field, version, f"a Bottlerocket release in the vendored table ({known})")
    assert release is not None
    served = release.nvidia_kubernetes_versions
    require(
        kubernetes_version in served,
        field,
        version,
        f"a release with an aws-k8s-{kubernetes_version}-nvidia variant: Bottlerocket {minor}.x ships NVIDIA "
        f"variants for Kubernetes {served[0]}-{served[-1]} only ({release.source})",
    )
    return f"{match.group(1)}.{match.group(2)}.{match.group(3)}"
