"""Tuning decisions, each checked against numbers worked out by hand below.

Defaults: gpu_memory_utilization 0.90; without an architecture 15% of that is kept for KV cache
=> weights may use 0.765 x GPU memory (the EC2 API's MiB: A10G/L4 22,888, L40S 45,776). S3: 120 MB/s
per streamer concurrency unit (an AWS CRT client), 65% of the pod's NIC, the burst for 300 s on
"up to" sizes; +1.5 s of vLLM model set-up. Fixed phases: start 25 s, KV + server 8 s.
"""

import math

import pytest

from fastload_constructs.core.catalog import GIB, MIB, lookup
from fastload_constructs.core.engines.vllm.phases import VllmFigures
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelArchitecture, ModelProfile, estimated_layers
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.phases import _transfer_seconds
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.serving.cache_sharing import compile_cache_key

LLAMA_8B = ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16")  # 16,060,522,496 B
LLAMA_70B = ModelProfile.from_numbers(parameter_count=70_600_000_000, dtype="BF16")  # 141.2e9 B, 131.5 GiB
LLAMA_405B_FP8 = ModelProfile.from_numbers(parameter_count=405_000_000_000, dtype="F8_E4M3")  # 377.2 GiB
# meta-llama/Llama-3.1-8B-Instruct config.json
LLAMA_31_8B_CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "max_position_embeddings": 131072,
    "model_type": "llama",
}
LLAMA_31_8B = LLAMA_8B.with_architecture(ModelArchitecture.from_config(LLAMA_31_8B_CONFIG))
BYTES_8B = 16_060_522_496


def test_8b_on_g5_xlarge():
    p = plan(LLAMA_8B, "g5.xlarge")
    # 14.96 GiB <= 22,888 MiB x 0.765 = 17.1 GiB on one A10G -> TP 1.
    assert p.tensor_parallel_size == 1 and p.streamer.distributed is False
    # Burst 10 Gbps x 125 x 0.65 = 812.5 MB/s -> ceil(812.5 / 120) = 7 units.
    assert p.streamer.concurrency == 7
    # 16 GiB RAM x 0.5 = 8 GiB < 16.06 GB read.
    assert p.streamer.memory_limit_bytes == 8 * GIB
    # min(7 x 120 = 840, 812.5, PCIe 12000) = 812.5 MB/s for 19.8 s (inside the 300 s burst) + 1.5 s.
    assert p.predicted.load_throughput_mb_s == pytest.approx(BYTES_8B / (BYTES_8B / 812.5e6) / 1e6)
    assert p.predicted.weight_load_s == pytest.approx(1.5 + BYTES_8B / 812.5e6)
    assert (p.startup_probe.period_seconds, p.startup_probe.failure_threshold) == (10, 60)
    assert p.shm_bytes == 2 * GIB
    assert p.pod_cpu == 3  # floor(4 x 0.9)
    assert p.pod_memory_bytes == 13 * GIB  # 16 GiB less max(3 GiB, 1.6 GiB)


def test_one_gpu_pod_gets_the_whole_nic_of_a_multi_gpu_node():
    # The old rule split g5.12xlarge's NIC over its 4 GPUs even for a lone 1-GPU pod.
    p = plan(LLAMA_8B, "g5.12xlarge")
    # 40 Gbps x 125 x 0.65 = 3250 MB/s -> ceil(27.1) = 28 units for the one process.
    assert p.streamer.concurrency == 28
    # min(28 x 120 = 3360, 3250) = 3250 MB/s -> 4.94 s + 1.5 (the streamer's own sweep: 4.88 s at 32).
    assert p.predicted.weight_load_s == pytest.approx(1.5 + BYTES_8B / 3250e6)


def test_concurrency_limits_the_stream_when_set_low():
    # Published sweep, g5.12xlarge: concurrency 4 -> 28.24 s. Modelled: 4 x 120 = 480 MB/s.
    p = plan(LLAMA_8B, "g5.12xlarge", TuningOptions(concurrency=4))
    assert p.predicted.load_throughput_mb_s == pytest.approx(480)
    assert p.predicted.weight_load_s == pytest.approx(1.5 + BYTES_8B / 480e6)


