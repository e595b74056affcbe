"""The API server's own validation rules for the values we put into objects and pod specs.

Each rule follows Kubernetes' source (k8s.io/apimachinery/pkg/util/validation/validation.go,
k8s.io/apimachinery/pkg/api/validation, k8s.io/kubernetes/pkg/apis/core/validation/validation.go)
and returns a list of problems (empty when the value is accepted), each naming where it is.
These run on deploy-time values; the schema checks (kubernetes-validate, vendored CRDs)
elsewhere in tests/ stay as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

# validation.go: dns1123LabelFmt, DNS1123LabelMaxLength = 63
_DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
# validation.go: dns1123SubdomainFmt, DNS1123SubdomainMaxLength = 253
_DNS1123_SUBDOMAIN = _DNS1123_LABEL + r"(\." + _DNS1123_LABEL + r")*"
# validation.go: dns1035LabelFmt (Service names), 63
_DNS1035_LABEL = r"[a-z]([-a-z0-9]*[a-z0-9])?"
# validation.go: qualifiedNameFmt (label/annotation key name part), qualifiedNameMaxLength = 63
_QUALIFIED_NAME = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
# validation.go: labelValueFmt, LabelValueMaxLength = 63
_LABEL_VALUE = r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
# validation.go: envVarNameFmt (IsEnvVarName)
_ENV_VAR_NAME = r"[-._a-zA-Z][-._a-zA-Z0-9]*"
# k8s.io/apimachinery/pkg/api/resource/quantity.go: the serialised Quantity grammar
_QUANTITY = r"[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?\d+)?"


def _match(pattern: str, value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(pattern, value) is not None


def dns1123_label(value: Any, where: str) -> list[str]:
    """IsDNS1123Label: namespace names, container names, most label-like names."""
    if not _match(_DNS1123_LABEL, value) or len(value) > 63:
        return [f"{where} = {value!r} is not a DNS-1123 label (lower-case alphanumerics and '-', alnum ends, <= 63)"]
    return []


def dns1123_subdomain(value: Any, where: str) -> list[str]:
    """IsDNS1123Subdomain: names of most built-in kinds (NameIsDNSSubdomain)."""
    if not _match(_DNS1123_SUBDOMAIN, value) or len(value) > 253:
        return [f"{where} = {value!r} is not a DNS-1123 subdomain (lower-case alphanumerics, '-', '.', <= 253)"]
    return []


def dns1035_label(value: Any, where: str) -> list[str]:
    """IsDNS1035Label: Service names (they become DNS names and env vars), must start with a letter."""
    if not _match(_DNS1035_LABEL, value) or len(value) > 63:
        return [f"{where} = {value!r} is not a DNS-1035 label (starts with a letter, lower-case, <= 63)"]
    return []


def path_segment_name(value: Any, where: str) -> list[str]:
    """path.ValidatePathSegmentName: the least a custom resource's name must be (no '/', '%', not '.' or '..')."""
    if not isinstance(value, str) or not value or value in (".", "..") or "/" in value or "%" in value:
        return [f"{where} = {value!r} is not a valid path segment name"]
    return []


def qualified_name(value: Any, where: str) -> list[str]:
    """IsQualifiedName: label and annotation keys, `[prefix/]name`, prefix a DNS subdomain <= 253, name <= 63."""
    if not isinstance(value, str):
        return [f"{where}: key {value!r} is not a string"]
    prefix, _, name = value.rpartition("/")
    problems = []
    if "/" in value and (not _match(_DNS1123_SUBDOMAIN, prefix) or len(prefix) > 253):
        problems.append(f"{where}: key {value!r} has a prefix that is not a DNS-1123 subdomain (<= 253)")
    if not _match(_QUALIFIED_NAME, name) or len(name) > 63:
        problems.append(f"{where}: key {value!r} has a name part that is not [A-Za-z0-9._-] with alnum ends, <= 63")
    return problems


def label_value(value: Any, where: str) -> list[str]:
    """IsValidLabelValue: <= 63 characters of [A-Za-z0-9._-], beginning and ending alphanumeric, or empty."""
    if not _match(_LABEL_VALUE, value) or len(value) > 63:
        length = len(value) if isinstance(value, str) else "?"
        return [
            f"{where} = {value!r} is not a valid label value: at most 63 characters of [A-Za-z0-9._-], "
            f"alphanumeric at both ends (it has {length} characters)"
        ]
    return []


