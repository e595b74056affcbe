"""`fastload timeline`: Kubernetes events (+ the vLLM log) -> the phases of one scale-out, beside the plan.

The real samples in tests/fixtures/k8s_events/ (sources in its SOURCES.md) are excerpts of what people
posted: tables and describe blocks with relative ages. No public dump in JSON form with Karpenter's
events was found, so the JSON forms (core/v1 aggregated, events.k8s.io/v1 with series) are built here
from the same reasons and messages, with times chosen for the test.
"""

from __future__ import annotations

import dataclasses
import json
import random
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.coldstart.events import UNNAMED, parse_age, parse_events
from fastload_constructs.coldstart.parser import parse_log
from fastload_constructs.coldstart.timeline import (
    build_timeline,
    container_started,
    go_duration,
    image_pulls,
    parse_pod_log,
    render_timeline,
)
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving

EVENTS = Path(__file__).parent / "fixtures" / "k8s_events"
LOGS = Path(__file__).parent / "fixtures" / "vllm_logs" / "real"


def _events(name: str) -> str:
    return (EVENTS / name).read_text(encoding="utf-8")


# The clusters of these dumps ran AL2023 nodes pulling the image from its registry: the plan of such nodes.
AL2023_PULL = TuningOptions(serving=Serving(ami_family="al2023", fast_image_pull=True))
A = LoadAssumptions()


def _plan():  # type: ignore[no-untyped-def]
    return plan(ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16"), "g6e.2xlarge", AL2023_PULL)


# --- small parsers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "seconds", "resolution"),
    [("5m31s", 331, 1), ("19s", 19, 1), ("31m", 1860, 60), ("12h", 43200, 3600), ("2d3h", 183600, 3600)],
)
def test_kubectl_ages(text: str, seconds: float, resolution: float) -> None:
    assert parse_age(text) == (seconds, resolution)


@pytest.mark.parametrize("text", ["<unknown>", "", "5 m", "5m31", "-3s"])
def test_not_an_age(text: str) -> None:
    assert parse_age(text) is None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("4m47.129s", 287.129), ("313ms", 0.313), ("1m22.032s", 82.032), ("1h2m3s", 3723.0), ("796ms", 0.796)],
)
def test_go_durations_from_the_kubelet(text: str, seconds: float) -> None:
    assert go_duration(text) == pytest.approx(seconds)


# --- real samples -------------------------------------------------------------------------------------


def test_vllm_pod_described_on_a_real_cluster_aibrix_1054() -> None:
    events = parse_events(_events("aibrix_1054_vllm_describe_pod_excerpt.txt"))
    t = build_timeline(events, plan=_plan())
    assert t.pod == "deepseek-r1-distill-llama-8b-5cc594fd46-hg5rw" and t.namespace == "default"
    assert t.node == "minikube" and t.node_claim is None
    (pull,) = t.image_pulls
    assert pull.image == "vllm/vllm-openai:v0.7.1"
    assert pull.seconds == pytest.approx(287.129) and pull.including_waiting_s == pytest.approx(303.623)
    assert pull.size_bytes == 16_525_161_745
    phases = {p.name: p for p in t.phases}
    # Scheduled 5m31s ago, Pulled 19s ago, Started 18s ago.
    assert phases["image_pull"].seconds == 312.0 and phases["image_pull"].predicted_s == pytest.approx(
        11.6e9 / (A.image_pull_mb_s * 1e6 * A.fast_image_pull_speedup), abs=0.1
    )
    assert phases["container_start"].seconds == 1.0
    # Placed on a running node: no fresh-node prediction for the node phases.
    assert phases["node_launch + gpu_registration"].predicted_s is None
    assert t.total_s is None  # no log, no Ready time: ready is not recorded
    assert any("Startup probe failed" in p for p in t.problems)
    text = render_timeline(t)
    assert "not recorded" in text and "287.1 s (303.6 s including waiting), 16.53 GB" in text


