"""Absurd figures in what `coldstart`, `timeline` and `calibrate` read: a 400-digit integer, NaN and Infinity (which
Python's json accepts), 1e308, negative durations. A log line that carries one is left out with a counted note in
the report, as other unreadable lines are; an event dump or a `fastload timeline --json` file that carries one is
refused with one line naming the file and the field. No traceback, no `Infinity` in any output.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.coldstart.parser import parse_log

FIXTURES = Path(__file__).parent / "fixtures"
REAL = FIXTURES / "vllm_logs" / "real"
BIG = "1" * 400


def strict_json(text: str) -> object:
    """JSON as other tools read it: NaN and Infinity are not JSON."""

    def refuse(constant: str) -> object:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def coldstart_json(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object], str]:
    rc = main(["coldstart", str(path), "--json"])
    out, err = capsys.readouterr()
    (view,) = strict_json(out)  # type: ignore[misc]
    return rc, view, err


# A real vLLM 0.11 start (compile miss, never ready: the excerpt ends before the server) with one absurd line added.
BASE = (REAL / "v0.11_tp1_compile_miss_excerpt.log").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "line",
    [
        f"INFO 11-24 11:44:30 [gpu_model_runner.py:3341] Model loading took {BIG} GiB memory and 27.2 seconds",
        f"INFO 11-24 11:44:30 [gpu_model_runner.py:3341] Model loading took 2.05 GiB memory and {BIG} seconds",
        f"INFO 11-24 11:44:30 [backends.py:1] Dynamo bytecode transform time: {BIG}.5 s",
        f"[RunAI Streamer] Overall time to stream {BIG} GiB of all files: 3.0s, 1.0 GiB/s",
    ],
)
def test_a_vllm_line_with_an_absurd_figure_is_left_out_and_counted(tmp_path, capsys, line):
    log = tmp_path / "absurd.log"
    log.write_text(BASE + line + "\n")
    rc, view, err = coldstart_json(log, capsys)
    assert rc == 1 and "Traceback" not in err
    same = parse_log(BASE)
    assert view["phases"] == pytest.approx(same.phase_seconds)
    (note,) = view["notes"]  # type: ignore[misc]
    assert note.startswith(f"1 figure out of range not read (line {len(BASE.splitlines()) + 1}: ")
    assert "(400 digits)" in note or "(402 characters)" in note


@pytest.mark.parametrize("stamp", [BIG, f"-{BIG}", "NaN", "Infinity", "-Infinity", "1e308", "-5"])
def test_a_json_record_with_an_absurd_time_is_read_by_the_engines_clock(tmp_path, capsys, stamp):
    lines = [
        json.dumps({"log": line, "stream": "stderr"})[:-1] + f', "timestamp": {stamp}}}' for line in BASE.splitlines()
    ]
    log = tmp_path / "absurd.jsonl"
    log.write_text("\n".join(lines) + "\n")
    rc, view, err = coldstart_json(log, capsys)
    assert rc == 1 and "Traceback" not in err
    assert view["clock"] == "vllm" and view["phases"] == pytest.approx(parse_log(BASE).phase_seconds)
    (note,) = view["notes"]  # type: ignore[misc]
    assert note.startswith(f"{len(lines)} figures out of range not read (line 1: timestamp = ")


SGLANG = (FIXTURES / "sglang_logs" / "real" / "31_v0.4.10_qwen2.5-7b_tp1_fired_up_docs_frontend.log").read_text()


@pytest.mark.parametrize(
    "old, new",
    [
        ("mem usage=14.38 GB.", f"mem usage={BIG} GB."),
        (
            "Init torch distributed ends. mem usage=0.00 GB",
            f"Init torch distributed ends. elapsed={BIG} s, mem usage=0",
        ),
        ("[2025-08-07 23:02:43] KV Cache", "[2025-13-45 23:02:43] KV Cache"),  # no month 13: read untimed
    ],
)
def test_an_sglang_line_with_an_absurd_figure_never_crashes(tmp_path, capsys, old, new):
    assert old in SGLANG
    log = tmp_path / "absurd.log"
    log.write_text(SGLANG.replace(old, new))
    rc, view, err = coldstart_json(log, capsys)
    assert rc == 0 and "Traceback" not in err and view["ready"] is True
    assert view["total_seconds"] == pytest.approx(17.0)


def _events(tmp_path: Path, **changes: object) -> Path:
    """One vLLM pod's scale-out as `kubectl get events -o json` prints it, with `changes` to its Pulled event."""
    pod = {"kind": "Pod", "name": "vllm-0", "namespace": "inference", "fieldPath": "spec.containers{vllm}"}

    def event(reason: str, message: str, at: str, **extra: object) -> dict[str, object]:
        return {
            "involvedObject": pod,
            "reason": reason,
            "message": message,
            "type": "Normal",
            "firstTimestamp": at,
            "lastTimestamp": at,
            "count": 1,
            **extra,
        }

    pulled = (
        'Successfully pulled image "vllm/vllm-openai:v0.11.0" in 40.5s (41s including waiting). Image size: 9 bytes.'
    )
    items = [
        event("Scheduled", "Successfully assigned inference/vllm-0 to node-1", "2026-01-01T00:00:00Z"),
        event("Pulled", changes.pop("message", pulled), "2026-01-01T00:01:00Z", **changes),
        event("Started", "Started container vllm", "2026-01-01T00:01:01Z"),
    ]
    path = tmp_path / "events.json"
    path.write_text(json.dumps({"kind": "EventList", "items": items}).replace('"BIG"', BIG))
    return path


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"count": "BIG"}, "items[1].count"),
        ({"message": f'Successfully pulled image "x:1" in {BIG}s. Image size: 9 bytes.'}, "Pulled"),
        ({"message": f'Successfully pulled image "x:1" in 4s. Image size: {BIG} bytes.'}, "Pulled"),
    ],
)
def test_an_event_dump_with_an_absurd_figure_is_refused_in_one_line(tmp_path, capsys, changes, field):
    dump = _events(tmp_path, **changes)
    assert main(["timeline", str(dump)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"fastload: {dump}: {field}") and re.search(r"\(40\d (digits|characters)\)", line)


@pytest.mark.parametrize("value", [BIG, "NaN", "Infinity", "-Infinity", "1e308", "-5", '"5"'])
def test_a_timeline_file_with_an_absurd_figure_is_refused_before_the_fit(tmp_path, capsys, value):
    dump = _events(tmp_path)
    assert main(["timeline", str(dump), "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    view["phases"][0]["seconds"] = "VALUE"
    timeline = tmp_path / "timeline.json"
    timeline.write_text(json.dumps(view).replace('"VALUE"', value))
    out = tmp_path / "assumptions.json"
    assert main(["calibrate", "--timeline", str(timeline), "-o", str(out)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"fastload: --timeline {timeline}: got 'phases[0].seconds = ")
    assert not out.exists()


def test_calibrate_refuses_a_launch_with_a_non_finite_figure_before_the_fit(tmp_path, capsys, monkeypatch):
    """Whatever a report holds, calibrate passes the fit finite figures within their bounds, or refuses the log."""
    import dataclasses

    from fastload_constructs.cli import calibrate_command
    from fastload_constructs.coldstart.report import Phase

    real = REAL / "v0.11_tp1_cache_hit_excerpt.log"

    def absurd(text: str, label: str = "log", started_at: object = None):  # type: ignore[no-untyped-def]
        report = parse_log(text, label=label)
        phases = tuple(Phase(p.name, float("inf") if p.name == "cuda_graph" else p.seconds) for p in report.phases)
        return dataclasses.replace(report, phases=phases, ready=True)

    monkeypatch.setattr(calibrate_command, "parse_log", absurd)
    out = tmp_path / "assumptions.json"
    args = ["calibrate", str(real), "--instance", "g6e.2xlarge", "--vllm-version", "0.11.0", "--bytes", "16e9"]
    args += ["-o", str(out)]
    assert main(args) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"fastload: log: got '{real}'") and "cuda_graph = inf" in line
    assert not out.exists()