def labels(value: Any, where: str) -> list[str]:
    """ValidateLabels: every key a qualified name, every value a label value."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        return [f"{where} is not a map"]
    problems = []
    for key, val in value.items():
        problems += qualified_name(key, where) + label_value(val, f"{where}[{key!r}]")
    return problems


def annotation_map(value: Any, where: str) -> list[str]:
    """ValidateAnnotations: keys are qualified names (lower-cased first), total size <= 256 KiB."""
    if value is None:
        return []
    if not isinstance(value, Mapping):
        return [f"{where} is not a map"]
    problems = [p for key in value for p in qualified_name(str(key).lower(), where)]
    if sum(len(k) + len(str(v)) for k, v in value.items()) > 256 * 1024:
        problems.append(f"{where}: annotations exceed 256 KiB")
    return problems


def iana_svc_name(value: Any, where: str) -> list[str]:
    """IsValidPortName: <= 15 lower-case alphanumerics and '-', at least one letter, no '--', no '-' at the ends."""
    ok = (
        isinstance(value, str)
        and 0 < len(value) <= 15
        and re.fullmatch(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?", value) is not None
        and "--" not in value
        and re.search("[a-z]", value) is not None
    )
    return [] if ok else [f"{where} = {value!r} is not an IANA_SVC_NAME (<= 15, a-z0-9 and '-', one letter)"]


def env_var_name(value: Any, where: str) -> list[str]:
    """IsEnvVarName."""
    return [] if _match(_ENV_VAR_NAME, value) else [f"{where} = {value!r} is not a valid environment variable name"]


def quantity(value: Any, where: str) -> list[str]:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return []
    return [] if _match(_QUANTITY, value) else [f"{where} = {value!r} is not a resource quantity"]


def resources(value: Any, where: str) -> list[str]:
    """ResourceRequirements: resource names are qualified names, amounts quantities, requests <= limits unchecked."""
    problems: list[str] = []
    for part in ("requests", "limits"):
        for name, amount in (value or {}).get(part, {}).items():
            problems += qualified_name(name, f"{where}.{part}") + quantity(amount, f"{where}.{part}[{name!r}]")
    return problems


def node_selector(value: Any, where: str) -> list[str]:
    """A pod's nodeSelector is validated as labels (ValidateNodeSelector -> ValidateLabels)."""
    return labels(value, where)


_TAINT_EFFECTS = ("", "NoSchedule", "PreferNoSchedule", "NoExecute")


def tolerations(value: Any, where: str) -> list[str]:
    """validateTolerations: key a qualified name (empty only with Exists), operator Exists|Equal, Exists has
    no value, Equal's value a label value, effect one of the taint effects."""
    problems = []
    for i, t in enumerate(value or []):
        w = f"{where}[{i}]"
        key, op, val = t.get("key", ""), t.get("operator", "Equal"), t.get("value", "")
        if key:
            problems += qualified_name(key, w)
        elif op != "Exists":
            problems.append(f"{w}: an empty key needs operator Exists")
        if op == "Exists" and val:
            problems.append(f"{w}: operator Exists takes no value")
        elif op == "Equal":
            problems += label_value(val, f"{w}.value")
        elif op != "Exists":
            problems.append(f"{w}.operator = {op!r} is not Exists or Equal")
        if t.get("effect", "") not in _TAINT_EFFECTS:
            problems.append(f"{w}.effect = {t.get('effect')!r} is not one of {_TAINT_EFFECTS[1:]}")
    return problems


def _node_requirement(req: Mapping[str, Any], where: str) -> list[str]:
    """ValidateNodeSelectorRequirement."""
    problems = qualified_name(req.get("key"), where)
    op, values = req.get("operator"), req.get("values", [])
    if op in ("In", "NotIn") and not values:
        problems.append(f"{where}: operator {op} needs values")
    elif op in ("Exists", "DoesNotExist") and values:
        problems.append(f"{where}: operator {op} takes no values")
    elif op in ("Gt", "Lt") and (len(values) != 1 or not str(values[0]).lstrip("-").isdigit()):
        problems.append(f"{where}: operator {op} needs one integer value")
    elif op not in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"):
        problems.append(f"{where}.operator = {op!r} is not a node selector operator")
    return problems


