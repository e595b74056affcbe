"""Bad input across the public API and the CLI: the exact error, the field named, nothing written.

Every row runs in a fresh empty working directory with a fresh output folder
(the CDK outdir where there is one) that must not appear; CLI rows that talk
to S3 use a fresh bucket on the local S3 server that must stay empty.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks

from app import build_app
from fastload_constructs.cli.main import main
from fastload_constructs.core.catalog import GIB
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile, ShardInfo
from fastload_constructs.core.s3_uri import check_bucket_name, parse_s3_uri
from fastload_constructs.core.tuning import TuningOptions, plan
from fastload_constructs.infra.gpu_nodegroup import GpuNodeGroup
from fastload_constructs.infra.inference_cluster import InferenceCluster
from fastload_constructs.infra.model_bucket import ModelBucket
from fastload_constructs.infra.network import FastloadNetwork
from fastload_constructs.k8s.local_storage import LocalNvmeStorage
from tests.hf_model_factory import write_hf_model

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]
MODEL_8B = ModelProfile.from_numbers(parameter_count=8_000_000_000)


@dataclass
class Where:
    """What a row may use: the output folder that must stay absent, and for CLI rows a bucket and a model."""

    out: Path
    bucket: str = ""
    endpoint: str = ""
    model_dir: Path | None = None


def context(**model_changes: Any) -> dict:
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:models"][0].update(model_changes)
    return ctx


def app_in(where: Where) -> cdk.Stack:
    return cdk.Stack(cdk.App(outdir=str(where.out)), "Stack")


def gpu_nodes(where: Where, **kwargs: Any) -> GpuNodeGroup:
    stack = app_in(where)
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="c")
    return GpuNodeGroup(stack, "Gpu", cluster=cluster, **kwargs)


def bucket(where: Where, **kwargs: Any) -> ModelBucket:
    stack = app_in(where)
    endpoint = ec2.GatewayVpcEndpoint.from_gateway_vpc_endpoint_id(stack, "S3", "vpce-0123456789abcdef0")
    return ModelBucket(stack, "Models", vpc_endpoint=endpoint, **kwargs)


def big_tensor_model() -> ModelProfile:
    shard = ShardInfo("model.safetensors", 16 * GIB, 10, 8 * GIB, 2 * GIB, {"BF16": 16 * GIB})
    return ModelProfile.from_shards([shard])


# (row id, call, field the error names). Each call must raise FastloadConfigError.
API_ROWS: list[tuple[str, Callable[[Where], Any], str]] = [
    ("plan-unknown-instance-type", lambda w: plan(MODEL_8B, "g6e.99xlarge"), "instance_type"),
    (
        "plan-model-too-big",
        lambda w: plan(ModelProfile.from_numbers(parameter_count=405_000_000_000), "g6e.xlarge"),
        "model.total_bytes",
    ),
    (
        "plan-tp-not-a-divisor",
        lambda w: plan(MODEL_8B, "g6e.12xlarge", TuningOptions(tensor_parallel_size=3)),
        "tensor_parallel_size",
    ),
    (
        "plan-tp-too-small-for-model",
        lambda w: plan(
            ModelProfile.from_numbers(parameter_count=70_000_000_000),
            "g6e.12xlarge",
            TuningOptions(tensor_parallel_size=1),
        ),
        "tensor_parallel_size",
    ),
    ("plan-concurrency-0", lambda w: plan(MODEL_8B, "g6e.2xlarge", TuningOptions(concurrency=0)), "concurrency"),
    (
        "plan-memory-limit-below-largest-tensor",
        lambda w: plan(big_tensor_model(), "g6e.12xlarge", TuningOptions(memory_limit_bytes=GIB)),
        "memory_limit_bytes",
    ),
    (
        "plan-gpu-memory-utilization-above-1",
        lambda w: plan(MODEL_8B, "g6e.2xlarge", TuningOptions(gpu_memory_utilization=1.5)),
        "gpu_memory_utilization",
    ),
    ("profile-negative-bytes", lambda w: ModelProfile(total_bytes=-1, dtype="BF16"), "model.total_bytes"),
    ("profile-unknown-dtype", lambda w: ModelProfile.from_numbers(parameter_count=10, dtype="FP7"), "model.dtype"),
    ("s3-uri-not-s3", lambda w: parse_s3_uri("https://models/llama"), "s3_uri"),
    ("s3-uri-bad-bucket", lambda w: parse_s3_uri("s3://Models_Bucket/llama"), "s3_uri.bucket"),
    ("s3-uri-parent-segment", lambda w: parse_s3_uri("s3://models/llama/../other"), "s3_uri.prefix"),
    ("bucket-name-ip-address", lambda w: check_bucket_name("192.168.1.10"), "bucket_name"),
    (
        "app-kubernetes-version-unsupported",
        lambda w: build_app({**context(), "fastload:kubernetesVersion": "1.29"}, str(w.out)),
        "fastload:kubernetesVersion",
    ),
    ("app-negative-replicas", lambda w: build_app(context(replicas=-1), str(w.out)), "fastload:models[0].replicas"),
    (
        "app-model-too-big-for-instance",
        lambda w: build_app(context(parameterCount=405_000_000_000), str(w.out)),
        "model.total_bytes",
    ),
    (
        "app-unknown-instance-type",
        lambda w: build_app(context(instanceType="g6e.99xlarge"), str(w.out)),
        "fastload:models[0].instanceType",
    ),
    (
        "app-unknown-model-key",
        lambda w: build_app(context(tensorParallel=2), str(w.out)),
        "fastload:models[0].tensorParallel",
    ),
    (
        "app-bad-stager-arn",
        lambda w: build_app({**context(), "fastload:stagerRoleArns": ["arn:aws:iam::1:role/x"]}, str(w.out)),
        "fastload:stagerRoleArns[0]",
    ),
    (
        "app-raid0-on-p3-without-instance-store",
        lambda w: build_app(context(instanceType="p3.2xlarge", parameterCount=1_000_000_000), str(w.out)),
        "fastload:models[0].instanceType",
    ),
    ("gpu-nodes-p3-raid0", lambda w: gpu_nodes(w, instance_type="p3.8xlarge"), "instance_type"),
    (
        "gpu-nodes-negative-desired",
        lambda w: gpu_nodes(w, instance_type="g6e.2xlarge", desired_size=-1),
        "desired_size",
    ),
    (
        "gpu-nodes-reservation-without-capacity-block",
        lambda w: gpu_nodes(w, instance_type="g6e.2xlarge", capacity_reservation_id="cr-0123456789abcdef0"),
        "capacity_reservation_id",
    ),
    ("cluster-version-unsupported", lambda w: InferenceCluster(app_in(w), "Cluster", version="1.30"), "version"),
    ("bucket-bad-name", lambda w: bucket(w, bucket_name="Model_Weights"), "bucket_name"),
    (
        "bucket-conflicting-log-options",
        lambda w: bucket(
            w, access_logs=False, access_logs_bucket=cdk.aws_s3.Bucket.from_bucket_name(cdk.Stack(), "L", "logs")
        ),
        "access_logs_bucket",
    ),
    ("network-one-az", lambda w: FastloadNetwork(app_in(w), "Network", max_azs=1), "max_azs"),
    ("network-cidr-too-small", lambda w: FastloadNetwork(app_in(w), "Network", cidr="10.0.0.0/24"), "cidr"),
    (
        "local-storage-no-volumes",
        lambda w: LocalNvmeStorage(__import__("cdk8s").App(outdir=str(w.out)), "s", volumes_per_node=0),
        "volumes_per_node",
    ),
]


def cli_rows(w: Where) -> dict[str, tuple[list[str], str]]:
    """Row id -> (argv, field named on stderr); every one must exit 2."""
    s3 = ["--endpoint-url", w.endpoint]
    stage = ["--no-progress", *s3]  # progress bars are stderr output of their own
    return {
        "plan-unknown-instance": (["plan", "--instance", "g6e.99xlarge", "--params", "8e9"], "instance_type"),
        "plan-tp-mismatch": (
            ["plan", "--instance", "g6e.12xlarge", "--params", "8e9", "--tp", "3"],
            "tensor_parallel_size",
        ),
        "plan-model-too-big": (["plan", "--instance", "g6e.xlarge", "--params", "405e9"], "model.total_bytes"),
        "stage-bad-bucket-uri": (["stage", str(w.model_dir), "s3://Bad_Bucket/m", *stage], "s3_uri.bucket"),
        "stage-parent-prefix": (["stage", str(w.model_dir), f"s3://{w.bucket}/a/../b", *stage], "s3_uri.prefix"),
        "stage-concurrency-0": (
            ["stage", str(w.model_dir), f"s3://{w.bucket}/m", "--concurrency", "0", *stage],
            "concurrency",
        ),
        "stage-missing-folder": (["stage", str(w.out.parent / "nowhere"), f"s3://{w.bucket}/m", *stage], "model_dir"),
        "inspect-no-prefix": (["inspect", f"s3://{w.bucket}", *s3], "s3_uri.prefix"),
        "inspect-unknown-instance": (["inspect", str(w.model_dir), "--instance", "g6e.99xlarge"], "--instance"),
    }


CLI_ROW_IDS = list(cli_rows(Where(Path("."))))


def nothing_written(out: Path) -> bool:
    """CDK creates an App's outdir when the App is made; nothing may be written into it."""
    return not out.exists() or not any(out.rglob("*"))