def test_karpenter_docs_nodeclaim_lifecycle() -> None:
    events = parse_events(_events("karpenter_docs_describe_nodeclaim_excerpt.txt"))
    at = {e.reason: e.at for e in events}
    assert {e.kind for e in events} == {"NodeClaim"} and {e.name for e in events} == {"default-x9wxq"}
    # The same page's status conditions: Launched 05:37:33, Registered 05:37:55, Initialized 05:38:07.
    assert (at["Registered"] - at["Launched"]).total_seconds() == 22
    assert (at["Initialized"] - at["Registered"]).total_seconds() == 12


def test_eks_workshop_grep_of_kubectl_events_without_its_header() -> None:
    events = parse_events(_events("eks_workshop_kubectl_events_nodeclaim_grep_excerpt.txt"))
    assert [e.reason for e in events] == ["Launched", "DisruptionBlocked", "Registered", "Initialized"]
    assert {e.name for e in events} == {"general-purpose-5c74h"}
    at = {e.reason: e.at for e in events}
    assert (at["Registered"] - at["Launched"]).total_seconds() == 16
    assert (at["Initialized"] - at["Registered"]).total_seconds() == 3


def test_data_on_eks_589_gpu_pod_renominated_to_the_latest_nodeclaim() -> None:
    events = parse_events(_events("data_on_eks_589_rayserve_vllm_nominated_excerpt.txt"))
    t = build_timeline(events, pod=UNNAMED)
    assert t.node_claim == "g5-gpu-karpenter-ldz6d"  # nominated four times; the last one is the pod's
    assert all(p.seconds is None for p in t.phases)  # never scheduled: nothing after "created" was recorded
    assert any("nodeclaim/g5-gpu-karpenter-ldz6d" in n for n in t.notes)


def test_karpenter_5406_older_machine_nomination() -> None:
    events = parse_events(_events("karpenter_5406_failed_scheduling_excerpt.txt"))
    t = build_timeline(events, pod=UNNAMED)
    assert t.node_claim == "bottlerocket-prov-4m5qp"


def test_get_events_table_with_replicaset_creation_kubernetes_98780() -> None:
    events = parse_events(_events("kubernetes_98780_get_events_startup_probe_excerpt.txt"))
    t = build_timeline(events)  # the only pod in the dump
    assert t.pod == "mysqlpod-5957645967-fj95t"
    assert t.milestones[0].name == "pod created" and "SuccessfulCreate" in t.milestones[0].evidence
    (pull,) = t.image_pulls
    assert pull.seconds is None  # "already present on machine"
    assert {p.name: p.seconds for p in t.phases}["image_pull"] == 1.0


def test_repeated_events_keep_first_and_last_kube_prometheus_1674() -> None:
    (pulled, _created, unhealthy) = parse_events(_events("kube_prometheus_1674_startup_probe_503_excerpt.txt"))
    assert unhealthy.count == 1741 and unhealthy.resolution_s == 3600
    assert unhealthy.first is not None and unhealthy.last is not None
    assert (unhealthy.last - unhealthy.first).total_seconds() == 12 * 3600 - 227
    assert pulled.count == 30


def test_wrapped_pulled_lines_karpenter_blueprints_soci() -> None:
    pulls = image_pulls(parse_events(_events("karpenter_blueprints_soci_describe_grep_pulled_excerpt.txt")))
    assert sorted(p.seconds for p in pulls if p.seconds) == pytest.approx([39.553, 130.813])
    assert {p.size_bytes for p in pulls} == {9_354_342_327}