def label_selector(value: Any, where: str) -> list[str]:
    """metav1validation.ValidateLabelSelector: matchLabels as labels, matchExpressions In/NotIn/Exists/DoesNotExist."""
    if not value:
        return []
    problems = labels(value.get("matchLabels"), f"{where}.matchLabels")
    for i, req in enumerate(value.get("matchExpressions", [])):
        w = f"{where}.matchExpressions[{i}]"
        problems += qualified_name(req.get("key"), w)
        op, values = req.get("operator"), req.get("values", [])
        if op in ("In", "NotIn"):
            problems += [f"{w}: operator {op} needs values"] if not values else []
            problems += [p for v in values for p in label_value(v, f"{w}.values")]
        elif op in ("Exists", "DoesNotExist"):
            problems += [f"{w}: operator {op} takes no values"] if values else []
        else:
            problems.append(f"{w}.operator = {op!r} is not a label selector operator")
    return problems


def affinity(value: Any, where: str) -> list[str]:
    """validateAffinity: node selector terms, and the label selectors and topology keys of pod (anti-)affinity."""
    if not value:
        return []
    problems = []
    node = value.get("nodeAffinity", {})
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution", {})
    for i, term in enumerate(required.get("nodeSelectorTerms", [])):
        for j, req in enumerate(term.get("matchExpressions", [])):
            problems += _node_requirement(req, f"{where}.nodeAffinity.required.nodeSelectorTerms[{i}][{j}]")
    for i, pref in enumerate(node.get("preferredDuringSchedulingIgnoredDuringExecution", [])):
        for j, req in enumerate(pref.get("preference", {}).get("matchExpressions", [])):
            problems += _node_requirement(req, f"{where}.nodeAffinity.preferred[{i}][{j}]")
    for kind in ("podAffinity", "podAntiAffinity"):
        rules = value.get(kind, {})
        terms = list(rules.get("requiredDuringSchedulingIgnoredDuringExecution", []))
        terms += [
            p.get("podAffinityTerm", {}) for p in rules.get("preferredDuringSchedulingIgnoredDuringExecution", [])
        ]
        for i, term in enumerate(terms):
            w = f"{where}.{kind}[{i}]"
            problems += label_selector(term.get("labelSelector"), f"{w}.labelSelector")
            problems += qualified_name(term.get("topologyKey"), f"{w}.topologyKey")
    return problems


def env(value: Any, where: str) -> list[str]:
    return [p for i, e in enumerate(value or []) for p in env_var_name(e.get("name"), f"{where}[{i}].name")]


def container(c: Mapping[str, Any], where: str) -> list[str]:
    problems = dns1123_label(c.get("name"), f"{where}.name") + env(c.get("env"), f"{where}.env")
    problems += resources(c.get("resources"), f"{where}.resources")
    for i, port in enumerate(c.get("ports", [])):
        if "name" in port:
            problems += iana_svc_name(port["name"], f"{where}.ports[{i}].name")
        if not 0 < int(port.get("containerPort", 0)) < 65536:
            problems.append(f"{where}.ports[{i}].containerPort = {port.get('containerPort')!r} is not 1-65535")
    return problems


def pod_spec(spec: Mapping[str, Any], where: str) -> list[str]:
    problems = node_selector(spec.get("nodeSelector"), f"{where}.nodeSelector")
    problems += tolerations(spec.get("tolerations"), f"{where}.tolerations")
    problems += affinity(spec.get("affinity"), f"{where}.affinity")
    for kind in ("initContainers", "containers"):
        for i, c in enumerate(spec.get(kind, [])):
            problems += container(c, f"{where}.{kind}[{i}]")
    for name_field in ("serviceAccountName", "priorityClassName"):
        if spec.get(name_field):
            problems += dns1123_subdomain(spec[name_field], f"{where}.{name_field}")
    return problems


