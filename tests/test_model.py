import json
import struct

import pytest

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile, read_local_shard
from tests.safetensors_factory import write_safetensors


def test_profile_from_a_sharded_directory(tmp_path):
    write_safetensors(
        tmp_path / "model-00001-of-00002.safetensors",
        {
            "embed.weight": ("BF16", [64, 32]),  # 4096 bytes
            "layer.0.weight": ("BF16", [32, 32]),  # 2048 bytes
        },
    )
    write_safetensors(
        tmp_path / "model-00002-of-00002.safetensors",
        {
            "layer.1.weight": ("BF16", [32, 32]),  # 2048 bytes
            "norm.scale": ("F32", [32]),  # 128 bytes
        },
    )
    (tmp_path / "config.json").write_text("{}")
    profile = ModelProfile.from_directory(tmp_path)
    assert profile.shard_count == 2
    assert profile.parameter_count == 64 * 32 + 32 * 32 + 32 * 32 + 32
    assert profile.largest_tensor_bytes == 4096
    assert profile.dtype == "BF16"  # BF16 holds 8192 of the tensor bytes, F32 only 128
    sizes = [f.stat().st_size for f in sorted(tmp_path.glob("*.safetensors"))]
    assert profile.total_bytes == sum(sizes)
    assert [s.name for s in profile.shards] == ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]


def test_only_the_header_is_read(tmp_path, monkeypatch):
    path = tmp_path / "a.safetensors"
    write_safetensors(path, {"w": ("F32", [512, 512])})  # 1 MiB of data
    reads = []
    real_open = type(path).open

    def spying_open(self, *args, **kwargs):
        handle = real_open(self, *args, **kwargs)
        real_read = handle.read

        def read(n=-1):
            reads.append(n)
            return real_read(n)

        handle.read = read
        return handle

    monkeypatch.setattr(type(path), "open", spying_open)
    shard = read_local_shard(path)
    assert shard.parameter_count == 512 * 512
    assert sum(reads) < 200 and -1 not in reads


def _raw_file(path, header_bytes, data=b"", declared_len=None):
    length = len(header_bytes) if declared_len is None else declared_len
    path.write_bytes(struct.pack("<Q", length) + header_bytes + data)
    return path


@pytest.mark.parametrize(
    "header, data, declared, field_part",
    [
        (b"{not json", b"", None, ".header"),
        (b"[1, 2]", b"", None, ".header"),
        (json.dumps({"w": {"dtype": "Q9", "shape": [1], "data_offsets": [0, 1]}}).encode(), b"x", None, ".dtype"),
        (
            json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 8]}}).encode(),
            b"x" * 8,
            None,
            ".data_offsets",
        ),
        (
            json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}).encode(),
            b"x" * 8,
            None,
            ".data_offsets",
        ),
        (json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode(), b"x" * 20, None, ".size"),
        (json.dumps({"__metadata__": {"a": "b"}}).encode(), b"", None, "safetensors[bad.safetensors]"),
        (b"{}", b"", 10**9, ".header_length"),
    ],
    ids=["not-json", "not-object", "unknown-dtype", "span-mismatch", "past-end", "padded", "no-tensors", "huge-length"],
)
def test_corrupt_headers_are_refused_with_the_field(tmp_path, header, data, declared, field_part):
    path = _raw_file(tmp_path / "bad.safetensors", header, data, declared)
    with pytest.raises(FastloadConfigError) as err:
        read_local_shard(path)
    assert field_part in err.value.field
    assert err.value.field.startswith("safetensors[bad.safetensors]")


def test_tiny_file_is_refused(tmp_path):
    path = tmp_path / "tiny.safetensors"
    path.write_bytes(b"abc")
    with pytest.raises(FastloadConfigError, match="at least 8 bytes"):
        read_local_shard(path)


def test_directory_without_safetensors_is_refused(tmp_path):
    (tmp_path / "pytorch_model.bin").write_bytes(b"\0" * 16)
    with pytest.raises(FastloadConfigError, match=r"model.path: .*\*\.safetensors"):
        ModelProfile.from_directory(tmp_path)


def test_missing_directory_is_refused(tmp_path):
    with pytest.raises(FastloadConfigError, match="an existing directory"):
        ModelProfile.from_directory(tmp_path / "absent")


def test_from_numbers():
    eight_b = ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16")
    assert eight_b.total_bytes == 16_060_522_496
    fp8 = ModelProfile.from_numbers(parameter_count=405_000_000_000, dtype="F8_E4M3")
    assert fp8.total_bytes == 405_000_000_000
    given = ModelProfile.from_numbers(total_bytes=1234, dtype="F16")
    assert given.total_bytes == 1234 and given.parameter_count is None


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"parameter_count": 0}, "model.parameter_count"),
        ({"parameter_count": -5}, "model.parameter_count"),
        ({}, "model.parameter_count"),
        ({"total_bytes": 0}, "model.total_bytes"),
        ({"parameter_count": 10, "dtype": "FP7"}, "model.dtype"),
    ],
)
def test_from_numbers_rejects_bad_sizes(kwargs, field):
    with pytest.raises(FastloadConfigError) as err:
        ModelProfile.from_numbers(**kwargs)
    assert err.value.field == field
