"""`make smoke` (stacks/smoke.py): each step's logic with injected clients, no AWS and no cluster.

Blocking reasons are checked on the real event excerpts of tests/fixtures/k8s_events/ (SOURCES.md);
pod statuses are built in the shapes the issues quoted (`Last State: Terminated, Reason: OOMKilled,
Exit Code: 137`; `CrashLoopBackOff 5 (2m30s ago)`).
"""

from __future__ import annotations

import base64
import json
import urllib.parse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import botocore.session
import pytest

from fastload_constructs.coldstart import timeline as smoke_timeline
from fastload_constructs.coldstart.diagnose import diagnose_pod
from fastload_constructs.coldstart.events import parse_events
from stacks import smoke
from stacks.smoke import Clients, Completed, SmokeOptions, StepFailed
from tests.test_timeline import POD, _scale_out

EVENTS = Path(__file__).parent / "fixtures" / "k8s_events"
LOG = Path(__file__).parent / "fixtures" / "vllm_logs" / "real" / "v0.20_docker_local_time_prefix_enforce_eager.log"
CONTEXT = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]


def _sample(name: str) -> list[Any]:
    return parse_events((EVENTS / name).read_text())


# --- blocking reasons on real samples -----------------------------------------------------------------


def test_image_that_does_not_exist_java_client_2142() -> None:
    b = diagnose_pod(_sample("java_client_2142_image_pull_backoff_excerpt.txt"))
    assert b is not None and b.code == "ImagePullBackOff" and b.decisive
    assert "busybox:v1.0" in b.message and "not found" in b.message


def test_gpu_pod_waiting_for_karpenters_node_data_on_eks_589() -> None:
    b = diagnose_pod(_sample("data_on_eks_589_rayserve_vllm_nominated_excerpt.txt"))
    assert b is not None and b.code == "WaitingForNode" and not b.decisive
    assert "nodeclaim/g5-gpu-karpenter-ldz6d" in b.message


def test_older_karpenter_machine_nomination_5406() -> None:
    b = diagnose_pod(_sample("karpenter_5406_failed_scheduling_excerpt.txt"))
    assert b is not None and b.code == "WaitingForNode" and "machine/bottlerocket-prov-4m5qp" in b.message


def test_failed_scheduling_without_a_nomination_is_no_node_launched() -> None:
    events = [e for e in _sample("karpenter_5406_failed_scheduling_excerpt.txt") if e.reason == "FailedScheduling"]
    b = diagnose_pod(events)
    assert b is not None and b.code == "NoNodeLaunched" and "nodepools" in b.next_step


def test_vllm_crash_loop_aibrix_1054() -> None:
    """The issue's `kubectl get pods`: CrashLoopBackOff, 5 restarts; its describe Events below."""
    status = {
        "status": {
            "containerStatuses": [
                {
                    "name": "vllm-openai",
                    "restartCount": 5,
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}},
                    "lastState": {"terminated": {"reason": "Error", "exitCode": 1}},
                }
            ]
        }
    }
    b = diagnose_pod(_sample("aibrix_1054_vllm_describe_pod_excerpt.txt"), status, pod_name="p", namespace="ns")
    assert b is not None and b.code == "CrashLoopBackOff" and b.decisive
    assert "5 restarts" in b.message and "--previous" in b.next_step
    # Without the status, the same events say the server is not ready yet (probes refused, still loading).
    b = diagnose_pod(_sample("aibrix_1054_vllm_describe_pod_excerpt.txt"))
    assert b is not None and b.code == "NotReadyYet" and "connection refused" in b.message


def test_oom_killed_from_the_pod_status() -> None:
    status = {
        "status": {
            "containerStatuses": [
                {
                    "name": "vllm",
                    "restartCount": 2,
                    "lastState": {"terminated": {"reason": "OOMKilled", "exitCode": 137}},
                }
            ]
        }
    }
    b = diagnose_pod([], status)
    assert b is not None and b.code == "OOMKilled" and b.decisive and "137" in b.message


def test_startup_probe_that_kills_the_pod() -> None:
    events = _sample("kube_prometheus_1674_startup_probe_503_excerpt.txt")
    assert diagnose_pod(events) is not None  # probes failing, nothing killed yet: not decisive
    killed = parse_events(
        "Events:\n  Type     Reason   Age   From     Message\n  ----     ------   ----  ----     -------\n"
        "  Normal   Killing  3m    kubelet  Container vllm failed startup probe, will be restarted\n"
    )
    b = diagnose_pod(events + killed)
    assert b is not None and b.code == "ProbeFailing" and b.decisive and "x1741" in b.message


