"""The network GPU nodes load models over: a VPC for EKS and an S3 gateway endpoint.

Weights stream from S3 at tens of Gbit/s per node. Through a NAT gateway that
traffic is billed per GB and capped by the NAT; through an S3 gateway endpoint
it is free and goes straight to S3. So the endpoint is attached to the route
tables of exactly the subnets the GPU nodes run in, and the model bucket's
policy can require it (`aws:SourceVpce`).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence

from aws_cdk import Stack, Tags, Token
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_logs as logs
from constructs import Construct

from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, require
from fastload_constructs.infra.checkov_findings import (
    CUSTOM_RESOURCE_HANDLER,
    OUTSIDE_VPC,
    SERVICE_LOG_GROUP,
    skip_checks,
)
from fastload_constructs.infra.nag_findings import acknowledge

DEFAULT_CIDR = "10.0.0.0/16"
RESTRICT_DEFAULT_SG_PROVIDER = "Custom::VpcRestrictDefaultSGCustomResourceProvider"
# /19 private subnets: 8k addresses per AZ, because the VPC CNI gives every pod a VPC IP.
PRIVATE_SUBNET_MASK = 19
PUBLIC_SUBNET_MASK = 24
# One small isolated subnet per AZ for the managed Prometheus scraper's network interfaces, and
# nothing else: the vLLM NetworkPolicy admits these CIDRs to the server port (/28: 11 usable
# addresses after the 5 AWS reserves, VPC User Guide "Subnet CIDR blocks").
MONITORING_SUBNET_GROUP = "Monitoring"
MONITORING_SUBNET_MASK = 28

# Subnet tags the AWS Load Balancer Controller and in-tree service controller look for.
PUBLIC_ELB_TAG = "kubernetes.io/role/elb"
INTERNAL_ELB_TAG = "kubernetes.io/role/internal-elb"

# Interface endpoints a node without internet egress needs to join the cluster
# and start a vLLM pod: pull images (ECR api + dkr; layers come through the S3
# gateway endpoint), get credentials (STS, and EKS Auth for Pod Identity) and ship logs.
INTERFACE_ENDPOINTS: dict[str, ec2.InterfaceVpcEndpointAwsService] = {
    "EcrApi": ec2.InterfaceVpcEndpointAwsService.ECR,
    "EcrDocker": ec2.InterfaceVpcEndpointAwsService.ECR_DOCKER,
    "Sts": ec2.InterfaceVpcEndpointAwsService.STS,
    "EksAuth": ec2.InterfaceVpcEndpointAwsService.EKS_AUTH,
    "CloudWatchLogs": ec2.InterfaceVpcEndpointAwsService.CLOUDWATCH_LOGS,
}

MIN_AZS, MAX_AZS = 2, 6
FLOW_LOG_RETENTION = logs.RetentionDays.ONE_YEAR


class FastloadNetwork(Construct):
    """A VPC for EKS (created, or yours) with an S3 gateway endpoint on the GPU subnets.

    Created VPC: public and private subnets in `max_azs` AZs (EKS needs two),
    `nat_gateways` NAT gateways (default one per AZ), subnets tagged for
    internet-facing and internal load balancers, and a VPC flow log (all
    traffic, to a CloudWatch Logs group kept a year) unless `flow_logs=False`:
    the record of which addresses talked to the nodes. Flow logs record flows,
    not bytes, so streaming weights at tens of Gbit/s does not grow them.

    Existing VPC (`vpc=`): nothing in it is changed except the endpoints added
    to it; tag its subnets for load balancers yourself; `max_azs`,
    `nat_gateways` and `cidr` are ignored. It must have private (or isolated)
    subnets in at least two AZs, and imported subnets must carry their route
    table ids.

    Created VPC also: an isolated `/28` "Monitoring" subnet per AZ (`monitoring_subnets`) where no
    node runs, for the managed Prometheus scraper, so a NetworkPolicy can admit exactly it. With
    your VPC, pass `monitoring_subnets` (a selection of such subnets) or give the scraper its own.

    GPU subnets default to the VPC's private subnets with egress, or its
    isolated subnets when it has none; pass `gpu_subnets` to choose others
    (one AZ with a capacity reservation, say). The S3 endpoint goes on the
    GPU subnets' route tables; interface endpoints, when asked for, go in the
    private subnets, one per AZ, with private DNS so SDKs need no settings.
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        vpc: ec2.IVpc | None = None,
        max_azs: int = 3,
        nat_gateways: int | None = None,
        cidr: str = DEFAULT_CIDR,
        gpu_subnets: ec2.SubnetSelection | None = None,
        interface_endpoints: bool = False,
        flow_logs: bool = True,
        monitoring_subnets: ec2.SubnetSelection | None = None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.flow_log: ec2.FlowLog | None = None
        created = vpc is None
        if vpc is None:
            _check_created_vpc_props(max_azs, nat_gateways, cidr)
            require(isinstance(flow_logs, bool), "flow_logs", flow_logs, "True or False")
            vpc = self._create_vpc(cidr, max_azs, nat_gateways)
            if flow_logs:
                flow_log_group = logs.LogGroup(self, "FlowLogs", retention=FLOW_LOG_RETENTION)
                skip_checks(flow_log_group, SERVICE_LOG_GROUP, resource_type="AWS::Logs::LogGroup")
                self.flow_log = vpc.add_flow_log(
                    "FlowLog", destination=ec2.FlowLogDestination.to_cloud_watch_logs(flow_log_group)
                )
        self.vpc: ec2.IVpc = vpc
        if monitoring_subnets is None and created:
            monitoring_subnets = ec2.SubnetSelection(subnet_group_name=MONITORING_SUBNET_GROUP)
        # Subnets for the scraper only (ScaleOutMetrics(scraper_subnets=...)); None: none chosen.
        self.monitoring_subnets: ec2.SelectedSubnets | None = (
            _select(vpc, monitoring_subnets) if monitoring_subnets is not None else None
        )
        self.private_subnet_selection = _private_subnets(vpc)
        _check_two_azs(vpc, _select(vpc, self.private_subnet_selection).subnets)
        self.gpu_subnet_selection = gpu_subnets or self.private_subnet_selection
        self.gpu_subnets: ec2.SelectedSubnets = _select(vpc, self.gpu_subnet_selection)
        require(
            len(self.gpu_subnets.subnets) > 0,
            "gpu_subnets",
            self.gpu_subnet_selection,
            "a selection matching at least one subnet of the VPC",
        )
        _check_route_tables(self.gpu_subnets.subnets)

        self.s3_endpoint = ec2.GatewayVpcEndpoint(
            self,
            "S3Endpoint",
            vpc=vpc,
            service=ec2.GatewayVpcEndpointAwsService.S3,
            subnets=[ec2.SubnetSelection(subnets=self.gpu_subnets.subnets)],
        )
        self.interface_endpoints: dict[str, ec2.InterfaceVpcEndpoint] = {}
        if interface_endpoints:
            self._add_interface_endpoints()

    @property
    def cluster_subnets(self) -> list[ec2.SubnetSelection]:
        """Where the EKS control-plane ENIs go (`Cluster(vpc_subnets=...)`): the private subnets."""
        return [self.private_subnet_selection]

    def _create_vpc(self, cidr: str, max_azs: int, nat_gateways: int | None) -> ec2.Vpc:
        vpc = ec2.Vpc(
            self,
            "Vpc",
            ip_addresses=ec2.IpAddresses.cidr(cidr),
            max_azs=max_azs,
            nat_gateways=nat_gateways,
            subnet_configuration=[
                ec2.SubnetConfiguration(name="Public", subnet_type=ec2.SubnetType.PUBLIC, cidr_mask=PUBLIC_SUBNET_MASK),
                # Between Public and Private: the /28s fit in the space the /19s' alignment leaves free,
                # so no other subnet's CIDR moves and a /17 block still holds three AZs.
                ec2.SubnetConfiguration(
                    name=MONITORING_SUBNET_GROUP,
                    subnet_type=ec2.SubnetType.PRIVATE_ISOLATED,
                    cidr_mask=MONITORING_SUBNET_MASK,
                ),
                ec2.SubnetConfiguration(
                    name="Private", subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS, cidr_mask=PRIVATE_SUBNET_MASK
                ),
            ],
        )
        # aws-cdk-lib's handler that removes the default security group's rules (the
        # @aws-cdk/aws-ec2:restrictDefaultSecurityGroup flag), one per stack.
        restrict_default_sg = Stack.of(self).node.try_find_child(RESTRICT_DEFAULT_SG_PROVIDER)
        if restrict_default_sg is not None:
            skip_checks(
                restrict_default_sg, {**CUSTOM_RESOURCE_HANDLER, **OUTSIDE_VPC}, resource_type="AWS::Lambda::Function"
            )
        for subnet in vpc.public_subnets:
            Tags.of(subnet).add(PUBLIC_ELB_TAG, "1")
        for subnet in vpc.private_subnets:
            Tags.of(subnet).add(INTERNAL_ELB_TAG, "1")
        return vpc

    def _add_interface_endpoints(self) -> None:
        # Each endpoint's security group admits HTTPS from the VPC's CIDR.
        try:
            _ = self.vpc.vpc_cidr_block
        except RuntimeError:  # jsii: imported without vpcCidrBlock
            raise FastloadConfigError(
                "vpc.vpc_cidr_block", None, "a VPC imported with vpcCidrBlock when interface_endpoints=True"
            ) from None
        # One ENI per AZ: interface endpoints accept at most one subnet per AZ.
        private = _select(self.vpc, self.private_subnet_selection).subnets
        subnets = ec2.SubnetSelection(subnets=private, one_per_az=True)
        for name, service in INTERFACE_ENDPOINTS.items():
            self.interface_endpoints[name] = ec2.InterfaceVpcEndpoint(
                self,
                f"{name}Endpoint",
                vpc=self.vpc,
                service=service,
                subnets=subnets,
                private_dns_enabled=True,
            )
            # cdk-nag cannot read a CIDR that is a CloudFormation reference (the created VPC's block).
            acknowledge(
                self.interface_endpoints[name],
                "AwsSolutions-EC23",
                "ingress is HTTPS (443) from the VPC's own CIDR block only, never 0.0.0.0/0; the rule "
                "cannot evaluate the block because it is a reference to the VPC resource",
            )


