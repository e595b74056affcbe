"""The parser against vLLM logs published by people outside this project.

Each `tests/fixtures/vllm_logs/real/<name>.log` is a log (or the excerpt of it that
was posted) as found at the source its sidecar `<name>.expected.json` names, with
the vLLM release, the tensor-parallel size and the values worked out by hand from
its lines. Every expected value is asserted, within the log's own rounding.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fastload_constructs.coldstart.parser import parse_log
from fastload_constructs.coldstart.report import PHASE_ORDER, ColdStartReport
from fastload_constructs.core.errors import FastloadConfigError

REAL = Path(__file__).parent / "fixtures" / "vllm_logs" / "real"
CASES = sorted(p.stem for p in REAL.glob("*.log"))
KNOWN_KEYS = {
    "recognised",
    "ready",
    "mode",
    "phases",
    "absent_phases",
    "total_s",
    "worker_count",
    "compile_cache",
    "torch_compile_s",
    "weights_gib_total",
    "weights_gib_per_gpu",
    "weights_total_is_estimated",
    "weights_gib_per_s",
    "throughput_source",
    "failed_in",
    "failure_contains",
    "engine_version",
    "clock",
}


def sidecar(name: str) -> dict[str, Any]:
    return json.loads((REAL / f"{name}.expected.json").read_text(encoding="utf-8"))


def test_the_collection_is_large_and_every_log_has_a_sidecar():
    assert len(CASES) >= 25
    for name in CASES:
        data = sidecar(name)
        assert data["source"] and data["vllm_version"] and data["worked_out"], name
        assert set(data["expected"]) <= KNOWN_KEYS, (name, set(data["expected"]) - KNOWN_KEYS)
        assert data["expected"], name


def test_the_collection_spans_releases_engines_and_outcomes():
    data = [sidecar(name) for name in CASES]
    expected = [d["expected"] for d in data]
    assert {d["engine"] for d in data} == {"V0", "V1"}
    assert {d["tensor_parallel_size"] for d in data} >= {1, 2, 4, 8}
    assert any(e.get("ready") is True and e.get("mode") == "offline" for e in expected)
    assert any(e.get("ready") is True and e.get("mode") == "server" for e in expected)
    assert sum(1 for e in expected if "failure_contains" in e and "EngineCore" in e["failure_contains"]) >= 3
    assert any(e.get("recognised") is False for e in expected)
    assert {e.get("compile_cache") for e in expected} >= {"hit", "miss", "not_compiled"}
    # NCCL failures placed in distributed init with the NCCL error named; distributed init timed where shown.
    assert sum(1 for e in expected if e.get("failed_in") == "distributed_init") >= 3
    assert sum(1 for e in expected if "NCCL error" in e.get("failure_contains", "")) >= 3
    assert sum(1 for e in expected if "distributed_init" in e.get("phases", {})) >= 3


# Report fields a sidecar may give, compared as they are.
EQUAL_FIELDS = ("mode", "worker_count", "compile_cache", "failed_in", "engine_version", "clock")


@pytest.mark.parametrize("name", CASES)
def test_real_log(name: str):
    data = sidecar(name)
    expected = data["expected"]
    tolerance = data["tolerance_s"]
    raw = (REAL / f"{name}.log").read_bytes()
    if expected.get("recognised") is False:
        with pytest.raises(FastloadConfigError, match="at least one start-up line"):
            parse_log(raw, label=name)
        return
    r = parse_log(raw, label=name)
    assert r.ready is expected["ready"]
    for key in EQUAL_FIELDS:
        if key in expected:
            assert getattr(r, key) == expected[key], (key, r.worker_count_source)
    _check_phases(r, expected, tolerance)
    _check_weights(r, expected)
    if "torch_compile_s" in expected:
        assert r.torch_compile_s == pytest.approx(expected["torch_compile_s"], abs=tolerance)
    if "failure_contains" in expected:
        assert r.failure is not None and expected["failure_contains"] in r.failure


def _check_phases(r: ColdStartReport, expected: dict[str, Any], tolerance: float) -> None:
    """The phases the sidecar gives, those it says are absent, the total, and the lines each was read from."""
    for phase, seconds in expected.get("phases", {}).items():
        assert phase in PHASE_ORDER
        assert phase in r.phase_seconds, (phase, r.phase_seconds)
        assert r.phase_seconds[phase] == pytest.approx(seconds, abs=tolerance), phase
    for phase in expected.get("absent_phases", []):
        assert phase not in r.phase_seconds, (phase, r.phase_seconds)
    assert sum(r.phase_seconds.values()) == pytest.approx(r.total_s, abs=0.01)
    if "total_s" in expected:
        assert r.total_s == pytest.approx(expected["total_s"], abs=tolerance)
    # Every phase with a number comes with the line it was read from (the HTML report shows them).
    for phase in ("weight_load", "dynamo_transform", "graph_compile", "cuda_graph"):
        if phase in r.phase_seconds:
            assert r.evidence_for(phase), phase
            assert all(e.line_number > 0 for e in r.evidence_for(phase))


def _check_weights(r: ColdStartReport, expected: dict[str, Any]) -> None:
    """The weights' size, per GPU and in all, whether the total is estimated, their rate and its source."""
    if "weights_gib_total" in expected:
        assert r.weights is not None and r.weights_gib == pytest.approx(expected["weights_gib_total"], rel=1e-4)
    if "weights_gib_per_gpu" in expected:
        assert r.weights is not None and r.weights.per_gpu_gib == pytest.approx(
            expected["weights_gib_per_gpu"], rel=1e-4
        )
    if "weights_total_is_estimated" in expected:
        assert r.weights is not None and r.weights.total_is_estimated is expected["weights_total_is_estimated"]
    if "weights_gib_per_s" in expected:
        assert r.weights_gib_per_s == pytest.approx(expected["weights_gib_per_s"], rel=1e-3)
    if "throughput_source" in expected:
        assert r.weights is not None and r.weights.throughput_source == expected["throughput_source"]


def test_a_tpu_precompile_failure_is_compile_even_when_only_the_workers_call_is_shown():
    """The real TPU traceback cut before tpu_model_runner.py's frame (its first 10 lines): the innermost call
    left is tpu_worker.py's `self.model_runner.capture_model()`, which on a TPU is XLA's precompile."""
    lines = (REAL / "tpu_v1_gemma3_precompile_failure_traceback_only_excerpt.log").read_text().splitlines()[:10]
    assert "tpu_worker.py" in lines[8] and "capture_model()" in lines[9]
    r = parse_log(lines, label="tpu")
    assert (
        r.failed_in == "graph_compile"
        and r.failure == "an error whose message is not in the log (only its traceback is)"
    )
