"""Read pods' vLLM logs with `kubectl logs` (by name or label selector), when kubectl is installed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Any

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.serving.plan_record import PlanRecord, read_plan_record


class ClusterUnreachable(Exception):
    """kubectl reached no cluster (refused, timed out, no credentials, no kubeconfig): whatever was asked for,
    the message says which server or context it tried, and nothing about the pod."""


# What kubectl prints when no API server answers it, or none accepts it (kubectl 1.2x-1.3x), and why, in
# order; a "server" group says where it tried (the API-group URL of its memcache.go lines also says it):
#   "The connection to the server localhost:8080 was refused - did you specify the right host or port?"
#   "Unable to connect to the server: dial tcp 10.0.0.1:443: i/o timeout", "... getting credentials: ..."
#   "dial tcp: lookup X.eks.amazonaws.com on 10.0.0.2:53: no such host"
#   "error: You must be logged in to the server (Unauthorized)"; 'error: context "x" does not exist'
_UNREACHABLE: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"The connection to the server (?P<server>\S+) was refused"), "connection refused"),
    (re.compile(r"dial tcp (?P<server>[^\s:]+:\d+): connect: connection refused"), "connection refused"),
    (re.compile(r"dial tcp (?P<server>[^\s:]+:\d+): i/o timeout"), "timed out"),
    (re.compile(r"lookup (?P<server>[^\s:]+)(?: on \S+)?: no such host"), "no such host"),
    (
        re.compile(r"You must be logged in to the server|\(Unauthorized\)|getting credentials"),
        "not authorised: expired or missing credentials",
    ),
    (re.compile(r"no configuration has been provided|current-context is not set"), "no kubeconfig"),
    (re.compile(r'context "(?P<context>[^"]+)" does not exist'), "no such context"),
    (re.compile(r"Unable to connect to the server: (?P<detail>[^\n]{1,120})"), ""),
)
_API_URL = re.compile(r'Get \\?"[a-z]+://(?P<server>[^/"\\]+)')
# A missing object: 'Error from server (NotFound): pods "vllm-0" not found'.
_NOT_FOUND = re.compile(r"\(NotFound\): (?P<what>[^\n]+)")


def unreachable(stderr: str) -> str | None:
    """One short sentence when kubectl's errors say no cluster answered it (else None): the server or context
    it tried, and why."""
    found = [(m, why) for pattern, why in _UNREACHABLE if (m := pattern.search(stderr)) is not None]
    if not found:
        return None
    first, why = found[0]
    named = {k: v for m, _ in reversed(found) for k, v in m.groupdict().items() if v}
    api = _API_URL.search(stderr)
    server = named.get("server") or (api["server"] if api else None)
    where = (f" at {server}" if server else "") + (f" (context {named['context']})" if "context" in named else "")
    reason = why or " ".join(first["detail"].split())
    return f"cannot reach the Kubernetes cluster{where}: {reason}; check `kubectl config current-context`"


def _run(command: list[str]) -> subprocess.CompletedProcess[str]:
    """One kubectl call; ClusterUnreachable when it says no cluster answered, so the first call tells."""
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sentence = unreachable(done.stderr)
        if sentence is not None:
            raise ClusterUnreachable(sentence)
    return done


def _failed(field: str, value: str, namespace: str, code: int, stderr: str) -> Exception:
    """A failed kubectl call as one short error: no cluster, the object missing, or kubectl's last line."""
    sentence = unreachable(stderr)
    if sentence is not None:
        return ClusterUnreachable(sentence)
    missing = _NOT_FOUND.search(stderr)
    if missing is not None:
        return FastloadConfigError(
            field, value, f"one that exists in namespace {namespace} (kubectl: {missing['what']})"
        )
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    last = " ".join(lines[-1].split())[:200] if lines else "no message"
    return FastloadConfigError(field, value, f"one kubectl can read (kubectl exited {code}: {last})")


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
    done = _run(started_at_command(pod, namespace, container, previous, kubectl=kubectl))
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
        raise _failed("--selector", selector, namespace, done.returncode, done.stderr)
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
            raise _failed("--pod", pod, namespace, code, message)
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
    label = _run(instance_label_command(pod, namespace, kubectl))
    name = label.stdout.strip()
    if label.returncode != 0 or not name:
        return None
    command = deployment_annotations_command(name, namespace, kubectl)
    done = _run(command)
    if done.returncode != 0 or not done.stdout.strip():
        return None
    try:
        annotations = json.loads(done.stdout)
    except ValueError:
        return None
    return read_plan_record(annotations) if isinstance(annotations, dict) else None
