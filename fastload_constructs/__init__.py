"""fastload-constructs: fast cold starts for vLLM on Amazon EKS.

The pure decisions (catalog, model, tuning, config) import without CDK;
constructs live in `fastload_constructs.infra`, charts in `fastload_constructs.k8s`.
"""

from .catalog import CATALOG, GpuInstance, lookup
from .errors import FastloadConfigError
from .model import ModelProfile, ShardInfo
from .tuning import ServingPlan, StreamerSettings, TuningOptions, plan

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
