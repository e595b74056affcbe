"""Tuning decisions, each checked against numbers worked out by hand below.

Defaults: gpu_memory_utilization 0.90, KV reserve 20%  =>  weights may use
0.72 x GPU memory per GPU. S3 at 90 MB/s per connection, 80% of the NIC;
burst ("up to") NICs planned at a quarter. Fixed phases: start 25 s, cold
compile 60 s, CUDA graphs 20 s, KV + server 15 s  =  120 s besides the load.
"""

import math

import pytest

from fastload_constructs.core.catalog import GIB
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.tuning import TuningOptions, compile_cache_key, plan

LLAMA_8B = ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16")  # 16,060,522,496 B
LLAMA_70B = ModelProfile.from_numbers(parameter_count=70_600_000_000, dtype="BF16")  # 141.2e9 B, 131.5 GiB
LLAMA_405B_FP8 = ModelProfile.from_numbers(parameter_count=405_000_000_000, dtype="F8_E4M3")  # 377.2 GiB


def test_8b_on_g5_xlarge():
    p = plan(LLAMA_8B, "g5.xlarge")
    # 14.96 GiB <= 24 x 0.72 = 17.28 GiB on one A10G -> TP 1.
    assert p.tensor_parallel_size == 1 and p.streamer.distributed is False
    # NIC share 10 Gbps x 125 x 0.8 = 1000 MB/s -> ceil(1000/90) = 12; CPU cap 4 x 4 vCPU = 16.
    assert p.streamer.concurrency == 12
    # 16 GiB RAM x 0.5 = 8 GiB < 16.06 GB read.
    assert p.streamer.memory_limit_bytes == 8 * GIB
    # Sustained 2.5 Gbps x 125 x 0.8 = 250 MB/s -> 16.06e9 / 250e6 = 64.24 s.
    assert p.predicted.weight_load_s == pytest.approx(16_060_522_496 / 250e6)  # 64.24 s
    # Total 184.24 s x 2 = 368.48 s, under the 600 s floor -> 60 probes of 10 s.
    assert p.predicted.total_s == pytest.approx(120 + 16_060_522_496 / 250e6)
    assert (p.startup_probe.period_seconds, p.startup_probe.failure_threshold) == (10, 60)
    # A larger safety factor lifts it above the floor: 184.24 x 5 = 921.2 -> 922 s -> 93 probes.
    cautious = plan(LLAMA_8B, "g5.xlarge", TuningOptions(probe_safety_factor=5))
    assert cautious.startup_probe.failure_threshold == 93
    assert p.shm_bytes == 2 * GIB
    assert p.pod_cpu == 3  # floor(4 x 0.9)
    # 16 GiB less max(3 GiB, 1.6 GiB) kept for the kernel, kubelet and DaemonSets.
    assert p.pod_memory_bytes == 13 * GIB


def test_8b_on_g6e_2xlarge():
    p = plan(LLAMA_8B, "g6e.2xlarge")
    assert p.tensor_parallel_size == 1
    # 20 Gbps x 125 x 0.8 = 2000 MB/s -> ceil(22.2) = 23; CPU cap 32.
    assert p.streamer.concurrency == 23
    # 64 GiB x 0.5 = 32 GiB > 16.06 GB read -> the bytes read.
    assert p.streamer.memory_limit_bytes == 16_060_522_496
    # Sustained 5 Gbps -> 500 MB/s -> 32.12 s; total 152.12 x 2 = 304 s -> the 600 s floor.
    assert p.predicted.weight_load_s == pytest.approx(16_060_522_496 / 500e6)  # 32.12 s
    assert p.startup_probe.failure_threshold == 60


