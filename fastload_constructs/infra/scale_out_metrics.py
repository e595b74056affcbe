"""vLLM metrics into Amazon Managed Service for Prometheus, and KEDA reading them with SigV4 via Pod Identity.

`ScaleOutMetrics`: an AMP workspace and the EKS managed collector
(`AWS::APS::Scraper`) with `core.scaling.metrics.scrape_config` (vLLM pods, Karpenter,
KEDA), its ENIs in subnets of their own (`scraper_subnets`) and the cluster security group. The
scraper's Kubernetes access: on a cluster whose authentication mode includes
`API` (aws_eks_v2's default), AMP creates the scraper's EKS access entry and
access policy itself when the scraper is created (AMP user guide, "Configure
Amazon EKS for scraper access with access entries"); an access entry made here
for the same role would collide with it, so none is made. A `CONFIG_MAP`-only
cluster needs the manual `aps-collector-role` binding from that page.

`KedaScaling`: what `ServedModel(autoscaling=...)` takes to scale one model
with it: the controller and the model's `core.scaling.autoscaling.Autoscaling`.

`KedaController`: KEDA's Helm chart pinned to 2.20.2, its operator's EKS Pod
Identity role allowed only to query this workspace (`aps:QueryMetrics`,
`GetLabels`, `GetSeries`, `GetMetricMetadata`), and the operator's metrics
port on so the scraper sees KEDA itself. The ScaledObjects' TriggerAuthentication
(`k8s.keda.AutoscalingChart`) says `podIdentity: {provider: aws,
identityOwner: keda}`: KEDA signs its Prometheus queries (service `aps`) with
these credentials.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aws_cdk import Aws, Fn, Stack, Token
from aws_cdk import aws_aps as aps
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sns as sns
from constructs import Construct

from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.scaling.autoscaling import Autoscaling, check_autoscaling
from fastload_constructs.core.scaling.metrics import alert_manager_yaml, alert_rules_yaml, scrape_config_yaml
from fastload_constructs.core.validation import check_dns_label
from fastload_constructs.infra.inference_cluster import SystemNodes
from fastload_constructs.infra.pod_identity_role import PodIdentityRole

KEDA_CHART_REPOSITORY = "https://kedacore.github.io/charts"
KEDA_CHART_NAME = "keda"
# Pinned: kedacore/charts keda 2.20.2 (Chart.yaml, tag v2.20.2).
KEDA_VERSION = "2.20.2"
KEDA_NAMESPACE = "keda"
KEDA_OPERATOR_SERVICE_ACCOUNT = "keda-operator"
# What a PromQL query over the AMP query API needs (AMP user guide, "IAM permissions").
QUERY_ACTIONS = ("aps:QueryMetrics", "aps:GetLabels", "aps:GetSeries", "aps:GetMetricMetadata")


class ScaleOutMetrics(Construct):
    """AMP workspace + managed scraper of `cluster`'s vLLM, Karpenter and KEDA pods, and its alert rules.

    `scraper_subnets`: at least two subnets in two Availability Zones (AMP's CreateScraper refuses
    fewer) that hold nothing else: the vLLM NetworkPolicy admits their CIDRs (`scraper_cidrs`) to
    the server port, so pods in them would be admitted too. `FastloadNetwork` makes such subnets
    (`monitoring_subnets`); imported ones need their `ipv4_cidr_block`.

    `alert_topic`: an SNS topic the workspace's alert manager sends the scale-out alerts to
    (`core.scaling.metrics.alert_rules`: a model's queue metric missing, KEDA query errors). Default: none;
    the alerts still fire and show as the `ALERTS` series in the workspace.

    Attributes: `workspace`, `scraper`, `workspace_arn`, `query_endpoint` (the Prometheus-compatible
    base URL, no trailing '/', for KEDA and Grafana), `scrape_config` (YAML), `scraper_cidrs`,
    `rules` (the `AWS::APS::RuleGroupsNamespace` made by the first `watch_server`, or None).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        scraper_subnets: Sequence[ec2.ISubnet],
        security_group_ids: Sequence[str],
        cluster_label: str,
        vllm_namespaces: Sequence[str] = ("inference",),
        karpenter_namespace: str | None = "kube-system",
        keda_namespace: str | None = KEDA_NAMESPACE,
        alert_topic: sns.ITopic | None = None,
    ) -> None:
        require(
            not isinstance(scraper_subnets, str)
            and all(hasattr(s, "subnet_id") and hasattr(s, "availability_zone") for s in scraper_subnets)
            and len(scraper_subnets) >= 2,
            "scraper_subnets",
            scraper_subnets,
            "at least two ec2.ISubnet in two Availability Zones (AMP CreateScraper), holding no pods",
        )
        zones = {s.availability_zone for s in scraper_subnets}
        require(
            any(Token.is_unresolved(z) for z in zones) or len(zones) >= 2,
            "scraper_subnets",
            sorted(zones),
            "subnets in at least two Availability Zones (AMP CreateScraper)",
        )
        require(
            not isinstance(security_group_ids, str) and 1 <= len(security_group_ids) <= 5,
            "security_group_ids",
            security_group_ids,
            "1 to 5 security groups that can reach the pods (the cluster security group)",
        )
        self.scraper_cidrs = tuple(_subnet_cidr(s, i) for i, s in enumerate(scraper_subnets))
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
                    subnet_ids=[s.subnet_id for s in scraper_subnets],
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
        self._watched: dict[str, str] = {}
        self.vllm_namespaces = tuple(vllm_namespaces)
        self._watched_metrics: dict[str, str] = {}  # servers whose queue metric is not vLLM's
        self._rules_name = f"{cluster_label}-fastload-scale-out"[:64]
        self.rules: aps.CfnRuleGroupsNamespace | None = None  # made by the first watch_server
        self.alert_topic = alert_topic
        if alert_topic is not None:
            self.workspace.alert_manager_definition = alert_manager_yaml(alert_topic.topic_arn, Stack.of(self).region)
            alert_topic.add_to_resource_policy(
                iam.PolicyStatement(
                    actions=["sns:Publish", "sns:GetTopicAttributes"],
                    principals=[iam.ServicePrincipal("aps.amazonaws.com")],
                    resources=[alert_topic.topic_arn],
                    conditions={
                        "StringEquals": {"aws:SourceAccount": Stack.of(self).account},
                        "ArnEquals": {"aws:SourceArn": self.workspace.attr_arn},
                    },
                )
            )
        for resource in (self.workspace, self.scraper):
            _ignore_partition_lint(resource)
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

    def check_scraped(self, namespace: str) -> None:
        """KEDA reads only what the scraper collects: a server in a namespace it does not scrape would never get
        its queue metric (the fallback would hold its replicas forever). Refused at synth."""
        require(
            namespace in self.vllm_namespaces,
            "server.namespace",
            namespace,
            f"a namespace the scraper collects: {', '.join(self.vllm_namespaces)} "
            "(add it with ScaleOutMetrics(vllm_namespaces=[...]))",
        )

    def watch_server(self, server: str, namespace: str, metric: str | None = None) -> None:
        """Alert when this autoscaled server's queue metric (default vLLM's) goes missing (`ServedModel` calls it)."""
        self.check_scraped(namespace)
        self._watched[check_dns_label(server, "server")] = check_dns_label(namespace, "namespace")
        if metric is not None:
            self._watched_metrics[server] = metric
        if self.rules is None:
            self.rules = aps.CfnRuleGroupsNamespace(
                self, "AlertRules", name=self._rules_name, workspace=self.workspace.attr_arn, data="groups: []"
            )
            _ignore_partition_lint(self.rules)
        self.rules.data = alert_rules_yaml(self._watched, self._watched_metrics)

    def grant_query(self, principal: iam.IGrantable) -> iam.Grant:
        """PromQL reads of this workspace, nothing else."""
        return iam.Grant.add_to_principal(
            grantee=principal, actions=list(QUERY_ACTIONS), resource_arns=[self.workspace_arn]
        )


