"""One synthesised stack as CloudFormation would deploy it, and the checks the services will make.

`Deployment(template, env)` resolves every intrinsic first (`resolve.Resolver`), so each
check sees the deploy-time values: the manifests kubectl applies, the values Helm renders,
the trust policies STS evaluates, the names IAM, SQS and EKS accept. Each check returns a
list of problems; an empty list is a stack that gets past these services.

A stack deployed after others (`earlier=`, in deploy order) imports their exports, and what
they applied to the cluster exists when it deploys: its namespaces, service accounts,
PriorityClasses and StorageClasses count for the later stack's references.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

from tests.rehearsal import daemonsets, helm, images, kubernetes, limits, references, snapshots, storage, trust
from tests.rehearsal.environment import Environment
from tests.rehearsal.resolve import Resolver

MANIFEST = "Custom::AWSCDK-EKS-KubernetesResource"
HELM = "Custom::AWSCDK-EKS-HelmChart"
KUBECTL_LAST_APPLIED_MAX = 256 * 1024  # ValidateAnnotations total size; client-side apply stores the object there
# Service accounts EKS add-ons create (their user-guide pages), for Pod Identity associations on add-ons.
ADDON_SERVICE_ACCOUNTS = {
    # https://docs.aws.amazon.com/eks/latest/userguide/ebs-csi.html
    "aws-ebs-csi-driver": ("kube-system", "ebs-csi-controller-sa"),
    # https://docs.aws.amazon.com/eks/latest/userguide/cni-iam-role.html
    "vpc-cni": ("kube-system", "aws-node"),
}
# EKS tags the cluster security group it creates (https://docs.aws.amazon.com/eks/latest/userguide/sec-group-reqs.html).
CLUSTER_SG_TAG = "aws:eks:cluster-name"


class Deployment:
    def __init__(self, template: Mapping[str, Any], env: Environment, *, earlier: Sequence[Deployment] = ()) -> None:
        self.template, self.env, self.earlier = template, env, tuple(earlier)
        imports = {name: value for d in self.earlier for name, value in d.exports().items()}
        self.resolver = Resolver(template, env, imports=imports)

    def exports(self) -> dict[str, Any]:
        """Export name -> value of every output the stack exports: what a later stack imports."""
        outputs = self.template.get("Outputs", {}).values()
        return {
            self.resolver.resolve(o["Export"]["Name"]): self.resolver.resolve(o["Value"])
            for o in outputs
            if "Export" in o
        }

    @cached_property
    def applied_before(self) -> list[tuple[str, dict[str, Any]]]:
        """(stack/logical id, object) of every object the earlier stacks applied."""
        return [(f"{d.env.stack_name}/{lid}", obj) for d in self.earlier for lid, obj in d.manifests]

    @cached_property
    def resources(self) -> dict[str, dict[str, Any]]:
        return self.resolver.resources()

    def of_type(self, kind: str) -> dict[str, dict[str, Any]]:
        return {k: r["Properties"] for k, r in self.resources.items() if r["Type"] == kind}

    def ref(self, logical_id: str) -> Any:
        return self.resolver.ref(logical_id, logical_id)

    def get_att(self, logical_id: str, attribute: str) -> Any:
        return self.resolver.get_att(logical_id, attribute, logical_id)

    @cached_property
    def manifests(self) -> list[tuple[str, dict[str, Any]]]:
        """(logical id, object) for every object applied through kubectl, with deploy-time values."""
        return [(lid, doc) for lid, p in self.of_type(MANIFEST).items() for doc in json.loads(p["Manifest"])]

    @cached_property
    def clusters(self) -> dict[str, str]:
        """Cluster name -> ARN: this stack's clusters, those of the stacks before it, or the cluster an
        imported-cluster stack points at."""
        own = {name: arn for d in self.earlier for name, arn in d.clusters.items()}
        own |= {self.ref(lid): self.get_att(lid, "Arn") for lid in self.of_type("AWS::EKS::Cluster")}
        for props in [*self.of_type(MANIFEST).values(), *self.of_type(HELM).values()]:
            name = props["ClusterName"]
            own.setdefault(name, f"arn:{self.env.partition}:eks:{self.env.region}:{self.env.account}:cluster/{name}")
        return own

    # --- Kubernetes -------------------------------------------------------------------------------------
    def kubernetes_problems(self) -> list[str]:
        problems = []
        for lid, obj in self.manifests:
            problems += kubernetes.kubernetes_object(obj, lid)
            # The kubectl handler creates and updates with client-side `kubectl apply`, which stores the whole
            # object in the last-applied annotation (a CRD's schema is what overflows it in practice).
            size = len(json.dumps(obj, separators=(",", ":")))
            if size > KUBECTL_LAST_APPLIED_MAX:
                fix = (
                    " (install a CRD from a Helm chart's crds/ or with server-side apply)"
                    if obj.get("kind") == ("CustomResourceDefinition")
                    else ""
                )
                problems.append(
                    f"{lid} {obj.get('kind')}/{obj.get('metadata', {}).get('name')}: {size} bytes exceed the "
                    f"256 KiB last-applied annotation of client-side apply{fix}"
                )
        return problems

    def helm_problems(self) -> list[str]:
        return [p for lid, props in self.of_type(HELM).items() for p in helm.check_release(props, lid)]

    # --- IAM trust ----------------------------------------------------------------------------------------
    @cached_property
    def associations(self) -> list[dict[str, str]]:
        """Every Pod Identity association: the resource, and those an add-on declares."""
        found = [
            {
                "id": lid,
                "cluster": p["ClusterName"],
                "namespace": p["Namespace"],
                "sa": p["ServiceAccount"],
                "role": p["RoleArn"],
            }
            for lid, p in self.of_type("AWS::EKS::PodIdentityAssociation").items()
        ]
        for lid, p in self.of_type("AWS::EKS::Addon").items():
            for a in p.get("PodIdentityAssociations", []):
                namespace = ADDON_SERVICE_ACCOUNTS.get(p["AddonName"], ("?", ""))[0]
                found.append(
                    {
                        "id": lid,
                        "cluster": p["ClusterName"],
                        "namespace": namespace,
                        "sa": a["ServiceAccount"],
                        "role": a["RoleArn"],
                    }
                )
        return found

    def trust_problems(self, principals: Mapping[str, trust.Principal] = trust.PRINCIPALS) -> list[str]:
        problems = []
        for lid, props in self.of_type("AWS::IAM::Role").items():
            document, arn = props["AssumeRolePolicyDocument"], self.get_att(lid, "Arn")
            for service in trust.services_of(document):
                if service == "pods.eks.amazonaws.com":
                    own = [a for a in self.associations if a["role"] == arn]
                    if not own:
                        problems.append(
                            f"trust of role {lid}: trusts {service} but no Pod Identity association uses it"
                        )
                    for a in own:
                        caller = self._caller(a["cluster"], namespace=a["namespace"], service_account=a["sa"])
                        problems += trust.check_pod_identity_role(lid, arn, document, caller, principals)
                else:
                    source = next(
                        (c for c, p in self.of_type("AWS::EKS::Cluster").items() if p.get("RoleArn") == arn), None
                    )
                    cluster = self.ref(source) if source else next(iter(self.clusters), "")
                    problems += trust.check_service_role(lid, arn, document, service, self._caller(cluster))
        return problems

    def _caller(self, cluster: str, **pod: str) -> trust.Caller:
        return trust.Caller(
            account=self.env.account, partition=self.env.partition, region=self.env.region, cluster_name=cluster, **pod
        )

    # --- cross-references ----------------------------------------------------------------------------------
    def service_accounts(self) -> set[tuple[str, str]]:
        """(namespace, name) of every ServiceAccount the stack creates: manifests, Helm releases, add-ons."""
        found = {
            (o["metadata"].get("namespace", "default"), o["metadata"]["name"])
            for _, o in self.manifests
            if o.get("kind") == "ServiceAccount"
        }
        for props in self.of_type(HELM).values():
            found |= set(helm.created_service_accounts(props))
        for props in self.of_type("AWS::EKS::Addon").values():
            if props["AddonName"] in ADDON_SERVICE_ACCOUNTS:
                found.add(ADDON_SERVICE_ACCOUNTS[props["AddonName"]])
        for d in self.earlier:
            found |= d.service_accounts()
        return found

    def cross_reference_problems(self) -> list[str]:
        problems = []
        accounts = self.service_accounts()
        for a in self.associations:
            if (a["namespace"], a["sa"]) not in accounts:
                problems.append(
                    f"Pod Identity association {a['id']}: service account {a['namespace']}/{a['sa']} is created by "
                    f"no manifest, Helm release or add-on of this stack"
                )
            if a["cluster"] not in self.clusters:
                problems.append(f"Pod Identity association {a['id']}: cluster {a['cluster']!r} is not this stack's")
        created = {
            p.get("Namespace", "default")
            for d in (self, *self.earlier)
            for p in d.of_type(HELM).values()
            if p.get("CreateNamespace")
        }
        problems += references.problems(
            self.manifests, namespaces=created, service_accounts=accounts, existing=self.applied_before
        )
        for lid, obj in self.manifests:
            if obj.get("kind") == "EC2NodeClass":
                problems += self._node_class_problems(lid, obj)
        for lid, props in self.of_type(HELM).items():
            if props.get("Chart") == "karpenter":
                problems += self._karpenter_settings_problems(lid, helm.values_of(props))
            problems += self._node_selector_problems(lid, props)
        return problems

    def node_labels(self) -> dict[str, dict[str, str]]:
        """Node group logical id -> the labels its nodes carry: its `Labels`, those EKS adds to managed node
        group nodes (https://docs.aws.amazon.com/eks/latest/userguide/managed-node-groups.html:
        eks.amazonaws.com/nodegroup = the node group's name, eks.amazonaws.com/capacityType) and the kubelet's
        well-known kubernetes.io/os (https://kubernetes.io/docs/reference/labels-annotations-taints/)."""
        return {
            lid: {
                **(p.get("Labels") or {}),
                "eks.amazonaws.com/nodegroup": self.get_att(lid, "NodegroupName"),
                "eks.amazonaws.com/capacityType": p.get("CapacityType", "ON_DEMAND"),
                "kubernetes.io/os": "linux",
            }
            for lid, p in self.of_type("AWS::EKS::Nodegroup").items()
        }

    def _node_selector_problems(self, lid: str, props: Mapping[str, Any]) -> list[str]:
        """A controller's nodeSelector (after Helm merges the chart's defaults) must match some managed node
        group of this stack, or its pods stay Pending."""
        spec = helm.chart_spec(props)
        groups = self.node_labels()
        if spec is None or not groups:
            return []
        selector = helm.merged(spec.defaults(), helm.values_of(props)).get("nodeSelector") or {}
        if any(all(labels.get(k) == v for k, v in selector.items()) for labels in groups.values()):
            return []
        return [
            f"{lid}: {props['Chart']} Helm values nodeSelector {selector} matches the labels of no node group "
            f"of this stack ({groups})"
        ]

    def _node_class_problems(self, lid: str, obj: Mapping[str, Any]) -> list[str]:
        where = f"{lid} EC2NodeClass/{obj['metadata']['name']}"
        spec, problems = obj["spec"], []
        roles = {self.ref(r): r for r in self.of_type("AWS::IAM::Role")}
        role = spec.get("role")
        if role not in roles:
            problems.append(f"{where}: spec.role {role!r} is not a role of this stack ({sorted(roles)})")
        else:
            arn = self.get_att(roles[role], "Arn")
            entries = [e for e in self.of_type("AWS::EKS::AccessEntry").values() if e["PrincipalArn"] == arn]
            if not any(e.get("Type") == "EC2_LINUX" for e in entries):
                problems.append(f"{where}: node role {role} has no EC2_LINUX access entry, its nodes cannot join")
        subnets = {
            self.ref(s): {t["Key"]: t["Value"] for t in p.get("Tags", [])}
            for s, p in self.of_type("AWS::EC2::Subnet").items()
        }
        for i, term in enumerate(spec.get("subnetSelectorTerms", [])):
            if not any(_term_matches(term, sid, tags) for sid, tags in subnets.items()):
                problems.append(f"{where}: subnetSelectorTerms[{i}] {term} selects none of this stack's subnets")
        groups = {
            self.get_att(c, "ClusterSecurityGroupId"): {CLUSTER_SG_TAG: self.ref(c)}
            for c in self.of_type("AWS::EKS::Cluster")
        }
        groups |= {
            self.ref(g): {t["Key"]: t["Value"] for t in p.get("Tags", [])}
            for g, p in self.of_type("AWS::EC2::SecurityGroup").items()
        }
        for i, term in enumerate(spec.get("securityGroupSelectorTerms", [])):
            if not any(_term_matches(term, gid, tags) for gid, tags in groups.items()):
                problems.append(f"{where}: securityGroupSelectorTerms[{i}] {term} selects none of this stack's groups")
        return problems

    def _karpenter_settings_problems(self, lid: str, values: Mapping[str, Any]) -> list[str]:
        settings, problems = values.get("settings", {}), []
        if settings.get("clusterName") not in self.clusters:
            problems.append(
                f"{lid}: Karpenter settings.clusterName {settings.get('clusterName')!r} is not this stack's cluster"
            )
        queues = {self.get_att(q, "QueueName") for q in self.of_type("AWS::SQS::Queue")}
        if settings.get("interruptionQueue") and settings["interruptionQueue"] not in queues:
            problems.append(
                f"{lid}: Karpenter settings.interruptionQueue {settings['interruptionQueue']!r} is not a queue here"
            )
        return problems

    # --- DaemonSets against the pools they serve ------------------------------------------------------------
    def pools(self) -> list[daemonsets.Pool]:
        """Every managed node group and Karpenter NodePool of the stack, with the labels and taints of its nodes."""
        labels = self.node_labels()
        found = [
            daemonsets.nodegroup_pool(f"node group {lid}", props, labels[lid])
            for lid, props in self.of_type("AWS::EKS::Nodegroup").items()
        ]
        node_classes = {o["metadata"]["name"]: o for _, o in self.manifests if o.get("kind") == "EC2NodeClass"}
        found += [
            daemonsets.node_pool(f"{lid} NodePool/{o['metadata']['name']}", o, node_classes)
            for lid, o in self.manifests
            if o.get("kind") == "NodePool"
        ]
        return found

    def daemonset_pods(self) -> list[daemonsets.DaemonSetPods]:
        found = [daemonsets.manifest_daemonset(lid, o) for lid, o in self.manifests if o.get("kind") == "DaemonSet"]
        for lid, props in self.of_type(HELM).items():
            spec = helm.chart_spec(props)
            if spec is not None and spec.daemonset:
                rendered = helm.merged(spec.defaults(), helm.values_of(props))
                found.append(daemonsets.helm_daemonset(lid, props["Chart"], rendered))
        return found

    def daemonset_problems(self) -> list[str]:
        """On a cluster of its own the stack installs what its GPU pools need; on an imported cluster the device
        plugin is a documented precondition (docs/existing-cluster.md), so only the tolerations are checked."""
        own_cluster = bool(self.of_type("AWS::EKS::Cluster"))
        return daemonsets.problems(self.daemonset_pods(), self.pools(), need_device_plugin=own_cluster)

    # --- claims against the StorageClasses that exist ---------------------------------------------------------
    def storage_problems(self) -> list[str]:
        claims = storage.manifest_claims(self.manifests)
        for lid, props in self.of_type(HELM).items():
            claims += [
                storage.Claim(f"{lid} ({props['Chart']}) PersistentVolumeClaim/{n}", c)
                for n, c in helm.created_claims(props)
            ]
        addons = [p for d in (self, *self.earlier) for p in d.of_type("AWS::EKS::Addon").values()]
        return storage.problems(claims, storage.classes([*self.manifests, *self.applied_before], addons))

    # --- commands against what their images provide -----------------------------------------------------------
    def containers(self) -> list[tuple[str, dict[str, Any]]]:
        """(where, container) of every init and app container of the pods the stack's manifests make, FMA's
        LauncherConfig pod template included."""
        found = []
        for lid, obj in self.manifests:
            spec = obj.get("spec", {})
            template = spec.get("podTemplate") if obj.get("kind") == "LauncherConfig" else spec.get("template")
            pod = (template or {}).get("spec") or {}
            for kind in ("initContainers", "containers"):
                for c in pod.get(kind, []):
                    found.append((f"{lid} {obj['kind']}/{obj['metadata']['name']} {kind[:-1]} {c['name']}", c))
        return found

    def image_problems(self) -> list[str]:
        return images.problems(self.containers())

    # --- node snapshots against what a node needs before its first pod ----------------------------------------
    def snapshot_pools(self) -> list[snapshots.Pool]:
        """Every pool with the AMI family of its nodes and the snapshots their volumes are restored from."""
        templates = {self.ref(lid): p for lid, p in self.of_type("AWS::EC2::LaunchTemplate").items()}

        def snapshots_of(nodegroup: Mapping[str, Any]) -> tuple[str, ...]:
            data = templates.get(nodegroup.get("LaunchTemplate", {}).get("Id"), {}).get("LaunchTemplateData", {})
            return tuple(
                m["Ebs"]["SnapshotId"]
                for m in data.get("BlockDeviceMappings", [])
                if m.get("Ebs", {}).get("SnapshotId")
            )

        managed = snapshots.nodegroup_pools(self.of_type("AWS::EKS::Nodegroup"), self.node_labels(), snapshots_of)
        return [*snapshots.karpenter_pools(self.manifests), *managed]

    def snapshot_daemonsets(self) -> list[snapshots.DaemonSet]:
        found = [
            snapshots.manifest_daemonset(f"{lid} DaemonSet/{o['metadata']['name']}", o)
            for lid, o in self.manifests
            if o.get("kind") == "DaemonSet"
        ]
        for lid, props in self.of_type(HELM).items():
            spec = helm.chart_spec(props)
            if spec is not None and props.get("Chart") == daemonsets.DEVICE_PLUGIN_CHART:
                rendered = helm.merged(spec.defaults(), helm.values_of(props))
                where = f"{lid} nvidia-device-plugin {props.get('Version')}"
                found.append(snapshots.device_plugin(where, rendered, str(props.get("Version"))))
        return found

    def snapshot_problems(self) -> list[str]:
        """Each snapshot built in this stack holds what the nodes restoring it need before their first pod."""
        built = {
            self.get_att(lid, "SnapshotId"): props for lid, props in self.of_type(snapshots.SNAPSHOT_RESOURCE).items()
        }
        pods = [
            snapshots.placement(f"{lid} {o['kind']}/{o['metadata']['name']}", o["spec"]["template"]["spec"])
            for lid, o in self.manifests
            if o.get("kind") in ("Deployment", "StatefulSet")
        ]
        return snapshots.snapshot_problems(self.snapshot_pools(), built, pods, self.snapshot_daemonsets())

    # --- limits ----------------------------------------------------------------------------------------------
    def limit_problems(self) -> list[str]:
        return limits.check(self.template, self.resources, self.ref)

    def all_problems(self) -> list[str]:
        return [
            *self.kubernetes_problems(),
            *self.helm_problems(),
            *self.trust_problems(),
            *self.cross_reference_problems(),
            *self.daemonset_problems(),
            *self.snapshot_problems(),
            *self.storage_problems(),
            *self.image_problems(),
            *self.limit_problems(),
        ]


def _term_matches(term: Mapping[str, Any], resource_id: str, tags: Mapping[str, str]) -> bool:
    """Karpenter selector terms: `id` equals, or every tag present with the value (`*` any value)."""
    if "id" in term:
        return term["id"] == resource_id
    wanted = term.get("tags", {})
    return bool(wanted) and all(k in tags and v in ("*", tags[k]) for k, v in wanted.items())
