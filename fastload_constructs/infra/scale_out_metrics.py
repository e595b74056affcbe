"""vLLM metrics into Amazon Managed Service for Prometheus, and KEDA reading them with SigV4 via Pod Identity.

`ScaleOutMetrics`: an AMP workspace and the EKS managed collector
(`AWS::APS::Scraper`) with `core.metrics.scrape_config` (vLLM pods, Karpenter,
KEDA), its ENIs in the cluster's subnets and the cluster security group. The
scraper's Kubernetes access: on a cluster whose authentication mode includes
`API` (aws_eks_v2's default), AMP creates the scraper's EKS access entry and
access policy itself when the scraper is created (AMP user guide, "Configure
Amazon EKS for scraper access with access entries"); an access entry made here
for the same role would collide with it, so none is made. A `CONFIG_MAP`-only
cluster needs the manual `aps-collector-role` binding from that page.

`KedaScaling`: what `ServedModel(autoscaling=...)` takes to scale one model
with it: the controller and the model's `core.scaling.Autoscaling`.

`KedaController`: KEDA's Helm chart pinned to 2.20.2, its operator's EKS Pod
Identity role allowed only to query this workspace (`aps:QueryMetrics`,
`GetLabels`, `GetSeries`, `GetMetricMetadata`), and the operator's metrics
port on so the scraper sees KEDA itself. The ScaledObjects' TriggerAuthentication
(`k8s.keda.VllmAutoscalingChart`) says `podIdentity: {provider: aws,
identityOwner: keda}`: KEDA signs its Prometheus queries (service `aps`) with
these credentials.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from aws_cdk import Aws, Fn, Stack
from aws_cdk import aws_aps as aps
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from constructs import Construct

from fastload_constructs.core.errors import require
from fastload_constructs.core.metrics import scrape_config_yaml
from fastload_constructs.core.scaling import Autoscaling, check_autoscaling
from fastload_constructs.infra.model_reader_identity import POD_IDENTITY_SERVICE, trust_conditions

KEDA_CHART_REPOSITORY = "https://kedacore.github.io/charts"
KEDA_CHART_NAME = "keda"
# Pinned: kedacore/charts keda 2.20.2 (Chart.yaml, tag v2.20.2).
KEDA_VERSION = "2.20.2"
KEDA_NAMESPACE = "keda"
KEDA_OPERATOR_SERVICE_ACCOUNT = "keda-operator"
# What a PromQL query over the AMP query API needs (AMP user guide, "IAM permissions").
QUERY_ACTIONS = ("aps:QueryMetrics", "aps:GetLabels", "aps:GetSeries", "aps:GetMetricMetadata")


class ScaleOutMetrics(Construct):
    """AMP workspace + managed scraper of `cluster`'s vLLM, Karpenter and KEDA pods.

    Attributes: `workspace`, `scraper`, `workspace_arn`, `query_endpoint`
    (the Prometheus-compatible base URL, no trailing '/', for KEDA and Grafana), `scrape_config` (YAML).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        subnet_ids: Sequence[str],
        security_group_ids: Sequence[str],
        cluster_label: str,
        vllm_namespaces: Sequence[str] = ("inference",),
        karpenter_namespace: str | None = "kube-system",
        keda_namespace: str | None = KEDA_NAMESPACE,
    ) -> None:
        require(
            not isinstance(subnet_ids, str) and len(subnet_ids) >= 1,
            "subnet_ids",
            subnet_ids,
            "the cluster's subnets (at least one) for the scraper's network interfaces",
        )
        require(
            not isinstance(security_group_ids, str) and 1 <= len(security_group_ids) <= 5,
            "security_group_ids",
            security_group_ids,
            "1 to 5 security groups that can reach the pods (the cluster security group)",
        )
        super().__init__(scope, id)
        self.workspace = aps.CfnWorkspace(self, "Workspace", alias=f"{cluster_label}-fastload")
        self.scrape_config = scrape_config_yaml(
            cluster_label=cluster_label,
            vllm_namespaces=list(vllm_namespaces),
            karpenter_namespace=karpenter_namespace,
            keda_namespace=keda_namespace,
        )
        self.scraper = aps.CfnScraper(
            self,
            "Scraper",
            alias=f"{cluster_label}-fastload",
            source=aps.CfnScraper.SourceProperty(
                eks_configuration=aps.CfnScraper.EksConfigurationProperty(
                    cluster_arn=cluster.cluster_arn,
                    subnet_ids=list(subnet_ids),
                    security_group_ids=list(security_group_ids),
                )
            ),
            destination=aps.CfnScraper.DestinationProperty(
                amp_configuration=aps.CfnScraper.AmpConfigurationProperty(workspace_arn=self.workspace.attr_arn)
            ),
            scrape_configuration=aps.CfnScraper.ScrapeConfigurationProperty(
                configuration_blob=Fn.base64(self.scrape_config)
            ),
        )
        for resource in (self.workspace, self.scraper):
            # cfn-lint E3006: AMP is not offered in the China regions, nor its scraper in GovCloud, which
            # cfn-lint checks because the app targets those partitions. Known and documented (README,
            # "Scale out"): there, run models with minReplicas == maxReplicas (no metrics pipeline).
            resource.cfn_options.metadata = {"cfn-lint": {"config": {"ignore_checks": ["E3006"]}}}
        self.workspace_arn = self.workspace.attr_arn
        # PrometheusEndpoint ends in '/'; KEDA appends '/api/v1/query', so build the base without it
        # (AMP user guide, "Query your Prometheus metrics": aps-workspaces.<region>.<suffix>/workspaces/<id>).
        self.query_endpoint = Fn.join(
            "",
            [
                "https://aps-workspaces.",
                Aws.REGION,
                ".",
                Aws.URL_SUFFIX,
                "/workspaces/",
                self.workspace.attr_workspace_id,
            ],
        )

    def grant_query(self, principal: iam.IGrantable) -> iam.Grant:
        """PromQL reads of this workspace, nothing else."""
        return iam.Grant.add_to_principal(
            grantee=principal, actions=list(QUERY_ACTIONS), resource_arns=[self.workspace_arn]
        )


