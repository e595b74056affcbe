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


class AppliedChart(Construct):
    """`chart` applied to `cluster` after `after` (other AppliedCharts, associations, Helm releases...).

    Attributes: `chart`, `manifest` (the `eks.KubernetesManifest`).
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
        super().__init__(scope, id)
        self.chart = chart
        self.manifest = eks.KubernetesManifest(self, "Manifest", cluster=cluster, manifest=chart.to_json())
        for dependency in after:
            self.manifest.node.add_dependency(dependency)

    def apply_after(self, *dependencies: IDependable) -> None:
        """Apply this chart only once `dependencies` exist."""
        for dependency in dependencies:
            self.manifest.node.add_dependency(dependency)
