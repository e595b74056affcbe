"""Karpenter on a cluster: the controller (`KarpenterController`) and the GPU nodes it launches (`KarpenterGpuNodes`).

The decisions are in `core.cluster.karpenter` (NodePool and EC2NodeClass specs, the
controller's IAM policy); `k8s.karpenter` is the chart that emits the pools.

`KarpenterController` is what Karpenter's getting-started guide for v1.14 provisions
by hand, as one construct:

* the `karpenter-crd` chart, then the `karpenter` chart with `skipCrds`, both
  from Karpenter's OCI registry `oci://public.ecr.aws/karpenter`, pinned to
  1.14.1. Separate CRD chart because Helm never upgrades CRDs of a chart's
  `crds/` folder (Karpenter docs, "Upgrading"); NodePools and EC2NodeClasses
  go on only after both (`chart` is what `KarpenterGpuNodes(after=...)` waits for);
* the controller's IAM role for EKS Pod Identity (trusted only for this
  cluster's `kube-system/karpenter` service account) with Karpenter's policy,
  scoped to this cluster's tags, node role and queue;
* the SQS interruption queue (SQS-managed SSE, TLS only, 5-minute retention)
  and EventBridge rules for spot interruption, rebalance recommendation,
  instance state change, scheduled (AWS Health) change and capacity
  reservation interruption; the queue policy admits only EventBridge, only
  from those rules;
* `karpenter.sh/discovery=<cluster>` tags on the GPU subnets passed in (tags
  on imported subnets are not applied: tag those yourself);
* the controller pinned to the system nodes (`system_nodes`, selected by a label
  of ours), where it never runs on capacity it manages; `AWS_REGION` set and
  upstream's resource requests; the chart waits for the node role's access
  entry holder (`node_role`), the Pod Identity association and agent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import cdk8s
from aws_cdk import Aws, Duration, Stack, Tags, Token
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sqs as sqs
from constructs import Construct, IDependable

from fastload_constructs.core.cluster.karpenter import (
    DISCOVERY_TAG,
    FEATURE_GATE_CAPACITY_BUFFER,
    NodePoolOptions,
    plan_node_pools,
)
from fastload_constructs.core.cluster.karpenter_controller import (
    INTERRUPTION_EVENTS,
    INTERRUPTION_QUEUE_RETENTION_S,
    KARPENTER_VERSION,
    POLICY_GROUPS,
    controller_policy_statements,
    kms_statements,
)
from fastload_constructs.core.errors import require, whole_number_in
from fastload_constructs.core.validation import check_dns_label
from fastload_constructs.infra.applied_chart import AppliedChart
from fastload_constructs.infra.checkov_findings import skip_checks
from fastload_constructs.infra.inference_cluster import SystemNodes
from fastload_constructs.infra.nag_findings import (
    EKS_NODE_POLICY_REASONS,
    acknowledge,
    acknowledge_managed_policies,
    flatten,
)
from fastload_constructs.infra.pod_identity_role import PodIdentityRole
from fastload_constructs.k8s.karpenter import KarpenterGpuNodePools

CHART_REGISTRY = "oci://public.ecr.aws/karpenter"
CHART_NAME = "karpenter"
CRD_CHART_NAME = "karpenter-crd"
DEFAULT_NAMESPACE = "kube-system"
SERVICE_ACCOUNT = "karpenter"
# Upstream's getting-started values (karpenter.sh v1.14 "Getting Started with Karpenter", the
# `helm upgrade --install` step): 1 CPU and 1 Gi requested and limited per controller replica.
CONTROLLER_RESOURCES = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}


def karpenter_values(
    *,
    cluster_name: str,
    interruption_queue: str,
    region: str,
    node_selector: Mapping[str, str] | None,
    replicas: int = 2,
    feature_gates: Mapping[str, bool] | None = None,
) -> dict[str, Any]:
    """Helm values for the `karpenter` chart 1.14.1 (names checked against its values.yaml in the tests).

    `controller.env` AWS_REGION: the controller's SDK would otherwise ask IMDS for its region, which
    the nodes' hop limit of 1 keeps from pods. `node_selector`: the system nodes (`SystemNodes`).
    `feature_gates`: `settings.featureGates` to turn on (`capacityBuffer`, `staticCapacity`: alpha gates,
    off in the chart by default).
    """
    settings: dict[str, Any] = {"clusterName": cluster_name, "interruptionQueue": interruption_queue}
    if feature_gates:
        settings["featureGates"] = dict(feature_gates)
    values: dict[str, Any] = {
        "settings": settings,
        "serviceAccount": {"create": True, "name": SERVICE_ACCOUNT},
        "replicas": replicas,
        "controller": {"env": [{"name": "AWS_REGION", "value": region}], "resources": CONTROLLER_RESOURCES},
    }
    if node_selector is not None:
        values["nodeSelector"] = {"kubernetes.io/os": "linux", **node_selector}
    return values


class KarpenterController(Construct):
    """Karpenter 1.14.1 for `cluster`, able to launch nodes with `node_role` into tagged `subnets`.

    `cluster_name` must be a literal (Karpenter's policy puts it in condition
    keys); pass it when `cluster.cluster_name` is a token. `node_role`: the role
    its nodes get; default: one created here with the EKS worker policies.
    Add GPU node pools with `add_gpu_node_pools`, which orders them after the
    controller's charts and gives them its node role.

    `capacity_buffers`: turn on Karpenter's CapacityBuffer feature gate (alpha in 1.14), for buffered nodes
    (`k8s.capacity_buffer.CapacityBufferChart`). Customer-managed KMS keys of node volumes or the image snapshot:
    `grant_volume_key`.

    Attributes: `role` (controller role), `association`, `node_role`, `queue`,
    `rules` (event name -> Rule), `crd_chart`, `chart`, `cluster_name`.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        node_role: iam.IRole | None = None,
        subnets: Sequence[ec2.ISubnet] = (),
        cluster_name: str | None = None,
        system_nodes: SystemNodes | None = None,
        namespace: str = DEFAULT_NAMESPACE,
        version: str = KARPENTER_VERSION,
        replicas: int = 2,
        capacity_buffers: bool = False,
    ) -> None:
        name = cluster_name if cluster_name is not None else cluster.cluster_name
        require(
            isinstance(name, str) and not Token.is_unresolved(name) and name != "",
            "cluster_name",
            name,
            "a literal EKS cluster name (Karpenter's IAM policy uses it in condition keys): "
            "name the cluster (InferenceCluster(cluster_name=...)) or pass cluster_name=",
        )
        whole_number_in(replicas, "replicas", 1, 3)
        super().__init__(scope, id)
        self.cluster_name = name
        self._cluster = cluster
        self.node_role = node_role if node_role is not None else karpenter_node_role(self, "NodeRole")

        self.queue = sqs.Queue(
            self,
            "InterruptionQueue",
            retention_period=Duration.seconds(INTERRUPTION_QUEUE_RETENTION_S),
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
        )
        acknowledge(
            self.queue,
            "AwsSolutions-SQS3",
            "interruption notices are worth acting on for two minutes only; a dead-letter queue would only "
            "collect stale warnings, which Karpenter's template does not keep either",
        )
        skip_checks(
            self.queue,
            {
                "CKV_AWS_27": "encrypted at rest with SSE-SQS (SqsManagedSseEnabled), as in Karpenter's own "
                "CloudFormation template; checkov reads only KmsMasterKeyId, and a customer managed key would "
                "also need a key policy for EventBridge to deliver"
            },
            resource_type="AWS::SQS::Queue",
        )
        self.rules: dict[str, events.Rule] = {}
        for event, (source, detail_type) in INTERRUPTION_EVENTS.items():
            rule = events.Rule(
                self,
                f"{event}Rule",
                event_pattern=events.EventPattern(source=[source], detail_type=[detail_type]),
            )
            rule.add_target(targets.SqsQueue(self.queue))
            self.rules[event] = rule

        for subnet in subnets:
            Tags.of(subnet).add(DISCOVERY_TAG, name)

        self.identity = PodIdentityRole(
            self,
            "Controller",
            cluster=cluster,
            namespace=namespace,
            service_account=SERVICE_ACCOUNT,
            description=f"Karpenter controller of EKS cluster {name} ({namespace}/{SERVICE_ACCOUNT})",
        )
        self.role = self.identity.role
        statements = controller_policy_statements(
            cluster_name=name,
            partition=Aws.PARTITION,
            region=Aws.REGION,
            account=Aws.ACCOUNT_ID,
            node_role_arn=self.node_role.role_arn,
            interruption_queue_arn=self.queue.queue_arn,
        )
        by_sid = {s["Sid"]: s for s in statements}
        self.policies: dict[str, iam.ManagedPolicy] = {}
        for group, sids in POLICY_GROUPS.items():
            self.policies[group] = iam.ManagedPolicy(
                self,
                f"{group}Policy",
                roles=[self.role],
                statements=[iam.PolicyStatement.from_json(by_sid[sid]) for sid in sids],
            )
            self._acknowledge_wildcards(self.policies[group], [by_sid[sid] for sid in sids])

        assert self.identity.association is not None
        self.association = self.identity.association
        for policy in self.policies.values():
            self.association.node.add_dependency(policy)
        chart_options: dict[str, Any] = {
            "cluster": cluster,
            "repository": f"{CHART_REGISTRY}/{CRD_CHART_NAME}",
            "chart": CRD_CHART_NAME,
            "version": version,
            "namespace": namespace,
        }
        self.crd_chart = eks.HelmChart(self, "CrdChart", release=CRD_CHART_NAME, **chart_options)
        self.values = karpenter_values(
            cluster_name=name,
            interruption_queue=self.queue.queue_name,
            region=Stack.of(self).region,
            node_selector=system_nodes.node_selector if system_nodes is not None else None,
            replicas=replicas,
            feature_gates={FEATURE_GATE_CAPACITY_BUFFER: True} if capacity_buffers else None,
        )
        self.chart = eks.HelmChart(
            self,
            "Chart",
            **{**chart_options, "repository": f"{CHART_REGISTRY}/{CHART_NAME}", "chart": CHART_NAME},
            release=CHART_NAME,
            # aws-cdk-lib 2.275's eks-v2 kubectl handler reads SkipCrds but never passes --skip-crds to
            # helm; harmless here, since Helm leaves CRDs from a chart's crds/ folder alone when they
            # exist, and karpenter-crd (applied first) has created them.
            skip_crds=True,
            values=self.values,
        )
        self.chart.node.add_dependency(self.crd_chart)
        # Credentials (association, its policies, the Pod Identity agent) must exist when the pods start.
        self.chart.node.add_dependency(self.identity.ready)
        for policy in self.policies.values():
            self.chart.node.add_dependency(policy)
        if system_nodes is not None and system_nodes.nodegroup is not None:
            self.chart.node.add_dependency(system_nodes.nodegroup)

    def grant_volume_key(self, key: kms.IKey) -> iam.Policy:
        """Let the controller launch nodes whose volumes use `key` (a customer-managed key on the image
        snapshot or the node volumes): `core.cluster.karpenter_controller.kms_statements`."""
        statements = kms_statements(key_arn=key.key_arn, region=Aws.REGION, url_suffix=Aws.URL_SUFFIX)
        policy = iam.Policy(
            self,
            f"VolumeKey{len([c for c in self.node.children if isinstance(c, iam.Policy)])}",
            roles=[self.role],
            statements=[iam.PolicyStatement.from_json(s) for s in statements],
        )
        self.chart.node.add_dependency(policy)
        return policy

    def add_gpu_node_pools(
        self,
        id: str,
        *,
        instance_types: Sequence[str],
        name: str = "fastload-gpu",
        options: NodePoolOptions | None = None,
        security_group_ids: Sequence[str] = (),
        kms_key: kms.IKey | None = None,
    ) -> KarpenterGpuNodes:
        """NodePools and an EC2NodeClass for `instance_types` (`KarpenterGpuNodes`), with this controller's
        node role, applied after its Helm charts (they define the NodePool and EC2NodeClass kinds).
        `kms_key`: the customer-managed key of the image snapshot or the node volumes (`grant_volume_key`)."""
        if kms_key is not None:
            self.grant_volume_key(kms_key)
        return KarpenterGpuNodes(
            self,
            id,
            cluster=self._cluster,
            cluster_name=self.cluster_name,
            instance_types=instance_types,
            name=name,
            options=options,
            security_group_ids=security_group_ids,
            node_role=self.node_role,
            after=[self.chart],
        )

    def _acknowledge_wildcards(self, policy: iam.ManagedPolicy, statements: list[dict[str, Any]]) -> None:
        """IAM5 for each documented `*` resource, with why it cannot be narrower."""
        stack = Stack.of(self)
        for statement in statements:
            resources = statement["Resource"] if isinstance(statement["Resource"], list) else [statement["Resource"]]
            scoped = "Condition" in statement
            for resource in resources:
                flat = flatten(stack.resolve(resource))
                if "*" not in flat:
                    continue
                reason = (
                    f"Karpenter's documented policy ({statement['Sid']}): names of instances, fleets, launch "
                    "templates, volumes and instance profiles are chosen by Karpenter at run time"
                    + ("; the statement is limited to this cluster by tag conditions" if scoped else "")
                    if flat != "*"
                    else f"Karpenter's documented policy ({statement['Sid']}): these read-only EC2, pricing and "
                    "IAM list actions do not support resource-level permissions"
                    + ("; limited by condition" if scoped else "")
                )
                acknowledge(policy, f"AwsSolutions-IAM5[Resource::{flat}]", reason)


