"""`fastload coldstart` end to end: files, stdin, --pod via kubectl, JSON, plots, plan comparison."""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.coldstart.kubectl import kubectl_logs_command, unreachable

LOGS = Path(__file__).parent / "fixtures" / "vllm_logs"
COLD, WARM = str(LOGS / "cold_v0.34_s3_tp1.log"), str(LOGS / "warm_v0.34_s3_tp1.log")


def test_table_shows_phases_side_by_side(capsys):
    assert main(["coldstart", COLD, WARM]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0]
    assert "cold_v0.34_s3_tp1" in header and "warm_v0.34_s3_tp1" in header
    compile_row = next(line for line in out.splitlines() if line.startswith("torch.compile: graph"))
    assert compile_row.split()[-2:] == ["39.2", "1.9"]
    assert "dominant phase" in out and "hit" in out


def test_json_with_plan_maps_measured_onto_predicted_phases(capsys):
    args = ["coldstart", COLD, "--json", "--instance", "g6e.2xlarge", "--params", "8.03e9"]
    assert main(args) == 0
    [view] = json.loads(capsys.readouterr().out)
    vs = view["vs_plan"]
    assert set(vs) == {"process_start", "weight_load", "compile", "cuda_graph", "kv_and_server", "total"}
    assert vs["compile"]["measured"] == pytest.approx(48.31)
    assert vs["kv_and_server"]["measured"] == pytest.approx(view["phases"]["kv_cache_profiling"] + 3)
    assert sum(v["measured"] for k, v in vs.items() if k != "total") == pytest.approx(view["total_seconds"])
    assert vs["total"]["predicted"] > 0 and view["predicted_dominant_phase"]


