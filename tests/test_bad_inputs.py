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
from fastload_constructs.core.catalog import GIB, lookup
from fastload_constructs.core.cluster.karpenter import NodePoolOptions
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile, ShardInfo
from fastload_constructs.core.naming import SERVER_PRIORITY_CLASS
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.s3_uri import parse_s3_uri
from fastload_constructs.core.scaling.autoscaling import Autoscaling
from fastload_constructs.core.scaling.capacity import Workload, node_capacity
from fastload_constructs.core.serving.server_pod import ServerOptions, server_spec
from fastload_constructs.core.serving.warm_spares import priority_classes
from fastload_constructs.core.validation import check_bucket_name
from fastload_constructs.infra.gpu_nodegroup import GpuNodeGroup
from fastload_constructs.infra.image_mirror import EcrPullThroughCache
from fastload_constructs.infra.inference_cluster import InferenceCluster
from fastload_constructs.infra.karpenter import KarpenterController, KarpenterGpuNodes
from fastload_constructs.infra.model_bucket import ModelBucket
from fastload_constructs.infra.network import FastloadNetwork
from fastload_constructs.infra.scale_out_metrics import ScaleOutMetrics
from fastload_constructs.infra.served_model import ServedModel
from fastload_constructs.k8s.local_storage import LocalNvmeStorage
from tests.hf_model_factory import write_hf_model
from tests.imported_subnets import scraper_subnets

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


def metric_context(**model_changes: Any) -> dict:
    """The context with another scaling metric: targetWaitingRequests belongs to the queue metric only."""
    ctx = context(**model_changes)
    del ctx["fastload:models"][0]["targetWaitingRequests"]
    return ctx


def app_in(where: Where) -> cdk.Stack:
    return cdk.Stack(cdk.App(outdir=str(where.out)), "Stack")


def gpu_nodes(where: Where, **kwargs: Any) -> GpuNodeGroup:
    stack = app_in(where)
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="c")
    return GpuNodeGroup(stack, "Gpu", cluster=cluster, **kwargs)


def karpenter_nodes(where: Where, **kwargs: Any) -> KarpenterGpuNodes:
    stack = app_in(where)
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="c")
    return KarpenterGpuNodes(stack, "Gpu", cluster=cluster, instance_types=["g6e"], **kwargs)


def karpenter_controller(where: Where, literal_name: bool = False, **kwargs: Any) -> KarpenterController:
    stack = app_in(where)
    # A token by default: unusable in condition keys.
    name = "c" if literal_name else cdk.CfnParameter(stack, "ClusterName").value_as_string
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name=name)
    role = cdk.aws_iam.Role.from_role_name(stack, "Node", "node")
    return KarpenterController(stack, "Karpenter", cluster=cluster, node_role=role, **kwargs)


def scale_out_metrics(where: Where, **kwargs: Any) -> ScaleOutMetrics:
    stack = app_in(where)
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="c")
    args = {"scraper_subnets": scraper_subnets(stack), "security_group_ids": ["sg-1"], "cluster_label": "c"} | kwargs
    return ScaleOutMetrics(stack, "Metrics", cluster=cluster, **args)


def bucket(where: Where, **kwargs: Any) -> ModelBucket:
    stack = app_in(where)
    endpoint = ec2.GatewayVpcEndpoint.from_gateway_vpc_endpoint_id(stack, "S3", "vpce-0123456789abcdef0")
    return ModelBucket(stack, "Models", vpc_endpoint=endpoint, **kwargs)


def warm_spares(where: Where, instance_type: str, spares: int, **server: Any) -> Any:
    """The placeholders of an 8B model on `instance_type`, rendered into a cdk8s App writing to `where.out`."""
    import cdk8s

    from fastload_constructs.k8s.warm_spares import WarmSparesChart

    serving = plan(MODEL_8B, instance_type, TuningOptions(serving=Serving(warm_spares=spares)))
    store = lookup(instance_type).has_instance_store
    options = ServerOptions(
        **{
            "priority_class_name": SERVER_PRIORITY_CLASS,
            "compile_cache": "host-path" if store else "empty-dir",
            **server,
        }
    )
    spec = server_spec(
        serving, model_name="llama", model_uri="s3://models-bucket/llama", region="us-east-1", options=options
    )
    return WarmSparesChart(cdk8s.App(outdir=str(where.out)), "spares", plan=serving, server=spec)


def image_mirror_on_plain_network(where: Where) -> EcrPullThroughCache:
    stack = app_in(where)
    secret = cdk.aws_secretsmanager.Secret.from_secret_complete_arn(
        stack, "Hub", "arn:aws:secretsmanager:us-east-1:123456789012:secret:ecr-pullthroughcache/hub-AbCdEf"
    )
    network = FastloadNetwork(stack, "Network", max_azs=2)
    return EcrPullThroughCache(stack, "Mirror", credential_secret=secret, network=network)


