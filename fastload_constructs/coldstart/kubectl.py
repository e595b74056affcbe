"""Read pods' vLLM logs with `kubectl logs` (by name or label selector), when kubectl is installed."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.serving.plan_record import PlanRecord, read_plan_record


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


@dataclass(frozen=True)
class PodStart:
    """One pod matched by a label selector, with when its container started (RFC 3339) if kubectl says."""

    name: str
    created: str
    started_at: str | None


def pods_command(selector: str, namespace: str, kubectl: str = "kubectl") -> list[str]:
    """The command that lists the pods a `-l` selector matches, as JSON."""
    return [kubectl, "get", "pods", "--selector", selector, "--namespace", namespace, "--output", "json"]


def _container_start(pod: dict[str, Any], container: str | None, previous: bool) -> str | None:
    statuses = pod.get("status", {}).get("containerStatuses") or []
    chosen = next((s for s in statuses if s.get("name") == container), None) if container else None
    if chosen is None and statuses and not container:
        chosen = statuses[0]
    if not isinstance(chosen, dict):
        return None
    state = chosen.get("lastState" if previous else "state", {})
    inner = state.get("terminated" if previous else "running") or {}
    value = inner.get("startedAt")
    return value if isinstance(value, str) and value else None


def pods_newest_first(listing: str, container: str | None = None, previous: bool = False) -> list[PodStart]:
    """`kubectl get pods -o json` text -> the pods, newest (creationTimestamp) first."""
    try:
        items = json.loads(listing).get("items", [])
    except (ValueError, AttributeError):
        raise FastloadConfigError("--selector", listing[:80], "kubectl's JSON pod list") from None
    pods = [
        PodStart(
            name=str(item.get("metadata", {}).get("name", "")),
            created=str(item.get("metadata", {}).get("creationTimestamp", "")),
            started_at=_container_start(item, container, previous),
        )
        for item in items
        if isinstance(item, dict)
    ]
    # RFC 3339 UTC timestamps ("2026-12-02T17:00:00Z") sort as text.
    return sorted((p for p in pods if p.name), key=lambda p: p.created, reverse=True)


def list_pods(selector: str, namespace: str, container: str | None = None, previous: bool = False) -> list[PodStart]:
    """The pods a label selector matches, newest first; a clear error when none does or kubectl fails."""
    kubectl = _kubectl_or_fail("--selector", selector, ["kubectl", "get", "pods", "-l", selector, "-n", namespace])
    done = subprocess.run(pods_command(selector, namespace, kubectl), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise FastloadConfigError(
            "--selector",
            selector,
            f"a selector kubectl can list (kubectl exited {done.returncode}: {done.stderr.strip() or 'no message'})",
        )
    pods = pods_newest_first(done.stdout, container, previous)
    if not pods:
        raise FastloadConfigError("--selector", selector, f"a label selector matching at least one pod in {namespace}")
    return pods


def _kubectl_or_fail(field: str, value: str, command: list[str]) -> str:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        raise FastloadConfigError(
            field,
            value,
            "a pod readable with kubectl, which is not on PATH: install kubectl, or save the log with "
            f"'{' '.join(command)} > pod.log' and pass the file",
        )
    return kubectl


@contextmanager
def pod_log_stream(
    pod: str, namespace: str, container: str | None = None, previous: bool = False
) -> Iterator[IO[bytes]]:
    """The pod's log as a byte stream straight from kubectl (never held whole in memory).

    The reader may stop early (at "Application startup complete."); kubectl is then
    stopped. A kubectl failure with no output at all is a clear error.
    """
    command = kubectl_logs_command(pod, namespace, container, previous)
    kubectl = _kubectl_or_fail("--pod", pod, command)
    process = subprocess.Popen(
        kubectl_logs_command(pod, namespace, container, previous, kubectl=kubectl),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    peek = process.stdout.peek(1) if hasattr(process.stdout, "peek") else b"?"
    if not peek:
        code = process.wait()
        message = process.stderr.read().decode("utf-8", errors="replace").strip()
        if code != 0:
            raise FastloadConfigError(
                "--pod", pod, f"a pod kubectl can read (kubectl exited {code}: {message or 'no message'})"
            )
    try:
        yield process.stdout
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait()
        process.stdout.close()
        process.stderr.close()


INSTANCE_LABEL = "app.kubernetes.io/instance"


def instance_label_command(pod: str, namespace: str, kubectl: str = "kubectl") -> list[str]:
    """The pod's server name: its `app.kubernetes.io/instance` label (the vLLM Deployment's name)."""
    label = INSTANCE_LABEL.replace(".", "\\.")
    return [kubectl, "get", "pod", pod, "--namespace", namespace, "--output", f"jsonpath={{.metadata.labels.{label}}}"]


def deployment_annotations_command(name: str, namespace: str, kubectl: str = "kubectl") -> list[str]:
    """A Deployment's annotations, as JSON."""
    output = "jsonpath={.metadata.annotations}"
    return [kubectl, "get", "deployment", name, "--namespace", namespace, "--output", output]


def read_recorded_plan(pod: str, namespace: str) -> PlanRecord | None:
    """The plan the pod's Deployment records (core.serving.plan_record), or None when kubectl, the label
    or the annotation is missing: the comparison is then left out, never guessed."""
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        return None
    label = subprocess.run(instance_label_command(pod, namespace, kubectl), capture_output=True, text=True, check=False)
    name = label.stdout.strip()
    if label.returncode != 0 or not name:
        return None
    command = deployment_annotations_command(name, namespace, kubectl)
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        return None
    try:
        annotations = json.loads(done.stdout)
    except ValueError:
        return None
    return read_plan_record(annotations) if isinstance(annotations, dict) else None
