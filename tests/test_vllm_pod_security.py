"""The vLLM pods against Pod Security "baseline", per compile-cache mode, and their gap to "restricted"."""

import copy

import cdk8s
import pytest

from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.serving.server_pod import ServerOptions
from fastload_constructs.k8s import server_chart
from tests.emitted_manifests import chart_manifests
from tests.pod_security import baseline_violations, control_of, pod_of, restricted_gaps
from tests.pss_exemptions import unexempted_violations
from tests.serving_plans import planned


@pytest.fixture(scope="module")
def pods():
    """case (a compile-cache mode, or autoscaled-on-karpenter) -> the Deployment the chart renders."""
    found = {}
    for case, doc in chart_manifests("ServerChart", server_chart.ServerChart):
        if pod_of(doc) is not None:
            found[case.split("[", 1)[1].rstrip("]")] = doc
    assert set(found) == {
        "host-path",
        "pvc",
        "empty-dir",
        "autoscaled-on-karpenter",
        "sglang-host-path",
        "sglang-node-local-shared-cache",
    }
    return found


@pytest.mark.parametrize("mode", ["pvc", "empty-dir"])
def test_vllm_pods_meet_baseline_with_a_pvc_or_empty_dir_cache(pods, mode):
    assert baseline_violations(pods[mode]) == []


@pytest.mark.parametrize("case", ["host-path", "autoscaled-on-karpenter", "sglang-host-path"])
def test_the_host_path_cache_is_the_only_baseline_violation_and_it_is_exempt(pods, case):
    found = baseline_violations(pods[case])
    assert [control_of(f) for f in found] == ["hostPathVolumes"]
    assert "'compile-cache'" in found[0]
    assert unexempted_violations(pods[case]) == []


def test_an_sglang_pod_with_the_node_local_copy_and_shared_cache_is_exempt_like_vllms(pods):
    """Its host paths are the compile cache and the model copy, the same two a vLLM pod may mount."""
    found = baseline_violations(pods["sglang-node-local-shared-cache"])
    assert {control_of(f) for f in found} == {"hostPathVolumes"}
    assert unexempted_violations(pods["sglang-node-local-shared-cache"]) == []


def test_a_privileged_vllm_pod_would_not_be_exempt(pods):
    doc = copy.deepcopy(pods["host-path"])
    doc["spec"]["template"]["spec"]["containers"][0]["securityContext"]["privileged"] = True
    assert [control_of(f) for f in unexempted_violations(doc)] == ["privileged"]


def test_gap_to_restricted_is_running_as_root(pods):
    """The vllm/vllm-openai image runs as root (no USER); everything else restricted asks for is set."""
    assert {control_of(g) for g in restricted_gaps(pods["pvc"])} == {"runAsNonRoot"}
    assert {control_of(g) for g in restricted_gaps(pods["host-path"])} == {"runAsNonRoot", "volumeTypes"}


def _warm_pod(compile_cache: str) -> dict:
    p = planned(
        ModelProfile.from_numbers(parameter_count=8_000_000_000),
        "g6e.2xlarge",
        model_cache="node-local",
        shared_compile_cache=True,
    )
    chart = server_chart.ServerChart(
        cdk8s.Testing.app(),
        "warm",
        plan=p,
        model_name="llama",
        model_uri="s3://fastload-models/models/llama",
        region="us-east-1",
        options=ServerOptions(compile_cache=compile_cache),
    )
    (doc,) = [d for d in cdk8s.Testing.synth(chart) if d["kind"] == "Deployment"]
    return doc


def test_warm_launch_containers_add_no_violation_beyond_the_model_cache():
    """Init containers and the sidecar run as locked down as vLLM; only the NVMe model copy is a host path."""
    doc = _warm_pod("pvc")
    found = baseline_violations(doc)
    assert [control_of(f) for f in found] == ["hostPathVolumes"] and "'model-cache'" in found[0]
    assert unexempted_violations(doc) == []
    assert {control_of(g) for g in restricted_gaps(doc)} == {"runAsNonRoot", "volumeTypes"}
