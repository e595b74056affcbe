"""`CapacityBufferChart`: a PodTemplate of one model's pod shape and the Karpenter CapacityBuffer holding room for it.

The decisions are `core.serving.capacity_buffer`'s; the CapacityBuffer is rendered through the class
`cdk8s import` generated from Karpenter v1.14.1's CRD (`k8s.imports.karpenter`), the PodTemplate through
cdk8s-plus-28's Kubernetes classes. Karpenter's controller must run with its CapacityBuffer feature gate
(`KarpenterController(capacity_buffers=True)`), and the buffered pods' nodes come from its GPU NodePools.
"""

from __future__ import annotations

import cdk8s
from cdk8s_plus_28 import k8s
from constructs import Construct

from fastload_constructs.core.naming import MANAGED_BY, PART_OF
from fastload_constructs.core.serving.capacity_buffer import BufferedPod
from fastload_constructs.core.serving.checkov_skips import Workload, skip_annotations, workload_skips
from fastload_constructs.core.serving.pod_template import SecurityContext
from fastload_constructs.k8s.imports.karpenter.io.x_k8s import autoscaling
from fastload_constructs.k8s.karpenter import capacity_buffer_props
from fastload_constructs.k8s.kube_pod_template import RUNTIME_DEFAULT, security_context


class CapacityBufferChart(cdk8s.Chart):
    """PodTemplate and CapacityBuffer `<pod.name>` in the model's namespace. Attributes: `pod_template`, `buffer`."""

    def __init__(self, scope: Construct, id: str, *, pod: BufferedPod) -> None:
        super().__init__(
            scope,
            id,
            namespace=pod.namespace,
            labels={**pod.labels, "app.kubernetes.io/part-of": PART_OF, "app.kubernetes.io/managed-by": MANAGED_BY},
        )
        requests = {k: k8s.Quantity.from_string(v) for k, v in pod.requests.items()}
        terms = [
            k8s.NodeSelectorRequirement(key=key, operator="In", values=[value])
            for key, value in sorted(pod.node_labels.items())
        ]
        self.pod_template = k8s.KubePodTemplate(
            self,
            "PodTemplate",
            metadata=k8s.ObjectMeta(
                name=pod.name,
                annotations=skip_annotations(workload_skips(Workload.CAPACITY_BUFFER, [pod.image])),
            ),
            template=k8s.PodTemplateSpec(
                metadata=k8s.ObjectMeta(labels=dict(pod.labels)),
                spec=k8s.PodSpec(
                    # Never created: Karpenter only simulates these pods, so nothing here is pulled or run. The
                    # security context is the server pod's all the same: Pod Security Admission audits and warns
                    # on PodTemplates too (k8s.io/pod-security-admission admission.go, defaultPodSpecResources).
                    security_context=k8s.PodSecurityContext(seccomp_profile=k8s.SeccompProfile(type=RUNTIME_DEFAULT)),
                    containers=[
                        k8s.Container(
                            name="buffer",
                            image=pod.image,
                            resources=k8s.ResourceRequirements(requests=requests, limits=requests),
                            security_context=security_context(SecurityContext()),
                        )
                    ],
                    affinity=k8s.Affinity(
                        node_affinity=k8s.NodeAffinity(
                            required_during_scheduling_ignored_during_execution=k8s.NodeSelector(
                                node_selector_terms=[k8s.NodeSelectorTerm(match_expressions=terms)]
                            )
                        )
                    ),
                    tolerations=[
                        k8s.Toleration(
                            key=pod.toleration.key,
                            operator="Equal",
                            value=pod.toleration.value,
                            effect=pod.toleration.effect,
                        )
                    ],
                ),
            ),
        )
        self.buffer = autoscaling.CapacityBuffer(
            self,
            "CapacityBuffer",
            metadata=cdk8s.ApiObjectMetadata(name=pod.name),
            spec=capacity_buffer_props(pod.buffer),
        )
