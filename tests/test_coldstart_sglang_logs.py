"""`fastload coldstart` on SGLang server logs published by people outside this project.

Each `tests/fixtures/sglang_logs/real/<name>.log` is a log excerpt as found at the source its sidecar
`<name>.expected.json` names (SOURCES.md lists them all: SGLang 0.3 to 0.5.8, TP 1 to 16, DP and PP,
thirteen failures), with the values worked out by hand from its lines. Every expected value is asserted.
The 0.5.23 line forms no public log shows yet are checked against the format strings in its source.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.coldstart.parser import detect, parse_log
from fastload_constructs.coldstart.render import render_table, report_as_dict
from fastload_constructs.coldstart.report import PHASE_ORDER
from fastload_constructs.core.errors import FastloadConfigError

REAL = Path(__file__).parent / "fixtures" / "sglang_logs" / "real"
CASES = sorted(p.stem for p in REAL.glob("*.log"))
VLLM_REAL = Path(__file__).parent / "fixtures" / "vllm_logs" / "real"


def sidecar(name: str) -> dict[str, Any]:
    return json.loads((REAL / f"{name}.expected.json").read_text(encoding="utf-8"))


def test_the_collection_spans_releases_parallelism_and_outcomes():
    assert len(CASES) == 31
    data = [sidecar(name) for name in CASES]
    for name, d in zip(CASES, data, strict=True):
        assert d["source"].startswith("https://") and d["sglang_version"] and d["worked_out"], name
        assert name.replace("_FAIL", "").split("_")[1].startswith("v0."), name
    assert {d["tensor_parallel_size"] for d in data} >= {1, 2, 4, 8}
    expected = [d["expected"] for d in data]
    assert any(e.get("ready") is True for e in expected)
    assert sum(1 for e in expected if "failure_contains" in e) >= 2
    assert sum(1 for e in expected if e.get("recognised") is False) == 2
    # Distributed init timed and failed in, NCCL root causes, DP attention's weights.
    assert sum(1 for e in expected if "distributed_init" in e.get("phases", {})) >= 4
    assert sum(1 for e in expected if e.get("failed_in") == "distributed_init") >= 5
    assert any("NCCL error" in e.get("failure_contains", "") for e in expected)
    assert any(e.get("weights_gib_total") and not e["weights_total_is_estimated"] for e in expected)
    assert "SOURCES.md" in {p.name for p in REAL.iterdir()}


@pytest.mark.parametrize("name", CASES)
def test_real_sglang_log(name: str):
    data = sidecar(name)
    expected = data["expected"]
    tol = data["tolerance_s"]
    raw = (REAL / f"{name}.log").read_bytes()
    if expected.get("recognised") is False:
        with pytest.raises(FastloadConfigError, match="an SGLang server log with at least one start-up line"):
            parse_log(raw, label=name)
        return
    r = parse_log(raw, label=name)
    assert r.engine == "sglang" and r.engine_version is None
    assert r.ready is expected["ready"]
    assert r.total_s == pytest.approx(expected["total_s"], abs=tol)
    assert r.total_s == pytest.approx(sum(p.seconds for p in r.phases), abs=0.01)
    for phase, seconds in expected["phases"].items():
        assert phase in PHASE_ORDER
        assert r.seconds(phase) == pytest.approx(seconds, abs=tol), phase
        assert any(p.name == phase for p in r.phases), phase
    for phase in expected.get("absent_phases", []):
        assert all(p.name != phase for p in r.phases), phase
    assert r.worker_count == expected["worker_count"]
    if "worker_count_source" in expected:
        assert r.worker_count_source == expected["worker_count_source"]
    assert r.failed_in == expected.get("failed_in")
    if "failure_contains" in expected:
        assert r.failure is not None and expected["failure_contains"] in r.failure
    if "weights_gib_per_gpu" in expected:
        assert r.weights is not None and r.weights.per_gpu_gib == pytest.approx(
            expected["weights_gib_per_gpu"], abs=0.01
        )
        assert r.weights.gib == pytest.approx(expected["weights_gib_total"], abs=0.01)
        assert r.weights.total_is_estimated is expected["weights_total_is_estimated"]


# SGLang 0.5.23's line forms, which no public log shows yet: written from its format strings
# (https://github.com/sgl-project/sglang/tree/v0.5.23/python/sglang/srt: model_runner.py:1273-1379,
# memory_pool.py:2087-2098, kv_cache_configurator.py:498-501, cuda_graph_setup.py:758-792,
# scheduler.py:1262-1272, http_server.py:2600) with made-up values.
V0523 = (Path(__file__).parent / "fixtures" / "sglang_logs" / "v0.5.23_source_format_strings.log").read_text()


def test_the_0_5_23_line_forms_and_the_streamer_summary():
    r = parse_log(V0523, label="v0.5.23")
    assert r.engine == "sglang" and r.ready and r.worker_count == 2 and r.worker_count_source == "server_args"
    # weights: the slowest rank's printed elapsed; pool 33 -> 34; capture 16.80 s from 12:00:34 (ends >= :50.80,
    # TP1's line says :51); the HTTP server up at uvicorn's :53: api 2 s; the warmup request until "fired up" at
    # :55: warmup 2 s. engine_init is the rest of the 55 s: 55 - 11.97 - 1 - 16.8 - 2 - 2 = 21.23 (the 21 s
    # before the weights and the untimed slivers between).
    assert r.phase_seconds == pytest.approx(
        {
            "engine_init": 21.23,
            "weight_load": 11.97,
            "kv_cache_profiling": 1.0,
            "cuda_graph": 16.8,
            "api_server": 2.0,
            "warmup": 2.0,
        },
        abs=0.02,
    )
    assert r.total_s == pytest.approx(55.0, abs=0.02)
    assert r.weights is not None and r.weights.throughput_source == "runai_streamer"
    assert r.weights.gib == pytest.approx(14.96, abs=0.01)
    assert r.compile_cache == "not_compiled"


def test_an_sglang_start_that_never_got_ready_names_the_failure():
    log = V0523.split("[2026-10-01 12:00:33 TP0] KV")[0] + (
        "[2026-10-01 12:00:40 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: 0.2\n"
    )
    r = parse_log(log, label="oom")
    assert not r.ready and r.failed_in == "kv_cache_profiling"
    assert r.failure is not None and r.failure.startswith("Not enough memory")


def test_vllm_logs_are_never_taken_for_sglang():
    for path in sorted(VLLM_REAL.glob("*.log")):
        engine, _ = detect(path.read_text(encoding="utf-8", errors="replace").splitlines())
        assert engine.name == "vllm", path.name


def test_detection_hands_back_every_line():
    lines = ["x"] * 5 + ["[2026-01-01 00:00:00] Load weight begin. avail mem=1.00 GB", "y"]
    engine, again = detect(iter(lines))
    assert engine.name == "sglang" and list(again) == lines


def test_fastload_coldstart_reads_an_sglang_log(capsys):
    ready = REAL / "31_v0.4.10_qwen2.5-7b_tp1_fired_up_docs_frontend.log"
    assert main(["coldstart", str(ready), "--json"]) == 0
    (view,) = json.loads(capsys.readouterr().out)
    assert view["engine"] == "sglang" and view["ready"] is True and view["phases"]["warmup"] == pytest.approx(2.0)
    # A log cut while warming up is still reported (exit 1: it never said it was ready).
    log = REAL / "08_v0.5.5_tp1_ready_pr11830.log"
    assert main(["coldstart", str(log), "--json"]) == 1
    (view,) = json.loads(capsys.readouterr().out)
    assert view["engine"] == "sglang" and view["ready"] is False and view["failed_in"] == "warmup"
    assert view["phases"]["cuda_graph"] == pytest.approx(5.92)
    assert main(["coldstart", str(log), "--instance", "g6e.2xlarge", "--params", "8e9", "--json"]) == 1
    (view,) = json.loads(capsys.readouterr().out)
    # Compared with SGLang's plan, not vLLM's: its capture (52 sizes x 32 layers) and no torch.compile.
    assert view["vs_plan"]["cuda_graph"] == {"predicted": pytest.approx(17.5, abs=0.1), "measured": 5.92}
    assert view["vs_plan"]["compile"]["predicted"] == 0
    assert main(["coldstart", str(log)]) == 1
    assert "CUDA graph capture" in capsys.readouterr().out


def test_calibrate_refuses_an_sglang_log_with_one_line(tmp_path, capsys):
    log = REAL / "31_v0.4.10_qwen2.5-7b_tp1_fired_up_docs_frontend.log"
    assert main(["calibrate", str(log), "--instance", "g6e.2xlarge", "-o", str(tmp_path / "a.json")]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("fastload: log: got '31_v0.4.10_qwen2.5-7b_tp1_fired_up_docs_frontend'") and "SGLang" in line
    assert not (tmp_path / "a.json").exists()


def test_an_sglang_log_that_ends_early_says_so_in_one_sentence(capsys):
    """A log cut while loading names the phase and says no error was logged, as a vLLM report does."""
    log = REAL / "09_v0.5.6_llama3.1-8b_tp1_pr15426.log"
    assert main(["coldstart", str(log)]) == 1
    out = capsys.readouterr().out
    assert "not ready; stopped during weight_load: the log ends during weight_load with no error" in out
    assert "None" not in out
    for name in CASES:
        if sidecar(name)["expected"].get("ready") is False:
            assert parse_log((REAL / f"{name}.log").read_bytes(), label=name).failure, name


DP_ATTENTION = REAL / "20_FAIL_v0.5dev_dsv4_dp_attention_tp4_dp4_mi300x_issue25118.log"


def test_weights_count_one_tp_shard_set_whether_dp_ranks_are_replicas_or_attention_ranks():
    """The real DP-attention log: 4 GPUs, TP0-TP3 each 73.43 GB, one copy of the model (not 16 x 73.43, as
    when every DP rank was counted as more GPUs). The same log with DP attention switched off in its
    server_args line (the only change) reads as 4 DP replicas of a TP4 model: 16 GPUs, the same one copy."""
    text = DP_ATTENTION.read_text(encoding="utf-8")
    attention = parse_log(text, label="dp attention")
    assert attention.worker_count == 4 and attention.weights is not None
    assert attention.weights.gib == pytest.approx(4 * 73.43, abs=0.01)
    assert attention.weights.per_gpu_gib == pytest.approx(73.43) and attention.weights.workers == 4
    replicas = parse_log(text.replace("enable_dp_attention=True", "enable_dp_attention=False"), label="replicas")
    assert replicas.worker_count == 16 and replicas.weights is not None
    assert replicas.weights.gib == pytest.approx(4 * 73.43, abs=0.01) and not replicas.weights.total_is_estimated


def test_distributed_init_and_the_root_cause_on_the_real_dp_attention_log(capsys):
    assert main(["coldstart", str(DP_ATTENTION)]) == 1
    out = capsys.readouterr().out
    assert "distributed init (NCCL)" in out and "16.8" in out
    assert "stopped during kv_cache_profiling: AssertionError at: assert self.store_dtype == torch.uint8" in out
    assert "Scheduler hit an exception" not in out


def test_the_warmup_request_and_its_jit_are_split_from_the_server_start():
    """0.5.23's form: capture ends 12:00:51, uvicorn is up 12:00:53, "fired up" 12:00:55. A DeepGEMM JIT line
    added at 12:00:54 (the first prefill of the warmup request compiles it) stays inside the warm-up."""
    jit = "[2026-10-01 12:00:54 TP0] Try DeepGEMM JIT Compiling for <GEMM_NT_F8F8BF16> N=4096, K=4096, num_groups=1\n"
    log = V0523.replace("[2026-10-01 12:00:55]", jit + "[2026-10-01 12:00:55]")
    r = parse_log(log, label="jit in the warmup")
    assert r.seconds("api_server") == pytest.approx(2.0) and r.seconds("warmup") == pytest.approx(2.0)
    assert next(e.line for e in r.evidence_for("warmup")).endswith("(Press CTRL+C to quit)")
    # Cut after the JIT line, and without uvicorn's line: the JIT after the capture is the warm-up the start died in.
    died = parse_log(log.split("[2026-10-01 12:00:55]")[0].replace(V0523.splitlines()[-2] + "\n", ""), label="died")
    assert not died.ready and died.failed_in == "warmup" and died.seconds("warmup") == pytest.approx(0.0)
    # The engine was done at :51, the warm-up's first sign is the JIT at :54: the server came up in between.
    assert died.seconds("api_server") == pytest.approx(3.0) and "warmup" in died.phase_seconds


def test_a_log_cut_after_uvicorn_is_still_warming_up():
    """SGLang says "The server is fired up and ready to roll!" only once its warm-up request has returned
    (http_server.py `_wait_and_warmup`, 0.2 to 0.5.23): a log that ends after uvicorn's line is not ready."""
    cut = V0523.split("[2026-10-01 12:00:55]")[0]
    assert "Uvicorn running on" in cut.splitlines()[-1]
    r = parse_log(cut, label="cut")
    assert not r.ready and r.failed_in == "warmup" and r.failure is not None
    assert r.failure.startswith("the log ends during warmup with no error")
    # The server is up at :53 (the capture ended at :51): api 2 s, the warm-up then runs to the last line.
    assert r.seconds("api_server") == pytest.approx(2.0, abs=0.01) and r.seconds("warmup") == 0.0
    assert r.total_s == pytest.approx(53.0, abs=0.01)
    # A warm-up that the log shows ending ("Warmup ended", --warmups) is a server that is ready.
    ended = parse_log(cut + "[2026-10-01 12:00:54] Warmup ended\n", label="warmed")
    assert ended.ready and ended.seconds("warmup") == pytest.approx(1.0) and ended.total_s == pytest.approx(54.0)


