"""Warm spares: PriorityClasses, the placeholder Deployment's shape, the vLLM pods' class, the reference wiring."""

from __future__ import annotations

import copy
import hashlib
import json
from decimal import Decimal
from pathlib import Path

import cdk8s
import kubernetes_validate
import pytest
from aws_cdk.assertions import Template

from app import build_app
from fastload_constructs.core import naming
from fastload_constructs.core.cluster.settings import SUPPORTED_KUBERNETES_VERSIONS
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.naming import SERVER_PRIORITY_CLASS, SPARE_PRIORITY_CLASS
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.serving.runtime_scripts import runtime_scripts
from fastload_constructs.core.serving.server_pod import ServerOptions
from fastload_constructs.core.serving.warm_check import WARM_CHECK_SCRIPT
from fastload_constructs.core.serving.warm_spares import (
    idle_cost,
    nodes_for,
    priority_classes,
    warm_spare_spec,
)
from fastload_constructs.k8s.server_chart import ServerChart
from fastload_constructs.k8s.warm_spares import PriorityClassesChart, WarmSparesChart
from fastload_constructs.runtime import _s3, compile_cache, model_copy, warm_check
from fastload_constructs.runtime._node_copies import copy_name
from stacks.config import parse_reference_config
from tests.pss_exemptions import unexempted_violations
from tests.serving_plans import planned

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]
URI = "s3://models-bucket/models/llama"
MIB = 1024**2

# (case, instance type, parameters, model cache, shared compile cache, compile cache)
CASES = [
    ("8b-g6e-image-only", "g6e.2xlarge", 8e9, "s3", False, "host-path"),
    ("8b-g6e-node-local-shared", "g6e.2xlarge", 8e9, "node-local", True, "host-path"),
    ("70b-g6e12-tp4-shared", "g6e.12xlarge", 70e9, "s3", True, "host-path"),
    ("8b-p4d-packed-node-local", "p4d.24xlarge", 8e9, "node-local", False, "host-path"),
    ("8b-g6e-empty-dir-shared", "g6e.2xlarge", 8e9, "s3", True, "empty-dir"),
]


def build(instance, params, model_cache, shared, compile_cache, spares=2):
    serving = planned(
        ModelProfile.from_numbers(parameter_count=int(params)),
        instance,
        model_cache=model_cache,
        shared_compile_cache=shared,
        warm_spares=spares,
    )
    app = cdk8s.Testing.app()
    classes = PriorityClassesChart(app, "priority-classes")
    vllm = ServerChart(
        app,
        "llama",
        plan=serving,
        model_name="llama",
        model_uri=URI,
        region="us-east-1",
        options=ServerOptions(compile_cache=compile_cache, priority_class_name=classes.vllm_class_name),
    )
    spare = WarmSparesChart(app, "llama-spares", plan=serving, server=vllm.spec)
    return serving, vllm, spare, classes


def docs(chart):
    return cdk8s.Testing.synth(chart)


def deployment(chart) -> dict:
    (found,) = [d for d in docs(chart) if d["kind"] == "Deployment"]
    return found


def quantity(value) -> Decimal:
    """A Kubernetes quantity as an exact number (cores, bytes or a count)."""
    if isinstance(value, int):
        return Decimal(value)
    for suffix, factor in (("Mi", Decimal(MIB)), ("Gi", Decimal(1024**3)), ("m", Decimal("0.001"))):
        if value.endswith(suffix):
            return Decimal(value[: -len(suffix)]) * factor
    return Decimal(value)