def test_burst_lasts_the_window_then_the_baseline():
    # 1e9 B at 2 MB/s bursting for 300 s moves 0.6e9; the remaining 0.4e9 at the 1 MB/s baseline takes 400 s.
    assert _transfer_seconds(1e9, 2.0, 1.0, 300) == pytest.approx(700)
    assert _transfer_seconds(0.5e9, 2.0, 1.0, 300) == pytest.approx(250)


def test_network_figures_are_the_published_baselines():
    assert lookup("g6e.xlarge").network_baseline_gbps == 2.5
    assert lookup("g6e.xlarge").network_burst_gbps == 20
    assert lookup("g4dn.xlarge").sustained_network_gbps == 5
    assert lookup("g7e.2xlarge").network_burst is False and lookup("g7e.2xlarge").network_gbps == 50
    # p5's 3200 Gbps are EFA over 32 cards: one pod's S3 stream gets card 0's 100 Gbps.
    p5 = lookup("p5.48xlarge")
    assert p5.network_gbps == 3200 and p5.pod_network_gbps == 100


def test_gpu_memory_is_the_api_figure():
    assert lookup("g5.xlarge").gpu_memory_bytes == 22888 * MIB
    assert lookup("g6.xlarge").gpu_memory_mib == 22888
    assert lookup("g6e.xlarge").gpu_memory_mib == 45776
    assert lookup("p5.48xlarge").instance_store_gb == 8 * 3800


def test_70b_on_g6e_12xlarge_takes_tp4_and_distributed_streaming():
    p = plan(LLAMA_70B, "g6e.12xlarge")
    # Per GPU: TP2 65.8, TP4 32.9 GiB; 45,776 MiB x 0.765 = 34.2 GiB -> TP 4.
    assert p.tensor_parallel_size == 4 and p.streamer.distributed is True
    # 100 Gbps x 125 x 0.65 = 8125 MB/s over 4 processes = 2031 -> ceil(16.9) = 17 units each.
    assert p.streamer.concurrency == 17
    # Budget 384 GiB x 0.5 / 4 = 48 GiB; each rank reads 141.2e9 / 4 = 35.3e9 B.
    assert p.streamer.memory_limit_bytes == 35_300_000_000
    assert p.streamer.configured_memory_limit_bytes == 141_200_000_000
    # min(17 x 4 x 120 = 8160, 8125, PCIe 48000) = 8125 MB/s -> 17.38 s + 1.5.
    assert p.predicted.weight_load_s == pytest.approx(1.5 + 141.2e9 / 8125e6)
    assert p.shm_bytes == 8 * GIB
    assert p.pod_memory_bytes == int(384 * GIB * 0.9)


def test_without_distributed_streaming_every_rank_reads_everything():
    p = plan(LLAMA_70B, "g6e.12xlarge", TuningOptions(distributed=False))
    assert "distributed" not in p.streamer.loader_extra_config()
    assert p.streamer.loader_extra_config()["memory_limit"] == 48 * GIB
    # The node moves 4 x 141.2e9 B at 8125 MB/s.
    assert p.predicted.weight_load_s == pytest.approx(1.5 + 4 * 141.2e9 / 8125e6)


def test_405b_fp8_needs_tp8_on_p5_and_tp4_on_p5e():
    # 377.2 GiB: / 4 = 94.3 > 61.2 (81,920 MiB x 0.765), / 8 = 47.1 -> TP 8 on p5.
    assert plan(LLAMA_405B_FP8, "p5.48xlarge").tensor_parallel_size == 8
    # 144,384 MiB x 0.765 = 107.9 GiB >= 94.3 -> TP 4 on p5e.
    assert plan(LLAMA_405B_FP8, "p5e.48xlarge").tensor_parallel_size == 4