# ------------------------------------------------------------------------------------------------
# Karpenter GPU nodes on a cluster: the node role, its access entry and the node pools.

NODE_MANAGED_POLICIES = (
    "AmazonEKSWorkerNodePolicy",
    "AmazonEKS_CNI_Policy",
    "AmazonEC2ContainerRegistryPullOnly",
    "AmazonSSMManagedInstanceCore",
)


class KarpenterGpuNodes(Construct):
    """Node role + EC2_LINUX access entry + NodePool/EC2NodeClass manifests for `cluster`.

    `name` names the EC2NodeClass; NodePools are `<name>-<family>`. `options`
    (`NodePoolOptions`: capacity types, instance store, root volume, AMI alias,
    GPU limit, each default documented there) default to `NodePoolOptions()`.

    Attributes: `node_role`, `access_entry`, `chart` (KarpenterGpuNodePools), `manifest`.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        instance_types: Sequence[str],
        name: str = "fastload-gpu",
        options: NodePoolOptions | None = None,
        security_group_ids: Sequence[str] = (),
        node_role: iam.IRole | None = None,
        cluster_name: str | None = None,
        after: Sequence[IDependable] = (),
    ) -> None:
        """`cluster_name`: the value the subnets' `karpenter.sh/discovery` tag has (default: the cluster's name).
        `security_group_ids`: the nodes' security groups (default: selected by that discovery tag)."""
        check_dns_label(name, "name")
        opts = options if options is not None else NodePoolOptions()
        plan_node_pools(instance_types, opts)
        super().__init__(scope, id)
        self.node_role = node_role if node_role is not None else karpenter_node_role(self, "NodeRole")
        self.chart = KarpenterGpuNodePools(
            cdk8s.App(),
            name,
            cluster_name=cluster_name if cluster_name is not None else cluster.cluster_name,
            node_role=self.node_role.role_name,
            instance_types=instance_types,
            options=opts,
            security_group_ids=security_group_ids,
        )
        self.access_entry = eks.AccessEntry(
            self,
            "NodeAccess",
            cluster=cluster,
            principal=self.node_role.role_arn,
            access_entry_type=eks.AccessEntryType.EC2_LINUX,
            access_policies=[],
        )
        # An AppliedChart, so a ManifestExport of the stack writes the node pools too. After the node
        # role's access entry: a node Karpenter launches for a pool joins only with that entry.
        self.applied = AppliedChart(
            self, "Manifests", cluster=cluster, chart=self.chart, after=[self.access_entry, *after]
        )
        self.manifest = self.applied.manifest


def karpenter_node_role(scope: Construct, id: str) -> iam.Role:
    """The role of the nodes Karpenter launches: the EKS worker, CNI, ECR pull and SSM managed policies."""
    role = iam.Role(
        scope,
        id,
        assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"),
        managed_policies=[iam.ManagedPolicy.from_aws_managed_policy_name(n) for n in NODE_MANAGED_POLICIES],
    )
    acknowledge_managed_policies(role, EKS_NODE_POLICY_REASONS)
    return role
