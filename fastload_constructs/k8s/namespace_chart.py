"""NamespaceChart: the namespace the server charts share, in a chart of its own.

Several ServerCharts live in one namespace; if each created it, removing one
model from the app would delete the namespace under the others. Applied once,
before them (`infra.ServingNamespace` does it for the models of a stack).
"""

from __future__ import annotations

import cdk8s
import cdk8s_plus_28 as kplus
from constructs import Construct

from fastload_constructs.core import naming
from fastload_constructs.core.validation import check_dns_label


class NamespaceChart(cdk8s.Chart):
    """One Namespace with the fastload recommended labels."""

    def __init__(self, scope: Construct, id: str, *, namespace: str = naming.DEFAULT_NAMESPACE) -> None:
        check_dns_label(namespace, "namespace")
        super().__init__(
            scope,
            id,
            labels={
                "app.kubernetes.io/name": namespace,
                "app.kubernetes.io/part-of": naming.PART_OF,
                "app.kubernetes.io/managed-by": naming.MANAGED_BY,
            },
        )
        self.namespace_name = namespace
        self.namespace_object = kplus.Namespace(self, "Namespace", metadata=cdk8s.ApiObjectMetadata(name=namespace))