def test_misfit_without_architecture_names_what_would_fit():
    with pytest.raises(FastloadConfigError) as err:
        plan(LLAMA_405B_FP8, "p4d.24xlarge")
    # Named as the size was given: its parameters (a profile from bytes names model.total_bytes).
    assert err.value.field == "model.parameter_count" and err.value.value == LLAMA_405B_FP8.parameter_count
    message = str(err.value)
    # 377.2 / 8 = 47.1 GiB > 40,960 MiB x 0.765 = 30.6 GiB; the 80 GB A100 sibling is the smallest that holds it.
    assert "47.1 GiB weights per GPU > 30.6 GiB" in message
    assert "instance type p4de.24xlarge (TP 8)" in message


def test_kv_fit_refuses_a_full_128k_context_on_an_a10g():
    # 8B fits a g5.xlarge by weights, but one 131,072-token sequence needs 2 x 32 layers x 8 KV heads
    # x 128 x 2 B = 131,072 B/token -> 16 GiB; 22,888 MiB x 0.9 = 20.1 GiB - 15.0 - 2.5 leaves 2.6 GiB.
    with pytest.raises(FastloadConfigError) as err:
        plan(LLAMA_31_8B, "g5.xlarge")
    assert err.value.field == "max_model_len" and err.value.value == 131072
    message = str(err.value)
    assert "16.0 GiB KV for 1 x 131072 tokens > 20.1 GiB per GPU" in message
    # 2.6 GiB / 128 KiB = 21,8xx tokens -> rounded down to 256s.
    assert "max_model_len <= 21760 (TP 1)" in message
    assert "FP8 weights and KV cache (TP 1)" in message
    assert "instance type g6e.xlarge (TP 1)" in message


def test_kv_fit_with_max_model_len_and_concurrency():
    p = plan(LLAMA_31_8B, "g5.xlarge", TuningOptions(max_model_len=8192, kv_sequences=2))
    assert p.kv_fit is not None and p.kv_fit.fits
    assert p.kv_fit.kv_needed_bytes == 131072 * 8192 * 2  # 2 GiB
    assert p.max_model_len == 8192
    # On an L40S the full context fits: 45,776 MiB x 0.9 = 40.2 GiB - 15.0 - 2.5 = 22.8 GiB >= 16 GiB.
    roomy = plan(LLAMA_31_8B, "g6e.2xlarge")
    assert roomy.kv_fit is not None and roomy.kv_fit.max_tokens > 131072
    assert roomy.max_model_len is None  # vLLM's default, not passed


def test_max_model_len_cannot_exceed_the_models_context():
    with pytest.raises(FastloadConfigError) as err:
        plan(LLAMA_31_8B, "g6e.2xlarge", TuningOptions(max_model_len=200_000))
    assert err.value.field == "max_model_len" and "131072" in str(err.value)


def test_kv_fit_drives_the_tp_choice():
    # Four 128k sequences need 64 GiB of KV on one L4: TP 2 halves KV heads and weights per rank.
    tight = plan(LLAMA_31_8B, "g6.12xlarge", TuningOptions(max_model_len=32768, kv_sequences=4))
    assert tight.tensor_parallel_size == 2
    assert tight.kv_fit is not None and tight.kv_fit.kv_bytes_per_token == 65536


def test_kv_cache_dtype_fp8_halves_the_kv_need():
    p = plan(LLAMA_31_8B, "g5.xlarge", TuningOptions(max_model_len=32768, kv_cache_dtype="fp8"))
    assert p.kv_fit is not None and p.kv_fit.kv_bytes_per_token == 65536


F = VllmFigures()
L40S_GB_S = 864.0  # the L40S's memory bandwidth (core/catalog.py)


def _capture(graphs: int, layers: int = 32, weight_bytes: float = 16.06e9) -> float:
    return F.cuda_graph_fixed_s + graphs * (F.cuda_graph_s_per_graph_layer * layers + weight_bytes / (L40S_GB_S * 1e9))


