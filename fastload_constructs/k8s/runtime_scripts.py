"""The namespace's in-pod scripts, once: the ConfigMap every model's pods mount (`core/serving/runtime_scripts.py`)."""

from __future__ import annotations

import cdk8s
import cdk8s_plus_28 as kplus
from constructs import Construct

from fastload_constructs.core import naming
from fastload_constructs.core.serving.runtime_scripts import runtime_scripts, shared_scripts_name
from fastload_constructs.core.validation import check_dns_label


class RuntimeScriptsChart(cdk8s.Chart):
    """One ConfigMap, `fastload-runtime-<hash>`, in `namespace`, holding the in-pod scripts, one key per file.

    Charts built with `ServerOptions(shared_runtime_scripts=True)` refer to it by name; `infra.ServingNamespace`
    applies this chart once per stack, cluster and namespace, before the first server that needs it.
    """

    def __init__(
        self, scope: Construct, id: str, *, namespace: str = naming.DEFAULT_NAMESPACE, owner: str = ""
    ) -> None:
        """`owner`: what tells this ConfigMap from another stack's in the same namespace (`shared_scripts_name`)."""
        check_dns_label(namespace, "namespace")
        super().__init__(
            scope,
            id,
            namespace=namespace,
            labels={"app.kubernetes.io/part-of": naming.PART_OF, "app.kubernetes.io/managed-by": naming.MANAGED_BY},
        )
        self.config_map_name = shared_scripts_name(owner)
        self.config_map = kplus.ConfigMap(
            self,
            "Scripts",
            metadata=cdk8s.ApiObjectMetadata(name=self.config_map_name),
            data=runtime_scripts(),
        )
