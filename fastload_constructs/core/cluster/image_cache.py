"""The server image on the node before the pod asks for it: a data volume restored from an EBS snapshot (pure).

The approach of aws-samples/bottlerocket-images-cache: a throw-away instance of the node's OS pulls the
images into containerd's `k8s.io` namespace on a data volume, the instance stops, the volume is
snapshotted, and every GPU node restores the snapshot as `DEVICE_NAME`. `infra.node_image_snapshot.NodeImageSnapshot`
runs that job in the stack; `fastload image-cache` prints the same commands for a manual build.

Per node family (`core.cluster.ami_family`):

- Bottlerocket: `/dev/xvdb` IS the data volume, and it holds /var/lib/containerd ("The data device is
  used as persistent storage for container images", bottlerocket README "Default Volumes"). The builder
  pulls with `apiclient exec admin sheltie ctr` in the admin container, as the sample's snapshot.sh does.
  The sandbox (pause) image is built into the OS and imported at every kubelet start
  (bottlerocket-core-kit packages/kubernetes-*/prestart-load-pause-ctr.conf), and the device plugin is a
  host service: the snapshot needs only the server images.
- AL2023: a second volume with an ext4 filesystem labelled `IMAGE_CACHE_LABEL`, mounted at
  /var/lib/containerd by a user-data script before nodeadm starts containerd (`nodeadm-run.service` runs
  after cloud-final, awslabs/amazon-eks-ami templates/al2023/runtime/rootfs/etc/systemd/system). That
  mount HIDES the AMI's own /var/lib/containerd, where the sandbox image `localhost/kubernetes/pause:latest`
  lives (templates/al2023/runtime/bin/cache-pause-container; nodeadm points containerd at it,
  nodeadm/cmd/nodeadm/init/init.go, and re-imports /etc/eks/pause.tar only in SOCI mode): a snapshot
  without it leaves every pod, aws-node included, without a sandbox, and the node never becomes Ready.
  The builder therefore imports /etc/eks/pause.tar and pins it, and pulls the device plugin's image too
  (on AL2023 it is a DaemonSet that must run before the node offers a GPU).

How fast the restored volume's blocks arrive is an explicit choice (`RestoreMode`), planned by
`core.planning.pull_modes`:

- `fsr`: Fast Snapshot Restore, "a volume from a snapshot that is fully initialized at creation", per
  snapshot and AZ; one credit per volume, at most MIN(10, 1024 / snapshot GiB) per bucket, refilled at
  that many per hour; billed $0.75 per snapshot-AZ hour in us-east-1 (EBS user guide, "Fast snapshot
  restore", volume-creation-credits). A volume made without a credit is restored lazily.
- `rate`: a provisioned volume initialization rate, 100-300 MiB/s per volume ("fully initialized in
  approximately" snapshot data / rate; at most 5,000 MiB/s across concurrent creations per Region; EBS user
  guide, "Initialize Amazon EBS volumes"); set on the EC2NodeClass block device (Karpenter >= 1.5) or the
  launch template. Paid per GiB of snapshot data and MiB/s, per volume.
- `lazy`: no initialization; blocks load from S3 when first read (~5-26 MB/s in published reports).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from fastload_constructs.core.errors import is_whole_number, one_of, require
from fastload_constructs.core.images import image_tag
from fastload_constructs.core.tokens import is_token

# The second EBS device, whose volume holds containerd's root: Bottlerocket's data volume ("The data device is
# used as persistent storage for container images", bottlerocket README "Default Volumes"); on AL2023 a second
# volume that a user-data script mounts at /var/lib/containerd. bottlerocket-images-cache uses the same name.
DEVICE_NAME = "/dev/xvdb"
IMAGE_CACHE_LABEL = "fastload-images"  # AL2023 ext4 label: mounted by label, whatever NVMe name the device gets
CONTAINERD_ROOT = "/var/lib/containerd"
# gp3 at its maximum (16,000 IOPS, 1,000 MiB/s): the figures of the karpenter-blueprints root volume the
# pull measurements were taken on (blueprints/soci-snapshotter); vLLM's imports read GBs at start.
DEFAULT_VOLUME_GIB = 100
DEFAULT_IOPS = 16_000
DEFAULT_THROUGHPUT_MIBPS = 1_000

RestoreMode = Literal["fsr", "rate", "lazy"]
RESTORE_MODES: tuple[RestoreMode, ...] = ("fsr", "rate", "lazy")
DEFAULT_RESTORE_MODE: RestoreMode = "fsr"
# EBS Provisioned Rate for Volume Initialization: "ranges from 100 to 300 MiB/s".
MIN_INITIALIZATION_RATE_MIBPS = 100
MAX_INITIALIZATION_RATE_MIBPS = 300
# "There is a limit of 5,000 MiB/s on the cumulative volume initialization rate that you can request across
# concurrent volume creation requests ... per Region basis. If a request exceeds this limit, it fails"
# (https://docs.aws.amazon.com/ebs/latest/userguide/initalize-volume.html): 16 nodes launching at once at 300.
REGION_INITIALIZATION_RATE_MIBPS = 5_000


def fast_snapshot_restore_credits(snapshot_gib: int) -> int:
    """Volumes one Availability Zone creates fully initialized from a Fast Snapshot Restore snapshot before its
    credit bucket is empty, and the bucket's refill per hour: "MAX (1, MIN (10, (1024 / snapshot_size_gib)))"
    and "MIN (10, (1024 / snapshot_size_gib))" (https://docs.aws.amazon.com/ebs/latest/userguide/
    volume-creation-credits.html). A volume made with no credit left is created without FSR: lazily loaded."""
    return max(1, min(10, 1024 // snapshot_gib))


# The sandbox image AL2023 nodeadm configures (init.go `SandboxImage`) and its archive in the AMI.
AL2023_SANDBOX_IMAGE = "localhost/kubernetes/pause:latest"
AL2023_SANDBOX_ARCHIVE = "/etc/eks/pause.tar"
_SNAPSHOT_ID = re.compile(r"^snap-[0-9a-f]{8}([0-9a-f]{9})?$")


def check_snapshot_id(value: object, field: str = "snapshot_id") -> str:
    """An EBS snapshot id (snap- and 8 or 17 hex digits), or a deploy-time token (a snapshot built in the stack)."""
    require(
        isinstance(value, str) and (_SNAPSHOT_ID.match(value) is not None or is_token(value)),
        field,
        value,
        "an EBS snapshot id: snap- and 8 or 17 hex digits",
    )
    assert isinstance(value, str)
    return value


def check_restore_mode(value: object, field: str = "restore_mode") -> RestoreMode:
    one_of(field, value, RESTORE_MODES)
    return value  # type: ignore[return-value]


@dataclass(frozen=True)
class ImageCache:
    """A snapshot holding containerd's root with the server image(s), and the volume a node restores from it.

    `restore`: how the volume's blocks arrive (`RESTORE_MODES`, module doc). `initialization_rate_mibps`:
    the provisioned rate with `restore="rate"` (100-300; default 300), nothing otherwise.
    """

    snapshot_id: str
    volume_gib: int = DEFAULT_VOLUME_GIB
    iops: int = DEFAULT_IOPS
    throughput_mibps: int = DEFAULT_THROUGHPUT_MIBPS
    restore: RestoreMode = DEFAULT_RESTORE_MODE
    initialization_rate_mibps: int | None = None

    def __post_init__(self) -> None:
        check_image_cache(self)
        if self.restore == "rate" and self.initialization_rate_mibps is None:
            object.__setattr__(self, "initialization_rate_mibps", MAX_INITIALIZATION_RATE_MIBPS)


def check_image_cache(cache: ImageCache, where: str = "imageCache") -> ImageCache:
    check_snapshot_id(cache.snapshot_id, f"{where}.snapshotId")
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
    check_restore_mode(cache.restore, f"{where}.restore")
    rate = cache.initialization_rate_mibps
    if rate is not None:
        require(
            cache.restore == "rate"
            and is_whole_number(rate)
            and MIN_INITIALIZATION_RATE_MIBPS <= rate <= MAX_INITIALIZATION_RATE_MIBPS,
            f"{where}.initializationRateMiBps",
            rate,
            f"a whole number of MiB/s from {MIN_INITIALIZATION_RATE_MIBPS} to {MAX_INITIALIZATION_RATE_MIBPS}, "
            "with restore rate only",
        )
    return cache


def mount_script() -> str:
    """AL2023's user-data shell part: mount the cache volume as containerd's root before nodeadm starts containerd.

    nodeadm-run only runs After= cloud-final (no Requires=), so a script that fails here does not stop
    the boot: containerd then starts on the AMI's own root and pulls as usual (the slow path, not a broken
    node). The script exits non-zero so cloud-init records it.
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


