"""A node snapshot against the images a node needs before its first pod.

A node whose containerd volume is restored from a snapshot starts pods only with what that snapshot holds and
what its OS brings (`REQUIRED_BEFORE_FIRST_POD`): on AL2023 the restored volume hides the AMI's own containerd
root, where the sandbox image lives; the device plugin's DaemonSet (AL2023's GPU nodes offer no GPU without it)
and the pods that land there pull whatever the snapshot lacks, at the registry's speed the plan did not count.

Pools: Karpenter NodePools (their template's labels and taints, the values of their requirements, their
EC2NodeClass's AMI family and restored snapshots) and EKS managed node groups (labels, taints, AMI type, the
launch template's snapshots). Which pools run the DaemonSets at all is tests/rehearsal/daemonsets.py's rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# What a node of each family needs before its first pod can start, beyond the pods' own images, and whether
# the OS brings it.
REQUIRED_BEFORE_FIRST_POD: dict[str, tuple[str, ...]] = {
    # nodeadm points containerd's sandbox at this local-only tag (awslabs/amazon-eks-ami
    # nodeadm/cmd/nodeadm/init/init.go `SandboxImage`), which exists only in the AMI's /var/lib/containerd
    # (templates/al2023/runtime/bin/cache-pause-container) and is re-imported only in SOCI mode
    # (nodeadm/internal/containerd/daemon.go): a volume mounted over /var/lib/containerd must hold it.
    "al2023": ("localhost/kubernetes/pause:latest",),
    # Built into the OS and imported at every kubelet start (bottlerocket-os/bottlerocket-core-kit
    # packages/kubernetes-*/prestart-load-pause-ctr.conf); the device plugin is a host service.
    "bottlerocket": (),
}
GPU_TAINT = "nvidia.com/gpu"
SNAPSHOT_RESOURCE = "Custom::NodeImageSnapshot"  # infra.NodeImageSnapshot: its Images, SandboxImage, AmiFamily
# The NVIDIA device plugin image a chart release runs: the chart's appVersion is its release
# (https://github.com/NVIDIA/k8s-device-plugin/blob/v0.20.0/deployments/helm/nvidia-device-plugin/values.yaml:
# `image.tag` "Overrides the image tag whose default is the chart appVersion").
DEVICE_PLUGIN_IMAGE = "nvcr.io/nvidia/k8s-device-plugin:v{version}"


@dataclass(frozen=True)
class Pool:
    """A set of nodes that share labels and taints."""

    where: str
    labels: Mapping[str, frozenset[str]]  # label -> the values its nodes may carry
    taints: tuple[Mapping[str, str], ...]
    family: str | None
    snapshot_ids: tuple[str, ...] = ()

    @property
    def gpu(self) -> bool:
        return any(t.get("key") == GPU_TAINT for t in self.taints)


@dataclass(frozen=True)
class PodPlacement:
    """Where a pod may run: its tolerations, node selector and required node affinity terms."""

    where: str
    tolerations: tuple[Mapping[str, Any], ...]
    node_selector: Mapping[str, str] = field(default_factory=dict)
    terms: tuple[tuple[Mapping[str, Any], ...], ...] | None = None
    images: tuple[str, ...] = ()

    def selects(self, pool: Pool) -> bool:
        for key, value in self.node_selector.items():
            if value not in pool.labels.get(key, frozenset()):
                return False
        if self.terms is None:
            return True
        return any(all(_expression_matches(e, pool) for e in term) for term in self.terms)

    def tolerates(self, taint: Mapping[str, str]) -> bool:
        return any(_tolerates(t, taint) for t in self.tolerations)


def _expression_matches(expression: Mapping[str, Any], pool: Pool) -> bool:
    """A node selector requirement against the values a pool's nodes may carry (any of them)."""
    values = pool.labels.get(expression["key"])
    wanted = set(expression.get("values", []))
    operator = expression["operator"]
    if operator == "In":
        return values is not None and bool(values & wanted)
    if operator == "NotIn":
        return values is None or bool(values - wanted)
    if operator == "Exists":
        return values is not None
    if operator == "DoesNotExist":
        return values is None
    raise AssertionError(f"node selector operator {operator} is not modelled")


def _tolerates(toleration: Mapping[str, Any], taint: Mapping[str, str]) -> bool:
    """Kubernetes' ToleratesTaint: key (empty with Exists = every key), value unless Exists, effect unless empty."""
    if toleration.get("effect") and toleration["effect"] != taint.get("effect"):
        return False
    if not toleration.get("key"):
        return toleration.get("operator") == "Exists"
    if toleration["key"] != taint.get("key"):
        return False
    return toleration.get("operator") == "Exists" or toleration.get("value", "") == taint.get("value", "")


def placement(where: str, pod: Mapping[str, Any]) -> PodPlacement:
    affinity = pod.get("affinity", {}).get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = None
    if affinity:
        terms = tuple(tuple(t.get("matchExpressions", [])) for t in affinity.get("nodeSelectorTerms", []))
    containers = [*pod.get("initContainers", []), *pod.get("containers", [])]
    return PodPlacement(
        where=where,
        tolerations=tuple(pod.get("tolerations", [])),
        node_selector=dict(pod.get("nodeSelector") or {}),
        terms=terms,
        images=tuple(c["image"] for c in containers),
    )


# --- pools --------------------------------------------------------------------------------------------


def _family_of_alias(alias: str) -> str | None:
    family = alias.split("@", 1)[0]
    return family if family in REQUIRED_BEFORE_FIRST_POD else None