def effective_requests(pod: dict) -> dict[str, Decimal]:
    """What the scheduler reserves: per resource, max(sum over containers, largest init container)."""
    totals: dict[str, Decimal] = {}
    for c in pod["containers"]:
        for name, value in c["resources"].get("requests", {}).items():
            totals[name] = totals.get(name, Decimal(0)) + quantity(value)
    for c in pod.get("initContainers", []):
        for name, value in c["resources"].get("requests", {}).items():
            totals[name] = max(totals.get(name, Decimal(0)), quantity(value))
    return totals


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_placeholder_has_the_model_pods_shape(case):
    _, vllm, spare, _ = build(*case[1:])
    model_pod = deployment(vllm)["spec"]["template"]["spec"]
    spare_pod = deployment(spare)["spec"]["template"]["spec"]
    assert effective_requests(spare_pod) == effective_requests(model_pod)
    assert effective_requests(spare_pod)[naming.GPU_RESOURCE] == vllm.spec.gpus
    (reserve,) = spare_pod["containers"]
    assert reserve["resources"]["limits"][naming.GPU_RESOURCE] == vllm.spec.gpus
    assert reserve["command"] == ["sleep", "infinity"]  # no GPU work
    assert spare_pod["affinity"] == model_pod["affinity"]
    assert spare_pod["tolerations"] == model_pod["tolerations"]
    assert {c["image"] for c in [*spare_pod["containers"], *spare_pod.get("initContainers", [])]} == {
        model_pod["containers"][0]["image"]
    }
    assert spare_pod["serviceAccountName"] == model_pod["serviceAccountName"]
    assert spare_pod["terminationGracePeriodSeconds"] == 0


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_spare_runs_the_model_pods_cache_steps_on_the_same_host_paths(case):
    _, vllm, spare, _ = build(*case[1:])
    model_pod = deployment(vllm)["spec"]["template"]["spec"]
    spare_pod = deployment(spare)["spec"]["template"]["spec"]
    model_steps = {c["name"]: c for c in model_pod.get("initContainers", [])}
    for step in spare_pod.get("initContainers", []):
        assert step["command"] == model_steps[step["name"]]["command"]
    host_paths = {v["name"]: v["hostPath"]["path"] for v in model_pod["volumes"] if "hostPath" in v}
    for volume in spare_pod.get("volumes", []):
        if "hostPath" in volume:
            assert volume["hostPath"]["path"] == host_paths[volume["name"]]


def test_what_a_spare_warms_follows_the_models_options():
    warms = {case[0]: build(*case[1:])[2].spec.warms for case in CASES}
    assert warms["8b-g6e-image-only"] == ("image",)  # nodeLocalModelCache off: image-only warming
    assert warms["8b-g6e-node-local-shared"] == ("image", "model", "compile-cache")
    assert warms["70b-g6e12-tp4-shared"] == ("image", "compile-cache")
    assert warms["8b-p4d-packed-node-local"] == ("image", "model")
    # An empty-dir cache lives and dies with the vLLM pod: a spare's restore would reach nobody.
    assert warms["8b-g6e-empty-dir-shared"] == ("image",)
    spare = build(*CASES[4][1:])[2]
    assert all(
        c["name"] != "restore-compile-cache"
        for c in deployment(spare)["spec"]["template"]["spec"].get("initContainers", [])
    )


def test_priority_ordering_vllm_above_default_above_spares():
    _, vllm, spare, classes = build(*CASES[1][1:])
    by_name = {d["metadata"]["name"]: d for d in docs(classes)}
    high, low = by_name[SERVER_PRIORITY_CLASS], by_name[SPARE_PRIORITY_CLASS]
    assert high["value"] > 0 > low["value"]  # pods without a class get 0: they can preempt spares, not vLLM
    assert high["preemptionPolicy"] == "PreemptLowerPriority"  # vLLM pods take a spare's GPUs
    assert low["preemptionPolicy"] == "Never"  # spares never push anything out
    assert high["globalDefault"] is False and low["globalDefault"] is False
    assert deployment(vllm)["spec"]["template"]["spec"]["priorityClassName"] == SERVER_PRIORITY_CLASS
    assert deployment(spare)["spec"]["template"]["spec"]["priorityClassName"] == SPARE_PRIORITY_CLASS