def test_70b_on_g6e_12xlarge_takes_tp4_and_distributed_streaming():
    p = plan(LLAMA_70B, "g6e.12xlarge")
    # Per GPU: TP1 131.5, TP2 65.8, TP4 32.9 GiB; only TP4 <= 48 x 0.72 = 34.56 GiB.
    assert p.tensor_parallel_size == 4 and p.gpus_per_pod == 4
    assert p.streamer.distributed is True
    # NIC 100 Gbps -> 10000 MB/s over 4 processes = 2500 -> ceil(27.8) = 28; CPU cap 4 x 12 = 48.
    assert p.streamer.concurrency == 28
    # Budget 384 GiB x 0.5 / 4 = 48 GiB; each rank reads 141.2e9 / 4 = 35.3e9 B.
    assert p.streamer.memory_limit_bytes == 35_300_000_000
    # min(NIC 10000, 28 x 4 x 90 = 10080, PCIe 48000) = 10000 MB/s -> 14.12 s.
    assert p.predicted.weight_load_s == pytest.approx(14.12)
    # 134.12 x 2 = 268.24 < the 600 s floor -> 60 probes.
    assert p.startup_probe.failure_threshold == 60
    assert p.shm_bytes == 8 * GIB  # 2 GiB x 4 ranks
    # A whole node: 384 GiB less 10% (38.4 GiB).
    assert p.pod_memory_bytes == int(384 * GIB * 0.9)
    # The distributed streamer divides the configured limit by the 4 ranks on the node,
    # so the configured value is 4 x 35.3e9 for each rank to get 35.3e9.
    assert p.streamer.configured_memory_limit_bytes == 141_200_000_000
    assert p.streamer.loader_extra_config() == {"concurrency": 28, "memory_limit": 141_200_000_000, "distributed": True}


def test_70b_on_g5_48xlarge_needs_all_eight_gpus():
    p = plan(LLAMA_70B, "g5.48xlarge")
    # 131.5 / 4 = 32.9 > 17.28 GiB; 131.5 / 8 = 16.4 <= 17.28 -> TP 8.
    assert p.tensor_parallel_size == 8
    # 10000 MB/s / 8 = 1250 -> ceil(13.9) = 14.
    assert p.streamer.concurrency == 14
    # 768 GiB x 0.5 / 8 = 48 GiB; reads 141.2e9 / 8 = 17.65e9.
    assert p.streamer.memory_limit_bytes == 17_650_000_000


def test_70b_does_not_fit_a_g6e_xlarge():
    with pytest.raises(FastloadConfigError) as err:
        plan(LLAMA_70B, "g6e.xlarge")
    assert err.value.field == "model.total_bytes"
    assert "34.6 GiB" in str(err.value) and "g6e.xlarge" in str(err.value)


def test_405b_fp8_needs_tp8_on_p5_and_tp4_on_p5e():
    # 377.2 GiB: / 4 = 94.3 > 57.6 (H100 80 x 0.72), / 8 = 47.1 -> TP 8 on p5.
    assert plan(LLAMA_405B_FP8, "p5.48xlarge").tensor_parallel_size == 8
    # H200 141 x 0.72 = 101.5 >= 94.3 -> TP 4 on p5e.
    assert plan(LLAMA_405B_FP8, "p5e.48xlarge").tensor_parallel_size == 4


def test_405b_fp8_misfits_p4d():
    # 8 x 40 x 0.72 = 230.4 GiB < 377.2 GiB.
    with pytest.raises(FastloadConfigError, match=r"at most 230\.4 GiB"):
        plan(LLAMA_405B_FP8, "p4d.24xlarge")


def test_8b_on_p5_is_capped_by_connections_not_the_nic():
    p = plan(LLAMA_8B, "p5.48xlarge")
    # 3200 Gbps x 125 x 0.8 / 8 = 40000 MB/s -> 445 wanted, capped at 64.
    assert p.streamer.concurrency == 64
    # min(320000, 64 x 90 = 5760, 12000) = 5760 MB/s -> 16.06e9 / 5.76e9 = 2.788 s.
    assert p.predicted.weight_load_s == pytest.approx(16_060_522_496 / 5.76e9)
    assert p.predicted.dominant_phase == "compile"