def _check_images(images: Sequence[str], platform: str) -> None:
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


def _ecr_region(image: str) -> str | None:
    registry = image.split("/", 1)[0]
    if ".dkr.ecr." not in registry:
        return None
    return registry.split(".dkr.ecr.", 1)[1].split(".", 1)[0]


def builder_script(images: Sequence[str], *, platform: str = "linux/amd64") -> str:
    """AL2023: commands for the builder instance (AL2023 EKS AMI, the cache volume attached as DEVICE_NAME,
    empty): format and label it, run containerd with its root there, import and pin the sandbox image, pull
    every image into `k8s.io`, stop.

    The instance profile needs ECR pull rights for ECR images (the AMI has the AWS CLI:
    templates/al2023/provisioners/install-worker.sh "awscli").
    """
    _check_images(images, platform)
    pulls = []
    for image in images:
        ref = shlex.quote(normalized_image(image))
        region = _ecr_region(image)
        auth = f'--user "AWS:$(aws ecr get-login-password --region {shlex.quote(region)})" ' if region else ""
        pulls.append(f"ctr -n k8s.io images pull --platform {shlex.quote(platform)} {auth}{ref}")
    return "\n".join(
        [
            "#!/bin/bash",
            "set -euo pipefail",
            "systemctl stop containerd || true",
            f"DEV=$(readlink -f {DEVICE_NAME})",
            f'mkfs.ext4 -F -L {IMAGE_CACHE_LABEL} "$DEV"',
            f'mkdir -p {CONTAINERD_ROOT} && mount -o noatime "$DEV" {CONTAINERD_ROOT}',
            "systemctl start containerd",
            # The sandbox image nodeadm points containerd at lives in the AMI's containerd root, which the
            # restored volume hides: carry it, pinned as the AMI pins it (cache-pause-container).
            f"ctr -n k8s.io images import {AL2023_SANDBOX_ARCHIVE}",
            f"ctr -n k8s.io images label {AL2023_SANDBOX_IMAGE} io.cri-containerd.pinned=pinned",
            *pulls,
            "ctr -n k8s.io images ls -q",
            "systemctl stop containerd",
            f"sync && umount {CONTAINERD_ROOT}",
            "",
        ]
    )


