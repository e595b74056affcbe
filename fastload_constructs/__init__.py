"""fastload-constructs: fast cold starts for vLLM on Amazon EKS.

Packages, one concept each (imports run one way: core <- s3 / k8s / infra <- cli):
  core       the decisions: pure Python, no CDK, cdk8s or boto3 import
  s3         staging and header inspection with boto3
  infra      CDK constructs;  k8s  cdk8s charts
  cli        the `fastload` command;  coldstart  start-up log analysis
  runtime    code shipped into pods (standard library and boto3 only)
The names below are the decision core's, re-exported for convenience.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and IDEs see
    from fastload_constructs.core.catalog import CATALOG, GpuInstance, lookup
    from fastload_constructs.core.errors import FastloadConfigError
    from fastload_constructs.core.model import ModelProfile, ShardInfo
    from fastload_constructs.core.tuning import ServingPlan, StreamerSettings, TuningOptions, plan

# Imported on first use (PEP 562): `fastload` commands import only the modules they run.
_WHERE = {
    "CATALOG": "fastload_constructs.core.catalog",
    "GpuInstance": "fastload_constructs.core.catalog",
    "lookup": "fastload_constructs.core.catalog",
    "FastloadConfigError": "fastload_constructs.core.errors",
    "ModelProfile": "fastload_constructs.core.model",
    "ShardInfo": "fastload_constructs.core.model",
    "ServingPlan": "fastload_constructs.core.tuning",
    "StreamerSettings": "fastload_constructs.core.tuning",
    "TuningOptions": "fastload_constructs.core.tuning",
    "plan": "fastload_constructs.core.tuning",
}

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
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
