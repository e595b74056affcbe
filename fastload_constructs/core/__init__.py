"""The decisions: pure, typed Python with no CDK, cdk8s or boto3 import.

Instance facts, model profiles, the inference engines (vLLM, SGLang), the
serving plan (TP, streamer settings, predicted phases, probes), the server
pod, node configuration and IAM statement specs. Everything else in the package applies what is decided here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and IDEs see
    from fastload_constructs.core.catalog import CATALOG, GpuInstance, lookup
    from fastload_constructs.core.errors import FastloadConfigError
    from fastload_constructs.core.model import ModelProfile, ShardInfo
    from fastload_constructs.core.planning.options import TuningOptions
    from fastload_constructs.core.planning.plan import ServingPlan, plan
    from fastload_constructs.core.planning.streamer import StreamerSettings

# Imported on first use (PEP 562): `fastload` commands import only the modules they run.
_WHERE = {
    "CATALOG": "fastload_constructs.core.catalog",
    "GpuInstance": "fastload_constructs.core.catalog",
    "lookup": "fastload_constructs.core.catalog",
    "FastloadConfigError": "fastload_constructs.core.errors",
    "ModelProfile": "fastload_constructs.core.model",
    "ShardInfo": "fastload_constructs.core.model",
    "ServingPlan": "fastload_constructs.core.planning",
    "StreamerSettings": "fastload_constructs.core.planning",
    "TuningOptions": "fastload_constructs.core.planning",
    "plan": "fastload_constructs.core.planning",
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


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
