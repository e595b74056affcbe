"""The decisions: pure, typed Python with no CDK, cdk8s or boto3 import.

Instance facts, model profiles, the serving plan (TP, streamer settings,
predicted phases, probes), vLLM arguments, node configuration and IAM
statement specs. Everything else in the package applies what is decided here.
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
