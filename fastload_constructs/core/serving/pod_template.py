"""A Kubernetes pod template as typed data: the parts the standby engines' pods are made of.

FMA's requester pods (a Deployment's template) and launcher pods (a LauncherConfig's `podTemplate`) are
decided in `core.serving.standby` as these values; `k8s/standby.py` renders each through its typed class
(cdk8s-plus's Kubernetes classes for the Deployments, the classes `cdk8s import` made of FMA's CRDs for the
LauncherConfig). Field names follow core/v1 (Kubernetes API reference, "Pod v1 core"), in snake case.
Pure: no cdk8s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from fastload_constructs.core.serving.server_pod import Toleration

# A resource quantity as written: "200m", "256Mi", or a whole number (an extended resource's count).
Quantity = str | int


@dataclass(frozen=True)
class Port:
    container_port: int
    name: str


@dataclass(frozen=True)
class Resources:
    requests: Mapping[str, Quantity]
    limits: Mapping[str, Quantity]


@dataclass(frozen=True)
class Mount:
    """A volume mount; `sub_path` mounts one folder of the volume."""

    name: str
    mount_path: str
    sub_path: str | None = None
    read_only: bool | None = None


@dataclass(frozen=True)
class SecurityContext:
    """A container's: no privilege escalation, no capabilities, RuntimeDefault seccomp; non-root when given a user."""

    read_only_root_filesystem: bool = False
    run_as_user: int | None = None  # with it, runAsNonRoot and runAsGroup (the same id)


@dataclass(frozen=True)
class HttpGetProbe:
    path: str
    port: int
    initial_delay_s: int
    period_s: int
    failure_threshold: int


@dataclass(frozen=True)
class Container:
    """`command` None: the image's own entrypoint runs."""

    name: str
    image: str
    resources: Resources
    command: tuple[str, ...] | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    ports: tuple[Port, ...] = ()
    mounts: tuple[Mount, ...] = ()
    readiness_probe: HttpGetProbe | None = None
    security: SecurityContext = SecurityContext()
    image_pull_policy: str = "IfNotPresent"  # our images are pinned tags


@dataclass(frozen=True)
class EmptyDir:
    name: str
    size_limit: str | None = None
    in_memory: bool = False  # medium: Memory


@dataclass(frozen=True)
class ConfigMapVolume:
    name: str
    config_map: str
    default_mode: int | None = None


@dataclass(frozen=True)
class HostPath:
    name: str
    path: str
    type: Literal["DirectoryOrCreate"] = "DirectoryOrCreate"


Volume = EmptyDir | ConfigMapVolume | HostPath


@dataclass(frozen=True)
class LabelIn:
    """A node selector requirement: the label `key` has one of `values`."""

    key: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class PreferredNodes:
    weight: int
    match: tuple[LabelIn, ...]


@dataclass(frozen=True)
class PreferredPods:
    """Prefer a node (`topology_key`) already running a pod with these labels."""

    weight: int
    match_labels: Mapping[str, str]
    topology_key: str


@dataclass(frozen=True)
class Affinity:
    """Required node labels (one term), then preferences."""

    required_nodes: tuple[LabelIn, ...]
    preferred_nodes: tuple[PreferredNodes, ...] = ()
    preferred_pods: tuple[PreferredPods, ...] = ()


@dataclass(frozen=True)
class PodSpec:
    """A pod under RuntimeDefault seccomp."""

    service_account_name: str
    automount_service_account_token: bool
    containers: tuple[Container, ...]
    init_containers: tuple[Container, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    affinity: Affinity | None = None
    volumes: tuple[Volume, ...] = ()
    priority_class_name: str | None = None


@dataclass(frozen=True)
class PodTemplate:
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    spec: PodSpec