def test_vllm_pods_without_spares_are_unchanged():
    serving = plan(ModelProfile.from_numbers(parameter_count=8_000_000_000), "g6e.2xlarge")
    chart = ServerChart(cdk8s.Testing.app(), "llama", plan=serving, model_name="llama", model_uri=URI, region="r")
    pod = deployment(chart)["spec"]["template"]["spec"]
    assert "priorityClassName" not in pod and [c["name"] for c in pod["initContainers"]] == ["resolve-revision"]


@pytest.mark.parametrize("version", SUPPORTED_KUBERNETES_VERSIONS)
def test_manifests_validate_and_meet_baseline_or_the_vllm_exemptions(version):
    for case in CASES:
        _, _, spare, classes = build(*case[1:])
        for doc in [*docs(classes), *docs(spare)]:
            kubernetes_validate.validate(doc, version, strict=True)
        assert unexempted_violations(deployment(spare)) == [], case[0]


def test_spare_ships_the_runtime_scripts():
    _, _, spare, _ = build(*CASES[1][1:])
    (config_map,) = [d for d in docs(spare) if d["kind"] == "ConfigMap"]
    assert config_map["data"] == runtime_scripts() and WARM_CHECK_SCRIPT in config_map["data"]


def test_zero_spares_render_no_deployment():
    _, _, spare, _ = build(*CASES[0][1:], spares=0)
    assert spare.deployment is None and [d["kind"] for d in docs(spare)] == []


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"vllm_value": 0}, "vllm_priority"),
        ({"vllm_value": 2_000_000_000}, "vllm_priority"),
        ({"spare_value": 0}, "spare_priority"),
        ({"spare_value": True}, "spare_priority"),
        ({"spare_name": SERVER_PRIORITY_CLASS}, "spare_priority_class_name"),
        ({"vllm_name": "Not_A_Name"}, "vllm_priority_class_name"),
    ],
)
def test_priority_classes_refuse_an_inverted_or_reserved_order(kwargs, field):
    with pytest.raises(FastloadConfigError) as err:
        priority_classes(**kwargs)
    assert err.value.field == field


def test_a_plan_with_spares_gives_the_server_the_class_above_them_and_a_warm_check():
    serving = planned(ModelProfile.from_numbers(parameter_count=8_000_000_000), "g6e.2xlarge", warm_spares=1)
    chart = ServerChart(cdk8s.Testing.app(), "llama", plan=serving, model_name="llama", model_uri=URI, region="r")
    assert chart.spec.priority_class_name == SERVER_PRIORITY_CLASS
    assert [c.name for c in chart.spec.init_containers[:2]] == ["resolve-revision", "warm-check"]
    assert warm_spare_spec(serving, chart.spec).replicas == 1
    # A class of the user's own below the spares' would never preempt them: refused.
    other = ServerChart(
        cdk8s.Testing.app(),
        "llama",
        plan=serving,
        model_name="llama",
        model_uri=URI,
        region="r",
        options=ServerOptions(priority_class_name="batch-low"),
    )
    with pytest.raises(FastloadConfigError) as err:
        warm_spare_spec(serving, other.spec)
    assert err.value.field == "priority_class_name"


def test_nodes_and_idle_cost():
    small = plan(ModelProfile.from_numbers(parameter_count=8_000_000_000), "p4d.24xlarge")  # TP 1, 8 per node
    big = plan(ModelProfile.from_numbers(parameter_count=70_000_000_000), "g6e.12xlarge")  # TP 4, 1 per node
    assert (nodes_for(small, 9), nodes_for(small, 8), nodes_for(big, 3)) == (2, 1, 3)
    assert idle_cost(big, 2).gpu_hours_per_day == 2 * 4 * 24
    assert idle_cost(big, 2).instance_hours_per_day == 48.0
    assert idle_cost(small, 2).instance_hours_per_day == 6.0  # two GPUs of eight


# The reference app ---------------------------------------------------------------------------------


def context(gpu_nodes: str = "managed", **changes) -> dict:
    ctx = copy.deepcopy(CDK_JSON)
    if "replicas" in changes:  # a fixed count instead of cdk.json's autoscaling bounds
        for key in ("minReplicas", "maxReplicas"):
            ctx["fastload:models"][0].pop(key, None)
    ctx["fastload:models"][0].update(changes)
    ctx["fastload:gpuNodes"] = gpu_nodes
    return ctx


