"""What an SGLang server container runs, decided from a plan: command, arguments, environment, probes.

The pod around it is the same as vLLM's (`core.serving.server_pod`); only the container differs:
`python3 -m sglang.launch_server` with the plan's streamer settings, tensor parallelism and memory,
SGLang's cache root on the compile-cache volume and probes on SGLang's own endpoints.

Every flag, variable and path below was read in SGLang's source at the pinned release, 0.5.23: the
PyPI wheel `sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl` (sha256 00b3cd5b265ac76c...d859937,
whose `sglang/` tree is the tag's `python/sglang/`; paths below are `python/sglang/...` and line
numbers the wheel's). The git commit of tag v0.5.23 is NOT recorded: the wheel's `_version.py`
has `__commit_id__ = None`; resolve it with `git ls-remote https://github.com/sgl-project/sglang
refs/tags/v0.5.23` before relying on a line number. Older SGLang releases spell several of these
differently (`--cuda-graph-max-bs`, no `/ready`, no SGLANG_CACHE_DIR redirect): pin 0.5.23 or check.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from fastload_constructs.core.engines.args import prefixed_variables, without_flags
from fastload_constructs.core.engines.base import HttpProbe, LaunchPlan, ProbeBudget, Probes, StreamerPlan
from fastload_constructs.core.errors import require

# The default image: tag scheme from SGLang's release workflow (`v{version}`, CUDA 13; `-cu129` for CUDA
# 12.9), built from the tag's docker/Dockerfile. That file installs "runai-model-streamer[s3,gcs,azure]"
# explicitly (since sgl-project/sglang#22537, 2026-04-14; read at main 8905cbd4 of 2026-07-20, not at the
# v0.5.23 tag), which brings runai-model-streamer-s3 and boto3: what the pods run (S3 streaming, the
# cache-sync init containers). The wheel's `all` extra alone would not (no `[s3]`). See docs/serving.md.
STOCK_REPOSITORY = "lmsysorg/sglang"
DEFAULT_RELEASE = "0.5.23"
# `python/sglang/launch_server.py` (prepare_server_args -> run_server). Not `sglang serve`: its backend
# detection asks the Hugging Face Hub for `model_index.json` of a non-local path (python/sglang/cli/utils.py:91), a
# pointless call for s3:// that stalls where the VPC has no internet egress.
SERVER_COMMAND = ("python3", "-m", "sglang.launch_server")
# --port default 30000 (srt/arg_groups/fields/serving.py:66); /metrics is served on it too.
SERVER_PORT = 30000
CONTAINER_NAME = "sglang"
# The compile-cache volume's mount. SGLang's cache root (SGLANG_CACHE_DIR) is its `torch_compile_cache/`
# folder: the one folder the cache-sync runtime restores and publishes through S3 and the warm check reads
# (runtime/compile_cache.py and runtime/warm_check.py COMPILE_SUBDIR), so the shared compile cache carries
# SGLang's whole cache: Triton, Inductor, CUDA JIT, FlashInfer JIT and autotune, DeepGEMM, sgl JIT kernels.
CACHE_MOUNT_PATH = "/var/cache/sglang"
COMPILE_SUBDIR = "torch_compile_cache"
# SGLANG_CACHE_DIR (srt/environ.py:1383, default ~/.cache/sglang): `sglang/__init__.py:9-14` calls
# redirect_third_party_caches(), which setdefaults TRITON_CACHE_DIR=<root>/triton, TORCHINDUCTOR_CACHE_DIR=
# <root>/inductor, CUDA_CACHE_PATH=<root>/nv, FLASHINFER_WORKSPACE_BASE=<root> (srt/environ.py:2308-2336);
# FlashInfer autotune results (<root>/flashinfer/autotune/..., srt/model_executor/runner/flashinfer_autotune.py
# :164-205), DeepGEMM (<root>/deep_gemm, environ.py:1373), the piecewise torch.compile cache
# (<root>/torch_compile_cache, srt/compilation/backend.py:407-423) and the streamer's copy of the
# config/tokenizer files (<root>/model_streamer/<sha256(uri)[:16]>, srt/utils/runai_utils.py:118-132)
# all live under it. Fixed on every replica: the autotune key hashes the model path, the streamer folder
# the URI, so neither may take a pod-specific value.
SGLANG_CACHE_DIR = f"{CACHE_MOUNT_PATH}/{COMPILE_SUBDIR}"
# SGLANG_JIT_CACHE_DIR (environ.py:1394-1397, default ~/.cache/sglang/jit) is NOT derived from
# SGLANG_CACHE_DIR; its leaves are keyed on compiler, package versions and flags and verify themselves
# (sglang/kernels/jit/utils/compile/cache.py:10-40), so sharing them is safe.
SGLANG_JIT_CACHE_DIR = f"{SGLANG_CACHE_DIR}/jit"
# SGLANG_HEALTH_CHECK_TIMEOUT default 20 s (environ.py:218): /health answers 503 itself after that.
HEALTH_CHECK_TIMEOUT_S = 20

# Flags the plan owns (each with its 0.5.23 field). SGLang parses with argparse without
# allow_abbrev=False (srt/server_args.py:679), so a unique prefix of a flag sets it too (`--tp` is
# `--tp-size`): a prefix of one of these is refused as well.
MANAGED_FLAGS = (
    "--model-path",  # fields/model.py:51
    "--model",  # its alias
    "--load-format",  # fields/model.py:58
    "--model-loader-extra-config",  # fields/model.py:98
    "--tp-size",  # fields/parallel.py:45-51
    "--tensor-parallel-size",
    "--pp-size",  # the pod asks for TP GPUs: pipeline or data parallelism would need more
    "--pipeline-parallel-size",
    "--dp-size",
    "--data-parallel-size",
    "--mem-fraction-static",  # fields/schedule.py:27
    "--served-model-name",  # fields/serving.py:168
    "--host",  # fields/serving.py:65
    "--port",  # fields/serving.py:66
    "--enable-metrics",  # fields/observability.py:70
    "--context-length",  # fields/model.py:110 (set by the plan's max_model_len)
    "--enable-torch-compile",  # fields/exec_.py:691 (set by the plan)
    # The plan sizes weights from the checkpoint's dtype; casting or quantising changes that memory.
    "--dtype",
    "--quantization",
    # Probes and the scraper reach /ready, /health and /metrics without a key (srt/utils/auth.py:93-104),
    # but a key on the command line would sit in the manifest in clear text.
    "--api-key",
)

# SGLang's (`--enable-metrics`), 0.5.23 python/sglang/srt/observability/metrics_collector.py: "The number of
# requests in the waiting queue" (:370-375), running requests (:364-369), KV pool usage ratio (:404-409).
# Only TP rank 0 records them (the sum over pods is the model's queue). Same keys as vLLM's, so cdk.json's
# scalingMetric means the same thing for either engine.
SCALING_METRICS: Mapping[str, str] = {
    "num_requests_waiting": "sglang:num_queue_reqs",
    "num_requests_running": "sglang:num_running_reqs",
    "kv_cache_usage": "sglang:token_usage",
}


def mem_fraction_static(plan: LaunchPlan) -> float:
    """`--mem-fraction-static`: SGLang's share of GPU memory for weights and the KV pool.

    vLLM's `gpu_memory_utilization` (the plan's) also covers activations and CUDA graphs; SGLang's static
    fraction leaves them out (it is the "weights + KV pool fraction", fields/schedule.py:27). So the plan's
    share less the runtime overhead the fit reserved for activations and graphs (the plan's
    `runtime_overhead_bytes`) gives the same KV pool the plan sized.
    """
    overhead = plan.runtime_overhead_bytes
    fraction = round(plan.gpu_memory_utilization - overhead / plan.instance.gpu_memory_bytes, 3)
    require(
        fraction >= 0.3,
        "gpu_memory_utilization",
        plan.gpu_memory_utilization,
        f"a share that leaves SGLang at least 0.3 of {plan.instance.name}'s GPU memory for weights and KV "
        f"after {overhead / 2**30:.1f} GiB of activations and CUDA graphs",
    )
    return fraction


def loader_extra_config(streamer: StreamerPlan) -> dict[str, object]:
    """`--model-loader-extra-config` for SGLang's RunaiModelStreamerLoader, keys in order.

    It accepts only `distributed`, `concurrency` and `memory_limit` and raises on any other key
    (srt/model_loader/loader.py:3963-3971); `concurrency` and `memory_limit` (bytes) become
    RUNAI_STREAMER_CONCURRENCY / _MEMORY_LIMIT (srt/model_loader/weight_utils.py:1701-1722).
    `distributed` is always written: SGLang turns it on by itself for an object-store path
    (loader.py:3997-3998), so leaving it out would not run what the plan decided.
    """
    return dict(sorted({**streamer.loader_extra_config(), "distributed": streamer.distributed}.items()))


def sglang_args(
    plan: LaunchPlan, *, model_path: str, served_model_name: str, extra_args: Sequence[str] = ()
) -> tuple[str, ...]:
    """The arguments after `python3 -m sglang.launch_server`; `extra_args` already checked against MANAGED_FLAGS.

    The model is a flag (`--model-path`, not positional). `--load-format runai_streamer` is implied for an
    s3:// path (srt/arg_groups/model_path_hook.py:189-194) but written anyway, and needed for the node-local
    copy. `--served-model-name` is set because its default is the model path (serving_hook.py:646), which
    would also become the metrics' `model_name` label. `--tp-size`, not `--tp` (no such flag in 0.5.23).
    `--host 0.0.0.0`: the default 127.0.0.1 is unreachable from the Service (fields/serving.py:65).
    `--enable-metrics` mounts /metrics on the server port (srt/utils/common.py:2843-2853).
    """
    tuned: list[str] = []
    if plan.max_model_len is not None:
        tuned += ["--context-length", str(plan.max_model_len)]
    if plan.sglang_torch_compile:
        tuned += ["--enable-torch-compile"]
    return (
        "--model-path",
        model_path,
        "--load-format",
        "runai_streamer",
        "--model-loader-extra-config",
        json.dumps(loader_extra_config(plan.streamer), separators=(",", ":"), sort_keys=True),
        "--served-model-name",
        served_model_name,
        "--tp-size",
        str(plan.tensor_parallel_size),
        "--host",
        "0.0.0.0",
        "--port",
        str(SERVER_PORT),
        "--mem-fraction-static",
        f"{mem_fraction_static(plan):g}",
        "--enable-metrics",
        *tuned,
        *extra_args,
    )


def sglang_env() -> dict[str, str]:
    """SGLang's own variables: its cache roots, and no Hub calls (the streamer's are the pod's).

    With an endpoint override, SGLang copies AWS_ENDPOINT_URL into RUNAI_STREAMER_S3_ENDPOINT itself when
    that is unset (weight_utils.py:1719-1722). HF_HUB_OFFLINE=1: an s3:// model needs nothing from the Hub.
    """
    return {
        "SGLANG_CACHE_DIR": SGLANG_CACHE_DIR,
        "SGLANG_JIT_CACHE_DIR": SGLANG_JIT_CACHE_DIR,
        "HF_HUB_OFFLINE": "1",
    }


def compile_factors(args: Sequence[str], env: Mapping[str, str]) -> dict[str, str]:
    """What besides version, model, TP and GPU can change SGLang's cached kernels and graphs.

    Every argument except the model path and the streamer's loader config (where weights come from, not
    what is compiled), every SGLANG_* variable except the two cache roots, and the engine itself, so an
    SGLang cache never lands in a vLLM folder of the same image tag and model.
    """
    kept = without_flags(args, ("--model-path", "--model-loader-extra-config"))
    engine_env = prefixed_variables(env, "SGLANG_", leaving_out=("SGLANG_CACHE_DIR", "SGLANG_JIT_CACHE_DIR"))
    return {"engine": "sglang", "args": json.dumps(kept), "sglang_env": json.dumps(engine_env)}


def probes(budget: ProbeBudget) -> Probes:
    """(startup, readiness, liveness) on SGLang 0.5.23's endpoints (srt/entrypoints/http_server.py).

    The port stays closed while weights load and graphs are captured: `launch_server` starts uvicorn only
    after the schedulers report ready (:3125-3185), so every startup probe fails until then and the plan's
    budget (period x failures) must cover the whole load. Startup and readiness: `/ready`, 200 only once
    the warmup request is done and the server is Up, 503 before (:714-718, tokenizer_manager.py:728-734);
    cheap, and exempt from an API key (srt/utils/auth.py:93-104). Liveness: `/health`, which by default
    generates one token (SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION true, environ.py:344; piggybacks on
    a busy server) and answers 503 itself after SGLANG_HEALTH_CHECK_TIMEOUT (20 s) without an answer
    (:721-798): the kubelet waits 5 s longer than that, every 30 s, three times, before a restart.
    """
    startup = HttpProbe("/ready", budget.period_seconds, budget.failure_threshold, 5)
    readiness = HttpProbe("/ready", 10, 3, 5)
    liveness = HttpProbe("/health", 30, 3, HEALTH_CHECK_TIMEOUT_S + 5)
    return startup, readiness, liveness