def test_eks_karpenter_vllm_cold_start_custom_columns() -> None:
    """A real fresh-node start on EKS + Karpenter with absolute times (custom columns TIME REASON MESSAGE)."""
    events = parse_events(_events("get-events-custom-columns-eks-karpenter-vllm-v0.28.0-coldstart-workshop.txt"))
    t = build_timeline(events, plan=_plan())
    assert (t.pod, t.node_claim, t.node) == ("vllm-7b9d6c4f8-zr8hk", "gpu-c3ptx", "ip-10-0-31-9.ec2.internal")
    phases = {p.name: p for p in t.phases}
    # Nominated 14:52:31 -> Scheduled 14:55:18 -> Pulled 14:59:04 -> Started 14:59:05
    assert phases["node_launch + gpu_registration"].seconds == 167.0
    # The planner's AL2023 constants (core/planning/assumptions.py, fitted from tests/fixtures/gpu_node_startups.json).
    assert phases["node_launch + gpu_registration"].predicted_s == pytest.approx(sum(A.node_phases("al2023")))
    assert phases["image_pull"].seconds == 226.0 and phases["container_start"].seconds == 1.0
    assert t.image_pulls[0].seconds == 224.0 and t.image_pulls[0].including_waiting_s is None  # "in 3m44s" only
    # The vLLM log lines pasted under the table (after a "----" rule) are not part of its last message.
    assert next(e for e in events if e.reason == "Started").message == "Started container vllm"


def test_gke_keda_cold_start_with_truncated_messages() -> None:
    events = parse_events(_events("get-events-sorted-gke-keda-vllm-v0.27.1-coldstart-truncated.txt"))
    t = build_timeline(events)
    assert t.pod == "vllm-86d74d98f8-8d8mj"
    assert "SuccessfulCreate" in t.milestones[0].evidence  # 20:14:01, the HPA's new pod
    phases = {p.name: p.seconds for p in t.phases}
    assert phases["node_launch + gpu_registration"] == 74.0  # -> Scheduled 20:15:15
    assert phases["image_pull"] == 251.0 and t.image_pulls[0].seconds == pytest.approx(244.956)
    assert any("Readiness probe failed" in p for p in t.problems)


def test_newer_kubelet_messages_name_no_container() -> None:
    """ "Container created" / "Container started" (llm-d pod-snapshot guide) and the spec.containers{} prefix."""
    t = build_timeline(parse_events(_events("get-events-custom-columns-vllm-v0.19.1-gke-pod-snapshot-llm-d.txt")))
    assert t.pod == "pod-snapshot-gpu-vllm-decode-744b8cf49-4825r"
    assert {p.name: p.seconds for p in t.phases}["container_start"] == 5.0
    events = parse_events(_events("describe-pod-events-new-format-spec.containers-prefix-kind.txt"))
    started = next(e for e in events if e.reason == "Started")
    assert started.message == "Container started" and started.field_path == "spec.containers{hello}"
    assert image_pulls(events)[0].seconds == pytest.approx(6.284)


def test_yaml_list_with_an_events_k8s_io_scheduled_event() -> None:
    events = parse_events(_events("get-events-o-yaml-minikube-pulled-message-folded.yaml"))
    scheduled = next(e for e in events if e.reason == "Scheduled")
    assert scheduled.first == datetime(2026, 3, 17, 8, 45, 27, 742811)  # eventTime; firstTimestamp is null
    (pull,) = image_pulls(events)
    assert pull.size_bytes is not None and pull.seconds is not None  # the folded message reads as one line
    t = build_timeline(events)
    assert t.pod == "log-test" and {p.name: p.seconds for p in t.phases}["image_pull"] == pytest.approx(2.257, abs=0.01)


def test_node_events_of_a_new_karpenter_node_4341() -> None:
    events = parse_events(_events("describe-node-events-new-karpenter-node-karpenter-4341.txt"))
    assert {e.kind for e in events} == {"Node"}
    at = {e.reason: e.at for e in events}
    assert (at["RegisteredNode"] - at["Starting"]).total_seconds() == 5


