"""Write real safetensors files for tests, byte by byte, with no ML library.

Format: 8-byte little-endian header length, the JSON header, then the tensor
bytes at the offsets the header declares.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

ELEMENT_BYTES = {"F32": 4, "F16": 2, "BF16": 2, "I8": 1, "U8": 1, "F8_E4M3": 1, "I64": 8}


def tensor_bytes(dtype: str, shape: list[int], seed: int = 0) -> bytes:
    """Deterministic, non-constant payload of the right size."""
    n = ELEMENT_BYTES[dtype]
    for dim in shape:
        n *= dim
    return bytes((seed + i * 7) % 251 for i in range(n))


def write_safetensors(
    path: Path, tensors: dict[str, tuple[str, list[int]]], metadata: dict[str, str] | None = None
) -> dict[str, bytes]:
    """Write `tensors` ({name: (dtype, shape)}); returns {name: payload} for comparison."""
    header: dict[str, object] = {}
    payloads: dict[str, bytes] = {}
    offset = 0
    for i, (name, (dtype, shape)) in enumerate(tensors.items()):
        data = tensor_bytes(dtype, shape, seed=i)
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(data)]}
        payloads[name] = data
        offset += len(data)
    if metadata:
        header["__metadata__"] = metadata
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)  # the format pads the header to 8 bytes with spaces
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        handle.write(struct.pack("<Q", len(raw)))
        handle.write(raw)
        for data in payloads.values():
            handle.write(data)
    return payloads
