"""The namespace a stack's models serve in on one cluster, and what they share there: found or created once.

`ServedModel` asks for its namespace (`ServingNamespace.of`), so serving a model takes nothing else:
the Namespace is applied before anything that lives in it, and the in-pod scripts ConfigMap every
model's pods mount (`k8s.RuntimeScriptsChart`) once a first model needs it. Any other chart that
lives in the namespace waits for it the same way (`ServingNamespace.of(...).ready`; FMA's controller
chart, for one).

Who owns what when several stacks serve in one namespace of one cluster:
- the Namespace is the creating stack's: deleting that stack deletes the namespace and everything in
  it. Every other stack declares it `existing=True` before its first model there (a second
  `kubectl create` of the namespace would fail that stack's deploy);
- each stack applies its own scripts ConfigMap (its name carries the stack's address,
  `core.serving.runtime_scripts.shared_scripts_name`), so deleting one stack removes nothing another's
  pods mount.
"""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
from aws_cdk import Stack
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, DependencyGroup, IConstruct, IDependable

from fastload_constructs.core import naming
from fastload_constructs.core.errors import require
from fastload_constructs.core.validation import check_dns_label
from fastload_constructs.infra.applied_chart import AppliedChart, check_cluster
from fastload_constructs.infra.serving_registry import ServingRegistry
from fastload_constructs.k8s.namespace_chart import NamespaceChart
from fastload_constructs.k8s.runtime_scripts import RuntimeScriptsChart


def scripts_owner(scope: IConstruct) -> str:
    """What keys a stack's scripts ConfigMap apart from another stack's in the same namespace."""
    return Stack.of(scope).node.addr[:12]


class ServingNamespace(Construct):
    """`namespace` on `cluster` as this stack's models need it: the Namespace, then the in-pod scripts.

    Made by the first `ServedModel` serving there (`of`); declare one yourself, before that model, only
    to choose its construct id (its namespace manifest is the `Default` child, so a `ServingNamespace`
    declared under the id of an `AppliedChart` of a `NamespaceChart` keeps that chart's logical id) or
    to say the namespace is another's (`existing=True`).

    Props:
    - `cluster`: an aws_eks_v2 `ICluster` with a kubectl provider. Required.
    - `namespace`: the namespace's name, a DNS label. Default: `inference`.
    - `existing`: the namespace is made elsewhere (another stack, your GitOps): this stack neither applies
      nor deletes it. Default: False, this stack applies it.

    Attributes: `cluster`, `namespace`, `namespace_chart` (the `AppliedChart` of its `k8s.NamespaceChart`;
    None when `existing`), `ready` (what a chart in the namespace waits for: the Namespace, or nothing).
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        namespace: str = naming.DEFAULT_NAMESPACE,
        existing: bool = False,
    ) -> None:
        check_dns_label(namespace, "namespace")
        require(isinstance(existing, bool), "existing", existing, "True or False")
        check_cluster(cluster)
        registry = ServingRegistry.of(scope)
        key = _key(cluster, namespace)
        declared = registry.shared(key)
        require(
            declared is None,
            "namespace",
            namespace,
            f"one ServingNamespace per namespace and cluster in a stack: {declared.node.path if declared else ''} "
            "is this one (declare yours before the first ServedModel serving there)",
        )
        super().__init__(scope, id)
        registry.share(key, self)
        self.cluster, self.namespace = cluster, namespace
        self.namespace_chart = (
            None
            if existing
            else AppliedChart(
                self,
                "Default",
                cluster=cluster,
                chart=NamespaceChart(cdk8s.App(), _chart_id(namespace), namespace=namespace),
            )
        )
        self.ready: IDependable = DependencyGroup(*([self.namespace_chart] if self.namespace_chart else []))
        self._scripts: AppliedChart | None = None

    @classmethod
    def of(cls, scope: IConstruct, cluster: eks.ICluster, namespace: str) -> ServingNamespace:
        """`namespace` on `cluster` in `scope`'s stack: the one declared, else one made at the stack's root."""
        found = ServingRegistry.of(scope).shared(_key(cluster, namespace))
        if isinstance(found, ServingNamespace):
            return found
        return cls(
            Stack.of(scope),
            f"FastloadNamespace-{namespace}-{cluster.node.addr[:8]}",
            cluster=cluster,
            namespace=namespace,
        )

    def runtime_scripts(self, *, after: Sequence[IDependable] = ()) -> AppliedChart:
        """The stack's in-pod scripts ConfigMap here, made on first use, after the namespace and `after`."""
        if self._scripts is None:
            stack = Stack.of(self)
            chart = RuntimeScriptsChart(
                cdk8s.App(), f"fastload-runtime-{self.namespace}", namespace=self.namespace, owner=scripts_owner(stack)
            )
            # At the stack's root under an id of its own, whoever declared the namespace: a manifest whose
            # logical id moves is created again, and a second `kubectl create` of the ConfigMap fails.
            self._scripts = AppliedChart(
                stack,
                f"FastloadRuntimeScripts-{self.namespace}-{self.cluster.node.addr[:8]}",
                cluster=self.cluster,
                chart=chart,
                after=[self.ready, *after],
            )
        return self._scripts


def _key(cluster: eks.ICluster, namespace: str) -> tuple[str, ...]:
    return ("namespace", cluster.node.addr, namespace)


def _chart_id(namespace: str) -> str:
    """The chart's id, its file's name in the YAML export: `namespace`, or `namespace-<name>` beside the default."""
    return "namespace" if namespace == naming.DEFAULT_NAMESPACE else f"namespace-{namespace}"
