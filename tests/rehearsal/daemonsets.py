"""DaemonSets against the node pools they must serve: a taint they do not tolerate keeps them off a pool.

A DaemonSet pod is scheduled on a node only when its node selection (nodeSelector and
required node affinity) matches the node's labels and its tolerations tolerate every
NoSchedule and NoExecute taint of the node (Kubernetes docs, "Taints and Tolerations" and
"DaemonSet": https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/,
https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/#how-daemon-pods-are-scheduled).
So a pool whose nodes a DaemonSet selects but whose taint it does not tolerate never gets
that DaemonSet: for the NVIDIA device plugin, nodes that advertise no `nvidia.com/gpu`.

Besides that, a GPU pool on an AMI without a built-in device plugin must be served by the
NVIDIA device plugin's DaemonSet (Bottlerocket's NVIDIA variants ship the plugin in the OS:
https://github.com/bottlerocket-os/bottlerocket/blob/develop/README.md "Kubernetes ... NVIDIA"),
and a pool whose OS has one must not be (two plugins register the same devices with the kubelet).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.naming import LABEL_GPU_MODEL

# AWS::EKS::Nodegroup Taints[].Effect spellings (CloudFormation) -> the Kubernetes taint effects.
_CFN_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}
# Only these keep a pod off a node; PreferNoSchedule is a preference.
_BLOCKING = ("NoSchedule", "NoExecute")
DEVICE_PLUGIN_CHART = "nvidia-device-plugin"


@dataclass(frozen=True)
class Pool:
    """Nodes of one managed node group or Karpenter NodePool: the labels they carry and their taints."""

    where: str
    labels: Mapping[str, str]
    taints: tuple[Mapping[str, str], ...]
    builtin_device_plugin: bool


@dataclass(frozen=True)
class DaemonSetPods:
    """Where a DaemonSet's pods may go: from a manifest's pod template or a Helm release's rendered values."""

    where: str
    node_selector: Mapping[str, str]
    affinity: Mapping[str, Any]
    tolerations: tuple[Mapping[str, Any], ...]
    device_plugin: bool = False


