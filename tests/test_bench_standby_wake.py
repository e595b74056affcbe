"""bench/standby_wake.py: what runs without a GPU (the 8B-shaped model it serves, its log parsing)."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench" / "standby_wake.py"


def bench():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("standby_wake", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_model_it_serves_has_llama_3_1_8b_s_parameter_count(tmp_path):
    done = subprocess.run(
        [sys.executable, str(BENCH), "--write-config", str(tmp_path / "m")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    # meta-llama/Llama-3.1-8B: 8,030,261,248 parameters (its safetensors index).
    assert json.loads(done.stdout)["parameters"] == 8_030_261_248
    config = json.loads((tmp_path / "m" / "config.json").read_text())
    assert config["architectures"] == ["LlamaForCausalLM"] and config["num_hidden_layers"] == 32


def test_it_reads_vllms_sleep_log_line_and_knows_the_plans_wake():
    module = bench()
    line = "INFO 12-03 gpu_worker.py:123] Sleep mode freed 39.42 GiB memory, 1.75 GiB memory is still in use."
    assert module.FREED.findall(line) == [("39.42", "1.75")]
    planned = module.planned_wake_s(8_030_261_248 * 2)
    assert planned is not None and 1.0 < planned < 1.5
