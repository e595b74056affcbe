"""`fastload inspect` on S3 (ranged GETs only) and on local folders."""

import json
import re

import pytest
import yaml

from fastload_constructs.cli.main import main
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.s3_uri import parse_s3_uri
from fastload_constructs.s3.client import s3_client
from fastload_constructs.s3.headers import S3RangeReader, inspect_s3
from fastload_constructs.s3.revisions import current_location
from tests.hf_model_factory import SHARD_1, SHARD_2, write_hf_model


@pytest.fixture
def model_dir(tmp_path):
    write_hf_model(tmp_path / "tiny")
    return tmp_path / "tiny"


@pytest.fixture
def staged(s3_server, model_dir):
    bucket = s3_server.new_bucket()
    uri = f"s3://{bucket}/models/tiny"
    assert main(["stage", str(model_dir), uri, "--endpoint-url", s3_server.url, "--no-progress"]) == 0
    return uri


def _inspect_json(capsys, *args):
    capsys.readouterr()
    assert main(["inspect", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_s3_and_local_inspect_agree_with_the_headers(s3_server, staged, model_dir, capsys):
    remote = _inspect_json(capsys, staged, "--endpoint-url", s3_server.url)
    local = _inspect_json(capsys, str(model_dir))
    expected = ModelProfile.from_directory(model_dir)
    assert remote["model"]["parameter_count"] == expected.parameter_count == 1536 * 2048 + 64 * 32 * 2 + 32
    assert remote["model"]["total_bytes"] == expected.total_bytes
    assert remote["model"]["shards"] == local["model"]["shards"]
    assert [s["name"] for s in remote["model"]["shards"]] == [SHARD_1, SHARD_2]
    assert remote["staged_manifest"] is True


def test_s3_inspect_uses_only_small_ranged_gets(s3_server, staged):
    client = s3_client(endpoint_url=s3_server.url)
    gets = []
    client.meta.events.register("before-parameter-build.s3.GetObject", lambda params, **_: gets.append(dict(params)))
    received = []
    client.meta.events.register("after-call.s3.GetObject", lambda parsed, **_: received.append(parsed["ContentLength"]))
    location, _ = current_location(client, parse_s3_uri(staged))  # the published revision: the pointer's GET
    gets.clear()
    found = inspect_s3(client, location)
    assert found.profile.shard_count == 2
    assert len(gets) == 2 and all(g["Range"].startswith("bytes=0-") for g in gets)  # one GET per shard
    shard_sizes = sum(s.size_bytes for s in found.profile.shards)
    assert sum(received) < shard_sizes / 50  # headers only: the 6 MiB of tensor data never moved


def test_range_reader_fetches_the_rest_of_a_large_header(s3_server):
    bucket = s3_server.new_bucket()
    body = bytes(range(256)) * 40  # 10240 bytes
    client = s3_server.client()
    client.put_object(Bucket=bucket, Key="blob", Body=body)
    calls = []
    client.meta.events.register(
        "before-parameter-build.s3.GetObject", lambda params, **_: calls.append(params["Range"])
    )
    read = S3RangeReader(client, bucket, "blob", len(body), prefetch=1000)
    assert read(0, 8) == body[:8]
    assert read(8, 500) == body[8:508]  # served from the first GET
    assert read(8, 4000) == body[8:4008]  # partly cached: fetches only the missing tail
    assert read(10000, 1000) == body[10000:]  # at the end of the object
    assert calls == ["bytes=0-999", "bytes=1000-4007", "bytes=10000-10239"]


def test_instance_adds_the_plan_and_a_fit_verdict(s3_server, staged, capsys):
    view = _inspect_json(capsys, staged, "--endpoint-url", s3_server.url, "--instance", "g6e.12xlarge")
    assert view["fits"] is True and view["plan"]["instance_type"] == "g6e.12xlarge"
    assert view["plan"]["tensor_parallel_size"] == 1
    assert view["plan"]["model_loader_extra_config"]["memory_limit"] == view["model"]["total_bytes"]


def test_a_misfit_is_a_verdict_with_exit_3(tmp_path, capsys):
    # A 40 GiB tensor as a sparse file: inspect reads only its header.
    path = tmp_path / "big" / "model.safetensors"
    path.parent.mkdir()
    header = {"w": {"dtype": "BF16", "shape": [20 * 1024, 1024 * 1024], "data_offsets": [0, 40 * 1024**3]}}
    raw = json.dumps(header).encode()
    with path.open("wb") as f:
        f.write(len(raw).to_bytes(8, "little") + raw)
        f.truncate(8 + len(raw) + 40 * 1024**3)
    assert main(["inspect", str(path.parent), "--instance", "g6e.xlarge"]) == 3
    captured = capsys.readouterr()
    assert "fits: false" in captured.out and "False" not in captured.out
    assert captured.err.startswith("fastload: does not fit on g6e.xlarge: model.total_bytes")


def test_unknown_instance_is_an_input_error(model_dir, capsys):
    assert main(["inspect", str(model_dir), "--instance", "g9.huge"]) == 2
    assert capsys.readouterr().err.startswith("fastload: --instance: got 'g9.huge'")


def test_empty_prefix(s3_server, capsys):
    bucket = s3_server.new_bucket()
    s3_server.client().put_object(Bucket=bucket, Key="models/tinyer/config.json", Body=b"{}")  # a sibling, not under it
    assert main(["inspect", f"s3://{bucket}/models/tiny", "--endpoint-url", s3_server.url]) == 2
    assert capsys.readouterr().err.strip() == (
        f"fastload: s3_uri: got 's3://{bucket}/models/tiny'; accepted: a prefix holding a model; "
        "no objects exist under it"
    )


def test_prefix_without_safetensors(s3_server, capsys):
    bucket = s3_server.new_bucket()
    client = s3_server.client()
    client.put_object(Bucket=bucket, Key="m/config.json", Body=b"{}")
    client.put_object(Bucket=bucket, Key="m/pytorch_model.bin", Body=b"\x80\x04")
    client.put_object(Bucket=bucket, Key="m/sub/x.safetensors", Body=b"\x00" * 16)  # not top level: not loaded
    assert main(["inspect", f"s3://{bucket}/m", "--endpoint-url", s3_server.url]) == 2
    err = capsys.readouterr().err
    assert "a prefix holding *.safetensors objects (found only: config.json, pytorch_model.bin" in err


def test_corrupt_header_in_s3(s3_server, capsys):
    bucket = s3_server.new_bucket()
    s3_server.client().put_object(
        Bucket=bucket, Key="m/model.safetensors", Body=(12).to_bytes(8, "little") + b'{"w": [1, 2' + b"\x00" * 64
    )
    assert main(["inspect", f"s3://{bucket}/m", "--endpoint-url", s3_server.url]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("fastload: safetensors[model.safetensors].header: got ")
    assert "accepted: a JSON object" in err


def test_local_folder_without_safetensors(tmp_path, capsys):
    (tmp_path / "config.json").write_text("{}")
    assert main(["inspect", str(tmp_path)]) == 2
    assert "*.safetensors" in capsys.readouterr().err


# Llama 3.1 8B's figures: at its 131,072-token context the KV cache alone is 16 GiB.
LLAMA_8B_CONFIG = {
    "num_hidden_layers": 32,
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "max_position_embeddings": 131072,
}


def _sparse_8b(folder, config):
    """8.03e9 BF16 parameters in 64 tensors as a sparse file (inspect reads only the header), and config.json."""
    folder.mkdir()
    count, tensors = 8_030_261_248, 64
    header, offset = {}, 0
    for i in range(tensors):
        size = 2 * (count // tensors if i < tensors - 1 else count - (count // tensors) * (tensors - 1))
        header[f"w{i}"] = {"dtype": "BF16", "shape": [size // 2], "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header).encode()
    with (folder / "model.safetensors").open("wb") as f:
        f.write(len(raw).to_bytes(8, "little") + raw)
        f.truncate(8 + len(raw) + offset)
    (folder / "config.json").write_text(json.dumps(config))
    return offset


@pytest.mark.parametrize(("context", "fits"), [(131072, False), (8192, True)])
def test_inspect_and_plan_give_the_same_kv_aware_verdict(tmp_path, capsys, context, fits):
    """The folder's config.json makes inspect's fit KV-aware, as `plan --config-json` is."""
    total = _sparse_8b(tmp_path / "llama", {**LLAMA_8B_CONFIG, "max_position_embeddings": context})
    inspected = main(["inspect", str(tmp_path / "llama"), "--instance", "g5.xlarge", "--json"])
    view = json.loads(capsys.readouterr().out)
    planned = main(["plan", "--instance", "g5.xlarge", "--bytes", str(total), "--config-json", str(tmp_path / "llama")])
    plan_err = capsys.readouterr().err
    assert view["kv_aware_fit"] is True and view["fits"] is fits
    assert (inspected, planned) == ((0, 0) if fits else (3, 2))
    if not fits:  # the same reason: the KV cache for 131,072 tokens, and the context that would fit
        assert "16.0 GiB KV for 1 x 131072 tokens" in view["verdict"] and "16.0 GiB KV for 1 x 131072" in plan_err
        assert "max_model_len <= 21760" in view["verdict"] and "--max-model-len <= 21760" in plan_err


def test_inspect_reads_config_json_beside_the_weights_in_s3(s3_server, tmp_path, capsys):
    """A tiny model whose config.json declares a KV cache no GPU holds: the S3 verdict is KV-aware too."""
    write_hf_model(tmp_path / "tiny")
    huge_kv = {**LLAMA_8B_CONFIG, "num_hidden_layers": 512, "num_key_value_heads": 32, "max_position_embeddings": 2**20}
    (tmp_path / "tiny" / "config.json").write_text(json.dumps(huge_kv))
    bucket = s3_server.new_bucket()
    uri = f"s3://{bucket}/models/tiny"
    assert main(["stage", str(tmp_path / "tiny"), uri, "--endpoint-url", s3_server.url, "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["inspect", uri, "--endpoint-url", s3_server.url, "--instance", "p5.48xlarge", "--json"]) == 3
    view = json.loads(capsys.readouterr().out)
    assert view["kv_aware_fit"] is True and view["fits"] is False and "max_model_len" in view["verdict"]


def test_a_config_json_without_the_architecture_leaves_a_weights_only_verdict(model_dir, capsys):
    view = _inspect_json(capsys, str(model_dir), "--instance", "g6e.xlarge")
    assert view["fits"] is True and view["kv_aware_fit"] is False
    assert view["kv_aware_fit_skipped"].startswith("config.json without the architecture: config.json.")


def test_inspect_text_is_yaml_with_clean_values(model_dir, capsys):
    assert main(["inspect", str(model_dir), "--instance", "g6e.xlarge"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"(:|-) (None|True|False)$", out, re.MULTILINE) is None  # Python's, not YAML's
    view = yaml.safe_load(out)
    assert view["fits"] is True and view["plan"]["max_model_len"] is None


@pytest.mark.parametrize("typed", ["s3:/bucket/models/x", "S3://bucket/models/x", "s3//bucket/models/x", "s3:bucket/x"])
def test_an_almost_s3_uri_is_named_as_one_not_as_a_missing_folder(typed, capsys):
    assert main(["inspect", typed]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"fastload: source: got '{typed}'") and "s3://bucket/prefix" in line