def karpenter_pools(manifests: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Pool]:
    objects = list(manifests)
    classes = {o["metadata"]["name"]: o["spec"] for _, o in objects if o.get("kind") == "EC2NodeClass"}
    pools = []
    for lid, obj in objects:
        if obj.get("kind") != "NodePool":
            continue
        template = obj["spec"]["template"]
        labels = {k: frozenset([v]) for k, v in template.get("metadata", {}).get("labels", {}).items()}
        for requirement in template["spec"].get("requirements", []):
            if requirement["operator"] == "In":
                labels[requirement["key"]] = frozenset(requirement["values"])
        labels["kubernetes.io/os"] = frozenset(["linux"])
        labels["karpenter.sh/nodepool"] = frozenset([obj["metadata"]["name"]])
        node_class = classes.get(template["spec"]["nodeClassRef"]["name"], {})
        alias = next((t.get("alias") for t in node_class.get("amiSelectorTerms", []) if t.get("alias")), "")
        snapshots = tuple(
            m["ebs"]["snapshotID"]
            for m in node_class.get("blockDeviceMappings", [])
            if m.get("ebs", {}).get("snapshotID")
        )
        pools.append(
            Pool(
                where=f"{lid} NodePool/{obj['metadata']['name']}",
                labels=labels,
                taints=tuple(template["spec"].get("taints", [])),
                family=_family_of_alias(alias),
                snapshot_ids=snapshots,
            )
        )
    return pools


_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}


def nodegroup_pools(
    nodegroups: Mapping[str, Mapping[str, Any]],
    labels_of: Mapping[str, Mapping[str, str]],
    snapshots_of: Callable[[Mapping[str, Any]], tuple[str, ...]],
) -> list[Pool]:
    pools = []
    for lid, props in nodegroups.items():
        ami = str(props.get("AmiType", ""))
        family = "bottlerocket" if ami.startswith("BOTTLEROCKET") else "al2023" if ami.startswith("AL2023") else None
        taints = tuple(
            {"key": t["Key"], "value": t.get("Value", ""), "effect": _EFFECTS[t["Effect"]]}
            for t in props.get("Taints", [])
        )
        labels = {k: frozenset([str(v)]) for k, v in labels_of[lid].items()}
        if props.get("InstanceTypes"):
            labels["node.kubernetes.io/instance-type"] = frozenset(props["InstanceTypes"])
        pools.append(Pool(f"{lid} Nodegroup", labels, taints, family, snapshots_of(props)))
    return pools


# --- DaemonSets whose images a pool's snapshot must hold ---------------------------------------------------


@dataclass(frozen=True)
class DaemonSet:
    """A DaemonSet's placement and the pools it must run on (their snapshots must hold its images)."""

    placement: PodPlacement
    must_serve: Callable[[Pool], bool] = lambda pool: False


def device_plugin(where: str, rendered: Mapping[str, Any], version: str) -> DaemonSet:
    """The NVIDIA device plugin chart's DaemonSet (`rendered`: our values over the chart's vendored defaults, as
    Helm merges them). Every GPU pool whose OS has no plugin of its own (AL2023) runs it."""
    view = placement(where, rendered)
    view = PodPlacement(
        where, view.tolerations, view.node_selector, view.terms, (DEVICE_PLUGIN_IMAGE.format(version=version),)
    )
    return DaemonSet(view, must_serve=lambda pool: pool.gpu and pool.family != "bottlerocket")


def manifest_daemonset(where: str, obj: Mapping[str, Any]) -> DaemonSet:
    """A DaemonSet we apply ourselves: it runs on every pool it selects."""
    view = placement(where, obj["spec"]["template"]["spec"])
    return DaemonSet(view, must_serve=view.selects)


# --- what a restored snapshot must hold ---------------------------------------------------------


def _normalized(image: str) -> str:
    first = image.split("/", 1)[0]
    if "/" not in image:
        return f"docker.io/library/{image}"
    if "." in first or ":" in first or first == "localhost":
        return image
    return f"docker.io/{image}"


def snapshot_problems(
    pools: Iterable[Pool],
    snapshots: Mapping[str, Mapping[str, Any]],
    pods: Iterable[PodPlacement],
    daemonsets: Iterable[DaemonSet],
) -> list[str]:
    """Every pool restoring a snapshot built in this stack (`snapshots`: snapshot id -> the NodeImageSnapshot's
    properties): the snapshot must hold the family's required images, the images of the DaemonSets that must
    serve the pool, and those of the pods that run there. A snapshot id from outside the stack is not checked
    (its contents are not known here)."""
    pods, daemonsets = list(pods), list(daemonsets)
    problems = []
    for pool in pools:
        for snapshot_id in pool.snapshot_ids:
            built = snapshots.get(snapshot_id)
            if built is None:
                continue
            held = {_normalized(i) for i in built["Images"]} | (
                {built["SandboxImage"]} if built.get("SandboxImage") else set()
            )
            if built.get("AmiFamily") != pool.family:
                problems.append(f"{pool.where}: restores a {built.get('AmiFamily')} snapshot on {pool.family} nodes")
            needed = [(i, "the OS's sandbox image") for i in REQUIRED_BEFORE_FIRST_POD.get(pool.family or "", ())]
            needed += [(i, d.placement.where) for d in daemonsets if d.must_serve(pool) for i in d.placement.images]
            needed += [
                (i, p.where)
                for p in pods
                if p.selects(pool) and all(p.tolerates(t) for t in pool.taints if t.get("effect") == "NoSchedule")
                for i in p.images
            ]
            for image, why in dict.fromkeys(needed):
                if _normalized(image) not in held and image not in held:
                    problems.append(
                        f"{pool.where}: snapshot {snapshot_id} lacks {image}, which {why} needs before it runs"
                    )
    return problems