def test_vllm_dlc_pulls_plain_and_soci_2025() -> None:
    pulls = image_pulls(
        parse_events(_events("describe-pod-Pulled-vllm-dlc-0.9-plain-vs-soci-karpenter-blueprints-2025.txt"))
    )
    # 2025-2026 versions (plain, SOCI AL2023, SOCI Bottlerocket) and the first version (plain, SOCI AL2023)
    assert sorted(p.seconds for p in pulls if p.seconds) == pytest.approx([44.974, 59.813, 67.272, 112.33, 138.049])


@pytest.mark.parametrize("name", sorted(p.name for p in EVENTS.iterdir() if p.suffix in (".txt", ".yaml")))
def test_every_real_sample_parses(name: str) -> None:
    events = parse_events(_events(name))
    assert events and all(e.reason and e.at is not None for e in events)


def test_all_namespaces_and_wide_tables() -> None:
    """`kubectl get events -A` (NAMESPACE first) and `-o wide` (FIRST SEEN, COUNT), with the rows above."""
    rows = [
        ["NAMESPACE", "LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"],
        ["default", "2m55s", "Normal", "Launched", "nodeclaim/gpu-5c74h", "Status condition transitioned"],
        ["inference", "2m56s", "Normal", "Nominated", "pod/vllm-abc", "Pod should schedule on: nodeclaim/gpu-5c74h"],
        ["default", "2m39s", "Normal", "Registered", "nodeclaim/gpu-5c74h", "Status condition transitioned"],
        ["inference", "2m30s", "Normal", "Scheduled", "pod/vllm-abc", "Successfully assigned inference/vllm-abc to n1"],
    ]
    wide = [
        ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"],
        [
            "5s",
            "Warning",
            "BackOff",
            "pod/vllm-xyz",
            "spec.containers{vllm}",
            "kubelet",
            "Back-off restarting failed container vllm in pod vllm-xyz",
            "3m",
            "7",
            "vllm-xyz.1",
        ],
    ]
    text = "\n".join("   ".join(r) for r in rows) + "\n\n" + "\n".join("   ".join(r) for r in wide) + "\n"
    events = parse_events(text)
    assert {e.namespace for e in events if e.name == "vllm-abc"} == {"inference"}
    backoff = next(e for e in events if e.reason == "BackOff")
    assert backoff.count == 7 and backoff.field_path == "spec.containers{vllm}" and backoff.source == "kubelet"
    assert backoff.first is not None and backoff.last is not None
    assert (backoff.last - backoff.first).total_seconds() == 175
    t = build_timeline([e for e in events if e.name != "vllm-xyz"])
    assert t.pod == "vllm-abc" and t.node_claim == "gpu-5c74h"
    assert {p.name: p.seconds for p in t.phases}["gpu_registration"] == 9.0


# --- JSON: both API forms, aggregation, any order, missing phases ------------------------------------

T0 = datetime(2026, 12, 3, 17, 0, 0)
POD = "llama-3-1-8b-instruct-7d9f8-abcde"
CLAIM = "gpu-g6e-x7k2p"
NODE = "ip-10-0-12-34.us-west-2.compute.internal"


def _iso(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat(timespec="microseconds") + "Z"


def _core(
    kind: str,
    name: str,
    reason: str,
    message: str,
    at: float,
    *,
    last: float | None = None,
    count: int = 1,
    kind_ns: str = "inference",
    field_path: str = "",
) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{name}.{reason}", "namespace": kind_ns or "default"},
        "involvedObject": {"kind": kind, "name": name, "namespace": kind_ns, "fieldPath": field_path},
        "reason": reason,
        "message": message,
        "type": "Warning" if reason in ("FailedScheduling", "Unhealthy") else "Normal",
        "firstTimestamp": _iso(at)[:19] + "Z",
        "lastTimestamp": _iso(last if last is not None else at)[:19] + "Z",
        "count": count,
        "source": {"component": "kubelet"},
    }