def test_cdk_json_warm_spares_default_and_value():
    assert parse_reference_config(context()).models[0].warm_spares == 0
    assert parse_reference_config(context(warmSpares=3)).models[0].warm_spares == 3
    for bad in (-1, True, 1.5, "2"):
        with pytest.raises(FastloadConfigError) as err:
            parse_reference_config(context(warmSpares=bad))
        assert err.value.field == "fastload:models[0].warmSpares"


def _template(tmp_path, ctx):
    app = build_app(ctx, str(tmp_path))
    (stack,) = [s for s in app.node.children if hasattr(s, "served_models")]
    return stack, Template.from_stack(stack)


def test_reference_stack_sizes_the_node_group_for_replicas_plus_spares(tmp_path):
    stack, template = _template(tmp_path, context(replicas=2, warmSpares=2, nodeLocalModelCache=True))
    template.has_resource_properties(
        "AWS::EKS::Nodegroup",
        # 2 replicas + 2 spares + 1 surge pod, one GPU each, fixed at the peak (core.scaling.capacity.node_capacity).
        {"InstanceTypes": ["g6e.2xlarge"], "ScalingConfig": {"MinSize": 5, "DesiredSize": 5, "MaxSize": 5}},
    )
    served = stack.served_models["llama-3-1-8b-instruct"]
    spare_pod = deployment(served.spare_chart)["spec"]["template"]["spec"]
    assert spare_pod["priorityClassName"] == SPARE_PRIORITY_CLASS
    vllm_pod = deployment(served.chart)["spec"]["template"]["spec"]
    assert vllm_pod["priorityClassName"] == SERVER_PRIORITY_CLASS
    assert [c["name"] for c in vllm_pod["initContainers"][:2]] == ["resolve-revision", "warm-check"]
    assert spare_pod["serviceAccountName"] == vllm_pod["serviceAccountName"]
    # The classes are applied before any pod names them; the spares after the server (its service account
    # and, through it, the model's Pod Identity association).
    resources = template.to_json()["Resources"]
    classes_id = stack.get_logical_id(stack.priority_classes.classes_chart.manifest.node.default_child)
    server_id = stack.get_logical_id(served.server.manifest.node.default_child)
    spares_id = stack.get_logical_id(served.spares.manifest.node.default_child)
    association_id = stack.get_logical_id(served.reader.association)
    assert {classes_id, association_id} <= set(resources[server_id]["DependsOn"])
    assert server_id in resources[spares_id]["DependsOn"]
    assert [c.node.id for c in stack.manifest_export.charts] == [
        "local-nvme",
        "namespace",
        "priority-classes",
        "fastload-runtime-inference",  # the namespace's shared in-pod scripts
        "llama-3-1-8b-instruct",
        "llama-3-1-8b-instruct-warm-spares",
    ]


def test_reference_stack_without_spares_has_no_priority_classes(tmp_path):
    stack, template = _template(tmp_path, context())
    assert stack.priority_classes is None
    assert all(m.spares is None for m in stack.served_models.values())
    pod = deployment(stack.served_models["llama-3-1-8b-instruct"].chart)["spec"]["template"]["spec"]
    assert "priorityClassName" not in pod
    # cdk.json's 1-2 replicas + 1 surge pod.
    template.has_resource_properties("AWS::EKS::Nodegroup", {"ScalingConfig": {"DesiredSize": 3, "MaxSize": 3}})


def test_spares_of_one_model_give_every_model_the_vllm_class(tmp_path):
    ctx = context(warmSpares=1)
    ctx["fastload:models"].append(
        {"name": "qwen-7b", "instanceType": "g6e.2xlarge", "parameterCount": 7_000_000_000, "replicas": 1}
    )
    stack, _ = _template(tmp_path, ctx)
    qwen = stack.served_models["qwen-7b"]
    assert qwen.spares is None
    assert deployment(qwen.chart)["spec"]["template"]["spec"]["priorityClassName"] == SERVER_PRIORITY_CLASS


