"""The AL2023 nodeadm `NodeConfig` a GPU node boots with, and the MIME user data around it.

Why: on AL2023 EKS AMIs, instance-store NVMe disks stay unused unless
`spec.instance.localStorage.strategy` asks nodeadm to set them up. `RAID0`
stripes every instance-store disk into one array, mounts it at
`<mountPath>/0` (default `/mnt/k8s-disks/0`) and bind-mounts kubelet,
containerd and pod-log state onto it, so image layers and emptyDir volumes
land on NVMe.

Field names are those of `nodeadm/api/v1alpha1/nodeconfig_types.go` and the
`setup-local-disks` script in awslabs/amazon-eks-ami. A managed node group
(no custom AMI) appends its own NodeConfig part with the cluster's name,
endpoint and CA; nodeadm merges every `application/node.eks.aws` part, so ours
carries only what we change and no cluster coordinates.
"""

from __future__ import annotations

from typing import Any

import yaml

from fastload_constructs.core.errors import one_of

NODEADM_API_VERSION = "node.eks.aws/v1alpha1"
NODEADM_KIND = "NodeConfig"
NODEADM_CONTENT_TYPE = "application/node.eks.aws"
LOCAL_STORAGE_STRATEGIES = ("RAID0", "RAID10", "Mount")
MIME_BOUNDARY = "==FASTLOAD-NODEADM=="
SHELL_CONTENT_TYPE = 'Content-Type: text/x-shellscript; charset="us-ascii"'


def node_config(
    *,
    local_storage: str | None = "RAID0",
    fast_image_pull: bool = False,
    containerd_on_image_cache: bool = False,
) -> dict[str, Any]:
    """A NodeConfig document; `local_storage=None` leaves instance-store disks alone.

    `fast_image_pull` turns on nodeadm's `FastImagePull` feature gate (parallel
    layer pulls); nodeadm ignores it below its vCPU/memory threshold.
    `containerd_on_image_cache` keeps containerd's root off the instance-store
    array (`disabledMounts: [Containerd]`): it lives on the image-cache volume
    (core.cluster.image_cache), which a user-data script mounts first.
    """
    spec: dict[str, Any] = {}
    if local_storage is not None:
        one_of("local_storage", local_storage, LOCAL_STORAGE_STRATEGIES)
        storage: dict[str, Any] = {"strategy": local_storage}
        if containerd_on_image_cache:
            storage["disabledMounts"] = ["Containerd"]
        spec["instance"] = {"localStorage": storage}
    if fast_image_pull:
        spec["featureGates"] = {"FastImagePull": True}
    return {"apiVersion": NODEADM_API_VERSION, "kind": NODEADM_KIND, "spec": spec}


def mime_user_data(*documents: dict[str, Any], scripts: tuple[str, ...] = ()) -> str:
    """EC2 user data: a MIME multipart/mixed message, one nodeadm part per document, then one
    `text/x-shellscript` part per script (cloud-init runs them before nodeadm starts containerd)."""
    lines = [
        "MIME-Version: 1.0",
        f'Content-Type: multipart/mixed; boundary="{MIME_BOUNDARY}"',
        "",
    ]
    for document in documents:
        lines += [
            f"--{MIME_BOUNDARY}",
            f"Content-Type: {NODEADM_CONTENT_TYPE}",
            "",
            "---",
            yaml.safe_dump(document, sort_keys=False).rstrip("\n"),
            "",
        ]
    for script in scripts:
        lines += [f"--{MIME_BOUNDARY}", SHELL_CONTENT_TYPE, "", script.rstrip("\n"), ""]
    lines.append(f"--{MIME_BOUNDARY}--")
    return "\n".join(lines) + "\n"