# Bottlerocket: the control container (where SSM runs commands) reaches the host's containerd through the
# admin container's `sheltie` (aws-samples/bottlerocket-images-cache snapshot.sh: CTR_CMD).
BOTTLEROCKET_CTR = "apiclient exec admin sheltie ctr -a /run/containerd/containerd.sock -n k8s.io"
# The builder's ECR password for ECR images: the Bottlerocket host has no AWS CLI, so the job that runs the
# commands sets it (an ECR authorization token, valid 12 hours) in this variable.
ECR_PASSWORD_VARIABLE = "FASTLOAD_ECR_PASSWORD"


def bottlerocket_builder_commands(images: Sequence[str], *, platform: str = "linux/amd64") -> tuple[str, ...]:
    """Bottlerocket: shell commands for the builder (the same release's `aws-k8s-<k8s>` AMI, admin container on,
    data volume from the AMI): wait for the admin container, stop the kubelet (no image garbage collection
    while pulling), pull every image into `k8s.io` labelled as the kubelet's, list them. The job then stops
    the instance and snapshots DEVICE_NAME."""
    _check_images(images, platform)
    pulls = []
    for image in images:
        ref = shlex.quote(normalized_image(image))
        auth = f'--user "AWS:${ECR_PASSWORD_VARIABLE}" ' if _ecr_region(image) else ""
        pulls.append(
            f"{BOTTLEROCKET_CTR} images pull --label io.cri-containerd.image=managed "
            f"--platform {shlex.quote(platform)} {auth}{ref}"
        )
    return (
        "set -eu",
        "for i in $(seq 1 60); do apiclient exec admin sheltie true && break; sleep 5; done",
        "apiclient exec admin sheltie systemctl stop kubelet || true",
        *pulls,
        f"{BOTTLEROCKET_CTR} images ls -q",
        "sync",
    )


def snapshot_images(
    family: str, pod_images: Sequence[str], device_plugin_images: Sequence[str] = ()
) -> tuple[str, ...]:
    """What a node snapshot of `family` must hold: the images of the pods a GPU node runs before its server is
    up (the servers, their requesters, the DaemonSets of every GPU node), and on AL2023 the device plugin's
    (a GPU node offers no GPU before it runs). Bottlerocket's sandbox and device plugin come with the OS; the
    AL2023 sandbox image is imported by the builder itself (`al2023_builder_commands`)."""
    images = [*pod_images, *(device_plugin_images if family == "al2023" else ())]
    return tuple(dict.fromkeys(images))


def builder_ami_parameter(family: str, kubernetes_version: str, ami_alias: str) -> str:
    """The public SSM parameter of the builder's AMI: the non-GPU variant of the nodes' own release (same
    containerd, same on-disk layout), as Karpenter resolves an alias (aws/karpenter-provider-aws v1.14.1
    pkg/providers/amifamily: bottlerocket.go, al2023.go `resolvePath`)."""
    version = ami_alias.split("@", 1)[1]
    if family == "bottlerocket":
        return f"/aws/service/bottlerocket/aws-k8s-{kubernetes_version}/x86_64/{version.lstrip('v')}/image_id"
    name = (
        "recommended"
        if version == "latest"
        else f"amazon-eks-node-al2023-x86_64-standard-{kubernetes_version}-{version}"
    )
    return f"/aws/service/eks/optimized-ami/{kubernetes_version}/amazon-linux-2023/x86_64/standard/{name}/image_id"
