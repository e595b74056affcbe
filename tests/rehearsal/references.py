"""References between the Kubernetes objects a stack applies: what must exist when a pod, ScaledObject or NodePool
is admitted or reconciled.

A name the API server accepts can still point at nothing: a pod whose service account or
PriorityClass does not exist is refused at admission (the ServiceAccount and Priority
admission plugins), a ScaledObject whose target or TriggerAuthentication is missing never
scales, a NodePool whose EC2NodeClass is missing launches no node.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

BUILTIN_NAMESPACES = {"default", "kube-system", "kube-public", "kube-node-lease"}
BUILTIN_PRIORITY_CLASSES = {"system-cluster-critical", "system-node-critical"}


def _pod_specs(obj: Mapping[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(pod template labels, pod spec) of a workload object."""
    template = obj.get("spec", {}).get("template", {})
    if obj.get("kind") in ("Deployment", "DaemonSet", "StatefulSet", "Job", "ReplicaSet") and "spec" in template:
        return [(template.get("metadata", {}).get("labels", {}), template["spec"])]
    return []


def problems(
    objects: Iterable[tuple[str, Mapping[str, Any]]],
    *,
    namespaces: set[str],
    service_accounts: set[tuple[str, str]],
) -> list[str]:
    """`namespaces` and `service_accounts`: those created outside these objects (Helm releases, add-ons)."""
    objects = list(objects)
    named = {(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]) for _, o in objects}
    names = {n for kind, _, n in named if kind == "Namespace"} | BUILTIN_NAMESPACES | namespaces
    accounts = {(ns, n) for kind, ns, n in named if kind == "ServiceAccount"} | service_accounts
    classes = {n for kind, _, n in named if kind == "PriorityClass"} | BUILTIN_PRIORITY_CLASSES
    pods = [(o["metadata"].get("namespace"), labels) for _, o in objects for labels, _ in _pod_specs(o)]
    pods += _launcher_pods(objects)
    found = []
    for lid, o in objects:
        kind, ns, name = o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]
        where = f"{lid} {kind}/{name}"
        if ns is not None and ns not in names:
            found.append(f"{where}: namespace {ns!r} is created by nothing in this stack")
        for _, spec in _pod_specs(o):
            account = spec.get("serviceAccountName", "default")
            if account != "default" and (ns, account) not in accounts:
                found.append(f"{where}: service account {ns}/{account} does not exist")
            if spec.get("priorityClassName") and spec["priorityClassName"] not in classes:
                found.append(f"{where}: PriorityClass {spec['priorityClassName']!r} does not exist")
            for volume in spec.get("volumes", []):
                config = volume.get("configMap")
                if config and not config.get("optional") and ("ConfigMap", ns, config["name"]) not in named:
                    found.append(f"{where}: ConfigMap {ns}/{config['name']} (volume {volume['name']}) does not exist")
        spec = o.get("spec", {})
        if kind == "ScaledObject":
            target = spec["scaleTargetRef"]
            if (target.get("kind", "Deployment"), ns, target["name"]) not in named:
                found.append(f"{where}: scaleTargetRef {target} does not exist in {ns}")
            for trigger in spec.get("triggers", []):
                auth = trigger.get("authenticationRef")
                auth_kind = (auth or {}).get("kind", "TriggerAuthentication")
                auth_ns = None if auth_kind == "ClusterTriggerAuthentication" else ns
                if auth and (auth_kind, auth_ns, auth["name"]) not in named:
                    found.append(f"{where}: authenticationRef {auth} does not exist")
        if kind == "NodePool":
            ref = spec["template"]["spec"]["nodeClassRef"]
            if (ref["kind"], None, ref["name"]) not in named:
                found.append(f"{where}: nodeClassRef {ref} does not exist")
        selector = _selector(o)
        if selector and not any(pns == ns and _selects(selector, labels) for pns, labels in pods):
            found.append(f"{where}: selector {selector} selects no pod template in {ns}")
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
