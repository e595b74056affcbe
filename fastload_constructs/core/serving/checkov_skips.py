"""Why some checkov findings on the emitted workloads are deliberate: the reason for each skipped check, per kind.

Reviewers scan the manifests with checkov (bridgecrewio/checkov). A finding that is a deliberate choice is
skipped where it arises, on the object's own metadata, in checkov's documented form
`checkov.io/skip<N>: <check id>=<reason>` (checkov docs, "Suppressing and Skipping Policies", Kubernetes):
checkov then reports the check as skipped, with the reason. A skip covers the object and the pods of its
template (graph checks such as CKV2_K8S_6 read the parent's annotations), so a kind lists only what holds
for every container in it; every other finding is hardened away in the charts (k8s/). checkov 3.x unpacks
`value.split("=")` into the check id and the reason (checkov/kubernetes/kubernetes_utils.py
get_skipped_checks): a reason holds no '='.

Pure: the charts put `skip_annotations(workload_skips(...))` on each object's metadata.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType

ANNOTATION_PREFIX = "checkov.io/skip"
CHECK_ID = re.compile(r"CKV2?_K8S_(\d+)")


class Workload(enum.Enum):
    """A kind of workload the charts emit, by what its containers are and do."""

    SERVER = "inference-server"  # ServerChart's Deployment: the engine, its cache steps and sidecars
    WARM_SPARE = "warm-spare"  # the engine image's cache steps, then a container that sleeps on the GPUs
    STANDBY_REQUESTER = "standby-requester"  # FMA's requester pods (KEDA's Deployment and the primer)
    STANDBY_PRIMER_JOB = "standby-primer-job"  # kubectl scaling the primer up and down
    CAPACITY_BUFFER = "capacity-buffer"  # the PodTemplate Karpenter simulates
    STORAGE_PROVISIONER = "storage-provisioner"  # the local static provisioner DaemonSet


# The reasons, each written once.
CPU_REQUEST_ONLY = (
    "CPU is requested, not limited: the request reserves the share and a CFS quota would only throttle "
    "(the engine's tokenizer and scheduler threads above all)"
)
IF_NOT_PRESENT = (
    "the tag is pinned, so IfNotPresent reuses the image a node already holds (the GPU nodes' image snapshot, "
    "warm spares); Always would ask the registry at every start"
)
ENGINE_TAG = (
    "pinned to a release tag (latest is refused): the tag names the engine release the plan and the "
    "compile-cache key are made for"
)
RELEASE_TAG = "pinned to a checked release tag, never latest"
ENGINE_ROOT = (
    "the engine images (vllm/vllm-openai, lmsysorg/sglang) have no USER and run as root; kubelet creates the "
    "host-path caches root-owned"
)
ENGINE_WRITABLE_ROOT = "the engines, Triton and Inductor write under $HOME and /tmp in the image"
SIDECAR_PROBES = (
    "a cache sidecar serves no port to probe; the server container has startup, readiness and liveness probes"
)
SPARE_PROBES = "the reserve container only sleeps to hold the GPUs for a server pod: it serves nothing to probe"
REQUESTER_LIVENESS = (
    "FMA's requester serves only /ready, 503 until its engine is awake (llm-d-fast-model-actuation v0.6.4 "
    "pkg/server/requester/probes); as liveness it would restart requesters of loading engines"
)
REQUESTER_ROOT = (
    "FMA's requester image (a CUDA base, no USER) runs as FMA runs it, as root on a writable root; it execs nvidia-smi"
)
PRIMER_TOKEN = "kubectl scales the primer Deployment through the API as this account (a Role on that one only)"
NEVER_RUN = "Karpenter only simulates this pod to keep a node's room; it is never created, pulled or run"
PROVISIONER_PRIVILEGED = (
    "Bidirectional bind mounts need a privileged init container; the provisioner wipes released volumes and runs "
    "privileged as upstream's chart does (sig-storage-local-static-provisioner v2.9.0 helm/provisioner/values.yaml)"
)
PRIVILEGED_ESCALATION = "the API rejects allowPrivilegeEscalation false on a privileged container"
PRIVILEGED_CAPABILITIES = "a privileged container holds every capability, whatever its drop list"
PRIVILEGED_SECCOMP = (
    "privileged containers always run Unconfined, so a profile would be ignored "
    "(kubernetes.io/docs/reference/node/seccomp)"
)
PRIVILEGED_ROOT_FS = "a privileged container can remount its root read-write: read-only would add nothing"
PROVISIONER_ROOT = "the bind mounts and wiping files other pods wrote on the host need root"
PROVISIONER_TOKEN = "the provisioner creates and deletes PersistentVolumes and reads its Node through the API"

# What every engine pod (the server, a warm spare) skips.
ENGINE_POD: Mapping[str, str] = MappingProxyType(
    {
        "CKV_K8S_11": CPU_REQUEST_ONLY,
        "CKV_K8S_15": IF_NOT_PRESENT,
        "CKV_K8S_22": ENGINE_WRITABLE_ROOT,
        "CKV_K8S_23": ENGINE_ROOT,
        "CKV_K8S_40": ENGINE_ROOT,
        "CKV_K8S_43": ENGINE_TAG,
    }
)

# checkov check id -> why it is skipped, per kind of workload.
SKIPS: Mapping[Workload, Mapping[str, str]] = MappingProxyType(
    {
        Workload.SERVER: ENGINE_POD,
        Workload.WARM_SPARE: {"CKV_K8S_8": SPARE_PROBES, "CKV_K8S_9": SPARE_PROBES, **ENGINE_POD},
        Workload.STANDBY_REQUESTER: {
            "CKV_K8S_8": REQUESTER_LIVENESS,
            "CKV_K8S_11": CPU_REQUEST_ONLY,
            "CKV_K8S_15": IF_NOT_PRESENT,
            "CKV_K8S_22": REQUESTER_ROOT,
            "CKV_K8S_23": REQUESTER_ROOT,
            "CKV_K8S_40": REQUESTER_ROOT,
            "CKV_K8S_43": RELEASE_TAG,
        },
        Workload.STANDBY_PRIMER_JOB: {
            "CKV_K8S_11": CPU_REQUEST_ONLY,
            "CKV_K8S_15": IF_NOT_PRESENT,
            "CKV_K8S_38": PRIMER_TOKEN,
            "CKV_K8S_43": RELEASE_TAG,
        },
        Workload.CAPACITY_BUFFER: dict.fromkeys(
            ("CKV_K8S_8", "CKV_K8S_9", "CKV_K8S_15", "CKV_K8S_22", "CKV_K8S_43"), NEVER_RUN
        ),
        Workload.STORAGE_PROVISIONER: {
            "CKV_K8S_15": IF_NOT_PRESENT,
            "CKV_K8S_16": PROVISIONER_PRIVILEGED,
            "CKV_K8S_20": PRIVILEGED_ESCALATION,
            "CKV_K8S_22": PRIVILEGED_ROOT_FS,
            "CKV_K8S_23": PROVISIONER_ROOT,
            "CKV_K8S_28": PRIVILEGED_CAPABILITIES,
            "CKV_K8S_31": PRIVILEGED_SECCOMP,
            "CKV_K8S_37": PRIVILEGED_CAPABILITIES,
            "CKV_K8S_38": PROVISIONER_TOKEN,
            "CKV_K8S_40": PROVISIONER_ROOT,
            "CKV_K8S_43": RELEASE_TAG,
        },
    }
)
# Only for a server pod with sidecars (the compile-cache publisher): checkov wants probes on every container.
SIDECAR_SKIPS: Mapping[str, str] = MappingProxyType({"CKV_K8S_8": SIDECAR_PROBES, "CKV_K8S_9": SIDECAR_PROBES})
IMAGE_DIGEST = "CKV_K8S_43"


def workload_skips(workload: Workload, images: Iterable[str], *, sidecars: bool = False) -> dict[str, str]:
    """Check id -> reason for one object of `workload` running `images`.

    The digest check is skipped only while an image is referenced by tag (one given as `@sha256:` passes it);
    the probe checks of a server only beside `sidecars`.
    """
    skips = dict(SKIPS[workload])
    if sidecars:
        skips.update(SIDECAR_SKIPS)
    if all("@sha256:" in image for image in images):
        skips.pop(IMAGE_DIGEST, None)
    return skips


def _order(check: str) -> tuple[str, int]:
    match = CHECK_ID.fullmatch(check)
    assert match is not None, check
    return check.split("_", 1)[0], int(match.group(1))


def skip_annotations(skips: Mapping[str, str]) -> dict[str, str]:
    """`checkov.io/skip1..N` annotations, one per check in check-number order."""
    for check, reason in skips.items():
        assert CHECK_ID.fullmatch(check) and reason and "=" not in reason, (check, reason)
    ordered = sorted(skips, key=_order)
    return {f"{ANNOTATION_PREFIX}{i}": f"{check}={skips[check]}" for i, check in enumerate(ordered, start=1)}
