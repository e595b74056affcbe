"""bench/gpu_load.py keeps working without a GPU: a tiny CPU run writes a complete results file."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench" / "gpu_load.py"


@pytest.mark.slow  # ~100 s: torch.compile in two fresh processes (`make test-fast` leaves it out)
def test_gpu_load_bench_runs_on_cpu(tmp_path):
    out = tmp_path / "r.json"
    args = [
        "--device",
        "cpu",
        "--mib",
        "4",
        "--concurrency",
        "2",
        "--compile-width",
        "64",
        "--no-s3",
        "--out",
        str(out),
    ]
    done = subprocess.run([sys.executable, str(BENCH), *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(out.read_text())
    whats = [r["what"] for r in result["rows"]]
    assert "streamer, local disk" in whats and "safetensors load_file, local disk" in whats
    assert any("empty cache" in w for w in whats) and any("restored cache" in w for w in whats)
    loads = [r for r in result["rows"] if "bytes" in r]
    assert all(r["bytes"] == 4 * 2**20 and r["seconds"] > 0 for r in loads)
    assert result["machine"]["device"].startswith("cpu")
