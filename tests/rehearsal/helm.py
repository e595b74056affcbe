"""Which Helm values of our charts end up in pod specs and object metadata, and what the API server checks there.

Helm merges the values we pass into the chart's own values.yaml (maps merged key by
key, lists replaced; Helm docs, "Values Files"), and the chart's templates copy some
of them into the controller's Deployment. For each chart and version we pin, the
table maps a value path to the rule of `kubernetes` that applies where it lands.
Where the chart's values.yaml is vendored (tests/fixtures/), a value key the chart
does not define is reported too: Helm ignores it silently.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.rehearsal import kubernetes as k8s

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
Rule = Callable[[Any, str], list[str]]


@dataclass(frozen=True)
class ChartSpec:
    """One chart version: its defaults (vendored values.yaml or None), where values land, the SAs it creates."""

    source: str
    defaults_file: Path | None
    paths: dict[str, Rule]
    service_accounts: Callable[[Mapping[str, Any]], list[str]] = field(default=lambda values: [])
    # The chart renders a DaemonSet whose pod spec takes `nodeSelector`, `affinity` and `tolerations` as they are.
    daemonset: bool = False
    # (rendered values, release) -> (name, storageClassName or None) of each PersistentVolumeClaim it creates.
    claims: Callable[[Mapping[str, Any], str], list[tuple[str, str | None]]] = field(default=lambda values, release: [])

    def defaults(self) -> dict[str, Any]:
        return yaml.safe_load(self.defaults_file.read_text()) if self.defaults_file else {}


def _karpenter_service_accounts(values: Mapping[str, Any]) -> list[str]:
    """templates/serviceaccount.yaml: created when serviceAccount.create, named serviceAccount.name or the
    chart's fullname (`karpenter` for release `karpenter`)."""
    sa = values.get("serviceAccount", {})
    return [sa.get("name") or "karpenter"] if sa.get("create") else []


def _keda_service_accounts(values: Mapping[str, Any]) -> list[str]:
    """templates/*/serviceaccount.yaml: one per component whose serviceAccount.<component>.create is true."""
    accounts = values.get("serviceAccount", {})
    return [sa["name"] for sa in accounts.values() if isinstance(sa, Mapping) and sa.get("create") and sa.get("name")]


CHARTS: dict[tuple[str, str], ChartSpec] = {
    ("karpenter", "1.14.1"): ChartSpec(
        source="https://github.com/aws/karpenter-provider-aws/tree/v1.14.1/charts/karpenter (templates/)",
        defaults_file=FIXTURES / "karpenter-1.14.1" / "values.yaml",
        paths={
            "nodeSelector": k8s.node_selector,
            "tolerations": k8s.tolerations,
            "affinity": k8s.affinity,
            "podLabels": k8s.labels,
            "podAnnotations": k8s.annotation_map,
            "additionalLabels": k8s.labels,
            "additionalAnnotations": k8s.annotation_map,
            "priorityClassName": k8s.dns1123_subdomain,
            "serviceAccount.name": lambda v, w: k8s.dns1123_subdomain(v, w) if v else [],
            "serviceAccount.annotations": k8s.annotation_map,
            "controller.containerName": k8s.dns1123_label,
            "controller.env": k8s.env,
            "controller.resources": k8s.resources,
        },
        service_accounts=_karpenter_service_accounts,
    ),
    ("keda", "2.20.2"): ChartSpec(
        source="https://github.com/kedacore/charts/tree/v2.20.2/keda (templates/manager/deployment.yaml and siblings)",
        defaults_file=FIXTURES / "keda-2.20.2" / "values.yaml",
        paths={
            "nodeSelector": k8s.node_selector,  # all three Deployments: operator, metrics server, webhooks
            "tolerations": k8s.tolerations,
            "affinity": k8s.affinity,
            "operator.nodeSelector": k8s.node_selector,
            "operator.tolerations": k8s.tolerations,
            "operator.affinity": k8s.affinity,
            "podLabels.keda": k8s.labels,
            "podLabels.metricsAdapter": k8s.labels,
            "podLabels.webhooks": k8s.labels,
            "podAnnotations.keda": k8s.annotation_map,
            "podAnnotations.metricsAdapter": k8s.annotation_map,
            "podAnnotations.webhooks": k8s.annotation_map,
            "additionalLabels": k8s.labels,
            "additionalAnnotations": k8s.annotation_map,
            "priorityClassName": lambda v, w: k8s.dns1123_subdomain(v, w) if v else [],
            "env": k8s.env,
            "resources.operator": k8s.resources,
            "resources.metricServer": k8s.resources,
            "resources.webhooks": k8s.resources,
            "serviceAccount.operator.name": k8s.dns1123_subdomain,
        },
        service_accounts=_keda_service_accounts,
    ),
    # Its DaemonSet template copies nodeSelector, affinity and tolerations into the pod spec as they are.
    ("nvidia-device-plugin", "0.20.0"): ChartSpec(
        source="https://github.com/NVIDIA/k8s-device-plugin/tree/v0.20.0/deployments/helm/nvidia-device-plugin",
        defaults_file=FIXTURES / "nvidia-device-plugin-0.20.0" / "values.yaml",
        paths={
            "nodeSelector": k8s.node_selector,
            "tolerations": k8s.tolerations,
            "affinity": k8s.affinity,
            "resources": k8s.resources,
            "podAnnotations": k8s.annotation_map,
            "priorityClassName": lambda v, w: k8s.dns1123_subdomain(v, w) if v else [],
        },
        daemonset=True,
    ),
}


