"""A log's clock that steps: an NTP correction on a fresh node sets it back, an unset clock jumps forward.

Each test takes a log from the fixtures and moves the time of every line from one line on (the lines chosen have
the same time as the line before them, so the step is all there is to take out): the report must be the
original's, with one note saying where the clock stepped and by how much, and never a negative phase.
`calibrate` refuses such a launch; `timeline` says when the events' own clocks went back.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.coldstart.clock import MAX_GAP_S
from fastload_constructs.coldstart.events import parse_events
from fastload_constructs.coldstart.parser import parse_log
from fastload_constructs.coldstart.report import ColdStartReport
from fastload_constructs.coldstart.timeline import build_timeline

FIXTURES = Path(__file__).parent / "fixtures"
# vLLM's own clock, four workers and an API server (a log written for this project's tests).
TP4 = (FIXTURES / "vllm_logs" / "tp4_v0.11_local.log").read_bytes().decode()  # bytes: its "\r" redraws kept
# A collector's clock: docker compose's prefix on a real vLLM 0.20 start.
DOCKER = (FIXTURES / "vllm_logs" / "real" / "v0.20_docker_local_time_prefix_enforce_eager.log").read_bytes().decode()
# SGLang's dated prefix on a real start that reached "fired up and ready to roll".
SGLANG = (
    (FIXTURES / "sglang_logs" / "real" / "31_v0.4.10_qwen2.5-7b_tp1_fired_up_docs_frontend.log").read_bytes().decode()
)

_VLLM_TIME = re.compile(r"(?<= )(\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?= \[)")
_DOCKER_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3})(?= \|)")
_SGLANG_TIME = re.compile(r"(?<=^\[)(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?=\])")


def moved(text: str, from_line: int, seconds: float, stamp: re.Pattern[str], form: str) -> str:
    """`text` with the time `stamp` finds moved by `seconds` on every line from `from_line` (1-based) on."""
    year = "2026-" if form.startswith("%m") else ""  # vLLM's clock has no year: read it in one
    full = (year and "%Y-") + form

    def move(found: re.Match[str]) -> str:
        at = datetime.strptime(year + found[1], full) + timedelta(seconds=seconds)
        return at.strftime(full)[len(year) :][: len(found[1])]

    lines = text.split("\n")  # as a file is read: "\r" redraws stay in their line
    return "\n".join(stamp.sub(move, line, count=1) if n >= from_line else line for n, line in enumerate(lines, 1))


def report(text: str, label: str) -> ColdStartReport:
    return parse_log(text.encode(), label=label)  # bytes: read line by line, as `fastload coldstart FILE` reads


def same_report(stepped: ColdStartReport, original: ColdStartReport) -> None:
    assert stepped.ready is original.ready
    assert stepped.phase_seconds == pytest.approx(original.phase_seconds, abs=0.002)
    assert stepped.total_s == pytest.approx(original.total_s, abs=0.002)
    assert all(p.seconds >= 0 for p in stepped.phases)


@pytest.mark.parametrize(
    "text, line, stamp, form",
    [
        (TP4, 47, _VLLM_TIME, "%m-%d %H:%M:%S"),  # a worker's "Graph capturing finished", as its peer's
        (DOCKER, 100, _DOCKER_TIME, "%Y-%m-%d %H:%M:%S.%f"),  # a route line, as the one before it
        (SGLANG, 29, _SGLANG_TIME, "%Y-%m-%d %H:%M:%S"),  # "KV Cache is allocated.", as "Load weight end."
    ],
)
def test_a_clock_stepped_back_30_s_is_taken_out_and_said_once(text, line, stamp, form):
    stepped = moved(text, line, -30, stamp, form)
    assert stepped != text
    r = report(stepped, "stepped")
    same_report(r, report(text, "original"))
    (note,) = r.notes
    assert note.startswith(f"the log's clock went back 30 s at line {line}")


@pytest.mark.parametrize("seconds", [2 * 86400, 400 * 86400])
def test_a_forward_jump_longer_than_any_silent_phase_is_a_clock_step(seconds):
    stepped = moved(SGLANG, 29, seconds, _SGLANG_TIME, "%Y-%m-%d %H:%M:%S")
    r = report(stepped, "jumped")
    same_report(r, report(SGLANG, "original"))
    (note,) = r.notes
    assert note.startswith(f"the log's clock jumped forward {seconds} s at line 29")


def test_a_silent_gap_shorter_than_a_day_is_time_that_passed():
    hours = moved(SGLANG, 29, 2 * 3600, _SGLANG_TIME, "%Y-%m-%d %H:%M:%S")
    r = report(hours, "two hours")
    assert MAX_GAP_S > 2 * 3600 and not r.notes
    assert r.total_s == pytest.approx(17.0 + 2 * 3600)


@pytest.mark.parametrize("line", [5, 9, 23, 39, 46, 50, 51])
@pytest.mark.parametrize("seconds", [-3, -30, -3600, 3 * 86400])
def test_no_step_anywhere_gives_a_negative_phase(line, seconds):
    r = report(moved(TP4, line, seconds, _VLLM_TIME, "%m-%d %H:%M:%S"), "stepped")
    assert all(p.seconds >= 0 for p in r.phases) and r.total_s >= 0
    # A step the log cannot show (3 s back after 11 s of silence) is time as it reads; any other is said.
    assert all("clock" in note for note in r.notes) and len(r.notes) <= 1


def test_calibrate_refuses_a_launch_whose_clock_stepped(tmp_path, capsys):
    log = tmp_path / "stepped.log"
    log.write_text(moved(DOCKER, 100, -30, _DOCKER_TIME, "%Y-%m-%d %H:%M:%S.%f"))
    out = tmp_path / "assumptions.json"
    assert main(["calibrate", str(log), "--instance", "g6e.2xlarge", "--bytes", "2e10", "-o", str(out)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"fastload: log: got '{log}'") and "went back 30 s at line 100" in line
    assert not out.exists()


def test_a_timeline_whose_events_went_back_says_by_how_much():
    """The kubelet records Started 30 s before the Pulled it follows (its node's clock was set back)."""
    pod = {"kind": "Pod", "name": "vllm-0", "namespace": "inference", "fieldPath": "spec.containers{vllm}"}

    def event(reason: str, message: str, at: str) -> dict[str, object]:
        return {"involvedObject": pod, "reason": reason, "message": message, "firstTimestamp": at, "count": 1}

    items = [
        event("Scheduled", "Successfully assigned inference/vllm-0 to node-1", "2026-01-01T00:00:00Z"),
        event(
            "Pulled", 'Container image "vllm/vllm-openai:v0.11.0" already present on machine', "2026-01-01T00:01:00Z"
        ),
        event("Started", "Started container vllm", "2026-01-01T00:00:30Z"),
    ]
    t = build_timeline(parse_events(json.dumps(items)))
    assert all(p.seconds is None or p.seconds >= 0 for p in t.phases)
    assert any("30 s before image pulled" in n and "clock" in n for n in t.notes), t.notes


def test_lines_a_second_out_of_order_never_make_a_phase_negative():
    """Whole-second stamps of two processes: the server's ready record may read a second before the engine's."""
    lines = TP4.split("\n")
    engine = next(i for i, line in enumerate(lines) if "init engine (profile" in line)
    lines[engine] = lines[engine].replace("16:12:47", "16:12:51")  # one second after the server's records
    ready = next(i for i, line in enumerate(lines) if line.endswith("Application startup complete."))
    lines[ready] = lines[ready].replace("INFO:     ", "INFO 12-02 16:12:50 [launcher.py:46] ")  # logged by vLLM
    r = report("\n".join(lines), "a second out")
    assert all(p.seconds >= 0 for p in r.phases) and not r.notes
    assert r.seconds("api_server") == 0.0