def test_survived_problems_are_not_blamed() -> None:
    events = parse_events(json.dumps(_scale_out()))
    assert diagnose_pod([e for e in events if e.name == POD]) is None  # FailedScheduling, then scheduled


# --- fakes ----------------------------------------------------------------------------------------------


class Cluster:
    """A fake kubectl: pods appear and get ready as the test says; events from the synthetic scale-out."""

    def __init__(self, pods: list[dict[str, Any]], events: str) -> None:
        self.pods = pods
        self.events = events
        self.calls: list[list[str]] = []
        self.deployment_exists = True
        self.on_poll: list[Any] = []

    def __call__(self, args: Sequence[str], timeout_s: float = 60) -> Completed:
        self.calls.append(list(args))
        if args[:2] == ["get", "--raw"]:
            return Completed(0, "ok", "")
        if args[:2] == ["get", "deployment"]:
            found = self.deployment_exists
            return Completed(
                0 if found else 1, f"deployment.apps/{args[2]}" if found else "", "" if found else "NotFound"
            )
        if args[:2] == ["get", "pods"]:
            if self.on_poll:
                self.on_poll.pop(0)()
            return Completed(0, json.dumps({"items": self.pods}), "")
        if args[:2] == ["get", "pod"]:
            pod = next(p for p in self.pods if p["metadata"]["name"] == args[2])
            return Completed(0, json.dumps(pod), "")
        if args[:2] == ["get", "events"]:
            return Completed(0, self.events, "")
        if args[0] == "logs":
            return Completed(0, LOG.read_text(), "")
        return Completed(1, "", f"unexpected {args}")


def _pod(name: str, ready: bool, created: str = "2026-12-03T17:00:00Z") -> dict[str, Any]:
    return {
        "metadata": {"name": name, "creationTimestamp": created},
        "status": {
            "conditions": [
                {"type": "Ready", "status": "True" if ready else "False", "lastTransitionTime": "2026-12-03T17:04:00Z"}
            ]
        },
    }


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


class FailingSts:
    def get_caller_identity(self) -> dict[str, str]:
        raise RuntimeError("Unable to locate credentials")


class Sts:
    def get_caller_identity(self) -> dict[str, str]:
        return {"Arn": "arn:aws:iam::111122223333:role/dev"}


class Cfn:
    def __init__(self, status: str = "CREATE_COMPLETE", exists: bool = True) -> None:
        self.status, self.exists = status, exists

    def describe_stacks(self, StackName: str) -> dict[str, Any]:
        if not self.exists:
            raise RuntimeError(f"An error occurred (ValidationError): Stack with id {StackName} does not exist")
        outputs = [
            {"OutputKey": "ClusterName", "OutputValue": "FastloadReference"},
            {"OutputKey": "ModelBucketName", "OutputValue": "models-bucket"},
        ]
        return {"Stacks": [{"StackStatus": self.status, "Outputs": outputs}]}


class Eks:
    def describe_cluster(self, name: str) -> dict[str, Any]:
        return {
            "cluster": {
                "name": name,
                "status": "ACTIVE",
                "endpoint": "https://example.eks.amazonaws.com",
                "certificateAuthority": {"data": "Q0E="},
            }
        }


class S3:
    def __init__(self, error: str | None = None) -> None:
        self.error = error

    def head_object(self, Bucket: str, Key: str) -> dict[str, Any]:
        if self.error:
            raise RuntimeError(self.error)
        return {}


def _clients(cluster: Cluster, clock: Clock, **overrides: Any) -> tuple[Clients, list[str]]:
    said: list[str] = []
    values: dict[str, Any] = {
        "sts": Sts(),
        "cloudformation": Cfn(),
        "eks": Eks(),
        "s3": S3(),
        "kubectl": cluster,
        "which": lambda _: "/usr/bin/kubectl",
        "echo": said.append,
        "sleep": clock.sleep,
        "clock": clock,
        "post": lambda url, body, timeout: {"choices": [{"message": {"content": "Hello!"}}]},
    }
    values.update(overrides)
    return Clients(**values), said


# --- steps ---------------------------------------------------------------------------------------------


