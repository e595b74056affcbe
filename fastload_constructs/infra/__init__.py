"""CDK constructs (aws-cdk-lib v2) that apply the decisions of `fastload_constructs.core`.

from fastload_constructs.infra import FastloadNetwork, ModelBucket, InferenceCluster, ServedModel
"""

from fastload_constructs.jsii_node import use_packaged_node

use_packaged_node()  # before aws_cdk starts its jsii runtime

from fastload_constructs.infra.applied_chart import AppliedChart  # noqa: E402
from fastload_constructs.infra.gpu_nodegroup import GpuNodeGroup  # noqa: E402
from fastload_constructs.infra.image_mirror import EcrPullThroughCache  # noqa: E402
from fastload_constructs.infra.inference_cluster import InferenceCluster, SystemNodes  # noqa: E402
from fastload_constructs.infra.karpenter import KarpenterController, KarpenterGpuNodes  # noqa: E402
from fastload_constructs.infra.manifest_export import ManifestExport, synth_with_manifests  # noqa: E402
from fastload_constructs.infra.model_bucket import ModelBucket, ModelBucketGrants, ModelBucketLock  # noqa: E402
from fastload_constructs.infra.model_reader_identity import ModelReaderIdentity  # noqa: E402
from fastload_constructs.infra.network import FastloadNetwork  # noqa: E402
from fastload_constructs.infra.nvidia_device_plugin import NvidiaDevicePlugin  # noqa: E402
from fastload_constructs.infra.pod_identity_role import PodIdentityRole  # noqa: E402
from fastload_constructs.infra.scale_out_metrics import KedaController, KedaScaling, ScaleOutMetrics  # noqa: E402
from fastload_constructs.infra.served_model import ServedModel  # noqa: E402
from fastload_constructs.infra.serving_namespace import ServingNamespace  # noqa: E402
from fastload_constructs.infra.serving_priority_classes import ServingPriorityClasses  # noqa: E402
from fastload_constructs.infra.standby_engines import FmaController  # noqa: E402
from fastload_constructs.infra.synth_limits import check_assembly_limits, check_stack_limits  # noqa: E402

__all__ = [
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
    "check_assembly_limits",
    "check_stack_limits",
    "synth_with_manifests",
]
