import copy
import json
from pathlib import Path

import pytest

from fastload_constructs.core.errors import FastloadConfigError
from stacks.config import parse_reference_config

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]


def context(**changes):
    ctx = copy.deepcopy(CDK_JSON)
    model_changes = changes.pop("model", None)
    if model_changes is not None:
        ctx["fastload:models"][0].update(model_changes)
    ctx.update({f"fastload:{k}": v for k, v in changes.items()})
    return ctx


def test_cdk_json_defaults_parse_and_plan():
    config = parse_reference_config(CDK_JSON)
    assert config.kubernetes_version == "1.35"
    (model,) = config.models
    assert model.instance_type == "g6e.2xlarge"
    assert model.serving_plan().tensor_parallel_size == 1
    assert config.instance_types == ("g6e.2xlarge",)


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"kubernetesVersion": "1.20"}, "fastload:kubernetesVersion"),
        ({"models": []}, "fastload:models"),
        ({"model": {"name": "Llama_8B"}}, "fastload:models[0].name"),
        ({"model": {"instanceType": "g6e.3xlarge"}}, "fastload:models[0].instanceType"),
        ({"model": {"s3Prefix": "/models/x"}}, "fastload:models[0].s3Prefix"),
        ({"model": {"s3Prefix": "models/../x"}}, "fastload:models[0].s3Prefix"),
        ({"model": {"replicas": -1}}, "fastload:models[0].replicas"),
        ({"model": {"dtype": "FP3"}}, "fastload:models[0].dtype"),
        ({"model": {"parameterCount": 70_600_000_000}}, "model.total_bytes"),
        ({"model": {"tensorParallelSize": 3}}, "tensor_parallel_size"),
        ({"model": {"colour": "blue"}}, "fastload:models[0].colour"),
    ],
)
def test_bad_context_is_refused_naming_the_field(changes, field):
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(context(**changes))
    assert err.value.field == field


def test_duplicate_model_names_are_refused():
    ctx = context()
    ctx["fastload:models"].append(dict(ctx["fastload:models"][0]))
    with pytest.raises(FastloadConfigError, match="unique"):
        parse_reference_config(ctx)


STAGER = "arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_Stager_0a1b"


def test_stager_role_arns_default_to_none_and_parse_when_given():
    assert parse_reference_config(CDK_JSON).stager_role_arns == ()
    config = parse_reference_config(context(stagerRoleArns=[STAGER, "arn:aws-cn:iam::123456789012:role/ci"]))
    assert config.stager_role_arns == (STAGER, "arn:aws-cn:iam::123456789012:role/ci")


@pytest.mark.parametrize(
    "value, field",
    [
        ("arn:aws:iam::123456789012:role/stager", "fastload:stagerRoleArns"),
        ([STAGER, STAGER], "fastload:stagerRoleArns"),
        (["arn:aws:iam::123456789012:user/alice"], "fastload:stagerRoleArns[0]"),
        (["arn:aws:iam::12345:role/stager"], "fastload:stagerRoleArns[0]"),
        ([STAGER, "arn:aws:iam::123456789012:role/"], "fastload:stagerRoleArns[1]"),
        (["arn:aws:iam::123456789012:role/bad name"], "fastload:stagerRoleArns[0]"),
    ],
)
def test_bad_stager_role_arns_are_refused(value, field):
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(context(stagerRoleArns=value))
    assert err.value.field == field


LLAMA_ARCH = {
    "numHiddenLayers": 32,
    "hiddenSize": 4096,
    "numAttentionHeads": 32,
    "numKeyValueHeads": 8,
    "maxPositionEmbeddings": 131072,
}


def test_max_model_len_capture_sizes_and_architecture_reach_the_plan():
    config = parse_reference_config(
        context(model={"maxModelLen": 32768, "cudaGraphCaptureSizes": [1, 2, 4, 8], "architecture": LLAMA_ARCH})
    )
    p = config.models[0].serving_plan()
    assert p.max_model_len == 32768 and p.cudagraph_capture_sizes == (1, 2, 4, 8)
    assert p.kv_fit is not None and p.kv_fit.max_model_len == 32768


