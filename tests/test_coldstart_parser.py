"""The parser against logs written from vLLM's own format strings (see patterns.py for sources)."""

from __future__ import annotations

import io
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from fastload_constructs.coldstart.lines import MAX_LINE_CHARS, iter_text_lines
from fastload_constructs.coldstart.parser import parse_lines, parse_log
from fastload_constructs.coldstart.report import GIB
from fastload_constructs.coldstart.timestamps import parse_started_at
from fastload_constructs.coldstart.vllm.scanner import scan
from fastload_constructs.core.errors import FastloadConfigError

LOGS = Path(__file__).parent / "fixtures" / "vllm_logs"


def report(name: str, **kwargs):
    return parse_log((LOGS / name).read_text(), label=name, **kwargs)


def test_cold_start_v034_phases_from_reported_durations():
    r = report("cold_v0.34_s3_tp1.log")
    assert r.ready and r.engine_version == "0.34.0"
    assert r.seconds("weight_load") == pytest.approx(31.734512, abs=1e-3)
    assert r.seconds("dynamo_transform") == pytest.approx(9.12)
    # torch.compile took 48.31 s in total, of which 9.12 s Dynamo: the rest is Inductor.
    assert r.seconds("graph_compile") == pytest.approx(48.31 - 9.12)
    assert r.seconds("cuda_graph") == pytest.approx(15)
    # init engine 68.84 s contains compile and CUDA graphs; the rest is profiling and KV cache.
    assert r.seconds("kv_cache_profiling") == pytest.approx(68.84 - 48.31 - 15)
    assert r.seconds("api_server") == pytest.approx(3)  # 17:02:02 engine ready -> 17:02:05 serving
    assert r.total_s == pytest.approx(120)  # first line 17:00:05 -> ready 17:02:05
    assert sum(p.seconds for p in r.phases) == pytest.approx(r.total_s, abs=0.01)
    assert r.compile_cache == "miss"
    assert r.compile_cache_dir.endswith("rank_0_0/backbone")
    assert r.dominant_phase == "graph_compile"


def test_cold_start_weight_throughput_from_the_streamer_summary():
    w = report("cold_v0.34_s3_tp1.log").weights
    assert w.throughput_source == "runai_streamer"
    assert w.gib_per_s == pytest.approx(14.96 / 30.41, rel=1e-3)
    assert w.total_bytes == pytest.approx(14.99 * GIB, rel=1e-6)


def test_warm_compile_cache_is_a_hit_and_weights_dominate():
    cold, warm = report("cold_v0.34_s3_tp1.log"), report("warm_v0.34_s3_tp1.log")
    assert warm.compile_cache == "hit"
    assert warm.seconds("graph_compile") == pytest.approx(7.69 - 5.74)
    assert warm.torch_compile_s == pytest.approx(7.69)
    assert warm.total_s == pytest.approx(76)
    assert warm.dominant_phase == "weight_load"
    assert warm.seconds("graph_compile") < cold.seconds("graph_compile") / 10


def test_tensor_parallel_workers_counted_and_slowest_worker_wins():
    r = report("tp4_v0.11_local.log")  # ANSI-coloured "(Worker_TPn pid=N)" prefixes, as 0.11 prints them
    assert r.worker_count == 4
    assert r.seconds("weight_load") == pytest.approx(43.402915, abs=1e-3)  # Worker_TP2
    # Worker_TP2 compiled longest (65.45 s in total, 12.07 s of it Dynamo).
    assert r.seconds("dynamo_transform") == pytest.approx(12.07)
    assert r.seconds("graph_compile") == pytest.approx(65.45 - 12.07)
    assert r.seconds("cuda_graph") == pytest.approx(22)
    assert r.seconds("kv_cache_profiling") == pytest.approx(98.36 - 65.45 - 22)
    assert r.total_s == pytest.approx(168)
    # Four shards of 32.8835 GiB over the slowest "Loading weights took" (42.03 s).
    assert r.weights.total_bytes == pytest.approx(4 * 32.8835 * GIB, rel=1e-6)
    assert r.weights.gib_per_s == pytest.approx(4 * 32.8835 / 42.03, rel=1e-4)
    assert r.weights.throughput_source == "vllm"


def test_failed_start_reports_root_cause_and_where_it_stopped():
    r = report("failed_v0.11_oom.log")
    assert not r.ready
    assert r.failure.startswith("torch.OutOfMemoryError: CUDA out of memory")
    assert r.failed_in == "weight_load"
    assert r.total_s == pytest.approx(29)  # 16:40:02 -> last line 16:40:31
    assert r.seconds("weight_load") == pytest.approx(17)  # "Starting to load model" 16:40:14 -> the error