def test_eks_token_is_a_presigned_get_caller_identity_for_the_cluster() -> None:
    session = botocore.session.Session()
    session.set_credentials("AKIDEXAMPLE", "secret")
    sts = session.create_client("sts", region_name="us-west-2", endpoint_url="https://sts.us-west-2.amazonaws.com")
    token = smoke.eks_token(sts, "FastloadReference")
    assert token.startswith("k8s-aws-v1.") and "=" not in token
    payload = token.removeprefix("k8s-aws-v1.")
    url = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qs(parts.query)
    assert parts.netloc == "sts.us-west-2.amazonaws.com"
    assert query["Action"] == ["GetCallerIdentity"] and query["X-Amz-Expires"] == ["60"]
    assert "x-k8s-aws-id" in query["X-Amz-SignedHeaders"][0].split(";")
    # The header hook is removed again: a token for another cluster signs that cluster's name only.
    assert smoke.eks_token(sts, "other") != token


def test_kubeconfig_runs_this_module_for_tokens(tmp_path: Path) -> None:
    cluster = Cluster([], "{}")
    clients, _ = _clients(cluster, Clock())
    path = smoke.write_kubeconfig(clients, "FastloadReference", "us-west-2", tmp_path / "kc.json")
    config = json.loads(path.read_text())
    user = config["users"][0]["user"]["exec"]
    assert user["args"] == ["-m", "stacks.smoke", "token", "--cluster", "FastloadReference", "--region", "us-west-2"]
    assert config["clusters"][0]["cluster"]["server"] == "https://example.eks.amazonaws.com"
    assert path.stat().st_mode & 0o077 == 0


def test_missing_stack_says_make_deploy() -> None:
    clients, said = _clients(Cluster([], "{}"), Clock(), cloudformation=Cfn(exists=False))
    assert smoke.run_smoke(clients, SmokeOptions(region="us-west-2", context=CONTEXT)) == 1
    assert "[3/11] stack FastloadReference (CloudFormation outputs)" in said
    assert said[-1] == "smoke: next: run make deploy"


@pytest.mark.parametrize(
    ("overrides", "step", "hint"),
    [
        ({"sts": FailingSts()}, "credentials", "aws configure"),
        ({"which": lambda _: None}, "kubectl", "install kubectl"),
        ({"cloudformation": Cfn(status="ROLLBACK_COMPLETE")}, "stack", "make deploy"),
    ],
)
def test_each_early_failure_names_its_step(overrides: dict[str, Any], step: str, hint: str) -> None:
    clients, said = _clients(Cluster([], "{}"), Clock(), **overrides)
    assert smoke.run_smoke(clients, SmokeOptions(region="us-west-2", context=CONTEXT)) == 1
    assert said[-2].startswith(f"smoke: step '{step}' failed:") and hint in said[-1]


def test_stage_only_when_missing() -> None:
    model = smoke.pick_model(CONTEXT, None)
    clients, _ = _clients(Cluster([], "{}"), Clock())
    assert "already staged" in smoke.ensure_staged(clients, "b", model, None)
    staged: list[tuple[str, str]] = []
    clients, _ = _clients(
        Cluster([], "{}"),
        Clock(),
        s3=S3("An error occurred (404) when calling HeadObject: Not Found"),
        stage=lambda d, u: staged.append((d, u)) or 0,
    )
    with pytest.raises(StepFailed) as caught:
        smoke.ensure_staged(clients, "b", model, None)
    assert "FROM=" in caught.value.next_step
    smoke.ensure_staged(clients, "b", model, "./Llama")
    assert staged == [("./Llama", f"s3://b/{model.s3_prefix}")]
    clients, _ = _clients(
        Cluster([], "{}"), Clock(), s3=S3("An error occurred (403) when calling HeadObject: Forbidden")
    )
    with pytest.raises(StepFailed) as caught:
        smoke.ensure_staged(clients, "b", model, "./Llama")
    assert "stagerRoleArns" in caught.value.next_step


def test_unknown_model_lists_the_known_ones() -> None:
    with pytest.raises(StepFailed) as caught:
        smoke.pick_model(CONTEXT, "nope")
    assert "llama-3-1-8b-instruct" in caught.value.next_step


