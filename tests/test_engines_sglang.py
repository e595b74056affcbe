"""core/engines/sglang: SGLang as the second engine, from its phases to the pod and chart its launch feeds.

The figures are core/engines/sglang/phases.py's (each cited there); these tests hold the plan to them and
the rates to the public logs they came from. Flags, variables and paths are SGLang 0.5.23's
(core/engines/sglang/launch.py cites each); these tests hold what the pod runs to those decisions, and
check that the vLLM pod the same chart renders is unchanged by them.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import cdk8s
import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.core.engines.sglang import SGLANG
from fastload_constructs.core.engines.sglang import phases as sglang_phases
from fastload_constructs.core.engines.sglang.phases import SglangFigures
from fastload_constructs.core.engines.vllm.phases import VllmFigures
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile, estimated_layers
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.scaling.autoscaling import Autoscaling, check_autoscaling
from fastload_constructs.core.scaling.metrics import alert_rules, scaling_query
from fastload_constructs.core.serving.cache_sharing import MODEL_URI_PLACEHOLDER
from fastload_constructs.core.serving.server_pod import ServerOptions, server_spec
from fastload_constructs.k8s.server_chart import ServerChart
from fastload_constructs.runtime import compile_cache, warm_check
from tests.serving_plans import planned

LLAMA_8B = ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16")
A = SglangFigures()


def test_the_capture_rate_reproduces_the_sglang_logs_it_came_from():
    # PR 13666 (v0.5.5): Olmo 3 32B, 64 layers, 52 sizes, 37.99 s; sgl-project/sglang#4257 (v0.4.3): 14B Qwen2,
    # 48 layers, 23 sizes, 9.41 s. The geometric-mean rate puts each within 20%.
    for sizes, layers, measured in ((52, 64, 37.99), (23, 48, 9.41)):
        assert sizes * layers * A.cuda_graph_s_per_size_layer == pytest.approx(measured, rel=0.2)


def test_sglang_phases_replace_vllms_but_the_stream_is_the_same():
    vllm = plan(LLAMA_8B, "g6e.2xlarge")
    sglang = planned(LLAMA_8B, "g6e.2xlarge", engine="sglang")
    assert sglang.engine == "sglang" and sglang.streamer.concurrency == vllm.streamer.concurrency
    # SGLang streams s3:// distributed by default, even at TP 1; vLLM's plan does so only with TP > 1.
    assert (sglang.streamer.distributed, vllm.streamer.distributed) == (True, False)
    p, v = sglang.predicted, vllm.predicted
    assert p.load_throughput_mb_s == v.load_throughput_mb_s
    # The same transfer; SGLang's 3.5 s of model construction instead of vLLM's 1.5 s.
    assert p.weight_load_s - v.weight_load_s == pytest.approx(A.weight_load_fixed_s - VllmFigures().weight_load_fixed_s)
    layers = estimated_layers(LLAMA_8B)
    assert layers == 32
    assert p.cuda_graph_s == pytest.approx(1.0 + 52 * 32 * 0.0099)
    assert (p.process_start_s, p.compile_s, p.kv_and_server_s) == (25.0, 0.0, 5.0)
    assert sglang.startup_probe.budget_seconds >= 2 * p.total_s
    assert any(note.startswith("SGLang 0.5.23: torch.compile off") for note in sglang.assumptions)


def test_torch_compile_is_costed_only_when_enabled_and_halved_on_a_cache_hit():
    # An SGLang knob: the options are built for SGLang (with another engine they cannot be built at all).
    sglang = Serving(engine="sglang")
    cold = planned(LLAMA_8B, "g6e.2xlarge", TuningOptions(sglang_torch_compile=True, serving=sglang), engine="sglang")
    warm = planned(
        LLAMA_8B,
        "g6e.2xlarge",
        TuningOptions(sglang_torch_compile=True, compile_cache_warm=True, serving=sglang),
        engine="sglang",
    )
    assert cold.predicted.compile_s == pytest.approx(4.4 * 32)
    assert warm.predicted.compile_s == pytest.approx(cold.predicted.compile_s / 2)
    paths = cold.scale_out_paths
    assert paths is not None
    # A repeat on a node that kept its compile cache: warm. A spare restores none without the shared cache,
    # and a fresh node neither: cold there.
    assert paths.warm_node.seconds("compile") == pytest.approx(warm.predicted.compile_s)
    assert paths.warm_spare.seconds("compile") == pytest.approx(cold.predicted.compile_s)
    shared = planned(
        LLAMA_8B,
        "g6e.2xlarge",
        TuningOptions(sglang_torch_compile=True, serving=sglang),
        engine="sglang",
        shared_compile_cache=True,
    ).scale_out_paths
    assert shared is not None and shared.warm_spare.seconds("compile") == pytest.approx(warm.predicted.compile_s)
    assert paths.fresh_node.seconds("compile") == pytest.approx(cold.predicted.compile_s)
    assert paths.fresh_node.seconds("cuda_graph") == pytest.approx(cold.predicted.cuda_graph_s)


def test_torch_compile_for_vllm_is_refused():
    with pytest.raises(FastloadConfigError) as err:
        plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(sglang_torch_compile=True))
    assert err.value.field == "sglang_torch_compile"


def test_sglang_figures_are_all_positive_and_documented():
    source = Path(sglang_phases.__file__).read_text(encoding="utf-8")
    for f in dataclasses.fields(SglangFigures):
        assert getattr(A, f.name) > 0, f.name
    # Every figure's comment names its source (a PR, an issue or the post).
    assert source.count("sglang PR") + source.count("sgl-project/sglang#") >= 6 and "fergusfinn.com" in source


def test_fastload_plan_engine_sglang(capsys):
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", "--engine", "sglang", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    assert view["engine"] == "sglang" and view["vllm_version"] is None
    extra = view["model_loader_extra_config"]
    assert set(extra) == {"concurrency", "distributed", "memory_limit"} and extra["distributed"] is True
    assert view["predicted_seconds"]["cuda_graph"] == pytest.approx(1.0 + 52 * 32 * 0.0099, abs=0.1)
    assert main(["plan", "--instance", "g6e.2xlarge", "--params", "8.03e9", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["engine"] == "vllm"


URI = "s3://models-bucket/models/llama-8b"
LLAMA_8B_SERVED = ModelProfile.from_numbers(parameter_count=8_000_000_000, dtype="BF16", name="llama-8b")


def sglang_plan(instance: str = "g6e.2xlarge", serving: dict | None = None, **options):
    return planned(LLAMA_8B_SERVED, instance, TuningOptions(**options), engine="sglang", **(serving or {}))


def spec(p=None, **options):
    return server_spec(
        p or sglang_plan(), model_name="llama-8b", model_uri=URI, region="us-east-1", options=ServerOptions(**options)
    )


def arg(args, flag):
    return args[args.index(flag) + 1]


def test_the_command_line_is_sglang_launch_server_streaming_from_s3():
    p = sglang_plan()
    s = spec(p)
    assert s.command == ("python3", "-m", "sglang.launch_server")
    assert arg(s.args, "--model-path") == URI
    assert arg(s.args, "--load-format") == "runai_streamer"
    assert json.loads(arg(s.args, "--model-loader-extra-config")) == {
        "concurrency": p.streamer.concurrency,
        "memory_limit": p.streamer.configured_memory_limit_bytes,
        # SGLang's own default for an s3:// path, even at TP 1 (straight to the GPU), and always written.
        "distributed": True,
    }
    assert arg(s.args, "--tp-size") == "1" and "--tp" not in s.args
    assert arg(s.args, "--served-model-name") == "llama-8b"
    assert (arg(s.args, "--host"), arg(s.args, "--port")) == ("0.0.0.0", "30000")
    assert "--enable-metrics" in s.args
    assert "--context-length" not in s.args and "--enable-torch-compile" not in s.args
    # The plan's 0.90 less the 2.5 GiB the fit keeps for activations and graphs on L40S (45,776 MiB).
    assert float(arg(s.args, "--mem-fraction-static")) == pytest.approx(0.90 - 2.5 / (45_776 / 1024), abs=0.001)
    assert (s.engine, s.container_name, s.port, s.image) == ("sglang", "sglang", 30000, "lmsysorg/sglang:v0.5.23")
    assert s.labels["app.kubernetes.io/name"] == "sglang"


def test_tensor_parallel_plans_stream_distributed_and_the_plan_sets_context_and_compile():
    p = planned(
        ModelProfile.from_numbers(parameter_count=70_000_000_000, dtype="BF16"),
        "g6e.12xlarge",
        TuningOptions(max_model_len=8192, sglang_torch_compile=True, serving=Serving(engine="sglang")),
        engine="sglang",
    )
    s = spec(p)
    assert arg(s.args, "--tp-size") == str(p.tensor_parallel_size) == "4"
    assert json.loads(arg(s.args, "--model-loader-extra-config"))["distributed"] is True
    assert arg(s.args, "--context-length") == "8192"
    # From the node-local copy (not object storage) SGLang's default is off at TP 1: written as the plan says.
    local = sglang_plan(serving={"model_cache": "node-local"})
    assert json.loads(arg(spec(local).args, "--model-loader-extra-config"))["distributed"] is False
    assert "--enable-torch-compile" in s.args


def test_sglang_caches_live_on_the_compile_cache_volume_in_the_folder_the_cache_steps_carry():
    s = spec(compile_cache="host-path")
    assert s.cache_mount_path == "/var/cache/sglang"
    # The runtime restores, publishes and checks exactly this folder of the mount.
    assert s.env["SGLANG_CACHE_DIR"] == f"{s.cache_mount_path}/{compile_cache.COMPILE_SUBDIR}"
    assert warm_check.COMPILE_SUBDIR == compile_cache.COMPILE_SUBDIR
    assert s.env["SGLANG_JIT_CACHE_DIR"].startswith(s.env["SGLANG_CACHE_DIR"] + "/")
    assert s.env["HF_HUB_OFFLINE"] == "1"
    assert (
        s.env["RUNAI_STREAMER_CONCURRENCY"]
        == json.loads(arg(s.args, "--model-loader-extra-config"))["concurrency"].__str__()
    )


def test_the_cache_key_separates_engines_and_ignores_where_weights_come_from():
    vllm = server_spec(plan(LLAMA_8B_SERVED, "g6e.2xlarge"), model_name="llama-8b", model_uri=URI, region="us-east-1")
    sglang = spec()
    assert vllm.compile_cache_key != sglang.compile_cache_key
    more_streams = sglang_plan(concurrency=4)
    assert spec(more_streams).compile_cache_key == sglang.compile_cache_key
    # A different served configuration compiles differently.
    other = spec(extra_args=("--cuda-graph-max-bs-decode", "64"))
    assert other.compile_cache_key != sglang.compile_cache_key


def test_probes_wait_out_the_closed_port_then_use_ready_and_a_generating_health():
    p = sglang_plan()
    s = spec(p)
    assert s.startup_probe.path == "/ready"
    # The port is closed during the whole load: the startup budget is the plan's, covering it.
    assert s.startup_probe.budget_seconds >= p.predicted.total_s
    assert s.readiness_probe.path == "/ready"
    # /health generates a token and answers 503 itself after 20 s: the kubelet waits longer than that.
    assert s.liveness_probe.path == "/health" and s.liveness_probe.timeout_seconds > 20


@pytest.mark.parametrize(
    "extra",
    [
        ["--tp", "2"],  # an argparse prefix of --tp-size
        ["--tp-size=2"],
        ["--mem-fraction", "0.5"],
        ["--model", "s3://other/x"],
        ["--port", "8000"],
        ["--api-key", "secret"],
        ["--served_model_name", "x"],
        ["--enable-torch-compile"],
    ],
)
def test_extra_args_may_not_set_what_the_plan_sets(extra):
    with pytest.raises(FastloadConfigError) as err:
        spec(extra_args=tuple(extra))
    assert err.value.field == "extra_args[0]"


def test_extra_args_that_the_plan_does_not_own_pass():
    s = spec(extra_args=("--cuda-graph-max-bs-decode", "64", "--enable-metrics-for-all-schedulers"))
    assert s.args[-3:] == ("--cuda-graph-max-bs-decode", "64", "--enable-metrics-for-all-schedulers")


def test_what_sglang_is_not_mapped_for_is_refused_with_one_message():
    with pytest.raises(FastloadConfigError) as err:
        sglang_plan(cudagraph_capture_sizes=(1, 2, 4))
    assert err.value.field == "cudagraph_capture_sizes"
    with pytest.raises(FastloadConfigError) as err:
        sglang_plan(kv_cache_dtype="fp8")
    assert err.value.field == "kv_cache_dtype"
    with pytest.raises(FastloadConfigError) as err:
        Serving(engine="sglang", standbys=1)  # standby engines are vLLM's sleep mode
    assert err.value.field == "serving.standbys"
    with pytest.raises(FastloadConfigError) as err:
        planned(LLAMA_8B_SERVED, "g6e.2xlarge", engine="tgi")
    assert (err.value.field, err.value.value) == ("serving.engine", "tgi")


def test_an_explicit_image_is_kept_and_the_vllm_default_becomes_sglangs():
    derived = sglang_plan(serving={"image": "123456789012.dkr.ecr.us-east-1.amazonaws.com/sglang-s3:v0.5.23"})
    assert spec(derived).image.endswith("sglang-s3:v0.5.23") and derived.serving.engine_version == "0.5.23"
    assert spec().image == SGLANG.default_image == "lmsysorg/sglang:v0.5.23"


def render(p, **options):
    chart = ServerChart(
        cdk8s.Testing.app(),
        "sglang",
        plan=p,
        model_name="llama-8b",
        model_uri=URI,
        region="us-east-1",
        options=ServerOptions(**options),
    )
    return chart, {d["kind"]: d for d in cdk8s.Testing.synth(chart)}


def test_the_chart_renders_the_sglang_container_with_the_cache_mounted_and_its_port_served():
    p = sglang_plan()
    chart, docs = render(p)
    pod = docs["Deployment"]["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    assert container["name"] == "sglang"
    assert pod["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"] == "sglang"
    # The launcher hands SGLang the resolved revision's URI in place of --model-path's value.
    assert container["command"][:2] == ["/bin/sh", "-c"]
    assert container["args"][:3] == ["python3", "-m", "sglang.launch_server"]
    model = chart.spec.model_path
    assert [model if a == MODEL_URI_PLACEHOLDER else a for a in container["args"][3:]] == list(chart.spec.args)
    assert container["args"][container["args"].index("--model-path") + 1] == MODEL_URI_PLACEHOLDER
    assert {m["mountPath"] for m in container["volumeMounts"]} >= {"/var/cache/sglang", "/dev/shm"}
    assert container["ports"] == [{"containerPort": 30000, "name": "http"}]
    assert container["startupProbe"]["httpGet"] == {"path": "/ready", "port": 30000, "scheme": "HTTP"}
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["SGLANG_CACHE_DIR"] == "/var/cache/sglang/torch_compile_cache"
    assert docs["Service"]["spec"]["ports"][0]["port"] == 30000
    assert docs["NetworkPolicy"]["spec"]["ingress"][0]["ports"] == [{"port": 30000, "protocol": "TCP"}]
    assert chart.service_url.endswith(":30000")


def test_the_shared_cache_steps_restore_and_publish_sglangs_cache_root_and_wait_on_its_port():
    _, docs = render(sglang_plan(serving={"shared_compile_cache": True}))
    pod = docs["Deployment"]["spec"]["template"]["spec"]
    restore = next(c for c in pod["initContainers"] if c["name"] == "restore-compile-cache")
    publish = next(c for c in pod["containers"] if c["name"] == "publish-compile-cache")
    assert arg(restore["command"], "--cache-root") == "/var/cache/sglang"
    assert arg(publish["command"], "--wait-url") == "http://127.0.0.1:30000/health"


def test_an_api_key_is_refused_for_sglang():
    from fastload_constructs.core.serving.access import ServingAccess

    with pytest.raises(FastloadConfigError) as err:
        ServerChart(
            cdk8s.Testing.app(),
            "sglang",
            plan=sglang_plan(),
            model_name="llama-8b",
            model_uri=URI,
            region="us-east-1",
            access=ServingAccess(api_key_secret="llama-key"),
        )
    assert err.value.field == "access.api_key_secret"


def test_autoscaling_queries_the_engines_own_queue_and_alerts_on_it():
    sglang = check_autoscaling(Autoscaling(1, 4, 4.0, engine="sglang"))
    assert (
        scaling_query(sglang, server="llama-8b")
        == 'sum(sglang:num_queue_reqs{namespace="inference",server="llama-8b"})'
    )
    assert Autoscaling(1, 4, 0.8, "kv_cache_usage", engine="sglang").prometheus_metric == "sglang:token_usage"
    with pytest.raises(FastloadConfigError) as err:
        check_autoscaling(Autoscaling(1, 4, 4.0, engine="tgi"))
    assert err.value.field == "autoscaling.engine"
    rules = alert_rules({"a": "inference", "b": "inference"}, metrics={"b": "sglang:num_queue_reqs"})["groups"][0]
    exprs = [r["expr"] for r in rules["rules"] if r["alert"] == "FastloadScalingMetricMissing"]
    assert exprs == [
        'absent(vllm:num_requests_waiting{namespace="inference",server="a"})',
        'absent(sglang:num_queue_reqs{namespace="inference",server="b"})',
    ]


def test_the_deployment_records_an_sglang_plan_as_sglangs():
    from fastload_constructs.core.serving.plan_record import PLAN_ANNOTATION, SUMMARY_ANNOTATION, read_plan_record

    s = spec()
    record = read_plan_record(s.annotations)
    assert record is not None and (record.engine, record.vllm_version) == ("sglang", "0.5.23")
    assert s.annotations[SUMMARY_ANNOTATION].startswith("SGLang 0.5.23 on g6e.2xlarge")
    # A vLLM plan's record is unchanged: no engine key (absent means vLLM).
    vllm = server_spec(plan(LLAMA_8B_SERVED, "g6e.2xlarge"), model_name="m", model_uri=URI, region="us-east-1")
    assert '"engine"' not in vllm.annotations[PLAN_ANNOTATION]
