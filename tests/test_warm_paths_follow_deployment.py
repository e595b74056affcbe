"""Every warm path is planned from what its deployment really leaves on the node.

The warm spare's chart is rendered for every serving combination; the plan's spare phases must match
what the rendered init containers do (and what the server pod restores itself): weights from NVMe only
when the spare copies the model there, a warm compile only when a compile cache is restored.
"""

from __future__ import annotations

import itertools

import cdk8s
import pytest

from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.scale_out import spare_holds
from fastload_constructs.core.planning.standby import LAUNCHER_VLLM_VERSION
from fastload_constructs.core.serving.plan_record import plan_annotations, plan_record
from fastload_constructs.core.serving.warm_spares import warm_spare_spec
from fastload_constructs.k8s.warm_spares import WarmSparesChart
from tests.serving_plans import planned, spec_of

LLAMA_8B = ModelProfile.from_numbers(parameter_count=8_030_261_248)
COMBINATIONS = list(itertools.product(("s3", "node-local"), (False, True), ("host-path", "empty-dir")))


def _rendered_spare_steps(p, server) -> list[str]:
    chart = WarmSparesChart(cdk8s.Testing.app(), "spares", plan=p, server=server)
    deployment = next(m for m in chart.to_json() if m["kind"] == "Deployment")
    return [c["name"] for c in deployment["spec"]["template"]["spec"].get("initContainers", [])]


@pytest.mark.parametrize(("model_cache", "shared", "compile_cache"), COMBINATIONS)
def test_the_spare_path_matches_what_the_rendered_spare_and_pod_do(model_cache, shared, compile_cache):
    p = planned(LLAMA_8B, "g6e.2xlarge", model_cache=model_cache, shared_compile_cache=shared, warm_spares=1)
    server = spec_of(p, compile_cache=compile_cache)
    spare_steps = _rendered_spare_steps(p, server)
    pod_steps = [step.name for step in server.init_containers]
    holds = p.scale_out_paths.spare_holds
    assert holds == spare_holds(p.serving)
    # Weights: from NVMe exactly when the spare copied the model there.
    assert holds.weights_on_nvme == ("stage-model" in spare_steps)
    # Compile: warm exactly when a cache is restored, by the spare into the host path or by the pod itself.
    assert holds.compile_cache_warm == ("restore-compile-cache" in spare_steps + pod_steps)
    assert set(warm_spare_spec(p, server).warms) >= {"image"}
    # And the planned phases are those of a pod on such a node, not of a fully warmed one.
    spare = p.scale_out_paths.warm_spare
    local_pod = planned(LLAMA_8B, "g6e.2xlarge", model_cache="node-local", shared_compile_cache=True)
    fully_warm = local_pod.scale_out_paths.warm_spare
    if not holds.weights_on_nvme:
        assert spare.seconds("weight_load") > fully_warm.seconds("weight_load")
    if not holds.compile_cache_warm:
        assert spare.seconds("compile") > fully_warm.seconds("compile")
    if holds.weights_on_nvme and holds.compile_cache_warm:
        assert spare.total_s == pytest.approx(fully_warm.total_s)


def test_an_image_only_spare_is_planned_as_the_newcomer_measured_not_as_a_fully_warmed_one():
    image_only = planned(LLAMA_8B, "g6e.2xlarge", warm_spares=1).scale_out_paths
    warmed = planned(
        LLAMA_8B, "g6e.2xlarge", warm_spares=1, model_cache="node-local", shared_compile_cache=True
    ).scale_out_paths
    # Image only: the weights stream from S3 and torch.compile runs cold, as on a fresh node's pod.
    assert image_only.warm_spare.total_s > warmed.warm_spare.total_s + 10
    fresh_pod = sum(s for name, s in image_only.fresh_node.phases if name not in ("node_launch", "gpu_registration"))
    fresh_pod -= image_only.fresh_node.seconds("image_pull")
    assert image_only.warm_spare.total_s == pytest.approx(fresh_pod)


@pytest.mark.parametrize(("model_cache", "shared"), [("s3", False), ("node-local", True)])
def test_the_recorded_plan_and_its_summary_carry_the_spare_the_caches_give(model_cache, shared):
    p = planned(LLAMA_8B, "g6e.2xlarge", model_cache=model_cache, shared_compile_cache=shared, warm_spares=1)
    record = plan_record(p)
    assert record["paths_s"]["warm_spare"] == round(p.scale_out_paths.warm_spare.total_s, 1)
    holds = p.scale_out_paths.spare_holds
    expected = (
        ["image"]
        + (["model"] if holds.weights_on_nvme else [])
        + (["compile-cache"] if holds.compile_cache_warm else [])
    )
    assert record["spare_warms"] == expected
    summary = plan_annotations(p)["fastload.io/predicted-start"]
    assert f"warm spare {record['paths_s']['warm_spare']:g} s" in summary


def test_with_standbys_every_path_runs_the_launchers_release_without_the_shared_compile_cache():
    with_standbys = planned(LLAMA_8B, "g6e.2xlarge", standbys=1, shared_compile_cache=True).scale_out_paths
    launcher = planned(LLAMA_8B, "g6e.2xlarge", image=f"vllm/vllm-openai:v{LAUNCHER_VLLM_VERSION}").scale_out_paths
    assert with_standbys.fresh_node.phases == launcher.fresh_node.phases
    assert with_standbys.warm_node.phases == launcher.warm_node.phases