def _expression_holds(req: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """A NodeSelectorRequirement on a node's labels (k8s.io/component-helpers nodeaffinity)."""
    key, op, values = req.get("key"), req.get("operator"), [str(v) for v in req.get("values", [])]
    present = key in labels
    if op == "In":
        return present and labels[key] in values
    if op == "NotIn":
        return not present or labels[key] not in values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op in ("Gt", "Lt") and present and labels[key].lstrip("-").isdigit():
        return int(labels[key]) > int(values[0]) if op == "Gt" else int(labels[key]) < int(values[0])
    return False


def selects(pods: DaemonSetPods, labels: Mapping[str, str]) -> bool:
    """The pods' nodeSelector and required node affinity (terms ORed, expressions ANDed) match `labels`."""
    if any(labels.get(k) != v for k, v in pods.node_selector.items()):
        return False
    required = pods.affinity.get("nodeAffinity", {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    if not required:
        return True
    return any(
        all(_expression_holds(req, labels) for req in term.get("matchExpressions", []))
        for term in required.get("nodeSelectorTerms", [])
    )


def tolerated(taint: Mapping[str, str], tolerations: Iterable[Mapping[str, Any]]) -> bool:
    """core/v1 Toleration.ToleratesTaint: effect empty or equal; empty key with Exists matches any key;
    Exists matches any value, Equal (the default) the taint's value."""
    for t in tolerations:
        if t.get("effect") and t["effect"] != taint["effect"]:
            continue
        operator = t.get("operator", "Equal")
        if not t.get("key"):
            if operator == "Exists":
                return True
            continue
        if t["key"] != taint["key"]:
            continue
        if operator == "Exists" or str(t.get("value", "")) == str(taint.get("value", "")):
            return True
    return False


def problems(
    daemonsets: Iterable[DaemonSetPods], pools: Iterable[Pool], *, need_device_plugin: bool = True
) -> list[str]:
    daemonsets, pools = list(daemonsets), list(pools)
    found = []
    for pool in pools:
        served_by_plugin = False
        for pods in daemonsets:
            if not selects(pods, pool.labels):
                continue
            blocking = [t for t in pool.taints if t["effect"] in _BLOCKING]
            missing = [t for t in blocking if not tolerated(t, pods.tolerations)]
            for taint in missing:
                found.append(
                    f"{pods.where} selects the nodes of {pool.where} but does not tolerate its taint "
                    f"{taint['key']}={taint.get('value', '')}:{taint['effect']}: no pod of it runs there"
                )
            served_by_plugin |= pods.device_plugin and not missing
            if pods.device_plugin and pool.builtin_device_plugin:
                found.append(
                    f"{pods.where} selects the nodes of {pool.where}, whose OS runs its own device plugin: "
                    "two plugins would register the same GPUs"
                )
        gpu_pool = LABEL_GPU_MODEL in pool.labels and not pool.builtin_device_plugin
        if need_device_plugin and gpu_pool and not served_by_plugin:
            found.append(
                f"{pool.where}: GPU nodes without a built-in device plugin, and no NVIDIA device plugin DaemonSet "
                "runs there: they advertise no nvidia.com/gpu"
            )
    return found


def nodegroup_pool(where: str, props: Mapping[str, Any], labels: Mapping[str, str]) -> Pool:
    """An AWS::EKS::Nodegroup: `labels` as Deployment.node_labels gives them; taints in CloudFormation's spelling."""
    taints = tuple(
        {"key": t["Key"], "value": t.get("Value", ""), "effect": _CFN_EFFECTS.get(t["Effect"], t["Effect"])}
        for t in props.get("Taints", [])
    )
    ami = str(props.get("AmiType", ""))
    return Pool(where, labels, taints, builtin_device_plugin=ami.startswith("BOTTLEROCKET"))


def node_pool(where: str, obj: Mapping[str, Any], node_classes: Mapping[str, Mapping[str, Any]]) -> Pool:
    """A Karpenter NodePool: its template labels plus each single-valued `In` requirement (Karpenter labels
    a node with the requirement's value); the AMI family from its EC2NodeClass's alias."""
    template = obj["spec"]["template"]
    labels = dict(template.get("metadata", {}).get("labels", {}))
    for req in template["spec"].get("requirements", []):
        if req.get("operator") == "In" and len(req.get("values", [])) == 1:
            labels.setdefault(req["key"], str(req["values"][0]))
    node_class = node_classes.get(template["spec"].get("nodeClassRef", {}).get("name", ""), {})
    aliases = [t.get("alias", "") for t in node_class.get("spec", {}).get("amiSelectorTerms", [])]
    taints = tuple(
        {"key": t["key"], "value": t.get("value", ""), "effect": t["effect"]}
        for t in template["spec"].get("taints", [])
    )
    return Pool(where, labels, taints, builtin_device_plugin=any(a.startswith("bottlerocket@") for a in aliases))


def manifest_daemonset(where: str, obj: Mapping[str, Any]) -> DaemonSetPods:
    spec = obj["spec"]["template"]["spec"]
    return DaemonSetPods(
        where=f"{where} DaemonSet/{obj['metadata']['name']}",
        node_selector=spec.get("nodeSelector", {}),
        affinity=spec.get("affinity", {}),
        tolerations=tuple(spec.get("tolerations", [])),
    )


def helm_daemonset(where: str, chart: str, rendered: Mapping[str, Any]) -> DaemonSetPods:
    """A chart whose templates copy nodeSelector, affinity and tolerations into its DaemonSet's pod spec."""
    return DaemonSetPods(
        where=f"{where} ({chart} DaemonSet)",
        node_selector=rendered.get("nodeSelector") or {},
        affinity=rendered.get("affinity") or {},
        tolerations=tuple(rendered.get("tolerations") or ()),
        device_plugin=chart == DEVICE_PLUGIN_CHART,
    )
