"""The Pod Security Standards checker on hand-written manifests: one case per control."""

import copy

import pytest

from tests.pod_security import (
    BASELINE_CONTROLS,
    baseline_violations,
    control_of,
    pod_of,
    restricted_gaps,
)


def restricted_pod():
    """A pod that meets "restricted": the starting point every case breaks in one place."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {
            "securityContext": {"runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}},
            "containers": [
                {
                    "name": "app",
                    "image": "busybox:1.36",
                    "ports": [{"containerPort": 8000}],
                    "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
                }
            ],
            "volumes": [{"name": "cache", "emptyDir": {}}],
        },
    }


def container(pod):
    return pod["spec"]["containers"][0]


def csc(pod):
    return container(pod)["securityContext"]


BASELINE_CASES = {
    "hostProcess": lambda p: p["spec"]["securityContext"].update(windowsOptions={"hostProcess": True}),
    "hostNamespaces": lambda p: p["spec"].update(hostNetwork=True),
    "privileged": lambda p: csc(p).update(privileged=True),
    "capabilities": lambda p: csc(p)["capabilities"].update(add=["SYS_ADMIN"]),
    "hostPathVolumes": lambda p: p["spec"]["volumes"].append({"name": "h", "hostPath": {"path": "/var"}}),
    "hostPorts": lambda p: container(p)["ports"][0].update(hostPort=8000),
    "appArmor": lambda p: csc(p).update(appArmorProfile={"type": "Unconfined"}),
    "seLinux": lambda p: csc(p).update(seLinuxOptions={"type": "spc_t"}),
    "procMount": lambda p: csc(p).update(procMount="Unmasked"),
    "seccomp": lambda p: csc(p).update(seccompProfile={"type": "Unconfined"}),
    "sysctls": lambda p: p["spec"]["securityContext"].update(sysctls=[{"name": "kernel.msgmax", "value": "1"}]),
}


def test_the_starting_pod_meets_restricted():
    assert baseline_violations(restricted_pod()) == []
    assert restricted_gaps(restricted_pod()) == []


def test_every_baseline_control_has_a_case():
    assert set(BASELINE_CASES) == set(BASELINE_CONTROLS)


@pytest.mark.parametrize("control", sorted(BASELINE_CASES))
def test_each_baseline_control_is_reported_alone(control):
    pod = restricted_pod()
    BASELINE_CASES[control](pod)
    found = baseline_violations(pod)
    assert [control_of(f) for f in found] == [control], found


@pytest.mark.parametrize(
    "allowed",
    [
        lambda p: csc(p)["capabilities"].update(add=["NET_BIND_SERVICE", "CHOWN"]),
        lambda p: p["spec"]["securityContext"].update(sysctls=[{"name": "net.ipv4.tcp_syncookies", "value": "1"}]),
        lambda p: csc(p).update(seLinuxOptions={"type": "container_t", "level": "s0:c1"}),
        lambda p: csc(p).update(appArmorProfile={"type": "RuntimeDefault"}),
        lambda p: csc(p).update(procMount="Default", seccompProfile={"type": "Localhost", "localhostProfile": "x"}),
        lambda p: container(p)["ports"][0].update(hostPort=0),
    ],
    ids=["runtime-default-caps", "safe-sysctl", "container-selinux", "apparmor-default", "default-proc", "hostport-0"],
)
def test_what_baseline_allows_is_not_reported(allowed):
    pod = restricted_pod()
    allowed(pod)
    assert baseline_violations(pod) == []


def test_apparmor_annotation_and_init_containers_are_checked():
    pod = restricted_pod()
    pod["metadata"]["annotations"] = {"container.apparmor.security.beta.kubernetes.io/app": "unconfined"}
    pod["spec"]["initContainers"] = [{"name": "init", "image": "busybox:1.36", "securityContext": {"privileged": True}}]
    assert sorted(control_of(f) for f in baseline_violations(pod)) == ["appArmor", "privileged"]
    assert any("initContainer 'init'" in f for f in baseline_violations(pod))


@pytest.mark.parametrize(
    "kind, wrap",
    [
        ("Deployment", lambda t: {"selector": {}, "template": t}),
        ("DaemonSet", lambda t: {"selector": {}, "template": t}),
        ("StatefulSet", lambda t: {"selector": {}, "template": t}),
        ("Job", lambda t: {"template": t}),
        ("CronJob", lambda t: {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": t}}}),
        ("PodTemplate", None),  # its template sits at the top level, beside metadata
    ],
)
def test_workload_kinds_are_checked_through_their_pod_template(kind, wrap):
    pod = restricted_pod()
    pod["spec"]["hostPID"] = True
    template = {"metadata": pod["metadata"], "spec": pod["spec"]}
    manifest = {"kind": kind, "metadata": {"name": "w"}}
    if wrap is None:
        manifest["template"] = template
    else:
        manifest["spec"] = wrap(template)
    assert pod_of(manifest) is not None
    assert [control_of(f) for f in baseline_violations(manifest)] == ["hostNamespaces"]


def test_objects_without_pods_have_nothing_to_check():
    for doc in ({"kind": "Service", "spec": {}}, {"kind": "ConfigMap", "data": {}}):
        assert pod_of(doc) is None
        assert baseline_violations(doc) == [] and restricted_gaps(doc) == []


RESTRICTED_CASES = {
    "volumeTypes": lambda p: p["spec"]["volumes"].append({"name": "h", "hostPath": {"path": "/var"}}),
    "privilegeEscalation": lambda p: csc(p).pop("allowPrivilegeEscalation"),
    "runAsNonRoot": lambda p: p["spec"]["securityContext"].pop("runAsNonRoot"),
    "runAsUser": lambda p: csc(p).update(runAsUser=0),
    "seccompRestricted": lambda p: p["spec"]["securityContext"].pop("seccompProfile"),
    "capabilitiesRestricted": lambda p: csc(p)["capabilities"].update(add=["CHOWN"]),
}


@pytest.mark.parametrize("control", sorted(RESTRICTED_CASES))
def test_each_restricted_control_is_reported(control):
    pod = restricted_pod()
    RESTRICTED_CASES[control](pod)
    assert [control_of(f) for f in restricted_gaps(pod)] == [control], restricted_gaps(pod)


def test_container_settings_override_the_pod_for_restricted():
    pod = restricted_pod()
    csc(pod)["runAsNonRoot"] = False
    assert [control_of(f) for f in restricted_gaps(pod)] == ["runAsNonRoot"]
    pod = restricted_pod()
    pod["spec"]["securityContext"].pop("seccompProfile")
    csc(pod)["seccompProfile"] = {"type": "RuntimeDefault"}
    assert restricted_gaps(pod) == []


def test_the_checker_does_not_modify_its_input():
    pod = restricted_pod()
    BASELINE_CASES["privileged"](pod)
    before = copy.deepcopy(pod)
    baseline_violations(pod), restricted_gaps(pod)
    assert pod == before
