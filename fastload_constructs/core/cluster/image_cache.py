"""The vLLM image on the node before the pod asks for it: an EBS data volume restored from a snapshot (pure).

The approach of aws-samples/bottlerocket-images-cache (a throw-away instance of the node's OS pulls the
images with `ctr` into containerd's `k8s.io` namespace on a data volume, the volume is snapshotted, and
the node's launch template restores it), here for AL2023, the AMI family the GPU nodes use:

- the data volume carries a filesystem labelled `IMAGE_CACHE_LABEL` holding containerd's root
  (`/var/lib/containerd`: content store and overlayfs snapshots), built by `builder_script`;
- a node restores it as `DEVICE_NAME` (Karpenter `EC2NodeClass.blockDeviceMappings[].ebs.snapshotID`,
  or the managed node group's launch template), and a user-data shell part (`mount_script`) mounts it
  at `/var/lib/containerd`. AL2023 runs user-data scripts in cloud-init's final stage, and nodeadm
  starts containerd only after it (`nodeadm-run.service`: `After=nodeadm-config.service
  cloud-final.service`, awslabs/amazon-eks-ami templates/al2023/runtime/rootfs/etc/systemd/system);
- nodeadm's RAID0 of the instance store keeps kubelet and pod logs on NVMe but leaves containerd on the
  volume (`localStorage.disabledMounts: [Containerd]`, nodeadm/api/v1alpha1/nodeconfig_types.go);
- nodeadm `FastImagePull` stays off: it switches containerd to the SOCI snapshotter, which does not see
  the overlayfs snapshots the builder unpacked (the image would be unpacked again).

Fast Snapshot Restore on the snapshot (in every AZ the nodes use) makes the restored volume fully
initialised; without it every first read of a block comes from S3 ("the application accessing the
volume encounters a higher latency than normal", AWS Storage blog, "Addressing I/O latency when
restoring Amazon EBS volumes from EBS snapshots"), which stretches vLLM's imports like lazy loading.
EC2NodeClass's `volumeInitializationRate` (100-300 MiB/s, Karpenter 1.14.1 CRD) is the paid-per-volume
alternative.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.errors import is_whole_number, require
from fastload_constructs.core.images import image_tag

DEVICE_NAME = "/dev/xvdb"  # the second EBS device; bottlerocket-images-cache uses the same name
IMAGE_CACHE_LABEL = "fastload-images"  # ext4 label: mounted by label, whatever NVMe name the device gets
CONTAINERD_ROOT = "/var/lib/containerd"
# gp3 at its maximum (16,000 IOPS, 1,000 MiB/s): the figures of the karpenter-blueprints root volume the
# pull measurements were taken on (blueprints/soci-snapshotter); vLLM's imports read GBs at start.
DEFAULT_VOLUME_GIB = 100
DEFAULT_IOPS = 16_000
DEFAULT_THROUGHPUT_MIBPS = 1_000
_SNAPSHOT_ID = re.compile(r"^snap-[0-9a-f]{8}([0-9a-f]{9})?$")


@dataclass(frozen=True)
class ImageCache:
    """A snapshot holding containerd's root with the vLLM image, and the volume a node restores from it."""

    snapshot_id: str
    volume_gib: int = DEFAULT_VOLUME_GIB
    iops: int = DEFAULT_IOPS
    throughput_mibps: int = DEFAULT_THROUGHPUT_MIBPS

    def __post_init__(self) -> None:
        check_image_cache(self)


def check_image_cache(cache: ImageCache, where: str = "imageCache") -> ImageCache:
    require(
        isinstance(cache.snapshot_id, str) and bool(_SNAPSHOT_ID.match(cache.snapshot_id)),
        f"{where}.snapshotId",
        cache.snapshot_id,
        "an EBS snapshot id: snap- and 8 or 17 hex digits",
    )
    require(
        is_whole_number(cache.volume_gib) and 20 <= cache.volume_gib <= 16_384,
        f"{where}.volumeGiB",
        cache.volume_gib,
        "a whole number of GiB from 20 to 16384 (gp3), at least the snapshot's size",
    )
    require(
        is_whole_number(cache.iops) and 3_000 <= cache.iops <= 16_000,
        f"{where}.iops",
        cache.iops,
        "a whole number from 3000 to 16000 (gp3)",
    )
    require(
        is_whole_number(cache.throughput_mibps) and 125 <= cache.throughput_mibps <= 1_000,
        f"{where}.throughputMiBps",
        cache.throughput_mibps,
        "a whole number of MiB/s from 125 to 1000 (gp3)",
    )
    return cache


