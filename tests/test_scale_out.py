"""Scale-out: node capacity for every replica plus a surge, KEDA on vLLM's queue, Karpenter and AMP wired in.

Pure decisions are tested directly (a packing simulation for capacity); the
reference stack is synthesised once in its default mode (Karpenter + KEDA) and
its CloudFormation, IAM (evaluated with resources and conditions), Helm values
(against the pinned charts' values.yaml) and manifests (against the pinned
CRDs) are checked.
"""

from __future__ import annotations

import base64
import copy
import email
import ipaddress
import itertools
import json
import re
from pathlib import Path

import aws_cdk as cdk
import cdk8s
import jsonschema
import pytest
import yaml
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks

from app import build_app
from fastload_constructs.core.catalog import CATALOG
from fastload_constructs.core.cluster.karpenter import DO_NOT_DISRUPT, NodePoolOptions, plan_node_pools
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.naming import LABEL_NODE_ROLE, NODE_ROLE_SYSTEM
from fastload_constructs.core.planning.fit import tensor_parallel_candidates
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.scaling.autoscaling import (
    HPA_DEFAULT_SCALE_DOWN_WINDOW_S,
    Autoscaling,
    check_autoscaling,
    hpa_behavior,
    predicted_startup_seconds,
    scaling_behavior,
)
from fastload_constructs.core.scaling.capacity import Workload, family_gpu_limits, node_capacity
from fastload_constructs.core.scaling.metrics import scaling_query, scrape_config
from fastload_constructs.infra.scale_out_metrics import ScaleOutMetrics
from fastload_constructs.k8s.karpenter import KarpenterGpuNodePools
from fastload_constructs.k8s.keda import AutoscalingChart
from tests.cfn_template import resources
from tests.crd_schemas import chart_values, crd_schema, unknown_value_paths, validate_custom_resource
from tests.emitted_manifests import template_manifests
from tests.iam_eval import allowed
from tests.node_packing import pack_pods

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]
ACCOUNT, REGION = "123456789012", "us-west-2"
CLUSTER = "FastloadReference"


# Capacity: a packing simulation ------------------------------------------------------------------


def surge_pods(workloads, capacity, instance_type):
    """Every pod at max replicas plus one surge pod per model, as GPU counts."""
    pods = []
    for w in workloads:
        if w.instance_type == instance_type:
            pods += [w.tensor_parallel_size] * (w.max_replicas + 1)
    return pods


CASES = [
    # The issue's case: two 1-GPU models on one type, 1 + 2 replicas (was 2 nodes for 3 pods).
    [Workload("a", "g6e.2xlarge", 1, 1, 1), Workload("b", "g6e.2xlarge", 1, 2, 2)],
    [
        Workload("a", "g6e.12xlarge", 2, 1, 3),
        Workload("b", "g6e.12xlarge", 1, 1, 5),
        Workload("c", "g6e.12xlarge", 4, 1, 1),
    ],
    [
        Workload("a", "p5.48xlarge", 8, 1, 2),
        Workload("b", "p4d.24xlarge", 4, 2, 7),
        Workload("c", "p4d.24xlarge", 2, 1, 1),
    ],
]


def random_cases():
    """Every instance type with more than one GPU, every TP it allows, a few replica mixes."""
    for instance in CATALOG.values():
        tps = tensor_parallel_candidates(instance)
        for mix in itertools.islice(itertools.product(tps, repeat=3), 6):
            yield [Workload(f"m{i}", instance.name, tp, 1 + i, 1 + i + (tp % 3)) for i, tp in enumerate(mix)]


@pytest.mark.parametrize("workloads", CASES + list(random_cases())[::7])
def test_peak_nodes_hold_every_replica_plus_one_surge_pod_per_model_and_no_fewer_would(workloads):
    capacity = node_capacity(workloads)
    for instance_type, cap in capacity.items():
        pods = surge_pods(workloads, capacity, instance_type)
        g = cap.instance.gpu_count
        assert pack_pods(pods, g, cap.peak_nodes)
        assert not pack_pods(pods, g, cap.peak_nodes - 1)  # no idle node beyond the surge
        baseline = [
            w.tensor_parallel_size for w in workloads if w.instance_type == instance_type for _ in range(w.min_replicas)
        ]
        assert pack_pods(baseline, g, cap.baseline_nodes)


def test_the_issue_case_gets_five_nodes_not_two():
    capacity = node_capacity(CASES[0])["g6e.2xlarge"]
    assert (capacity.peak_gpus, capacity.peak_nodes) == (5, 5)  # 3 pods + a surge pod each for 2 models


def test_node_pool_gpu_limits_sum_the_peak_nodes_of_each_family():
    limits = family_gpu_limits(node_capacity(CASES[2]))
    assert limits == {"p5": 3 * 8, "p4d": 5 * 8}  # p5: 3 pods x 8; p4d: (8 x 4 + 2 x 2) / 8 GPUs = 4.5 -> 5 nodes


def test_capacity_refuses_a_tp_that_does_not_divide_the_node():
    with pytest.raises(FastloadConfigError) as err:
        node_capacity([Workload("m", "g6e.12xlarge", 3, 1, 1)])
    assert err.value.field == "m.tensorParallelSize"


# Autoscaling policy ------------------------------------------------------------------------------