def served_model(where: Where, **kwargs: Any) -> ServedModel:
    stack = app_in(where)
    cluster = eks.Cluster.from_cluster_attributes(stack, "Cluster", cluster_name="c")
    models = cdk.aws_s3.Bucket.from_bucket_name(stack, "Models", "models")
    return ServedModel(stack, "Llama", cluster=cluster, bucket=models, prefix="models/l", model_name="l", **kwargs)


def served_model_on_eks_v1(where: Where) -> ServedModel:
    """aws_eks (v1) clusters are not supported: one clear error, not a jsii traceback at apply time."""
    stack = app_in(where)
    cluster = cdk.aws_eks.Cluster.from_cluster_attributes(stack, "V1", cluster_name="c")
    models = cdk.aws_s3.Bucket.from_bucket_name(stack, "Models", "models")
    return ServedModel(
        stack,
        "Llama",
        cluster=cluster,
        bucket=models,
        prefix="models/l",
        model_name="l",
        plan=plan(MODEL_8B, "g6e.2xlarge"),
    )


def big_tensor_model() -> ModelProfile:
    shard = ShardInfo("model.safetensors", 16 * GIB, 10, 8 * GIB, 2 * GIB, {"BF16": 16 * GIB})
    return ModelProfile.from_shards([shard])