def test_capture_sizes_shorten_cuda_graph_capture():
    default = plan(LLAMA_31_8B, "g6e.2xlarge", TuningOptions(max_model_len=8192))
    short = plan(LLAMA_31_8B, "g6e.2xlarge", TuningOptions(max_model_len=8192, cudagraph_capture_sizes=(1, 2, 4, 8)))
    # fixed + graphs x (per graph-layer x 32 layers + the weights read once at the L40S's bandwidth):
    # default 51 piecewise + 35 full decode graphs; 1, 2, 4, 8 -> 4 + 4 graphs.
    assert default.predicted.cuda_graph_s == pytest.approx(_capture(51 + 35), rel=1e-3)
    assert short.predicted.cuda_graph_s == pytest.approx(_capture(4 + 4), rel=1e-3)
    assert short.predicted.cuda_graph_s < default.predicted.cuda_graph_s / 2
    # v0 releases capture one full-model graph per size: 35 sizes (V0's max_num_seqs 256), times V0's factor.
    v0 = plan(
        LLAMA_31_8B, "g6e.2xlarge", TuningOptions(max_model_len=8192, serving=Serving(image="vllm/vllm-openai:v0.5.5"))
    )
    assert v0.predicted.cuda_graph_s == pytest.approx(_capture(35) * F.cuda_graph_v0_factor, rel=1e-3)
    assert short.cudagraph_capture_sizes == (1, 2, 4, 8)
    none = plan(LLAMA_31_8B, "g6e.2xlarge", TuningOptions(max_model_len=8192, cudagraph_capture_sizes=()))
    assert none.predicted.cuda_graph_s == 0


def test_compile_scales_with_layers_tp_and_release():
    cold = plan(LLAMA_31_8B, "g6e.2xlarge", TuningOptions(max_model_len=8192))
    assert cold.predicted.compile_s == pytest.approx(F.compile_cold_fixed_s)
    # A miss: every TP rank compiles at once on the host's CPUs.
    tp4 = plan(LLAMA_70B, "g6e.12xlarge", TuningOptions(tensor_parallel_size=4))
    assert tp4.predicted.compile_s == pytest.approx(F.compile_cold_fixed_s * 4**F.compile_cold_tp_exponent)
    warm = plan(LLAMA_31_8B, "g6e.2xlarge", TuningOptions(max_model_len=8192, compile_cache_warm=True))
    # 0.34 loads the AOT artefact on a hit: Dynamo does not run again.
    assert warm.predicted.compile_s == pytest.approx(F.compile_warm_aot_s)
    v1 = plan(
        LLAMA_31_8B,
        "g6e.2xlarge",
        TuningOptions(max_model_len=8192, compile_cache_warm=True, serving=Serving(image="vllm/vllm-openai:v0.9.2")),
    )
    # Before AOT, a hit runs Dynamo again per layer and loads the artefact.
    assert v1.predicted.compile_s == pytest.approx(F.compile_warm_fixed_s + 32 * F.compile_warm_s_per_layer)
    v0 = plan(
        LLAMA_31_8B, "g6e.2xlarge", TuningOptions(max_model_len=8192, serving=Serving(image="vllm/vllm-openai:v0.5.5"))
    )
    assert v0.predicted.compile_s == 0
    # Without config.json, layers come from the parameter count: 16 x 8.03 ^ 0.33 = 31.9 -> 32.
    assert estimated_layers(LLAMA_8B) == 32 and estimated_layers(LLAMA_70B) == 65