def test_old_release_v066_variants():
    r = report("old_v0.6.6_tp2.log")  # "file.py:line]" without "[", "Loading model weights took X GB"
    assert r.engine_version == "0.6.6" and r.ready
    assert r.worker_count == 2
    # 0.6.6 prints no load time: timed from "Starting to load model" (15:30:20) to the slower worker (15:30:42).
    assert r.seconds("weight_load") == pytest.approx(22)
    assert r.seconds("cuda_graph") == pytest.approx(17)
    assert r.seconds("kv_cache_profiling") == pytest.approx(21.37 - 17)
    assert r.compile_cache == "not_compiled"
    assert r.seconds("graph_compile") == 0
    assert r.total_s == pytest.approx(62)


def test_started_at_adds_process_start():
    r = report("cold_v0.34_s3_tp1.log", started_at=parse_started_at("2026-12-02T16:59:50Z"))
    assert r.seconds("process_start") == pytest.approx(15)
    assert r.total_s == pytest.approx(135)
    # ISO 8601 keeps its year and converts to UTC; vLLM's "MM-DD HH:MM:SS" has no year.
    assert parse_started_at("2026-12-02T17:59:50+01:00") == datetime(2026, 12, 2, 16, 59, 50)
    assert parse_started_at("12-02 16:59:50").strftime("%m-%d %H:%M:%S") == "12-02 16:59:50"


def test_started_at_after_the_first_line_is_rejected():
    with pytest.raises(FastloadConfigError, match="started_at"):
        report("cold_v0.34_s3_tp1.log", started_at=parse_started_at("12-02 17:00:30"))


def test_unknown_lines_are_ignored():
    text = (LOGS / "warm_v0.34_s3_tp1.log").read_text()
    noise = "\n".join(
        [
            "(APIServer pid=1) INFO 12-02 17:20:06 [arg_utils.py:1290] Something vLLM says that we do not read",
            "random container output",
            "WARNING 12-02 17:20:07 [cuda.py:88] A warning",
            "",
        ]
    )
    lines = text.splitlines()
    noisy = "\n".join([*lines[:1], noise, *lines[1:]])
    assert parse_log(noisy).phases == parse_log(text).phases


def test_year_rollover_keeps_time_moving_forward():
    text = (
        "INFO 12-31 23:59:50 [gpu_model_runner.py:2602] Starting to load model m...\n"
        "INFO 01-01 00:00:10 [gpu_model_runner.py:2653] Model loading took 1.0000 GiB and 20.000000 seconds\n"
    )
    assert parse_log(text).total_s == pytest.approx(20)


def test_log_without_any_phase_is_a_clear_error():
    with pytest.raises(FastloadConfigError, match="at least one start-up line"):
        parse_log("hello\nINFO 12-02 17:00:00 [x.py:1] nothing we know\n", label="empty.log")


def test_v085_tp2_warm_cache_with_vllmworker_rank_prefixes():
    r = report("warm_v0.8.5_s3_tp2.log")  # "(VllmWorker rank=N pid=M)" and "(EngineCore_0 pid=M)" prefixes
    assert r.engine_version == "0.8.5" and r.ready
    assert r.worker_count == 2
    assert r.compile_cache == "hit"  # "Directly load the compiled graph(s) for shape None from the cache"
    assert r.seconds("weight_load") == pytest.approx(19.052207, abs=1e-3)
    assert r.seconds("dynamo_transform") == pytest.approx(6.02)  # rank 1 compiled longest: 8.31 s in total
    assert r.seconds("graph_compile") == pytest.approx(8.31 - 6.02)
    assert r.seconds("cuda_graph") == pytest.approx(13)
    assert r.seconds("kv_cache_profiling") == pytest.approx(25.48 - 8.31 - 13)
    assert r.total_s == pytest.approx(63)
    # No streamer summary line: throughput is GiB on the GPUs over vLLM's model-loading time.
    assert r.weights.throughput_source == "vllm"
    assert r.weights.gib_per_s == pytest.approx(2 * 7.5123 / 19.052207, rel=1e-4)


def test_start_on_new_years_eve_with_first_line_after_midnight():
    text = "INFO 01-01 00:00:10 [gpu_model_runner.py:2653] Model loading took 1.0000 GiB and 5.000000 seconds\n"
    r = parse_log(text, started_at=parse_started_at("12-31 23:59:55"))
    assert r.seconds("process_start") == pytest.approx(15)


