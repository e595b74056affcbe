"""Hostile safetensors headers: everything fastload accepts, the safetensors library must load.

A corpus of headers is generated (hand-written attacks plus seeded random
mutations of valid files) and each file is given to both `read_local_shard` and
the real `safetensors` library (`safe_open`, then every tensor read). The
property: fastload accepts a file only if the library loads it. Valid files
written by the library itself must be accepted, so the check is not simply
"refuse everything".
"""

from __future__ import annotations

import json
import os
import random
import signal
import struct
from pathlib import Path

import pytest

safetensors = pytest.importorskip("safetensors")
torch = pytest.importorskip("torch")
from safetensors import safe_open  # noqa: E402
from safetensors.torch import save_file  # noqa: E402

from fastload_constructs.core.errors import FastloadConfigError  # noqa: E402
from fastload_constructs.core.model import MAX_HEADER_BYTES, ModelProfile, read_local_shard  # noqa: E402

SEED = 20261203
# dtypes the library and torch both read; sizes in bytes.
DTYPES = {"F32": 4, "F16": 2, "BF16": 2, "F64": 8, "I8": 1, "U8": 1, "I16": 2, "I32": 4, "I64": 8, "BOOL": 1}


def pack(header: bytes | str, data: bytes = b"", length: int | None = None) -> bytes:
    raw = header.encode() if isinstance(header, str) else header
    return struct.pack("<Q", len(raw) if length is None else length) + raw + data


def valid_header(rng: random.Random, count: int) -> tuple[dict, int]:
    header: dict = {}
    offset = 0
    for i in range(count):
        dtype = rng.choice(list(DTYPES))
        shape = [rng.randint(0, 4) for _ in range(rng.randint(0, 3))]
        n = DTYPES[dtype]
        for d in shape:
            n *= d
        header[f"layer.{i}.weight"] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + n]}
        offset += n
    return header, offset


def encode(header: dict, data_len: int, pad: bool = True) -> bytes:
    raw = json.dumps(header).encode()
    if pad:
        raw += b" " * (-len(raw) % 8)
    return pack(raw, bytes(data_len))