def karpenter_block_device(cache: ImageCache) -> dict[str, Any]:
    """An `EC2NodeClass.spec.blockDeviceMappings` entry restoring the snapshot (no `encrypted`: a volume
    from a snapshot takes the snapshot's encryption, and the CRD says it cannot be set)."""
    return {
        "deviceName": DEVICE_NAME,
        "ebs": {
            "snapshotID": cache.snapshot_id,
            "volumeSize": f"{cache.volume_gib}Gi",
            "volumeType": "gp3",
            "iops": cache.iops,
            "throughput": cache.throughput_mibps,
            "deleteOnTermination": True,
        },
    }


def mount_script() -> str:
    """The user-data shell part: mount the cache volume as containerd's root before nodeadm starts containerd.

    Fails the boot (and so the node's registration, which Karpenter then replaces) rather than letting
    containerd start on an empty root: a node that pulls again is the slow path this volume exists to avoid.
    """
    label = IMAGE_CACHE_LABEL
    return "\n".join(
        [
            "#!/bin/bash",
            "set -euo pipefail",
            f"# fastload image cache: {DEVICE_NAME} restored from an EBS snapshot holding {CONTAINERD_ROOT}",
            "for _ in $(seq 1 60); do",
            f"  [ -e /dev/disk/by-label/{label} ] && break",
            "  udevadm settle; sleep 1",
            "done",
            f"mkdir -p {CONTAINERD_ROOT}",
            f"mountpoint -q {CONTAINERD_ROOT} || mount -o noatime LABEL={label} {CONTAINERD_ROOT}",
            f"echo 'LABEL={label} {CONTAINERD_ROOT} ext4 defaults,noatime,nofail 0 2' >> /etc/fstab",
            "",
        ]
    )


_PLATFORM = re.compile(r"^[a-z0-9]+/[a-z0-9_]+(/v[0-9]+)?$")


def normalized_image(image: str) -> str:
    """The fully qualified reference the kubelet asks containerd for: `ctr` expands no short names, and the
    kubelet looks the image up as `docker.io/<name>` (`docker.io/library/<name>` for a one-part name)."""
    first = image.split("/", 1)[0]
    if "/" not in image:
        return f"docker.io/library/{image}"
    if "." in first or ":" in first or first == "localhost":
        return image
    return f"docker.io/{image}"


def builder_script(images: Sequence[str], *, platform: str = "linux/amd64") -> str:
    """Commands for the builder instance (AL2023 EKS AMI, the cache volume attached as DEVICE_NAME, empty):
    format and label it, run containerd with its root there, pull every image into `k8s.io`, stop.

    The instance profile needs ECR pull rights for the images (AmazonEC2ContainerRegistryReadOnly).
    """
    require(
        isinstance(images, (list, tuple)) and len(images) > 0 and all(isinstance(i, str) and i for i in images),
        "images",
        images,
        "one or more image references, e.g. vllm/vllm-openai:v0.34.0",
    )
    for image in images:
        image_tag(image, "images")  # pinned, not latest (core.images)
    require(
        isinstance(platform, str) and _PLATFORM.match(platform) is not None,
        "platform",
        platform,
        "os/arch such as linux/amd64 (or linux/arm64/v8)",
    )
    pulls = []
    for image in images:
        ref = shlex.quote(normalized_image(image))
        registry = image.split("/", 1)[0]
        if ".dkr.ecr." in registry:
            region = registry.split(".dkr.ecr.", 1)[1].split(".", 1)[0]
            pulls.append(
                f"ctr -n k8s.io images pull --platform {shlex.quote(platform)} "
                f'--user "AWS:$(aws ecr get-login-password --region {shlex.quote(region)})" {ref}'
            )
        else:
            pulls.append(f"ctr -n k8s.io images pull --platform {shlex.quote(platform)} {ref}")
    return "\n".join(
        [
            "#!/bin/bash",
            "set -euo pipefail",
            "systemctl stop containerd || true",
            f"DEV=$(readlink -f {DEVICE_NAME})",
            f'mkfs.ext4 -F -L {IMAGE_CACHE_LABEL} "$DEV"',
            f'mkdir -p {CONTAINERD_ROOT} && mount -o noatime "$DEV" {CONTAINERD_ROOT}',
            "systemctl start containerd",
            *pulls,
            "ctr -n k8s.io images ls -q",
            "systemctl stop containerd",
            f"sync && umount {CONTAINERD_ROOT}",
            "",
        ]
    )
