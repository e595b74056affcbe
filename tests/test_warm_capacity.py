"""Capacity held warm by the node autoscaler: Karpenter CapacityBuffers, static NodePools, managed node group
warm pools; and customer-managed keys on the volumes those nodes restore."""

from __future__ import annotations

import aws_cdk as cdk
import cdk8s
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_kms as kms
from aws_cdk.assertions import Annotations, Match, Template

from fastload_constructs.core.cluster.gpu_nodes import gpu_node_spec
from fastload_constructs.core.cluster.karpenter import node_pool
from fastload_constructs.core.cluster.karpenter_controller import kms_statements
from fastload_constructs.core.cluster.warm_pool import WarmPool
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.serving.capacity_buffer import buffered_pod
from fastload_constructs.core.serving.server_pod import ServerOptions, server_spec
from fastload_constructs.infra.gpu_nodegroup import AUTOSCALING_ROLE, GpuNodeGroup
from fastload_constructs.infra.karpenter import karpenter_values
from fastload_constructs.k8s.capacity_buffer import CapacityBufferChart
from fastload_constructs.k8s.karpenter import node_pool_props
from tests.crd_schemas import chart_values, unknown_value_paths, validate_custom_resource
from tests.serving_plans import planned

SERVER = server_spec(
    planned(ModelProfile.from_numbers(parameter_count=8_030_261_248), "g6e.2xlarge"),
    model_name="llama",
    model_uri="s3://models-bucket/models/llama",
    region="us-east-1",
    options=ServerOptions(replicas=None, do_not_disrupt=True),
)


def test_a_capacity_buffer_holds_room_for_the_models_own_pod_shape():
    docs = cdk8s.Testing.synth(CapacityBufferChart(cdk8s.Testing.app(), "b", pod=buffered_pod(SERVER, 2)))
    (template,) = [d for d in docs if d["kind"] == "PodTemplate"]
    (buffer,) = [d for d in docs if d["kind"] == "CapacityBuffer"]
    validate_custom_resource(buffer)
    assert buffer["apiVersion"] == "autoscaling.x-k8s.io/v1beta1"
    assert buffer["spec"] == {"podTemplateRef": {"name": template["metadata"]["name"]}, "replicas": 2}
    assert buffer["metadata"]["namespace"] == template["metadata"]["namespace"] == SERVER.namespace
    pod = template["template"]["spec"]
    (container,) = pod["containers"]
    assert container["resources"]["requests"]["nvidia.com/gpu"] == str(SERVER.gpus)
    assert container["resources"]["requests"]["cpu"] == str(SERVER.cpu)
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    required = {e["key"]: e["values"] for e in terms[0]["matchExpressions"]}
    assert required == {k: [v] for k, v in SERVER.node_labels.items()}
    assert pod["tolerations"] == [
        {"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
    ]
    assert "volumes" not in pod  # a virtual pod holds a node, nothing else


def test_a_bad_buffer_count_names_the_field():
    with pytest.raises(FastloadConfigError) as err:
        buffered_pod(SERVER, -1)
    assert err.value.field == "buffered_nodes"


def test_the_capacity_buffer_feature_gate_is_a_value_the_chart_has():
    values = karpenter_values(
        cluster_name="c",
        interruption_queue="q",
        region="us-west-2",
        node_selector=None,
        feature_gates={"capacityBuffer": True},
    )
    assert values["settings"]["featureGates"] == {"capacityBuffer": True}
    assert unknown_value_paths(values, chart_values("karpenter")) == []
    plain = karpenter_values(cluster_name="c", interruption_queue="q", region="us-west-2", node_selector=None)
    assert "featureGates" not in plain["settings"]


def test_a_static_node_pool_keeps_its_nodes_and_limits_only_their_count():
    spec = node_pool(
        gpu_node_spec("g6e.2xlarge"),
        ["g6e.2xlarge"],
        node_class="gpu",
        capacity_types=["on-demand"],
        gpu_limit=8,
        replicas=2,
    )
    doc = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "s"}, "spec": spec.as_dict()}
    validate_custom_resource(doc)
    assert doc["spec"]["replicas"] == 2 and doc["spec"]["limits"] == {"nodes": "2"}  # "Only limits.nodes"
    assert "consolidationPolicy" not in doc["spec"]["disruption"]
    typed = cdk8s.Testing.synth(_pool_chart(spec))
    assert typed[0]["spec"] == spec.as_dict()