# A GB10 (DGX Spark) start: torch's warning naming the device is real (the first lines of
# https://github.com/sgl-project/sglang/issues/23386, SGLang on a DGX Spark loading
# nv-community/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4); the SGLang lines are written from 0.5.23's format
# strings, with the figure an unpublished GB10 log shows (a model of tens of GiB whose "mem usage" reads
# 1.58 GB). No public SGLang log from a GB10, GH200 or GB200 with its "Load weight end" line was found.
GB10 = (
    Path(__file__).parent / "fixtures" / "sglang_logs" / "v0.5.23_gb10_unified_memory_format_strings.log"
).read_text()


def test_mem_usage_on_unified_memory_is_not_reported_as_the_weights_size():
    r = parse_log(GB10, label="gb10")
    assert r.ready and r.seconds("weight_load") == pytest.approx(161.87)
    assert r.weights is not None and r.weights.total_bytes is None and r.weights.gib_per_s is None
    (note,) = r.notes
    assert note.startswith('the weights\' "mem usage" (1.58 GiB, a change in free GPU memory) is not their size')
    assert "GB10's memory, which the CPU shares (line 2)" in note
    view = report_as_dict(r)
    assert view["weights"]["gib"] is None and view["notes"] == [note]
    assert f"gb10: {note}" in render_table([r])


def test_mem_usage_that_contradicts_the_models_stated_size_is_left_out():
    """The same log without torch's device warning: 120B parameters in 4 bits are ~55.9 GiB, not 1.58."""
    r = parse_log(GB10.split("  warnings.warn(\n", 1)[1], label="no device line")
    assert r.weights is not None and r.weights.total_bytes is None
    (note,) = r.notes
    assert "contradicts the ~55.9 GiB that 120B parameters in 4 bits" in note
    # A size within 2.5x of the stated one is the weights' (14.38 GiB for Qwen2.5-7B in bf16, ~13.0 GiB).
    ready = parse_log((REAL / "31_v0.4.10_qwen2.5-7b_tp1_fired_up_docs_frontend.log").read_bytes())
    assert ready.weights is not None and ready.weights.gib == pytest.approx(14.38) and not ready.notes