def test_local_nvme_source_on_g6e_48xlarge():
    p = plan(LLAMA_70B, "g6e.48xlarge", TuningOptions(source="local"))
    assert p.tensor_parallel_size == 4
    # max(16, ceil(16 x 4 NVMe / 8 processes)) = 16.
    assert p.streamer.concurrency == 16
    # 4 NVMe x 2000 MB/s = 8000 < PCIe 48000 -> 141.2e9 / 8e9 = 17.65 s.
    assert p.predicted.weight_load_s == pytest.approx(17.65)


def test_without_distributed_streaming_every_rank_reads_everything():
    p = plan(LLAMA_70B, "g6e.12xlarge", TuningOptions(distributed=False))
    assert p.streamer.distributed is False
    assert "distributed" not in p.streamer.loader_extra_config()
    # Not distributed: every rank reads the variable as its own limit.
    assert p.streamer.loader_extra_config()["memory_limit"] == 48 * GIB
    # 4 x 141.2e9 / 10000 MB/s = 56.48 s; buffer = min(48 GiB, 141.2e9) = 48 GiB.
    assert p.predicted.weight_load_s == pytest.approx(56.48)
    assert p.streamer.memory_limit_bytes == 48 * GIB


def test_warm_compile_cache_shortens_the_prediction():
    cold = plan(LLAMA_8B, "g6e.2xlarge")
    warm = plan(LLAMA_8B, "g6e.2xlarge", TuningOptions(compile_cache_warm=True))
    assert cold.predicted.total_s - warm.predicted.total_s == pytest.approx(60 - 8)


def test_user_tensor_parallel_is_validated():
    with pytest.raises(FastloadConfigError) as err:
        plan(LLAMA_8B, "g6e.12xlarge", TuningOptions(tensor_parallel_size=3))
    assert err.value.field == "tensor_parallel_size" and "1, 2, 4" in str(err.value)
    with pytest.raises(FastloadConfigError, match="at least 4"):
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
        (TuningOptions(gpu_memory_utilization=0), "gpu_memory_utilization"),
        (TuningOptions(gpu_memory_utilization=1.5), "gpu_memory_utilization"),
        (TuningOptions(concurrency=0), "concurrency"),
        (TuningOptions(source="nfs"), "source"),  # type: ignore[arg-type]
        (TuningOptions(probe_safety_factor=0.5), "probe_safety_factor"),
        (TuningOptions(memory_limit_bytes=-1), "memory_limit_bytes"),
        (TuningOptions(kv_cache_reserve_fraction=1.0), "kv_cache_reserve_fraction"),
    ],
)
def test_bad_options_name_their_field(options, field):
    with pytest.raises(FastloadConfigError) as err:
        plan(LLAMA_8B, "g6e.2xlarge", options)
    assert err.value.field == field


def test_probe_budget_always_covers_the_prediction():
    for instance in ("g5.xlarge", "g6.12xlarge", "g6e.48xlarge", "p4de.24xlarge", "p5en.48xlarge"):
        p = plan(LLAMA_8B, instance)
        assert p.startup_probe.budget_seconds >= math.ceil(p.predicted.total_s * 2)


def test_compile_cache_key_changes_with_every_factor():
    base = dict(vllm_version="v0.11.0", model_uri="s3://b/m", tensor_parallel_size=1, gpu_model="L40S")
    key = compile_cache_key(**base)
    assert key == compile_cache_key(**base) and len(key) == 16
    for change in (
        {"vllm_version": "v0.11.1"},
        {"model_uri": "s3://b/n"},
        {"tensor_parallel_size": 2},
        {"gpu_model": "A10G"},
    ):
        assert compile_cache_key(**{**base, **change}) != key
    assert compile_cache_key(**base, extra={"max_model_len": "8192"}) != key
    with pytest.raises(FastloadConfigError, match="vllm_version"):
        compile_cache_key(**{**base, "vllm_version": ""})