def _stamped(text: str, offset: timedelta) -> str:
    """The log as `kubectl logs --timestamps` shows it when vLLM's clock runs `offset` ahead of UTC."""
    out, last = [], None
    for line in text.splitlines():
        found = re.search(r"(\d{2}-\d{2} \d{2}:\d{2}:\d{2})", line)
        if found:
            last = datetime.strptime(f"2026-{found[1]}", "%Y-%m-%d %H:%M:%S") - offset
        out.append(f"{last:%Y-%m-%dT%H:%M:%S}.000000000Z {line}" if last else line)
    return "\n".join(out)


def test_kubectl_timestamps_prefix_wins_over_a_local_vllm_clock():
    text = (LOGS / "cold_v0.34_s3_tp1.log").read_text()
    stamped = _stamped(text, timedelta(hours=1))  # vLLM logs UTC+1, the prefix is UTC
    r = parse_log(stamped)
    assert r.clock == "collector"
    assert r.phases == parse_log(text).phases
    # The container's startedAt (UTC) is compared with the prefix, not with vLLM's local clock.
    started = parse_log(stamped, started_at=parse_started_at("2026-12-02T15:59:50Z"))
    assert started.seconds("process_start") == pytest.approx(15)
    with pytest.raises(FastloadConfigError, match="started_at"):
        parse_log(text, started_at=parse_started_at("2026-12-02T16:59:50Z") + timedelta(hours=1))


def test_collector_prefix_decides_order_when_vllm_clock_jumps():
    # A prefix on every line: durations come from it even if vLLM's own clock is set wrong.
    lines = [
        "2026-12-02T10:00:00.000Z INFO 01-01 00:00:00 [gpu_model_runner.py:1] Starting to load model m...",
        "2026-12-02T10:00:20.500Z INFO 01-01 05:00:00 [gpu_model_runner.py:2] "
        "Model loading took 1.0 GiB and 20.5 seconds",
        "2026-12-02T10:00:30.250Z (APIServer pid=1) INFO:     Application startup complete.",
    ]
    r = parse_log("\n".join(lines))
    assert r.ready and r.total_s == pytest.approx(30.25)


def test_reading_stops_at_ready_and_later_lines_are_never_pulled():
    text = (LOGS / "warm_v0.34_s3_tp1.log").read_text().splitlines()
    pulled = 0

    def lines():
        nonlocal pulled
        for line in [
            *text,
            *(['(APIServer pid=1) INFO:     10.0.0.1:1 - "POST /v1/completions HTTP/1.1" 200 OK'] * 10**6),
        ]:
            pulled += 1
            yield line

    r = parse_lines(lines())
    assert r.ready and pulled <= len(text) and r.lines_read <= len(text)


def test_a_never_ready_log_keeps_only_its_start_up_lines():
    noise = "(APIServer pid=1) INFO 12-02 17:30:00 [loggers.py:123] Engine 000: Avg prompt throughput: 1.0 tokens/s"
    text = (LOGS / "failed_v0.11_oom.log").read_text().splitlines()
    timeline = scan(iter([*text, *([noise] * 50_000)]))
    assert timeline.lines_read == len(text) + 50_000
    assert len(timeline.events) < 40 and len(timeline.problems) < 40


def test_byte_streams_with_invalid_utf8_and_an_endless_line():
    raw = b"INFO 12-02 17:00:00 [x.py:1] Starting to load model m\xff\xfe...\n" + b"x" * (3 * 2**20) + b"\nend\n"
    lines = list(iter_text_lines(io.BytesIO(raw)))
    assert lines[0].startswith("INFO 12-02 17:00:00") and "\ufffd" in lines[0]
    assert len(lines[1]) <= MAX_LINE_CHARS * 4 and lines[-1] == "end\n"
    r = parse_log(raw)
    assert not r.ready and r.failed_in == "weight_load"


def test_an_error_that_was_survived_is_not_the_root_cause():
    lines = [
        "INFO 12-02 17:00:00 [gpu_model_runner.py:1] Starting to load model m...",
        "ERROR 12-02 17:00:01 [hub.py:9] Failed to fetch config.json, retrying (1/3)",
        "INFO 12-02 17:00:21 [gpu_model_runner.py:2] Model loading took 1.0 GiB memory and 21.0 seconds",
        "INFO 12-02 17:00:30 [backends.py:3] Dynamo bytecode transform time: 9.00 s",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
    ]
    r = parse_log("\n".join(lines))
    assert r.failure.startswith("torch.OutOfMemoryError") and r.failed_in == "graph_compile"
    assert "retrying" not in parse_log("\n".join(lines[:-1])).failure  # nothing after the last line: not blamed
