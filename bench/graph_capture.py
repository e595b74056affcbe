#!/usr/bin/env python3
"""Benchmark: CUDA-graph capture of a Llama-3.1-8B-shaped decode step, and a sleep/wake round trip, in
plain PyTorch. Needs a CUDA GPU for the figures; runs its model check on the CPU anywhere.

What it stands in for. vLLM captures one graph set per batch size before it serves: with torch.compile
(the default) one graph per piece between attention ops in every layer ("piecewise"), and recent
releases add one full decode graph per size up to max_num_seqs ("full"). vLLM itself cannot be
installed on a machine without a package index, so this script builds a decoder of the same shape
(random weights: nothing is downloaded) and captures, per batch size:

* full: the whole decode forward as one graph;
* piecewise: the forward cut at every attention, attention run eagerly between the pieces
  (layers + 1 graphs per size), as vLLM's piecewise mode cuts it.

Each size is run once eagerly before its capture (vLLM warms every size up the same way). The
figures are a floor for vLLM's: its pieces are Inductor-generated (fewer, fused kernels), its
attention backends and its memory pool add their own work. They are compared with the planner's
`cuda_graph` phase for the same model, sizes and GPU class.

The sleep/wake proxy moves the weights to pinned host memory and frees them (vLLM sleep level 1
offloads weights to host RAM and drops the KV cache), then allocates and copies them back (wake).

Run (GPU):  python bench/graph_capture.py [--sizes 1,2,4,8] [--max-len 512] [--out FILE]
Check (CPU, small shapes, no capture):  python bench/graph_capture.py --check
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

# meta-llama/Llama-3.1-8B config.json (huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json).
LLAMA_8B = {
    "layers": 32,
    "hidden": 4096,
    "heads": 32,
    "kv_heads": 8,
    "intermediate": 14336,
    "vocab": 128256,
}
TINY = {"layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2, "intermediate": 128, "vocab": 256}


def vllm_default_sizes(max_num_seqs: int = 256) -> list[int]:
    """vLLM >= 0.11's default cudagraph_capture_sizes (vllm/config/vllm.py `_set_cudagraph_sizes`)."""
    largest = min(max_num_seqs * 2, 512)
    small = [s for s in (1, 2, 4) if s <= largest]
    return small + list(range(8, min(largest + 1, 256), 8)) + list(range(256, largest + 1, 16))


class Decoder:
    """A Llama-shaped decoder with random weights: RMSNorm, GQA attention over a static KV cache, SwiGLU."""

    def __init__(self, torch: Any, shape: dict[str, int], *, device: str, dtype: Any, max_batch: int, max_len: int):
        self.torch = torch
        self.shape = shape
        h, inter, kvh = shape["hidden"], shape["intermediate"], shape["kv_heads"]
        self.head_dim = h // shape["heads"]
        kv_dim = kvh * self.head_dim

        def weight(*dims: int) -> Any:
            return torch.empty(*dims, device=device, dtype=dtype).normal_(0, 0.02)

        self.embed = weight(shape["vocab"], h)
        self.layers = [
            {
                "norm1": torch.ones(h, device=device, dtype=dtype),
                "qkv": weight(h + 2 * kv_dim, h),
                "o": weight(h, h),
                "norm2": torch.ones(h, device=device, dtype=dtype),
                "gate_up": weight(2 * inter, h),
                "down": weight(h, inter),
                "k_cache": torch.zeros(max_batch, kvh, max_len, self.head_dim, device=device, dtype=dtype),
                "v_cache": torch.zeros(max_batch, kvh, max_len, self.head_dim, device=device, dtype=dtype),
            }
            for _ in range(shape["layers"])
        ]
        self.final_norm = torch.ones(h, device=device, dtype=dtype)
        self.lm_head = weight(shape["vocab"], h)

    def weights(self) -> list[Any]:
        tensors = [self.embed, self.final_norm, self.lm_head]
        for layer in self.layers:
            tensors += [layer[k] for k in ("norm1", "qkv", "o", "norm2", "gate_up", "down")]
        return tensors

    def _norm(self, x: Any, w: Any) -> Any:
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * self.torch.rsqrt(variance + 1e-5)).to(x.dtype) * w

    def pre_attention(self, i: int, x: Any) -> tuple[Any, Any, Any]:
        """Norm and the q/k/v projection of layer i: (q, k, v) for the attention."""
        layer, s = self.layers[i], self.shape
        qkv = self._norm(x, layer["norm1"]) @ layer["qkv"].t()
        h, kv = s["hidden"], s["kv_heads"] * self.head_dim
        q, k, v = qkv.split([h, kv, kv], dim=-1)
        b = x.shape[0]
        return (
            q.view(b, s["heads"], 1, self.head_dim),
            k.view(b, s["kv_heads"], 1, self.head_dim),
            v.view(b, s["kv_heads"], 1, self.head_dim),
        )

    def attention(self, i: int, q: Any, k: Any, v: Any) -> Any:
        """Decode attention over the layer's static cache (the step's key/value written at the end)."""
        layer, b = self.layers[i], q.shape[0]
        kc, vc = layer["k_cache"][:b], layer["v_cache"][:b]
        kc[:, :, -1:] = k
        vc[:, :, -1:] = v
        out = self.torch.nn.functional.scaled_dot_product_attention(q, kc, vc, enable_gqa=True)
        return out.reshape(b, self.shape["hidden"])

    def post_attention(self, i: int, x: Any, attn: Any) -> Any:
        layer = self.layers[i]
        x = x + attn @ layer["o"].t()
        gate, up = (self._norm(x, layer["norm2"]) @ layer["gate_up"].t()).chunk(2, dim=-1)
        return x + (self.torch.nn.functional.silu(gate) * up) @ layer["down"].t()

    def logits(self, x: Any) -> Any:
        return self._norm(x, self.final_norm) @ self.lm_head.t()

    def forward(self, ids: Any) -> Any:
        x = self.embed[ids]
        for i in range(len(self.layers)):
            x = self.post_attention(i, x, self.attention(i, *self.pre_attention(i, x)))
        return self.logits(x)