# Object names per kind (ValidateObjectMeta's nameFn): Namespace a DNS-1123 label, Service a DNS-1035 label,
# the other built-in kinds here a DNS-1123 subdomain; custom resources a path segment unless their CRD says more.
NAME_RULES: dict[str, Callable[[Any, str], list[str]]] = {
    "Namespace": dns1123_label,
    "Service": dns1035_label,
    **dict.fromkeys(
        (
            "ConfigMap",
            "Secret",
            "ServiceAccount",
            "Deployment",
            "DaemonSet",
            "StatefulSet",
            "Job",
            "PersistentVolumeClaim",
            "PersistentVolume",
            "StorageClass",
            "PriorityClass",
            "NetworkPolicy",
            "PodDisruptionBudget",
            "Role",
            "RoleBinding",
            "ClusterRole",
            "ClusterRoleBinding",
        ),
        dns1123_subdomain,
    ),
}
# Karpenter labels each node with its NodePool's and EC2NodeClass's names (karpenter.sh/nodepool,
# karpenter.k8s.aws/ec2nodeclass), so those names must also be label values.
NAME_RULES["NodePool"] = NAME_RULES["EC2NodeClass"] = lambda v, w: dns1123_subdomain(v, w) + label_value(v, w)
CLUSTER_SCOPED = {"Namespace", "PriorityClass", "StorageClass", "PersistentVolume", "ClusterRole", "ClusterRoleBinding"}
CLUSTER_SCOPED_CUSTOM = {"NodePool", "EC2NodeClass"}


def _pod_templates(obj: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    spec = obj.get("spec", {})
    if obj.get("kind") == "Pod":
        yield "spec", obj
    elif "template" in spec and "spec" in spec.get("template", {}):
        yield "spec.template", spec["template"]
    elif obj.get("kind") == "CronJob":
        yield "spec.jobTemplate.spec.template", spec["jobTemplate"]["spec"]["template"]


def kubernetes_object(obj: Mapping[str, Any], where: str) -> list[str]:
    """Everything above applied to one object: name, namespace, metadata, selectors and pod templates."""
    kind, meta = obj.get("kind", "?"), obj.get("metadata", {})
    w = f"{where} {kind}/{meta.get('name')}"
    problems = NAME_RULES.get(kind, path_segment_name)(meta.get("name"), f"{w} metadata.name")
    if kind in CLUSTER_SCOPED or kind in CLUSTER_SCOPED_CUSTOM:
        problems += [f"{w}: a cluster-scoped kind has metadata.namespace"] if meta.get("namespace") else []
    elif "namespace" in meta:
        problems += dns1123_label(meta["namespace"], f"{w} metadata.namespace")
    problems += labels(meta.get("labels"), f"{w} metadata.labels")
    problems += annotation_map(meta.get("annotations"), f"{w} metadata.annotations")
    spec = obj.get("spec", {})
    if isinstance(spec.get("selector"), Mapping) and kind != "Service":
        problems += label_selector(spec["selector"], f"{w} spec.selector")
    if kind == "Service":
        problems += labels(spec.get("selector"), f"{w} spec.selector")
        for i, port in enumerate(spec.get("ports", [])):
            if "name" in port:
                problems += dns1123_label(port["name"], f"{w} spec.ports[{i}].name")
            target = port.get("targetPort")
            if isinstance(target, str):
                problems += iana_svc_name(target, f"{w} spec.ports[{i}].targetPort")
    for path, template in _pod_templates(obj):
        problems += labels(template.get("metadata", {}).get("labels"), f"{w} {path}.metadata.labels")
        problems += annotation_map(template.get("metadata", {}).get("annotations"), f"{w} {path}.metadata.annotations")
        problems += pod_spec(template.get("spec", {}), f"{w} {path}.spec")
        selector = spec.get("selector", {}).get("matchLabels", {}) if kind != "Pod" else {}
        pod_labels = template.get("metadata", {}).get("labels", {})
        if any(pod_labels.get(k) != v for k, v in selector.items()):
            problems.append(f"{w}: spec.selector does not match the pod template's labels")
    if kind == "NodePool":  # core/v1 NodeSelectorRequirement values end up as node labels
        template = spec.get("template", {})
        problems += labels(template.get("metadata", {}).get("labels"), f"{w} spec.template.metadata.labels")
        for i, req in enumerate(template.get("spec", {}).get("requirements", [])):
            problems += _node_requirement(req, f"{w} spec.template.spec.requirements[{i}]")
        problems += _taints(template.get("spec", {}).get("taints"), f"{w} spec.template.spec.taints")
    return problems


def _taints(value: Any, where: str) -> list[str]:
    """validateNodeTaints: key qualified, value a label value, effect NoSchedule|PreferNoSchedule|NoExecute."""
    problems = []
    for i, t in enumerate(value or []):
        problems += qualified_name(t.get("key"), f"{where}[{i}]") + label_value(t.get("value", ""), f"{where}[{i}]")
        if t.get("effect") not in _TAINT_EFFECTS[1:]:
            problems.append(f"{where}[{i}].effect = {t.get('effect')!r} is not a taint effect")
    return problems
