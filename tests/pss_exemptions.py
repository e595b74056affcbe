"""The workloads this library emits that do not meet Pod Security "baseline", and why.

Every other workload must meet baseline (`pod_security.baseline_violations` is
empty). An exemption names the object (kind, namespace, a label), the controls
it may break, and a text every finding must contain, so it never excuses a
finding it was not written for. Enforce it per namespace with Pod Security
Admission labels (`pod-security.kubernetes.io/enforce`): the exempt workloads
run in namespaces of their own, never in the vLLM namespace.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.naming import PROVISIONER_NAME, node_cache_paths
from tests.pod_security import baseline_violations, control_of


@dataclass(frozen=True)
class Exemption:
    kind: str
    namespace: str | None  # None: any namespace
    label: tuple[str, str]  # (key, value) the workload's metadata carries
    controls: frozenset[str]
    must_contain: str  # every exempted finding contains this text
    reason: str

    def covers(self, manifest: Mapping[str, Any], finding: str) -> bool:
        metadata = manifest.get("metadata") or {}
        key, value = self.label
        return (
            manifest.get("kind") == self.kind
            and (self.namespace is None or metadata.get("namespace") == self.namespace)
            and (metadata.get("labels") or {}).get(key) == value
            and control_of(finding) in self.controls
            and self.must_contain in finding
        )


EXEMPTIONS: tuple[Exemption, ...] = (
    Exemption(
        kind="DaemonSet",
        namespace="kube-system",
        label=("app.kubernetes.io/name", PROVISIONER_NAME),
        controls=frozenset({"privileged", "hostPathVolumes"}),
        must_contain="",
        reason="node-level storage system component (k8s.local_storage): it bind-mounts directories of the "
        "instance-store RAID0 array on the host (mount needs a privileged container and Bidirectional "
        "propagation) and turns the host directories it finds through hostPath into local PersistentVolumes; "
        "it runs only in kube-system, which EKS does not enforce Pod Security on",
    ),
    Exemption(
        kind="Deployment",
        namespace=None,
        label=("app.kubernetes.io/name", "vllm"),
        controls=frozenset({"hostPathVolumes"}),
        must_contain=f"'compile-cache' mounts host path {node_cache_paths('bottlerocket').compile_cache}/",
        reason="compile_cache='host-path' keeps vLLM's torch.compile cache in a keyed directory on the node's "
        "instance store so restarts and replicas on that node hit it; the vLLM chart's compile_cache='pvc' "
        "(a local-nvme PersistentVolumeClaim) or 'empty-dir' meets baseline instead",
    ),
    Exemption(
        kind="Deployment",
        namespace=None,
        label=("app.kubernetes.io/name", "vllm"),
        controls=frozenset({"hostPathVolumes"}),
        must_contain=f"'model-cache' mounts host path {node_cache_paths('bottlerocket').models}",
        reason="model_cache='node-local' (off by default) copies the staged model to the node's instance-store "
        "RAID0 once per node, under a lock, so later pods on that node stream NVMe instead of S3; the copy must "
        "outlive the pod, which only a host path gives; model_cache='s3' meets baseline",
    ),
)


# The SGLang Deployment is the same pod with another container: the same two host paths, for
# the same reasons (its compile-cache volume holds SGLANG_CACHE_DIR: Triton, Inductor, FlashInfer, JIT kernels).
EXEMPTIONS += tuple(
    Exemption(e.kind, e.namespace, ("app.kubernetes.io/name", "sglang"), e.controls, e.must_contain, e.reason)
    for e in EXEMPTIONS
    if e.label == ("app.kubernetes.io/name", "vllm")
)


def unexempted_violations(manifest: Mapping[str, Any]) -> list[str]:
    """Baseline findings for `manifest` that no exemption covers."""
    return [f for f in baseline_violations(manifest) if not any(e.covers(manifest, f) for e in EXEMPTIONS)]
