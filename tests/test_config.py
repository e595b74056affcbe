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