def test_a_context_that_does_not_fit_fails_synthesis_naming_what_fits():
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(context(model={"instanceType": "g5.xlarge", "architecture": LLAMA_ARCH}))
    assert err.value.field == "max_model_len" and "would fit" in str(err.value)


# -c values arrive as strings; keys come from one table each -------------------------------------------------


def test_list_keys_accept_json_text_as_cdk_c_delivers_it():
    admin = "arn:aws:iam::123456789012:role/Admin"
    config = parse_reference_config(
        context(
            stagerRoleArns=json.dumps([STAGER]),
            adminRoleArns=f'["{admin}"]',
            models=json.dumps(CDK_JSON["fastload:models"]),
        )
    )
    assert config.stager_role_arns == (STAGER,) and config.admin_role_arns == (admin,)
    assert config.models == parse_reference_config(CDK_JSON).models


def test_malformed_json_text_is_refused_naming_the_key():
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(context(adminRoleArns='["arn:aws:iam::123456789012:role/Admin"'))
    assert err.value.field == "fastload:adminRoleArns" and "valid JSON" in err.value.accepted


@pytest.mark.parametrize(
    "key, closest",
    [("fastload:model", "fastload:models"), ("fastload:stagerRoleArn", "fastload:stagerRoleArns")],
)
def test_unknown_fastload_keys_are_refused_with_the_closest_names(key, closest):
    ctx = {**context(), key: "x", "@aws-cdk/core:newStyleStackSynthesis": True}  # CDK's own keys pass
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(ctx)
    assert err.value.field == key and f"closest: {closest}" in err.value.accepted


def test_an_unknown_model_key_names_the_closest_model_keys():
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(context(model={"extraArg": ["--enforce-eager"]}))
    assert err.value.field == "fastload:models[0].extraArg" and "closest: extraArgs" in err.value.accepted


def test_image_reaches_the_plan_and_extra_args_the_server_options():
    (model,) = parse_reference_config(
        context(model={"image": "vllm/vllm-openai:v0.35.1", "extraArgs": ["--max-num-seqs", "64", "--enforce-eager"]})
    ).models
    # The image is how the model is served: the plan is made for its release and records it.
    p = model.serving_plan()
    assert p.serving.image == "vllm/vllm-openai:v0.35.1" and p.engine_version == "0.35.1"
    assert model.server_options().extra_args == ("--max-num-seqs", "64", "--enforce-eager")


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"maxModelLen": 0}, "fastload:models[0].maxModelLen"),
        ({"kvCacheDtype": "int4"}, "fastload:models[0].kvCacheDtype"),
        ({"cudaGraphCaptureSizes": [8, 4]}, "fastload:models[0].cudaGraphCaptureSizes"),
        ({"cudaGraphCaptureSizes": "1,2"}, "fastload:models[0].cudaGraphCaptureSizes"),
        ({"architecture": {"layers": 3}}, "fastload:models[0].architecture.layers"),
        ({"architecture": {**LLAMA_ARCH, "numHiddenLayers": 0}}, "fastload:models[0].architecture.num_hidden_layers"),
        ({"image": "vllm/vllm-openai:latest"}, "fastload:models[0].image"),
        ({"image": 34}, "fastload:models[0].image"),
        ({"extraArgs": ["--tensor-parallel-size", "2"]}, "fastload:models[0].extraArgs[0]"),
        ({"extraArgs": ["--enforce-eager", "--tensor_parallel_size=4"]}, "fastload:models[0].extraArgs[1]"),
        ({"extraArgs": ["-pp", "2"]}, "fastload:models[0].extraArgs[0]"),
        ({"extraArgs": ["--dtype", "float32"]}, "fastload:models[0].extraArgs[0]"),
        ({"extraArgs": "--enforce-eager"}, "fastload:models[0].extraArgs"),
        ({"extraArgs": ["s3://other/model"]}, "fastload:models[0].extraArgs"),
    ],
)
def test_engine_settings_that_break_the_plan_are_refused(changes, field):
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(context(model=changes))
    assert err.value.field == field


