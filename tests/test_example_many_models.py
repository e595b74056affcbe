"""examples/many_models.py: models on an existing cluster packed over as many stacks as their footprints need."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fastload_constructs.infra.synth_limits import MAX_STACK_RESOURCES, MAX_TEMPLATE_BYTES

SCRIPT = Path(__file__).resolve().parent.parent / "examples" / "many_models.py"


@pytest.mark.slow
def test_sixty_models_take_two_stacks_each_within_its_limits():
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--models", "60"], capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    stacks = [r for r in rows if r.get("stack", "").startswith("Models")]
    assert [r["stack"] for r in stacks] == ["Models0", "Models1"]
    assert sum(r["served_models"] for r in stacks) == 60 and stacks[0]["served_models"] > stacks[1]["served_models"]
    assert all(r["resources"] <= MAX_STACK_RESOURCES and r["template_bytes"] <= MAX_TEMPLATE_BYTES for r in stacks)
