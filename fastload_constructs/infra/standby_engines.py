"""FMA's controllers (llm-d-incubation/llm-d-fast-model-actuation v0.6.4) for models with standby engines.

`FmaController`: the `fma-controllers` Helm chart from FMA's OCI registry, pinned to
0.6.4, in the namespace where the models run (its controllers watch only their
release namespace), with the image tag pinned (the chart's default is `latest`),
and the ClusterRole that lets them read nodes (EKS grants ordinary service
accounts none), named in `global.nodeViewClusterRole`. Values and names are
decided in `core.serving.standby`.

Not made here, once per cluster before the first model with standbys (FMA's
install guide at v0.6.4): its three CRDs (`core.serving.standby.FMA_CRD_URLS`;
`kubectl apply -f` each) and its ValidatingAdmissionPolicies
(`FMA_ADMISSION_POLICIES_URL`). The CRDs are too large to travel through a
CloudFormation custom resource; both are cluster-wide.

v0.6.4's chart also makes a 1 GiB ReadWriteOnce PersistentVolumeClaim for the
controller (coverage data) that names no StorageClass: the cluster needs a default
class, or the controller never starts. `InferenceCluster(ebs_csi=True)` makes one
(the add-on's `defaultStorageClass.enabled`, class `ebs-csi-default-sc`).
"""

from __future__ import annotations

from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from fastload_constructs.core import naming
from fastload_constructs.core.serving.standby import (
    DEFAULT_RELEASE,
    FMA_CHART_NAME,
    FMA_CHART_REPOSITORY,
    FMA_VERSION,
    fma_values,
    node_view_cluster_role,
    node_view_rules,
)
from fastload_constructs.core.validation import check_dns_label


class FmaController(Construct):
    """FMA's dual-pods controller and launcher populator in `namespace`, release `release`.

    Attributes: `chart` (the `eks.HelmChart`; apply the models' FMA objects after it), `node_view`
    (the ClusterRole manifest), `values`, `release`, `namespace`.
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
        self.chart = eks.HelmChart(
            self,
            "Chart",
            cluster=cluster,
            repository=FMA_CHART_REPOSITORY,
            chart=FMA_CHART_NAME,
            version=version,
            release=release,
            namespace=namespace,
            create_namespace=False,
            values=self.values,
        )
        self.chart.node.add_dependency(self.node_view)