def _timed(torch: Any, fn: Callable[[], None]) -> float:
    torch.cuda.synchronize()
    start = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    return time.perf_counter() - start


def capture_full(torch: Any, model: Decoder, sizes: Sequence[int]) -> dict[str, float]:
    """One graph per size of the whole decode forward; returns seconds spent warming up and capturing."""
    pool = torch.cuda.graph_pool_handle()
    graphs: list[Any] = []
    warm = capture = 0.0
    for size in sorted(sizes, reverse=True):  # largest first, as vLLM does: later graphs reuse its pool
        ids = torch.zeros(size, dtype=torch.long, device="cuda")
        warm += _timed(torch, lambda ids=ids: model.forward(ids))
        graph = torch.cuda.CUDAGraph()

        def record(graph: Any = graph, ids: Any = ids) -> None:
            with torch.cuda.graph(graph, pool=pool):
                model.forward(ids)

        capture += _timed(torch, record)
        graphs.append(graph)
    return {"warmup_s": warm, "capture_s": capture, "graphs": float(len(graphs))}


def capture_piecewise(torch: Any, model: Decoder, sizes: Sequence[int]) -> dict[str, float]:
    """Per size, one graph per piece between attentions (layers + 1), attention left out of the graphs."""
    pool = torch.cuda.graph_pool_handle()
    layers = len(model.layers)
    graphs = 0
    warm = capture = 0.0
    for size in sorted(sizes, reverse=True):
        x = torch.zeros(size, model.shape["hidden"], dtype=model.embed.dtype, device="cuda")
        attn = torch.zeros_like(x)
        pieces: list[Callable[[], Any]] = [lambda x=x: model.pre_attention(0, x)]
        pieces += [
            (lambda i=i, x=x, a=attn: model.pre_attention(i + 1, model.post_attention(i, x, a)))
            for i in range(layers - 1)
        ]
        pieces.append(lambda x=x, a=attn: model.logits(model.post_attention(layers - 1, x, a)))
        for piece in pieces:
            warm += _timed(torch, piece)
            graph = torch.cuda.CUDAGraph()

            def record(graph: Any = graph, piece: Callable[[], Any] = piece) -> None:
                with torch.cuda.graph(graph, pool=pool):
                    piece()

            capture += _timed(torch, record)
            graphs += 1
    return {"warmup_s": warm, "capture_s": capture, "graphs": float(graphs)}


def sleep_wake(torch: Any, model: Decoder) -> dict[str, float]:
    """Weights to pinned host memory and freed (sleep), then allocated and copied back (wake)."""
    tensors = model.weights()
    nbytes = sum(t.numel() * t.element_size() for t in tensors)
    host = [torch.empty(t.shape, dtype=t.dtype, pin_memory=True) for t in tensors]
    torch.cuda.synchronize()
    start = time.perf_counter()
    for h, t in zip(host, tensors, strict=True):
        h.copy_(t, non_blocking=True)
    torch.cuda.synchronize()
    for t in tensors:
        t.data = torch.empty(0, dtype=t.dtype, device="cuda")
    torch.cuda.empty_cache()
    sleep_s = time.perf_counter() - start
    start = time.perf_counter()
    for h, t in zip(host, tensors, strict=True):
        t.data = h.to("cuda", non_blocking=True)
    torch.cuda.synchronize()
    wake_s = time.perf_counter() - start
    return {"bytes": float(nbytes), "sleep_s": sleep_s, "wake_s": wake_s, "wake_gb_s": nbytes / wake_s / 1e9}