def test_scale_out_paths_fresh_warm_and_spare():
    p = plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(serving=Serving(warm_spares=2)))
    paths = p.scale_out_paths
    assert paths is not None
    fresh, warm, spare, buffered, stopped = paths.as_tuple()
    assert (buffered.name, stopped.name) == ("buffered_node", "stopped_node")
    names = [n for n, _ in fresh.phases]
    assert names[:3] == ["node_launch", "gpu_registration", "image_pull"]
    a = LoadAssumptions()
    # The default node: Bottlerocket restoring the image from a Fast Snapshot Restore snapshot.
    assert fresh.seconds("image_pull") == pytest.approx(a.snapshot_image_s)
    # AL2023 pulling from the registry: 11.6e9 B at image_pull_mb_s, FastImagePull's speed-up on it.
    al2023 = Serving(ami_family="al2023", fast_image_pull=True)
    soci = plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(serving=al2023)).scale_out_paths
    assert soci is not None
    assert soci.fresh_node.seconds("image_pull") == pytest.approx(
        11.6e9 / (a.image_pull_mb_s * 1e6 * a.fast_image_pull_speedup)
    )
    plain = Serving(ami_family="al2023", pull_mode="plain")
    slow_pull = plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(serving=plain)).scale_out_paths
    assert slow_pull is not None and slow_pull.fresh_node.seconds("image_pull") == pytest.approx(
        11.6e9 / (a.image_pull_mb_s * 1e6)
    )
    assert fresh.seconds("compile") == pytest.approx(p.predicted.compile_s)  # cold: no shared cache
    assert warm.seconds("compile") == pytest.approx(F.compile_warm_aot_s)  # the node kept its compile cache
    assert warm.seconds("weight_load") == pytest.approx(p.predicted.weight_load_s)  # S3 again
    # Without the node-local cache or the shared compile cache a spare warms only the image: S3, cold compile.
    assert spare.seconds("weight_load") == pytest.approx(p.predicted.weight_load_s)
    assert spare.seconds("compile") == pytest.approx(p.predicted.compile_s)
    assert fresh.total_s > warm.total_s
    assert paths.spare_gpu_hours_per_day == 2 * 1 * 24


def test_node_local_cache_and_shared_compile_cache_change_the_paths():
    p = plan(
        LLAMA_8B, "g6e.2xlarge", TuningOptions(serving=Serving(model_cache="node-local", shared_compile_cache=True))
    )
    paths = p.scale_out_paths
    assert paths is not None
    assert "model_copy" in [n for n, _ in paths.fresh_node.phases]
    assert paths.fresh_node.seconds("compile") == pytest.approx(F.compile_warm_aot_s)
    # The spare copied the model to NVMe: 16.06e9 B / 2000 MB/s + 1.5 s.
    assert paths.warm_spare.seconds("weight_load") == pytest.approx(1.5 + BYTES_8B / 2000e6)
    assert paths.warm_node.seconds("weight_load") == pytest.approx(paths.warm_spare.seconds("weight_load"))


def test_calibrated_throughput_replaces_the_model():
    a = LoadAssumptions(measured_throughput_mb_s=(("g6e.2xlarge", "s3", 500.0),))
    p = plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(assumptions=a))
    assert p.predicted.load_throughput_mb_s == 500.0
    assert p.predicted.weight_load_s == pytest.approx(1.5 + BYTES_8B / 500e6)
    other = plan(LLAMA_8B, "g5.xlarge", TuningOptions(assumptions=a))
    assert other.predicted.load_throughput_mb_s != 500.0


def test_local_reads_are_limited_by_streamer_threads():
    # 2 threads x 350 MB/s = 700 MB/s < one NVMe at 2000 MB/s.
    p = plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(serving=Serving(model_cache="node-local"), concurrency=2))
    assert p.predicted.load_throughput_mb_s == pytest.approx(700)


def test_local_nvme_source_on_g6e_48xlarge():
    p = plan(LLAMA_70B, "g6e.48xlarge", TuningOptions(serving=Serving(model_cache="node-local")))
    assert p.tensor_parallel_size == 4
    # ceil(16 x 4 NVMe / 4 processes) = 16.
    assert p.streamer.concurrency == 16
    # 4 NVMe x 2000 MB/s = 8000 < PCIe 48000 -> 141.2e9 / 8e9 = 17.65 s + 1.5.
    assert p.predicted.weight_load_s == pytest.approx(1.5 + 17.65)