def _fma_claims(values: Mapping[str, Any], release: str) -> list[tuple[str, str | None]]:
    """templates/dual-pods-controller/deployment.yaml: a 1 GiB ReadWriteOnce claim with no storageClassName (and no
    value to set one), mounted by the controller, whenever dualPodsController.enabled."""
    enabled = values.get("dualPodsController", {}).get("enabled")
    return [(f"{release}-coverdata-dual-pods-controller", None)] if enabled else []


CHARTS[("fma-controllers", "0.6.4")] = ChartSpec(
    source="https://github.com/llm-d-incubation/llm-d-fast-model-actuation/tree/v0.6.4/charts/fma-controllers",
    defaults_file=FIXTURES / "fma-0.6.4" / "values.yaml",
    paths={
        "global.nodeViewClusterRole": lambda v, w: k8s.dns1123_subdomain(v, w) if v else [],
        "launcherPopulator.resources": k8s.resources,
    },
    # templates/*: serviceAccountName {{ .Release.Name }}-fma-controllers, created by the chart (not valued).
    claims=_fma_claims,
)
# Charts that only install CRDs: no values, no pods. A chart given as an asset (ChartAssetURL, no Chart) is
# known by its release: the package's own charts.
CRD_ONLY = {("karpenter-crd", "1.14.1")}
CRD_ONLY_ASSET_RELEASES = {"fma-crds"}


def merged(defaults: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """Helm's coalescing: maps merge key by key, anything else (lists included) is replaced."""
    out = copy.deepcopy(dict(defaults))
    for key, value in values.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = merged(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def unknown_keys(
    values: Mapping[str, Any], defaults: Mapping[str, Any], free_form: set[str], prefix: str = ""
) -> list[str]:
    """Value paths the chart's values.yaml does not define. Maps that are `{}` there, and the label, selector
    and annotation maps in `free_form`, accept any key."""
    found = []
    for key, value in values.items():
        path = f"{prefix}{key}"
        if key not in defaults:
            found.append(path)
        elif (
            isinstance(value, Mapping)
            and isinstance(defaults[key], Mapping)
            and defaults[key]
            and path not in free_form
        ):
            found += unknown_keys(value, defaults[key], free_form, path + ".")
    return found


def _get(values: Mapping[str, Any], path: str) -> Any:
    for part in path.split("."):
        if not isinstance(values, Mapping) or part not in values:
            return None
        values = values[part]
    return values


def chart_spec(props: Mapping[str, Any]) -> ChartSpec | None:
    if "Chart" not in props and props.get("ChartAssetURL"):
        if props.get("Release") in CRD_ONLY_ASSET_RELEASES:
            return None
        raise AssertionError(f"Helm chart asset of release {props.get('Release')} has no entry in tests/rehearsal/helm")
    key = (props["Chart"], props.get("Version"))
    if key in CRD_ONLY:
        return None
    if key not in CHARTS:
        raise AssertionError(f"Helm chart {key[0]} {key[1]} has no entry in tests/rehearsal/helm.CHARTS")
    return CHARTS[key]


def values_of(props: Mapping[str, Any]) -> dict[str, Any]:
    raw = props.get("Values")
    return json.loads(raw) if isinstance(raw, str) else dict(raw or {})


def check_release(props: Mapping[str, Any], where: str) -> list[str]:
    """The rules of every pod-spec value path, on the values Helm will render (ours merged into the defaults)."""
    spec = chart_spec(props)
    if spec is None:
        return []
    ours = values_of(props)
    label = f"{props.get('Chart')} {props.get('Version')} Helm values"
    unknown = unknown_keys(ours, spec.defaults(), set(spec.paths)) if spec.defaults_file else []
    problems = [f"{where}: {label} key {k!r} is not in the chart's values.yaml: Helm ignores it" for k in unknown]
    problems += k8s.dns1123_label(props.get("Namespace", "default"), f"{where}: {label} release namespace")
    rendered = merged(spec.defaults(), ours)
    for path, rule in spec.paths.items():
        value = _get(rendered, path)
        if value is not None:
            problems += [f"{where}: {p}" for p in rule(value, f"{label} {path}")]
    return problems


def created_claims(props: Mapping[str, Any]) -> list[tuple[str, str | None]]:
    """(namespace/name, storageClassName or None) of every PersistentVolumeClaim the release creates."""
    spec = chart_spec(props)
    if spec is None:
        return []
    rendered = merged(spec.defaults(), values_of(props))
    namespace = props.get("Namespace", "default")
    return [(f"{namespace}/{name}", cls) for name, cls in spec.claims(rendered, props.get("Release", props["Chart"]))]


def created_service_accounts(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(namespace, name) of every ServiceAccount the release creates."""
    spec = chart_spec(props)
    if spec is None:
        return []
    rendered = merged(spec.defaults(), values_of(props))
    return [(props.get("Namespace", "default"), name) for name in spec.service_accounts(rendered)]