def check(torch: Any) -> dict[str, Any]:
    """The model runs, on the CPU at tiny shapes, in both forms the captures use (whole and piecewise)."""
    model = Decoder(torch, TINY, device="cpu", dtype=torch.float32, max_batch=4, max_len=8)
    ids = torch.zeros(4, dtype=torch.long)
    whole = model.forward(ids)
    x = model.embed[ids]
    for i in range(len(model.layers)):
        x = model.post_attention(i, x, model.attention(i, *model.pre_attention(i, x)))
    same = bool(torch.allclose(whole, model.logits(x)))
    params = sum(t.numel() for t in model.weights())
    return {"logits_shape": list(whole.shape), "piecewise_equals_whole": same, "parameters": params}


def parameters(shape: dict[str, int]) -> int:
    """Parameters of the decoder (Llama-3.1-8B's shape gives its 8,030,261,248)."""
    h, inter, layers = shape["hidden"], shape["intermediate"], shape["layers"]
    kv = shape["kv_heads"] * h // shape["heads"]
    per_layer = 2 * h + h * (h + 2 * kv) + h * h + 3 * h * inter
    return 2 * shape["vocab"] * h + h + layers * per_layer


def planned(sizes: Sequence[int], gpu_name: str) -> dict[str, float] | None:
    """The planner's CUDA-graph phase for Llama-3.1-8B on an instance of this GPU, with these sizes."""
    try:
        sys.path.insert(0, str(ROOT))
        from fastload_constructs.core.catalog import CATALOG
        from fastload_constructs.core.model import ModelProfile
        from fastload_constructs.core.planning import TuningOptions, plan
    except ImportError:
        return None
    matching = [i for i in CATALOG.values() if i.gpu_model.lower() in gpu_name.lower()]
    if not matching:
        return None
    instance = min(matching, key=lambda i: i.gpu_count)
    profile = ModelProfile.from_numbers(parameter_count=parameters(LLAMA_8B))
    p = plan(profile, instance.name, TuningOptions(cudagraph_capture_sizes=tuple(sorted(sizes))))
    return {"instance": instance.name, "cuda_graph_s": p.predicted.cuda_graph_s}  # type: ignore[dict-item]


def machine(torch: Any) -> dict[str, Any]:
    props = torch.cuda.get_device_properties(0)
    return {
        "gpu": props.name,
        "gpu_memory_gib": round(props.total_memory / 2**30, 1),
        "cuda_capability": f"{props.major}.{props.minor}",
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "python": platform.python_version(),
        "host": platform.node(),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", help="comma-separated batch sizes (default: vLLM's 51 for max_num_seqs 256)")
    parser.add_argument("--max-len", type=int, default=512, help="KV-cache length per sequence")
    parser.add_argument("--modes", default="full,piecewise", help="full, piecewise or both")
    parser.add_argument("--out", type=Path, help="where to write the JSON (default bench/results/)")
    parser.add_argument("--check", action="store_true", help="run the model on the CPU at tiny shapes; no GPU")
    args = parser.parse_args(argv)
    import torch

    if args.check:
        print(json.dumps(check(torch)))
        return 0
    if not torch.cuda.is_available():
        print("graph_capture: no CUDA GPU here; run it on a GPU machine (or --check on the CPU)", file=sys.stderr)
        return 2
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else vllm_default_sizes()
    started = time.perf_counter()
    model = Decoder(torch, LLAMA_8B, device="cuda", dtype=torch.bfloat16, max_batch=max(sizes), max_len=args.max_len)
    torch.cuda.synchronize()
    result: dict[str, Any] = {
        "machine": machine(torch),
        "model": {"shape": LLAMA_8B, "parameters": parameters(LLAMA_8B), "dtype": "bfloat16"},
        "sizes": sizes,
        "build_s": time.perf_counter() - started,
    }
    for mode in args.modes.split(","):
        runner = {"full": capture_full, "piecewise": capture_piecewise}[mode]
        result[mode] = runner(torch, model, sizes)
        print(mode, json.dumps(result[mode]), flush=True)
    result["sleep_wake"] = sleep_wake(torch, model)
    result["plan"] = planned(sizes, result["machine"]["gpu"])
    out = args.out or RESULTS / f"graph_capture-{result['machine']['gpu'].replace(' ', '_')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