def test_the_table_covers_at_least_twenty_bad_inputs():
    assert len(API_ROWS) + len(CLI_ROW_IDS) >= 20


@pytest.fixture
def where(tmp_path, monkeypatch):
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    yield Where(out=tmp_path / "out")
    assert not any(cwd.iterdir()), "something was written to the working directory"


@pytest.mark.parametrize("call, field", [(c, f) for _, c, f in API_ROWS], ids=[r[0] for r in API_ROWS])
def test_api_refuses_bad_input(where, call, field):
    with pytest.raises(FastloadConfigError) as err:
        call(where)
    assert type(err.value) is FastloadConfigError
    assert err.value.field == field
    assert str(err.value).startswith(f"{field}: got ")
    assert nothing_written(where.out)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("model") / "tiny"
    write_hf_model(root)
    return root


@pytest.mark.parametrize("row", CLI_ROW_IDS)
def test_cli_refuses_bad_input_with_one_line_and_exit_2(where, row, s3_server, model_dir, capsys):
    where.bucket, where.endpoint, where.model_dir = s3_server.new_bucket("bad-input"), s3_server.url, model_dir
    argv, field = cli_rows(where)[row]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"fastload: {field}: got "), err
    assert s3_server.client().list_objects_v2(Bucket=where.bucket).get("Contents", []) == []  # nothing written
    assert nothing_written(where.out)
