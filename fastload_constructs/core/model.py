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
import stat
import struct
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fastload_constructs.core.errors import FastloadConfigError, choice, require
from fastload_constructs.core.settings import Flag, Key, Setting
from fastload_constructs.core.validation import CountRule

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

# Bits per element, for the sub-byte types: a tensor's bit count must be a whole
# number of bytes (safetensors `Dtype::bitsize`, `MisalignedSlice`).
DTYPE_BITS: dict[str, int] = {dtype: int(size * 8) for dtype, size in DTYPE_BYTES.items()}

# The safetensors library's own limit on the header (safetensors/src/tensor.rs,
# MAX_HEADER_SIZE = 100_000_000): a larger length is refused before anything is read,
# so a corrupt length field never makes us read gigabytes.
MAX_HEADER_BYTES = 100_000_000
# Shapes and offsets are `usize` in the library (64-bit): larger values, or element
# and bit counts that overflow it, fail there (`ValidationOverflow`).
_USIZE_MAX = 2**64 - 1
# A valid header nests three deep ({name: {"shape": [..]}}); deeper JSON is refused.
_MAX_JSON_DEPTH = 3
_TENSOR_KEYS = frozenset({"dtype", "shape", "data_offsets"})

RangeReader = Callable[[int, int], bytes]
"""read(offset, length) -> exactly `length` bytes (fewer only at end of file)."""


# Upper bound on a model's bytes and parameters: 2**50 (1 PiB, 10**15 parameters). The
# largest published checkpoints are a few TB (DeepSeek-V3: 671e9 parameters, ~700 GB in FP8);
# the bound only keeps absurd input (1e300, 10**400) from overflowing the planner's floats.
MAX_MODEL_BYTES = 2**50
MAX_PARAMETERS = 2**50
# How a size is written in cdk.json (parameterCount, totalBytes) and on the command line (--params, --bytes).
PARAMETER_COUNT = CountRule(MAX_PARAMETERS, "8030261248, 8.03e9 or 70e9")
TOTAL_BYTES = CountRule(MAX_MODEL_BYTES, "16060522496 or 16.06e9")
DEFAULT_DTYPE = "BF16"


def check_dtype(value: object, name: str) -> str:
    """A safetensors dtype, in any case (`bf16` is `BF16`)."""
    return choice(value, name, DTYPE_BYTES)


