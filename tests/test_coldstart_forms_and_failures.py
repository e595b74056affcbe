"""The cold-start report reads every log form in use, and puts a failure in the phase that was running.

Forms: plain, `kubectl logs --timestamps` (offsets, nanoseconds, stamp-only lines), one JSON object a line
(CloudWatch Logs events around Fluent Bit records, Container Insights records, Cloud Logging entries, vLLM's
own JSON logging), ROCm and TPU back ends. The logs are the real ones in fixtures/vllm_logs/real (SOURCES.md);
where a test adds a line to a real log, it says which and why.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.coldstart.forms import Envelopes
from fastload_constructs.coldstart.parser import parse_log
from fastload_constructs.coldstart.vllm.patterns import is_whole_line
from fastload_constructs.coldstart.vllm.phases.failure import LOAD_TAIL_S
from fastload_constructs.coldstart.vllm.scanner import scan
from fastload_constructs.core.errors import FastloadConfigError

unwrap_json = Envelopes(is_whole_line).unwrap_json  # JSON records around vLLM's lines, as its scanner opens them
REAL = Path(__file__).parent / "fixtures" / "vllm_logs" / "real"

# Each JSON-line fixture and the real log whose lines it wraps (wrap_in_envelopes.py).
WRAPPED = {
    "json_cloudwatch_fluentbit_v0.11_tp1_compile_miss": "v0.11_tp1_compile_miss_excerpt",
    "json_container_insights_v0.9_v1_failed_after_compile": "v0.9_v1_failed_after_compile_excerpt",
    "json_cloud_logging_text_v0.20_enforce_eager": "v0.20_docker_local_time_prefix_enforce_eager",
    "json_cloud_logging_vllm_json_v0.17_rocm_whisper": "kubectl_timestamps_v0.17_rocm_gfx1100_whisper",
}


def real(name: str) -> str:
    return (REAL / f"{name}.log").read_text(encoding="utf-8")


@pytest.mark.parametrize("wrapped, plain", sorted(WRAPPED.items()))
def test_a_json_line_log_reports_what_the_lines_it_wraps_report(wrapped: str, plain: str) -> None:
    inside, outside = parse_log(real(wrapped)), parse_log(real(plain))
    assert inside.phase_seconds == pytest.approx(outside.phase_seconds, abs=1e-3)
    assert (inside.ready, inside.mode, inside.failed_in, inside.failure) == (
        outside.ready,
        outside.mode,
        outside.failed_in,
        outside.failure,
    )
    assert (inside.compile_cache, inside.worker_count, inside.engine_version) == (
        outside.compile_cache,
        outside.worker_count,
        outside.engine_version,
    )
    assert inside.weights_gib == outside.weights_gib
    # Evidence quotes vLLM's line, not the envelope around it.
    assert all(not e.line.startswith("{") for e in inside.evidence)


def test_every_json_line_fixture_is_json_and_holds_its_log_line_by_line() -> None:
    for wrapped, plain in WRAPPED.items():
        lines = real(wrapped).splitlines()
        assert all(isinstance(json.loads(line), dict) for line in lines)
        assert len(lines) == len(real(plain).splitlines())


def test_envelopes_unwrap_to_vllms_line_and_the_collectors_utc_clock() -> None:
    line = "INFO 06-13 11:36:32 [default_loader.py:272] Loading weights took 5.52 seconds"
    fluent_bit = json.dumps({"log": line + "\n", "stream": "stderr", "time": "2025-06-13T19:36:32.123456789+08:00"})
    cloudwatch = json.dumps({"timestamp": 1749814592123, "message": fluent_bit})
    for record, at in (
        (fluent_bit, datetime(2025, 6, 13, 11, 36, 32, 123456)),
        (cloudwatch, datetime(2025, 6, 13, 11, 36, 32, 123456)),  # the inner (container runtime's) time wins
        (
            json.dumps({"textPayload": line, "timestamp": "2025-06-13T11:36:32.5Z"}),
            datetime(2025, 6, 13, 11, 36, 32, 500000),
        ),
    ):
        found = unwrap_json(record)
        assert found is not None and found.line == line and found.at == at
    logged = unwrap_json('(EngineCore_DP0 pid=7) {"message": "Dynamo bytecode transform time: 5.86 s"}')
    assert logged is not None and logged.line == "(EngineCore_DP0 pid=7) INFO: Dynamo bytecode transform time: 5.86 s"
    levelled = unwrap_json(
        '{"message": "EngineCore failed to start.", "levelname": "ERROR", "filename": "core.py", "lineno": 5}'
    )
    assert levelled is not None and levelled.line == "ERROR [core.py:5] EngineCore failed to start."
    # Not an envelope: left to the plain-line reader.
    for other in (
        "{not json}",
        '{"status": 200}',
        "[" * 10_000 + "]" * 10_000,
        '{"log": ' + "[" * 5000 + "]" * 5000 + "}",
    ):
        assert unwrap_json(other) is None


def test_kubectl_timestamps_with_an_offset_are_utc_and_a_stamp_alone_keeps_the_clock() -> None:
    r = parse_log(real("kubectl_timestamps_plus0800_v0.9.1_shards_excerpt"))
    assert r.clock == "collector"
    timeline = scan(iter(real("kubectl_timestamps_plus0800_v0.9.1_shards_excerpt").splitlines()))
    assert timeline.first_at == datetime(2025, 7, 2, 6, 32, 50, 786405)  # 14:32:50.786405823+08:00
    assert timeline.last_at == datetime(2025, 7, 2, 6, 33, 27, 989292)  # a stamp alone on its line
    # The 0% bar follows the poster's "..." cut: it waits for the next stamp rather than taking one 28 s older.
    assert timeline.events[0].at == datetime(2025, 7, 2, 6, 33, 26, 160173)


def test_json_lines_of_a_long_never_ready_log_keep_memory_to_the_start_up_lines() -> None:
    request = json.dumps(
        {
            "timestamp": 1749814600000,
            "message": json.dumps({"log": '(APIServer pid=1) INFO:     10.0.0.1:5 - "POST /v1/completions" 200 OK\n'}),
        }
    )
    lines = [*real("json_cloudwatch_fluentbit_v0.11_tp1_compile_miss").splitlines(), *([request] * 20_000)]
    timeline = scan(iter(lines))
    assert timeline.lines_read == len(lines)
    assert len(timeline.events) < 20 and len(timeline.problems) < 5


def test_json_records_of_other_applications_are_one_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "app.jsonl"
    other.write_text(
        '{"log":"{\\"level\\":\\"error\\",\\"message\\":\\"upstream request failed\\"}","stream":"stderr"}\n'
    )
    with pytest.raises(FastloadConfigError, match="at least one start-up line"):
        parse_log(other.read_bytes())
    assert main(["coldstart", str(other)]) == 2
    err = capsys.readouterr().err
    assert "at least one start-up line" in err and "Traceback" not in err


def test_cli_reads_a_cloud_logging_export(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["coldstart", str(REAL / "json_cloud_logging_text_v0.20_enforce_eager.log"), "--json"]) == 0
    [view] = json.loads(capsys.readouterr().out)
    assert view["total_seconds"] == pytest.approx(561.152, abs=0.01)


# --- ROCm and TPU ---


def test_rocm_logs_read_like_cuda_ones() -> None:
    aiter = parse_log(real("rocm_v0.11.1_aiter_interleaved_excerpt"))
    assert aiter.seconds("graph_compile") == pytest.approx(7.47) and aiter.torch_compile_s == pytest.approx(10.69)
    whisper = parse_log(real("kubectl_timestamps_v0.17_rocm_gfx1100_whisper"))
    assert whisper.ready and whisper.engine_version == "0.17.0"  # records without vLLM's date, timed by kubectl


def test_tpu_xla_precompile_is_the_compile_phase() -> None:
    jax = parse_log(real("tpu_jax_precompile_excerpt"))
    assert jax.seconds("graph_compile") == pytest.approx(0.11 + 0.12 + 0.10 + 0.08 + 0.16)
    xla = parse_log(real("tpu_v1_xla_sampler_precompile_failure_excerpt"))
    assert xla.torch_compile_s == pytest.approx(44.09)  # "Compilation finished in in 44.09 [secs]."
    assert xla.seconds("graph_compile") == pytest.approx(44.09 + 2)  # + the sampler's, running when it failed
    assert xla.failed_in == "graph_compile"
    assert any("still compiling" in e.note for e in xla.evidence_for("graph_compile"))
    load = parse_log(real("tpu_jax_startup_load_excerpt"))
    assert load.seconds("weight_load") == pytest.approx(4)  # MODEL_IMPL_TYPE -> "Init model | hbm="


# --- where a failure goes ---

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."


def test_an_oom_during_cuda_graph_capture_is_a_capture_failure() -> None:
    # Real: the FULL decode set at 0% when the worker raises under capture_model().
    r = parse_log(real("rocm_graph_capture_failure_compose_excerpt"))
    assert r.failed_in == "cuda_graph"
    [cause] = r.evidence_for("failure")
    assert "capture_model" in cause.note
    # The real v0.11 excerpt ends in capture progress bars; an OOM line after them (as a capture OOM prints)
    # is the capture's, not the KV-cache sizing's that the last timed line was about.
    r = parse_log(real("v0.11_tp1_compile_miss_excerpt") + OOM + "\n")
    assert r.failure.startswith("torch.OutOfMemoryError") and r.failed_in == "cuda_graph"


def test_the_traceback_names_the_running_phase_over_the_last_line() -> None:
    # The real v0.9 log: weights loaded, compile under way; an ERROR traceback raised under capture_model.
    lines = real("v0.9_v1_failed_after_compile_excerpt").splitlines()[:6]
    frame = (
        "ERROR 06-13 11:37:08 [core.py:515]   "
        'File "/usr/lib/vllm/v1/worker/gpu_model_runner.py", line 2410, in capture_model'
    )
    r = parse_log([*lines, frame, f"ERROR 06-13 11:37:08 [core.py:515] {OOM}"])
    assert r.failed_in == "cuda_graph"
    # On TPU, capture_model is XLA's precompile.
    tpu = frame.replace("gpu_model_runner.py", "tpu_model_runner.py")
    assert parse_log([*lines, tpu, f"ERROR 06-13 11:37:08 [core.py:515] {OOM}"]).failed_in == "graph_compile"
    # An outer function that wraps compile, KV sizing and capture together names none: the log's phase stands.
    outer = "ERROR 06-13 11:37:08 [core.py:515]     self._initialize_kv_caches(vllm_config)"
    assert parse_log([*lines, outer, f"ERROR 06-13 11:37:08 [core.py:515] {OOM}"]).failed_in == "graph_compile"


def _after_the_read(seconds_later: int) -> str:
    # Real lines of v0.9_v1_failed_after_compile_excerpt up to the end of the read ("Loading weights took"),
    # with a start line before it and a failure `seconds_later`.
    at = datetime(2025, 6, 13, 11, 36, 32).timestamp() + seconds_later
    when = datetime.fromtimestamp(at).strftime("%m-%d %H:%M:%S")
    return "\n".join(
        [
            "INFO 06-13 11:36:25 [gpu_model_runner.py:1595] Starting to load model Qwen/Qwen3-8B...",
            real("v0.9_v1_failed_after_compile_excerpt").splitlines()[0],
            f"ERROR {when} [core.py:515] EngineCore failed to start.",
            f"ERROR {when} [core.py:515] {OOM}",
        ]
    )


def test_a_failure_long_after_the_weights_were_read_is_not_a_load_failure() -> None:
    assert parse_log(_after_the_read(20)).failed_in == "weight_load"  # the load's tail (post-processing)
    assert parse_log(_after_the_read(int(LOAD_TAIL_S))).failed_in == "weight_load"
    fourteen_minutes = parse_log(_after_the_read(14 * 60))
    assert fourteen_minutes.failed_in == "dynamo_transform"  # the phase after the load
    [cause] = fourteen_minutes.evidence_for("failure")
    assert "840 s after the weights were read" in cause.note


def test_a_started_phase_holds_a_failure_however_long_it_ran() -> None:
    # Published capture with LoRA ran 11,412 s (v0.8.4_lora_long_capture_excerpt): no time limit closes it.
    lines = real("v0.6.5_v0_tp2_profiling_results_excerpt").splitlines()
    r = parse_log([*lines, f"ERROR 12-13 05:20:00 [engine.py:1] {OOM}"])  # 3 h 10 min into capture
    assert r.failed_in == "cuda_graph"


def test_without_a_start_up_line_a_failure_is_the_engines_start() -> None:
    r = parse_log(real("kubectl_timestamps_nanos_dp16_nccl_oom_excerpt"))
    assert r.failed_in == "engine_init" and r.failure.startswith("ncclInternalError")


@pytest.mark.parametrize(
    "line",
    [
        "2025-13-45T10:00:00Z INFO 12-02 17:00:00 [x.py:1] Starting to load model m...",  # no month 13
        "0001-01-01T00:00:00+23:59 INFO 12-02 17:00:00 [x.py:1] Starting to load model m...",  # before year 1 in UTC
        '{"log": "INFO 12-02 17:00:00 [x.py:1] Starting to load model m...", "time": "2025-02-30T10:00:00Z"}',
        '{"log": "INFO 12-02 17:00:00 [x.py:1] Starting to load model m...", "timestamp": -1e30}',
        '{"log": "INFO 12-02 17:00:00 [x.py:1] Starting to load model m...", "timestamp": 1e999}',
    ],
)
def test_an_impossible_collector_time_leaves_the_line_to_vllms_clock(line: str) -> None:
    r = parse_log(line)
    assert r.clock == "vllm" and r.failed_in == "weight_load"


def test_an_impossible_vllm_date_is_read_untimed_not_raised() -> None:
    with pytest.raises(FastloadConfigError, match="at least one start-up line"):
        parse_log("INFO 13-45 17:00:00 [x.py:1] Starting to load model m...")
    lines = [
        "INFO 12-02 17:00:00 [x.py:1] Starting to load model m...",
        "INFO 02-30 17:00:01 [x.py:1] Loading weights took 1.00 seconds",
        "ERROR 12-02 17:00:05 [core.py:1] torch.OutOfMemoryError: CUDA out of memory.",
    ]
    r = parse_log(lines)
    assert r.total_s == pytest.approx(5) and r.failed_in == "weight_load"


def test_bare_traceback_frames_name_the_phase_and_do_not_revive_survived_errors() -> None:
    lines = [
        "INFO 12-02 17:00:00 [gpu_model_runner.py:1] Starting to load model m...",
        "ERROR 12-02 17:00:01 [hub.py:9] Failed to fetch config.json, retrying (1/3)",
        "INFO 12-02 17:00:21 [gpu_model_runner.py:2] Model loading took 1.0 GiB memory and 21.0 seconds",
        "Traceback (most recent call last):",
        '  File "/usr/lib/vllm/v1/worker/gpu_model_runner.py", line 2410, in capture_model',
        '  File "/usr/lib/torch/cuda/graphs.py", line 80, in capture_end',
        OOM,
    ]
    r = parse_log(lines)
    assert r.failed_in == "cuda_graph" and r.failure.startswith("torch.OutOfMemoryError")
    assert "retrying" not in (r.failure or "")


TCPSTORE = "v0.9_v0_mp_tcpstore_timeout_init_device_issue19670_excerpt"
TIMED_OUT = "The client socket has timed out after 600000ms while trying to connect to (172.17.0.9, 50437)."


def test_an_init_device_failure_with_distributed_frames_is_distributed_init() -> None:
    """vLLM's worker traceback names only `init_device` (device set-up, then the process groups); the c10d
    lines and C++ frames of the same failure (vllm#19670) say it was the TCPStore rendezvous."""
    lines = real(TCPSTORE).splitlines()
    c10d, worker = lines[:20], lines[20:]
    assert worker[0].endswith("while processing method init_device.")
    for order in (c10d + worker, worker + c10d):
        r = parse_log(order)
        assert r.failed_in == "distributed_init"
        assert r.failure == TIMED_OUT
    # The worker's traceback alone shows no distributed frame: device set-up, as its frame says.
    alone = parse_log(worker)
    assert alone.failed_in == "engine_init" and "init_device" in (alone.failure or "")