def keda_values(*, node_selector: Mapping[str, str] | None) -> dict[str, Any]:
    """Helm values for the `keda` chart 2.20.2 (names checked against its values.yaml in the tests)."""
    values: dict[str, Any] = {
        "prometheus": {"operator": {"enabled": True}},
        "serviceAccount": {"operator": {"create": True, "name": KEDA_OPERATOR_SERVICE_ACCOUNT}},
    }
    if node_selector is not None:
        values["nodeSelector"] = {"kubernetes.io/os": "linux", **node_selector}
    return values


class KedaController(Construct):
    """KEDA 2.20.2 on `cluster`, its operator allowed to query `metrics`' workspace through Pod Identity.

    `system_nodes`: where KEDA's pods run (`InferenceCluster.system_nodes`). Default: anywhere.

    Attributes: `metrics`, `identity` (`PodIdentityRole`), `role`, `association`, `chart`
    (ScaledObjects go on after it), `values`.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        metrics: ScaleOutMetrics,
        system_nodes: SystemNodes | None = None,
        version: str = KEDA_VERSION,
    ) -> None:
        super().__init__(scope, id)
        self.metrics = metrics
        self.identity = PodIdentityRole(
            self,
            "Operator",
            cluster=cluster,
            namespace=KEDA_NAMESPACE,
            service_account=KEDA_OPERATOR_SERVICE_ACCOUNT,
            description=f"KEDA operator ({KEDA_NAMESPACE}/{KEDA_OPERATOR_SERVICE_ACCOUNT}): query the AMP workspace",
        )
        self.role = self.identity.role
        self.association = self.identity.association
        metrics.grant_query(self.identity)
        self.values = keda_values(node_selector=system_nodes.node_selector if system_nodes is not None else None)
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
        # Credentials (association, its grant, the Pod Identity agent) before the operator starts.
        self.chart.node.add_dependency(self.identity.ready)
        if system_nodes is not None and system_nodes.nodegroup is not None:
            self.chart.node.add_dependency(system_nodes.nodegroup)


@dataclass(frozen=True)
class KedaScaling:
    """Pod autoscaling of one `ServedModel` by KEDA on a vLLM metric read from managed Prometheus.

    - `controller`: the `KedaController` whose operator signs the queries; the model's ScaledObject is
      applied after its Helm chart (KEDA's CRDs) and reads `controller.metrics.query_endpoint`.
    - `settings`: `core.scaling.autoscaling.Autoscaling` (min/max replicas, metric, target), checked by
      `core.scaling.autoscaling.check_autoscaling`. The HPA behaviour comes from the model's plan
      (`core.scaling.autoscaling.scaling_behavior`).
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
            "a core.scaling.autoscaling.Autoscaling(min_replicas, max_replicas, target, metric)",
        )
        check_autoscaling(self.settings, "autoscaling.settings")

    @property
    def query_endpoint(self) -> str:
        return self.controller.metrics.query_endpoint

    @property
    def region(self) -> str:
        """The workspace's region (that of the stack holding `ScaleOutMetrics`)."""
        return Stack.of(self.controller.metrics).region


def _subnet_cidr(subnet: ec2.ISubnet, index: int) -> str:
    try:
        return subnet.ipv4_cidr_block
    except RuntimeError:  # jsii: an imported subnet without ipv4CidrBlock
        raise FastloadConfigError(
            f"scraper_subnets[{index}].ipv4_cidr_block",
            subnet.subnet_id,
            "subnets imported with their CIDR blocks (the vLLM NetworkPolicy admits exactly those)",
        ) from None


def _ignore_partition_lint(resource: Any) -> None:
    """cfn-lint E3006: AMP is not offered in the China regions, nor its scraper in GovCloud, which cfn-lint
    checks because the app targets those partitions. Known and documented (README, "Scale out"): there,
    run models with minReplicas == maxReplicas (no metrics pipeline)."""
    resource.cfn_options.metadata = {"cfn-lint": {"config": {"ignore_checks": ["E3006"]}}}
