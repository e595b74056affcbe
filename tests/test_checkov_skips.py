"""The checkov skips on every workload the charts emit: well-formed, each with its reason, and only where due.

checkov reads a skip from an object's own annotations, `checkov.io/skip<N>: <check id>=<reason>`, and unpacks
the value with `value.split("=")` into two parts (checkov/kubernetes/kubernetes_utils.py get_skipped_checks):
a second '=' would break its parse. The workloads are every chart's (tests/emitted_manifests.py): the
templates apply only charts. No checkov needed here; the hardening that replaced the other findings is
checked on the same manifests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from fastload_constructs.core.serving.checkov_skips import (
    ANNOTATION_PREFIX,
    CHECK_ID,
    SIDECAR_SKIPS,
    SKIPS,
    Workload,
    skip_annotations,
    workload_skips,
)
from tests.emitted_manifests import chart_classes, chart_manifests
from tests.pod_security import WORKLOAD_KINDS, control_of, pod_of, restricted_gaps
from tests.test_attack_network_access import ingress_allowed, pod_in

SKIP_KEY = re.compile(re.escape(ANNOTATION_PREFIX) + r"([1-9][0-9]*)")
REASONS = {reason for skips in (*SKIPS.values(), SIDECAR_SKIPS) for reason in skips.values()}


@pytest.fixture(scope="module")
def docs() -> list[tuple[str, dict]]:
    return [found for name, cls in sorted(chart_classes().items()) for found in chart_manifests(name, cls)]


@pytest.fixture(scope="module")
def workloads(docs) -> list[tuple[str, dict]]:
    return [(case, doc) for case, doc in docs if doc["kind"] in WORKLOAD_KINDS]


def skipped(doc: Mapping[str, Any]) -> dict[str, str]:
    """Check id -> reason, parsed as checkov parses the object's own annotations."""
    found = {}
    for key, value in ((doc.get("metadata") or {}).get("annotations") or {}).items():
        if key.startswith(ANNOTATION_PREFIX):
            check, reason = value.split("=")  # checkov's own unpacking: exactly one '='
            assert check not in found, f"{check} skipped twice"
            found[check] = reason
    return found


def containers(doc: Mapping[str, Any], *keys: str) -> Iterator[Mapping[str, Any]]:
    pod = pod_of(doc)
    assert pod is not None
    for key in keys:
        yield from pod[1].get(key) or []


def test_the_charts_emit_every_kind_of_workload(workloads):
    kinds = {doc["kind"] for _, doc in workloads}
    assert kinds == {"Deployment", "DaemonSet", "Job", "PodTemplate"}


def test_every_skip_is_well_formed_numbered_and_names_a_reason(workloads):
    for case, doc in workloads:
        annotations = doc["metadata"].get("annotations") or {}
        keys = [k for k in annotations if k.startswith(ANNOTATION_PREFIX)]
        assert keys, f"{case} {doc['kind']} carries no checkov skip"
        numbers = sorted(int(m.group(1)) for k in keys if (m := SKIP_KEY.fullmatch(k)))
        assert numbers == list(range(1, len(keys) + 1)), f"{case}: {keys}"
        for check, reason in skipped(doc).items():
            assert CHECK_ID.fullmatch(check), f"{case}: {check!r}"
            assert reason in REASONS and len(reason.split()) >= 6, f"{case} {check}: {reason!r}"
        # On the object itself: checkov reads neither the pod template's annotations nor a pod's.
        pod = pod_of(doc)
        assert pod is not None
        assert not any(k.startswith(ANNOTATION_PREFIX) for k in (pod[0].get("annotations") or {})), case


# What a few checks find (checkov 3.x kubernetes/checks/resource/k8s): a skip must stand where its finding
# arises and nowhere else, so a skip never hides a finding its reason was not written for.
FINDINGS = {
    # LivenessProbe / ReadinessProbe: every container (not the init ones), Jobs not checked.
    "CKV_K8S_8": lambda doc: (
        doc["kind"] != "Job" and any("livenessProbe" not in c for c in containers(doc, "containers"))
    ),
    "CKV_K8S_9": lambda doc: (
        doc["kind"] != "Job" and any("readinessProbe" not in c for c in containers(doc, "containers"))
    ),
    # PrivilegedContainers, ImageDigest: every container, the init ones included.
    "CKV_K8S_16": lambda doc: any(
        (c.get("securityContext") or {}).get("privileged") for c in containers(doc, "initContainers", "containers")
    ),
    "CKV_K8S_43": lambda doc: any(
        "@sha256:" not in c["image"] for c in containers(doc, "initContainers", "containers")
    ),
}