# The model's size and dtype as cdk.json and the command line give them (ModelProfile.from_numbers).
MODEL_PARAMETERS = Setting(
    check=PARAMETER_COUNT.check,
    accepted=PARAMETER_COUNT.accepted,
    doc="Parameters, e.g. 8.03e9 (or the size in bytes).",
    key=Key("parameterCount"),
    flag=Flag("--params", read=PARAMETER_COUNT.parse),
    kind=int,
    name="parameter_count",
    path="model.parameter_count",
)
MODEL_BYTES = Setting(
    check=TOTAL_BYTES.check,
    accepted=TOTAL_BYTES.accepted,
    doc="Weight bytes (instead of the parameters).",
    key=Key("totalBytes"),
    flag=Flag("--bytes", read=TOTAL_BYTES.parse),
    kind=int,
    name="total_bytes",
    path="model.total_bytes",
)
MODEL_DTYPE = Setting(
    check=check_dtype,
    accepted="a safetensors dtype: " + ", ".join(DTYPE_BYTES),
    default=DEFAULT_DTYPE,
    doc="The checkpoint's dtype.",
    key=Key("dtype"),
    flag=Flag("--dtype"),
    choices=tuple(sorted(DTYPE_BYTES)),
    name="dtype",
    path="model.dtype",
)


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
    def from_file(cls, path: str | os.PathLike[str], field: str = "config.json") -> ModelArchitecture:
        """Read a local config.json (or a model folder holding one); `field` names the path given."""
        file = Path(path)
        if file.is_dir():
            file = file / "config.json"
        require(file.is_file(), field, str(path), "an existing config.json or a folder holding one")
        try:
            config = json.loads(file.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise FastloadConfigError(field, str(path), f"valid JSON ({exc})") from exc
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
            isinstance(self.total_bytes, int)
            and not isinstance(self.total_bytes, bool)
            and 0 < self.total_bytes <= MAX_MODEL_BYTES,
            "model.total_bytes",
            self.total_bytes,
            f"a positive whole number of bytes, at most {MAX_MODEL_BYTES} (1 PiB)",
        )
        object.__setattr__(self, "dtype", check_dtype(self.dtype, "model.dtype"))
        if self.parameter_count is not None:
            require(
                isinstance(self.parameter_count, int)
                and not isinstance(self.parameter_count, bool)
                and 0 < self.parameter_count <= MAX_PARAMETERS,
                "model.parameter_count",
                self.parameter_count,
                f"a positive whole number, at most {MAX_PARAMETERS}, or None",
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
        dtype: str = DEFAULT_DTYPE,
        name: str = "model",
    ) -> ModelProfile:
        """Profile a model from what a model card says: bytes, or parameters and dtype (in any case: `bf16`)."""
        dtype = check_dtype(dtype, "model.dtype")
        if total_bytes is None:
            require(
                isinstance(parameter_count, int)
                and not isinstance(parameter_count, bool)
                and 0 < parameter_count <= MAX_PARAMETERS,
                "model.parameter_count",
                parameter_count,
                f"a positive whole number, at most {MAX_PARAMETERS} (or give model.total_bytes)",
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
        try:
            is_dir = stat.S_ISDIR(os.stat(folder).st_mode)
        except (OSError, ValueError):  # missing, name too long, NUL byte, no permission
            is_dir = False
        require(is_dir, "model.path", str(path), "an existing directory")
        files = sorted(folder.glob("*.safetensors"))
        require(bool(files), "model.path", str(path), "a directory holding *.safetensors files")
        shards = [read_local_shard(f) for f in files]
        return cls.from_shards(shards, name=name or folder.name)


def estimated_layers(model: ModelProfile) -> int:
    """Decoder layers: from config.json, else a rule of thumb from the parameter count.

    Llama 3.x configs (huggingface.co/meta-llama: 1B 16, 3B 28, 8B 32, 70B 80, 405B 126 layers)
    follow layers ~ 16 x (parameters / 1e9) ^ 0.33 within 20%.
    """
    if model.architecture is not None:
        return model.architecture.num_layers
    params = float(model.parameter_count or model.total_bytes / DTYPE_BYTES.get(model.dtype, 2))
    scaled: float = 16.0 * (params / 1e9) ** 0.33
    return max(1, round(scaled))


class _HeaderJsonError(ValueError):
    """A JSON construct the safetensors library's parser (serde_json) would refuse."""


def _refuse_constant(name: str) -> object:
    raise _HeaderJsonError(f"{name} is not JSON")


def _refuse_float(text: str) -> object:
    raise _HeaderJsonError(f"the number {text} is not a whole number")


def _whole(text: str) -> int:
    # serde_json reads shapes and offsets as u64: no sign, at most 20 digits.
    if text.startswith("-") or len(text) > 20:
        raise _HeaderJsonError(f"the number {text[:24]} is not a 64-bit unsigned integer")
    return int(text)


def _unique_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    result: dict[str, object] = {}
    for key, value in pairs:
        if key in result:
            raise _HeaderJsonError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _is_usize(value: object) -> bool:
    return type(value) is int and 0 <= value <= _USIZE_MAX


def _valid_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")  # a lone surrogate from a \ud800 escape does not encode
    except UnicodeEncodeError:
        return False
    return True


def _decode_header(raw: bytes, field_name: str) -> dict[str, object]:
    """JSON as the safetensors library reads it: strict UTF-8 without BOM, no NaN/Infinity,
    no floats, no duplicate keys, no lone surrogates, bounded depth."""
    try:
        text = raw.decode("utf-8")  # strict; a BOM stays U+FEFF, which json refuses below
        header = json.loads(
            text,
            object_pairs_hook=_unique_keys,
            parse_constant=_refuse_constant,
            parse_float=_refuse_float,
            parse_int=_whole,
        )
    except UnicodeDecodeError as exc:
        raise FastloadConfigError(field_name + ".header", f"invalid UTF-8 at byte {exc.start}", "UTF-8 JSON") from exc
    except RecursionError as exc:
        raise FastloadConfigError(field_name + ".header", "nested too deep", "a JSON object") from exc
    except ValueError as exc:  # JSONDecodeError and the hooks' refusals
        raise FastloadConfigError(field_name + ".header", str(exc), "a JSON object") from exc
    require(isinstance(header, dict), field_name + ".header", type(header).__name__, "a JSON object")
    assert isinstance(header, dict)
    require(
        _depth(header) <= _MAX_JSON_DEPTH,
        field_name + ".header",
        f"nested {_depth(header)} deep",
        f"at most {_MAX_JSON_DEPTH} levels of nesting",
    )
    return header


def _element_count(shape: list[int]) -> int | None:
    """Product of the dims, or None where it overflows a usize (the library's checked_mul)."""
    count = 1
    for dim in shape:
        count *= dim
        if count > _USIZE_MAX:
            return None
    return count


def parse_header(read: RangeReader, size_bytes: int, name: str) -> ShardInfo:
    """Read and check one safetensors header through `read`, never the tensor data.

    Accepts only what the safetensors library loads (safetensors/src/tensor.rs,
    `read_metadata` and `Metadata::validate`): the header length at most
    MAX_HEADER_BYTES and within the file; UTF-8 JSON without BOM; tensors whose
    offsets, sorted, run contiguously from 0 with no gap or overlap and end exactly
    at the end of the file; each tensor's byte span equal to its element count times
    its dtype's bits over 8 (a whole number of bytes); `__metadata__` a string-to-string
    map. Stricter than the library where the library is lax: duplicate keys, unknown
    keys in a tensor entry and a header without tensors are refused too.
    """
    field_name = f"safetensors[{name}]"
    require(size_bytes >= 8, field_name, size_bytes, "a file of at least 8 bytes (a header length)")
    prefix = read(0, 8)
    require(len(prefix) == 8, field_name, len(prefix), "8 bytes of header length")
    (header_len,) = struct.unpack("<Q", prefix)
    limit = min(MAX_HEADER_BYTES, size_bytes - 8)
    require(0 < header_len <= limit, field_name + ".header_length", header_len, f"1..{limit} bytes for this file")
    raw = read(8, header_len)
    require(len(raw) == header_len, field_name + ".header", len(raw), f"{header_len} bytes")
    header = _decode_header(raw, field_name)

    data_len = size_bytes - 8 - header_len
    spans: list[tuple[int, int, str]] = []
    params = 0
    largest = 0
    by_dtype: Counter[str] = Counter()
    for tensor, meta in header.items():
        if tensor == "__metadata__":
            require(
                isinstance(meta, dict)
                and all(isinstance(v, str) and _valid_utf8(k) and _valid_utf8(v) for k, v in meta.items()),
                field_name + ".__metadata__",
                meta,
                "an object of string values",
            )
            continue
        where = f"{field_name}.{tensor!r}" if not _valid_utf8(tensor) else f"{field_name}.{tensor}"
        require(_valid_utf8(tensor), where, tensor, "a tensor name in valid UTF-8")
        require(
            isinstance(meta, dict) and set(meta) == _TENSOR_KEYS,
            where,
            meta,
            "an object with exactly dtype, shape and data_offsets",
        )
        assert isinstance(meta, dict)
        dtype, shape, offsets = meta["dtype"], meta["shape"], meta["data_offsets"]
        require(
            isinstance(dtype, str) and dtype in DTYPE_BYTES, where + ".dtype", dtype, "one of " + ", ".join(DTYPE_BYTES)
        )
        require(
            isinstance(shape, list) and all(_is_usize(d) for d in shape),
            where + ".shape",
            shape,
            "a list of non-negative integers",
        )
        require(
            isinstance(offsets, list) and len(offsets) == 2 and all(_is_usize(o) for o in offsets),
            where + ".data_offsets",
            offsets,
            "[begin, end], two non-negative integers",
        )
        begin, end = offsets
        require(begin <= end <= data_len, where + ".data_offsets", offsets, f"within the {data_len}-byte data section")
        elements = _element_count(shape)
        bits = None if elements is None else elements * DTYPE_BITS[dtype]
        require(
            bits is not None and bits <= _USIZE_MAX and bits % 8 == 0,
            where + ".shape",
            shape,
            f"an element count whose {dtype} bits fit 64 bits and make whole bytes",
        )
        assert elements is not None and bits is not None
        nbytes = end - begin
        require(
            nbytes == bits // 8,
            where + ".data_offsets",
            offsets,
            f"a span of {bits // 8} bytes for shape {shape} {dtype}",
        )
        spans.append((begin, end, tensor))
        params += elements
        largest = max(largest, nbytes)
        by_dtype[dtype] += nbytes
    require(bool(spans), field_name, "no tensors", "a header declaring at least one tensor")
    expected = 0
    for begin, end, tensor in sorted(spans):
        require(
            begin == expected,
            f"{field_name}.{tensor}.data_offsets",
            [begin, end],
            f"a span starting at {expected}: tensors lie back to back from 0, no gaps or overlaps",
        )
        expected = end
    require(
        expected == data_len,
        field_name + ".size",
        size_bytes,
        f"{8 + header_len + expected} bytes (header plus declared tensors); the file is truncated or padded",
    )
    return ShardInfo(
        name=name,
        size_bytes=size_bytes,
        tensor_count=len(spans),
        parameter_count=params,
        largest_tensor_bytes=largest,
        dtype_bytes=dict(by_dtype),
    )


def read_local_shard(path: str | os.PathLike[str]) -> ShardInfo:
    """Profile one local safetensors file from its header.

    Only a regular file is read: a FIFO, device or directory named `*.safetensors`
    is refused without being opened for reading (opening a FIFO would block), and
    the opened descriptor is checked again, so a file swapped after the check is
    refused too.
    """
    file = Path(path)
    field_name = f"safetensors[{file.name}]"
    try:
        info = os.stat(file)
    except OSError as exc:
        raise FastloadConfigError(field_name, str(file), f"a readable file ({exc.strerror})") from exc
    require(stat.S_ISREG(info.st_mode), field_name, str(file), "a regular file (not a FIFO, device or directory)")
    try:
        # O_NONBLOCK: should the path have become a FIFO since the stat, open returns at once.
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise FastloadConfigError(field_name, str(file), f"a readable file ({exc.strerror})") from exc
    with os.fdopen(fd, "rb") as handle:
        opened = os.fstat(handle.fileno())
        require(stat.S_ISREG(opened.st_mode), field_name, str(file), "a regular file (not a FIFO, device or directory)")

        def read(offset: int, length: int) -> bytes:
            handle.seek(offset)
            return handle.read(length)

        return parse_header(read, opened.st_size, file.name)
