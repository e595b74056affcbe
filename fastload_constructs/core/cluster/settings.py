"""Checked settings for the inference cluster: version, admins, add-ons.

Pure, so a bad value fails with a FastloadConfigError before any construct
exists, and the choices are testable without CDK.
"""

from __future__ import annotations

from collections.abc import Sequence

from fastload_constructs.core.errors import require
from fastload_constructs.core.validation import check_role_arn

# Kubernetes versions that aws_eks_v2 and the kubectl Lambda layers on PyPI both offer.
SUPPORTED_KUBERNETES_VERSIONS = ("1.33", "1.34", "1.35", "1.36")
DEFAULT_KUBERNETES_VERSION = "1.35"

# Kubernetes versions with both an aws_eks_v2 KubernetesVersion and a kubectl
# Lambda layer package (aws-cdk.lambda-layer-kubectl-vNN) declared in pyproject.
KUBECTL_LAYER_VERSIONS = SUPPORTED_KUBERNETES_VERSIONS
DEFAULT_VERSION = DEFAULT_KUBERNETES_VERSION

# EKS add-ons every inference cluster gets; the EBS CSI driver only on request.
CORE_ADDONS = ("vpc-cni", "coredns", "kube-proxy", "eks-pod-identity-agent")
EBS_CSI_ADDON = "aws-ebs-csi-driver"


def check_version(version: object, field: str = "version") -> str:
    require(
        isinstance(version, str) and version in KUBECTL_LAYER_VERSIONS,
        field,
        version,
        "one of " + ", ".join(KUBECTL_LAYER_VERSIONS),
    )
    return version  # type: ignore[return-value]


def kubectl_layer_module(version: str) -> tuple[str, str]:
    """(module, class) of the kubectl Lambda layer matching `version`: 1.35 -> lambda_layer_kubectl_v35."""
    minor = check_version(version).split(".")[1]
    return f"aws_cdk.lambda_layer_kubectl_v{minor}", f"KubectlV{minor}Layer"


def check_admin_role_arns(values: Sequence[object]) -> tuple[str, ...]:
    require(not isinstance(values, str), "admin_role_arns", values, "a list of IAM role ARNs")
    return tuple(dict.fromkeys(check_role_arn(value, "admin_role_arns") for value in values))


def addon_names(*, ebs_csi: bool) -> tuple[str, ...]:
    return CORE_ADDONS + ((EBS_CSI_ADDON,) if ebs_csi else ())
