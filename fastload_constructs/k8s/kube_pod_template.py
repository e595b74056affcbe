"""A `core.serving.pod_template.PodTemplate` as cdk8s-plus's generated Kubernetes classes (`cdk8s_plus_28.k8s`).

The requester and primer Deployments of standby engines carry such templates; the classes are the typed
core/v1 objects cdk8s-plus itself renders through, so a misspelt field fails at synth.
"""

from __future__ import annotations

from collections.abc import Mapping

from cdk8s_plus_28 import k8s

from fastload_constructs.core.serving.pod_template import (
    Affinity,
    ConfigMapVolume,
    Container,
    EmptyDir,
    HostPath,
    HttpGetProbe,
    LabelIn,
    Mount,
    PodSpec,
    PodTemplate,
    Quantity,
    SecurityContext,
    Volume,
)
from fastload_constructs.core.serving.server_pod import Toleration

RUNTIME_DEFAULT = "RuntimeDefault"


def quantities(values: Mapping[str, Quantity]) -> dict[str, k8s.Quantity]:
    return {
        key: k8s.Quantity.from_number(value) if isinstance(value, int) else k8s.Quantity.from_string(value)
        for key, value in values.items()
    }


def security_context(security: SecurityContext) -> k8s.SecurityContext:
    """No privilege escalation, no capabilities, RuntimeDefault seccomp; a given user also means non-root."""
    user = security.run_as_user
    return k8s.SecurityContext(
        allow_privilege_escalation=False,
        privileged=False,
        read_only_root_filesystem=security.read_only_root_filesystem,
        capabilities=k8s.Capabilities(drop=["ALL"]),
        seccomp_profile=k8s.SeccompProfile(type=RUNTIME_DEFAULT),
        run_as_non_root=True if user is not None else None,
        run_as_user=user,
        run_as_group=user,
    )


def _probe(probe: HttpGetProbe | None) -> k8s.Probe | None:
    if probe is None:
        return None
    return k8s.Probe(
        http_get=k8s.HttpGetAction(path=probe.path, port=k8s.IntOrString.from_number(probe.port)),
        initial_delay_seconds=probe.initial_delay_s,
        period_seconds=probe.period_s,
        failure_threshold=probe.failure_threshold,
    )


def _mount(mount: Mount) -> k8s.VolumeMount:
    return k8s.VolumeMount(
        name=mount.name, mount_path=mount.mount_path, sub_path=mount.sub_path, read_only=mount.read_only
    )


def container(c: Container) -> k8s.Container:
    return k8s.Container(
        name=c.name,
        image=c.image,
        image_pull_policy=c.image_pull_policy,
        command=list(c.command) if c.command is not None else None,
        env=[k8s.EnvVar(name=k, value=v) for k, v in c.env.items()] or None,
        ports=[k8s.ContainerPort(container_port=p.container_port, name=p.name) for p in c.ports] or None,
        readiness_probe=_probe(c.readiness_probe),
        resources=k8s.ResourceRequirements(
            requests=quantities(c.resources.requests), limits=quantities(c.resources.limits)
        ),
        volume_mounts=[_mount(m) for m in c.mounts] or None,
        security_context=security_context(c.security),
    )


def _volume(volume: Volume) -> k8s.Volume:
    if isinstance(volume, EmptyDir):
        size = k8s.Quantity.from_string(volume.size_limit) if volume.size_limit is not None else None
        medium = "Memory" if volume.in_memory else None
        return k8s.Volume(name=volume.name, empty_dir=k8s.EmptyDirVolumeSource(medium=medium, size_limit=size))
    if isinstance(volume, ConfigMapVolume):
        source = k8s.ConfigMapVolumeSource(name=volume.config_map, default_mode=volume.default_mode)
        return k8s.Volume(name=volume.name, config_map=source)
    assert isinstance(volume, HostPath)
    return k8s.Volume(name=volume.name, host_path=k8s.HostPathVolumeSource(path=volume.path, type=volume.type))


def toleration(t: Toleration) -> k8s.Toleration:
    return k8s.Toleration(key=t.key, operator="Equal", value=t.value, effect=t.effect)


def _requirements(labels: tuple[LabelIn, ...]) -> list[k8s.NodeSelectorRequirement]:
    return [k8s.NodeSelectorRequirement(key=r.key, operator="In", values=list(r.values)) for r in labels]


def affinity(a: Affinity) -> k8s.Affinity:
    node = k8s.NodeAffinity(
        required_during_scheduling_ignored_during_execution=k8s.NodeSelector(
            node_selector_terms=[k8s.NodeSelectorTerm(match_expressions=_requirements(a.required_nodes))]
        ),
        preferred_during_scheduling_ignored_during_execution=[
            k8s.PreferredSchedulingTerm(
                weight=p.weight, preference=k8s.NodeSelectorTerm(match_expressions=_requirements(p.match))
            )
            for p in a.preferred_nodes
        ]
        or None,
    )
    pods = [
        k8s.WeightedPodAffinityTerm(
            weight=p.weight,
            pod_affinity_term=k8s.PodAffinityTerm(
                label_selector=k8s.LabelSelector(match_labels=dict(p.match_labels)), topology_key=p.topology_key
            ),
        )
        for p in a.preferred_pods
    ]
    pod = k8s.PodAffinity(preferred_during_scheduling_ignored_during_execution=pods) if pods else None
    return k8s.Affinity(node_affinity=node, pod_affinity=pod)


def pod_spec(spec: PodSpec, *, restart_policy: str | None = None) -> k8s.PodSpec:
    return k8s.PodSpec(
        service_account_name=spec.service_account_name,
        automount_service_account_token=spec.automount_service_account_token,
        security_context=k8s.PodSecurityContext(seccomp_profile=k8s.SeccompProfile(type=RUNTIME_DEFAULT)),
        containers=[container(c) for c in spec.containers],
        init_containers=[container(c) for c in spec.init_containers] or None,
        tolerations=[toleration(t) for t in spec.tolerations] or None,
        affinity=affinity(spec.affinity) if spec.affinity is not None else None,
        volumes=[_volume(v) for v in spec.volumes] or None,
        priority_class_name=spec.priority_class_name,
        restart_policy=restart_policy,
    )


def pod_template(template: PodTemplate, *, restart_policy: str | None = None) -> k8s.PodTemplateSpec:
    return k8s.PodTemplateSpec(
        metadata=k8s.ObjectMeta(labels=dict(template.labels), annotations=dict(template.annotations) or None),
        spec=pod_spec(template.spec, restart_policy=restart_policy),
    )
