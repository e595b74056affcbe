#!/usr/bin/env python3
"""Write a tiny Llama-shaped model folder (config.json + one safetensors file of random BF16 weights) to try
`fastload stage`, `revisions` and `inspect` without AWS and without downloading a model.

    python examples/tiny_model.py ./tiny-model [--layers 2] [--hidden 256]

Standard library only: a safetensors file is an 8-byte little-endian header length, a JSON header naming
each tensor's dtype, shape and byte range, then the bytes (https://github.com/huggingface/safetensors).
"""

from __future__ import annotations

import argparse
import json
import os
import struct
from pathlib import Path


def tensors(layers: int, hidden: int, vocab: int) -> dict[str, list[int]]:
    """Llama's tensor names and shapes (MLP 4x hidden, as many KV heads as heads)."""
    shapes = {
        "model.embed_tokens.weight": [vocab, hidden],
        "model.norm.weight": [hidden],
        "lm_head.weight": [vocab, hidden],
    }
    for i in range(layers):
        p = f"model.layers.{i}"
        for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
            shapes[f"{p}.self_attn.{name}.weight"] = [hidden, hidden]
        shapes[f"{p}.mlp.gate_proj.weight"] = [4 * hidden, hidden]
        shapes[f"{p}.mlp.up_proj.weight"] = [4 * hidden, hidden]
        shapes[f"{p}.mlp.down_proj.weight"] = [hidden, 4 * hidden]
        shapes[f"{p}.input_layernorm.weight"] = [hidden]
        shapes[f"{p}.post_attention_layernorm.weight"] = [hidden]
    return shapes


def write_safetensors(path: Path, shapes: dict[str, list[int]]) -> int:
    """Random BF16 tensors; returns the number of parameters."""
    header: dict[str, object] = {}
    offset = 0
    for name, shape in shapes.items():
        count = 1
        for dim in shape:
            count *= dim
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + 2 * count]}
        offset += 2 * count
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the header is padded to 8 bytes
    with path.open("wb") as out:
        out.write(struct.pack("<Q", len(text)) + text)
        out.write(os.urandom(offset))
    return offset // 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--vocab", type=int, default=1024)
    args = parser.parse_args()
    if not (1 <= args.layers <= 64 and 64 <= args.hidden <= 4096 and args.hidden % 64 == 0 and args.vocab >= 16):
        parser.error("--layers 1-64, --hidden a multiple of 64 from 64 to 4096, --vocab at least 16")
    args.folder.mkdir(parents=True, exist_ok=True)
    params = write_safetensors(args.folder / "model.safetensors", tensors(args.layers, args.hidden, args.vocab))
    heads = args.hidden // 64
    config = {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": args.hidden,
        "intermediate_size": 4 * args.hidden,
        "num_hidden_layers": args.layers,
        "num_attention_heads": heads,
        "num_key_value_heads": heads,
        "head_dim": 64,
        "vocab_size": args.vocab,
        "max_position_embeddings": 2048,
        "torch_dtype": "bfloat16",
    }
    (args.folder / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    print(f"wrote {args.folder}: {params:,} parameters, {2 * params / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