def _series(
    kind: str, name: str, reason: str, note: str, at: float, *, last: float | None = None, count: int = 0
) -> dict[str, object]:
    event: dict[str, object] = {
        "apiVersion": "events.k8s.io/v1",
        "kind": "Event",
        "metadata": {"name": f"{name}.{reason}", "namespace": "inference"},
        "regarding": {"kind": kind, "name": name, "namespace": "inference"},
        "reason": reason,
        "note": note,
        "type": "Normal",
        "eventTime": _iso(at),
        "reportingController": "karpenter",
    }
    if count:
        event["series"] = {"count": count, "lastObservedTime": _iso(last if last is not None else at)}
    return event


def _scale_out(*, registered: bool = True) -> list[dict[str, object]]:
    vllm = "spec.containers{vllm}"
    items = [
        _core("ReplicaSet", "llama-3-1-8b-instruct-7d9f8", "SuccessfulCreate", f"Created pod: {POD}", 0),
        _core(
            "Pod",
            POD,
            "FailedScheduling",
            "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
            0.4,
            last=40,
            count=5,
        ),
        _series("Pod", POD, "Nominated", f"Pod should schedule on: nodeclaim/{CLAIM}", 1.2, last=31, count=3),
        _series("NodeClaim", CLAIM, "Launched", "Status condition transitioned, Type: Launched", 3.5),
        _series("NodeClaim", CLAIM, "Initialized", "Status condition transitioned, Type: Initialized", 58.0),
        _core("Pod", POD, "Scheduled", f"Successfully assigned inference/{POD} to {NODE}", 61),
        _core("Pod", POD, "Pulling", 'Pulling image "vllm/vllm-openai:v0.34.0"', 63, field_path=vllm),
        _core(
            "Pod",
            POD,
            "Pulled",
            'Successfully pulled image "vllm/vllm-openai:v0.34.0" in 48.512s '
            "(48.9s including waiting). Image size: 9612695005 bytes.",
            112,
            field_path=vllm,
        ),
        _core("Pod", POD, "Created", "Created container: vllm", 113, field_path=vllm),
        _core("Pod", POD, "Started", "Started container vllm", 114, field_path=vllm),
        _core("Pod", "other-pod-1", "Scheduled", "Successfully assigned inference/other-pod-1 to x", 5),
    ]
    if registered:
        items.append(_series("NodeClaim", CLAIM, "Registered", "Status condition transitioned, Type: Registered", 44))
    return items


def test_json_scale_out_phases_beside_the_plan() -> None:
    t = build_timeline(parse_events(json.dumps({"kind": "EventList", "items": _scale_out()})), plan=_plan())
    assert (t.pod, t.node_claim, t.node) == (POD, CLAIM, NODE)
    phases = {p.name: p for p in t.phases}
    assert phases["node_launch"].seconds == 44.0  # created -> Registered
    assert phases["gpu_registration"].seconds == 17.0  # Registered -> Scheduled
    assert phases["image_pull"].seconds == 51.0  # Scheduled -> Pulled
    assert phases["container_start"].seconds == 2.0
    p = _plan().scale_out_paths
    assert p is not None
    assert phases["node_launch"].predicted_s == p.fresh_node.seconds("node_launch")
    assert t.image_pulls[0].seconds == pytest.approx(48.512)
    names = [m.name for m in t.milestones]
    assert names.index("nodeclaim launched") < names.index("node registered") < names.index("node initialized")


def test_order_of_events_does_not_matter() -> None:
    items = _scale_out()
    expected = build_timeline(parse_events(json.dumps(items)))
    for seed in range(5):
        random.Random(seed).shuffle(items)
        assert build_timeline(parse_events(json.dumps({"items": items}))) == expected


def test_aggregated_and_series_forms_keep_the_first_occurrence() -> None:
    events = {e.reason: e for e in parse_events(json.dumps(_scale_out()))}
    failed, nominated = events["FailedScheduling"], events["Nominated"]
    assert failed.count == 5 and failed.first == T0 and failed.last == T0 + timedelta(seconds=40)
    assert nominated.count == 3 and nominated.last == T0 + timedelta(seconds=31)
    assert nominated.first == T0 + timedelta(seconds=1.2) and nominated.resolution_s < 1


