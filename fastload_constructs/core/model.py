"""ModelProfile: how big a model is and how its weights are laid out.

Sizing a load needs only the safetensors headers: an 8-byte little-endian
length, then that many bytes of JSON describing every tensor. Reading just
those bytes (locally or with ranged GETs) profiles a 140 GB model in
milliseconds, which is why nothing here ever reads a whole file.
"""

from __future__ import annotations

import dataclasses
import json
import os
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fastload_constructs.core.errors import FastloadConfigError, require

# Bytes per element for the safetensors dtypes vLLM loads.
DTYPE_BYTES: dict[str, float] = {
    "F64": 8,
    "F32": 4,
    "F16": 2,
    "BF16": 2,
    "I64": 8,
    "I32": 4,
    "I16": 2,
    "I8": 1,
    "U64": 8,
    "U32": 4,
    "U16": 2,
    "U8": 1,
    "BOOL": 1,
    "F8_E4M3": 1,
    "F8_E5M2": 1,
    "F8_E8M0": 1,
    "F4": 0.5,
}

# A header larger than this is not a real model header; refusing it keeps a
# corrupt length field from making us read gigabytes.
MAX_HEADER_BYTES = 100 * 1024 * 1024

RangeReader = Callable[[int, int], bytes]
"""read(offset, length) -> exactly `length` bytes (fewer only at end of file)."""


@dataclass(frozen=True)
class ShardInfo:
    """One safetensors file: its name, size and what its header declares."""

    name: str
    size_bytes: int
    tensor_count: int
    parameter_count: int
    largest_tensor_bytes: int
    dtype_bytes: dict[str, int] = field(default_factory=dict)  # bytes per dtype


