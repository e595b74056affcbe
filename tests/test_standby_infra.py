"""FMA's controllers as a construct, `ServedModel(standbys=...)`, and standbys in node capacity."""

from __future__ import annotations

import json

import pytest
from aws_cdk.assertions import Template

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.scaling.capacity import Workload, node_capacity
from fastload_constructs.core.serving.server_pod import ServerOptions
from fastload_constructs.core.serving.standby import FMA_CRD_FILES, FMA_TAG, fma_values
from fastload_constructs.infra import FmaController, ServedModel
from tests.crd_schemas import chart_values, unknown_value_paths, validate_custom_resource
from tests.node_packing import pack_pods
from tests.test_served_model import LLAMA, manifests, stack_with_cluster


def resources_of(template, kind):
    return [r for r in template["Resources"].values() if r["Type"] == kind]


def test_fma_controller_is_the_pinned_oci_chart_in_the_models_namespace_with_node_reads():
    stack, cluster, _ = stack_with_cluster()
    fma = FmaController(stack, "Fma", cluster=cluster)
    template = Template.from_stack(stack).to_json()
    (chart,) = [c for c in resources_of(template, "Custom::AWSCDK-EKS-HelmChart") if "Repository" in c["Properties"]]
    props = chart["Properties"]
    assert props["Repository"] == "oci://ghcr.io/llm-d-incubation/llm-d-fast-model-actuation/charts/fma-controllers"
    assert (props["Chart"], props["Version"], props["Namespace"], props["Release"]) == (
        "fma-controllers",
        "0.6.4",
        "inference",
        "fma",
    )
    values = json.loads(props["Values"])
    assert values == fma.values == fma_values()
    assert values["global"]["imageTag"] == FMA_TAG  # the chart's default is `latest`
    (role_resource,) = manifests(template).values()
    (role,) = json.loads(role_resource["Properties"]["Manifest"])
    assert role["kind"] == "ClusterRole" and role["metadata"]["name"] == values["global"]["nodeViewClusterRole"]
    assert role["rules"] == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]}]
    # The chart binds the ClusterRole: it exists first.
    (role_id,) = manifests(template)
    assert role_id in chart["DependsOn"]
    assert props["CreateNamespace"] is True  # no "namespace not found" when nothing else made it


def test_fmas_crds_are_installed_by_the_stack_before_the_controllers_as_a_chart_helm_creates():
    """The LauncherConfig CRD is ~300 kB compact, over kubectl's 256 KiB last-applied annotation: Helm creates a
    chart's crds/ without it, so the stack ships FMA's CRDs as a chart asset in the same deploy."""
    import yaml

    from fastload_constructs.infra.standby_engines import CRDS_CHART

    stack, cluster, _ = stack_with_cluster()
    fma = FmaController(stack, "Fma", cluster=cluster)
    template = Template.from_stack(stack).to_json()
    (crds_id,) = [lid for lid, r in template["Resources"].items() if "ChartAssetURL" in r.get("Properties", {})]
    assert template["Resources"][crds_id]["Properties"]["Release"] == "fma-crds" and fma.crds is not None
    (chart,) = [c for c in resources_of(template, "Custom::AWSCDK-EKS-HelmChart") if "Repository" in c["Properties"]]
    assert crds_id in chart["DependsOn"]
    files = sorted(p.name for p in (CRDS_CHART / "crds").iterdir())
    assert files == sorted(FMA_CRD_FILES)
    sizes = {
        f: len(json.dumps(yaml.safe_load((CRDS_CHART / "crds" / f).read_text()), separators=(",", ":"))) for f in files
    }
    assert sizes["fma.llm-d.ai_launcherconfigs.yaml"] > 256 * 1024  # why not a KubernetesManifest
    assert yaml.safe_load((CRDS_CHART / "Chart.yaml").read_text())["version"] == "0.6.4"


def test_fma_values_are_all_known_to_the_pinned_chart():
    defaults = chart_values("fma")
    assert unknown_value_paths(fma_values(), defaults) == []
    assert defaults["global"]["imageTag"] == "latest"  # why the tag is pinned
    assert unknown_value_paths({"global": {"imageTags": "v0.6.4"}}, defaults) == ["global.imageTags"]


