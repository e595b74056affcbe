"""Amazon EKS optimized AL2023 AMI releases and the Kubernetes versions each was built for (vendored, pure).

Karpenter resolves `al2023@v<date>` to `/aws/service/eks/optimized-ami/<k8s>/amazon-linux-2023/x86_64/
nvidia/amazon-eks-node-al2023-x86_64-nvidia-<k8s>-v<date>/image_id` (aws/karpenter-provider-aws v1.14.1
pkg/providers/amifamily/al2023.go); a release never built for the cluster's version has no such parameter,
and no node launches ("failed to discover any AMIs for alias").

Table: every "# AMI Release v<date>" of awslabs/amazon-eks-ami CHANGELOG.md at 81fec2e (tag v20260724,
2026-07-23) since June 2025, with the first and last Kubernetes version of its "AMI Details"
(https://github.com/awslabs/amazon-eks-ami/blob/81fec2e895854f599974fe4d3d72f61c0a9aaffa/CHANGELOG.md).
"""

from __future__ import annotations

from fastload_constructs.core.errors import require

SOURCE = "https://github.com/awslabs/amazon-eks-ami/blob/81fec2e895854f599974fe4d3d72f61c0a9aaffa/CHANGELOG.md"
AL2023_RELEASES: dict[str, tuple[str, str]] = {
    "20260714": ("1.30", "1.36"),
    "20260625": ("1.30", "1.36"),
    "20260618": ("1.30", "1.36"),
    "20260610": ("1.30", "1.36"),
    "20260505": ("1.30", "1.35"),
    "20260423": ("1.30", "1.35"),
    "20260415": ("1.30", "1.35"),
    "20260409": ("1.30", "1.35"),
    "20260403": ("1.30", "1.35"),
    "20260318": ("1.29", "1.35"),
    "20260304": ("1.29", "1.35"),
    "20260224": ("1.29", "1.35"),
    "20260209": ("1.29", "1.35"),
    "20260129": ("1.29", "1.35"),
    "20260120": ("1.29", "1.35"),
    "20260116": ("1.29", "1.35"),
    "20260114": ("1.29", "1.35"),
    "20260107": ("1.29", "1.34"),
    "20251217": ("1.29", "1.34"),
    "20251209": ("1.29", "1.34"),
    "20251120": ("1.29", "1.34"),
    "20251112": ("1.28", "1.34"),
    "20251108": ("1.28", "1.34"),
    "20251029": ("1.28", "1.34"),
    "20251023": ("1.28", "1.34"),
    "20251016": ("1.28", "1.34"),
    "20251007": ("1.28", "1.34"),
    "20251002": ("1.28", "1.34"),
    "20250920": ("1.28", "1.34"),
    "20250915": ("1.28", "1.34"),
    "20250904": ("1.28", "1.33"),
    "20250829": ("1.28", "1.33"),
    "20250821": ("1.28", "1.33"),
    "20250819": ("1.28", "1.33"),
    "20250813": ("1.28", "1.33"),
    "20250807": ("1.28", "1.33"),
    "20250715": ("1.27", "1.33"),
    "20250704": ("1.27", "1.33"),
    "20250627": ("1.27", "1.33"),
    "20250620": ("1.27", "1.33"),
}
# The newest release in that CHANGELOG; its AMI details list AL2023_x86_64_NVIDIA for Kubernetes 1.30-1.36.
DEFAULT_AL2023_RELEASE = "20260714"
# The first release whose nodeadm knows the `FastImagePull` feature gate: the commit that renamed it from
# AggressiveImagePull is first tagged v20250821 (https://github.com/awslabs/amazon-eks-ami/commit/
# 28454ab939789b1b29ec973666390a125fcd5d32). An older nodeadm ignores the gate without a word
# (nodeadm/internal/api/featuregates.go `IsFeatureEnabled`: false for a gate it does not know), so the
# node would pull serially.
FAST_IMAGE_PULL_SINCE = "20250821"


def _minor(version: str) -> int:
    return int(version.split(".")[1])


def al2023_release(date: str, kubernetes_version: str, field: str) -> str:
    """`date` (YYYYMMDD) if amazon-eks-ami released AL2023 AMIs of that date for `kubernetes_version`."""
    span = AL2023_RELEASES.get(date)
    require(
        span is not None,
        field,
        f"al2023@v{date}",
        f"an amazon-eks-ami release in the vendored list (v{min(AL2023_RELEASES)}-v{max(AL2023_RELEASES)}, {SOURCE}), "
        "or al2023@latest",
    )
    assert span is not None
    require(
        _minor(span[0]) <= _minor(kubernetes_version) <= _minor(span[1]),
        field,
        f"al2023@v{date}",
        f"a release built for Kubernetes {kubernetes_version}: v{date} has AMIs for {span[0]}-{span[1]} only",
    )
    return date
