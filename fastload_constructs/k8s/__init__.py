"""cdk8s charts (cdk8s-plus-28) that turn a ServingPlan into Kubernetes objects. Charts only:
the values they apply are decided in `fastload_constructs.core`.

    from fastload_constructs.k8s import ServerChart, NamespaceChart
"""

from fastload_constructs.jsii_node import use_packaged_node

use_packaged_node()  # before cdk8s starts its jsii runtime

from fastload_constructs.k8s.karpenter import KarpenterGpuNodePools  # noqa: E402
from fastload_constructs.k8s.local_storage import LocalNvmeStorage  # noqa: E402
from fastload_constructs.k8s.namespace_chart import NamespaceChart  # noqa: E402
from fastload_constructs.k8s.runtime_scripts import RuntimeScriptsChart  # noqa: E402
from fastload_constructs.k8s.server_chart import ServerChart  # noqa: E402
from fastload_constructs.k8s.standby import StandbyEnginesChart, StandbyNodePoolChart  # noqa: E402
from fastload_constructs.k8s.warm_spares import PriorityClassesChart, WarmSparesChart  # noqa: E402

__all__ = [
    "KarpenterGpuNodePools",
    "LocalNvmeStorage",
    "NamespaceChart",
    "PriorityClassesChart",
    "RuntimeScriptsChart",
    "ServerChart",
    "StandbyEnginesChart",
    "StandbyNodePoolChart",
    "WarmSparesChart",
]