@pytest.mark.parametrize("instance,params", [("g6e.2xlarge", 8e9), ("g6e.12xlarge", 70e9), ("p5.48xlarge", 200e9)])
def test_scale_down_waits_at_least_twice_the_predicted_start_up(instance, params):
    p = plan(ModelProfile.from_numbers(parameter_count=int(params)), instance)
    b = scaling_behavior(p)
    startup = predicted_startup_seconds(p)
    assert (
        p.scale_out_paths is not None and startup == p.scale_out_paths.fresh_node.total_s
    )  # a scale-out may need a node
    assert b.scale_down_window_s >= 2 * startup and b.scale_down_window_s >= HPA_DEFAULT_SCALE_DOWN_WINDOW_S
    assert b.scale_up_window_s < startup  # the demand is confirmed long before a pod could serve
    hpa = hpa_behavior(b)
    assert hpa["scaleUp"]["stabilizationWindowSeconds"] == b.scale_up_window_s == 45
    assert hpa["scaleUp"]["policies"] == [{"type": "Pods", "value": 100, "periodSeconds": 15}]  # one step
    assert hpa["scaleDown"]["stabilizationWindowSeconds"] == b.scale_down_window_s
    assert any(str(b.scale_down_window_s) in line for line in b.describe())


def test_a_slower_start_up_scales_down_later():
    model = ModelProfile.from_numbers(parameter_count=8_000_000_000)
    # A shared compile cache shortens even a fresh node's start (the archive is restored, not compiled).
    warm = scaling_behavior(plan(model, "g6e.2xlarge", TuningOptions(serving=Serving(shared_compile_cache=True))))
    cold = scaling_behavior(plan(model, "g6e.2xlarge"))
    assert warm.startup_s < cold.startup_s
    assert warm.scale_down_window_s <= cold.scale_down_window_s
    assert warm.scale_up_window_s == cold.scale_up_window_s  # scale-up no longer waits for a start-up


@pytest.mark.parametrize(
    "autoscaling,field",
    [
        (Autoscaling(min_replicas=3, max_replicas=2), "a.maxReplicas"),
        (Autoscaling(min_replicas=0, max_replicas=2), "a.minReplicas"),
        (Autoscaling(min_replicas=1, max_replicas=2, target=0), "a.target"),
        (Autoscaling(min_replicas=1, max_replicas=2, target=-1.0), "a.target"),
        (Autoscaling(min_replicas=1, max_replicas=2, metric="kv_cache_usage", target=80), "a.target"),
        (Autoscaling(min_replicas=1, max_replicas=2, metric="gpu_util"), "a.metric"),
        (Autoscaling(min_replicas=True, max_replicas=2), "a.minReplicas"),
    ],
)
def test_bad_autoscaling_is_refused(autoscaling, field):
    with pytest.raises(FastloadConfigError) as err:
        check_autoscaling(autoscaling, "a")
    assert err.value.field == field


def test_the_query_sums_one_servers_pods_and_the_scrape_config_writes_those_labels():
    query = scaling_query(Autoscaling(1, 3, 4.0), server="llama", namespace="inference")
    assert query == 'sum(vllm:num_requests_waiting{namespace="inference",server="llama"})'
    (vllm, *_) = scrape_config(cluster_label="c")["scrape_configs"]
    targets = {r.get("target_label") for r in vllm["relabel_configs"]}
    assert {"namespace", "server", "pod"} <= targets
    keep = {r["source_labels"][0]: r["regex"] for r in vllm["relabel_configs"] if r["action"] == "keep"}
    # The server pods' label of either engine (Prometheus anchors the regex) and the container port name.
    app = keep["__meta_kubernetes_pod_label_app_kubernetes_io_name"]
    assert [name for name in ("vllm", "sglang", "vllm-autoscaling", "karpenter") if re.fullmatch(app, name)] == [
        "vllm",
        "sglang",
    ]
    assert keep["__meta_kubernetes_pod_container_port_name"] == "http"


# Karpenter node pools ----------------------------------------------------------------------------


def node_docs(security_group_ids=(), **options):
    args = dict(cluster_name="c", node_role="r", instance_types=["g6e.12xlarge", "p5.48xlarge"])
    chart = KarpenterGpuNodePools(
        cdk8s.Testing.app(), "gpu", **args, options=NodePoolOptions(**options), security_group_ids=security_group_ids
    )
    return cdk8s.Testing.synth(chart)


def test_node_pools_never_consolidate_a_busy_node_and_never_expire_one():
    for pool in [d for d in node_docs() if d["kind"] == "NodePool"]:
        validate_custom_resource(pool)
        disruption = pool["spec"]["disruption"]
        assert disruption["consolidationPolicy"] == "WhenEmpty"
        assert disruption["consolidateAfter"] == "10m"
        assert disruption["budgets"] == [{"nodes": "1"}]
        assert pool["spec"]["template"]["spec"]["expireAfter"] == "Never"


def test_node_class_has_what_the_managed_node_groups_have():
    docs = node_docs(security_group_ids=["sg-0123456789abcdef0"], ami_family="al2023")
    (nc,) = [d for d in docs if d["kind"] == "EC2NodeClass"]
    validate_custom_resource(nc)
    spec = nc["spec"]
    assert spec["instanceStorePolicy"] == "RAID0"
    assert spec["metadataOptions"]["httpTokens"] == "required"
    assert spec["metadataOptions"]["httpPutResponseHopLimit"] == 1
    (root,) = spec["blockDeviceMappings"]
    assert root["ebs"]["encrypted"] is True and root["ebs"]["volumeType"] == "gp3"
    assert spec["securityGroupSelectorTerms"] == [{"id": "sg-0123456789abcdef0"}]
    message = email.message_from_string(spec["userData"])
    (config,) = [
        yaml.safe_load(p.get_payload()) for p in message.walk() if p.get_content_type() == "application/node.eks.aws"
    ]
    assert config["spec"] == {"featureGates": {"FastImagePull": True}}  # RAID0 comes from instanceStorePolicy


