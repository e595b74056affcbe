"""Read a pod's vLLM log with `kubectl logs`, when kubectl is installed."""

from __future__ import annotations

import shutil
import subprocess

from fastload_constructs.core.errors import FastloadConfigError


def kubectl_logs_command(
    pod: str, namespace: str, container: str | None = None, previous: bool = False, kubectl: str = "kubectl"
) -> list[str]:
    """The exact command run for `--pod`: the container's whole log, as kubectl prints it."""
    command = [kubectl, "logs", pod, "--namespace", namespace]
    if container:
        command += ["--container", container]
    if previous:
        command.append("--previous")
    return command


def read_pod_log(pod: str, namespace: str, container: str | None = None, previous: bool = False) -> str:
    """The pod's log text; a clear error when kubectl is missing or fails."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        raise FastloadConfigError(
            "--pod",
            pod,
            "a pod readable with kubectl, which is not on PATH: install kubectl, or save the log with "
            f"'{' '.join(kubectl_logs_command(pod, namespace, container, previous))} > pod.log' "
            "and pass the file",
        )
    command = kubectl_logs_command(pod, namespace, container, previous, kubectl=kubectl)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise FastloadConfigError(
            "--pod",
            pod,
            f"a pod kubectl can read (kubectl exited {done.returncode}: {done.stderr.strip() or 'no message'})",
        )
    return done.stdout


def started_at_command(
    pod: str, namespace: str, container: str | None = None, previous: bool = False, kubectl: str = "kubectl"
) -> list[str]:
    """The command that reads when the container started: the process-start phase's beginning."""
    which = f'?(@.name=="{container}")' if container else "0"
    state = "lastState.terminated" if previous else "state.running"
    return [
        kubectl,
        "get",
        "pod",
        pod,
        "--namespace",
        namespace,
        "--output",
        f"jsonpath={{.status.containerStatuses[{which}].{state}.startedAt}}",
    ]


def read_container_started_at(
    pod: str, namespace: str, container: str | None = None, previous: bool = False
) -> str | None:
    """The container's RFC 3339 start time, or None when kubectl cannot tell (the phase is then left out)."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return None
    done = subprocess.run(
        started_at_command(pod, namespace, container, previous, kubectl=kubectl),
        capture_output=True,
        text=True,
        check=False,
    )
    value = done.stdout.strip()
    return value if done.returncode == 0 and value else None
