"""`fastload inspect` on S3 (ranged GETs only) and on local folders."""

import json

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.s3_uri import parse_s3_uri
from fastload_constructs.s3.client import s3_client
from fastload_constructs.s3.headers import S3RangeReader, inspect_s3
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
    found = inspect_s3(client, parse_s3_uri(staged))
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
    assert "fits: False" in captured.out
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
