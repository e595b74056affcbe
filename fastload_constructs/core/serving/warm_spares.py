"""Warm spares: placeholder pods that pre-warm GPU nodes and yield them to real vLLM pods.

A spare is a pod of the model pod's shape (same GPUs, CPU and memory
requests, node affinity and toleration) at a PriorityClass below the vLLM
pods'. It runs the vLLM image, so the multi-GB image is pulled and unpacked on
its node; its init containers are the vLLM pod's own cache steps (verify what
the node holds, copy the model to the NVMe, restore the compile cache into the
same host paths), then it sleeps with the GPUs reserved and does no GPU work.
When a vLLM pod needs the GPUs the scheduler preempts the spare, and the new
pod finds the image, the model copy and the compile cache already on the node.

What a spare warms depends on the model's options:

* always the image (the largest fresh-node phase after node launch);
* the node-local model copy when the model uses `model_cache="node-local"`;
* the compile cache when the model restores a shared one
  (`shared_compile_cache`) into the host-path cache (`compile_cache="host-path"`).

Spares of a model that streams from S3 (node-local cache off) are therefore
accepted and mean image-only warming (plus the compile cache when shared): the
weights stream from S3 as on any node. Spares need an instance type with
instance-store NVMe: what they leave behind lives on its RAID0 array.

Pure: no cdk8s; `k8s/warm_spares.py` renders what is decided here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, require
from fastload_constructs.core.naming import SERVER_PRIORITY_CLASS, SPARE_PRIORITY_CLASS
from fastload_constructs.core.planning.plan import ServingPlan
from fastload_constructs.core.planning.serving import check_spares
from fastload_constructs.core.serving.cache_sharing import (
    SyncContainer,
)
from fastload_constructs.core.serving.server_pod import ServerSpec, Toleration
from fastload_constructs.core.validation import check_dns_label, check_dns_subdomain

# Kubernetes "Pod Priority and Preemption": user-defined PriorityClass values are 32-bit integers
# up to 1,000,000,000; larger ones are reserved for system classes (system-cluster-critical is
# 2,000,000,000). Pods without a class get 0 (no globalDefault class is created here).
MAX_USER_PRIORITY = 1_000_000_000
MIN_PRIORITY = -(2**31)
# Above 0: ordinary workloads (priority 0) can never preempt a serving vLLM pod.
VLLM_PRIORITY = 1000
# The value Kubernetes' "Overprovision Node Capacity For A Cluster" task gives its placeholder
# class (kubernetes.io/docs/tasks/administer-cluster/node-overprovisioning): below 0, so any pod
# that fits the node may take a spare's place.
SPARE_PRIORITY = -1000
# `sleep infinity` (GNU coreutils, in the Ubuntu-based vllm/vllm-openai image) is PID 1 without a
# SIGTERM handler: a grace period would only keep the GPU from the pod that preempted it.
SPARE_COMMAND = ("sleep", "infinity")
SPARE_GRACE_SECONDS = 0
SPARE_COMPONENT = "warm-spare"

PreemptionPolicy = Literal["PreemptLowerPriority", "Never"]
Warmed = Literal["image", "model", "compile-cache"]


@dataclass(frozen=True)
class PriorityClassSpec:
    """One scheduling.k8s.io/v1 PriorityClass."""

    name: str
    value: int
    preemption_policy: PreemptionPolicy
    description: str
    global_default: bool = False


@dataclass(frozen=True)
class PriorityClasses:
    """The vLLM pods' class and the spares' class below it."""

    vllm: PriorityClassSpec
    spare: PriorityClassSpec


def priority_classes(
    *,
    vllm_value: int = VLLM_PRIORITY,
    spare_value: int = SPARE_PRIORITY,
    vllm_name: str = SERVER_PRIORITY_CLASS,
    spare_name: str = SPARE_PRIORITY_CLASS,
) -> PriorityClasses:
    """vLLM pods above 0 and preempting; spares below 0 and never preempting anything."""
    check_dns_subdomain(vllm_name, "vllm_priority_class_name")
    check_dns_subdomain(spare_name, "spare_priority_class_name")
    require(vllm_name != spare_name, "spare_priority_class_name", spare_name, f"a name other than {vllm_name!r}")
    require(
        is_whole_number(vllm_value) and 0 < vllm_value <= MAX_USER_PRIORITY,
        "vllm_priority",
        vllm_value,
        f"a whole number from 1 to {MAX_USER_PRIORITY} (above the default 0, at most the user maximum)",
    )
    require(
        is_whole_number(spare_value) and MIN_PRIORITY <= spare_value < 0,
        "spare_priority",
        spare_value,
        f"a whole number from {MIN_PRIORITY} to -1 (below the default 0, so any pod may take a spare's GPUs)",
    )
    return PriorityClasses(
        vllm=PriorityClassSpec(
            vllm_name,
            vllm_value,
            "PreemptLowerPriority",
            "fastload vLLM servers: preempt warm spares for their GPUs; not preempted by default-priority pods",
        ),
        spare=PriorityClassSpec(
            spare_name,
            spare_value,
            "Never",
            "fastload warm spares: placeholders holding pre-warmed GPUs; preempted by any pod, preempt nothing",
        ),
    )


@dataclass(frozen=True)
class PodRequests:
    """What the scheduler reserves for a pod: max(sum of containers, largest init container)."""

    cpu_millis: int
    memory_bytes: int
    gpus: int


def pod_requests(server: ServerSpec) -> PodRequests:
    """The vLLM pod's effective requests, as the scheduler computes them."""
    mib = 1024**2
    cpu = server.cpu * 1000 + sum(c.cpu_millis for c in server.sidecars)
    memory = server.memory_bytes + sum(c.memory_mib for c in server.sidecars) * mib
    for init in server.init_containers:
        cpu = max(cpu, init.cpu_millis)
        memory = max(memory, init.memory_mib * mib)
    return PodRequests(cpu_millis=cpu, memory_bytes=memory, gpus=server.gpus)


