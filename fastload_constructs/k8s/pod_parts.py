"""Pieces of a pod spec that the server chart and the warm-spare chart render alike."""

from __future__ import annotations

from typing import Any

import cdk8s
import cdk8s_plus_28 as kplus

from fastload_constructs.core.serving.cache_sharing import REVISION_VOLUME, REVISION_VOLUME_MIB, SyncContainer

# core.serving.server_pod.Toleration.effect -> cdk8s-plus.
TAINT_EFFECTS = {
    "NoSchedule": kplus.TaintEffect.NO_SCHEDULE,
    "PreferNoSchedule": kplus.TaintEffect.PREFER_NO_SCHEDULE,
    "NoExecute": kplus.TaintEffect.NO_EXECUTE,
}


def container_security() -> kplus.ContainerSecurityContextProps:
    """No privilege escalation, no capabilities, RuntimeDefault seccomp; root allowed (see the vLLM chart's doc)."""
    return kplus.ContainerSecurityContextProps(
        allow_privilege_escalation=False,
        privileged=False,
        ensure_non_root=False,
        read_only_root_filesystem=False,
        capabilities=kplus.ContainerSecutiryContextCapabilities(drop=[kplus.Capability.ALL]),
        seccomp_profile=kplus.SeccompProfile(type=kplus.SeccompProfileType.RUNTIME_DEFAULT),
    )


def sync_container_props(image: str, step: SyncContainer, env: dict[str, kplus.EnvValue]) -> dict[str, Any]:
    """A cache step (restore, publish, copy, warm check) as container props, with its own requests."""
    memory = cdk8s.Size.mebibytes(step.memory_mib)
    return dict(
        name=step.name,
        image=image,
        image_pull_policy=kplus.ImagePullPolicy.IF_NOT_PRESENT,
        command=list(step.command),
        env_variables=env,
        resources=kplus.ContainerResources(
            cpu=kplus.CpuResources(request=kplus.Cpu.millis(step.cpu_millis)),
            memory=kplus.MemoryResources(request=memory, limit=memory),
        ),
        security_context=container_security(),
    )


def add_revision_volume(scope: Any, steps: tuple[SyncContainer, ...], volumes: dict[str, kplus.Volume]) -> None:
    """The few bytes resolve-revision writes, in memory, when any step reads them."""
    if any(volume == REVISION_VOLUME for step in steps for volume, _ in step.mounts):
        volumes[REVISION_VOLUME] = kplus.Volume.from_empty_dir(
            scope,
            "RevisionVolume",
            REVISION_VOLUME,
            medium=kplus.EmptyDirMedium.MEMORY,
            size_limit=cdk8s.Size.mebibytes(REVISION_VOLUME_MIB),
        )


def mount_all(container: kplus.Container, step: SyncContainer, volumes: dict[str, kplus.Volume]) -> None:
    for volume, path in step.mounts:
        container.mount(path, volumes[volume])


def node_folder(scope: Any, id: str, name: str, path: str) -> kplus.Volume:
    """A folder on the node's NVMe (made if absent): the compile cache or the node-local model copy."""
    return kplus.Volume.from_host_path(scope, id, name, path=path, type=kplus.HostPathVolumeType.DIRECTORY_OR_CREATE)
