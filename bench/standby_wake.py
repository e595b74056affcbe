#!/usr/bin/env python3
"""Benchmark: a sleeping vLLM engine woken, as a standby is on scale-out. Needs a GPU and vLLM.

Starts `vllm serve` on an 8B-shaped model (Llama-3.1-8B's config.json shape, written here) with
`--load-format dummy` (random weights: nothing to download) and `--enable-sleep-mode`
(`VLLM_SERVER_DEV_MODE=1` for the sleep and wake routes), then, per cycle:

1. a one-token warm-up (without it the first request after every wake pays JIT compilation);
2. time to first token (TTFT) while awake, from a streamed completion;
3. `POST /sleep?level=1` timed; `GET /is_sleeping`; GPU memory (nvidia-smi) and the server's
   process-tree RSS (host RAM holding the weights) while asleep;
4. `POST /wake_up` timed (what the plan's `wake` phase predicts); `GET /is_sleeping`;
5. TTFT right after the wake (the plan's `first_token` phase); GPU memory after.

Also records vLLM's own "Sleep mode freed X GiB memory, Y GiB memory is still in use" lines, the
machine (GPU, driver, vLLM version) and the plan's prediction for the same bytes
(`core.planning.standby.wake_seconds`), and writes bench/results/standby_wake-<gpu>.json.

There is no tokenizer (nothing may be downloaded): the server runs with `--skip-tokenizer-init`
and requests send token ids.

Run (on a GPU machine with vLLM installed):
    python bench/standby_wake.py [--cycles 3] [--max-model-len 4096] [--port 8011] [--out FILE]
    python bench/standby_wake.py --write-config DIR   # only write the 8B-shaped model folder
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

# meta-llama/Llama-3.1-8B config.json (huggingface.co/meta-llama/Llama-3.1-8B), the context cut to keep the KV
# cache small; rope scaling left out (irrelevant to random weights).
LLAMA_8B_SHAPE: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "rms_norm_eps": 1e-05,
    "rope_theta": 500000.0,
    "hidden_act": "silu",
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "bos_token_id": 128000,
    "eos_token_id": 128001,
}
FREED = re.compile(r"Sleep mode freed ([\d.]+) GiB memory, ([\d.]+) GiB memory is still in use")


def parameter_count(config: dict[str, Any]) -> int:
    """Parameters of a Llama-shaped model: embeddings, per-layer attention + MLP + norms, final norm, LM head."""
    h, i, v = config["hidden_size"], config["intermediate_size"], config["vocab_size"]
    heads, kv = config["num_attention_heads"], config["num_key_value_heads"]
    head_dim = h // heads
    attention = h * heads * head_dim + 2 * h * kv * head_dim + heads * head_dim * h
    mlp = 3 * h * i
    per_layer = attention + mlp + 2 * h
    lm_head = 0 if config.get("tie_word_embeddings") else v * h
    return v * h + config["num_hidden_layers"] * per_layer + h + lm_head


def write_model(folder: Path) -> Path:
    """An 8B-shaped model folder vLLM can serve with --load-format dummy: config.json and generation_config."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(LLAMA_8B_SHAPE, indent=2))
    (folder / "generation_config.json").write_text(json.dumps({"bos_token_id": 128000, "eos_token_id": 128001}))
    return folder


def http(method: str, url: str, body: dict[str, Any] | None = None, timeout: float = 120) -> tuple[int, bytes]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def timed(method: str, url: str, body: dict[str, Any] | None = None) -> tuple[float, int, bytes]:
    start = time.perf_counter()
    status, data = http(method, url, body)
    return time.perf_counter() - start, status, data


