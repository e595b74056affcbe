"""The operating system a GPU node boots: Bottlerocket NVIDIA (the default) or Amazon Linux 2023 NVIDIA.

Why Bottlerocket by default: its NVIDIA variants ship the Kubernetes device plugin as a host service
("By providing the k8s device plugin in the base image, the startup time for a GPU workload decreases,
since the kubelet doesn't have to fetch yet another system container", bottlerocket-os/bottlerocket
PR #1916), so a new node offers `nvidia.com/gpu` seconds after it registers. On AL2023 the plugin is a
DaemonSet whose image is pulled after the node joins. The fitted node phases per family, and the
published start-ups behind them, are in `core.planning.assumptions` (docs/planning.md "GPU nodes").

Facts per family that the node classes, launch templates, image snapshots and pods depend on:

- where the instance-store RAID0 array is mounted (`core.naming.INSTANCE_STORE_MOUNTS`): the node-local
  caches live there, so hostPaths differ per family;
- the root device (containerd's volume, the one an image snapshot restores, is
  `core.cluster.image_cache.DEVICE_NAME` on both);
- whether the sandbox (pause) image and the device plugin come with the OS, or must be on that volume;
- the Karpenter alias family (a managed node group's AMI type is `infra/gpu_nodegroup.py`'s).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from fastload_constructs.core.cluster.bottlerocket_releases import DEFAULT_BOTTLEROCKET_VERSION, bottlerocket_release
from fastload_constructs.core.cluster.eks_ami_releases import (
    DEFAULT_AL2023_RELEASE,
    FAST_IMAGE_PULL_SINCE,
    al2023_release,
)
from fastload_constructs.core.errors import require

AmiFamily = Literal["bottlerocket", "al2023"]
AMI_FAMILIES: tuple[AmiFamily, ...] = ("bottlerocket", "al2023")
DEFAULT_AMI_FAMILY: AmiFamily = "bottlerocket"


@dataclass(frozen=True)
class NodeOs:
    """What a node family means for the nodes, their launch templates and the pods on them."""

    family: AmiFamily
    display_name: str
    root_device: str
    # The device plugin runs as a host service (Bottlerocket NVIDIA variants: package
    # nvidia-k8s-device-plugin, enabled by default), not as a DaemonSet.
    device_plugin_built_in: bool
    # The sandbox (pause) image is imported from the OS at every kubelet start (Bottlerocket
    # bottlerocket-core-kit packages/kubernetes-*/prestart-load-pause-ctr.conf); on AL2023 it exists only
    # in the AMI's own /var/lib/containerd (localhost/kubernetes/pause:latest, nodeadm init.go).
    sandbox_image_in_os: bool
    # nodeadm's FastImagePull (SOCI parallel pull) exists only on AL2023.
    supports_fast_image_pull: bool


NODE_OS: dict[AmiFamily, NodeOs] = {
    "bottlerocket": NodeOs(
        family="bottlerocket",
        display_name="Bottlerocket NVIDIA",
        root_device="/dev/xvda",
        device_plugin_built_in=True,
        sandbox_image_in_os=True,
        supports_fast_image_pull=False,
    ),
    "al2023": NodeOs(
        family="al2023",
        display_name="Amazon Linux 2023 NVIDIA",
        root_device="/dev/xvda",
        device_plugin_built_in=False,
        sandbox_image_in_os=False,
        supports_fast_image_pull=True,
    ),
}


def check_ami_family(value: object, field: str = "ami_family") -> AmiFamily:
    """`value` if it names a node family this library builds GPU nodes of."""
    require(
        isinstance(value, str) and value in AMI_FAMILIES,
        field,
        value,
        "one of " + ", ".join(AMI_FAMILIES) + " (Bottlerocket NVIDIA or Amazon Linux 2023 NVIDIA GPU nodes)",
    )
    assert isinstance(value, str)
    return value  # type: ignore[return-value]


def node_os(family: object, field: str = "ami_family") -> NodeOs:
    return NODE_OS[check_ami_family(family, field)]


# ------------------------------------------------------------------------------------------------
# Karpenter AMI aliases: `family@version` (Karpenter v1.14.1 EC2NodeClass amiSelectorTerms: "The version can
# either be pinned to a specific AMI release ... or set to latest ... Setting the version to latest will
# result in drift when a new AMI is released", and every drift replaces every GPU node and its caches).
# CRD: `^[a-zA-Z0-9]+@.+$`, at most 30 characters.

_ALIAS = re.compile(r"^(?P<family>[a-z0-9]+)@(?P<version>.+)$")


def default_ami_alias(family: AmiFamily) -> str:
    """A pinned release of `family` that serves every Kubernetes version this library supports."""
    if family == "bottlerocket":
        return f"bottlerocket@v{DEFAULT_BOTTLEROCKET_VERSION}"
    return f"al2023@v{DEFAULT_AL2023_RELEASE}"


def check_ami_alias(value: object, family: AmiFamily, kubernetes_version: str, field: str = "ami_alias") -> str:
    """An alias of `family` that Karpenter can resolve for `kubernetes_version`: a pinned release that ships
    NVIDIA AMIs for it (vendored release tables), or `<family>@latest`."""
    match = _ALIAS.match(value) if isinstance(value, str) else None
    example = default_ami_alias(family)
    require(
        match is not None and match.group("family") == family and len(value) <= 30,  # type: ignore[arg-type]
        field,
        value,
        f"a {family} alias such as {example} (the node family is {family}), or {family}@latest",
    )
    assert match is not None and isinstance(value, str)
    version = match.group("version")
    if version == "latest":
        return value
    if family == "bottlerocket":
        return f"bottlerocket@v{bottlerocket_release(version, kubernetes_version, field)}"
    date = re.fullmatch(r"v(\d{8})", version)
    require(date is not None, field, value, f"al2023@v<YYYYMMDD> (an amazon-eks-ami release) such as {example}")
    assert date is not None
    return f"al2023@v{al2023_release(date.group(1), kubernetes_version, field)}"


def has_fast_image_pull(alias: str) -> bool:
    """Whether the AMI of checked alias `alias` has nodeadm's FastImagePull gate: AL2023 from
    `FAST_IMAGE_PULL_SINCE` on, or `al2023@latest`; an older nodeadm drops the gate silently."""
    family, _, version = alias.partition("@")
    supported = any(name == family and os.supports_fast_image_pull for name, os in NODE_OS.items())
    return supported and (version == "latest" or version.lstrip("v") >= FAST_IMAGE_PULL_SINCE)