def test_stdin(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(Path(WARM).read_text()))
    assert main(["coldstart", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["torch_compile"]["cache"] == "hit"


def test_png_plot_is_a_real_png(tmp_path, capsys):
    out = tmp_path / "cmp.png"
    assert main(["coldstart", COLD, WARM, "--plot", str(out)]) == 0
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width >= 400 and height >= 300
    assert len(data) > 10_000  # bars, labels and legend, not an empty canvas


def test_html_plot_embeds_chart_and_table(tmp_path, capsys):
    out = tmp_path / "cmp.html"
    assert main(["coldstart", COLD, WARM, "--plot", str(out), "--instance", "g6e.2xlarge", "--params", "8e9"]) == 0
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert page.count("<svg") == 1 and "</svg>" in page
    assert "cold_v0.34_s3_tp1" in page and "plan (predicted)" in page


def test_plot_with_unknown_suffix_exits_2(tmp_path, capsys):
    assert main(["coldstart", COLD, "--plot", str(tmp_path / "x.jpg")]) == 2
    assert "plot" in capsys.readouterr().err


def test_failed_start_exits_1_after_printing_the_report(capsys):
    assert main(["coldstart", str(LOGS / "failed_v0.11_oom.log")]) == 1
    captured = capsys.readouterr()
    assert "OutOfMemoryError" in captured.out
    assert "never got ready" in captured.err


def test_log_without_phases_exits_2(tmp_path, capsys):
    empty = tmp_path / "nginx.log"
    empty.write_text('127.0.0.1 - - [02/Dec/2026:17:00:00 +0000] "GET / HTTP/1.1" 200\n')
    assert main(["coldstart", str(empty)]) == 2
    assert "at least one start-up line" in capsys.readouterr().err


def test_missing_file_exits_2(capsys):
    assert main(["coldstart", "/nonexistent/vllm.log"]) == 2
    assert "existing log file" in capsys.readouterr().err


def test_started_at_needs_one_per_log(capsys):
    assert main(["coldstart", COLD, WARM, "--started-at", "12-02 17:00:00"]) == 2
    assert "one start time per log" in capsys.readouterr().err


def test_kubectl_command_it_would_run():
    assert kubectl_logs_command("vllm-0", "inference", container="vllm", previous=True) == [
        "kubectl",
        "logs",
        "vllm-0",
        "--namespace",
        "inference",
        "--container",
        "vllm",
        "--previous",
    ]


def test_pod_without_kubectl_is_a_clear_error(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty directory: no kubectl
    assert main(["coldstart", "--pod", "vllm-0", "--namespace", "inference"]) == 2
    err = capsys.readouterr().err
    assert "kubectl" in err and "kubectl logs vllm-0 --namespace inference" in err


def _fake_kubectl(
    tmp_path, monkeypatch, started_at: str, instance: str = "", annotations: str = "{}", log: Path = WARM
) -> Path:
    """A stand-in kubectl on PATH: records its calls, answers `get pod` with a start time (or the instance
    label), `get deployment` with annotations, `logs` with a fixture."""
    calls = tmp_path / "calls"
    (tmp_path / "annotations.json").write_text(annotations)
    fake = tmp_path / "kubectl"
    fake.write_text(
        "#!/bin/sh\n"
        f"echo \"$@\" >> '{calls}'\n"
        'case "$*" in\n'
        f"  *labels*) printf '%s' '{instance}';;\n"
        f"  'get deployment'*) cat '{tmp_path / 'annotations.json'}';;\n"
        f"  get*) printf '%s' '{started_at}';;\n"
        f"  *) cat '{log}';;\n"
        "esac\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    return calls


def test_pod_reads_log_and_start_time_through_kubectl(tmp_path, monkeypatch, capsys):
    calls = _fake_kubectl(tmp_path, monkeypatch, "2026-12-02T17:19:52Z")
    assert main(["coldstart", "--pod", "vllm-0", "-n", "inference", "-c", "vllm", "--json"]) == 0
    # "get ..." sorts before "logs ..."; the instance-label lookup (no label here) is left aside.
    get_call, logs_call = sorted(c for c in calls.read_text().splitlines() if "labels" not in c)
    assert logs_call.split() == ["logs", "vllm-0", "--namespace", "inference", "--container", "vllm"]
    assert get_call.startswith("get pod vllm-0 --namespace inference --output jsonpath=")
    assert '@.name=="vllm"' in get_call and "state.running.startedAt" in get_call
    [view] = json.loads(capsys.readouterr().out)
    assert view["label"] == "vllm-0"
    assert view["phases"]["process_start"] == pytest.approx(13)  # 17:19:52 -> first line 17:20:05
    assert view["total_seconds"] == pytest.approx(76 + 13)


def test_pod_start_after_first_line_is_left_out(tmp_path, monkeypatch, capsys):
    _fake_kubectl(tmp_path, monkeypatch, "2026-12-02T18:00:00Z")  # a container clock not on UTC
    assert main(["coldstart", "--pod", "vllm-0", "-n", "inference", "--json"]) == 0
    captured = capsys.readouterr()
    assert "process_start" not in json.loads(captured.out)[0]["phases"]
    assert "process start left out" in captured.err


def test_pod_and_files_together_is_a_usage_error(capsys):
    assert main(["coldstart", COLD, "--pod", "vllm-0", "-n", "x"]) == 2


@pytest.mark.parametrize("args,flag", [(["--pod", ""], "--pod"), (["-l", " "], "--selector")])
def test_an_empty_pod_or_selector_names_its_own_flag(capsys, args, flag):
    assert main(["coldstart", *args, "-n", "inference"]) == 2
    err = capsys.readouterr().err
    assert f"{flag} is empty" in err and "Traceback" not in err


def test_pod_without_namespace_names_pod(capsys):
    assert main(["coldstart", "--pod", "vllm-0"]) == 2
    assert "--pod needs --namespace" in capsys.readouterr().err


def test_same_file_names_stay_apart(tmp_path, capsys):
    for run, source in (("cold", COLD), ("warm", WARM)):
        (tmp_path / run).mkdir()
        (tmp_path / run / "vllm.log").write_text(Path(source).read_text())
    first, second = str(tmp_path / "cold" / "vllm.log"), str(tmp_path / "warm" / "vllm.log")
    assert main(["coldstart", first, second, "--json"]) == 0
    views = json.loads(capsys.readouterr().out)
    assert [v["label"] for v in views] == [first, second]
    assert [v["torch_compile"]["cache"] for v in views] == ["miss", "hit"]


REAL = LOGS / "real"


def test_unrecognised_logs_are_listed_and_the_rest_reported_and_plotted(tmp_path, capsys):
    nginx = tmp_path / "nginx.log"
    nginx.write_text('127.0.0.1 - - [02/Dec/2026:17:00:00 +0000] "GET / HTTP/1.1" 200\n')
    other = str(REAL / "vdev_docker_compose_config_only_excerpt.log")
    out = tmp_path / "cmp.png"
    assert main(["coldstart", COLD, str(nginx), WARM, other, "--plot", str(out)]) == 2
    captured = capsys.readouterr()
    assert "cold_v0.34_s3_tp1" in captured.out and "warm_v0.34_s3_tp1" in captured.out
    assert "nginx: no vLLM or SGLang start-up line recognised" in captured.err
    assert "2 of 4 logs not recognised: nginx, vdev_docker_compose_config_only_excerpt" in captured.err
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_stdin_with_invalid_utf8_under_a_strict_locale(capsys, monkeypatch):
    raw = Path(WARM).read_bytes().replace(b"Starting to load model", b"Starting to load model \xff\xfe", 1)
    strict = io.TextIOWrapper(io.BytesIO(raw), encoding="ascii", errors="strict")
    monkeypatch.setattr("sys.stdin", strict)
    assert main(["coldstart", "-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["torch_compile"]["cache"] == "hit"


def test_html_shows_the_evidence_line_for_each_phase(tmp_path, capsys):
    out = tmp_path / "r.html"
    eager = str(REAL / "v0.20_docker_local_time_prefix_enforce_eager.log")
    assert main(["coldstart", COLD, eager, "--plot", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "Evidence: the log line behind each number" in page
    assert "Model loading took 21.86 GiB memory and 406.898504 seconds" in page
    assert "Graph capturing finished in 15 secs" in page  # the cold log's capture line
    assert "<script" not in page


def _fake_kubectl_pods(tmp_path, monkeypatch) -> Path:
    """kubectl that lists two pods for a selector (older first) and serves a different log per pod."""
    calls = tmp_path / "calls"
    listing = tmp_path / "pods.json"
    listing.write_text(
        json.dumps(
            {
                "items": [
                    {
                        "metadata": {"name": "vllm-old", "creationTimestamp": "2026-12-02T16:00:00Z"},
                        "status": {"containerStatuses": [{"name": "vllm", "state": {"running": {}}}]},
                    },
                    {
                        "metadata": {"name": "vllm-new", "creationTimestamp": "2026-12-02T17:19:00Z"},
                        "status": {
                            "containerStatuses": [
                                {"name": "vllm", "state": {"running": {"startedAt": "2026-12-02T17:19:52Z"}}}
                            ]
                        },
                    },
                ]
            }
        )
    )
    fake = tmp_path / "kubectl"
    fake.write_text(
        "#!/bin/sh\n"
        f"echo \"$@\" >> '{calls}'\n"
        f"if [ \"$1\" = get ]; then cat '{listing}'; "
        f"elif [ \"$2\" = vllm-new ]; then cat '{WARM}'; else cat '{COLD}'; fi\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    return calls


def test_label_selector_reports_every_pod_newest_first(tmp_path, monkeypatch, capsys):
    calls = _fake_kubectl_pods(tmp_path, monkeypatch)
    assert main(["coldstart", "-l", "app.kubernetes.io/instance=llama", "-n", "inference", "--json"]) == 0
    views = json.loads(capsys.readouterr().out)
    assert [v["label"] for v in views] == ["vllm-new", "vllm-old"]
    assert views[0]["torch_compile"]["cache"] == "hit" and views[1]["torch_compile"]["cache"] == "miss"
    assert views[0]["phases"]["process_start"] == pytest.approx(13)  # startedAt from the pod list
    assert "process_start" not in views[1]["phases"]  # no startedAt: left out
    first = calls.read_text().splitlines()[0].split()
    assert first == [
        "get", "pods", "--selector", "app.kubernetes.io/instance=llama", "--namespace", "inference", "--output", "json"
    ]  # fmt: skip


def test_selector_matching_nothing_is_a_clear_error(tmp_path, monkeypatch, capsys):
    fake = tmp_path / "kubectl"
    fake.write_text("#!/bin/sh\necho '{\"items\": []}'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    assert main(["coldstart", "-l", "app=none", "-n", "inference"]) == 2
    assert "matching at least one pod" in capsys.readouterr().err


def test_pod_and_selector_together_is_a_usage_error(capsys):
    assert main(["coldstart", "--pod", "a", "-l", "app=x", "-n", "x"]) == 2


def test_plot_hint_names_the_published_packages_of_the_plot_extra(monkeypatch, capsys):
    """Without matplotlib, --plot says what to install: the [plot] extra's own requirements, from PyPI."""
    import re
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ModuleNotFoundError
    monkeypatch.delitem(sys.modules, "fastload_constructs.coldstart.plot", raising=False)
    assert main(["coldstart", COLD, "--plot", "out.png"]) == 2
    err = capsys.readouterr().err
    pyproject = (Path(__file__).parent.parent / "pyproject.toml").read_text()
    (wanted,) = re.findall(r'^plot = \["([^"]+)"\]$', pyproject, re.MULTILINE)
    assert err.startswith("fastload: --plot needs matplotlib: pip install '")
    assert "fastload-constructs" not in err  # not on PyPI
    name, _, spec = wanted.partition(">")
    assert name == "matplotlib" and all(part in err for part in (">" + spec).split(","))


def test_html_report_wraps_the_failure_line(tmp_path, capsys):
    """A failed start's line ("not ready; stopped during ...: <error>") wraps instead of running off the page."""
    out = tmp_path / "report.html"
    main(["coldstart", str(LOGS / "failed_v0.11_oom.log"), "--plot", str(out)])  # exits 1: never ready
    page = out.read_text()
    assert "not ready; stopped during" in page.split("<pre>")[1].split("</pre>")[0]
    style = page.split("<style>")[1].split("</style>")[0]
    pre_rules = [rule for rule in style.split("}") if rule.startswith("pre{")]
    assert pre_rules and "white-space:pre-wrap" in pre_rules[0] and "overflow-wrap:anywhere" in pre_rules[0]


def test_pod_is_compared_with_the_plan_its_deployment_records(tmp_path, monkeypatch, capsys):
    """The plan travels with the Deployment (core.serving.plan_record): --pod needs no --instance."""
    from fastload_constructs.core.model import ModelProfile
    from fastload_constructs.core.planning import plan
    from fastload_constructs.core.serving.plan_record import plan_annotations

    recorded = plan(ModelProfile.from_numbers(parameter_count=8_030_261_248), "g6e.2xlarge")
    annotations = json.dumps(plan_annotations(recorded))
    _fake_kubectl(tmp_path, monkeypatch, "2026-12-02T17:19:52Z", instance="llama", annotations=annotations)
    assert main(["coldstart", "--pod", "llama-0", "-n", "inference", "--json"]) == 0
    out, err = capsys.readouterr()
    (report,) = json.loads(out)
    # The log shows a compile-cache hit: compared with the recorded warm path, not the cold pod.
    assert report["torch_compile"]["cache"] == "hit"
    assert "plan recorded on the pod's Deployment (vLLM 0.34.0, g6e.2xlarge, TP 1; its warm path" in err
    warm = recorded.scale_out_paths.warm_node
    assert report["vs_plan"]["total"]["predicted"] == pytest.approx(warm.total_s, abs=0.3)
    assert report["vs_plan"]["compile"]["predicted"] == pytest.approx(warm.seconds("compile"), abs=0.1)
    # A compile-cache miss is compared with the plan's pod as deployed.
    _fake_kubectl(tmp_path, monkeypatch, "2026-12-02T17:19:52Z", instance="llama", annotations=annotations, log=COLD)
    assert main(["coldstart", "--pod", "llama-0", "-n", "inference", "--json"]) == 0
    out, err = capsys.readouterr()
    (report,) = json.loads(out)
    assert "plan recorded on the pod's Deployment (vLLM 0.34.0, g6e.2xlarge, TP 1)" in err
    vs_plan = report["vs_plan"]
    assert vs_plan["total"]["predicted"] == pytest.approx(recorded.predicted.total_s, abs=0.2)
    assert vs_plan["weight_load"]["predicted"] == pytest.approx(recorded.predicted.weight_load_s, abs=0.1)
    # An SGLang pod's log keeps the plan its Deployment records (it was dropped for a re-plan without --instance).
    sglang_log = (
        Path(__file__).parent
        / "fixtures"
        / "sglang_logs"
        / "real"
        / "31_v0.4.10_qwen2.5-7b_tp1_fired_up_docs_frontend.log"
    )
    _fake_kubectl(tmp_path, monkeypatch, "", instance="llama", annotations=annotations, log=sglang_log)
    assert main(["coldstart", "--pod", "llama-0", "-n", "inference", "--json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    assert report["engine"] == "sglang"
    assert report["vs_plan"]["total"]["predicted"] == pytest.approx(recorded.predicted.total_s, abs=0.2)
    # Without a recorded plan (no label, no annotation) nothing is compared: never a guessed plan.
    _fake_kubectl(tmp_path, monkeypatch, "2026-12-02T17:19:52Z")
    assert main(["coldstart", "--pod", "llama-0", "-n", "inference", "--json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)
    assert "vs_plan" not in report


# kubectl 1.32's own stderr with no cluster behind its kubeconfig (four memcache retries, then the summary).
_NO_CLUSTER_STDERR = "\n".join(
    [
        'E1204 17:21:20.657531    1579 memcache.go:265] "Unhandled Error" err="couldn\'t get current server API group '
        'list: Get \\"http://localhost:8080/api?timeout=32s\\": dial tcp 127.0.0.1:8080: connect: connection refused"'
    ]
    * 4
    + ["The connection to the server localhost:8080 was refused - did you specify the right host or port?"]
)


def _failing_kubectl(tmp_path, monkeypatch, stderr: str) -> None:
    (tmp_path / "stderr.txt").write_text(stderr + "\n")
    fake = tmp_path / "kubectl"
    fake.write_text(f"#!/bin/sh\ncat '{tmp_path / 'stderr.txt'}' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")


@pytest.mark.parametrize("source", [["--pod", "vllm-0"], ["-l", "app=vllm"]])
def test_no_cluster_is_one_short_line_naming_the_server_not_the_pod(tmp_path, monkeypatch, capsys, source):
    _failing_kubectl(tmp_path, monkeypatch, _NO_CLUSTER_STDERR)
    assert main(["coldstart", *source, "-n", "inference"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 160, err
    assert err.startswith("fastload: cannot reach the Kubernetes cluster at localhost:8080: connection refused")
    assert "vllm-0" not in err and "--pod" not in err and "memcache" not in err and "\\n" not in err


def test_a_missing_pod_is_named_with_kubectls_own_words(tmp_path, monkeypatch, capsys):
    _failing_kubectl(tmp_path, monkeypatch, 'Error from server (NotFound): pods "vllm-9" not found')
    assert main(["coldstart", "--pod", "vllm-9", "-n", "inference"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "fastload: --pod: got 'vllm-9'; accepted: one that exists in namespace inference "
        '(kubectl: pods "vllm-9" not found)\n'
    )


@pytest.mark.parametrize(
    ("stderr", "says"),
    [
        ("Unable to connect to the server: dial tcp 10.0.0.1:443: i/o timeout", "at 10.0.0.1:443: timed out"),
        (
            "Unable to connect to the server: dial tcp: lookup X.gr7.us-west-2.eks.amazonaws.com on 10.0.0.2:53: "
            "no such host",
            "at X.gr7.us-west-2.eks.amazonaws.com: no such host",
        ),
        ("error: You must be logged in to the server (Unauthorized)", "not authorised"),
        ('error: context "prod" does not exist', "(context prod): no such context"),
        ('Error from server (NotFound): pods "x" not found', None),
    ],
)
def test_kubectl_errors_that_mean_no_cluster_answered(stderr, says):
    sentence = unreachable(stderr)
    assert (sentence is None) if says is None else (sentence is not None and says in sentence)
