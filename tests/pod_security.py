"""Pod Security Standards checks for workload manifests, as plain data.

Implements the controls of the Kubernetes Pod Security Standards
(kubernetes.io/docs/concepts/security/pod-security-standards, the policies the
built-in Pod Security Admission enforces) on any manifest that holds a pod:
Pod, Deployment, DaemonSet, StatefulSet, ReplicaSet, Job, CronJob and
ReplicationController. Pure, so the charts' output can be checked in tests
without a cluster, and the gap to "restricted" listed as data.

Each finding is one string, `<control>: <where> <what>`, where `control` is
one of `BASELINE_CONTROLS` or `RESTRICTED_CONTROLS`; exemption lists can match
on the control and the object.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

BASELINE_CONTROLS = (
    "hostProcess",
    "hostNamespaces",
    "privileged",
    "capabilities",
    "hostPathVolumes",
    "hostPorts",
    "appArmor",
    "seLinux",
    "procMount",
    "seccomp",
    "sysctls",
)
RESTRICTED_CONTROLS = (
    "volumeTypes",
    "privilegeEscalation",
    "runAsNonRoot",
    "runAsUser",
    "seccompRestricted",
    "capabilitiesRestricted",
)

# Baseline: capabilities a container may add (the container runtime's defaults).
BASELINE_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)
BASELINE_SYSCTLS = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
    }
)
APPARMOR_ALLOWED = frozenset({"RuntimeDefault", "Localhost"})
APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"
SELINUX_TYPES = frozenset({"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"})
# Restricted: the only volume types allowed.
RESTRICTED_VOLUME_TYPES = frozenset(
    {
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "persistentVolumeClaim",
        "projected",
        "secret",
    }
)
SECCOMP_ALLOWED = frozenset({"RuntimeDefault", "Localhost"})

# Kinds whose pod template sits at spec.template; CronJob one level deeper; a PodTemplate's at its top level
# (Pod Security Admission reads all of them: k8s.io/pod-security-admission admission.go defaultPodSpecResources).
_TEMPLATE_KINDS = frozenset({"Deployment", "DaemonSet", "StatefulSet", "ReplicaSet", "Job", "ReplicationController"})
WORKLOAD_KINDS = _TEMPLATE_KINDS | {"Pod", "CronJob", "PodTemplate"}


def pod_of(manifest: Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]] | None:
    """(pod metadata, pod spec) of a workload manifest, or None for other kinds."""
    kind = manifest.get("kind")
    if kind == "Pod":
        return manifest.get("metadata") or {}, manifest.get("spec") or {}
    if kind in _TEMPLATE_KINDS:
        template = (manifest.get("spec") or {}).get("template") or {}
    elif kind == "CronJob":
        job = ((manifest.get("spec") or {}).get("jobTemplate") or {}).get("spec") or {}
        template = job.get("template") or {}
    elif kind == "PodTemplate":
        template = manifest.get("template") or {}
    else:
        return None
    return template.get("metadata") or {}, template.get("spec") or {}


def _containers(spec: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in spec.get(key) or []:
            yield f"{key[:-1]} {container.get('name', '?')!r}", container


def _sc(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return obj.get("securityContext") or {}


def baseline_violations(manifest: Mapping[str, Any]) -> list[str]:
    """Every way the pod in `manifest` breaks the "baseline" level; [] when it meets it (or holds no pod)."""
    found = pod_of(manifest)
    if found is None:
        return []
    metadata, spec = found
    out = _pod_baseline(metadata, spec)
    for where, container in _containers(spec):
        out += _container_baseline(metadata, where, container)
    return out


def _pod_baseline(metadata: Mapping[str, Any], spec: Mapping[str, Any]) -> list[str]:
    pod_sc = _sc(spec)
    out: list[str] = []
    if (pod_sc.get("windowsOptions") or {}).get("hostProcess"):
        out.append("hostProcess: pod sets windowsOptions.hostProcess")
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(field):
            out.append(f"hostNamespaces: pod sets {field}")
    for volume in spec.get("volumes") or []:
        if "hostPath" in volume:
            out.append(
                f"hostPathVolumes: volume {volume.get('name', '?')!r} mounts host path "
                f"{(volume['hostPath'] or {}).get('path')}"
            )
    out += _apparmor(metadata, pod_sc, "pod")
    out += _selinux(pod_sc, "pod")
    out += _seccomp_not_unconfined(pod_sc, "pod")
    for sysctl in pod_sc.get("sysctls") or []:
        if sysctl.get("name") not in BASELINE_SYSCTLS:
            out.append(f"sysctls: pod sets {sysctl.get('name')}")
    return out


def _container_baseline(metadata: Mapping[str, Any], where: str, container: Mapping[str, Any]) -> list[str]:
    sc = _sc(container)
    out: list[str] = []
    if (sc.get("windowsOptions") or {}).get("hostProcess"):
        out.append(f"hostProcess: {where} sets windowsOptions.hostProcess")
    if sc.get("privileged"):
        out.append(f"privileged: {where} is privileged")
    added = sorted(set((sc.get("capabilities") or {}).get("add") or []) - BASELINE_CAPABILITIES)
    if added:
        out.append(f"capabilities: {where} adds {', '.join(added)}")
    for port in container.get("ports") or []:
        if port.get("hostPort"):
            out.append(f"hostPorts: {where} uses hostPort {port['hostPort']}")
    out += _apparmor(metadata, sc, where, container.get("name"))
    out += _selinux(sc, where)
    if sc.get("procMount") not in (None, "Default"):
        out.append(f"procMount: {where} sets procMount {sc['procMount']}")
    out += _seccomp_not_unconfined(sc, where)
    return out


def _apparmor(
    metadata: Mapping[str, Any], sc: Mapping[str, Any], where: str, container: str | None = None
) -> list[str]:
    out = []
    profile = (sc.get("appArmorProfile") or {}).get("type")
    if profile is not None and profile not in APPARMOR_ALLOWED:
        out.append(f"appArmor: {where} sets appArmorProfile {profile}")
    if container is not None:
        annotation = (metadata.get("annotations") or {}).get(APPARMOR_ANNOTATION + container)
        if annotation is not None and annotation != "runtime/default" and not annotation.startswith("localhost/"):
            out.append(f"appArmor: {where} annotated {annotation}")
    return out


def _selinux(sc: Mapping[str, Any], where: str) -> list[str]:
    options = sc.get("seLinuxOptions") or {}
    out = []
    if options.get("type", "") not in SELINUX_TYPES:
        out.append(f"seLinux: {where} sets seLinuxOptions.type {options['type']}")
    for field in ("user", "role"):
        if options.get(field):
            out.append(f"seLinux: {where} sets seLinuxOptions.{field}")
    return out


def _seccomp_not_unconfined(sc: Mapping[str, Any], where: str) -> list[str]:
    if (sc.get("seccompProfile") or {}).get("type") == "Unconfined":
        return [f"seccomp: {where} sets seccompProfile Unconfined"]
    return []


def restricted_gaps(manifest: Mapping[str, Any]) -> list[str]:
    """What, beyond `baseline_violations`, keeps the pod from the "restricted" level."""
    found = pod_of(manifest)
    if found is None:
        return []
    _, spec = found
    pod_sc = _sc(spec)
    out: list[str] = []
    for volume in spec.get("volumes") or []:
        kinds = set(volume) - {"name"}
        if not kinds <= RESTRICTED_VOLUME_TYPES:
            out.append(f"volumeTypes: volume {volume.get('name', '?')!r} is {', '.join(sorted(kinds))}")
    pod_seccomp = (pod_sc.get("seccompProfile") or {}).get("type")
    if pod_sc.get("runAsUser") == 0:
        out.append("runAsUser: pod sets runAsUser 0")
    if pod_seccomp is not None and pod_seccomp not in SECCOMP_ALLOWED:
        out.append(f"seccompRestricted: pod sets seccompProfile {pod_seccomp}")
    for where, container in _containers(spec):
        out += _container_restricted(where, _sc(container), pod_sc.get("runAsNonRoot"), pod_seccomp)
    return out


def _container_restricted(
    where: str, sc: Mapping[str, Any], pod_non_root: object, pod_seccomp: str | None
) -> list[str]:
    """A container's gaps to "restricted"; its pod's runAsNonRoot and seccomp profile apply where it sets none."""
    out: list[str] = []
    if sc.get("allowPrivilegeEscalation") is not False:
        out.append(f"privilegeEscalation: {where} does not set allowPrivilegeEscalation false")
    if sc.get("runAsNonRoot", pod_non_root) is not True:
        out.append(f"runAsNonRoot: {where} does not set runAsNonRoot true")
    if sc.get("runAsUser") == 0:
        out.append(f"runAsUser: {where} sets runAsUser 0")
    seccomp = (sc.get("seccompProfile") or {}).get("type", pod_seccomp)
    if seccomp not in SECCOMP_ALLOWED:
        out.append(
            f"seccompRestricted: {where} has seccompProfile {seccomp or 'unset'}; RuntimeDefault or Localhost required"
        )
    caps = sc.get("capabilities") or {}
    if "ALL" not in (caps.get("drop") or []):
        out.append(f"capabilitiesRestricted: {where} does not drop ALL capabilities")
    extra = sorted(set(caps.get("add") or []) - {"NET_BIND_SERVICE"})
    if extra:
        out.append(f"capabilitiesRestricted: {where} adds {', '.join(extra)}")
    return out


def control_of(finding: str) -> str:
    """The control a finding string names: 'hostPathVolumes: ...' -> 'hostPathVolumes'."""
    return finding.split(":", 1)[0]