def test_the_default_bottlerocket_node_class_encrypts_both_volumes_and_keeps_imds_to_the_host():
    (nc,) = [d for d in node_docs() if d["kind"] == "EC2NodeClass"]
    validate_custom_resource(nc)
    spec = nc["spec"]
    assert spec["amiSelectorTerms"][0]["alias"].startswith("bottlerocket@v")
    assert spec["instanceStorePolicy"] == "RAID0"  # Karpenter writes Bottlerocket's ephemeral-storage command
    assert spec["metadataOptions"] == {
        "httpEndpoint": "enabled",
        "httpProtocolIPv6": "disabled",
        "httpTokens": "required",
        "httpPutResponseHopLimit": 1,
    }
    assert all(d["ebs"]["encrypted"] is True for d in spec["blockDeviceMappings"])


def test_reserved_capacity_selects_its_reservations_or_is_refused():
    docs = node_docs(capacity_types=["reserved"], capacity_reservation_ids=["cr-0123456789abcdef0"])
    (nc,) = [d for d in docs if d["kind"] == "EC2NodeClass"]
    validate_custom_resource(nc)
    assert nc["spec"]["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]
    for pool in [d for d in docs if d["kind"] == "NodePool"]:
        reqs = {r["key"]: r["values"] for r in pool["spec"]["template"]["spec"]["requirements"]}
        assert reqs["karpenter.sh/capacity-type"] == ["reserved"]
    for kwargs in ({"capacity_types": ["reserved"]}, {"capacity_reservation_ids": ["cr-0123456789abcdef0"]}):
        with pytest.raises(FastloadConfigError) as err:
            plan_node_pools(["p5"], NodePoolOptions(**kwargs))
        assert err.value.field == "capacity_reservation_ids"


def test_the_vendored_crds_reject_a_misspelt_field():
    (pool, *_) = [d for d in node_docs() if d["kind"] == "NodePool"]
    broken = copy.deepcopy(pool)
    broken["spec"]["disruption"]["consolidateAfterr"] = "10m"
    with pytest.raises(jsonschema.ValidationError):
        validate_custom_resource(broken)
    broken = copy.deepcopy(pool)
    broken["spec"]["disruption"]["consolidationPolicy"] = "WhenIdle"
    with pytest.raises(jsonschema.ValidationError):
        validate_custom_resource(broken)


# KEDA chart ---------------------------------------------------------------------------------------


def keda_docs(**kwargs):
    p = plan(ModelProfile.from_numbers(parameter_count=8_000_000_000), "g6e.2xlarge")
    args = (
        dict(
            server="llama",
            autoscaling=Autoscaling(min_replicas=1, max_replicas=4, target=4.0),
            behavior=scaling_behavior(p),
            server_address="https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1",
            region="us-west-2",
        )
        | kwargs
    )
    return cdk8s.Testing.synth(AutoscalingChart(cdk8s.Testing.app(), "a", **args))


def test_scaled_object_scales_the_deployment_on_the_waiting_queue_with_sigv4():
    docs = {d["kind"]: d for d in keda_docs()}
    for doc in docs.values():
        validate_custom_resource(doc)
    so, auth = docs["ScaledObject"]["spec"], docs["TriggerAuthentication"]["spec"]
    assert so["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": "llama"}
    assert (so["minReplicaCount"], so["maxReplicaCount"]) == (1, 4)
    (trigger,) = so["triggers"]
    assert trigger["type"] == "prometheus" and trigger["metricType"] == "AverageValue"
    assert trigger["metadata"]["query"] == 'sum(vllm:num_requests_waiting{namespace="inference",server="llama"})'
    assert trigger["metadata"]["threshold"] == "4"
    assert trigger["metadata"]["awsRegion"] == "us-west-2"
    assert trigger["authenticationRef"]["name"] == docs["TriggerAuthentication"]["metadata"]["name"]
    assert auth == {"podIdentity": {"provider": "aws", "identityOwner": "keda"}}
    behavior = so["advanced"]["horizontalPodAutoscalerConfig"]["behavior"]
    assert behavior["scaleDown"]["stabilizationWindowSeconds"] >= 300


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"server_address": "http://prometheus:9090"}, "server_address"),
        ({"server_address": "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1/"}, "server_address"),
        ({"autoscaling": Autoscaling(min_replicas=2, max_replicas=1)}, "autoscaling.maxReplicas"),
        ({"server": "Llama_3"}, "server"),
    ],
)
def test_bad_keda_chart_inputs_are_refused(kwargs, field):
    with pytest.raises(FastloadConfigError) as err:
        keda_docs(**kwargs)
    assert err.value.field == field


# The reference stack (Karpenter + KEDA) ------------------------------------------------------------


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:models"].append(
        {
            "name": "qwen-7b",
            "s3Prefix": "models/qwen-7b",
            "instanceType": "g6e.2xlarge",
            "parameterCount": 7_000_000_000,
            "replicas": 2,
        }
    )
    app = build_app(context=ctx, outdir=str(tmp_path_factory.mktemp("cdk.out")))
    assembly = app.synth()
    (stack,) = [c for c in app.node.children if c.node.id == "FastloadReference"]
    return stack, assembly.get_stack_by_name("FastloadReference").template