def test_missing_registration_merges_the_two_node_phases() -> None:
    t = build_timeline(parse_events(json.dumps(_scale_out(registered=False))), plan=_plan())
    phases = {p.name: p for p in t.phases}
    assert phases["node_launch + gpu_registration"].seconds == 61.0
    p = _plan().scale_out_paths
    assert p is not None
    assert phases["node_launch + gpu_registration"].predicted_s == pytest.approx(
        p.fresh_node.seconds("node_launch") + p.fresh_node.seconds("gpu_registration")
    )


def test_with_a_real_vllm_log_the_pod_phases_come_from_it() -> None:
    """The docker compose log (collector clock) placed after a container started 5 s before its first line."""
    log_path = LOGS / "v0.20_docker_local_time_prefix_enforce_eager.log"
    started = datetime(2026, 5, 1, 20, 54, 12)
    items = _shifted(started)
    events = parse_events(json.dumps(items))
    report = parse_log(log_path.read_bytes(), started_at=started)
    t = build_timeline(events, log=report, plan=_plan())
    phases = {p.name: p for p in t.phases}
    assert phases["process_start"].source == "vLLM log"
    assert phases["process_start"].seconds == pytest.approx(
        report.seconds("process_start") + report.seconds("engine_init") + report.seconds("distributed_init")
    )
    assert t.total_s == pytest.approx(114 + report.total_s, abs=0.01)
    assert sum(p.seconds or 0 for p in t.phases) == pytest.approx(t.total_s, abs=0.01)


def _shifted(started: datetime) -> list[dict[str, object]]:
    """The synthetic scale-out moved so that the vLLM container starts at `started`."""
    items = _scale_out()
    shift = (started - (T0 + timedelta(seconds=114))).total_seconds()
    for item in items:
        for key in ("firstTimestamp", "lastTimestamp", "eventTime"):
            if key in item:
                moved = datetime.fromisoformat(str(item[key]).rstrip("Z")) + timedelta(seconds=shift)
                item[key] = moved.isoformat() + "Z"
    return items


def test_a_real_kubectl_timestamps_log_is_timed_from_the_started_event() -> None:
    """`kubectl logs --timestamps` of a real vLLM 0.17 server (first line 02:05:31Z), the container
    started 3 s earlier: the log's collector clock is the events' clock, so process start is counted."""
    text = (EVENTS / "pod_logs" / "kubectl-logs-timestamps-rocm-gfx1100-vllm-0.17-whisper.log").read_bytes()
    events = parse_events(json.dumps(_shifted(datetime(2026, 5, 21, 2, 5, 28))))
    report, note = parse_pod_log(text, container_started(events))
    assert note is None and report.seconds("process_start") == pytest.approx(3.0)
    t = build_timeline(events, log=report)
    assert t.total_s == pytest.approx(114 + report.total_s, abs=0.01)
    assert {p.name: p.source for p in t.phases}["process_start"] == "vLLM log"
    # A table's ages cannot be set against the log's clock: its durations only, no process start.
    table = [dataclasses.replace(e, from_table=True) for e in events]
    report, _ = parse_pod_log(text, container_started(table))
    assert report.seconds("process_start") == 0.0


def test_a_log_that_never_got_ready_is_said_so() -> None:
    report = parse_log((LOGS / "v0.11_tp1_compile_miss_excerpt.log").read_bytes())
    t = build_timeline(parse_events(json.dumps(_scale_out())), log=report)
    assert t.total_s is None
    assert any("never got ready" in n for n in t.notes)


def test_pod_selection() -> None:
    events = parse_events(json.dumps(_scale_out()))
    assert build_timeline(events).pod == POD  # the vLLM pod, not the newer-looking other pod
    with pytest.raises(FastloadConfigError) as caught:
        build_timeline(events, pod="nope")
    assert caught.value.field == "--pod" and POD in caught.value.accepted