# (row id, call, field the error names). Each call must raise FastloadConfigError.
API_ROWS: list[tuple[str, Callable[[Where], Any], str]] = [
    ("plan-unknown-instance-type", lambda w: plan(MODEL_8B, "g6e.99xlarge"), "instance_type"),
    (
        "plan-model-too-big",
        lambda w: plan(ModelProfile.from_numbers(parameter_count=405_000_000_000), "g6e.xlarge"),
        "model.parameter_count",
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
        "fastload:models[0].parameterCount",
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
        "app-unknown-fastload-key",
        lambda w: build_app({**context(), "fastload:model": "[]"}, str(w.out)),
        "fastload:model",
    ),
    (
        "app-json-text-not-json",
        lambda w: build_app({**context(), "fastload:adminRoleArns": '["arn:aws:iam::1:role/x"'}, str(w.out)),
        "fastload:adminRoleArns",
    ),
    (
        "app-extra-args-second-tp",
        lambda w: build_app(context(extraArgs=["--tensor-parallel-size=2"]), str(w.out)),
        "fastload:models[0].extraArgs[0]",
    ),
    (
        "app-image-latest",
        lambda w: build_app(context(image="vllm/vllm-openai:latest"), str(w.out)),
        "fastload:models[0].image",
    ),
    (
        "app-engine-unknown",
        lambda w: build_app(context(engine="tgi"), str(w.out)),
        "fastload:models[0].engine",
    ),
    (
        "app-sglang-extra-args-tp-prefix",
        lambda w: build_app(context(engine="sglang", extraArgs=["--tp", "2"]), str(w.out)),
        "fastload:models[0].extraArgs[0]",
    ),
    (
        "serving-engine-unknown",
        lambda w: Serving(engine="tgi"),  # type: ignore[arg-type]
        "serving.engine",
    ),
    (
        "app-image-without-a-release-tag",
        lambda w: build_app(context(image="acme/vllm:prod"), str(w.out)),
        "fastload:models[0].engineRelease",
    ),
    (
        "app-engine-release-contradicting-the-tag",
        lambda w: build_app(context(image="vllm/vllm-openai:v0.8.5", engineRelease="0.9.0"), str(w.out)),
        "fastload:models[0].engineRelease",
    ),
    (
        # The key's former name is still read, and an error names the key the file has.
        "app-vllm-version-contradicting-the-tag",
        lambda w: build_app(context(image="vllm/vllm-openai:v0.8.5", vllmVersion="0.9.0"), str(w.out)),
        "fastload:models[0].vllmVersion",
    ),
    (
        "app-engine-release-and-its-former-name",
        lambda w: build_app(context(image="acme/vllm:prod", engineRelease="0.9.0", vllmVersion="0.9.0"), str(w.out)),
        "fastload:models[0].vllmVersion",
    ),
    (
        "app-ami-alias-undated",
        lambda w: build_app({**context(), "fastload:amiAlias": "al2023@prod"}, str(w.out)),
        "fastload:amiAlias",
    ),
    ("server-options-zero-replicas", lambda w: ServerOptions(replicas=0), "replicas"),
    # `true` from JSON or YAML is not one replica.
    ("karpenter-replicas-true", lambda w: karpenter_controller(w, literal_name=True, replicas=True), "replicas"),
    (
        "node-pool-options-capacity-block",
        lambda w: NodePoolOptions(capacity_types=("capacity-block",)),
        "capacity_types",
    ),
    ("served-model-without-plan", lambda w: served_model(w), "profile"),
    (
        # The Serving given where its TuningOptions belongs: one line naming the prop, not an AttributeError.
        "served-model-tuning-without-its-options",
        lambda w: served_model(w, profile=MODEL_8B, instance_type="g6e.2xlarge", tuning=Serving(warm_spares=1)),
        "tuning",
    ),
    ("served-model-without-kubectl-provider", lambda w: served_model(w, plan=plan(MODEL_8B, "g6e.2xlarge")), "cluster"),
    ("served-model-on-an-eks-v1-cluster", lambda w: served_model_on_eks_v1(w), "cluster"),
    ("server-options-do-not-disrupt-text", lambda w: ServerOptions(do_not_disrupt="true"), "do_not_disrupt"),
    ("serving-negative-warm-spares", lambda w: Serving(warm_spares=-1), "serving.warm_spares"),
    ("serving-a-trillion-warm-spares", lambda w: Serving(warm_spares=10**12), "serving.warm_spares"),
    ("serving-negative-standbys", lambda w: Serving(standbys=-1), "serving.standbys"),
    ("serving-standbys-and-warm-spares", lambda w: Serving(standbys=1, warm_spares=1), "serving.standbys"),
    ("serving-latest-image", lambda w: Serving(image="vllm/vllm-openai:latest"), "image"),
    ("serving-untagged-release", lambda w: Serving(image="acme/vllm:prod"), "serving.engine_release"),
    (
        "served-model-spares-under-another-class",
        lambda w: served_model(
            w,
            plan=plan(MODEL_8B, "g6e.2xlarge", TuningOptions(serving=Serving(warm_spares=1))),
            server=ServerOptions(priority_class_name="batch-low"),
        ),
        "server.priority_class_name",
    ),
    (
        "served-model-access-as-a-dict",
        lambda w: served_model(w, plan=plan(MODEL_8B, "g6e.2xlarge"), access={"allow_from_cidrs": ["10.0.0.0/16"]}),
        "access",
    ),
    (
        "served-model-autoscaling-as-bounds",
        lambda w: served_model(w, plan=plan(MODEL_8B, "g6e.2xlarge"), autoscaling=Autoscaling(1, 3)),
        "autoscaling",
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
    # Scale-out settings.
    (
        "app-min-replicas-above-max",
        lambda w: build_app(context(minReplicas=3, maxReplicas=2), str(w.out)),
        "fastload:models[0].maxReplicas",
    ),
    (
        "app-min-replicas-zero",
        lambda w: build_app(context(minReplicas=0), str(w.out)),
        "fastload:models[0].minReplicas",
    ),
    (
        "app-target-waiting-requests-zero",
        lambda w: build_app(context(targetWaitingRequests=0), str(w.out)),
        "fastload:models[0].targetWaitingRequests",
    ),
    (
        "app-kv-cache-target-above-one",
        lambda w: build_app(metric_context(scalingMetric="kv_cache_usage", scalingTarget=80), str(w.out)),
        "fastload:models[0].scalingTarget",
    ),
    (
        "app-unknown-scaling-metric",
        lambda w: build_app(metric_context(scalingMetric="gpu_util", scalingTarget=1), str(w.out)),
        "fastload:models[0].scalingMetric",
    ),
    (
        "app-replicas-and-min-replicas",
        lambda w: build_app(context(replicas=2), str(w.out)),
        "fastload:models[0].minReplicas",
    ),
    (
        "app-target-waiting-requests-with-another-metric",
        lambda w: build_app(context(scalingMetric="num_requests_running", scalingTarget=8), str(w.out)),
        "fastload:models[0].targetWaitingRequests",
    ),
    (
        "app-image-cache-not-a-snapshot",
        lambda w: build_app({**context(), "fastload:imageCacheSnapshotId": "ami-0123456789abcdef0"}, str(w.out)),
        "fastload:imageCacheSnapshotId",
    ),
    (
        "app-unknown-gpu-nodes-mode",
        lambda w: build_app({**context(), "fastload:gpuNodes": "fargate"}, str(w.out)),
        "fastload:gpuNodes",
    ),
    (
        "karpenter-reserved-without-reservation",
        lambda w: karpenter_nodes(w, options=NodePoolOptions(capacity_types=("reserved",))),
        "capacity_reservation_ids",
    ),
    (
        "karpenter-bad-reservation-id",
        lambda w: karpenter_nodes(
            w, options=NodePoolOptions(capacity_types=("reserved",), capacity_reservation_ids=("cr-123",))
        ),
        "capacity_reservation_ids",
    ),
    (
        "karpenter-gpu-limit-for-unlisted-family",
        lambda w: karpenter_nodes(w, options=NodePoolOptions(gpu_limits={"p5": 8})),
        "gpu_limits",
    ),
    ("karpenter-controller-unnamed-cluster", lambda w: karpenter_controller(w), "cluster_name"),
    ("scale-out-metrics-no-subnets", lambda w: scale_out_metrics(w, scraper_subnets=[]), "scraper_subnets"),
    (
        "scale-out-metrics-one-zone",
        lambda w: scale_out_metrics(w, scraper_subnets=scraper_subnets(app_in(w), zones=("us-east-1a",) * 2)),
        "scraper_subnets",
    ),
    (
        "scale-out-metrics-ids",
        lambda w: scale_out_metrics(w, scraper_subnets=["subnet-1", "subnet-2"]),
        "scraper_subnets",
    ),
    ("cluster-bad-name", lambda w: InferenceCluster(app_in(w), "Cluster", cluster_name="my cluster"), "cluster_name"),
    (
        "capacity-tp-not-a-divisor",
        lambda w: node_capacity([Workload("m", "g6e.12xlarge", 3, 1, 2)]),
        "m.tensorParallelSize",
    ),
    (
        "app-negative-warm-spares",
        lambda w: build_app(context(warmSpares=-1), str(w.out)),
        "fastload:models[0].warmSpares",
    ),
    (
        "app-a-trillion-warm-spares",
        lambda w: build_app(context(warmSpares=10**12), str(w.out)),
        "fastload:models[0].warmSpares",
    ),
    ("warm-spares-negative", lambda w: warm_spares(w, "g6e.2xlarge", -1), "serving.warm_spares"),
    ("warm-spares-over-the-bound", lambda w: warm_spares(w, "g6e.2xlarge", 1001), "serving.warm_spares"),
    ("warm-spares-without-instance-store", lambda w: warm_spares(w, "p3.8xlarge", 1), "serving.warm_spares"),
    (
        "warm-spares-vllm-pods-under-another-class",
        lambda w: warm_spares(w, "g6e.2xlarge", 1, priority_class_name="batch-low"),
        "priority_class_name",
    ),
    ("warm-spares-class-not-below-default", lambda w: priority_classes(spare_value=0), "spare_priority"),
    (
        "app-image-mirror-docker-hub-without-credentials",
        lambda w: build_app({**context(), "fastload:vllmImageMirror": {"upstream": "docker-hub"}}, str(w.out)),
        "fastload:vllmImageMirror.credentialSecretArn",
    ),
    (
        "image-mirror-docker-hub-without-credentials",
        lambda w: EcrPullThroughCache(app_in(w), "Mirror"),
        "credential_secret",
    ),
    (
        "image-mirror-network-without-ecr-endpoints",
        lambda w: image_mirror_on_plain_network(w),
        "network",
    ),
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
        # The option typed, never the library's field (instance_type, tensor_parallel_size, model.total_bytes).
        "plan-unknown-instance": (["plan", "--instance", "g6e.99xlarge", "--params", "8e9"], "--instance"),
        "plan-tp-mismatch": (["plan", "--instance", "g6e.12xlarge", "--params", "8e9", "--tp", "3"], "--tp"),
        "plan-model-too-big": (["plan", "--instance", "g6e.xlarge", "--params", "405e9"], "--params"),
        "plan-unknown-engine": (
            ["plan", "--instance", "g6e.2xlarge", "--params", "8e9", "--engine", "tgi"],
            "--engine",
        ),
        "stage-bad-bucket-uri": (["stage", str(w.model_dir), "s3://Bad_Bucket/m", *stage], "s3_uri.bucket"),
        "stage-parent-prefix": (["stage", str(w.model_dir), f"s3://{w.bucket}/a/../b", *stage], "s3_uri.prefix"),
        "stage-concurrency-0": (
            ["stage", str(w.model_dir), f"s3://{w.bucket}/m", "--concurrency", "0", *stage],
            "--concurrency",
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


@pytest.mark.parametrize(
    "flag, typed",
    [
        ("--params", "1e400"),
        ("--params", "8.5"),
        ("--image-gb", "1e999"),
        ("--image-gb", "-3"),
        ("--max-num-seqs", "1e3"),
    ],
)
def test_cli_quotes_a_refused_number_as_typed(flag, typed, capsys):
    # `1e400` reads as inf and `-3` as -3.0; the message names what the user wrote, not what it parsed to.
    argv = ["plan", "--instance", "g6e.2xlarge", "--params", "8e9", flag, typed]
    assert main(argv) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"fastload: {flag}: got {typed!r}; accepted: "), line
