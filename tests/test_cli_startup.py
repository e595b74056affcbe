"""`fastload --help` and `fastload plan` import only what they use: no boto3, no log analysis, no plotting."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fastload_constructs.cli.main import COMMANDS, cli

PROBE = """
import json, sys
from fastload_constructs.cli.main import main
code = main(sys.argv[1:])
heavy = ["boto3", "botocore", "s3transfer", "matplotlib", "tqdm", "fastload_constructs.coldstart"]
print(json.dumps({"code": code, "loaded": [m for m in heavy if m in sys.modules]}), file=sys.stderr)
"""


ROOT = Path(__file__).resolve().parents[1]


def _loaded(*argv: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, check=False, env=env)
    result = json.loads(done.stderr.strip().splitlines()[-1])
    assert result["code"] == 0, done.stderr
    return result["loaded"]


@pytest.mark.parametrize(
    "argv", [("--help",), ("plan", "--instance", "g6e.2xlarge", "--params", "8.03e9"), ("stage", "--help")]
)
def test_light_commands_import_nothing_heavy(argv):
    assert _loaded(*argv) == []


def test_inspect_of_a_local_folder_needs_no_boto3(tmp_path):
    from tests.hf_model_factory import write_hf_model

    write_hf_model(tmp_path / "tiny")
    assert "boto3" not in _loaded("inspect", str(tmp_path / "tiny"))


def test_every_listed_command_resolves_and_its_summary_is_its_own():
    for name, (_, summary) in COMMANDS.items():
        command = cli.get_command(None, name)  # type: ignore[arg-type]
        assert command is not None and command.name == name
        assert command.get_short_help_str(limit=300) == summary, name


def test_stage_loads_botocore_but_neither_boto3_nor_a_progress_bar_off_a_terminal(s3_server, tmp_path):
    from tests.hf_model_factory import write_hf_model

    write_hf_model(tmp_path / "tiny")
    bucket = s3_server.new_bucket()
    argv = ("stage", str(tmp_path / "tiny"), f"s3://{bucket}/m", "--endpoint-url", s3_server.url)
    assert _loaded(*argv) == ["botocore"]  # stderr is a pipe here: no bar drawn, tqdm never imported