def test_init_containers_before_the_vllm_image_are_said_to_be_inside_image_pull() -> None:
    init = "spec.initContainers{cache-restore}"
    items = [
        *_scale_out(),
        _core(
            "Pod", POD, "Pulled", 'Container image "amazon/aws-cli:2" already present on machine', 61.5, field_path=init
        ),
        _core("Pod", POD, "Started", "Started container cache-restore", 62, field_path=init),
    ]
    t = build_timeline(parse_events(json.dumps(items)))
    assert {p.name: p.seconds for p in t.phases}["container_start"] == 2.0  # still the vLLM container's
    assert any("cache-restore" in n and "inside image_pull" in n for n in t.notes)


SGLANG_LOGS = Path(__file__).parent / "fixtures" / "sglang_logs" / "real"


def _sglang_scale_out() -> list[dict[str, object]]:
    """The synthetic scale-out with an SGLang container and image, and an init container before it."""
    text = json.dumps(_scale_out())
    text = text.replace("vllm/vllm-openai:v0.34.0", "lmsysorg/sglang:v0.5.23").replace("vllm", "sglang")
    init = "spec.initContainers{cache-restore}"
    started = _core("Pod", POD, "Started", "Started container cache-restore", 62, field_path=init)
    return [*json.loads(text), started]


def test_an_sglang_pod_is_called_sglang_in_the_phases_notes_and_json() -> None:
    events = parse_events(json.dumps(_sglang_scale_out()))
    for log in (None, parse_log((SGLANG_LOGS / "08_v0.5.5_tp1_ready_pr11830.log").read_bytes())):
        t = build_timeline(events, log=log)
        view = json.dumps(dataclasses.asdict(t), default=str)
        assert "SGLang log" in view and "SGLang container" in view
        assert "vLLM" not in view, [n for n in t.notes if "vLLM" in n]
    assert any(n.startswith("the SGLang log never got ready") for n in t.notes)
    ready = parse_log((SGLANG_LOGS / "31_v0.4.10_qwen2.5-7b_tp1_fired_up_docs_frontend.log").read_bytes())
    milestones = build_timeline(events, log=ready).milestones
    assert milestones[-1].evidence == "SGLang log: The server is fired up and ready to roll!"
    # The log's own notes (here: a "mem usage" on a GB10 that is not the weights' size) come with it.
    gb10 = parse_log((SGLANG_LOGS.parent / "v0.5.23_gb10_unified_memory_format_strings.log").read_bytes())
    (note,) = gb10.notes
    assert f"the SGLang log: {note}" in build_timeline(events, log=gb10).notes


# --- the command ---------------------------------------------------------------------------------------


def test_cli_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dump = tmp_path / "events.json"
    dump.write_text(json.dumps({"items": _scale_out()}))
    assert main(["timeline", str(dump), "--instance", "g6e.2xlarge", "--params", "8.03e9"]) == 0
    out = capsys.readouterr().out
    assert "node_launch" in out and "total to ready" in out and "nodeclaim/gpu-g6e-x7k2p" in out
    assert main(["timeline", str(dump), "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["pod"] == POD and view["phases"][0]["name"] == "node_launch"


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["timeline", "/nonexistent/events.json"], "EVENTS"),
        (["timeline", "{garbage"], "EVENTS"),
        (["timeline", "@TEXT", "--pod", "missing"], "--pod"),
        (["timeline", "@TEXT", "--log", "/nonexistent.log"], "--log"),
        (["timeline", "@TEXT", "--instance", "g6e.2xlarge"], "--instance"),
        (["timeline", "@JUNK"], "events"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], option: str
) -> None:
    text = tmp_path / "events.txt"
    text.write_text(_events("aibrix_1054_vllm_describe_pod_excerpt.txt"))
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\nworld\n")
    args = [str(text) if a == "@TEXT" else str(junk) if a == "@JUNK" else a for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and option in err and "Traceback" not in err


# --- hostile input: never a traceback ----------------------------------------------------------------

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FUZZ = settings(
    max_examples=60, derandomize=True, database=None, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(max_size=30),
    st.sampled_from(
        [
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59-01:00",
            "2026-12-03T17:00:00.5Z",
            "31m",
            f"Pod should schedule on: nodeclaim/{CLAIM}",
            'Successfully pulled image "x" in 99999h',
            "Created pod: p",
            "Pod",
            "NodeClaim",
            "Started container vllm",
        ]
    ),
    st.lists(st.text(max_size=5), max_size=2),
    st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=2),
)
FIELDS = [
    "reason",
    "message",
    "note",
    "firstTimestamp",
    "lastTimestamp",
    "eventTime",
    "count",
    "type",
    "involvedObject",
    "regarding",
    "series",
    "metadata",
    "source",
]


