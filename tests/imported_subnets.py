"""Subnets imported by id, for constructs that take `ec2.ISubnet`s in tests."""

from __future__ import annotations

from collections.abc import Sequence

from aws_cdk import aws_ec2 as ec2
from constructs import Construct


def scraper_subnets(scope: Construct, zones: Sequence[str] = ("us-east-1a", "us-east-1b")) -> list[ec2.ISubnet]:
    """One subnet per zone with the CIDR a NetworkPolicy admits (`ScaleOutMetrics(scraper_subnets=...)`)."""
    return [
        ec2.Subnet.from_subnet_attributes(
            scope,
            f"ScraperSubnet{i}",
            subnet_id=f"subnet-0{i}23456789abcdef0",
            availability_zone=zone,
            ipv4_cidr_block=f"10.0.255.{16 * i}/28",
        )
        for i, zone in enumerate(zones)
    ]
