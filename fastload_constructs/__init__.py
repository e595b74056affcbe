"""fastload-constructs: fast cold starts for vLLM on Amazon EKS.

Packages, one concept each (imports run one way: core <- s3 / k8s / infra <- cli):
  core       the decisions: pure Python, no CDK, cdk8s or boto3 import
  s3         staging and header inspection with boto3
  infra      CDK constructs;  k8s  cdk8s charts
  cli        the `fastload` command;  coldstart  start-up log analysis
  runtime    code shipped into pods (standard library and boto3 only)
The names below are the decision core's, re-exported for convenience.
"""

from fastload_constructs.core.catalog import CATALOG, GpuInstance, lookup
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile, ShardInfo
from fastload_constructs.core.tuning import ServingPlan, StreamerSettings, TuningOptions, plan

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