def of_type(template, kind):
    """Logical id -> Properties of every resource of `kind`."""
    return {k: r["Properties"] for k, r in resources(template, kind).items()}


def logical_id(stack, construct):
    element = construct if isinstance(construct, cdk.CfnElement) else construct.node.default_child
    return stack.get_logical_id(element)


def test_no_fixed_gpu_node_groups_and_pools_limited_to_the_peak(reference):
    _, template = reference
    groups = [g for g in of_type(template, "AWS::EKS::Nodegroup").values() if g["AmiType"] == "AL2023_x86_64_NVIDIA"]
    assert groups == []
    docs = [doc for _, doc in template_manifests(template)]
    (pool,) = [d for d in docs if d["kind"] == "NodePool"]
    # llama 1..2 replicas + surge, qwen 2 fixed + surge: 3 + 3 GPUs of g6e.2xlarge.
    assert pool["spec"]["limits"] == {"nvidia.com/gpu": 6}
    deployments = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Deployment"}
    for deployment in deployments.values():
        assert deployment["spec"]["template"]["metadata"]["annotations"][DO_NOT_DISRUPT] == "true"
    assert "replicas" not in deployments["llama-3-1-8b-instruct"]["spec"]  # KEDA owns it
    assert deployments["qwen-7b"]["spec"]["replicas"] == 2  # fixed


def test_one_scaled_object_only_for_the_autoscaled_model(reference):
    _, template = reference
    docs = [doc for _, doc in template_manifests(template)]
    scaled = [d for d in docs if d["kind"] == "ScaledObject"]
    assert [d["metadata"]["name"] for d in scaled] == ["llama-3-1-8b-instruct"]
    (trigger,) = scaled[0]["spec"]["triggers"]
    assert trigger["metadata"]["serverAddress"].startswith("https://aps-workspaces.")


def test_karpenter_chart_is_pinned_oci_with_crds_first_and_pools_after(reference):
    stack, template = reference
    charts = {c["Release"]: (k, c) for k, c in of_type(template, "Custom::AWSCDK-EKS-HelmChart").items()}
    crd_id, crd = charts["karpenter-crd"]
    main_id, main = charts["karpenter"]
    assert crd["Repository"] == "oci://public.ecr.aws/karpenter/karpenter-crd" and crd["Version"] == "1.14.1"
    assert main["Repository"] == "oci://public.ecr.aws/karpenter/karpenter" and main["Version"] == "1.14.1"
    assert main["SkipCrds"] is True
    resources = template["Resources"]
    assert crd_id in resources[main_id]["DependsOn"]
    pools_id = logical_id(stack, stack.karpenter_nodes.manifest)
    assert main_id in resources[pools_id]["DependsOn"]
    assert charts["keda"][1]["Version"] == "2.20.2"


def helm_values(template, release):
    (chart,) = [c for c in of_type(template, "Custom::AWSCDK-EKS-HelmChart").values() if c["Release"] == release]
    values = chart["Values"]
    if isinstance(values, dict):  # Fn::Join with tokens (queue name, node group name)
        values = "".join(p if isinstance(p, str) else '"TOKEN"' for p in values["Fn::Join"][1]).replace(
            '""TOKEN""', '"TOKEN"'
        )
    return json.loads(values)


@pytest.mark.parametrize("release,chart", [("karpenter", "karpenter"), ("keda", "keda")])
def test_helm_values_exist_in_the_pinned_charts_values_yaml(reference, release, chart):
    _, template = reference
    values = helm_values(template, release)
    assert unknown_value_paths(values, chart_values(chart)) == []
    assert unknown_value_paths({"settings": {"clusterNam": "x"}}, chart_values("karpenter")) == ["settings.clusterNam"]


def test_karpenter_values_point_at_this_cluster_and_queue_on_system_nodes(reference):
    _, template = reference
    values = helm_values(template, "karpenter")
    assert values["settings"]["clusterName"] == CLUSTER
    assert values["settings"]["interruptionQueue"] == "TOKEN"
    assert values["serviceAccount"]["name"] == "karpenter"


