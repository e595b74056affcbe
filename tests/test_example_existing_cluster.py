"""examples/existing_cluster.py: the constructs added to a VPC and cluster the user already has."""

import json
import sys
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
import existing_cluster

from tests.cfn_template import resources

# As `cdk synth -c key=value` passes them: every value a string, lists comma-separated or JSON.
CONTEXT = {
    "clusterName": "prod-gpu",
    "kubectlRoleArn": "arn:aws:iam::111122223333:role/prod-admin",
    "vpcId": "vpc-0fedcba9876543210",
    "vpcCidr": "10.1.0.0/16",
    "availabilityZones": "us-east-1a,us-east-1b",
    "privateSubnetIds": '["subnet-0ccccccccccccccc1", "subnet-0ccccccccccccccc2"]',
    "privateRouteTableIds": "rtb-0ccccccccccccccc1, rtb-0ccccccccccccccc2",
    "account": "111122223333",
    "region": "us-east-1",
}
EXISTING = existing_cluster.ExistingInfrastructure(
    cluster_name="prod-gpu",
    vpc_id="vpc-0fedcba9876543210",
    private_subnet_ids=("subnet-0ccccccccccccccc1", "subnet-0ccccccccccccccc2"),
    private_route_table_ids=("rtb-0ccccccccccccccc1", "rtb-0ccccccccccccccc2"),
)


def synth(tmp_path_factory, context):
    app = cdk.App(outdir=str(tmp_path_factory.mktemp("cdk.out")), context=context)
    stack = existing_cluster.build(app)
    assembly = app.synth()
    return stack, Template.from_json(assembly.get_stack_by_name("FastVllmOnExistingCluster").template).to_json()


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return synth(tmp_path_factory, CONTEXT)[1]


def test_context_is_read_as_the_docstring_says(tmp_path_factory):
    stack, _ = synth(tmp_path_factory, CONTEXT)
    assert (stack.account, stack.region) == ("111122223333", "us-east-1")
    defaults, _ = synth(tmp_path_factory, {})
    assert (defaults.account, defaults.region) == ("123456789012", "us-west-2")


def test_nothing_of_the_existing_cluster_or_vpc_is_recreated(template):
    assert not resources(template, "AWS::EKS::Cluster") and not resources(template, "AWS::EC2::VPC")


def test_s3_gateway_endpoint_joins_the_existing_private_route_tables(template):
    (endpoint,) = resources(template, "AWS::EC2::VPCEndpoint").values()
    props = endpoint["Properties"]
    assert props["VpcId"] == EXISTING.vpc_id and props["VpcEndpointType"] == "Gateway"
    assert sorted(props["RouteTableIds"]) == sorted(EXISTING.private_route_table_ids)


def test_gpu_node_group_joins_the_existing_cluster(template):
    (nodegroup,) = resources(template, "AWS::EKS::Nodegroup").values()
    props = nodegroup["Properties"]
    assert props["ClusterName"] == EXISTING.cluster_name
    assert props["InstanceTypes"] == ["g6e.2xlarge"] and props["AmiType"] == "AL2023_x86_64_NVIDIA"
    assert sorted(props["Subnets"]) == sorted(EXISTING.private_subnet_ids)


def test_model_pods_get_read_access_and_their_chart_waits_for_it(template):
    ((association_id, association),) = resources(template, "AWS::EKS::PodIdentityAssociation").items()
    props = association["Properties"]
    assert (props["ClusterName"], props["Namespace"], props["ServiceAccount"]) == (
        EXISTING.cluster_name,
        "inference",
        "llama-3-1-8b-vllm",
    )
    manifests = resources(template, "Custom::AWSCDK-EKS-KubernetesResource")
    assert len(manifests) == 5  # namespace, PriorityClasses, the shared in-pod scripts, the server, its warm spare
    server = next(r for r in manifests.values() if "inference-server" in json.dumps(r["Properties"]["Manifest"]))
    assert server["Properties"]["ClusterName"] == EXISTING.cluster_name
    assert association_id in server["DependsOn"]
    others = [lid for lid, r in manifests.items() if "Deployment" not in json.dumps(r["Properties"]["Manifest"])]
    assert len(others) == 3 and set(others) <= set(server["DependsOn"])  # namespace, classes and scripts first


def test_the_warm_spare_follows_the_server_and_the_vpc_may_reach_it(tmp_path_factory):
    stack, template = synth(tmp_path_factory, CONTEXT)
    llama = stack.llama
    server_id = stack.get_logical_id(llama.server.manifest.node.default_child)
    spare_id = stack.get_logical_id(llama.spares.manifest.node.default_child)
    assert template["Resources"][spare_id]["DependsOn"] == [server_id]
    spare = next(d for d in llama.spare_chart.to_json() if d["kind"] == "Deployment")
    assert spare["spec"]["replicas"] == 1
    assert spare["spec"]["template"]["spec"]["serviceAccountName"] == llama.reader.service_account
    policy = next(d for d in llama.chart.to_json() if d["kind"] == "NetworkPolicy")
    cidrs = [p["ipBlock"]["cidr"] for r in policy["spec"]["ingress"] for p in r["from"] if "ipBlock" in p]
    assert cidrs == [CONTEXT["vpcCidr"]]


def test_an_own_bucket_is_read_not_recreated_and_its_lock_is_printed(tmp_path_factory):
    stack, template = synth(tmp_path_factory, {**CONTEXT, "bucketName": "acme-models"})
    assert not resources(template, "AWS::S3::Bucket") and not resources(template, "AWS::S3::BucketPolicy")
    (lock,) = [k for k in template["Outputs"] if k.startswith("ModelBucketLock")]
    assert "DenyObjectAccessOutsideVpcEndpoint" in json.dumps(template["Outputs"][lock])
    assert stack.llama.model_uri == "s3://acme-models/models/llama-3-1-8b"
