"""fastload-constructs: fast cold starts for vLLM on Amazon EKS.

Packages, one concept each (imports run one way: core <- s3 / k8s / infra <- cli):
  core       the decisions: pure Python, no CDK, cdk8s or boto3 import
  s3         staging and header inspection (botocore)
  infra      CDK constructs;  k8s  cdk8s charts
  cli        the `fastload` command;  coldstart  start-up log analysis
  runtime    code shipped into pods (standard library and boto3 only)
The names below are the decision core's, re-exported for convenience.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fastload_constructs import core as _core  # itself lazy: this imports no decision module

if TYPE_CHECKING:  # what type checkers and IDEs see
    from fastload_constructs.core import (
        CATALOG,
        FastloadConfigError,
        GpuInstance,
        ModelProfile,
        ServingPlan,
        ShardInfo,
        StreamerSettings,
        TuningOptions,
        lookup,
        plan,
    )

__all__ = [
    "CATALOG",
    "FastloadConfigError",
    "GpuInstance",
    "ModelProfile",
    "ServingPlan",
    "ShardInfo",
    "StreamerSettings",
    "TuningOptions",
    "lookup",
    "plan",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """The decision core's names, loaded on first use (PEP 562) by `core`'s own table."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(_core, name)