def _check_created_vpc_props(max_azs: object, nat_gateways: object, cidr: object) -> None:
    require(
        is_whole_number(max_azs) and MIN_AZS <= max_azs <= MAX_AZS,
        "max_azs",
        max_azs,
        f"a whole number from {MIN_AZS} to {MAX_AZS} (EKS needs two AZs)",
    )
    require(
        nat_gateways is None or (is_whole_number(nat_gateways) and nat_gateways >= 1),
        "nat_gateways",
        nat_gateways,
        "None (one per AZ) or a positive whole number",
    )
    assert isinstance(max_azs, int)
    try:
        network = ipaddress.IPv4Network(cidr)
    except (ValueError, TypeError):
        network = None
    require(
        network is not None and network.prefixlen >= 16 and _fits(network, max_azs),
        "cidr",
        cidr,
        f"an IPv4 VPC block of /16 or smaller with room for a /{PUBLIC_SUBNET_MASK}, a /{PRIVATE_SUBNET_MASK} "
        f"and a /{MONITORING_SUBNET_MASK} in each of {max_azs} AZs, each aligned to its size "
        f"(at least /{_smallest_prefix(max_azs)})",
    )


def _allocated_end(max_azs: int) -> int:
    """Addresses CDK's subnet allocation uses: groups in order, one subnet per AZ, each aligned to its size."""
    end = 0
    for mask in (PUBLIC_SUBNET_MASK, MONITORING_SUBNET_MASK, PRIVATE_SUBNET_MASK):
        size = 2 ** (32 - mask)
        for _ in range(max_azs):
            end = -(-end // size) * size + size
    return end


def _fits(network: ipaddress.IPv4Network, max_azs: int) -> bool:
    return network.num_addresses >= _allocated_end(max_azs)


def _smallest_prefix(max_azs: int) -> int:
    return 32 - (_allocated_end(max_azs) - 1).bit_length()


def _check_two_azs(vpc: ec2.IVpc, subnets: Sequence[ec2.ISubnet]) -> None:
    """EKS refuses control-plane subnets in fewer than two AZs; say so at synth when AZs are known."""
    zones = [s.availability_zone for s in subnets]
    if any(Token.is_unresolved(z) for z in zones):
        return
    require(
        len(set(zones)) >= MIN_AZS,
        "vpc",
        vpc.vpc_id,
        f"private subnets in at least {MIN_AZS} availability zones (EKS requires two)",
    )


def _private_subnets(vpc: ec2.IVpc) -> ec2.SubnetSelection:
    if vpc.private_subnets:
        return ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS)
    if vpc.isolated_subnets:
        return ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)
    raise FastloadConfigError(
        "vpc",
        vpc.vpc_id,
        "a VPC with private subnets (with egress or isolated): GPU nodes must not run in public subnets",
    )


_SELECTION_FIELDS = (
    "availability_zones",
    "one_per_az",
    "subnet_filters",
    "subnet_group_name",
    "subnet_type",
    "subnets",
)


def _select(vpc: ec2.IVpc, selection: ec2.SubnetSelection) -> ec2.SelectedSubnets:
    """`vpc.select_subnets` takes the selection's fields as keywords in Python."""
    return vpc.select_subnets(**{name: getattr(selection, name) for name in _SELECTION_FIELDS})


def _check_route_tables(subnets: Sequence[ec2.ISubnet]) -> None:
    """The gateway endpoint is a route: every GPU subnet needs a known route table."""
    for index, subnet in enumerate(subnets):
        try:
            route_table_id = subnet.route_table.route_table_id
        except RuntimeError:  # jsii: an imported subnet without routeTableId
            route_table_id = None
        require(
            route_table_id is not None,
            f"gpu_subnets[{index}].route_table",
            subnet.subnet_id,
            "subnets imported with their route table ids (e.g. privateSubnetRouteTableIds)",
        )