@dataclass(frozen=True)
class ModelArchitecture:
    """What the KV cache, torch.compile and CUDA-graph capture scale with, from a model's config.json.

    Hugging Face `config.json` keys (transformers `PretrainedConfig`): `num_hidden_layers`,
    `hidden_size`, `num_attention_heads`, `num_key_value_heads` (absent = multi-head attention, as many
    KV heads as heads), `head_dim` (absent = hidden_size / num_attention_heads) and
    `max_position_embeddings` (vLLM's default `--max-model-len`). Multimodal configs nest them in
    `text_config`.
    """

    num_layers: int
    hidden_size: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    max_position_embeddings: int
    model_type: str = "unknown"

    def __post_init__(self) -> None:
        for name in ("num_layers", "hidden_size", "num_attention_heads", "num_kv_heads", "head_dim"):
            value = getattr(self, name)
            require(
                isinstance(value, int) and not isinstance(value, bool) and value > 0,
                f"architecture.{name}",
                value,
                "a positive whole number",
            )
        value = self.max_position_embeddings
        require(
            isinstance(value, int) and not isinstance(value, bool) and value > 0,
            "architecture.max_position_embeddings",
            value,
            "a positive whole number of tokens",
        )

    def kv_bytes_per_token(self, element_bytes: float, tensor_parallel_size: int = 1) -> int:
        """KV-cache bytes one token takes on ONE GPU: 2 (K and V) x layers x KV heads per rank x head size.

        vLLM shards KV heads over the TP ranks and replicates them when there are fewer heads than
        ranks, so each rank holds max(1, kv_heads / TP) heads.
        """
        heads_per_rank = max(1, self.num_kv_heads // max(1, tensor_parallel_size))
        return int(2 * self.num_layers * heads_per_rank * self.head_dim * element_bytes)

    @classmethod
    def from_config(cls, config: object, field: str = "config.json") -> ModelArchitecture:
        """Read the architecture from a parsed config.json; names the missing key on failure."""
        require(isinstance(config, dict), field, type(config).__name__, "a JSON object")
        assert isinstance(config, dict)
        text = config.get("text_config")
        source: dict[str, object] = text if isinstance(text, dict) and "num_hidden_layers" in text else config

        def whole(key: str, default: object = None) -> int:
            value = source.get(key, default)
            require(
                isinstance(value, int) and not isinstance(value, bool) and value > 0,
                f"{field}.{key}",
                value,
                "a positive whole number",
            )
            return value  # type: ignore[return-value]

        layers = whole("num_hidden_layers")
        hidden = whole("hidden_size")
        heads = whole("num_attention_heads")
        kv_heads = whole("num_key_value_heads", heads)
        head_dim_raw = source.get("head_dim")
        head_dim = whole("head_dim") if head_dim_raw is not None else hidden // heads
        context = whole("max_position_embeddings", source.get("max_sequence_length", source.get("n_positions")))
        model_type = source.get("model_type", config.get("model_type", "unknown"))
        return cls(
            num_layers=layers,
            hidden_size=hidden,
            num_attention_heads=heads,
            num_kv_heads=kv_heads,
            head_dim=head_dim,
            max_position_embeddings=context,
            model_type=str(model_type),
        )

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> ModelArchitecture:
        """Read a local config.json (or a model folder holding one)."""
        file = Path(path)
        if file.is_dir():
            file = file / "config.json"
        require(file.is_file(), "config.json", str(path), "an existing config.json or a folder holding one")
        try:
            config = json.loads(file.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise FastloadConfigError("config.json", str(path), f"valid JSON ({exc})") from exc
        return cls.from_config(config, field=file.name)


@dataclass(frozen=True)
class ModelProfile:
    """Size and layout of a model's weights, the input to every tuning decision."""

    total_bytes: int
    dtype: str
    parameter_count: int | None = None
    shards: tuple[ShardInfo, ...] = ()
    largest_tensor_bytes: int | None = None
    name: str = "model"
    # Layers, KV heads, head size, context length: from config.json (None when only sizes are known).
    architecture: ModelArchitecture | None = None

    def __post_init__(self) -> None:
        require(
            isinstance(self.total_bytes, int) and self.total_bytes > 0,
            "model.total_bytes",
            self.total_bytes,
            "a positive whole number of bytes",
        )
        require(
            self.dtype in DTYPE_BYTES,
            "model.dtype",
            self.dtype,
            "one of " + ", ".join(DTYPE_BYTES),
        )
        if self.parameter_count is not None:
            require(
                isinstance(self.parameter_count, int) and self.parameter_count > 0,
                "model.parameter_count",
                self.parameter_count,
                "a positive whole number or None",
            )

    def with_architecture(self, architecture: ModelArchitecture | None) -> ModelProfile:
        """This profile with the architecture read from config.json (or given as options)."""
        return dataclasses.replace(self, architecture=architecture)

    @property
    def shard_count(self) -> int:
        return len(self.shards)

    @property
    def total_gib(self) -> float:
        return self.total_bytes / 1024**3

    @classmethod
    def from_numbers(
        cls,
        *,
        total_bytes: int | None = None,
        parameter_count: int | None = None,
        dtype: str = "BF16",
        name: str = "model",
    ) -> ModelProfile:
        """Profile a model from what a model card says: bytes, or parameters and dtype."""
        require(dtype in DTYPE_BYTES, "model.dtype", dtype, "one of " + ", ".join(DTYPE_BYTES))
        if total_bytes is None:
            require(
                isinstance(parameter_count, int) and parameter_count > 0,
                "model.parameter_count",
                parameter_count,
                "a positive whole number (or give model.total_bytes)",
            )
            total_bytes = int(parameter_count * DTYPE_BYTES[dtype])  # type: ignore[operator]
        return cls(total_bytes=total_bytes, dtype=dtype, parameter_count=parameter_count, name=name)

    @classmethod
    def from_shards(cls, shards: list[ShardInfo], name: str = "model") -> ModelProfile:
        """Combine per-file header facts into one profile; dtype is the one holding most bytes."""
        require(bool(shards), "model.shards", [], "at least one .safetensors file")
        by_dtype: Counter[str] = Counter()
        for shard in shards:
            by_dtype.update(shard.dtype_bytes)
        return cls(
            total_bytes=sum(s.size_bytes for s in shards),
            dtype=by_dtype.most_common(1)[0][0] if by_dtype else "BF16",
            parameter_count=sum(s.parameter_count for s in shards) or None,
            shards=tuple(sorted(shards, key=lambda s: s.name)),
            largest_tensor_bytes=max(s.largest_tensor_bytes for s in shards),
            name=name,
        )

    @classmethod
    def from_directory(cls, path: str | os.PathLike[str], name: str | None = None) -> ModelProfile:
        """Profile every *.safetensors file in `path`, reading only their headers."""
        folder = Path(path)
        require(folder.is_dir(), "model.path", str(path), "an existing directory")
        files = sorted(folder.glob("*.safetensors"))
        require(bool(files), "model.path", str(path), "a directory holding *.safetensors files")
        shards = [read_local_shard(f) for f in files]
        return cls.from_shards(shards, name=name or folder.name)


def parse_header(read: RangeReader, size_bytes: int, name: str) -> ShardInfo:
    """Read and check one safetensors header through `read`, never the tensor data."""
    field_name = f"safetensors[{name}]"
    require(size_bytes >= 8, field_name, size_bytes, "a file of at least 8 bytes (a header length)")
    (header_len,) = struct.unpack("<Q", read(0, 8))
    require(
        0 < header_len <= min(MAX_HEADER_BYTES, size_bytes - 8),
        field_name + ".header_length",
        header_len,
        f"1..{min(MAX_HEADER_BYTES, size_bytes - 8)} bytes for this file",
    )
    raw = read(8, header_len)
    require(len(raw) == header_len, field_name + ".header", len(raw), f"{header_len} bytes")
    try:
        header = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FastloadConfigError(field_name + ".header", str(exc), "a JSON object") from exc
    require(isinstance(header, dict), field_name + ".header", type(header).__name__, "a JSON object")

    data_len = size_bytes - 8 - header_len
    params = 0
    largest = 0
    end_max = 0
    by_dtype: Counter[str] = Counter()
    count = 0
    for tensor, meta in header.items():
        if tensor == "__metadata__":
            continue
        where = f"{field_name}.{tensor}"
        require(isinstance(meta, dict), where, meta, "an object with dtype, shape, data_offsets")
        dtype, shape, offsets = meta.get("dtype"), meta.get("shape"), meta.get("data_offsets")
        require(dtype in DTYPE_BYTES, where + ".dtype", dtype, "one of " + ", ".join(DTYPE_BYTES))
        require(
            isinstance(shape, list) and all(isinstance(d, int) and d >= 0 for d in shape),
            where + ".shape",
            shape,
            "a list of non-negative integers",
        )
        require(
            isinstance(offsets, list)
            and len(offsets) == 2
            and all(isinstance(o, int) for o in offsets)
            and 0 <= offsets[0] <= offsets[1] <= data_len,
            where + ".data_offsets",
            offsets,
            f"[begin, end] within the {data_len}-byte data section",
        )
        elements = 1
        for dim in shape:
            elements *= dim
        nbytes = offsets[1] - offsets[0]
        require(
            nbytes == int(elements * DTYPE_BYTES[dtype]),
            where + ".data_offsets",
            offsets,
            f"a span of {int(elements * DTYPE_BYTES[dtype])} bytes for shape {shape} {dtype}",
        )
        params += elements
        largest = max(largest, nbytes)
        end_max = max(end_max, offsets[1])
        by_dtype[dtype] += nbytes
        count += 1
    require(count > 0, field_name, "no tensors", "a header declaring at least one tensor")
    require(
        end_max == data_len,
        field_name + ".size",
        size_bytes,
        f"{8 + header_len + end_max} bytes (header plus declared tensors); the file is truncated or padded",
    )
    return ShardInfo(
        name=name,
        size_bytes=size_bytes,
        tensor_count=count,
        parameter_count=params,
        largest_tensor_bytes=largest,
        dtype_bytes=dict(by_dtype),
    )


def read_local_shard(path: str | os.PathLike[str]) -> ShardInfo:
    """Profile one local safetensors file from its header."""
    file = Path(path)
    size = file.stat().st_size
    with file.open("rb") as handle:

        def read(offset: int, length: int) -> bytes:
            handle.seek(offset)
            return handle.read(length)

        return parse_header(read, size, file.name)