@pytest.mark.parametrize("release", ["karpenter", "keda"])
def test_controllers_select_the_system_nodes_by_a_label_the_node_group_sets(reference, release):
    """Not `eks.amazonaws.com/nodegroup: <nodegroup_name>`: that attribute is the node group's Ref,
    "<cluster>/<nodegroup>" at deploy time, which the API server refuses as a label value."""
    _, template = reference
    selector = helm_values(template, release)["nodeSelector"]
    assert selector == {"kubernetes.io/os": "linux", LABEL_NODE_ROLE: NODE_ROLE_SYSTEM}
    (system,) = [
        g for g in of_type(template, "AWS::EKS::Nodegroup").values() if g["AmiType"] == "AL2023_x86_64_STANDARD"
    ]
    assert system["Labels"] == {LABEL_NODE_ROLE: NODE_ROLE_SYSTEM}
    # A literal label value, valid for the API server: never a CloudFormation reference.
    assert all(
        isinstance(v, str) and re.fullmatch(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?", v)
        for v in selector.values()
    )


def test_karpenter_controller_knows_its_region_and_requests_upstreams_resources(reference):
    """IMDS (hop limit 1) cannot tell a pod its region; upstream's getting-started sets 1 CPU / 1 Gi."""
    _, template = reference
    (chart,) = [c for c in of_type(template, "Custom::AWSCDK-EKS-HelmChart").values() if c["Release"] == "karpenter"]
    parts = chart["Values"]["Fn::Join"][1]
    text = "".join(p if isinstance(p, str) else json.dumps(p) for p in parts)
    assert '"env":[{"name":"AWS_REGION","value":"{"Ref": "AWS::Region"}"}]' in text
    controller = helm_values(template, "karpenter")["controller"]
    assert controller["resources"] == {
        "requests": {"cpu": "1", "memory": "1Gi"},
        "limits": {"cpu": "1", "memory": "1Gi"},
    }


def test_pools_wait_for_the_node_access_entry_and_controllers_for_the_pod_identity_agent(reference):
    stack, template = reference
    resources_ = template["Resources"]
    pools_id = logical_id(stack, stack.karpenter_nodes.manifest)
    assert logical_id(stack, stack.karpenter_nodes.access_entry) in resources_[pools_id]["DependsOn"]
    (agent_id,) = [
        k for k, r in of_type(template, "AWS::EKS::Addon").items() if r["AddonName"] == "eks-pod-identity-agent"
    ]
    charts = {c["Release"]: k for k, c in of_type(template, "Custom::AWSCDK-EKS-HelmChart").items()}
    for release in ("karpenter", "keda"):
        assert agent_id in resources_[charts[release]]["DependsOn"], release
    server_id = logical_id(stack, stack.served_models["llama-3-1-8b-instruct"].server.manifest)
    assert agent_id in resources_[server_id]["DependsOn"]


def test_interruption_queue_is_encrypted_and_only_eventbridge_rules_may_send(reference):
    _, template = reference
    (queue,) = of_type(template, "AWS::SQS::Queue").values()
    assert queue["SqsManagedSseEnabled"] is True and queue["MessageRetentionPeriod"] == 300
    (policy,) = of_type(template, "AWS::SQS::QueuePolicy").values()
    statements = policy["PolicyDocument"]["Statement"]
    allows = [s for s in statements if s["Effect"] == "Allow"]
    assert {json.dumps(s["Principal"]) for s in allows} == {json.dumps({"Service": "events.amazonaws.com"})}
    sends = {"sqs:SendMessage", "sqs:GetQueueAttributes", "sqs:GetQueueUrl"}
    assert all(set(s["Action"] if isinstance(s["Action"], list) else [s["Action"]]) <= sends for s in allows)
    # Each rule may send, and only it (aws:SourceArn), not any EventBridge rule in the account.
    rule_ids = set(of_type(template, "AWS::Events::Rule"))
    sources = {s["Condition"]["ArnEquals"]["aws:SourceArn"]["Fn::GetAtt"][0] for s in allows}
    assert sources == rule_ids
    assert any(
        s["Effect"] == "Deny" and s["Condition"] == {"Bool": {"aws:SecureTransport": "false"}} for s in statements
    )
    patterns = sorted(
        (r["EventPattern"]["source"][0], r["EventPattern"]["detail-type"][0])
        for r in of_type(template, "AWS::Events::Rule").values()
    )
    assert patterns == sorted(
        [
            ("aws.health", "AWS Health Event"),
            ("aws.ec2", "EC2 Spot Instance Interruption Warning"),
            ("aws.ec2", "EC2 Instance Rebalance Recommendation"),
            ("aws.ec2", "EC2 Instance State-change Notification"),
            ("aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"),
        ]
    )


def test_gpu_subnets_carry_the_discovery_tag_the_node_class_selects(reference):
    stack, template = reference
    subnets = of_type(template, "AWS::EC2::Subnet")
    for subnet in stack.network.gpu_subnets.subnets:
        tags = {t["Key"]: t["Value"] for t in subnets[logical_id(stack, subnet)]["Tags"]}
        assert tags["karpenter.sh/discovery"] == CLUSTER
    (node_class,) = [doc for _, doc in template_manifests(template) if doc["kind"] == "EC2NodeClass"]
    assert node_class["spec"]["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": CLUSTER}}]
    cluster_id = logical_id(stack, stack.cluster)
    (manifest,) = [
        r["Properties"]["Manifest"]
        for r in template["Resources"].values()
        if r["Type"] == "Custom::AWSCDK-EKS-KubernetesResource"
        and "EC2NodeClass" in json.dumps(r["Properties"]["Manifest"])
    ]
    # The node class selects the cluster security group (what managed nodes get) by its id.
    assert {"Fn::GetAtt": [cluster_id, "ClusterSecurityGroupId"]} in manifest["Fn::Join"][1]


def test_pod_identity_for_karpenter_and_keda_and_the_cluster_uses_access_entries(reference):
    _, template = reference
    associations = {
        (a["Namespace"], a["ServiceAccount"]) for a in of_type(template, "AWS::EKS::PodIdentityAssociation").values()
    }
    assert {("kube-system", "karpenter"), ("keda", "keda-operator")} <= associations
    (cluster,) = of_type(template, "AWS::EKS::Cluster").values()
    # The AMP scraper gets its access entry from AMP only on API authentication.
    assert cluster["AccessConfig"]["AuthenticationMode"] in ("API", "API_AND_CONFIG_MAP")
    assert cluster["Name"] == CLUSTER


def test_scraper_writes_into_the_workspace_and_scrapes_the_vllm_pods(reference):
    stack, template = reference
    (scraper,) = of_type(template, "AWS::APS::Scraper").values()
    workspace_id = logical_id(stack, stack.metrics.workspace)
    assert scraper["Destination"]["AmpConfiguration"]["WorkspaceArn"] == {"Fn::GetAtt": [workspace_id, "Arn"]}
    blob = scraper["ScrapeConfiguration"]["ConfigurationBlob"]["Fn::Base64"]
    config = yaml.safe_load(blob)
    assert {j["job_name"] for j in config["scrape_configs"]} == {"vllm", "karpenter", "keda-operator"}
    assert config["global"]["scrape_interval"] == "30s"
    assert base64.b64encode(blob.encode())  # what CloudFormation's Fn::Base64 sends


