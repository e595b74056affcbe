"""References between the Kubernetes objects a stack applies: what must exist when a pod, ScaledObject or NodePool
is admitted or reconciled.

A name the API server accepts can still point at nothing: a pod whose service account or
PriorityClass does not exist is refused at admission (the ServiceAccount and Priority
admission plugins), a ScaledObject whose target or TriggerAuthentication is missing never
scales, a NodePool whose EC2NodeClass is missing launches no node.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

BUILTIN_NAMESPACES = {"default", "kube-system", "kube-public", "kube-node-lease"}
BUILTIN_PRIORITY_CLASSES = {"system-cluster-critical", "system-node-critical"}


def _pod_specs(obj: Mapping[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(pod template labels, pod spec) of a workload object."""
    template = obj.get("spec", {}).get("template", {})
    if obj.get("kind") in ("Deployment", "DaemonSet", "StatefulSet", "Job", "ReplicaSet") and "spec" in template:
        return [(template.get("metadata", {}).get("labels", {}), template["spec"])]
    return []


@dataclass(frozen=True)
class _Cluster:
    """What exists on the cluster when the objects are applied: their own, and what came before them."""

    named: set[tuple[str, str | None, str]]  # (kind, namespace, name)
    namespaces: set[str]
    accounts: set[tuple[str, str]]
    classes: set[str]
    pods: list[tuple[str | None, dict[str, str]]]  # (namespace, pod template labels)


def problems(
    objects: Iterable[tuple[str, Mapping[str, Any]]],
    *,
    namespaces: set[str],
    service_accounts: set[tuple[str, str]],
    existing: Iterable[tuple[str, Mapping[str, Any]]] = (),
) -> list[str]:
    """`namespaces` and `service_accounts`: those created outside these objects (Helm releases, add-ons);
    `existing`: objects applied before these (by stacks deployed earlier): referred to, not checked."""
    objects = list(objects)
    every = [*objects, *existing]
    named = {(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for _, o in every}
    cluster = _Cluster(
        named=named,
        namespaces={n for kind, _, n in named if kind == "Namespace"} | BUILTIN_NAMESPACES | namespaces,
        accounts={(ns, n) for kind, ns, n in named if kind == "ServiceAccount"} | service_accounts,
        classes={n for kind, _, n in named if kind == "PriorityClass"} | BUILTIN_PRIORITY_CLASSES,
        pods=[(o["metadata"].get("namespace"), labels) for _, o in every for labels, _ in _pod_specs(o)]
        + _launcher_pods(every),
    )
    return [problem for lid, o in objects for problem in _object_problems(lid, o, cluster)]


def _object_problems(lid: str, o: Mapping[str, Any], cluster: _Cluster) -> list[str]:
    kind, ns, name = o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]
    where = f"{lid} {kind}/{name}"
    found = []
    if ns is not None and ns not in cluster.namespaces:
        found.append(f"{where}: namespace {ns!r} is created by nothing in this stack or one deployed before it")
    for _, spec in _pod_specs(o):
        found += _pod_problems(where, ns, spec, cluster)
    spec = o.get("spec", {})
    if kind == "ScaledObject":
        found += _scaled_object_problems(where, ns, spec, cluster)
    if kind == "NodePool":
        ref = spec["template"]["spec"]["nodeClassRef"]
        if (ref["kind"], None, ref["name"]) not in cluster.named:
            found.append(f"{where}: nodeClassRef {ref} does not exist")
    selector = _selector(o)
    if selector and not any(pns == ns and _selects(selector, labels) for pns, labels in cluster.pods):
        found.append(f"{where}: selector {selector} selects no pod template in {ns}")
    return found


def _pod_problems(where: str, ns: str | None, spec: Mapping[str, Any], cluster: _Cluster) -> list[str]:
    """The service account, PriorityClass and ConfigMap volumes a pod names."""
    found = []
    account = spec.get("serviceAccountName", "default")
    if account != "default" and (ns, account) not in cluster.accounts:
        found.append(f"{where}: service account {ns}/{account} does not exist")
    if spec.get("priorityClassName") and spec["priorityClassName"] not in cluster.classes:
        found.append(f"{where}: PriorityClass {spec['priorityClassName']!r} does not exist")
    for volume in spec.get("volumes", []):
        config = volume.get("configMap")
        if config and not config.get("optional") and ("ConfigMap", ns, config["name"]) not in cluster.named:
            found.append(f"{where}: ConfigMap {ns}/{config['name']} (volume {volume['name']}) does not exist")
    return found


def _scaled_object_problems(where: str, ns: str | None, spec: Mapping[str, Any], cluster: _Cluster) -> list[str]:
    """Its target and its TriggerAuthentications."""
    found = []
    target = spec["scaleTargetRef"]
    if (target.get("kind", "Deployment"), ns, target["name"]) not in cluster.named:
        found.append(f"{where}: scaleTargetRef {target} does not exist in {ns}")
    for trigger in spec.get("triggers", []):
        auth = trigger.get("authenticationRef")
        auth_kind = (auth or {}).get("kind", "TriggerAuthentication")
        auth_ns = None if auth_kind == "ClusterTriggerAuthentication" else ns
        if auth and (auth_kind, auth_ns, auth["name"]) not in cluster.named:
            found.append(f"{where}: authenticationRef {auth} does not exist")
    return found


def _launcher_pods(objects: list[tuple[str, Mapping[str, Any]]]) -> list[tuple[str | None, dict[str, str]]]:
    """FMA's launcher Pods: its LauncherConfig's pod template labels, plus the labels an InferenceServerConfig naming
    that LauncherConfig has FMA put on the Pod while its engine is bound (api/v1alpha1 ModelServerConfig.Labels)."""
    found = []
    for _, obj in objects:
        if obj.get("kind") != "LauncherConfig":
            continue
        ns, name = obj["metadata"].get("namespace"), obj["metadata"]["name"]
        labels = dict(obj["spec"]["podTemplate"].get("metadata", {}).get("labels", {}))
        found.append((ns, labels))
        for _, isc in objects:
            spec = isc.get("spec", {})
            if isc.get("kind") == "InferenceServerConfig" and spec.get("launcherConfigName") == name:
                found.append((ns, {**labels, **spec.get("modelServerConfig", {}).get("labels", {})}))
    return found


def _selector(obj: Mapping[str, Any]) -> dict[str, str]:
    """The pod labels a Service, PodDisruptionBudget or NetworkPolicy selects by (matchLabels only)."""
    spec = obj.get("spec", {})
    if obj["kind"] == "Service":
        return dict(spec.get("selector", {}))
    if obj["kind"] == "PodDisruptionBudget":
        return dict(spec.get("selector", {}).get("matchLabels", {}))
    if obj["kind"] == "NetworkPolicy":
        return dict(spec.get("podSelector", {}).get("matchLabels", {}))
    return {}


def _selects(selector: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())
