"""The vLLM pods against Pod Security "baseline", per compile-cache mode, and their gap to "restricted".

Runs once `fastload_constructs.k8s.vllm_chart` exists (the vLLM chart lands on
another branch); skipped before that.
"""

import copy

import pytest

from fastload_constructs.k8s.pod_security import baseline_violations, control_of, pod_of, restricted_gaps
from fastload_constructs.k8s.pss_exemptions import unexempted_violations
from tests.emitted_manifests import chart_manifests

vllm_chart = pytest.importorskip("fastload_constructs.k8s.vllm_chart")


@pytest.fixture(scope="module")
def pods():
    """compile-cache mode -> the Deployment the chart renders."""
    found = {}
    for case, doc in chart_manifests("VllmChart", vllm_chart.VllmChart):
        if pod_of(doc) is not None:
            found[case.split("[", 1)[1].rstrip("]")] = doc
    assert set(found) == {"host-path", "pvc", "empty-dir"}
    return found


@pytest.mark.parametrize("mode", ["pvc", "empty-dir"])
def test_vllm_pods_meet_baseline_with_a_pvc_or_empty_dir_cache(pods, mode):
    assert baseline_violations(pods[mode]) == []


def test_the_host_path_cache_is_the_only_baseline_violation_and_it_is_exempt(pods):
    found = baseline_violations(pods["host-path"])
    assert [control_of(f) for f in found] == ["hostPathVolumes"]
    assert "'compile-cache'" in found[0]
    assert unexempted_violations(pods["host-path"]) == []


def test_a_privileged_vllm_pod_would_not_be_exempt(pods):
    doc = copy.deepcopy(pods["host-path"])
    doc["spec"]["template"]["spec"]["containers"][0]["securityContext"]["privileged"] = True
    assert [control_of(f) for f in unexempted_violations(doc)] == ["privileged"]


def test_gap_to_restricted_is_running_as_root(pods):
    """The vllm/vllm-openai image runs as root (no USER); everything else restricted asks for is set."""
    assert {control_of(g) for g in restricted_gaps(pods["pvc"])} == {"runAsNonRoot"}
    assert {control_of(g) for g in restricted_gaps(pods["host-path"])} == {"runAsNonRoot", "volumeTypes"}