def test_fma_controller_refuses_a_bad_namespace():
    stack, cluster, _ = stack_with_cluster()
    with pytest.raises(FastloadConfigError) as err:
        FmaController(stack, "Fma", cluster=cluster, namespace="Bad_NS")
    assert err.value.field == "namespace"


def served(standbys=2, **kwargs):
    stack, cluster, bucket = stack_with_cluster()
    fma = FmaController(stack, "Fma", cluster=cluster)
    model = ServedModel(
        stack,
        "Llama",
        cluster=cluster,
        bucket=bucket,
        prefix="models/llama",
        model_name="llama",
        profile=LLAMA,
        instance_type="g6e.2xlarge",
        tuning=TuningOptions(serving=Serving(standbys=standbys)),
        after=[fma.chart],
        **kwargs,
    )
    return stack, model


def test_a_served_model_with_standbys_applies_fma_objects_instead_of_the_vllm_deployment():
    stack, model = served(server=ServerOptions(replicas=None, follow_revisions=False))
    template = Template.from_stack(stack).to_json()
    server = template["Resources"][stack.get_logical_id(model.server.manifest.node.default_child)]
    docs = json.loads(server["Properties"]["Manifest"])
    kinds = sorted(d["kind"] for d in docs)
    assert {"InferenceServerConfig", "LauncherConfig", "LauncherPopulationPolicy"} <= set(kinds)
    for doc in docs:
        if doc["apiVersion"].startswith("fma.llm-d.ai/"):
            validate_custom_resource(doc)
    deployments = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Deployment"}
    assert set(deployments) == {"llama", "llama-standby"}  # no vLLM Deployment beside the requesters
    (container,) = deployments["llama"]["spec"]["template"]["spec"]["containers"]
    assert container["image"].endswith("/requester:v0.6.4")
    assert model.standby_chart is not None and model.server.chart is model.standby_chart
    # Applied after FMA's chart (its controllers) and the reader identity.
    helm_id = next(
        lid
        for lid, r in template["Resources"].items()
        if r["Type"] == "Custom::AWSCDK-EKS-HelmChart" and r["Properties"].get("Chart") == "fma-controllers"
    )
    assert helm_id in server["DependsOn"]
    assert model.service_url == "http://llama.inference.svc.cluster.local:8000"


def test_without_standbys_the_served_model_is_unchanged():
    _, model = served(standbys=0)
    assert model.standby_chart is None and model.server.chart is model.chart


@pytest.mark.parametrize("standbys", [-1, True])
def test_bad_standby_counts_name_the_field(standbys):
    with pytest.raises(FastloadConfigError) as err:
        served(standbys=standbys)
    assert err.value.field == "serving.standbys"


def test_standbys_add_their_own_nodes_to_the_capacity():
    plain = node_capacity([Workload("a", "g6e.2xlarge", 1, 1, 2)])["g6e.2xlarge"]
    with_standbys = node_capacity([Workload("a", "g6e.2xlarge", 1, 1, 2, standbys=2)])["g6e.2xlarge"]
    assert (with_standbys.standby_gpus, with_standbys.standby_nodes) == (2, 2)
    assert with_standbys.peak_nodes == plain.peak_nodes + 2
    assert with_standbys.baseline_nodes == plain.baseline_nodes + 2
    # On 4-GPU nodes, 3 standbys of a TP-1 model and 2 of a TP-2 model share ceil(7 / 4) = 2 standby nodes.
    cap = node_capacity(
        [Workload("a", "g6e.12xlarge", 1, 1, 1, standbys=3), Workload("b", "g6e.12xlarge", 2, 1, 1, standbys=2)]
    )["g6e.12xlarge"]
    assert (cap.standby_gpus, cap.standby_nodes) == (7, 2)
    assert pack_pods([1, 1, 1, 2, 2], 4, cap.standby_nodes)
    assert not pack_pods([1, 1, 1, 2, 2], 4, cap.standby_nodes - 1)


def test_a_bad_standby_count_in_capacity_names_the_model():
    with pytest.raises(FastloadConfigError) as err:
        node_capacity([Workload("a", "g6e.2xlarge", 1, 1, 2, standbys=-1)])
    assert err.value.field == "a.standbys"
