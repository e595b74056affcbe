"""FastloadNetwork: a VPC for EKS and the S3 gateway endpoint on the GPU subnets' route tables."""

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk.assertions import Capture, Template

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.infra.network import INTERFACE_ENDPOINTS, FastloadNetwork
from tests.cfn_lint_errors import lint_errors

ENV = cdk.Environment(account="111111111111", region="eu-west-1")
AZS = ["eu-west-1a", "eu-west-1b", "eu-west-1c"]


def new_stack(name: str = "Net") -> cdk.Stack:
    # The AZ lookup `cdk synth` would cache in cdk.context.json.
    app = cdk.App(context={f"availability-zones:account={ENV.account}:region={ENV.region}": AZS})
    return cdk.Stack(app, name, env=ENV)


def subnets_of_type(template: dict, subnet_type: str) -> set[str]:
    return {
        name
        for name, r in template["Resources"].items()
        if r["Type"] == "AWS::EC2::Subnet"
        and {"Key": "aws-cdk:subnet-type", "Value": subnet_type} in r["Properties"].get("Tags", [])
    }


def route_tables_of(template: dict, subnets: set[str]) -> set[str]:
    return {
        r["Properties"]["RouteTableId"]["Ref"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::EC2::SubnetRouteTableAssociation" and r["Properties"]["SubnetId"]["Ref"] in subnets
    }


def endpoints(template: dict, endpoint_type: str) -> list[dict]:
    return [
        r["Properties"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::EC2::VPCEndpoint" and r["Properties"]["VpcEndpointType"] == endpoint_type
    ]


@pytest.fixture(scope="module")
def created():
    stack = new_stack()
    network = FastloadNetwork(stack, "Network", interface_endpoints=True)
    return network, Template.from_stack(stack).to_json()


def test_created_vpc_has_private_subnets_in_three_azs_tagged_for_internal_load_balancers(created):
    network, template = created
    private = subnets_of_type(template, "Private")
    public = subnets_of_type(template, "Public")
    assert len(private) == 3 and len(public) == 3
    azs = {template["Resources"][s]["Properties"]["AvailabilityZone"] for s in private}
    assert azs == set(AZS)
    for name in private:
        tags = template["Resources"][name]["Properties"]["Tags"]
        assert {"Key": "kubernetes.io/role/internal-elb", "Value": "1"} in tags
    for name in public:
        tags = template["Resources"][name]["Properties"]["Tags"]
        assert {"Key": "kubernetes.io/role/elb", "Value": "1"} in tags
    assert len(network.gpu_subnets.subnets) == 3


def test_s3_gateway_endpoint_is_on_exactly_the_private_route_tables(created):
    network, template = created
    (s3,) = endpoints(template, "Gateway")
    assert s3["ServiceName"] == {"Fn::Join": ["", ["com.amazonaws.", {"Ref": "AWS::Region"}, ".s3"]]}
    attached = {ref["Ref"] for ref in s3["RouteTableIds"]}
    assert attached == route_tables_of(template, subnets_of_type(template, "Private"))
    assert attached.isdisjoint(route_tables_of(template, subnets_of_type(template, "Public")))
    assert network.s3_endpoint.vpc_endpoint_id  # exposed for the bucket policy


def test_interface_endpoints_for_private_nodes_sit_in_the_private_subnets(created):
    _, template = created
    interface = endpoints(template, "Interface")
    services = {e["ServiceName"] for e in interface}
    assert services == {f"com.amazonaws.eu-west-1.{s}" for s in ("ecr.api", "ecr.dkr", "sts", "eks-auth", "logs")}
    assert len(INTERFACE_ENDPOINTS) == len(interface)
    private = subnets_of_type(template, "Private")
    for endpoint in interface:
        assert endpoint["PrivateDnsEnabled"] is True
        assert {ref["Ref"] for ref in endpoint["SubnetIds"]} == private


def test_interface_endpoints_are_off_by_default():
    stack = new_stack()
    FastloadNetwork(stack, "Network", max_azs=2, nat_gateways=1)
    template = Template.from_stack(stack)
    template.resource_properties_count_is("AWS::EC2::VPCEndpoint", {"VpcEndpointType": "Interface"}, 0)
    template.resource_properties_count_is("AWS::EC2::VPCEndpoint", {"VpcEndpointType": "Gateway"}, 1)
    template.resource_count_is("AWS::EC2::NatGateway", 1)


def imported_vpc(stack, **overrides):
    attrs = dict(
        vpc_id="vpc-0abc",
        availability_zones=AZS[:2],
        public_subnet_ids=["subnet-pub1", "subnet-pub2"],
        public_subnet_route_table_ids=["rtb-pub1", "rtb-pub2"],
        private_subnet_ids=["subnet-priv1", "subnet-priv2"],
        private_subnet_route_table_ids=["rtb-priv1", "rtb-priv2"],
    )
    attrs.update(overrides)
    return ec2.Vpc.from_vpc_attributes(stack, "Existing", **attrs)


def test_existing_vpc_gets_the_endpoint_on_its_private_route_tables_and_is_not_recreated():
    stack = new_stack()
    network = FastloadNetwork(stack, "Network", vpc=imported_vpc(stack))
    template = Template.from_stack(stack).to_json()
    assert not [r for r in template["Resources"].values() if r["Type"] == "AWS::EC2::VPC"]
    (s3,) = endpoints(template, "Gateway")
    assert s3["VpcId"] == "vpc-0abc"
    assert sorted(s3["RouteTableIds"]) == ["rtb-priv1", "rtb-priv2"]
    assert [s.subnet_id for s in network.gpu_subnets.subnets] == ["subnet-priv1", "subnet-priv2"]


def test_gpu_subnets_can_be_narrowed_and_the_endpoint_follows():
    stack = new_stack()
    vpc = imported_vpc(stack)
    FastloadNetwork(stack, "Network", vpc=vpc, gpu_subnets=ec2.SubnetSelection(subnets=[vpc.private_subnets[1]]))
    (s3,) = endpoints(Template.from_stack(stack).to_json(), "Gateway")
    assert s3["RouteTableIds"] == ["rtb-priv2"]


def test_isolated_only_vpc_uses_its_isolated_subnets():
    stack = new_stack()
    vpc = ec2.Vpc.from_vpc_attributes(
        stack,
        "Isolated",
        vpc_id="vpc-iso",
        availability_zones=AZS[:2],
        isolated_subnet_ids=["subnet-i1", "subnet-i2"],
        isolated_subnet_route_table_ids=["rtb-i1", "rtb-i2"],
    )
    FastloadNetwork(stack, "Network", vpc=vpc)
    (s3,) = endpoints(Template.from_stack(stack).to_json(), "Gateway")
    assert sorted(s3["RouteTableIds"]) == ["rtb-i1", "rtb-i2"]


def test_existing_vpc_without_private_subnets_is_refused():
    stack = new_stack()
    vpc = ec2.Vpc.from_vpc_attributes(
        stack, "PublicOnly", vpc_id="vpc-pub", availability_zones=AZS[:2], public_subnet_ids=["subnet-a", "subnet-b"]
    )
    with pytest.raises(FastloadConfigError) as err:
        FastloadNetwork(stack, "Network", vpc=vpc)
    assert err.value.field == "vpc" and err.value.value == "vpc-pub"


def test_a_smaller_vpc_block_is_accepted_when_the_subnets_fit():
    stack = new_stack()
    FastloadNetwork(stack, "Network", cidr="172.16.0.0/17", max_azs=3)
    Template.from_stack(stack).has_resource_properties("AWS::EC2::VPC", {"CidrBlock": "172.16.0.0/17"})


def test_existing_vpc_with_private_subnets_in_one_az_is_refused():
    stack = new_stack()
    vpc = imported_vpc(
        stack,
        availability_zones=AZS[:1],
        private_subnet_ids=["subnet-priv1"],
        private_subnet_route_table_ids=["rtb-priv1"],
        public_subnet_ids=["subnet-pub1"],
        public_subnet_route_table_ids=["rtb-pub1"],
    )
    with pytest.raises(FastloadConfigError, match="two") as err:
        FastloadNetwork(stack, "Network", vpc=vpc)
    assert err.value.field == "vpc"


def test_imported_subnets_without_route_tables_are_refused():
    stack = new_stack()
    vpc = ec2.Vpc.from_vpc_attributes(
        stack, "NoRoutes", vpc_id="vpc-x", availability_zones=AZS[:2], private_subnet_ids=["subnet-1", "subnet-2"]
    )
    with pytest.raises(FastloadConfigError) as err:
        FastloadNetwork(stack, "Network", vpc=vpc)
    assert err.value.field == "gpu_subnets[0].route_table" and err.value.value == "subnet-1"


def test_interface_endpoints_in_an_existing_vpc_need_its_cidr():
    stack = new_stack()
    with pytest.raises(FastloadConfigError) as err:
        FastloadNetwork(stack, "Network", vpc=imported_vpc(stack), interface_endpoints=True)
    assert err.value.field == "vpc.vpc_cidr_block"
    stack = new_stack()
    FastloadNetwork(stack, "Network", vpc=imported_vpc(stack, vpc_cidr_block="10.8.0.0/16"), interface_endpoints=True)
    Template.from_stack(stack).has_resource_properties(
        "AWS::EC2::SecurityGroup",
        {
            "SecurityGroupIngress": [
                {
                    "CidrIp": "10.8.0.0/16",
                    "FromPort": 443,
                    "ToPort": 443,
                    "IpProtocol": "tcp",
                    "Description": "from 10.8.0.0/16:443",
                }
            ],
        },
    )


@pytest.mark.parametrize(
    "props, field",
    [
        ({"max_azs": 1}, "max_azs"),
        ({"max_azs": 7}, "max_azs"),
        ({"max_azs": True}, "max_azs"),
        ({"nat_gateways": 0}, "nat_gateways"),
        ({"cidr": "10.0.0.0/15"}, "cidr"),
        ({"cidr": "10.0.0.0/18"}, "cidr"),
        ({"cidr": "10.0.0.0/17", "max_azs": 4}, "cidr"),
        ({"cidr": "10.0.0.300/16"}, "cidr"),
    ],
)
def test_bad_created_vpc_props_are_refused(props, field):
    with pytest.raises(FastloadConfigError) as err:
        FastloadNetwork(new_stack(), "Network", **props)
    assert err.value.field == field


def test_template_has_no_cloudformation_errors(created):
    assert lint_errors(created[1]) == []


def test_created_vpc_logs_all_flows_to_a_log_group_kept_a_year(created):
    template = Template.from_json(created[1])
    group = Capture()
    template.has_resource_properties(
        "AWS::EC2::FlowLog",
        {"TrafficType": "ALL", "ResourceType": "VPC", "LogDestinationType": "cloud-watch-logs", "LogGroupName": group},
    )
    logical_id = group.as_object()["Ref"]
    assert template.find_resources("AWS::Logs::LogGroup", {"Properties": {"RetentionInDays": 365}}).keys() == {
        logical_id
    }


def test_flow_logs_can_be_turned_off_and_an_existing_vpc_is_left_alone():
    stack = new_stack()
    FastloadNetwork(stack, "Network", flow_logs=False)
    Template.from_stack(stack).resource_count_is("AWS::EC2::FlowLog", 0)
    stack = new_stack()
    vpc = ec2.Vpc(stack, "Mine", max_azs=2)
    FastloadNetwork(stack, "Network", vpc=vpc)
    Template.from_stack(stack).resource_count_is("AWS::EC2::FlowLog", 0)