def test_assumptions_file_from_context(tmp_path):
    path = tmp_path / "a.json"
    path.write_text(
        json.dumps(
            {
                "format": "fastload-assumptions/1",
                "assumptions": {"process_start_s": 12.0},
                "measured_throughput_mb_s": [{"instance_type": "g6e.2xlarge", "source": "s3", "mb_s": 600.0}],
            }
        )
    )
    p = parse_reference_config(context(assumptions=str(path))).models[0].serving_plan()
    assert p.predicted.process_start_s == 12.0 and p.predicted.load_throughput_mb_s == 600.0
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(context(assumptions=str(tmp_path / "missing.json")))
    assert err.value.field == "fastload:assumptions"


def test_bad_admin_role_arns_are_refused():
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(context(adminRoleArns=["arn:aws:iam::123456789012:user/alice"]))
    assert err.value.field == "fastload:adminRoleArns[0]"


@pytest.mark.parametrize(
    "raised, keys, field",
    [
        ("image", None, "fastload:models[0].image"),  # the library's name replaced by the context key
        ("fastload:models[0].image.tag", None, "fastload:models[0].image.tag"),  # already under it: kept
        ("model.dtype", {"model.dtype": "dtype"}, "fastload:models[0].dtype"),
        ("kv_cache_dtype", {"model.dtype": "dtype"}, "kv_cache_dtype"),  # not mapped: passes unchanged
    ],
)
def test_library_errors_are_renamed_to_the_context_key_they_came_from(raised, keys, field):
    from stacks.config import _context_key

    with (
        pytest.raises(FastloadConfigError) as err,
        _context_key("fastload:models[0]" + ("" if keys else ".image"), keys),
    ):
        raise FastloadConfigError(raised, "v", "what is accepted")
    assert (err.value.field, err.value.value, err.value.accepted) == (field, "v", "what is accepted")


@pytest.mark.parametrize(
    "model, field",
    [
        ({"image": "vllm/vllm-openai"}, "fastload:models[0].image"),
        ({"extraArgs": ["--max-num-seqs", "4", "--port=9"]}, "fastload:models[0].extraArgs[2]"),
        ({"extraArgs": "--max-num-seqs"}, "fastload:models[0].extraArgs"),
    ],
)
def test_image_and_extra_args_errors_name_the_context_key(model, field):
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(context(model=model))
    assert err.value.field == field


@pytest.mark.parametrize("written", [70e9, 70_000_000_000, 7e10])
def test_parameter_count_accepts_the_numbers_the_cli_accepts(written):
    """JSON reads 70e9 as a float; cdk.json takes it as `fastload plan --params 70e9` does (test_cli_plan)."""
    (model,) = parse_reference_config(context(model={"parameterCount": written, "instanceType": "p5.48xlarge"})).models
    assert model.profile.parameter_count == 70_000_000_000
    (model,) = parse_reference_config(context(model={"parameterCount": None, "totalBytes": 16.06e9})).models
    assert model.profile.total_bytes == 16_060_000_000


@pytest.mark.parametrize("written", [8.5, True, float("nan"), float("inf"), -1e9, 0, "70e9", 1e30])
def test_parameter_count_refuses_what_the_cli_refuses(written):
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config(context(model={"parameterCount": written}))
    assert err.value.field == "fastload:models[0].parameterCount"
    assert "e-notation such as 8030261248, 8.03e9 or 70e9" in err.value.accepted


def test_standbys_is_a_model_key_of_its_own():
    """`"standbys": 1` on a cdk.json model turns FMA's standby engines on (the reference app builds the rest)."""
    (model,) = parse_reference_config(context(model={"standbys": 1, "nodeLocalModelCache": True})).models
    assert model.standbys == 1 and model.serving_plan().serving.standbys == 1
    assert parse_reference_config(CDK_JSON).models[0].standbys == 0
    for bad, accepted in ((-1, "0"), (True, "0"), ("2", "0")):
        with pytest.raises(FastloadConfigError) as err:
            parse_reference_config(context(model={"standbys": bad}))
        assert err.value.field == "fastload:models[0].standbys" and accepted in err.value.accepted
    with pytest.raises(FastloadConfigError) as err:  # standbys sleep with vLLM's sleep mode
        parse_reference_config(context(model={"standbys": 1, "engine": "sglang"}))
    assert err.value.field == "fastload:models[0].standbys"
