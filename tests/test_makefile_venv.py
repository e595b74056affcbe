"""`make setup` with a wrong Python leaves no .venv that breaks the next run (run on a copy of the Makefile)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for name in ("Makefile", "pyproject.toml", "setup.py"):
        shutil.copy(ROOT / name, tmp_path / name)
    return tmp_path


def _script(path: Path, body: str) -> Path:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return path


def _make(project: Path, python: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "setup", f"PYTHON={python}"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_too_old_python_is_refused_before_a_venv_exists(project: Path) -> None:
    old = _script(project / "python3.8", 'echo "Python 3.8.18"; exit 1\n')
    done = _make(project, old)
    assert done.returncode != 0
    assert f"PYTHON={old} is not a Python >= 3.10" in done.stderr
    assert not (project / ".venv").exists()


def test_a_failed_first_install_removes_the_half_made_venv(project: Path) -> None:
    # A Python >= 3.10 whose venv is made but whose pip install fails (an offline machine, say).
    python = _script(
        project / "python",
        f'if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then mkdir -p "$3/bin"\n'
        f'  printf \'#!/bin/sh\\nif [ "$1" = -c ]; then exec {sys.executable} "$@"; fi\\nexit 1\\n\''
        ' > "$3/bin/python"\n'
        f'  chmod +x "$3/bin/python"; exit 0; fi\nexec {sys.executable} "$@"\n',
    )
    done = _make(project, python)
    assert done.returncode != 0
    assert "removed the half-made .venv" in done.stderr
    assert not (project / ".venv").exists()


def test_a_venv_made_by_another_python_is_made_again(project: Path) -> None:
    broken = project / ".venv" / "bin"
    broken.mkdir(parents=True)
    _script(broken / "python", "exit 1\n")  # what a removed or too-old interpreter leaves
    (project / ".venv" / "stale").write_text("")
    python = _script(project / "python", f'if [ "$1" = "-m" ]; then exit 1; fi\nexec {sys.executable} "$@"\n')
    done = _make(project, python)
    assert "has no working Python >= 3.10; making it again" in done.stdout
    assert not (project / ".venv" / "stale").exists()


def _recipe(target: str) -> list[str]:
    """The commands `make <target>` runs, with the set-up steps taken as done."""
    done = [".venv/.installed", ".venv/.installed-dev", ".venv/bin/cdk", ".venv/cdk-cli/node_modules/aws-cdk/bin/cdk"]
    args = ["make", "--no-print-directory", "-n", *(f"--old-file={f}" for f in done), target]
    return subprocess.run(args, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()


def test_test_runs_everything_and_test_fast_leaves_out_slow_tests() -> None:
    (full,) = [line for line in _recipe("test") if " -m pytest" in line]
    (fast,) = [line for line in _recipe("test-fast") if " -m pytest" in line]
    assert full.endswith("-m pytest") and fast.endswith('-m pytest -m "not slow"')
    assert not any("ruff" in line for line in _recipe("test-fast"))  # checks are `make check` / `make test`


def test_synth_runs_the_cdk_wrapper_not_a_node_from_path() -> None:
    (synth,) = [line for line in _recipe("synth") if "synth" in line and "cdk" in line]
    assert synth.startswith(".venv/bin/cdk synth") and "PATH=" not in synth