def keda_values(*, nodegroup_name: str | None) -> dict[str, Any]:
    """Helm values for the `keda` chart 2.20.2 (names checked against its values.yaml in the tests)."""
    values: dict[str, Any] = {
        "prometheus": {"operator": {"enabled": True}},
        "serviceAccount": {"operator": {"create": True, "name": KEDA_OPERATOR_SERVICE_ACCOUNT}},
    }
    if nodegroup_name is not None:
        values["nodeSelector"] = {"kubernetes.io/os": "linux", "eks.amazonaws.com/nodegroup": nodegroup_name}
    return values


class KedaController(Construct):
    """KEDA 2.20.2 on `cluster`, its operator allowed to query `metrics`' workspace through Pod Identity.

    Attributes: `metrics`, `role`, `association`, `chart` (ScaledObjects go on after it), `values`.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        metrics: ScaleOutMetrics,
        system_nodegroup: eks.Nodegroup | None = None,
        version: str = KEDA_VERSION,
    ) -> None:
        super().__init__(scope, id)
        self.metrics = metrics
        principal = iam.SessionTagsPrincipal(iam.ServicePrincipal(POD_IDENTITY_SERVICE)).with_conditions(
            trust_conditions(
                cluster.cluster_name,
                KEDA_NAMESPACE,
                KEDA_OPERATOR_SERVICE_ACCOUNT,
                account=Stack.of(self).account,
                cluster_arn=cluster.cluster_arn,
            )
        )
        self.role = iam.Role(
            self,
            "OperatorRole",
            assumed_by=principal,
            description=f"KEDA operator ({KEDA_NAMESPACE}/{KEDA_OPERATOR_SERVICE_ACCOUNT}): query the AMP workspace",
        )
        grant = metrics.grant_query(self.role)
        self.association = eks.CfnPodIdentityAssociation(
            self,
            "Association",
            cluster_name=cluster.cluster_name,
            namespace=KEDA_NAMESPACE,
            service_account=KEDA_OPERATOR_SERVICE_ACCOUNT,
            role_arn=self.role.role_arn,
        )
        grant.apply_before(self.association)
        self.values = keda_values(
            nodegroup_name=system_nodegroup.nodegroup_name if system_nodegroup is not None else None
        )
        self.chart = eks.HelmChart(
            self,
            "Chart",
            cluster=cluster,
            repository=KEDA_CHART_REPOSITORY,
            chart=KEDA_CHART_NAME,
            version=version,
            release=KEDA_CHART_NAME,
            namespace=KEDA_NAMESPACE,
            create_namespace=True,
            values=self.values,
        )
        self.chart.node.add_dependency(self.association)
        if system_nodegroup is not None:
            self.chart.node.add_dependency(system_nodegroup)


@dataclass(frozen=True)
class KedaScaling:
    """Pod autoscaling of one `ServedModel` by KEDA on a vLLM metric read from managed Prometheus.

    - `controller`: the `KedaController` whose operator signs the queries; the model's ScaledObject is
      applied after its Helm chart (KEDA's CRDs) and reads `controller.metrics.query_endpoint`.
    - `settings`: `core.scaling.Autoscaling` (min/max replicas, metric, target), checked by
      `core.scaling.check_autoscaling`. The HPA behaviour comes from the model's plan
      (`core.scaling.scaling_behavior`).
    """

    controller: KedaController
    settings: Autoscaling

    def __post_init__(self) -> None:
        require(
            isinstance(self.controller, KedaController), "autoscaling.controller", self.controller, "a KedaController"
        )
        require(
            isinstance(self.settings, Autoscaling),
            "autoscaling.settings",
            self.settings,
            "a core.scaling.Autoscaling(min_replicas, max_replicas, target, metric)",
        )
        check_autoscaling(self.settings, "autoscaling.settings")

    @property
    def query_endpoint(self) -> str:
        return self.controller.metrics.query_endpoint

    @property
    def region(self) -> str:
        """The workspace's region (that of the stack holding `ScaleOutMetrics`)."""
        return Stack.of(self.controller.metrics).region
