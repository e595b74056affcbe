"""`make smoke`: after `make deploy`, check that the reference stack serves, force one scale-out and
report where its time went, phase by phase, beside the plan.

Steps (each prints what it does; the first that fails says which step, why, and what to try next):

 1. credentials      STS GetCallerIdentity
 2. kubectl          on PATH
 3. stack            CloudFormation DescribeStacks of FastloadReference: ClusterName, ModelBucketName
 4. kubeconfig       EKS DescribeCluster -> a kubeconfig of its own whose user runs
                     `python -m stacks.smoke token` (a `k8s-aws-v1.` token from a presigned STS
                     GetCallerIdentity URL: no aws CLI needed, refreshed by kubectl as it expires)
 5. stage            the model named in cdk.json (MODEL=), from FROM= unless a revision is published
 6. serving          until the Deployment has an available replica (bounded; the blocking reason of
                     each pod from its status and events while waiting)
 7. first request    one chat completion through `kubectl port-forward` on 127.0.0.1
 8. scale-out        a bounded load (N concurrent requests for at most T seconds, to 127.0.0.1 only)
                     until a new pod appears
 9. new pod          until it is ready (bounded as step 6)
10. timeline         the new pod's phases from `kubectl get events -A -o json` and its log, beside
                     the plan's fresh-node path
11. destroy          `cdk destroy` only when asked (DESTROY=1)

Every client is injected (`Clients`), so the logic runs in tests without AWS or a cluster.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import json
import math
import os
import select
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from fastload_constructs.coldstart.diagnose import Blocker, diagnose_pod
from fastload_constructs.coldstart.events import K8sEvent, parse_events
from fastload_constructs.coldstart.report import ColdStartReport
from fastload_constructs.coldstart.timeline import (
    ScaleOutTimeline,
    build_timeline,
    container_started,
    parse_pod_log,
    render_timeline,
)
from fastload_constructs.core.access.revisions import POINTER_NAME
from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.naming import STAGE_MANIFEST_NAME
from fastload_constructs.core.planning.plan import ServingPlan
from stacks.config import ModelSpec, parse_reference_config

STACK_NAME = "FastloadReference"  # app.py's stack id
NAMESPACE = "inference"  # k8s/namespace_chart.py: every model's namespace
ROOT = Path(__file__).resolve().parent.parent
# One kubectl call (get, logs) should answer in seconds; 60 s covers a slow API server and token refresh.
KUBECTL_TIMEOUT_S = 60.0
# How often the wait loops look again: often enough to print a changed reason promptly, rarely enough
# to stay far below the API server's rate limits (one get of pods and events per poll).
POLL_S = 10.0
# The presigned STS URL in a token is valid this long; EKS accepts tokens up to 15 minutes old, and
# kubectl asks again (exec plugin) when `expirationTimestamp` passes.
TOKEN_EXPIRES_S = 60
# The shortest wait for the first replica: the public EKS + Karpenter cold start in
# tests/fixtures/k8s_events/ took 6.5 minutes to its container start alone (node 167 s, pull 226 s);
# 15 minutes leaves room for the weights and a first deploy's controllers settling.
MIN_SERVING_WAIT_S = 900.0


class StepFailed(Exception):
    """A step could not finish: which, why, and the next thing to try."""

    def __init__(self, step: str, why: str, next_step: str) -> None:
        super().__init__(f"{step}: {why}")
        self.step = step
        self.why = why
        self.next_step = next_step


@dataclass(frozen=True)
class Completed:
    returncode: int
    stdout: str
    stderr: str


class Kubectl(Protocol):
    def __call__(self, args: Sequence[str], timeout_s: float = KUBECTL_TIMEOUT_S) -> Completed: ...


def subprocess_kubectl(kubeconfig: Path, kubectl: str = "kubectl") -> Kubectl:
    """kubectl with this smoke test's kubeconfig (the user's own is left alone)."""

    def run(args: Sequence[str], timeout_s: float = KUBECTL_TIMEOUT_S) -> Completed:
        try:
            done = subprocess.run(
                [kubectl, "--kubeconfig", str(kubeconfig), *args],
                capture_output=True,
                text=True,
                timeout=timeout_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Completed(124, "", f"kubectl {' '.join(args[:3])} took longer than {timeout_s:g} s")
        return Completed(done.returncode, done.stdout, done.stderr)

    return run


@dataclass
class Clients:
    """Everything the steps touch outside this process."""

    sts: Any
    cloudformation: Any
    eks: Any
    s3: Any
    kubectl: Kubectl
    which: Callable[[str], str | None] = shutil.which
    echo: Callable[[str], None] = print
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    # (LOCAL_DIR, s3://bucket/prefix) -> exit code: `fastload stage`
    stage: Callable[[str, str], int] | None = None
    # `cdk destroy`: -> exit code
    destroy: Callable[[], int] | None = None
    post: Callable[[str, dict[str, Any], float], dict[str, Any]] = field(default=lambda u, b, t: _post_json(u, b, t))


# --- steps -------------------------------------------------------------------------------------------


def check_credentials(c: Clients) -> str:
    try:
        identity = c.sts.get_caller_identity()
    except Exception as exc:  # botocore's NoCredentialsError, ClientError, EndpointConnectionError ...
        raise StepFailed(
            "credentials",
            f"STS GetCallerIdentity failed: {type(exc).__name__}: {exc}",
            "configure credentials (aws configure, aws sso login --profile P and AWS_PROFILE=P): "
            'README "Day 1: from zero to a first request"',
        ) from None
    return str(identity.get("Arn", "?"))


def check_kubectl(c: Clients) -> str:
    found = c.which("kubectl")
    if found is None:
        raise StepFailed(
            "kubectl",
            "kubectl is not on PATH",
            "install kubectl (https://kubernetes.io/docs/tasks/tools/) within one minor version of the cluster",
        )
    return found


def stack_outputs(c: Clients, stack_name: str = STACK_NAME) -> dict[str, str]:
    try:
        stacks = c.cloudformation.describe_stacks(StackName=stack_name)["Stacks"]
    except Exception as exc:
        if "does not exist" in str(exc):
            raise StepFailed("stack", f"no stack {stack_name} in this account and region", "run make deploy") from None
        raise StepFailed("stack", f"DescribeStacks failed: {exc}", "check the region (AWS_REGION)") from None
    stack = stacks[0]
    status = str(stack.get("StackStatus", ""))
    if not status.endswith("_COMPLETE") or "ROLLBACK" in status or "DELETE" in status:
        raise StepFailed(
            "stack",
            f"{stack_name} is {status}",
            "wait for it to finish, or read its events in the CloudFormation console and run make deploy again",
        )
    outputs = {str(o["OutputKey"]): str(o["OutputValue"]) for o in stack.get("Outputs", [])}
    missing = [k for k in ("ClusterName", "ModelBucketName") if k not in outputs]
    if missing:
        raise StepFailed("stack", f"{stack_name} has no output {', '.join(missing)}", "run make deploy")
    return outputs


def eks_token(sts: Any, cluster_name: str, expires_s: int = TOKEN_EXPIRES_S) -> str:
    """The EKS authentication token: `k8s-aws-v1.` + base64url (unpadded) of a presigned STS
    GetCallerIdentity URL whose signed headers include `x-k8s-aws-id: <cluster name>`."""

    def add_cluster_header(request: Any, **_: Any) -> None:
        request.headers["x-k8s-aws-id"] = cluster_name

    sts.meta.events.register_first("before-sign.sts.GetCallerIdentity", add_cluster_header)
    try:
        url = sts.generate_presigned_url("get_caller_identity", Params={}, ExpiresIn=expires_s, HttpMethod="GET")
    finally:
        sts.meta.events.unregister("before-sign.sts.GetCallerIdentity", add_cluster_header)
    return "k8s-aws-v1." + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


def kubeconfig_text(cluster: dict[str, Any], region: str, python: str = sys.executable) -> str:
    """A kubeconfig for the cluster whose user gets tokens from `python -m stacks.smoke token`."""
    name = str(cluster["name"])
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": name,
                "cluster": {
                    "server": cluster["endpoint"],
                    "certificate-authority-data": cluster["certificateAuthority"]["data"],
                },
            }
        ],
        "users": [
            {
                "name": f"fastload-smoke-{name}",
                "user": {
                    "exec": {
                        "apiVersion": "client.authentication.k8s.io/v1beta1",
                        "command": python,
                        "args": ["-m", "stacks.smoke", "token", "--cluster", name, "--region", region],
                        "env": [{"name": "PYTHONPATH", "value": str(ROOT)}],
                        "interactiveMode": "Never",
                    }
                },
            }
        ],
        "contexts": [{"name": name, "context": {"cluster": name, "user": f"fastload-smoke-{name}"}}],
        "current-context": name,
    }
    return json.dumps(config, indent=2)  # JSON is YAML: kubectl reads it


def write_kubeconfig(c: Clients, cluster_name: str, region: str, path: Path) -> Path:
    try:
        cluster = c.eks.describe_cluster(name=cluster_name)["cluster"]
    except Exception as exc:
        raise StepFailed("kubeconfig", f"EKS DescribeCluster {cluster_name}: {exc}", "run make deploy") from None
    if cluster.get("status") != "ACTIVE":
        raise StepFailed("kubeconfig", f"cluster {cluster_name} is {cluster.get('status')}", "wait, then run again")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(kubeconfig_text(cluster, region), encoding="utf-8")
    path.chmod(0o600)
    done = c.kubectl(["get", "--raw", "/readyz"])
    if done.returncode != 0:
        raise StepFailed(
            "kubeconfig",
            f"the cluster refused kubectl: {' '.join(done.stderr.split())[:300]}",
            'add your role to "fastload:adminRoleArns" in cdk.json (an EKS access entry) and run make deploy',
        )
    return path


def pick_model(context: dict[str, Any], name: str | None) -> ModelSpec:
    try:
        config = parse_reference_config(context)
    except FastloadConfigError as exc:
        raise StepFailed("stage", f"cdk.json: {exc}", "fix cdk.json (make synth shows the same error)") from None
    names = [m.name for m in config.models]
    if name is None:
        if len(names) != 1:
            raise StepFailed("stage", f"cdk.json serves {len(names)} models", f"name one: MODEL={' | '.join(names)}")
        return config.models[0]
    for m in config.models:
        if m.name == name:
            return m
    raise StepFailed("stage", f"MODEL={name} is not in cdk.json's fastload:models", f"one of: {', '.join(names)}")


def ensure_staged(c: Clients, bucket: str, model: ModelSpec, local_dir: str | None) -> str:
    uri = f"s3://{bucket}/{model.s3_prefix}"
    # A published revision (what `fastload stage` writes) or a flat stage: what the pods can load.
    for name, what in ((POINTER_NAME, "a published revision"), (STAGE_MANIFEST_NAME, "a flat stage")):
        try:
            c.s3.head_object(Bucket=bucket, Key=f"{model.s3_prefix}/{name}")
            return f"{uri} already staged ({what}: {name} present)"
        except Exception as exc:
            if "404" not in str(exc) and "Not Found" not in str(exc) and "NoSuchKey" not in str(exc):
                raise StepFailed(
                    "stage",
                    f"cannot read {uri}/{name}: {exc}",
                    'stage as a role listed in "fastload:stagerRoleArns" (the bucket refuses others)',
                ) from None
    if local_dir is None:
        raise StepFailed("stage", f"{model.name} is not staged at {uri}", "give the model's folder: FROM=./folder")
    if c.stage is None or c.stage(local_dir, uri) != 0:
        raise StepFailed("stage", f"fastload stage {local_dir} {uri} failed (above)", "fix what it said and rerun")
    return f"staged {local_dir} to {uri}"


def _json(c: Clients, args: Sequence[str], step: str) -> dict[str, Any]:
    done = c.kubectl([*args, "-o", "json"])
    if done.returncode != 0:
        raise StepFailed(step, f"kubectl {' '.join(args)}: {' '.join(done.stderr.split())[:300]}", "rerun make smoke")
    try:
        value = json.loads(done.stdout)
    except ValueError:
        raise StepFailed(step, f"kubectl {' '.join(args)} printed no JSON", "rerun make smoke") from None
    return value if isinstance(value, dict) else {}


def model_pods(c: Clients, model: ModelSpec, step: str) -> list[dict[str, Any]]:
    # The server's pods only: warm-spare placeholders share the instance label, not the component.
    selector = f"app.kubernetes.io/instance={model.name},app.kubernetes.io/component=inference-server"
    listing = _json(c, ["get", "pods", "-n", NAMESPACE, "-l", selector], step)
    pods = [p for p in listing.get("items", []) if isinstance(p, dict)]
    return sorted(pods, key=lambda p: str(p.get("metadata", {}).get("creationTimestamp", "")))


def cluster_events(c: Clients, step: str) -> list[K8sEvent]:
    """Every namespace's events: the pods' (inference) and Karpenter's NodeClaims' (cluster-scoped, "default")."""
    done = c.kubectl(["get", "events", "-A", "-o", "json"])
    if done.returncode != 0:
        raise StepFailed(step, f"kubectl get events: {' '.join(done.stderr.split())[:300]}", "rerun make smoke")
    try:
        return parse_events(done.stdout)
    except FastloadConfigError as exc:
        raise StepFailed(step, f"kubectl get events printed no event list: {exc}", "rerun make smoke") from None


def pod_blocker(c: Clients, pod: dict[str, Any], events: Sequence[K8sEvent]) -> Blocker | None:
    name = str(pod.get("metadata", {}).get("name", ""))
    mine = [e for e in events if e.kind == "Pod" and e.name == name]
    claims = {e.message.split("nodeclaim/")[-1].split()[0].rstrip(",") for e in mine if "nodeclaim/" in e.message}
    claim_events = [e for e in events if e.kind == "NodeClaim" and e.name in claims]
    return diagnose_pod(mine, pod, claim_events, pod_name=name, namespace=NAMESPACE)


def _ready(pod: dict[str, Any]) -> bool:
    conditions = pod.get("status", {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions if isinstance(c, dict))


def wait_until_serving(c: Clients, model: ModelSpec, timeout_s: float, step: str = "serving") -> dict[str, Any]:
    """Until a pod of the model is Ready; a decisive blocker (OOMKilled, image pull, crash loop, probes)
    fails at once, anything else at the timeout with the last reason seen."""
    deadline = c.clock() + timeout_s
    last_said = ""
    blocker: Blocker | None = None
    found = c.kubectl(["get", "deployment", model.name, "-n", NAMESPACE, "-o", "name"])
    if found.returncode != 0:
        raise StepFailed(
            step,
            f"no deployment/{model.name} in {NAMESPACE}: {' '.join(found.stderr.split())[:200]}",
            "the stack's manifests are not applied: run make deploy (and check that cdk.json names this model)",
        )
    while True:
        pods = model_pods(c, model, step)
        ready = [p for p in pods if _ready(p)]
        if ready:
            return ready[-1]
        events = cluster_events(c, step)
        reasons = [(p, pod_blocker(c, p, events)) for p in pods]
        blocker = next((b for _, b in reasons if b is not None and b.decisive), None) or next(
            (b for _, b in reasons if b is not None), None
        )
        said = f"{blocker.code}: {blocker.message}" if blocker else f"{len(pods)} pod(s), none ready yet"
        if said != last_said:
            c.echo(f"    {said}")
            last_said = said
        if blocker is not None and blocker.decisive:
            raise StepFailed(step, f"{blocker.code}: {blocker.message}", blocker.next_step)
        if c.clock() >= deadline:
            why = f"{blocker.code}: {blocker.message}" if blocker else "no pod of the model became ready"
            raise StepFailed(
                step,
                f"not serving after {timeout_s:.0f} s; {why}",
                blocker.next_step if blocker else f"kubectl get pods -n {NAMESPACE}; kubectl get events -n {NAMESPACE}",
            )
        c.sleep(POLL_S)


def _post_json(url: str, body: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    if not url.startswith("http://127.0.0.1:"):  # the port-forward only: never a remote address
        raise ValueError(f"refusing to send to {url}")
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=timeout_s) as response:  # 127.0.0.1 only (checked above)
        value = json.loads(response.read())
    return value if isinstance(value, dict) else {}


@contextmanager
def port_forward(kubeconfig: Path, service: str, port: int = 8000, kubectl: str = "kubectl") -> Iterator[int]:
    """`kubectl port-forward svc/NAME :PORT` (the engine's server port) on 127.0.0.1; yields the local port."""
    process = subprocess.Popen(
        [
            kubectl,
            "--kubeconfig",
            str(kubeconfig),
            "port-forward",
            "-n",
            NAMESPACE,
            "--address",
            "127.0.0.1",
            f"svc/{service}",
            f":{port}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        # kubectl prints "Forwarding from 127.0.0.1:41234 -> 8000" once the tunnel is up (seconds).
        ready, _, _ = select.select([process.stdout], [], [], PORT_FORWARD_TIMEOUT_S)
        line = process.stdout.readline() if ready else ""
        if "127.0.0.1:" not in line:
            error = process.stderr.read() if process.stderr is not None else ""
            raise StepFailed("first request", f"kubectl port-forward: {line or error}", "rerun make smoke")
        yield int(line.split("127.0.0.1:")[1].split()[0])
    finally:
        process.terminate()
        process.wait(timeout=10)


# kubectl port-forward is up in a few seconds; 30 s allows a token refresh and a slow API server.
PORT_FORWARD_TIMEOUT_S = 30.0
# A chat completion on a loaded 8B model answers in seconds; 120 s allows a first request that still
# compiles or captures a shape.
REQUEST_TIMEOUT_S = 120.0


def first_request(c: Clients, port: int, model: ModelSpec) -> str:
    body = {"model": model.name, "messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 16}
    try:
        answer = c.post(f"http://127.0.0.1:{port}/v1/chat/completions", body, REQUEST_TIMEOUT_S)
        return str(answer["choices"][0]["message"]["content"]).strip()
    except (urllib.error.URLError, OSError, KeyError, IndexError, ValueError) as exc:
        raise StepFailed(
            "first request",
            f"POST /v1/chat/completions: {type(exc).__name__}: {exc}",
            f"kubectl logs -n {NAMESPACE} -l app.kubernetes.io/instance={model.name} --tail=50",
        ) from None


@dataclass(frozen=True)
class LoadSettings:
    concurrency: int
    max_seconds: float
    max_tokens: int = 512


def load_settings(model: ModelSpec, plan: ServingPlan, concurrency: int | None, seconds: float | None) -> LoadSettings:
    """N concurrent requests: vLLM runs up to max_num_seqs at once and queues the rest, and KEDA scales on
    the queue (targetWaitingRequests per replica): N = max_num_seqs + 2 x target asks for one replica
    more than the one serving. T: long enough for the scraper (30 s), KEDA's poll and the HPA's
    scale-up stabilisation (core.scaling), twice over."""
    from fastload_constructs.core.scaling.autoscaling import scaling_behavior

    seqs = plan.capture.max_num_seqs if plan.capture is not None else model.options.max_num_seqs or 256
    n = concurrency or seqs + 2 * math.ceil(model.autoscaling.target)
    behavior = scaling_behavior(plan)
    t = seconds or 2.0 * (30 + behavior.polling_interval_s + behavior.scale_up_window_s)
    return LoadSettings(concurrency=n, max_seconds=t)


def force_scale_out(c: Clients, port: int, model: ModelSpec, load: LoadSettings, step: str = "scale-out") -> str:
    """Send `load.concurrency` requests at a time until a new pod of the model appears or `max_seconds` pass."""
    if model.autoscaling.max_replicas <= model.autoscaling.min_replicas:
        raise StepFailed(
            step,
            f"{model.name} has a fixed replica count ({model.autoscaling.min_replicas})",
            'set "maxReplicas" above "minReplicas" for the model in cdk.json and run make deploy',
        )
    before = {str(p.get("metadata", {}).get("name")) for p in model_pods(c, model, step)}
    stop = threading.Event()
    body = {
        "model": model.name,
        "messages": [{"role": "user", "content": "Count to 500."}],
        "max_tokens": load.max_tokens,
    }

    def worker() -> None:
        while not stop.is_set():
            try:
                c.post(f"http://127.0.0.1:{port}/v1/chat/completions", body, REQUEST_TIMEOUT_S)
            except Exception:  # a refused or timed-out request is load all the same
                stop.wait(1.0)  # back off a second: a refused port-forward must not become a busy loop

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(load.concurrency)]
    for t in threads:
        t.start()
    deadline = c.clock() + load.max_seconds
    try:
        while c.clock() < deadline:
            new = [p for p in model_pods(c, model, step) if str(p.get("metadata", {}).get("name")) not in before]
            if new:
                return str(new[-1]["metadata"]["name"])
            c.sleep(POLL_S)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=REQUEST_TIMEOUT_S)
    raise StepFailed(
        step,
        f"no new pod after {load.max_seconds:.0f} s of {load.concurrency} concurrent requests",
        f"check the metric path: kubectl get scaledobject,hpa -n {NAMESPACE}; kubectl describe hpa -n {NAMESPACE}",
    )


def pod_ready_at(pod: dict[str, Any]) -> datetime | None:
    for cond in pod.get("status", {}).get("conditions") or []:
        if isinstance(cond, dict) and cond.get("type") == "Ready" and cond.get("status") == "True":
            text = str(cond.get("lastTransitionTime", "")).replace("Z", "+00:00")
            try:
                return datetime.fromisoformat(text).astimezone(timezone.utc).replace(tzinfo=None)
            except ValueError:
                return None
    return None


def scale_out_timeline(c: Clients, pod_name: str, plan: ServingPlan, step: str = "timeline") -> ScaleOutTimeline:
    events = cluster_events(c, step)
    pod = _json(c, ["get", "pod", pod_name, "-n", NAMESPACE], step)
    log: ColdStartReport | None = None
    note: str | None = None
    # The server container of the plan's engine (core.engines).
    container = engine_named(plan.engine).container_name
    done = c.kubectl(["logs", pod_name, "-n", NAMESPACE, "-c", container, "--timestamps"], timeout_s=KUBECTL_TIMEOUT_S)
    if done.returncode == 0:
        try:
            log, note = parse_pod_log(done.stdout, container_started(events, pod_name), label=pod_name)
        except FastloadConfigError:  # no start-up line at all: the events alone
            log = None
    try:
        timeline = build_timeline(events, pod=pod_name, log=log, plan=plan, ready_at=pod_ready_at(pod))
    except FastloadConfigError as exc:
        raise StepFailed(
            step,
            f"the events do not cover {pod_name}: {exc}",
            "events live 1 hour by default: rerun soon after a scale-out, or save kubectl get events -A -o json "
            "and run fastload timeline on it",
        ) from None
    return dataclasses.replace(timeline, notes=(*timeline.notes, note)) if note else timeline


# --- running the steps --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SmokeOptions:
    region: str
    model: str | None = None
    from_dir: str | None = None
    destroy: bool = False
    wait_s: float | None = None
    load_concurrency: int | None = None
    load_seconds: float | None = None
    kubeconfig: Path = ROOT / "cdk.out" / "smoke-kubeconfig.json"
    context: dict[str, Any] = field(default_factory=dict)


def serving_timeout(plan: ServingPlan) -> float:
    """The wait for the first replica: the fresh-node path twice (its node phases are estimates that
    published launches beat or miss by up to 2x) plus the startup-probe budget, at least 15 minutes."""
    fresh = plan.scale_out_paths.fresh_node.total_s if plan.scale_out_paths else 0.0
    return max(MIN_SERVING_WAIT_S, 2 * fresh + plan.startup_probe.budget_seconds)


def wait_for_new_pod(c: Clients, pod_name: str, wait_s: float) -> str:
    """Until the scaled-out pod is ready; a decisive blocker (no capacity, a bad image) fails at once."""
    deadline = c.clock() + wait_s
    while c.clock() < deadline:
        pod = _json(c, ["get", "pod", pod_name, "-n", NAMESPACE], "scale-out")
        if _ready(pod):
            return f"{pod_name} is ready"
        blocker = pod_blocker(c, pod, cluster_events(c, "scale-out"))
        if blocker is not None and blocker.decisive:
            raise StepFailed("scale-out", f"{blocker.code}: {blocker.message}", blocker.next_step)
        c.sleep(POLL_S)
    raise StepFailed("scale-out", f"{pod_name} not ready after {wait_s:.0f} s", "see the timeline")


def run_smoke(
    c: Clients,
    o: SmokeOptions,
    forward: Callable[[str, int], Any] | None = None,
) -> int:
    """All steps in order; 0 when the scale-out was measured, 1 with the failed step named."""
    steps_total = 11
    state: dict[str, Any] = {"step": "start"}

    def step(number: int, name: str, action: Callable[[], str]) -> None:
        state["step"] = name
        c.echo(f"[{number}/{steps_total}] {name}")
        result = action()
        if result:
            c.echo(f"    {result}")

    try:
        step(1, "credentials (STS GetCallerIdentity)", lambda: f"as {check_credentials(c)}")
        step(2, "kubectl on PATH", lambda: check_kubectl(c))
        state["outputs"] = {}

        def find_stack() -> str:
            state["outputs"] = stack_outputs(c)
            return f"cluster {state['outputs']['ClusterName']}, bucket {state['outputs']['ModelBucketName']}"

        step(3, f"stack {STACK_NAME} (CloudFormation outputs)", find_stack)
        step(
            4,
            "kubeconfig (EKS DescribeCluster, token from a presigned STS URL)",
            lambda: (
                f"wrote {write_kubeconfig(c, state['outputs']['ClusterName'], o.region, o.kubeconfig)} "
                f"(export KUBECONFIG={o.kubeconfig} to use it)"
            ),
        )
        model = pick_model(o.context, o.model)
        plan = model.serving_plan()
        step(5, f"stage {model.name}", lambda: ensure_staged(c, state["outputs"]["ModelBucketName"], model, o.from_dir))
        wait_s = o.wait_s or serving_timeout(plan)
        step(
            6,
            f"wait until deploy/{model.name} serves (at most {wait_s:.0f} s)",
            lambda: f"pod {wait_until_serving(c, model, wait_s)['metadata']['name']} is ready",
        )
        if forward is None:
            raise StepFailed("first request", "no port-forward available", "rerun make smoke")
        with forward(model.name, engine_named(plan.engine).port) as port:
            step(7, f"one chat completion via 127.0.0.1:{port}", lambda: f"answer: {first_request(c, port, model)!r}")
            load = load_settings(model, plan, o.load_concurrency, o.load_seconds)

            def scale() -> str:
                state["new_pod"] = force_scale_out(c, port, model, load)
                return f"new pod {state['new_pod']}"

            step(
                8,
                f"force a scale-out ({load.concurrency} concurrent requests, at most {load.max_seconds:.0f} s)",
                scale,
            )

        step(9, "wait for the new pod", lambda: wait_for_new_pod(c, state["new_pod"], wait_s))
        step(
            10,
            "timeline of the new pod beside the plan",
            lambda: render_timeline(scale_out_timeline(c, state["new_pod"], plan)),
        )
        if o.destroy:
            step(11, f"cdk destroy {STACK_NAME} (DESTROY=1)", lambda: _destroy(c))
        else:
            c.echo(f"[11/{steps_total}] destroy: skipped (make smoke DESTROY=1 tears the stack down)")
    except StepFailed as failed:
        c.echo(f"smoke: step '{failed.step}' failed: {failed.why}")
        c.echo(f"smoke: next: {failed.next_step}")
        return 1
    except Exception as exc:  # a bug or an answer no step expected: still the step, in one line
        what = " ".join(f"{type(exc).__name__}: {exc}".split())[:500]
        c.echo(f"smoke: step '{state['step']}' failed unexpectedly: {what}")
        c.echo("smoke: next: rerun make smoke; if it repeats, report this line")
        return 1
    return 0


def _destroy(c: Clients) -> str:
    if c.destroy is None or c.destroy() != 0:
        raise StepFailed("destroy", "cdk destroy failed (above)", "rerun make smoke DESTROY=1, or delete the stack")
    return "destroyed"


# --- entry points -------------------------------------------------------------------------------------


def _cdk_context() -> dict[str, Any]:
    raw = json.loads((ROOT / "cdk.json").read_text(encoding="utf-8"))
    context = raw.get("context", {})
    return context if isinstance(context, dict) else {}


def _token_main(argv: Sequence[str]) -> int:
    """`python -m stacks.smoke token --cluster NAME --region R`: kubectl's exec credential."""
    import boto3

    parser = argparse.ArgumentParser(prog="stacks.smoke token")
    parser.add_argument("--cluster", required=True)
    parser.add_argument("--region", required=True)
    args = parser.parse_args(argv)
    sts = boto3.Session(region_name=args.region).client(
        "sts", region_name=args.region, endpoint_url=f"https://sts.{args.region}.amazonaws.com"
    )
    expires = datetime.now(timezone.utc).timestamp() + 14 * 60  # EKS accepts a token for 15 minutes
    print(
        json.dumps(
            {
                "kind": "ExecCredential",
                "apiVersion": "client.authentication.k8s.io/v1beta1",
                "spec": {},
                "status": {
                    "token": eks_token(sts, args.cluster),
                    "expirationTimestamp": datetime.fromtimestamp(expires, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                },
            }
        )
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["token"]:
        return _token_main(argv[1:])
    parser = argparse.ArgumentParser(prog="make smoke", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--model", default=os.environ.get("MODEL") or None, help="a model name from cdk.json")
    parser.add_argument("--from", dest="from_dir", default=os.environ.get("FROM") or None, help="its local folder")
    parser.add_argument("--destroy", action="store_true", default=os.environ.get("DESTROY") == "1")
    parser.add_argument("--region", default=None)
    parser.add_argument("--wait-seconds", type=float, default=None)
    parser.add_argument("--load-concurrency", type=int, default=None)
    parser.add_argument("--load-seconds", type=float, default=None)
    args = parser.parse_args(argv)
    context = _cdk_context()
    try:  # MODEL= is checked against cdk.json before any AWS call: a typo is no credentials problem
        pick_model(context, args.model)
    except StepFailed as failed:
        print(f"smoke: step 'model' failed: {failed.why}", file=sys.stderr)
        print(f"smoke: next: {failed.next_step}", file=sys.stderr)
        return 1

    import boto3
    from botocore.exceptions import BotoCoreError

    # AWS_REGION is what the CDK CLI and the AWS CLI read; boto3 reads AWS_DEFAULT_REGION and profiles.
    try:
        session = boto3.Session(region_name=args.region or os.environ.get("AWS_REGION") or None)
    except BotoCoreError as exc:  # a profile that does not exist, an unreadable config file
        print(f"smoke: step 'credentials' failed: {exc}", file=sys.stderr)
        print("smoke: next: aws configure list-profiles, then export AWS_PROFILE=<one of them>", file=sys.stderr)
        return 1
    region = session.region_name
    if not region:
        print("smoke: step 'credentials' failed: no AWS region configured", file=sys.stderr)
        print("smoke: next: export AWS_REGION=<region> (the one you deployed to)", file=sys.stderr)
        return 1
    options = SmokeOptions(
        region=region,
        model=args.model,
        from_dir=args.from_dir,
        destroy=args.destroy,
        wait_s=args.wait_seconds,
        load_concurrency=args.load_concurrency,
        load_seconds=args.load_seconds,
        context=context,
    )

    def stage(local_dir: str, uri: str) -> int:
        from fastload_constructs.cli.main import main as fastload

        return fastload(["stage", local_dir, uri])

    def destroy() -> int:
        cdk = ROOT / ".venv" / "cdk-cli" / "node_modules" / ".bin" / "cdk"
        return subprocess.run([str(cdk), "destroy", "--force", STACK_NAME], cwd=ROOT, check=False).returncode

    clients = Clients(
        sts=session.client("sts", endpoint_url=f"https://sts.{region}.amazonaws.com"),
        cloudformation=session.client("cloudformation"),
        eks=session.client("eks"),
        s3=session.client("s3"),
        kubectl=subprocess_kubectl(options.kubeconfig),
        stage=stage,
        destroy=destroy,
    )
    return run_smoke(clients, options, forward=lambda service, port: port_forward(options.kubeconfig, service, port))


if __name__ == "__main__":
    sys.exit(main())
