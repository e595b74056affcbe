"""The PriorityClasses a cluster's served pods name: found or created once per stack and cluster.

A model with warm spares names both classes (its server `fastload-vllm`, its spares
`fastload-warm-spare`), and admission refuses a pod whose class does not exist yet: the first
`ServedModel` whose pods name one applies `k8s.PriorityClassesChart` here, and every such model waits
for it. The classes are cluster-scoped and their names fixed, so one stack owns them: deleting it
deletes them. Any other stack serving on that cluster declares them `existing=True` before its first
model that names one.
"""

from __future__ import annotations

import cdk8s
from aws_cdk import Stack
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, DependencyGroup, IConstruct, IDependable

from fastload_constructs.core.errors import require
from fastload_constructs.core.naming import SERVER_PRIORITY_CLASS, SPARE_PRIORITY_CLASS
from fastload_constructs.core.serving.warm_spares import PriorityClasses, priority_classes
from fastload_constructs.infra.applied_chart import AppliedChart, check_cluster
from fastload_constructs.infra.serving_registry import ServingRegistry
from fastload_constructs.k8s.warm_spares import PriorityClassesChart

# The classes' names: a pod that names one waits for them.
CLASS_NAMES = frozenset({SERVER_PRIORITY_CLASS, SPARE_PRIORITY_CLASS})


class ServingPriorityClasses(Construct):
    """The server's and the warm spares' PriorityClasses on `cluster`, as this stack's models need them.

    Made by the first `ServedModel` whose pods name one (`of`); declare it yourself, before that model,
    only to choose its construct id (its manifest is the `Default` child, so declared under the id of an
    `AppliedChart` of a `PriorityClassesChart` it keeps that chart's logical id) or to say the classes
    are another stack's (`existing=True`).

    Props:
    - `cluster`: an aws_eks_v2 `ICluster` with a kubectl provider. Required.
    - `existing`: the classes are applied elsewhere: this stack neither applies nor deletes them.
      Default: False, this stack applies them.

    Attributes: `cluster`, `classes` (`core.serving.warm_spares.PriorityClasses`: the names and values),
    `classes_chart` (the `AppliedChart` of its `k8s.PriorityClassesChart`; None when `existing`), `ready`.
    """

    def __init__(self, scope: Construct, id: str, *, cluster: eks.ICluster, existing: bool = False) -> None:
        require(isinstance(existing, bool), "existing", existing, "True or False")
        check_cluster(cluster)
        registry = ServingRegistry.of(scope)
        key = _key(cluster)
        declared = registry.shared(key)
        require(
            declared is None,
            "cluster",
            cluster.node.path,
            f"one ServingPriorityClasses per cluster in a stack: {declared.node.path if declared else ''} "
            "is this one (declare yours before the first ServedModel whose pods name a class)",
        )
        super().__init__(scope, id)
        registry.share(key, self)
        self.cluster = cluster
        self.classes: PriorityClasses = priority_classes()
        self.classes_chart = (
            None
            if existing
            else AppliedChart(
                self, "Default", cluster=cluster, chart=PriorityClassesChart(cdk8s.App(), "priority-classes")
            )
        )
        self.ready: IDependable = DependencyGroup(*([self.classes_chart] if self.classes_chart else []))

    @classmethod
    def of(cls, scope: IConstruct, cluster: eks.ICluster) -> ServingPriorityClasses:
        """The classes of `cluster` in `scope`'s stack: the ones declared, else ones made at the stack's root."""
        found = ServingRegistry.of(scope).shared(_key(cluster))
        if isinstance(found, ServingPriorityClasses):
            return found
        return cls(Stack.of(scope), f"FastloadPriorityClasses-{cluster.node.addr[:8]}", cluster=cluster)


def _key(cluster: eks.ICluster) -> tuple[str, ...]:
    return ("priority-classes", cluster.node.addr)
