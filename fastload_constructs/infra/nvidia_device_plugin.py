"""The NVIDIA device plugin, from NVIDIA's Helm chart, on the GPU nodes.

The AL2023 NVIDIA AMI ships the driver and container toolkit but not the
device plugin, so without it no pod can request `nvidia.com/gpu`. The chart's
default node affinity needs Node Feature Discovery labels, which are off by
default; we add a term that matches our own GPU node label, so the plugin runs
on fastload's GPU nodes with or without NFD.
"""

from __future__ import annotations

from typing import Any

from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from fastload_constructs.core.naming import GPU_TAINT_EFFECT, GPU_TAINT_KEY, LABEL_GPU_MODEL

CHART_REPOSITORY = "https://nvidia.github.io/k8s-device-plugin"
CHART_NAME = "nvidia-device-plugin"
# Pinned: NVIDIA/k8s-device-plugin v0.20.0 (Chart.yaml and the gh-pages index, Aug 2026).
CHART_VERSION = "0.20.0"
DEFAULT_NAMESPACE = "nvidia-device-plugin"
NFD_NVIDIA_PCI_LABEL = "feature.node.kubernetes.io/pci-10de.present"


def device_plugin_values() -> dict[str, Any]:
    """Helm values: tolerate the GPU taint, run where our GPU label or NFD's NVIDIA label is."""
    return {
        "tolerations": [
            {"key": GPU_TAINT_KEY, "operator": "Exists", "effect": GPU_TAINT_EFFECT},
            {"key": "CriticalAddonsOnly", "operator": "Exists"},
        ],
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": LABEL_GPU_MODEL, "operator": "Exists"}]},
                        {"matchExpressions": [{"key": NFD_NVIDIA_PCI_LABEL, "operator": "In", "values": ["true"]}]},
                    ],
                }
            }
        },
    }


class NvidiaDevicePlugin(Construct):
    """Installs the pinned `nvidia-device-plugin` chart into `cluster` (needs its kubectl provider).

    Attribute: `chart` (the eks.HelmChart).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        namespace: str = DEFAULT_NAMESPACE,
        version: str = CHART_VERSION,
    ) -> None:
        super().__init__(scope, id)
        self.chart = eks.HelmChart(
            self,
            "Chart",
            cluster=cluster,
            repository=CHART_REPOSITORY,
            chart=CHART_NAME,
            version=version,
            release=CHART_NAME,
            namespace=namespace,
            create_namespace=True,
            values=device_plugin_values(),
        )
