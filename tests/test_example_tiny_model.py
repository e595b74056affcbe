"""examples/tiny_model.py: the model folder the README's "try it without AWS" stages and inspects."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fastload_constructs.core.model import ModelArchitecture, ModelProfile

SCRIPT = Path(__file__).resolve().parent.parent / "examples" / "tiny_model.py"


def test_it_writes_a_folder_fastload_reads_as_the_model_it_says(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "m"), "--layers", "3", "--hidden", "128"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    # 2 x vocab x hidden + hidden, and per layer 4 x hidden^2 + 3 x 4 x hidden^2 + 2 x hidden.
    expected = 2 * 1024 * 128 + 128 + 3 * (16 * 128 * 128 + 2 * 128)
    assert done.stdout.startswith(f"wrote {tmp_path / 'm'}: {expected:,} parameters")
    profile = ModelProfile.from_directory(str(tmp_path / "m"))
    assert profile.parameter_count == expected and 2 * expected <= profile.total_bytes < 2 * expected + 65536
    arch = ModelArchitecture.from_file(str(tmp_path / "m"))
    assert arch.num_layers == 3 and json.loads((tmp_path / "m" / "config.json").read_text())["hidden_size"] == 128


def test_it_refuses_shapes_it_cannot_write(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "m"), "--hidden", "100"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "--hidden a multiple of 64" in done.stderr
    assert not (tmp_path / "m").exists()