def ttft(base: str, model: str) -> float:
    """Seconds to the first streamed chunk of a completion (token-id prompt, 8 tokens out)."""
    body = {"model": model, "prompt": list(range(1000, 1032)), "max_tokens": 8, "stream": True, "temperature": 0}
    request = urllib.request.Request(
        f"{base}/v1/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    start = time.perf_counter()
    with urllib.request.urlopen(request, timeout=300) as response:
        for line in response:
            if line.startswith(b"data: ") and line.strip() != b"data: [DONE]":
                first = time.perf_counter() - start
                response.read()
                return first
    raise RuntimeError("no streamed token")


def gpu_memory() -> dict[str, Any]:
    out = subprocess.run(
        ["nvidia-smi", "--query-gpu=index,name,memory.used,memory.total,driver_version", "--format=csv,noheader"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = []
    for line in out.strip().splitlines():
        index, name, used, total, driver = (p.strip() for p in line.split(","))
        rows.append({"index": int(index), "name": name, "used": used, "total": total, "driver": driver})
    return {"gpus": rows}


def tree_rss_bytes(pid: int) -> int:
    """Resident memory of `pid` and all its descendants (the API server and the engine core), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        todo += children.get(p, [])
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            pass
    return total


def wait_healthy(base: str, server: subprocess.Popen[bytes], timeout_s: float) -> float:
    start = time.perf_counter()
    while time.perf_counter() - start < timeout_s:
        if server.poll() is not None:
            raise RuntimeError(f"vllm serve exited with {server.returncode}")
        try:
            if http("GET", f"{base}/health", timeout=5)[0] == 200:
                return time.perf_counter() - start
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(1)
    raise TimeoutError(f"vllm serve not healthy after {timeout_s} s")


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {"host": platform.node(), "python": platform.python_version(), **gpu_memory()}
    try:
        import vllm

        info["vllm"] = vllm.__version__
    except ImportError:
        info["vllm"] = None
    return info


def planned_wake_s(total_bytes: int, host_link: str = "pcie4") -> float | None:
    """The plan's wake for these bytes on one GPU over `host_link` (None when the package is not importable here)."""
    try:
        sys.path.insert(0, str(ROOT))
        from fastload_constructs.core.planning.standby import StandbyAssumptions, wake_seconds_for
    except ImportError:
        return None
    return wake_seconds_for(total_bytes, host_link, StandbyAssumptions())  # type: ignore[arg-type]


def run(args: argparse.Namespace) -> dict[str, Any]:
    base, model = f"http://127.0.0.1:{args.port}", "bench"
    work = Path(tempfile.mkdtemp(prefix="standby-wake-"))
    folder = write_model(work / "llama-8b-shape")
    log_path = work / "server.log"
    env = {**os.environ, "VLLM_SERVER_DEV_MODE": "1"}
    command = [
        "vllm",
        "serve",
        str(folder),
        "--load-format",
        "dummy",
        "--enable-sleep-mode",
        "--skip-tokenizer-init",
        "--served-model-name",
        model,
        "--max-model-len",
        str(args.max_model_len),
        "--gpu-memory-utilization",
        str(args.gpu_memory_utilization),
        "--port",
        str(args.port),
    ]
    params = parameter_count(LLAMA_8B_SHAPE)
    result: dict[str, Any] = {
        "what": "vLLM level-1 sleep and wake of an 8B-shaped model (dummy weights)",
        "command": command,
        "parameters": params,
        "weight_bytes_bf16": params * 2,
        "planned_wake_s": planned_wake_s(params * 2),
        "machine": machine(),
        "cycles": [],
    }
    with log_path.open("wb") as log:
        server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            result["start_to_healthy_s"] = wait_healthy(base, server, args.start_timeout)
            http("POST", f"{base}/v1/completions", {"model": model, "prompt": [1000, 1001], "max_tokens": 1})
            result["gpu_awake_before_first_sleep"] = gpu_memory()
            result["rss_awake_bytes"] = tree_rss_bytes(server.pid)
            for cycle in range(args.cycles):
                row: dict[str, Any] = {"cycle": cycle, "ttft_awake_s": ttft(base, model)}
                row["sleep_s"], status, _ = timed("POST", f"{base}/sleep?level=1")
                assert status == 200, f"/sleep answered {status}"
                row["is_sleeping_after_sleep"] = json.loads(http("GET", f"{base}/is_sleeping")[1])
                row["gpu_asleep"] = gpu_memory()
                row["rss_asleep_bytes"] = tree_rss_bytes(server.pid)
                row["wake_s"], status, _ = timed("POST", f"{base}/wake_up")
                assert status == 200, f"/wake_up answered {status}"
                row["is_sleeping_after_wake"] = json.loads(http("GET", f"{base}/is_sleeping")[1])
                row["ttft_after_wake_s"] = ttft(base, model)
                row["gpu_awake"] = gpu_memory()
                row["rss_awake_bytes"] = tree_rss_bytes(server.pid)
                result["cycles"].append(row)
                print(json.dumps({k: v for k, v in row.items() if k.endswith("_s")}), flush=True)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
    log_text = log_path.read_text(errors="replace")
    result["sleep_mode_freed"] = [
        {"freed_gib": float(a), "still_in_use_gib": float(b)} for a, b in FREED.findall(log_text)
    ]
    result["server_log_tail"] = log_text[-4000:]
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=3)
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--max-model-len", type=int, default=4096)
    parser.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    parser.add_argument("--start-timeout", type=float, default=1200)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--write-config", type=Path, help="only write the 8B-shaped model folder here")
    args = parser.parse_args(argv)
    if args.write_config is not None:
        write_model(args.write_config)
        print(json.dumps({"folder": str(args.write_config), "parameters": parameter_count(LLAMA_8B_SHAPE)}))
        return 0
    result = run(args)
    gpu = result["machine"]["gpus"][0]["name"].lower().replace(" ", "-") if result["machine"]["gpus"] else "gpu"
    out = args.out or RESULTS / f"standby_wake-{gpu}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