def test_user_tensor_parallel_is_validated():
    with pytest.raises(FastloadConfigError) as err:
        plan(LLAMA_8B, "g6e.12xlarge", TuningOptions(tensor_parallel_size=3))
    assert err.value.field == "tensor_parallel_size" and "1, 2, 4" in str(err.value)
    with pytest.raises(FastloadConfigError, match="tensor_parallel_size 4"):
        plan(LLAMA_70B, "g6e.12xlarge", TuningOptions(tensor_parallel_size=2))
    assert plan(LLAMA_8B, "g6e.12xlarge", TuningOptions(tensor_parallel_size=2)).tensor_parallel_size == 2


def test_tp_must_divide_a_two_gpu_instance():
    with pytest.raises(FastloadConfigError, match=r"2 GPUs: 1, 2$"):
        plan(LLAMA_8B, "g7e.12xlarge", TuningOptions(tensor_parallel_size=4))


def test_memory_limit_respects_the_largest_tensor():
    profile = ModelProfile(total_bytes=10 * GIB, dtype="BF16", largest_tensor_bytes=2 * GIB)
    with pytest.raises(FastloadConfigError) as err:
        plan(profile, "g6e.2xlarge", TuningOptions(memory_limit_bytes=1024**2))
    assert err.value.field == "memory_limit_bytes" and str(2 * GIB) in str(err.value)
    ok = plan(profile, "g6e.2xlarge", TuningOptions(memory_limit_bytes=4 * GIB))
    assert ok.streamer.memory_limit_bytes == 4 * GIB


@pytest.mark.parametrize(
    "options, field",
    [
        (dict(gpu_memory_utilization=0), "gpu_memory_utilization"),
        (dict(gpu_memory_utilization=1.5), "gpu_memory_utilization"),
        (dict(gpu_memory_utilization=float("nan")), "gpu_memory_utilization"),
        (dict(concurrency=0), "concurrency"),
        (dict(probe_safety_factor=0.5), "probe_safety_factor"),
        (dict(probe_safety_factor="2"), "probe_safety_factor"),
        (dict(memory_limit_bytes=-1), "memory_limit_bytes"),
        (dict(kv_cache_reserve_fraction=1.0), "kv_cache_reserve_fraction"),
        (dict(max_model_len=0), "max_model_len"),
        (dict(kv_sequences=0), "kv_sequences"),
        (dict(cudagraph_capture_sizes=(8, 4)), "cudagraph_capture_sizes"),
        (dict(cudagraph_capture_sizes=(0,)), "cudagraph_capture_sizes"),
        (dict(kv_cache_dtype="int4"), "kv_cache_dtype"),
        (dict(tensor_parallel_size=0), "tensor_parallel_size"),
        (dict(distributed="yes"), "distributed"),
        (dict(compile_cache_warm=1), "compile_cache_warm"),
        (dict(assumptions={"process_start_s": 1.0}), "assumptions"),
        (dict(serving={"engine": "vllm"}), "serving"),
    ],
)
def test_bad_options_cannot_be_built_and_name_their_field(options, field):
    """Options check themselves when built: an invalid TuningOptions never reaches the planner."""
    with pytest.raises(FastloadConfigError) as err:
        TuningOptions(**options)
    assert err.value.field == field


def test_options_take_what_a_user_types_in_another_case_and_keep_the_declared_value():
    options = TuningOptions(kv_cache_dtype="FP8", cudagraph_capture_sizes=[1, 2, 4], serving=Serving(engine="vLLM"))
    assert options.kv_cache_dtype == "fp8" and options.cudagraph_capture_sizes == (1, 2, 4)
    assert options.serving.engine == "vllm"
    lazy = Serving(engine="SGLang", pull_mode="Lazy", fast_image_pull=False, ami_family="AL2023", image_restore="Rate")
    assert (lazy.engine, lazy.pull_mode, lazy.ami_family, lazy.image_restore) == ("sglang", "lazy", "al2023", "rate")
    assert ModelProfile.from_numbers(parameter_count=8_000_000_000, dtype="bf16").dtype == "BF16"


