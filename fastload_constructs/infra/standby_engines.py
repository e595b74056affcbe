"""FMA's controllers (llm-d-incubation/llm-d-fast-model-actuation v0.6.4) for models with standby engines.

`FmaController`, everything FMA needs in one `cdk deploy`, in order:

1. its three CRDs, as a chart of the package's own (`infra/charts/fma-crds`, the files of FMA's
   config/crd at v0.6.4) handed to the cluster's Helm handler as an asset: Helm creates what is in
   a chart's crds/ before the release and without kubectl's last-applied annotation, which the
   LauncherConfig CRD (about 300 kB compact) would overflow (256 KiB) under client-side apply;
2. the ClusterRole that lets the controllers read nodes (EKS grants ordinary service accounts none),
   named in `global.nodeViewClusterRole`;
3. the `fma-controllers` Helm chart from FMA's OCI registry, pinned to 0.6.4, in the namespace where
   the models run (its controllers watch only their release namespace), image tag pinned (the chart's
   default is `latest`), after the CRDs, the ClusterRole and whatever `after` names (the namespace's
   chart); Helm creates the namespace if nothing else has.

Values and names are decided in `core.serving.standby`. Apply the models' FMA objects after `chart`
(`ServedModel(after=[fma.chart])`): they are custom resources of those CRDs.

v0.6.4's chart also makes a 1 GiB ReadWriteOnce PersistentVolumeClaim for the
controller (coverage data) that names no StorageClass: the cluster needs a default
class, or the controller never starts. `InferenceCluster(ebs_csi=True)` makes one
(the add-on's `defaultStorageClass.enabled`, class `ebs-csi-default-sc`).
FMA's ValidatingAdmissionPolicies (`FMA_ADMISSION_POLICIES_URL`) are optional guards and not applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_s3_assets as s3_assets
from constructs import Construct, IDependable

from fastload_constructs.core import naming
from fastload_constructs.core.serving.standby import (
    DEFAULT_RELEASE,
    FMA_CHART_NAME,
    FMA_CHART_REPOSITORY,
    FMA_CRDS_RELEASE,
    FMA_VERSION,
    fma_values,
    node_view_cluster_role,
    node_view_rules,
)
from fastload_constructs.core.validation import check_dns_label

# The package's chart of FMA's CRDs (Chart.yaml and crds/, FMA config/crd at v0.6.4, unmodified).
CRDS_CHART = Path(__file__).resolve().parent / "charts" / "fma-crds"


class FmaController(Construct):
    """FMA's dual-pods controller and launcher populator in `namespace`, release `release`.

    `after`: what must exist before the chart is installed (the namespace's applied chart, so its labels are
    there first). Attributes: `crds` (the `eks.HelmChart` of the CRDs), `chart` (the `eks.HelmChart` of the
    controllers; apply the models' FMA objects after it), `node_view` (the ClusterRole manifest), `values`,
    `release`, `namespace`.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        namespace: str = naming.DEFAULT_NAMESPACE,
        release: str = DEFAULT_RELEASE,
        version: str = FMA_VERSION,
        after: Sequence[IDependable] = (),
    ) -> None:
        check_dns_label(namespace, "namespace")
        self.values = fma_values(release)
        super().__init__(scope, id)
        self.release, self.namespace = release, namespace
        self.node_view = eks.KubernetesManifest(
            self,
            "NodeView",
            cluster=cluster,
            manifest=[
                {
                    "apiVersion": "rbac.authorization.k8s.io/v1",
                    "kind": "ClusterRole",
                    "metadata": {
                        "name": node_view_cluster_role(release),
                        "labels": {
                            "app.kubernetes.io/name": FMA_CHART_NAME,
                            "app.kubernetes.io/instance": release,
                            "app.kubernetes.io/part-of": naming.PART_OF,
                            "app.kubernetes.io/managed-by": naming.MANAGED_BY,
                        },
                    },
                    "rules": node_view_rules(),
                }
            ],
        )
        # Cluster-scoped objects: the release lives in kube-system, which exists on every cluster.
        self.crds = eks.HelmChart(
            self,
            "Crds",
            cluster=cluster,
            chart_asset=s3_assets.Asset(self, "CrdsChart", path=str(CRDS_CHART)),
            release=FMA_CRDS_RELEASE,
            namespace="kube-system",
            create_namespace=False,
        )
        self.chart = eks.HelmChart(
            self,
            "Chart",
            cluster=cluster,
            repository=FMA_CHART_REPOSITORY,
            chart=FMA_CHART_NAME,
            version=version,
            release=release,
            namespace=namespace,
            # Created here when no chart of the stack made it (`after` orders a NamespaceChart first).
            create_namespace=True,
            values=self.values,
        )
        self.chart.node.add_dependency(self.node_view, self.crds, *after)
