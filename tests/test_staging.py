"""Folder validation, upload planning and the manifest: pure, no S3."""

import hashlib
import json

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.s3.staging import (
    RemoteState,
    build_manifest,
    plan_upload,
    validate_model_folder,
)
from tests.hf_model_factory import INDEX, SHARD_1, SHARD_2, write_hf_model
from tests.safetensors_factory import write_safetensors


@pytest.fixture
def model_dir(tmp_path):
    root = tmp_path / "Llama-tiny"
    write_hf_model(root)
    return root


def test_valid_folder_lists_every_file_with_its_sha256(model_dir):
    (model_dir / ".cache").mkdir()
    (model_dir / ".cache" / "junk").write_text("x")
    (model_dir / "fastload-manifest.json").write_text("{}")  # a stale copy is never uploaded
    assert all(f.sha256 is None for f in validate_model_folder(model_dir).files)  # headers only, no hashing
    model = validate_model_folder(model_dir, hash_files=True)
    names = [f.name for f in model.files]
    assert names == sorted(["config.json", SHARD_1, SHARD_2, INDEX, "tokenizer.json"])
    for f in model.files:
        assert f.sha256 == hashlib.sha256((model_dir / f.name).read_bytes()).hexdigest()
        assert f.size == (model_dir / f.name).stat().st_size
    assert model.profile.shard_count == 2 and model.profile.name == "Llama-tiny"


def _refused(path, **kwargs):
    with pytest.raises(FastloadConfigError) as err:
        validate_model_folder(path, **kwargs)
    return err.value


def test_missing_config_is_refused(model_dir):
    (model_dir / "config.json").unlink()
    assert "config.json" in _refused(model_dir).accepted


def test_folder_without_safetensors_is_refused(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "tokenizer.json").write_text("{}")
    err = _refused(tmp_path)
    assert err.field == "model_dir" and "*.safetensors" in err.accepted


def test_pickled_weights_need_allow_bin(model_dir):
    (model_dir / "pytorch_model.bin").write_bytes(b"\x80\x04pickle")
    err = _refused(model_dir)
    assert err.value == ["pytorch_model.bin"] and "--allow-bin" in err.accepted
    model = validate_model_folder(model_dir, allow_bin=True)
    assert "pytorch_model.bin" in [f.name for f in model.files]


def test_corrupt_header_is_refused_with_the_shard_name(model_dir):
    data = bytearray((model_dir / SHARD_2).read_bytes())
    data[8:12] = b"\xff\xfe{["
    (model_dir / SHARD_2).write_bytes(bytes(data))
    assert _refused(model_dir).field.startswith(f"safetensors[{SHARD_2}]")


def _edit_index(model_dir, change):
    index = json.loads((model_dir / INDEX).read_text())
    change(index["weight_map"])
    (model_dir / INDEX).write_text(json.dumps(index))


@pytest.mark.parametrize(
    "change, expected_value",
    [
        (
            lambda wm: wm.__setitem__("model.norm.weight", "model-00003-of-00003.safetensors"),
            ["model-00003-of-00003.safetensors"],
        ),
        (lambda wm: wm.__setitem__("lm_head.weight", SHARD_2), ["lm_head.weight"]),
        (lambda wm: wm.pop("model.norm.weight"), ["model.norm.weight"]),
        (lambda wm: wm.__setitem__("model.norm.weight", SHARD_1), ["model.norm.weight"]),
    ],
    ids=["names-missing-shard", "names-undeclared-tensor", "omits-a-tensor", "maps-to-wrong-shard"],
)
def test_index_inconsistent_with_shards_is_refused(model_dir, change, expected_value):
    _edit_index(model_dir, change)
    err = _refused(model_dir)
    assert err.field == f"model.index[{INDEX}].weight_map"
    assert err.value == expected_value


def test_shard_missing_from_index_is_refused(model_dir):
    write_safetensors(model_dir / "extra.safetensors", {"x": ("F32", [4])})
    err = _refused(model_dir)
    assert err.value == ["extra.safetensors"]


def test_plan_skips_only_same_size_and_sha(model_dir):
    model = validate_model_folder(model_dir, hash_files=True)
    by_name = {f.name: f for f in model.files}
    remote = {
        SHARD_1: RemoteState(by_name[SHARD_1].size, by_name[SHARD_1].sha256),  # identical: skip
        SHARD_2: RemoteState(by_name[SHARD_2].size, "0" * 64),  # same size, other content: upload
        "config.json": RemoteState(by_name["config.json"].size, None),  # not staged by fastload: upload
        "old-00003.safetensors": RemoteState(10, None),  # no local file: stale
        "fastload-manifest.json": RemoteState(100, None),  # ours: never stale
    }
    plan = plan_upload(model, remote)
    assert [f.name for f in plan.skip] == [SHARD_1]
    assert {f.name for f in plan.upload} == set(by_name) - {SHARD_1}
    assert plan.stale == ("old-00003.safetensors",)
    assert plan.upload_bytes == sum(f.size for f in plan.upload)


def test_manifest_describes_the_weights(model_dir):
    model = validate_model_folder(model_dir, hash_files=True)
    manifest = build_manifest(model, "s3://bucket/models/tiny")
    assert manifest["parameter_count"] == 1536 * 2048 + 64 * 32 * 2 + 32
    assert manifest["dtype"] == "BF16"
    assert manifest["largest_tensor_bytes"] == 1536 * 2048 * 2
    assert manifest["shards"] == [SHARD_1, SHARD_2]
    assert {f["name"]: f["size"] for f in manifest["files"]} == {f.name: f.size for f in model.files}


def test_cli_stage_refuses_a_bad_folder_before_touching_s3(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9")  # nothing listens: any S3 call would fail
    (tmp_path / "config.json").write_text("{}")
    assert main(["stage", str(tmp_path), "s3://bucket/models/x", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fastload: model_dir") and "*.safetensors" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args, field",
    [
        (["--concurrency", "0"], "--concurrency"),  # the option typed, not the library's field
        (["--chunk-size-mib", "4"], "--chunk-size-mib"),
    ],
)
def test_cli_stage_rejects_bad_transfer_settings(model_dir, capsys, args, field):
    assert main(["stage", str(model_dir), "s3://bucket/models/x", "--no-progress", *args]) == 2
    assert capsys.readouterr().err.startswith(f"fastload: {field}: got ")
