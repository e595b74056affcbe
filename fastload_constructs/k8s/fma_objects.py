"""FMA's custom resources for one model, as the classes `cdk8s import` made of FMA v0.6.4's CRDs.

`core.serving.standby` decides InferenceServerConfig, LauncherConfig (its launcher pod template included)
and LauncherPopulationPolicy as typed data; this module turns each into its imported class
(`k8s.imports.fma`, README there), so a field FMA's CRDs lack fails at synth. The LauncherConfig CRD
repeats Kubernetes' container schema for `containers` and `initContainers`, so `cdk8s import` made two
families of classes of one shape; `_ContainerClasses` picks a family by its name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.serving.pod_template import (
    ConfigMapVolume,
    Container,
    EmptyDir,
    HostPath,
    Mount,
    PodSpec,
    Quantity,
    Volume,
)
from fastload_constructs.core.serving.server_pod import Toleration
from fastload_constructs.core.serving.standby import (
    InferenceServerConfigSpec,
    LauncherConfigSpec,
    PopulationPolicySpec,
)
from fastload_constructs.k8s.imports.fma.ai.llm_d import fma

_POD = "LauncherConfigSpecPodTemplateSpec"
RUNTIME_DEFAULT = "RuntimeDefault"


@dataclass(frozen=True)
class _ContainerClasses:
    """The imported classes of one container list of the launcher pod (`Containers` or `InitContainers`)."""

    family: str

    def __call__(self, **fields: Any) -> Any:
        return getattr(fma, f"{_POD}{self.family}")(**fields)

    def __getattr__(self, part: str) -> Any:
        return getattr(fma, f"{_POD}{self.family}{part}")


_CONTAINERS = _ContainerClasses("Containers")
_INIT_CONTAINERS = _ContainerClasses("InitContainers")


def _quantities(cls: Any, values: Mapping[str, Quantity]) -> dict[str, Any]:
    return {k: cls.from_number(v) if isinstance(v, int) else cls.from_string(v) for k, v in values.items()}


def _mount(classes: _ContainerClasses, mount: Mount) -> Any:
    return classes.VolumeMounts(
        name=mount.name, mount_path=mount.mount_path, sub_path=mount.sub_path, read_only=mount.read_only
    )


def _security(classes: _ContainerClasses, c: Container) -> Any:
    """No privilege escalation, no capabilities, RuntimeDefault seccomp; a given user also means non-root."""
    user = c.security.run_as_user
    return classes.SecurityContext(
        allow_privilege_escalation=False,
        privileged=False,
        read_only_root_filesystem=c.security.read_only_root_filesystem,
        capabilities=classes.SecurityContextCapabilities(drop=["ALL"]),
        seccomp_profile=classes.SecurityContextSeccompProfile(type=RUNTIME_DEFAULT),
        run_as_non_root=True if user is not None else None,
        run_as_user=user,
        run_as_group=user,
    )


def _container(classes: _ContainerClasses, c: Container) -> Any:
    assert c.readiness_probe is None, "a launcher pod's containers have no readiness probe"
    return classes(
        name=c.name,
        image=c.image,
        image_pull_policy=c.image_pull_policy,
        command=list(c.command) if c.command is not None else None,
        env=[classes.Env(name=k, value=v) for k, v in c.env.items()] or None,
        ports=[classes.Ports(container_port=p.container_port, name=p.name) for p in c.ports] or None,
        resources=classes.Resources(
            requests=_quantities(classes.ResourcesRequests, c.resources.requests),
            limits=_quantities(classes.ResourcesLimits, c.resources.limits),
        ),
        volume_mounts=[_mount(classes, m) for m in c.mounts] or None,
        security_context=_security(classes, c),
    )


def _volume(volume: Volume) -> fma.LauncherConfigSpecPodTemplateSpecVolumes:
    if isinstance(volume, EmptyDir):
        limit = volume.size_limit
        size = fma.LauncherConfigSpecPodTemplateSpecVolumesEmptyDirSizeLimit.from_string(limit) if limit else None
        medium = "Memory" if volume.in_memory else None
        empty_dir = fma.LauncherConfigSpecPodTemplateSpecVolumesEmptyDir(medium=medium, size_limit=size)
        return fma.LauncherConfigSpecPodTemplateSpecVolumes(name=volume.name, empty_dir=empty_dir)
    if isinstance(volume, ConfigMapVolume):
        source = fma.LauncherConfigSpecPodTemplateSpecVolumesConfigMap(
            name=volume.config_map, default_mode=volume.default_mode
        )
        return fma.LauncherConfigSpecPodTemplateSpecVolumes(name=volume.name, config_map=source)
    assert isinstance(volume, HostPath)
    host_path = fma.LauncherConfigSpecPodTemplateSpecVolumesHostPath(path=volume.path, type=volume.type)
    return fma.LauncherConfigSpecPodTemplateSpecVolumes(name=volume.name, host_path=host_path)


def _toleration(t: Toleration) -> fma.LauncherConfigSpecPodTemplateSpecTolerations:
    return fma.LauncherConfigSpecPodTemplateSpecTolerations(key=t.key, operator="Equal", value=t.value, effect=t.effect)


def _pod_spec(spec: PodSpec) -> fma.LauncherConfigSpecPodTemplateSpec:
    assert spec.affinity is None, "FMA places launcher pods itself"
    return fma.LauncherConfigSpecPodTemplateSpec(
        service_account_name=spec.service_account_name,
        automount_service_account_token=spec.automount_service_account_token,
        security_context=fma.LauncherConfigSpecPodTemplateSpecSecurityContext(
            seccomp_profile=fma.LauncherConfigSpecPodTemplateSpecSecurityContextSeccompProfile(type=RUNTIME_DEFAULT)
        ),
        containers=[_container(_CONTAINERS, c) for c in spec.containers],
        init_containers=[_container(_INIT_CONTAINERS, c) for c in spec.init_containers] or None,
        tolerations=[_toleration(t) for t in spec.tolerations] or None,
        volumes=[_volume(v) for v in spec.volumes] or None,
        priority_class_name=spec.priority_class_name,
    )


def launcher_config_props(spec: LauncherConfigSpec) -> fma.LauncherConfigSpec:
    """A `LauncherConfigSpec` as the imported class."""
    template = spec.pod_template
    return fma.LauncherConfigSpec(
        max_instances=spec.max_instances,
        pod_template=fma.LauncherConfigSpecPodTemplate(
            metadata=fma.LauncherConfigSpecPodTemplateMetadata(
                labels=dict(template.labels), annotations=dict(template.annotations) or None
            ),
            spec=_pod_spec(template.spec),
        ),
    )


def inference_server_config_props(spec: InferenceServerConfigSpec) -> fma.InferenceServerConfigSpec:
    """An `InferenceServerConfigSpec` as the imported class."""
    server = spec.model_server
    return fma.InferenceServerConfigSpec(
        launcher_config_name=spec.launcher_config_name,
        model_server_config=fma.InferenceServerConfigSpecModelServerConfig(
            port=server.port, options=server.options, env_vars=dict(server.env_vars), labels=dict(server.labels)
        ),
    )


def population_policy_props(spec: PopulationPolicySpec) -> fma.LauncherPopulationPolicySpec:
    """A `PopulationPolicySpec` as the imported class."""
    return fma.LauncherPopulationPolicySpec(
        enhanced_node_selector=fma.LauncherPopulationPolicySpecEnhancedNodeSelector(
            label_selector=fma.LauncherPopulationPolicySpecEnhancedNodeSelectorLabelSelector(
                match_labels=dict(spec.node_labels)
            )
        ),
        count_for_launcher=[
            fma.LauncherPopulationPolicySpecCountForLauncher(launcher_config_name=name, launcher_count=count)
            for name, count in spec.launcher_counts.items()
        ],
    )
