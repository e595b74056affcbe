"""Names and labels shared by the constructs, the charts and the CLI.

The node group labels what the vLLM chart selects on; the Pod Identity
association names the service account the chart creates. Keeping these in
one module is what lets a construct and a chart written separately agree.
"""

from __future__ import annotations

# Where AL2023 nodeadm's `localStorage.strategy: RAID0` mounts the array
# (amazon-eks-ami setup-local-disks: `<dir>/0`, dir defaulting to /mnt/k8s-disks).
INSTANCE_STORE_MOUNT = "/mnt/k8s-disks/0"
NODE_CACHE_ROOT = f"{INSTANCE_STORE_MOUNT}/fastload"

DEFAULT_NAMESPACE = "inference"
PART_OF = "fastload"
MANAGED_BY = "fastload-constructs"

# Node labels set by the GPU node groups (managed or Karpenter) and selected by the chart.
LABEL_INSTANCE_FAMILY = "fastload.io/instance-family"
LABEL_GPU_MODEL = "fastload.io/gpu-model"
LABEL_INSTANCE_STORE = "fastload.io/instance-store"
INSTANCE_STORE_RAID0 = "raid0"
INSTANCE_STORE_NONE = "none"
WELL_KNOWN_INSTANCE_TYPE = "node.kubernetes.io/instance-type"
# Set on the untainted system node group; controllers (Karpenter, KEDA) select it. A label of our
# own, not `eks.amazonaws.com/nodegroup`: CloudFormation's Ref of AWS::EKS::Nodegroup is
# "<cluster>/<nodegroup>", which is no valid label value (aws/aws-cdk#22442).
LABEL_NODE_ROLE = "fastload.io/node-role"
NODE_ROLE_SYSTEM = "system"

# The taint every GPU node carries, so only pods that ask for GPUs land there.
GPU_TAINT_KEY = "nvidia.com/gpu"
GPU_TAINT_VALUE = "true"
GPU_TAINT_EFFECT = "NoSchedule"
GPU_RESOURCE = "nvidia.com/gpu"
# Standby nodes (core/serving/standby.py) carry this label and a NoSchedule taint of the same key as well.
LABEL_STANDBY = "fastload.io/standby"
# Every taint key a fastload GPU pool may carry: a DaemonSet the GPU nodes need (the NVIDIA device plugin,
# the local-volume provisioner) tolerates each, or it never runs on the pools that carry it.
GPU_POOL_TAINT_KEYS = (GPU_TAINT_KEY, LABEL_STANDBY)

# PriorityClasses with warm spares (core/serving/warm_spares.py): server pods (of any engine) preempt the spares.
SERVER_PRIORITY_CLASS = "fastload-vllm"
SPARE_PRIORITY_CLASS = "fastload-warm-spare"

# Node-local cache layout under the RAID0 instance-store mount.
COMPILE_CACHE_HOST_ROOT = f"{NODE_CACHE_ROOT}/vllm-cache"
MODEL_CACHE_HOST_ROOT = f"{NODE_CACHE_ROOT}/models"
LOCAL_VOLUMES_HOST_ROOT = f"{NODE_CACHE_ROOT}/local-volumes"
# Directories bind-mounted into LOCAL_VOLUMES_HOST_ROOT, one per local PV.
LOCAL_VOLUME_DATA_HOST_ROOT = f"{NODE_CACHE_ROOT}/local-volume-data"
LOCAL_NVME_STORAGE_CLASS = "local-nvme"
# The local static provisioner DaemonSet that turns NVMe directories into PVs.
PROVISIONER_NAME = "local-volume-provisioner"

__all__ = [
    "COMPILE_CACHE_HOST_ROOT",
    "DEFAULT_NAMESPACE",
    "GPU_POOL_TAINT_KEYS",
    "GPU_RESOURCE",
    "GPU_TAINT_EFFECT",
    "GPU_TAINT_KEY",
    "GPU_TAINT_VALUE",
    "INSTANCE_STORE_MOUNT",
    "INSTANCE_STORE_NONE",
    "INSTANCE_STORE_RAID0",
    "LABEL_GPU_MODEL",
    "LABEL_INSTANCE_FAMILY",
    "LABEL_INSTANCE_STORE",
    "LABEL_NODE_ROLE",
    "LABEL_STANDBY",
    "LOCAL_NVME_STORAGE_CLASS",
    "LOCAL_VOLUMES_HOST_ROOT",
    "LOCAL_VOLUME_DATA_HOST_ROOT",
    "MANAGED_BY",
    "MODEL_CACHE_HOST_ROOT",
    "NODE_CACHE_ROOT",
    "NODE_ROLE_SYSTEM",
    "PART_OF",
    "PROVISIONER_NAME",
    "SERVER_PRIORITY_CLASS",
    "SPARE_PRIORITY_CLASS",
    "WELL_KNOWN_INSTANCE_TYPE",
    "gpu_model_label_value",
    "service_account_name",
]


def service_account_name(model_name: str) -> str:
    """The Kubernetes service account the vLLM pods of `model_name` run as."""
    return f"{model_name}-vllm"


def gpu_model_label_value(gpu_model: str) -> str:
    """A label-safe GPU model name: 'RTX PRO 6000' -> 'rtx-pro-6000'."""
    return "-".join(gpu_model.lower().split())


# Staged models in S3: the manifest written beside the weights once every upload
# succeeded, and the object metadata key holding each object's whole-file SHA-256.
STAGE_MANIFEST_NAME = "fastload-manifest.json"
SHA256_METADATA_KEY = "fastload-sha256"
__all__ += ["SHA256_METADATA_KEY", "STAGE_MANIFEST_NAME"]
