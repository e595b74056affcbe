"""A managed node group's warm pool: GPU instances booted once, then kept stopped until a scale-out (pure).

EKS managed node groups support EC2 Auto Scaling warm pools (What's New, 2026-04-08; EKS user guide,
"warm-pools-managed-node-groups"): "Instances in the warm pool have already completed the bootup
initialization process and can be kept in a Stopped, Running, or Hibernated state", and on scale-out they
"move from the warm pool to the Auto Scaling group, complete the Amazon EKS initialization process to join
the cluster". Configured through the node group (`AWS::EKS::Nodegroup WarmPoolConfig`), never the Auto
Scaling API. The limits that shape what is offered here:

- "Warm pools don't support custom AMIs": the node groups use an EKS AMI type with a launch template that
  names no AMI, which is allowed;
- Bottlerocket: "the Hibernated pool state isn't supported ... the reuseOnScaleIn feature isn't
  supported"; hibernation is not offered for G and P instances in any supported-family list either, so the
  states here are Stopped (an idle instance costs only its EBS volumes: "Stopped (most cost-effective with
  EBS storage costs only)", CloudFormation WarmPoolConfig) and Running;
- EC2 Auto Scaling: "You cannot add a warm pool to Auto Scaling groups that have a mixed instances policy
  or that launch Spot Instances" (EC2 Auto Scaling user guide, warm pools, limitations): on-demand only.

A stopped instance keeps its volumes, so the image snapshot it restored at its first boot is on it already.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fastload_constructs.core.errors import is_whole_number, one_of, require

PoolState = Literal["Stopped", "Running"]
POOL_STATES: tuple[PoolState, ...] = ("Stopped", "Running")


@dataclass(frozen=True)
class WarmPool:
    """`min_size` instances kept prepared in `state` (at most `max_prepared` in and out of the pool together)."""

    min_size: int = 1
    state: PoolState = "Stopped"
    max_prepared: int | None = None

    def __post_init__(self) -> None:
        require(
            is_whole_number(self.min_size) and 1 <= self.min_size <= 100,
            "warm_pool.min_size",
            self.min_size,
            "a whole number of instances from 1 to 100",
        )
        one_of("warm_pool.state", self.state, POOL_STATES)
        if self.max_prepared is not None:
            require(
                is_whole_number(self.max_prepared) and self.max_prepared >= self.min_size,
                "warm_pool.max_prepared",
                self.max_prepared,
                f"a whole number of instances of at least min_size ({self.min_size})",
            )

    def as_cfn(self) -> dict[str, object]:
        """`AWS::EKS::Nodegroup WarmPoolConfig`."""
        config: dict[str, object] = {"Enabled": True, "MinSize": self.min_size, "PoolState": self.state}
        if self.max_prepared is not None:
            config["MaxGroupPreparedCapacity"] = self.max_prepared
        return config


def check_warm_pool(pool: object, capacity_type: str, field: str = "warm_pool") -> WarmPool | None:
    """A warm pool the node group can have: on-demand capacity only (module doc)."""
    if pool is None:
        return None
    require(isinstance(pool, WarmPool), field, pool, "a WarmPool(min_size=..., state='Stopped') or None")
    require(
        capacity_type == "on-demand",
        field,
        pool,
        f"None with capacity type {capacity_type} (Auto Scaling warm pools do not take Spot or capacity blocks)",
    )
    assert isinstance(pool, WarmPool)
    return pool
