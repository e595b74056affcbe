"""Names and labels shared by the constructs, the charts and the CLI.

The node group labels what the vLLM chart selects on; the Pod Identity
association names the service account the chart creates. Keeping these in
one module is what lets a construct and a chart written separately agree.
"""

from __future__ import annotations

from dataclasses import dataclass

# Where each node family mounts the instance-store RAID0 array, by `core.cluster.ami_family` name:
# - AL2023, nodeadm `localStorage.strategy: RAID0`: `<dir>/0`, dir defaulting to /mnt/k8s-disks
#   (awslabs/amazon-eks-ami templates/al2023/runtime/bin/setup-local-disks);
# - Bottlerocket, `apiclient ephemeral-storage bind`: /mnt/.ephemeral (bottlerocket-os/bottlerocket-core-kit
#   sources/api/apiserver/src/server/ephemeral_storage.rs, `EPHEMERAL_MNT`). `bind` accepts only
#   /var/lib/containerd, /var/lib/host-containerd, /var/lib/kubelet and /var/log/pods on Kubernetes
#   variants (same file, `allowed_bind_dirs`), so no common path can be bound: the caches live under the
#   mount itself, a directory in /mnt, which Bottlerocket's SELinux policy lets every container write
#   ("files in /mnt and /tmp", packages/selinux-policy/rules.cil). Without instance store /mnt is the
#   data volume (packages/release/mnt.mount: /local/mnt).
INSTANCE_STORE_MOUNTS = {"al2023": "/mnt/k8s-disks/0", "bottlerocket": "/mnt/.ephemeral"}

DEFAULT_NAMESPACE = "inference"
PART_OF = "fastload"
MANAGED_BY = "fastload-constructs"

# Node labels set by the GPU node groups (managed or Karpenter) and selected by the chart.
LABEL_INSTANCE_FAMILY = "fastload.io/instance-family"
LABEL_GPU_MODEL = "fastload.io/gpu-model"
LABEL_INSTANCE_STORE = "fastload.io/instance-store"
# The node OS family (core.cluster.ami_family): DaemonSets that only one family needs select on it.
LABEL_AMI_FAMILY = "fastload.io/ami-family"
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


@dataclass(frozen=True)
class NodeCachePaths:
    """The node-local cache layout under a node family's instance-store mount (`node_cache_paths`)."""

    mount: str

    @property
    def root(self) -> str:
        return f"{self.mount}/fastload"

    @property
    def compile_cache(self) -> str:
        """The engines' cache roots (hostPath), one folder per configuration."""
        return f"{self.root}/vllm-cache"

    @property
    def models(self) -> str:
        """Model files copied to the node (hostPath)."""
        return f"{self.root}/models"

    @property
    def local_volumes(self) -> str:
        """Bind mounts the local static provisioner turns into PVs."""
        return f"{self.root}/local-volumes"

    @property
    def local_volume_data(self) -> str:
        """The directories bind-mounted into `local_volumes`, one per local PV."""
        return f"{self.root}/local-volume-data"


def node_cache_paths(family: str) -> NodeCachePaths:
    """Where the node-local caches live on nodes of AMI `family` (on the RAID0 array when there is one)."""
    return NodeCachePaths(INSTANCE_STORE_MOUNTS[family])


LOCAL_NVME_STORAGE_CLASS = "local-nvme"
# The local static provisioner DaemonSet that turns NVMe directories into PVs.
PROVISIONER_NAME = "local-volume-provisioner"

__all__ = [
    "DEFAULT_NAMESPACE",
    "GPU_POOL_TAINT_KEYS",
    "GPU_RESOURCE",
    "GPU_TAINT_EFFECT",
    "GPU_TAINT_KEY",
    "GPU_TAINT_VALUE",
    "INSTANCE_STORE_MOUNTS",
    "INSTANCE_STORE_NONE",
    "INSTANCE_STORE_RAID0",
    "LABEL_AMI_FAMILY",
    "LABEL_GPU_MODEL",
    "LABEL_INSTANCE_FAMILY",
    "LABEL_INSTANCE_STORE",
    "LABEL_NODE_ROLE",
    "LABEL_STANDBY",
    "LOCAL_NVME_STORAGE_CLASS",
    "MANAGED_BY",
    "NODE_ROLE_SYSTEM",
    "PART_OF",
    "PROVISIONER_NAME",
    "SERVER_PRIORITY_CLASS",
    "SPARE_PRIORITY_CLASS",
    "WELL_KNOWN_INSTANCE_TYPE",
    "NodeCachePaths",
    "gpu_model_label_value",
    "node_cache_paths",
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
