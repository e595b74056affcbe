"""A small Hugging Face style model folder: config, tokenizer, two shards and their index."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path

from tests.safetensors_factory import write_safetensors

SHARD_1 = "model-00001-of-00002.safetensors"
SHARD_2 = "model-00002-of-00002.safetensors"
INDEX = "model.safetensors.index.json"

# Shard 1 holds a 6 MiB tensor, so with 5 MiB parts it uploads as a real multipart object.
TENSORS = {
    SHARD_1: {"model.embed_tokens.weight": ("BF16", [1536, 2048]), "model.layers.0.mlp.weight": ("BF16", [64, 32])},
    SHARD_2: {"model.layers.1.mlp.weight": ("BF16", [64, 32]), "model.norm.weight": ("F32", [32])},
}


_template: tuple[Path, dict[str, tuple[str, list[int], bytes]]] | None = None


def write_hf_model(root: Path) -> dict[str, tuple[str, list[int], bytes]]:
    """Write the folder; returns {tensor: (dtype, shape, payload bytes)} for comparisons.

    Generated once per session and copied after that: the payloads are deterministic.
    """
    global _template
    if _template is None:
        folder = Path(tempfile.mkdtemp(prefix="hf-model-")) / "model"
        atexit.register(shutil.rmtree, folder.parent, ignore_errors=True)
        _template = (folder, _generate(folder))
    shutil.copytree(_template[0], root, dirs_exist_ok=True)
    return dict(_template[1])


def _generate(root: Path) -> dict[str, tuple[str, list[int], bytes]]:
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"], "torch_dtype": "bfloat16"}))
    (root / "tokenizer.json").write_text(json.dumps({"version": "1.0", "model": {"type": "BPE"}}))
    written: dict[str, tuple[str, list[int], bytes]] = {}
    weight_map: dict[str, str] = {}
    for shard, tensors in TENSORS.items():
        payloads = write_safetensors(root / shard, tensors)
        for name, (dtype, shape) in tensors.items():
            written[name] = (dtype, shape, payloads[name])
            weight_map[name] = shard
    total = sum(len(p) for _, _, p in written.values())
    (root / INDEX).write_text(json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}))
    return written