@pytest.mark.parametrize("check", sorted(FINDINGS))
def test_a_check_is_skipped_exactly_where_its_finding_arises(workloads, check):
    arises = FINDINGS[check]
    for case, doc in workloads:
        assert (check in skipped(doc)) == arises(doc), f"{case} {doc['kind']} {doc['metadata'].get('name')}"


def test_the_server_skips_probes_only_beside_a_sidecar(workloads):
    servers = [doc for case, doc in workloads if case.startswith("ServerChart[") and doc["kind"] == "Deployment"]
    beside = {
        len(list(containers(d, "containers"))) > 1: {"CKV_K8S_8", "CKV_K8S_9"} & skipped(d).keys() for d in servers
    }
    assert beside == {True: {"CKV_K8S_8", "CKV_K8S_9"}, False: set()}


def test_a_digest_image_needs_no_digest_skip():
    digest = "vllm/vllm-openai@sha256:" + "0" * 64
    assert "CKV_K8S_43" not in workload_skips(Workload.SERVER, [digest])
    assert "CKV_K8S_43" in workload_skips(Workload.SERVER, [digest, "vllm/vllm-openai:v0.34.0"])
    assert workload_skips(Workload.SERVER, [digest], sidecars=True).keys() >= SIDECAR_SKIPS.keys()


def test_annotations_come_in_check_number_order():
    annotations = skip_annotations({"CKV2_K8S_6": "a b", "CKV_K8S_11": "c d", "CKV_K8S_8": "e f"})
    assert annotations == {
        "checkov.io/skip1": "CKV_K8S_8=e f",
        "checkov.io/skip2": "CKV_K8S_11=c d",
        "checkov.io/skip3": "CKV2_K8S_6=a b",
    }


@pytest.mark.parametrize("skips", [{"CKV_K8S_8": "a=b"}, {"CKV_K8S_8": ""}, {"K8S_8": "a reason"}])
def test_a_reason_checkov_could_not_read_is_refused(skips):
    with pytest.raises(AssertionError):
        skip_annotations(skips)


# --- what was hardened instead of skipped -------------------------------------------------------------------------


def _one(docs, kind: str, where: str) -> dict:
    (found,) = [doc for case, doc in docs if doc["kind"] == kind and case.startswith(where)]
    return found


def test_the_provisioner_probes_its_metrics_server(docs):
    daemon_set = _one(docs, "DaemonSet", "LocalNvmeStorage[default]")
    (provisioner,) = containers(daemon_set, "containers")
    (port,) = provisioner["ports"]
    assert port["name"] == "metrics"
    assert provisioner["livenessProbe"]["tcpSocket"]["port"] == port["containerPort"]
    assert provisioner["readinessProbe"]["httpGet"] == {
        "path": "/metrics",
        "port": port["containerPort"],
        "scheme": "HTTP",
    }
    # Only the metrics port is admitted, from anywhere.
    policy = _one(docs, "NetworkPolicy", "LocalNvmeStorage[default]")
    labels = daemon_set["spec"]["template"]["metadata"]["labels"]
    assert ingress_allowed([policy], labels, source={"ip": "10.0.3.7"}, port=port["containerPort"])
    assert not ingress_allowed([policy], labels, source={"ip": "10.0.3.7"}, port=9090)


@pytest.mark.parametrize(
    "kind, where, name",
    [
        ("Deployment", "WarmSparesChart[node-local]", "llama-70b-warm-spare"),
        ("Job", "StandbyEnginesChart[node-local]", None),
    ],
)
def test_pods_that_listen_on_nothing_admit_no_ingress(docs, kind, where, name):
    workload = next(
        d for c, d in docs if d["kind"] == kind and c.startswith(where) and name in (None, d["metadata"]["name"])
    )
    namespace = workload["metadata"]["namespace"]
    labels = pod_of(workload)[0]["labels"]
    policies = [d for c, d in docs if d["kind"] == "NetworkPolicy" and c.startswith(where)]
    assert any(p["spec"]["podSelector"]["matchLabels"].items() <= labels.items() for p in policies)
    for source in (pod_in(namespace, app="client"), {"ip": "10.0.3.7"}):
        for port in (8000, 8080, 8081):
            assert not ingress_allowed(policies, labels, source=source, port=port)


def test_the_buffer_template_has_the_server_pods_security_context(docs):
    template = _one(docs, "PodTemplate", "CapacityBufferChart[one-node]")
    assert [control_of(gap) for gap in restricted_gaps(template)] == ["runAsNonRoot"]
