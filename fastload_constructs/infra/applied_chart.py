"""A cdk8s chart applied to an EKS cluster, kept findable so the YAML export holds every chart applied.

`cluster.add_cdk8s_chart` creates the `KubernetesManifest` in the cluster's
scope and forgets the chart. `AppliedChart` creates the same manifest (the
chart's `to_json()`, through the cluster's kubectl provider) in its own
scope and keeps the chart, so `infra.ManifestExport(charts=None)` finds every
applied chart of a stack and writes them in the order they are applied.
"""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.serving.clashes import Applied, object_keys
from fastload_constructs.infra.serving_registry import ServingRegistry

# The kubectl provider's attributes every applied chart needs (aws_eks_v2 ICluster).
_EXISTING_CLUSTER_GUIDE = "docs/existing-cluster.md"


def check_cluster(cluster: object, field: str = "cluster") -> None:
    """An aws_eks_v2 cluster with a kubectl provider; one clear line instead of a jsii traceback otherwise.

    aws_eks (v1) clusters carry their kubectl handler differently and are not supported: their
    manifests would be applied by a second, incompatible provider.
    """
    # An imported cluster is a jsii proxy whose delegates carry the module of their interface.
    delegates = getattr(cluster, "_delegates", None) or [cluster]
    modules = {type(d).__module__ for d in delegates}
    if any(m.startswith("aws_cdk.aws_eks") and not m.startswith("aws_cdk.aws_eks_v2") for m in modules):
        raise FastloadConfigError(
            field,
            "an aws_cdk.aws_eks (v1) cluster",
            "an aws_cdk.aws_eks_v2 cluster (aws_eks v1 is not supported): import yours with "
            "aws_eks_v2.Cluster.from_cluster_attributes(..., kubectl_provider=aws_eks_v2.KubectlProvider(...)); "
            f"see {_EXISTING_CLUSTER_GUIDE}",
        )
    require(
        getattr(cluster, "kubectl_provider", None) is not None,
        field,
        getattr(cluster, "cluster_name", cluster),
        "a cluster with a kubectl provider: InferenceCluster has one; an imported cluster needs "
        "kubectl_provider=aws_eks_v2.KubectlProvider(scope, id, cluster=..., kubectl_layer=..., role=...) "
        f"(see {_EXISTING_CLUSTER_GUIDE})",
    )


class AppliedChart(Construct):
    """A cdk8s chart applied to an EKS cluster through its kubectl provider.

    Props:
    - `cluster`: an aws_eks_v2 `ICluster` with a kubectl provider. Required.
    - `chart`: the `cdk8s.Chart` to apply. Required.
    - `after`: what must exist first (other AppliedCharts, associations, Helm releases...). Default: nothing.

    Each object it applies must be applied by no other chart of the stack on the same cluster: checked
    once at synth (`infra.serving_registry`).

    Attributes: `chart`, `cluster`, `manifest` (the `eks.KubernetesManifest`).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        chart: cdk8s.Chart,
        after: Sequence[IDependable] = (),
    ) -> None:
        check_cluster(cluster)
        super().__init__(scope, id)
        self.chart, self.cluster = chart, cluster
        docs = chart.to_json()
        self.manifest = eks.KubernetesManifest(self, "Manifest", cluster=cluster, manifest=docs)
        for dependency in after:
            self.manifest.node.add_dependency(dependency)
        ServingRegistry.of(self).add_applied(Applied(self.node.path, cluster.node.addr, object_keys(docs)))

    def apply_after(self, *dependencies: IDependable) -> None:
        """Apply this chart only once `dependencies` exist."""
        for dependency in dependencies:
            self.manifest.node.add_dependency(dependency)
