"""JSON schemas of the custom resources the library emits, read from the vendored CRDs (tests/fixtures/SOURCES.md).

`openAPIV3Schema` of the served version of each CRD, made strict the way the API
server's field validation (`kubectl apply --validate=strict`) is: an object
schema that lists its `properties` and allows no `additionalProperties` refuses
unknown fields, so a misspelt field fails here instead of being pruned silently.
CEL rules (`x-kubernetes-validations`) are not evaluated; the tests that need
one (a capacity reservation term, a budget) assert it directly.
"""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

FIXTURES = Path(__file__).parent / "fixtures"
# FMA's CRDs are the package's own chart (the stack installs them): the same files, unmodified.
FMA_CRDS = Path(__file__).parent.parent / "fastload_constructs" / "infra" / "charts" / "fma-crds" / "crds"
KARPENTER_VERSION = "1.14.1"
KEDA_VERSION = "2.20.2"
FMA_VERSION = "0.6.4"
# nodeadm's NodeConfig (AL2023 node user data, not a cluster object) at the AL2023 AMI release the library pins.
NODEADM_RELEASE = "v20260714"
CRD_FILES: dict[tuple[str, str], str | Path] = {
    ("karpenter.sh/v1", "NodePool"): f"karpenter-{KARPENTER_VERSION}/karpenter.sh_nodepools.yaml",
    ("karpenter.k8s.aws/v1", "EC2NodeClass"): f"karpenter-{KARPENTER_VERSION}/karpenter.k8s.aws_ec2nodeclasses.yaml",
    ("autoscaling.x-k8s.io/v1beta1", "CapacityBuffer"): (
        f"karpenter-{KARPENTER_VERSION}/autoscaling.x-k8s.io_capacitybuffers.yaml"
    ),
    ("keda.sh/v1alpha1", "ScaledObject"): f"keda-{KEDA_VERSION}/keda.sh_scaledobjects.yaml",
    ("keda.sh/v1alpha1", "TriggerAuthentication"): f"keda-{KEDA_VERSION}/keda.sh_triggerauthentications.yaml",
    ("fma.llm-d.ai/v1alpha1", "InferenceServerConfig"): FMA_CRDS / "fma.llm-d.ai_inferenceserverconfigs.yaml",
    ("fma.llm-d.ai/v1alpha1", "LauncherConfig"): FMA_CRDS / "fma.llm-d.ai_launcherconfigs.yaml",
    ("fma.llm-d.ai/v1alpha1", "LauncherPopulationPolicy"): FMA_CRDS / "fma.llm-d.ai_launcherpopulationpolicies.yaml",
    ("node.eks.aws/v1alpha1", "NodeConfig"): f"nodeadm-{NODEADM_RELEASE}/node.eks.aws_nodeconfigs.yaml",
}
KINDS = {kind for _, kind in CRD_FILES}


def _strict(schema: Any) -> Any:
    if isinstance(schema, dict):
        out = {k: _strict(v) for k, v in schema.items()}
        open_object = out.get("x-kubernetes-preserve-unknown-fields") or "additionalProperties" in out
        if out.get("type") == "object" and "properties" in out and not open_object:
            out["additionalProperties"] = False
        return out
    if isinstance(schema, list):
        return [_strict(v) for v in schema]
    return schema


@cache
def crd_schema(api_version: str, kind: str) -> dict[str, Any]:
    crd = yaml.safe_load((FIXTURES / CRD_FILES[(api_version, kind)]).read_text())
    group, version = api_version.split("/")
    assert crd["spec"]["group"] == group and crd["spec"]["names"]["kind"] == kind
    (served,) = [v for v in crd["spec"]["versions"] if v["name"] == version and v["served"]]
    schema = copy.deepcopy(served["schema"]["openAPIV3Schema"])
    # metadata is checked by the Kubernetes ObjectMeta schema elsewhere; the CRD leaves it open.
    schema["properties"]["metadata"] = {"type": "object"}
    strict: dict[str, Any] = _strict(schema)
    return strict


def validate_custom_resource(doc: dict[str, Any]) -> None:
    """Raise jsonschema.ValidationError unless `doc` is valid for its vendored CRD."""
    jsonschema.validate(doc, crd_schema(doc["apiVersion"], doc["kind"]))


@cache
def chart_values(chart: str) -> dict[str, Any]:
    """The vendored `values.yaml` of `karpenter`, `keda` or `fma` (fma-controllers) at the pinned version."""
    folder = {
        "karpenter": f"karpenter-{KARPENTER_VERSION}",
        "keda": f"keda-{KEDA_VERSION}",
        "fma": f"fma-{FMA_VERSION}",
    }[chart]
    loaded: dict[str, Any] = yaml.safe_load((FIXTURES / folder / "values.yaml").read_text())
    return loaded


# Chart values that are passed through as free-form maps (labels, annotations, node selectors).
FREE_FORM = {"nodeSelector", "podAnnotations", "podLabels", "additionalLabels", "additionalAnnotations", "annotations"}


def unknown_value_paths(values: Any, defaults: Any, path: str = "") -> list[str]:
    """Paths in `values` that the chart's values.yaml does not have (a typo Helm would ignore silently).

    Below a key whose default is an empty map or list, or a free-form map of
    labels/annotations, anything goes (the chart passes it through).
    """
    if not isinstance(values, dict):
        return []
    if not isinstance(defaults, dict) or not defaults:
        return []
    bad = []
    for key, value in values.items():
        where = f"{path}.{key}" if path else key
        if key not in defaults:
            bad.append(where)
            continue
        default = defaults[key]
        if key in FREE_FORM:
            continue
        if isinstance(value, dict) and isinstance(default, dict):
            bad += unknown_value_paths(value, default, where)
        elif (
            default is not None
            and not isinstance(value, type(default))
            and not isinstance(default, (dict, list))
            and not (isinstance(default, str) and isinstance(value, (str, int)))
        ):
            bad.append(f"{where} (type {type(value).__name__}, chart default {type(default).__name__})")
    return bad