def test_a_model_typo_is_named_before_any_aws_call(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    import boto3

    def no_aws(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("an AWS session was opened before MODEL= was checked")

    monkeypatch.setattr(boto3, "Session", no_aws)
    assert smoke.main(["--model", "lama-3-1-8b-instruct"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "smoke: step 'model' failed: MODEL=lama-3-1-8b-instruct is not in cdk.json's fastload:models"
    assert "llama-3-1-8b-instruct" in err[1]


def test_wait_prints_the_reason_then_returns_the_ready_pod() -> None:
    events = json.dumps({"items": _scale_out()})
    cluster = Cluster([_pod(POD, ready=False)], events)
    cluster.on_poll = [lambda: None, lambda: cluster.pods.__setitem__(0, _pod(POD, ready=True))]
    clock = Clock()
    clients, said = _clients(cluster, clock)
    model = smoke.pick_model(CONTEXT, None)
    assert smoke.wait_until_serving(clients, model, 600)["metadata"]["name"] == POD
    assert any("WaitingForNode" not in s for s in said)  # the synthetic pod got past scheduling: not blamed


def test_wait_fails_at_once_on_a_decisive_blocker() -> None:
    status = _pod(POD, ready=False)
    status["status"]["containerStatuses"] = [
        {"name": "vllm", "state": {"waiting": {"reason": "ImagePullBackOff"}}, "restartCount": 0}
    ]
    clients, _ = _clients(Cluster([status], json.dumps({"items": []})), Clock())
    with pytest.raises(StepFailed) as caught:
        smoke.wait_until_serving(clients, smoke.pick_model(CONTEXT, None), 600)
    assert caught.value.step == "serving" and "ImagePullBackOff" in caught.value.why


def test_wait_is_bounded() -> None:
    clock = Clock()
    clients, _ = _clients(Cluster([_pod(POD, ready=False)], json.dumps({"items": []})), clock)
    with pytest.raises(StepFailed) as caught:
        smoke.wait_until_serving(clients, smoke.pick_model(CONTEXT, None), 120)
    assert "not serving after 120 s" in caught.value.why and clock.now <= 120 + smoke.POLL_S


def test_requests_go_to_127_0_0_1_only() -> None:
    with pytest.raises(ValueError):
        smoke._post_json("http://example.com:8000/v1/chat/completions", {}, 1)


def test_load_is_bounded_and_explained() -> None:
    model = smoke.pick_model(CONTEXT, None)
    load = smoke.load_settings(model, model.serving_plan(), None, None)
    # vLLM's own max_num_seqs on the L40S (256), + cdk.json's targetWaitingRequests 4 twice.
    assert load.concurrency == 256 + 2 * 4
    assert 0 < load.max_seconds <= 1800


def test_whole_run_with_fakes_measures_the_new_pod(tmp_path: Path) -> None:
    old = _pod("llama-3-1-8b-instruct-old", ready=True, created="2026-12-03T16:00:00Z")
    cluster = Cluster([old], json.dumps({"items": _scale_out()}))
    clock = Clock()
    clients, said = _clients(cluster, clock)
    # Polls: wait (ready at once), before-load listing, first load poll (new pod appears).
    cluster.on_poll = [lambda: None, lambda: None, lambda: cluster.pods.append(_pod(POD, ready=True))]

    @contextmanager
    def forward(service: str, port: int) -> Iterator[int]:
        assert (service, port) == ("llama-3-1-8b-instruct", 8000)  # the vLLM Service's port
        yield 18000

    options = SmokeOptions(
        region="us-west-2", context=CONTEXT, kubeconfig=tmp_path / "kc.json", load_concurrency=2, load_seconds=60
    )
    assert smoke.run_smoke(clients, options, forward=forward) == 0, said
    text = "\n".join(said)
    assert "answer: 'Hello!'" in text and f"new pod {POD}" in text
    assert "node_launch" in text and "total to ready" in text and "destroy: skipped" in text
    # The log (May 2026, docker compose clock) is not on the events' clock (December): its durations are
    # kept, its process start left out, and the note says so.
    assert "another clock" in text or "process start left out" in text
    timeline = smoke.scale_out_timeline(clients, POD, smoke.pick_model(CONTEXT, None).serving_plan())
    phases = {p.name: p.seconds for p in timeline.phases}
    assert phases["node_launch"] == 44.0 and phases["weight_load"] is not None
    assert (phases["process_start"] or 0) < smoke_timeline.MAX_PROCESS_START_S


def test_an_unexpected_answer_still_names_the_step(tmp_path: Path) -> None:
    class BrokenEks:
        def describe_cluster(self, name: str) -> dict[str, Any]:
            return {"cluster": {"name": name, "status": "ACTIVE"}}  # no endpoint

    clients, said = _clients(Cluster([], "{}"), Clock(), eks=BrokenEks())
    options = SmokeOptions(region="us-west-2", context=CONTEXT, kubeconfig=tmp_path / "kc.json")
    assert smoke.run_smoke(clients, options) == 1
    assert said[-2].startswith("smoke: step 'kubeconfig") and "KeyError" in said[-2]
    assert "Traceback" not in "\n".join(said)


def test_liveness_probe_killing_the_server_llm_d_inference_sim_45() -> None:
    b = diagnose_pod(_sample("describe-pod-events-liveness-probe-Killing-llm-d-inference-sim-45.txt"))
    assert b is not None and b.code == "ProbeFailing" and b.decisive and "failed liveness probe" in b.message


def test_gpu_not_yet_advertised_and_no_nomination_device_plugin_291() -> None:
    b = diagnose_pod(_sample("describe-pod-events-Insufficient-nvidia-gpu-device-plugin-291.txt"))
    assert b is not None and b.code == "NoNodeLaunched" and "Insufficient nvidia.com/gpu" in b.message


def test_latest_nomination_wins_karpenter_4450() -> None:
    b = diagnose_pod(_sample("describe-pod-events-Nominated-xN-over-karpenter-4450.txt"))
    assert b is not None and b.code == "WaitingForNode" and "machine/default-j956g" in b.message


def test_readiness_failing_after_start_gke_keda() -> None:
    events = [e for e in _sample("get-events-sorted-gke-keda-vllm-v0.27.1-coldstart-truncated.txt") if e.kind == "Pod"]
    b = diagnose_pod(events)
    assert b is not None and b.code == "NotReadyYet" and "Readiness probe failed" in b.message


def test_a_missing_deployment_says_make_deploy() -> None:
    cluster = Cluster([], json.dumps({"items": []}))
    cluster.deployment_exists = False
    clients, _ = _clients(cluster, Clock())
    with pytest.raises(StepFailed) as caught:
        smoke.wait_until_serving(clients, smoke.pick_model(CONTEXT, None), 600)
    assert "no deployment/llama-3-1-8b-instruct" in caught.value.why and "make deploy" in caught.value.next_step


def test_port_forward_reads_the_port_kubectl_chose(tmp_path: Path) -> None:
    fake = tmp_path / "kubectl"
    fake.write_text("#!/bin/sh\necho 'Forwarding from 127.0.0.1:41234 -> 8000'\nexec sleep 30\n")
    fake.chmod(0o755)
    with smoke.port_forward(tmp_path / "kc.json", "llama", kubectl=str(fake)) as port:
        assert port == 41234
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\necho 'error: services \"llama\" not found' >&2\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(StepFailed) as caught, smoke.port_forward(tmp_path / "kc.json", "llama", kubectl=str(broken)):
        pass
    assert 'services "llama" not found' in caught.value.why


def test_a_node_that_launched_and_never_registered() -> None:
    """data-on-eks#589's pod, nominated to nodeclaim g5-gpu-karpenter-ldz6d, with that NodeClaim's
    Launched event (the Karpenter docs' wording) 10 minutes before the latest event and no Registered."""
    pod_events = _sample("data_on_eks_589_rayserve_vllm_nominated_excerpt.txt")
    launched = parse_events(
        "Name:         g5-gpu-karpenter-ldz6d\nKind:         NodeClaim\nEvents:\n"
        "  Type    Reason    Age   From       Message\n  ----    ------    ----  ----       -------\n"
        "  Normal  Launched  32m   karpenter  Status condition transitioned, Type: Launched\n"
    )
    b = diagnose_pod(pod_events, node_claim_events=launched)
    assert b is not None and b.code == "NodeNotJoining" and "access entry" in b.next_step
    # Registered: just waiting for the node again.
    registered = parse_events(
        "Name:         g5-gpu-karpenter-ldz6d\nKind:         NodeClaim\nEvents:\n"
        "  Type    Reason      Age   From       Message\n  ----    ------      ----  ----       -------\n"
        "  Normal  Launched    32m   karpenter  Status condition transitioned, Type: Launched\n"
        "  Normal  Registered  31m   karpenter  Status condition transitioned, Type: Registered\n"
    )
    b = diagnose_pod(pod_events, node_claim_events=registered)
    assert b is not None and b.code == "WaitingForNode"


def test_the_port_forward_and_the_log_follow_the_plans_engine():
    """An SGLang Service listens on 30000 and its container is `sglang`: smoke must not ask for vLLM's."""
    from fastload_constructs.core.engines import engine_named

    assert (engine_named("sglang").port, engine_named("sglang").container_name) == (30000, "sglang")
    assert (engine_named("vllm").port, engine_named("vllm").container_name) == (8000, "vllm")