def _run(argv: list[str], stdin: bytes = b"") -> tuple[int, list[str]]:
    import contextlib
    import io
    import sys

    err, saved = io.StringIO(), sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            rc = main(argv)
    finally:
        sys.stdin = saved
    return rc, err.getvalue().splitlines()


@FUZZ
@given(data=st.binary(max_size=400))
def test_any_bytes_on_stdin(data: bytes) -> None:
    rc, lines = _run(["timeline", "-"], stdin=data)
    assert rc in (0, 2) and (rc == 0 or (len(lines) == 1 and "unexpected" not in lines[0])), lines


@FUZZ
@given(changes=st.lists(st.tuples(st.integers(0, 10), st.sampled_from(FIELDS), VALUES), max_size=6))
def test_hostile_fields_in_a_json_dump(changes: list[tuple[int, str, object]]) -> None:
    items = _scale_out()
    for index, key, value in changes:
        items[index % len(items)][key] = value
    rc, lines = _run(["timeline", "-", "--json"], stdin=json.dumps({"items": items}, default=str).encode())
    assert rc in (0, 2) and (rc == 0 or (len(lines) == 1 and "unexpected" not in lines[0])), lines


@FUZZ
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["5m", "99999999y", "3s (x2 over 1m)", "<unknown>", "x"]),
            st.sampled_from(["Normal", "Warning", "Odd"]),
            st.sampled_from(["Pulled", "Scheduled", "Nominated", "Started", "Launched"]),
            st.text(max_size=20),
        ),
        min_size=1,
        max_size=5,
    )
)
def test_hostile_describe_rows(rows: list[tuple[str, str, str, str]]) -> None:
    text = "Name: vllm-0\nEvents:\n  Type  Reason  Age  From  Message\n  ----  ------  ---  ----  -------\n" + "".join(
        f"  {t}   {r}   {a}   kubelet   {m}\n" for a, t, r, m in rows
    )
    rc, lines = _run(["timeline", "-"], stdin=text.encode())
    assert rc in (0, 2) and (rc == 0 or (len(lines) == 1 and "unexpected" not in lines[0])), lines


def test_events_without_a_server_pod_say_what_was_typed_not_got_none(tmp_path, capsys):
    """No --pod typed and no vLLM or SGLang pod in the events: the message names the file, not '--pod: got None'."""
    events = tmp_path / "events.txt"
    events.write_text(
        "LAST SEEN   TYPE     REASON      OBJECT           MESSAGE\n"
        "10s         Normal   Scheduled   pod/web-1        Successfully assigned default/web-1 to node-a\n"
        "9s          Normal   Scheduled   pod/web-2        Successfully assigned default/web-2 to node-a\n"
    )
    assert main(["timeline", str(events)]) == 2
    err = capsys.readouterr().err
    assert err == f"fastload: no SGLang or vLLM pod in {events} (pods: web-1, web-2); name one with --pod\n"
