"""fastload-constructs: fast cold starts for vLLM and SGLang on Amazon EKS.

Every public construct, chart and options type is importable from here, like aws-cdk-lib's
modules, and loaded on first use (PEP 562): `import fastload_constructs` loads nothing else,
and the `fastload` CLI never loads aws_cdk.

    from fastload_constructs import ModelProfile, Serving, ServedModel, TuningOptions

Packages, one concept each (imports run one way: core <- s3 / k8s / infra <- cli):
  core       the decisions: pure Python, no CDK, cdk8s or boto3 import
  s3         staging and header inspection (botocore)
  infra      CDK constructs;  k8s  cdk8s charts
  cli        the `fastload` command;  coldstart  start-up log analysis
  runtime    code shipped into pods (standard library and boto3 only)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what type checkers and IDEs see
    from fastload_constructs.core.catalog import CATALOG, GpuInstance, lookup
    from fastload_constructs.core.cluster.karpenter import NodePoolOptions
    from fastload_constructs.core.errors import FastloadConfigError
    from fastload_constructs.core.model import ModelArchitecture, ModelProfile, ShardInfo
    from fastload_constructs.core.planning import (
        LoadAssumptions,
        Serving,
        ServingPlan,
        StreamerSettings,
        TuningOptions,
        plan,
    )
    from fastload_constructs.core.scaling.autoscaling import Autoscaling
    from fastload_constructs.core.serving.access import ServingAccess
    from fastload_constructs.core.serving.server_pod import ServerOptions
    from fastload_constructs.infra import (
        AppliedChart,
        EcrPullThroughCache,
        FastloadNetwork,
        FmaController,
        GpuNodeGroup,
        InferenceCluster,
        KarpenterController,
        KarpenterGpuNodes,
        KedaController,
        KedaScaling,
        ManifestExport,
        ModelBucket,
        ModelBucketGrants,
        ModelBucketLock,
        ModelReaderIdentity,
        NvidiaDevicePlugin,
        PodIdentityRole,
        ScaleOutMetrics,
        ServedModel,
        ServingNamespace,
        ServingPriorityClasses,
        SystemNodes,
        synth_with_manifests,
    )
    from fastload_constructs.k8s import (
        KarpenterGpuNodePools,
        LocalNvmeStorage,
        NamespaceChart,
        PriorityClassesChart,
        ServerChart,
        StandbyEnginesChart,
        StandbyNodePoolChart,
        WarmSparesChart,
    )

_CORE = {
    "CATALOG": "fastload_constructs.core.catalog",
    "GpuInstance": "fastload_constructs.core.catalog",
    "lookup": "fastload_constructs.core.catalog",
    "FastloadConfigError": "fastload_constructs.core.errors",
    "ModelArchitecture": "fastload_constructs.core.model",
    "ModelProfile": "fastload_constructs.core.model",
    "ShardInfo": "fastload_constructs.core.model",
    "LoadAssumptions": "fastload_constructs.core.planning",
    "Serving": "fastload_constructs.core.planning",
    "ServingPlan": "fastload_constructs.core.planning",
    "StreamerSettings": "fastload_constructs.core.planning",
    "TuningOptions": "fastload_constructs.core.planning",
    "plan": "fastload_constructs.core.planning",
    "NodePoolOptions": "fastload_constructs.core.cluster.karpenter",
    "Autoscaling": "fastload_constructs.core.scaling.autoscaling",
    "ServingAccess": "fastload_constructs.core.serving.access",
    "ServerOptions": "fastload_constructs.core.serving.server_pod",
}
_CONSTRUCTS = (
    "AppliedChart",
    "EcrPullThroughCache",
    "FastloadNetwork",
    "FmaController",
    "GpuNodeGroup",
    "InferenceCluster",
    "KarpenterController",
    "KarpenterGpuNodes",
    "KedaController",
    "KedaScaling",
    "ManifestExport",
    "ModelBucket",
    "ModelBucketGrants",
    "ModelBucketLock",
    "ModelReaderIdentity",
    "NvidiaDevicePlugin",
    "PodIdentityRole",
    "ScaleOutMetrics",
    "ServedModel",
    "ServingNamespace",
    "ServingPriorityClasses",
    "SystemNodes",
    "synth_with_manifests",
)
_CHARTS = (
    "KarpenterGpuNodePools",
    "LocalNvmeStorage",
    "NamespaceChart",
    "PriorityClassesChart",
    "ServerChart",
    "StandbyEnginesChart",
    "StandbyNodePoolChart",
    "WarmSparesChart",
)
# Name -> the module that defines (or re-exports) it.
_WHERE: dict[str, str] = {
    **_CORE,
    **dict.fromkeys(_CONSTRUCTS, "fastload_constructs.infra"),
    **dict.fromkeys(_CHARTS, "fastload_constructs.k8s"),
}

__all__ = [
    "CATALOG",
    "AppliedChart",
    "Autoscaling",
    "EcrPullThroughCache",
    "FastloadConfigError",
    "FastloadNetwork",
    "FmaController",
    "GpuInstance",
    "GpuNodeGroup",
    "InferenceCluster",
    "KarpenterController",
    "KarpenterGpuNodePools",
    "KarpenterGpuNodes",
    "KedaController",
    "KedaScaling",
    "LoadAssumptions",
    "LocalNvmeStorage",
    "ManifestExport",
    "ModelArchitecture",
    "ModelBucket",
    "ModelBucketGrants",
    "ModelBucketLock",
    "ModelProfile",
    "ModelReaderIdentity",
    "NamespaceChart",
    "NodePoolOptions",
    "NvidiaDevicePlugin",
    "PodIdentityRole",
    "PriorityClassesChart",
    "ScaleOutMetrics",
    "ServedModel",
    "ServerChart",
    "ServerOptions",
    "Serving",
    "ServingAccess",
    "ServingNamespace",
    "ServingPlan",
    "ServingPriorityClasses",
    "ShardInfo",
    "StandbyEnginesChart",
    "StandbyNodePoolChart",
    "StreamerSettings",
    "SystemNodes",
    "TuningOptions",
    "WarmSparesChart",
    "lookup",
    "plan",
    "synth_with_manifests",
]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """Load a public name on first use: a decision type loads only `core`, a construct `infra` (and aws_cdk)."""
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