def test_only_the_scrapers_own_subnets_may_reach_the_vllm_port_through_the_network_policy(reference):
    """The scraper's ENIs sit in Monitoring subnets where no node runs: admitting their CIDRs admits the
    scraper and nothing else (with the VPC CNI every pod has an address of its node's subnet)."""
    stack, template = reference
    subnets = of_type(template, "AWS::EC2::Subnet")
    (scraper,) = of_type(template, "AWS::APS::Scraper").values()
    scraper_ids = [ref["Ref"] for ref in scraper["Source"]["EksConfiguration"]["SubnetIds"]]
    scraper_cidrs = {subnets[i]["CidrBlock"] for i in scraper_ids}
    assert len(scraper_ids) >= 2 and len({json.dumps(subnets[i]["AvailabilityZone"]) for i in scraper_ids}) >= 2
    node_subnets = {logical_id(stack, s) for s in stack.network.gpu_subnets.subnets}
    node_subnets |= {r["Ref"] for g in of_type(template, "AWS::EKS::Nodegroup").values() for r in g["Subnets"]}
    assert not node_subnets & set(scraper_ids)
    assert all(ipaddress.ip_network(c).prefixlen == 28 for c in scraper_cidrs)
    policies = [
        doc
        for _, doc in template_manifests(template)
        if doc["kind"] == "NetworkPolicy"
        and doc["metadata"]["labels"]["app.kubernetes.io/component"] == "inference-server"
    ]
    assert len(policies) == 2  # one per model (the storage provisioner's admits its metrics port only)
    for policy in policies:
        blocks = {p["ipBlock"]["cidr"] for rule in policy["spec"]["ingress"] for p in rule["from"] if "ipBlock" in p}
        assert blocks == scraper_cidrs
        assert all(rule["ports"] == [{"port": 8000, "protocol": "TCP"}] for rule in policy["spec"]["ingress"])
        node_cidrs = {subnets[i]["CidrBlock"] for i in node_subnets}
        assert not any(ipaddress.ip_network(b).overlaps(ipaddress.ip_network(n)) for b in blocks for n in node_cidrs)


@pytest.mark.parametrize("zones", [["us-west-2a"], ["us-west-2a", "us-west-2a"]])
def test_the_scraper_needs_two_subnets_in_two_zones(zones):
    stack = cdk.Stack(cdk.App(), "S", env=cdk.Environment(account=ACCOUNT, region=REGION))
    subnets = [
        ec2.Subnet.from_subnet_attributes(
            stack, f"S{i}", subnet_id=f"subnet-0{i}", availability_zone=zone, ipv4_cidr_block=f"10.0.{i}.0/28"
        )
        for i, zone in enumerate(zones)
    ]
    cluster = eks.Cluster.from_cluster_attributes(stack, "C", cluster_name="c")
    with pytest.raises(FastloadConfigError) as err:
        ScaleOutMetrics(
            stack, "M", cluster=cluster, scraper_subnets=subnets, security_group_ids=["sg-1"], cluster_label="c"
        )
    assert err.value.field == "scraper_subnets"
    assert "two Availability Zones" in err.value.accepted


def test_a_missing_queue_metric_holds_the_replicas_and_raises_an_alert(reference):
    """`ignoreNullValues: "true"` read a broken pipeline as 0 waiting: the model silently never scaled."""
    _, template = reference
    docs = [doc for _, doc in template_manifests(template)]
    (scaled,) = [d for d in docs if d["kind"] == "ScaledObject"]
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["metadata"]["ignoreNullValues"] == "false"
    assert scaled["spec"]["fallback"] == {"failureThreshold": 3, "replicas": 1, "behavior": "currentReplicas"}
    validate_custom_resource(scaled)
    (rules,) = of_type(template, "AWS::APS::RuleGroupsNamespace").values()
    groups = yaml.safe_load(rules["Data"])["groups"]
    alerts = {r["alert"]: r for g in groups for r in g["rules"]}
    missing = alerts["FastloadScalingMetricMissing"]
    assert missing["expr"] == 'absent(vllm:num_requests_waiting{namespace="inference",server="llama-3-1-8b-instruct"})'
    assert "keda_scaled_object_errors_total" in alerts["FastloadKedaQueryErrors"]["expr"]


# IAM, evaluated ----------------------------------------------------------------------------------


def policies_of(template, role_id):
    out = []
    for kind in ("AWS::IAM::ManagedPolicy", "AWS::IAM::Policy"):
        for p in of_type(template, kind).values():
            if {"Ref": role_id} in p.get("Roles", []):
                out += p["PolicyDocument"]["Statement"]
    return out


@pytest.fixture(scope="module")
def karpenter_iam(reference):
    stack, template = reference
    role_id = logical_id(stack, stack.karpenter.role)
    node_role_id = logical_id(stack, stack.karpenter_nodes.node_role)
    queue_id = logical_id(stack, stack.karpenter.queue)
    refs = {
        "AWS::Partition": "aws",
        "AWS::Region": REGION,
        "AWS::AccountId": ACCOUNT,
        f"{node_role_id}.Arn": f"arn:aws:iam::{ACCOUNT}:role/node",
        f"{queue_id}.Arn": f"arn:aws:sqs:{REGION}:{ACCOUNT}:queue",
    }
    return policies_of(template, role_id), refs


