"""`make deploy`/`make diff` print a day-1 hint when they fail for lack of AWS credentials."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run_hint(tmp_path, **env):
    clean = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    clean.update(
        AWS_CONFIG_FILE=str(tmp_path / "config"),
        AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "credentials"),
        AWS_EC2_METADATA_DISABLED="true",  # no instance-metadata lookup from a test
        PYTHONPATH=str(ROOT),
        **env,
    )
    return subprocess.run(
        [sys.executable, "-m", "stacks.credentials_hint"], env=clean, capture_output=True, text=True, timeout=60
    )


def test_no_credentials_prints_the_hint_pointing_at_the_readme(tmp_path):
    done = run_hint(tmp_path)
    assert done.returncode == 0 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "no AWS credentials found" in line and "Day 1: from zero to a first request" in line
    readme = (ROOT / "README.md").read_text()
    assert "### Day 1: from zero to a first request" in readme


def test_with_credentials_it_stays_quiet(tmp_path):
    (tmp_path / "credentials").write_text("[default]\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = x\n")
    assert run_hint(tmp_path).stderr == ""


def test_a_broken_profile_counts_as_none(tmp_path):
    assert "no AWS credentials" in run_hint(tmp_path, AWS_PROFILE="does-not-exist").stderr


def test_deploy_and_diff_run_the_hint_only_when_the_cdk_cli_fails():
    makefile = (ROOT / "Makefile").read_text()
    for target in ("deploy", "diff"):
        (recipe,) = [line for line in makefile.splitlines() if f"$(CDK) {target}" in line]
        assert "|| { status=$$?; $(CREDENTIALS_HINT); exit $$status; }" in recipe