@dataclass(frozen=True)
class WarmSpareSpec:
    """Everything the placeholder Deployment renders; built by `warm_spare_spec`."""

    name: str
    namespace: str
    replicas: int
    image: str
    command: tuple[str, ...]
    requests: PodRequests  # equal to the vLLM pod's
    node_labels: Mapping[str, str]
    toleration: Toleration
    init_containers: tuple[SyncContainer, ...]  # the vLLM pod's own cache steps, same paths
    env: Mapping[str, str]  # AWS_* only, as the vLLM pod's cache steps get
    service_account_name: str  # the model's: Pod Identity grants it the model (and cache) prefix
    labels: Mapping[str, str]
    priority_class_name: str
    termination_grace_seconds: int
    warms: tuple[Warmed, ...]
    cache_host_path: str | None
    model_host_path: str | None
    # The in-pod scripts' ConfigMap: the server's (its shared, per-namespace one when `scripts_shared`).
    scripts_config_map: str = ""
    scripts_shared: bool = False


def warm_spare_spec(plan: ServingPlan, server: ServerSpec, *, classes: PriorityClasses | None = None) -> WarmSpareSpec:
    """The placeholders for `server` (built from `plan`): the plan's `serving.warm_spares` of them.
    Raises FastloadConfigError."""
    spares = check_spares(plan.serving.warm_spares, "serving.warm_spares")
    require(isinstance(server, ServerSpec), "server", server, "a ServerSpec from server_pod.server_spec")
    classes = classes or priority_classes()
    instance = plan.instance
    if spares > 0 and not instance.has_instance_store:
        raise FastloadConfigError(
            "serving.warm_spares",
            spares,
            f"0 on {instance.name}, which has no instance-store NVMe (a spare leaves the image, the model "
            "copy and the compile cache on the node's RAID0 array)",
        )
    require(
        server.gpus == plan.tensor_parallel_size,
        "server",
        server.name,
        "the server spec made from this plan (GPU counts differ)",
    )
    require(
        server.priority_class_name == classes.vllm.name,
        "priority_class_name",
        server.priority_class_name,
        f"{classes.vllm.name!r} on the vLLM pods (value {classes.vllm.value}), above the spares' "
        f"{classes.spare.name!r} ({classes.spare.value}), so the scheduler preempts a spare for them",
    )
    # The vLLM pod's own steps on the same paths; a restore reaches a vLLM pod only through the host path.
    init_containers = tuple(
        step
        for step in server.init_containers
        if step.name != "restore-compile-cache" or server.compile_cache == "host-path"
    )
    steps = {step.name for step in init_containers}
    warms: list[Warmed] = ["image"]
    if server.model_cache == "node-local" and "stage-model" in steps:
        warms.append("model")
    if "restore-compile-cache" in steps:
        warms.append("compile-cache")
    # Also the pods' `app.kubernetes.io/instance` label value: a DNS label of at most 63 characters.
    name = check_dns_label(f"{server.name}-warm-spare", "name")
    labels = {
        **server.labels,
        "app.kubernetes.io/instance": name,
        "app.kubernetes.io/component": SPARE_COMPONENT,
    }
    return WarmSpareSpec(
        name=name,
        namespace=server.namespace,
        replicas=spares,
        image=server.image,
        command=SPARE_COMMAND,
        requests=pod_requests(server),
        node_labels=dict(server.node_labels),
        toleration=server.toleration,
        init_containers=init_containers,
        env={k: v for k, v in server.env.items() if k.startswith("AWS_")},
        service_account_name=server.service_account_name,
        labels=labels,
        priority_class_name=classes.spare.name,
        termination_grace_seconds=SPARE_GRACE_SECONDS,
        warms=tuple(warms),
        cache_host_path=server.cache_host_path,
        model_host_path=server.model_host_path,
        scripts_config_map=server.scripts_config_map,
        scripts_shared=server.scripts_shared,
    )


def pods_per_node(plan: ServingPlan) -> int:
    """How many pods of this plan one node holds (GPUs / TP)."""
    return plan.instance.gpu_count // plan.tensor_parallel_size


def nodes_for(plan: ServingPlan, pods: int) -> int:
    """Nodes that hold `pods` pods of this plan (replicas plus spares)."""
    require(is_whole_number(pods) and pods >= 0, "pods", pods, "a whole number >= 0")
    return math.ceil(pods / pods_per_node(plan))


@dataclass(frozen=True)
class IdleCost:
    """What N spares hold while idle; multiply by your price per GPU- or instance-hour."""

    spares: int
    gpu_hours_per_day: float
    instance_hours_per_day: float  # the spares' share of instances (TP / GPUs per spare)


def idle_cost(plan: ServingPlan, spares: int) -> IdleCost:
    """GPU-hours and instance-hours per day that `spares` idle placeholders reserve."""
    check_spares(spares)
    gpus = spares * plan.tensor_parallel_size
    return IdleCost(spares, gpus * 24.0, gpus / plan.instance.gpu_count * 24.0)