EC2 = f"arn:aws:ec2:{REGION}:{ACCOUNT}"
OURS = {f"aws:ResourceTag/kubernetes.io/cluster/{CLUSTER}": "owned", "aws:ResourceTag/karpenter.sh/nodepool": "gpu-g6e"}
THEIRS = {"aws:ResourceTag/kubernetes.io/cluster/other": "owned", "aws:ResourceTag/karpenter.sh/nodepool": "gpu-g6e"}


@pytest.mark.parametrize(
    "action,resource,context,expected",
    [
        ("ec2:TerminateInstances", f"{EC2}:instance/i-1", OURS, True),
        ("ec2:TerminateInstances", f"{EC2}:instance/i-1", THEIRS, False),
        (
            "ec2:TerminateInstances",
            f"{EC2}:instance/i-1",
            {f"aws:ResourceTag/kubernetes.io/cluster/{CLUSTER}": "owned"},
            False,
        ),
        ("ec2:DeleteLaunchTemplate", f"{EC2}:launch-template/lt-1", OURS, True),
        ("ec2:DeleteLaunchTemplate", f"{EC2}:launch-template/lt-1", THEIRS, False),
        ("ec2:RunInstances", f"{EC2}:launch-template/lt-1", OURS, True),
        ("ec2:RunInstances", f"{EC2}:launch-template/lt-1", THEIRS, False),
        (
            "ec2:RunInstances",
            f"{EC2}:instance/*",
            {
                f"aws:RequestTag/kubernetes.io/cluster/{CLUSTER}": "owned",
                "aws:RequestTag/eks:eks-cluster-name": CLUSTER,
                "aws:RequestTag/karpenter.sh/nodepool": "gpu-g6e",
            },
            True,
        ),
        (
            "ec2:RunInstances",
            f"{EC2}:instance/*",
            {"aws:RequestTag/kubernetes.io/cluster/other": "owned", "aws:RequestTag/eks:eks-cluster-name": "other"},
            False,
        ),
        ("ec2:RunInstances", f"arn:aws:ec2:eu-west-1:{ACCOUNT}:instance/*", {}, False),
        ("ec2:CreateTags", f"{EC2}:instance/i-1", {**OURS, "aws:TagKeys": ["karpenter.sh/nodeclaim"]}, True),
        ("ec2:CreateTags", f"{EC2}:instance/i-1", {**OURS, "aws:TagKeys": ["karpenter.sh/nodepool"]}, False),
        ("ec2:CreateTags", f"{EC2}:instance/i-1", {**THEIRS, "aws:TagKeys": ["Name"]}, False),
        ("iam:PassRole", f"arn:aws:iam::{ACCOUNT}:role/node", {"iam:PassedToService": "ec2.amazonaws.com"}, True),
        ("iam:PassRole", f"arn:aws:iam::{ACCOUNT}:role/admin", {"iam:PassedToService": "ec2.amazonaws.com"}, False),
        ("iam:PassRole", f"arn:aws:iam::{ACCOUNT}:role/node", {"iam:PassedToService": "lambda.amazonaws.com"}, False),
        ("sqs:ReceiveMessage", f"arn:aws:sqs:{REGION}:{ACCOUNT}:queue", {}, True),
        ("sqs:ReceiveMessage", f"arn:aws:sqs:{REGION}:{ACCOUNT}:other", {}, False),
        ("sqs:SendMessage", f"arn:aws:sqs:{REGION}:{ACCOUNT}:queue", {}, False),
        ("eks:DescribeCluster", f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{CLUSTER}", {}, True),
        ("eks:DescribeCluster", f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/other", {}, False),
        ("ec2:DescribeInstances", "*", {"aws:RequestedRegion": REGION}, True),
        ("ec2:DescribeInstances", "*", {"aws:RequestedRegion": "eu-west-1"}, False),
        (
            "iam:DeleteInstanceProfile",
            f"arn:aws:iam::{ACCOUNT}:instance-profile/p",
            {
                **OURS,
                "aws:ResourceTag/topology.kubernetes.io/region": REGION,
                "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "gpu",
            },
            True,
        ),
        (
            "iam:DeleteInstanceProfile",
            f"arn:aws:iam::{ACCOUNT}:instance-profile/p",
            {
                **THEIRS,
                "aws:ResourceTag/topology.kubernetes.io/region": REGION,
                "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "gpu",
            },
            False,
        ),
        ("iam:CreateRole", "*", {}, False),
        ("ec2:DeleteVolume", f"{EC2}:volume/v-1", OURS, False),
    ],
)
def test_the_controller_role_acts_only_on_this_clusters_resources(karpenter_iam, action, resource, context, expected):
    statements, refs = karpenter_iam
    assert allowed(statements, action, context, resource=resource, refs=refs) is expected


def test_the_keda_role_only_queries_its_workspace(reference):
    stack, template = reference
    statements = policies_of(template, logical_id(stack, stack.keda.role))
    workspace_id = logical_id(stack, stack.metrics.workspace)
    ours = f"arn:aws:aps:{REGION}:{ACCOUNT}:workspace/ws-ours"
    refs = {f"{workspace_id}.Arn": ours}
    for action in ("aps:QueryMetrics", "aps:GetSeries", "aps:GetLabels", "aps:GetMetricMetadata"):
        assert allowed(statements, action, {}, resource=ours, refs=refs)
        assert not allowed(
            statements, action, {}, resource=f"arn:aws:aps:{REGION}:{ACCOUNT}:workspace/ws-other", refs=refs
        )
    for action in ("aps:RemoteWrite", "aps:DeleteWorkspace", "aps:CreateScraper", "ec2:DescribeInstances"):
        assert not allowed(statements, action, {}, resource=ours, refs=refs)


def test_the_roles_trust_only_their_service_accounts(reference):
    stack, template = reference
    roles = of_type(template, "AWS::IAM::Role")
    for construct, namespace, account in (
        (stack.karpenter.role, "kube-system", "karpenter"),
        (stack.keda.role, "keda", "keda-operator"),
    ):
        (statement, *_) = roles[logical_id(stack, construct)]["AssumeRolePolicyDocument"]["Statement"]
        conditions = statement["Condition"]["StringEquals"]
        assert conditions["aws:RequestTag/kubernetes-namespace"] == namespace
        assert conditions["aws:RequestTag/kubernetes-service-account"] == account


def test_the_crd_schemas_are_the_pinned_releases():
    assert crd_schema("karpenter.sh/v1", "NodePool")["properties"]["spec"]["required"] == ["template"]
    assert "triggers" in crd_schema("keda.sh/v1alpha1", "ScaledObject")["properties"]["spec"]["required"]


def test_fastload_plan_prints_the_autoscaling_timing(capsys):
    from fastload_constructs.cli.main import main

    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8e9", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    timing = view["autoscaling"]
    assert timing["from_predicted_startup_seconds"] == view["scale_out_paths"]["fresh_node"]["total"]
    assert timing["scale_down_stabilization_seconds"] >= 2 * view["predicted_seconds"]["total"]


def test_karpenter_and_keda_objects_are_in_the_one_export_with_placeholders(tmp_path):
    from fastload_constructs.infra.manifest_export import synth_with_manifests

    assembly = synth_with_manifests(build_app(copy.deepcopy(CDK_JSON), str(tmp_path)))
    folder = Path(assembly.directory) / "manifests"
    assert not (Path(assembly.directory) / "manifests-scale-out").exists()
    docs = {p.name: list(yaml.safe_load_all(p.read_text())) for p in sorted(folder.glob("*.yaml"))}
    # After the namespace and before the models (their pods land on these pools); the ScaledObject after its
    # Deployment. kubectl applies them in this order once the Karpenter and KEDA charts (their CRDs) are in.
    assert sorted(docs) == [
        "01-local-nvme.yaml",
        "02-namespace.yaml",
        "03-fastload-gpu.yaml",
        "04-fastload-runtime-inference.yaml",
        "05-llama-3-1-8b-instruct.yaml",
        "06-llama-3-1-8b-instruct-autoscaling.yaml",
    ]
    text = "".join(p.read_text() for p in folder.glob("*.yaml"))
    assert set(re.findall(r"\$\{[A-Z_]+\}", text)) == {
        "${AWS_REGION}",
        "${MODEL_BUCKET_NAME}",
        "${KARPENTER_NODE_ROLE}",
        "${CLUSTER_SECURITY_GROUP_ID}",
        "${PROMETHEUS_QUERY_URL}",
        "${NODE_IMAGE_SNAPSHOT_ID}",  # the snapshot the stack builds, in the EC2NodeClass
    }
    filled = {  # what envsubst would put in from the stack's outputs
        "${NODE_IMAGE_SNAPSHOT_ID}": "snap-0123456789abcdef0",
        "${KARPENTER_NODE_ROLE}": "node-role",
        "${CLUSTER_SECURITY_GROUP_ID}": "sg-0123456789abcdef0",
        "${PROMETHEUS_QUERY_URL}": "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1",
        "${AWS_REGION}": "us-west-2",
    }
    for name in ("03-fastload-gpu.yaml", "06-llama-3-1-8b-instruct-autoscaling.yaml"):
        text = (folder / name).read_text()
        for placeholder, value in filled.items():
            text = text.replace(placeholder, value)
        assert "${" not in text
        for doc in yaml.safe_load_all(text):
            validate_custom_resource(doc)
    (node_class,) = [d for d in docs["03-fastload-gpu.yaml"] if d["kind"] == "EC2NodeClass"]
    assert node_class["spec"]["role"] == "${KARPENTER_NODE_ROLE}"
    (scaled,) = [d for d in docs["06-llama-3-1-8b-instruct-autoscaling.yaml"] if d["kind"] == "ScaledObject"]
    assert scaled["spec"]["triggers"][0]["metadata"]["serverAddress"] == "${PROMETHEUS_QUERY_URL}"
    (deployment,) = [d for d in docs["05-llama-3-1-8b-instruct.yaml"] if d["kind"] == "Deployment"]
    assert "replicas" not in deployment["spec"]
    outputs = assembly.get_stack_by_name("FastloadReference").template["Outputs"]
    # Every placeholder but the region and the generated bucket name has an output to fill it from.
    assert {
        "KarpenterNodeRoleName",
        "ClusterSecurityGroupId",
        "PrometheusQueryUrl",
        "ModelBucketName",
        "NodeImageSnapshotId",
    } <= set(outputs)


def test_the_scaled_object_applies_after_its_server_and_keda(reference):
    stack, template = reference
    served = stack.served_models["llama-3-1-8b-instruct"]
    depends = template["Resources"][logical_id(stack, served.autoscaler.manifest)]["DependsOn"]
    assert logical_id(stack, served.server.manifest) in depends
    assert logical_id(stack, stack.keda.chart.node.default_child) in depends
    assert stack.served_models["qwen-7b"].autoscaler is None