def test_plan_refuses_what_is_not_its_input_in_one_line():
    with pytest.raises(FastloadConfigError) as err:
        plan(LLAMA_8B, "g6e.2xlarge", Serving(warm_spares=1))  # type: ignore[arg-type]
    assert err.value.field == "options" and "TuningOptions(serving=Serving(...))" in err.value.accepted
    with pytest.raises(FastloadConfigError) as err:
        plan({"parameter_count": 8e9}, "g6e.2xlarge")  # type: ignore[arg-type]
    assert err.value.field == "model"


@pytest.mark.parametrize(
    "serving, field",
    [
        (dict(image="vllm/vllm-openai:latest"), "image"),
        (dict(image="registry.example/vllm:nightly"), "serving.engine_release"),  # the tag names no release
        (dict(image="vllm/vllm-openai:v0.8.5", engine_release="0.9.0"), "serving.engine_release"),  # contradicts it
        (dict(model_cache="nfs"), "serving.model_cache"),
        (dict(warm_spares=-1), "serving.warm_spares"),
        (dict(warm_spares=10**12), "serving.warm_spares"),
        (dict(shared_compile_cache="yes"), "serving.shared_compile_cache"),
    ],
)
def test_bad_serving_choices_name_their_field(serving, field):
    with pytest.raises(FastloadConfigError) as err:
        Serving(**serving)
    assert err.value.field == field


def test_the_plan_is_made_for_the_images_vllm_release_and_records_how_it_is_served():
    """The issue's case: an image of v0.8.5 is planned as 0.8.5 (compile, graphs, probe), not the default."""
    old = plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(serving=Serving(image="vllm/vllm-openai:v0.8.5")))
    new = plan(LLAMA_8B, "g6e.2xlarge")
    assert (old.engine_version, new.engine_version) == ("0.8.5", "0.34.0")
    assert old.predicted.cuda_graph_s != new.predicted.cuda_graph_s  # 67 piecewise sizes vs 51 + full graphs
    warm = TuningOptions(compile_cache_warm=True, serving=Serving(image="vllm/vllm-openai:v0.8.5"))
    # A v1 cache hit: the artifact loads and Dynamo runs again (VllmFigures).
    warm_s = F.compile_warm_fixed_s + 32 * F.compile_warm_s_per_layer
    assert plan(LLAMA_8B, "g6e.2xlarge", warm).predicted.compile_s == pytest.approx(warm_s)
    digest = "vllm/vllm-openai@sha256:" + "a" * 64
    digested = TuningOptions(serving=Serving(image=digest, engine_release="0.11.0"))
    assert plan(LLAMA_8B, "g6e.2xlarge", digested).engine_version == "0.11.0"
    spares = plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(serving=Serving(warm_spares=3, shared_compile_cache=True)))
    assert spares.serving.warm_spares == 3 and spares.scale_out_paths.warm_spares == 3
    assert spares.scale_out_paths.spare_gpu_hours_per_day == 3 * 24
    local = plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(serving=Serving(model_cache="node-local")))
    assert local.source == "local" and local.streamer.concurrency == 16  # tuned for the NVMe copy it reads


def test_probe_budget_always_covers_the_prediction():
    for instance in ("g5.xlarge", "g6.12xlarge", "g6e.48xlarge", "p4de.24xlarge", "p5en.48xlarge"):
        p = plan(LLAMA_8B, instance)
        assert p.startup_probe.budget_seconds >= math.ceil(p.predicted.total_s * 2)


def test_compile_cache_key_changes_with_every_factor():
    base = dict(image_tag="v0.11.0", model_uri="s3://b/m", tensor_parallel_size=1, gpu_model="L40S")
    key = compile_cache_key(**base)
    assert key == compile_cache_key(**base) and len(key) == 16
    for change in (
        {"image_tag": "v0.11.1"},
        {"model_uri": "s3://b/n"},
        {"tensor_parallel_size": 2},
        {"gpu_model": "A10G"},
    ):
        assert compile_cache_key(**{**base, **change}) != key
    assert compile_cache_key(**base, extra={"max_model_len": "8192"}) != key
    with pytest.raises(FastloadConfigError, match="image_tag"):
        compile_cache_key(**{**base, "image_tag": ""})