def _pool_chart(spec):
    from fastload_constructs.k8s.imports.karpenter.sh import karpenter as sh

    chart = cdk8s.Chart(cdk8s.Testing.app(), "p")
    sh.NodePool(chart, "Pool", metadata=cdk8s.ApiObjectMetadata(name="s"), spec=node_pool_props(spec))
    return chart


def _cluster(stack: cdk.Stack) -> eks.ICluster:
    vpc = ec2.Vpc.from_vpc_attributes(
        stack,
        "Vpc",
        vpc_id="vpc-0123456789abcdef0",
        availability_zones=["us-west-2a"],
        private_subnet_ids=["subnet-0123456789abcdef0"],
    )
    return eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="c", vpc=vpc)


def test_a_managed_node_group_keeps_stopped_instances_in_a_warm_pool():
    stack = cdk.Stack(cdk.App(), "S")
    group = GpuNodeGroup(
        stack, "Gpu", cluster=_cluster(stack), instance_type="g6e.2xlarge", max_size=3, warm_pool=WarmPool(min_size=1)
    )
    Template.from_stack(stack).has_resource_properties(
        "AWS::EKS::Nodegroup",
        {
            "WarmPoolConfig": {"Enabled": True, "MinSize": 1, "PoolState": "Stopped"},
            "AmiType": "BOTTLEROCKET_x86_64_NVIDIA",
        },
    )
    assert group.warm_pool == WarmPool(min_size=1)


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"warm_pool": WarmPool(), "capacity_type": eks.CapacityType.SPOT}, "warm_pool"),
        ({"warm_pool": "stopped"}, "warm_pool"),
    ],
)
def test_a_warm_pool_the_node_group_cannot_have_is_refused(kwargs, field):
    stack = cdk.Stack(cdk.App(), "S")
    with pytest.raises(FastloadConfigError) as err:
        GpuNodeGroup(stack, "Gpu", cluster=_cluster(stack), instance_type="g6e.2xlarge", **kwargs)
    assert err.value.field == field


@pytest.mark.parametrize(
    "kwargs,field", [({"state": "Hibernated"}, "warm_pool.state"), ({"min_size": 0}, "warm_pool.min_size")]
)
def test_warm_pool_states_and_sizes_are_checked(kwargs, field):
    with pytest.raises(FastloadConfigError) as err:
        WarmPool(**kwargs)
    assert err.value.field == field


def test_a_customer_managed_key_admits_the_auto_scaling_role_that_launches_node_group_instances():
    stack = cdk.Stack(cdk.App(), "S")
    key = kms.Key(stack, "Key")
    GpuNodeGroup(stack, "Gpu", cluster=_cluster(stack), instance_type="g6e.2xlarge", kms_key=key)
    policy = Template.from_stack(stack).find_resources("AWS::KMS::Key")
    (statements,) = [r["Properties"]["KeyPolicy"]["Statement"] for r in policy.values()]
    by_sid = {s.get("Sid"): s for s in statements}
    use, grants = by_sid["AllowAutoScalingUseOfTheKey"], by_sid["AllowAutoScalingGrantsForVolumes"]
    assert AUTOSCALING_ROLE in str(use["Principal"]) and "kms:Decrypt" in use["Action"]
    assert grants["Condition"] == {"Bool": {"kms:GrantIsForAWSResource": "true"}}


def test_an_imported_key_is_said_to_need_its_owner():
    stack = cdk.Stack(cdk.App(), "S")
    key = kms.Key.from_key_arn(
        stack, "Key", "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    )
    GpuNodeGroup(stack, "Gpu", cluster=_cluster(stack), instance_type="g6e.2xlarge", kms_key=key)
    Annotations.from_stack(stack).has_warning("*", Match.string_like_regexp("AWSServiceRoleForAutoScaling"))


def test_karpenters_key_statements_are_the_documented_actions_through_ec2_only():
    use, grant = kms_statements(key_arn="arn:aws:kms:us-west-2:1:key/k", region="us-west-2")
    assert set(use["Action"]) == {
        "kms:Decrypt",
        "kms:DescribeKey",
        "kms:GenerateDataKeyWithoutPlaintext",
        "kms:ReEncryptFrom",
        "kms:ReEncryptTo",
    }
    assert use["Condition"] == {"StringEquals": {"kms:ViaService": "ec2.us-west-2.amazonaws.com"}}
    assert grant["Action"] == "kms:CreateGrant" and grant["Condition"]["Bool"] == {"kms:GrantIsForAWSResource": "true"}