def handwritten() -> dict[str, bytes]:
    one = {"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
    ok = json.dumps(one)
    cases = {
        "valid": encode(one, 8),
        "valid-empty-tensor": encode({"e": {"dtype": "F16", "shape": [0, 3], "data_offsets": [0, 0]}, **one}, 8),
        "valid-unsorted-offsets": encode(
            {
                "b": {"dtype": "U8", "shape": [2], "data_offsets": [4, 6]},
                "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
            },
            6,
        ),
        "valid-metadata": encode({"__metadata__": {"format": "pt"}, **one}, 8),
        "header-length-zero": pack(ok, bytes(8), length=0),
        "header-length-huge": pack(ok, bytes(8), length=2**63),
        "header-length-past-eof": pack(ok, bytes(8), length=len(ok) + 100),
        "header-length-over-library-max": pack(ok, bytes(8), length=MAX_HEADER_BYTES + 1),
        "utf8-bom": pack(b"\xef\xbb\xbf" + ok.encode(), bytes(8)),
        "invalid-utf8": pack(ok.replace('"w"', '"w\x01"').encode().replace(b"\x01", b"\xff"), bytes(8)),
        "lone-surrogate-name": pack(ok.replace('"w"', '"w\\ud800"'), bytes(8)),
        "gap-between-tensors": encode(
            {
                "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]},
            },
            12,
        ),
        "overlap": encode(
            {
                "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]},
            },
            8,
        ),
        "not-from-zero": encode({"w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}, 8),
        "trailing-bytes": encode(one, 12),
        "truncated-data": encode(one, 4),
        "span-mismatch": encode({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, 8),
        "duplicate-tensor": pack(
            '{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"w":{"dtype":"U8","shape":[8],"data_offsets":[0,8]}}',
            bytes(8),
        ),
        "duplicate-field": pack('{"w":{"dtype":"F32","dtype":"U8","shape":[2],"data_offsets":[0,8]}}', bytes(8)),
        "shape-bool": encode({"w": {"dtype": "F32", "shape": [True, 2], "data_offsets": [0, 8]}}, 8),
        "shape-float": pack('{"w":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}}', bytes(8)),
        "shape-negative": pack('{"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}', bytes(8)),
        "shape-negative-zero": pack('{"w":{"dtype":"F32","shape":[-0, 2],"data_offsets":[0,0]}}', b""),
        "shape-string": encode({"w": {"dtype": "F32", "shape": ["2"], "data_offsets": [0, 8]}}, 8),
        "shape-huge": encode({"w": {"dtype": "U8", "shape": [2**64, 0], "data_offsets": [0, 0]}}, 0),
        "shape-overflow": encode({"w": {"dtype": "U8", "shape": [2**40, 2**40, 0], "data_offsets": [0, 0]}}, 0),
        "bits-overflow": encode({"w": {"dtype": "F64", "shape": [2**62], "data_offsets": [0, 0]}}, 0),
        "nan": pack('{"w":{"dtype":"F32","shape":[NaN],"data_offsets":[0,8]}}', bytes(8)),
        "infinity": pack('{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":Infinity}}', bytes(8)),
        "1e309": pack('{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1e309}}', bytes(8)),
        "huge-int-digits": pack('{"w":{"dtype":"F32","shape":[' + "9" * 5000 + '],"data_offsets":[0,8]}}', bytes(8)),
        "unknown-field": encode({"w": {**one["w"], "extra": 1}}, 8),
        "offsets-three": encode({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8, 8]}}, 8),
        "offsets-reversed": encode({"w": {"dtype": "U8", "shape": [0], "data_offsets": [8, 0]}}, 8),
        "dtype-list": encode({"w": {"dtype": ["F32"], "shape": [2], "data_offsets": [0, 8]}}, 8),
        "dtype-object": encode({"w": {"dtype": {"F32": 1}, "shape": [2], "data_offsets": [0, 8]}}, 8),
        "unknown-dtype": encode({"w": {"dtype": "F33", "shape": [2], "data_offsets": [0, 8]}}, 8),
        "sub-byte-odd": encode({"w": {"dtype": "F4", "shape": [3], "data_offsets": [0, 1]}}, 1),
        "metadata-not-string": encode({"__metadata__": {"n": 1}, **one}, 8),
        "metadata-nested": encode({"__metadata__": {"n": {"m": "x"}}, **one}, 8),
        "metadata-list": encode({"__metadata__": ["x"], **one}, 8),
        "deep-nesting": pack('{"w":' + "[" * 5000 + "]" * 5000 + "}", b""),
        "not-an-object": pack("[1, 2]", b""),
        "no-tensors": encode({}, 0),
        "only-metadata": encode({"__metadata__": {"a": "b"}}, 0),
        "tensor-not-object": encode({"w": [0, 8]}, 8),
        "trailing-garbage": pack(ok + "}", bytes(8)),
        "control-char-in-name": pack(ok.replace('"w"', '"w\x01"'), bytes(8)),
        "short-file": b"\x08\x00\x00",
    }
    return cases


MUTATIONS = [
    lambda h, n, r: (h, n + r.randint(1, 8)),  # trailing bytes
    lambda h, n, r: (h, max(0, n - r.randint(1, 8))),  # truncated
    lambda h, n, r: (
        {k: {**v, "data_offsets": [v["data_offsets"][0] + 1, v["data_offsets"][1] + 1]} for k, v in h.items()},
        n + 1,
    ),
    lambda h, n, r: ({k: {**v, "shape": [*v["shape"], r.choice([0, 1, 2])]} for k, v in h.items()}, n),
    lambda h, n, r: ({k: {**v, "dtype": r.choice(list(DTYPES))} for k, v in h.items()}, n),
    lambda h, n, r: ({**h, "__metadata__": {"k": r.choice(["v", 1, None, ["x"]])}}, n),
    lambda h, n, r: ({k: {**v, "shape": [r.choice([True, False, -1, 1.5, "1", None])]} for k, v in h.items()}, n),
    lambda h, n, r: (h, n),  # unchanged: valid
]


def random_corpus(count: int = 160) -> dict[str, bytes]:
    rng = random.Random(SEED)
    cases = {}
    for i in range(count):
        header, data_len = valid_header(rng, rng.randint(1, 4))
        mutate = rng.choice(MUTATIONS)
        mutated, length = mutate(header, data_len, rng)
        cases[f"random-{i}"] = encode(mutated, length, pad=rng.random() < 0.5)
    return cases


def library_loads(path: Path) -> bool:
    try:
        with safe_open(str(path), framework="pt") as handle:
            for key in handle.keys():  # noqa: SIM118 (safe_open is not a mapping)
                handle.get_tensor(key)
        return True
    except Exception:
        return False


def fastload_accepts(path: Path) -> bool:
    try:
        read_local_shard(path)
        return True
    except FastloadConfigError:
        return False


CORPUS = {**handwritten(), **random_corpus()}


def test_everything_fastload_accepts_the_library_loads(tmp_path):
    accepted = refused = 0
    for name, blob in CORPUS.items():
        path = tmp_path / f"{name}.safetensors"
        path.write_bytes(blob)
        ours = fastload_accepts(path)  # must never raise anything but FastloadConfigError
        theirs = library_loads(path)
        assert not (ours and not theirs), f"{name}: fastload accepts a file the safetensors library refuses"
        accepted += ours
        refused += not ours
    # The corpus exercises both sides.
    assert accepted >= 30 and refused >= 80, (accepted, refused)


@pytest.mark.parametrize("name", [n for n in handwritten() if n.startswith("valid")])
def test_handwritten_valid_files_are_accepted_by_both(tmp_path, name):
    path = tmp_path / "m.safetensors"
    path.write_bytes(handwritten()[name])
    assert library_loads(path) and fastload_accepts(path)


def test_files_the_library_writes_are_accepted(tmp_path):
    rng = random.Random(SEED)
    dtypes = [torch.float32, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int64, torch.bool]
    for i in range(25):
        tensors = {
            f"t{j}": torch.zeros([rng.randint(0, 5) for _ in range(rng.randint(0, 3))], dtype=rng.choice(dtypes))
            for j in range(rng.randint(1, 5))
        }
        path = tmp_path / f"lib-{i}.safetensors"
        save_file(tensors, str(path), metadata={"format": "pt"})
        shard = read_local_shard(path)
        assert shard.tensor_count == len(tensors)
        assert shard.parameter_count == sum(t.numel() for t in tensors.values())


def test_fifo_named_safetensors_is_refused_without_blocking(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    os.mkfifo(tmp_path / "model.safetensors")
    signal.signal(signal.SIGALRM, lambda *_: pytest.fail("opening the FIFO blocked"))
    signal.alarm(10)
    try:
        with pytest.raises(FastloadConfigError) as err:
            ModelProfile.from_directory(tmp_path)
    finally:
        signal.alarm(0)
    assert err.value.field == "safetensors[model.safetensors]" and "regular file" in err.value.accepted


def test_directory_named_safetensors_is_refused(tmp_path):
    (tmp_path / "model.safetensors").mkdir()
    with pytest.raises(FastloadConfigError) as err:
        ModelProfile.from_directory(tmp_path)
    assert "regular file" in err.value.accepted


def test_fastload_is_stricter_than_the_library_only_where_documented(tmp_path):
    """Duplicate keys (the library keeps the last), unknown tensor fields (ignored there) and a
    header without tensors are refused on purpose; everything else the library loads is accepted."""
    stricter = set()
    for name, blob in CORPUS.items():
        path = tmp_path / f"{name}.safetensors"
        path.write_bytes(blob)
        if library_loads(path) and not fastload_accepts(path):
            stricter.add(name)
    assert stricter == {"duplicate-tensor", "unknown-field", "no-tensors", "only-metadata"}
