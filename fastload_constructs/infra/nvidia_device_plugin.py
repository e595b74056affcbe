"""The NVIDIA device plugin, from NVIDIA's Helm chart, on the AL2023 GPU nodes.

The AL2023 NVIDIA AMI ships the driver and container toolkit but not the
device plugin, so without it no pod can request `nvidia.com/gpu`. The chart's
default node affinity needs Node Feature Discovery labels, which are off by
default; we add a term that matches our own GPU node label, so the plugin runs
on fastload's GPU nodes with or without NFD. It tolerates every taint a fastload
GPU pool carries (`naming.GPU_POOL_TAINT_KEYS`: the GPU taint, and the standby
pool's), or the nodes of a pool it does not tolerate advertise no GPU.

Bottlerocket's NVIDIA variants run the plugin as a host service (the default node
family, `core.cluster.ami_family`): every term excludes nodes labelled with that
family, so the DaemonSet never adds a second plugin there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from fastload_constructs.core.errors import require
from fastload_constructs.core.naming import GPU_POOL_TAINT_KEYS, LABEL_AMI_FAMILY, LABEL_GPU_MODEL

CHART_REPOSITORY = "https://nvidia.github.io/k8s-device-plugin"
CHART_NAME = "nvidia-device-plugin"
# Pinned: NVIDIA/k8s-device-plugin v0.20.0 (Chart.yaml and the gh-pages index, Aug 2026).
CHART_VERSION = "0.20.0"
DEFAULT_NAMESPACE = "nvidia-device-plugin"
# The image the chart runs: `image.tag` "Overrides the image tag whose default is the chart appVersion"
# (values.yaml at v0.20.0); what an AL2023 node's image snapshot must hold (core.cluster.image_cache).
DEVICE_PLUGIN_IMAGE = f"nvcr.io/nvidia/k8s-device-plugin:v{CHART_VERSION}"
NFD_NVIDIA_PCI_LABEL = "feature.node.kubernetes.io/pci-10de.present"


# Node families whose OS runs the device plugin itself.
BUILT_IN_PLUGIN_FAMILIES = ("bottlerocket",)


def device_plugin_values() -> dict[str, Any]:
    """Helm values: tolerate every GPU pool's taints, run where our GPU label or NFD's NVIDIA label is,
    except on nodes whose OS has the plugin built in.

    The chart's `tolerations` value replaces its list (a Helm list), so the chart's own
    `CriticalAddonsOnly` toleration is repeated here."""
    not_built_in = {"key": LABEL_AMI_FAMILY, "operator": "NotIn", "values": list(BUILT_IN_PLUGIN_FAMILIES)}
    return {
        "tolerations": [
            *({"key": key, "operator": "Exists"} for key in GPU_POOL_TAINT_KEYS),
            {"key": "CriticalAddonsOnly", "operator": "Exists"},
        ],
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": LABEL_GPU_MODEL, "operator": "Exists"}, not_built_in]},
                        {
                            "matchExpressions": [
                                {"key": NFD_NVIDIA_PCI_LABEL, "operator": "In", "values": ["true"]},
                                not_built_in,
                            ]
                        },
                    ],
                }
            }
        },
    }


def merge_values(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """`overrides` deep-merged onto `base`, as Helm merges `-f` value files.

    Maps merge key by key; anything else (lists included) is replaced; a key
    set to None is removed, as `helm --set key=null` removes a default.
    """
    merged: dict[str, Any] = dict(base)
    for key, value in overrides.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = merge_values(merged[key], value)
        else:
            merged[key] = value
    return merged


class NvidiaDevicePlugin(Construct):
    """Installs the pinned `nvidia-device-plugin` chart into `cluster` (needs its kubectl provider).

    `values` are deep-merged onto `device_plugin_values()` (maps merge, lists
    are replaced, None removes a default), e.g.
    `values={"config": {"map": {...}}, "resources": {...}}`. Default: none.
    `namespace` default `nvidia-device-plugin`; `version` default 0.20.0.

    Attribute: `chart` (the eks.HelmChart), `values` (what the release gets).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        namespace: str = DEFAULT_NAMESPACE,
        version: str = CHART_VERSION,
        values: Mapping[str, Any] | None = None,
    ) -> None:
        require(values is None or isinstance(values, Mapping), "values", values, "a mapping of Helm values")
        super().__init__(scope, id)
        self.values = merge_values(device_plugin_values(), values or {})
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
            values=self.values,
        )
