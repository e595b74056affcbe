"""examples/existing_cluster.py: the constructs added to a VPC and cluster the user already has."""

import json
import sys
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import existing_cluster

EXISTING = existing_cluster.ExistingInfrastructure()


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    app = cdk.App(outdir=str(tmp_path_factory.mktemp("cdk.out")))
    existing_cluster.build(app, EXISTING)
    assembly = app.synth()
    return Template.from_json(assembly.get_stack_by_name("FastVllmOnExistingCluster").template).to_json()


def of_type(template, kind):
    return {k: r for k, r in template["Resources"].items() if r["Type"] == kind}


def test_nothing_of_the_existing_cluster_or_vpc_is_recreated(template):
    assert not of_type(template, "AWS::EKS::Cluster") and not of_type(template, "AWS::EC2::VPC")


def test_s3_gateway_endpoint_joins_the_existing_private_route_tables(template):
    (endpoint,) = of_type(template, "AWS::EC2::VPCEndpoint").values()
    props = endpoint["Properties"]
    assert props["VpcId"] == EXISTING.vpc_id and props["VpcEndpointType"] == "Gateway"
    assert sorted(props["RouteTableIds"]) == sorted(EXISTING.private_route_table_ids)


def test_gpu_node_group_joins_the_existing_cluster(template):
    (nodegroup,) = of_type(template, "AWS::EKS::Nodegroup").values()
    props = nodegroup["Properties"]
    assert props["ClusterName"] == EXISTING.cluster_name
    assert props["InstanceTypes"] == ["g6e.2xlarge"] and props["AmiType"] == "AL2023_x86_64_NVIDIA"
    assert sorted(props["Subnets"]) == sorted(EXISTING.private_subnet_ids)


def test_model_pods_get_read_access_and_their_chart_waits_for_it(template):
    ((association_id, association),) = of_type(template, "AWS::EKS::PodIdentityAssociation").items()
    props = association["Properties"]
    assert (props["ClusterName"], props["Namespace"], props["ServiceAccount"]) == (
        EXISTING.cluster_name,
        "inference",
        "llama-3-1-8b-vllm",
    )
    manifests = of_type(template, "Custom::AWSCDK-EKS-KubernetesResource")
    assert len(manifests) == 2
    server = next(r for r in manifests.values() if "Deployment" in json.dumps(r["Properties"]["Manifest"]))
    assert server["Properties"]["ClusterName"] == EXISTING.cluster_name
    assert association_id in server["DependsOn"]