# The in-pod check -----------------------------------------------------------------------------------


def test_check_script_names_agree_with_the_steps():
    assert warm_check.COMPLETE_MARKER == model_copy.COMPLETE_MARKER
    assert warm_check.MANIFEST_NAME == model_copy.MANIFEST_NAME
    assert warm_check.COMPILE_SUBDIR == compile_cache.COMPILE_SUBDIR


class Unreachable:
    def get_object(self, **kwargs):
        raise ConnectionError("no route to S3")


@pytest.fixture()
def _quick_retries(monkeypatch):
    monkeypatch.setattr(_s3, "BACKOFF_BASE_S", 0.001)


def _local_copy(model_dir: Path, files: dict[str, bytes], revision: str = "unversioned") -> Path:
    """A complete copy of `revision` in the model's folder on the node, as stage-model leaves it."""
    manifest = json.dumps(
        {"files": [{"name": n, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in files.items()]}
    ).encode()
    copy = model_dir / copy_name(revision, manifest)
    copy.mkdir(parents=True)
    for name, data in files.items():
        (copy / name).write_bytes(data)
    (copy / warm_check.MANIFEST_NAME).write_bytes(manifest)
    (copy / warm_check.COMPLETE_MARKER).write_text("{}")
    return copy


@pytest.mark.usefixtures("_quick_retries")
def test_unreachable_s3_checks_the_copy_against_its_own_manifest(tmp_path):
    model_dir = tmp_path / "models" / "revisions" / "m"
    copy = _local_copy(model_dir, {"model.safetensors": b"x" * 100})
    report = warm_check.check(Unreachable(), bucket="b", prefix="p", model_dir=model_dir)
    assert report.model == "unverified" and "ConnectionError" in report.detail
    assert report.path == "warm" and (copy / warm_check.COMPLETE_MARKER).exists()
    (copy / "model.safetensors").write_bytes(b"x" * 99)
    report = warm_check.check(Unreachable(), bucket="b", prefix="p", model_dir=model_dir)
    assert report.model == "damaged" and not (copy / warm_check.COMPLETE_MARKER).exists()


@pytest.mark.usefixtures("_quick_retries")
def test_the_check_looks_at_its_own_revisions_copy_only(tmp_path):
    model_dir = tmp_path / "models" / "revisions" / "m"
    other = _local_copy(model_dir, {"model.safetensors": b"x" * 100}, revision="20261203T101500Z-1a2b3c4d")
    (other / "model.safetensors").write_bytes(b"x")  # damaged, but another revision's: not this pod's to judge
    report = warm_check.check(
        Unreachable(), bucket="b", prefix="p", model_dir=model_dir, revision_id="20261203T111500Z-2a2b3c4d"
    )
    assert report.model == "absent" and other.name in report.detail
    assert (other / warm_check.COMPLETE_MARKER).exists()


@pytest.mark.usefixtures("_quick_retries")
def test_check_refuses_manifest_names_that_escape(tmp_path):
    model_dir = tmp_path / "models" / "revisions" / "m"
    copy = _local_copy(model_dir, {"a": b"1"})
    (model_dir / "secret").write_bytes(b"1")
    escaping = {"name": "../secret", "size": 1, "sha256": hashlib.sha256(b"1").hexdigest()}
    (copy / warm_check.MANIFEST_NAME).write_text(json.dumps({"files": [escaping]}))
    report = warm_check.check(Unreachable(), bucket="b", prefix="p", model_dir=model_dir)
    assert report.model == "damaged"


def test_report_paths():
    assert warm_check.WarmReport("verified", "present").path == "warm"
    assert warm_check.WarmReport("off", "present").path == "warm"
    assert warm_check.WarmReport("verified", "absent").path == "cold"
    assert warm_check.WarmReport("stale", "present").path == "cold"
    assert warm_check.WarmReport("absent", "off").path == "cold"
