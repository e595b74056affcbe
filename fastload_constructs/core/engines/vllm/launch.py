"""What a vLLM server container runs, decided from a plan: command, arguments, environment, probes.

Compile-cache stability: vLLM keys its torch.compile cache on its version, the model config, the model
path and every `VLLM_*` factor, so nothing in the arguments or environment below depends on the pod,
the node or the replica.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from fastload_constructs.core.engines.args import normalised_flag, prefixed_variables, without_flags
from fastload_constructs.core.engines.base import HttpProbe, LaunchPlan, ProbeBudget, Probes, StreamerPlan
from fastload_constructs.core.errors import require

# vLLM's OpenAI-compatible server image; its tag is the vLLM release the plan is made for, and part
# of the compile-cache key.
STOCK_REPOSITORY = "vllm/vllm-openai"
DEFAULT_RELEASE = "0.34.0"
SERVER_PORT = 8000
CONTAINER_NAME = "vllm"
# The image's entrypoint has changed between releases; naming the command pins how args are read.
SERVER_COMMAND = ("vllm", "serve")
# Where the compile-cache volume is mounted and what VLLM_CACHE_ROOT points to. It must be the
# same on every replica: with an s3:// model vLLM copies the config and tokenizer files to
# $VLLM_CACHE_ROOT/assets/model_streamer/<sha256(uri)[:8]> and uses that folder as the model
# path, which its compile-cache hash covers (vllm 0.34 config/model.py, runai_utils.py).
CACHE_MOUNT_PATH = "/var/cache/vllm"
# vLLM reads it as --api-key (vllm/entrypoints/openai/api_server.py: `args.api_key or envs.VLLM_API_KEY`).
API_KEY_ENV = "VLLM_API_KEY"

# Flags the plan owns; user `extra_args` may not set them a second time. The pipeline- and
# data-parallel sizes are refused too: the pod asks for TP GPUs, and PP or DP > 1 would need more
# (vLLM 0.34 vllm/engine/arg_utils.py: -tp, -pp, -dp are the short forms).
MANAGED_FLAGS = (
    "--model",
    "--load-format",
    "--model-loader-extra-config",
    "--tensor-parallel-size",
    "-tp",
    "--pipeline-parallel-size",
    "-pp",
    "--data-parallel-size",
    "-dp",
    "--gpu-memory-utilization",
    "--served-model-name",
    "--port",
    "--host",
    # The plan sizes weights from the checkpoint's dtype; casting or quantising changes that memory.
    "--dtype",
    "--quantization",
    "-q",
)

# vLLM's Prometheus metrics (vllm/v1/metrics/loggers.py, 0.34; docs "Production metrics").
# gpu_cache_usage_perc is the deprecated name of kv_cache_usage_perc.
SCALING_METRICS: Mapping[str, str] = {
    "num_requests_waiting": "vllm:num_requests_waiting",
    "num_requests_running": "vllm:num_requests_running",
    "kv_cache_usage": "vllm:kv_cache_usage_perc",
}


def loader_extra_config(streamer: StreamerPlan) -> dict[str, object]:
    """The `--model-loader-extra-config` vLLM takes: the plan's streamer settings as they are."""
    return streamer.loader_extra_config()


def loader_extra_config_json(streamer: StreamerPlan) -> str:
    """The `--model-loader-extra-config` value: the plan's streamer settings as compact JSON."""
    return json.dumps(loader_extra_config(streamer), separators=(",", ":"), sort_keys=True)


def capture_sizes_json(sizes: Sequence[int]) -> str:
    """The --compilation-config value that sets only the CUDA-graph capture sizes."""
    return json.dumps({"cudagraph_capture_sizes": list(sizes)}, separators=(",", ":"))


def _check_not_tuned(plan: LaunchPlan, extra_args: Sequence[str]) -> None:
    """Extra arguments may not set again what the plan's tuning sets."""
    for arg in extra_args:
        flag = normalised_flag(arg)
        require(
            not (flag == "--max-model-len" and plan.max_model_len is not None)
            and not (flag in ("--compilation-config", "-cc", "-O") and plan.cudagraph_capture_sizes is not None)
            and not (flag == "--kv-cache-dtype" and plan.kv_cache_dtype != "auto")
            and not (flag == "--max-num-seqs" and plan.max_num_seqs is not None),
            "extra_args",
            arg,
            "flags the plan does not set already (it sets --max-model-len / --compilation-config / --max-num-seqs "
            "from max_model_len / cudagraph_capture_sizes / max_num_seqs)",
        )


def vllm_args(
    plan: LaunchPlan, *, model_path: str, served_model_name: str, extra_args: Sequence[str] = ()
) -> tuple[str, ...]:
    """The vLLM server arguments (after `vllm serve`); `extra_args` already checked against MANAGED_FLAGS.

    The model is the positional argument: vLLM 0.34's `vllm serve` warns that `--model` is deprecated
    there and rewrites it to this form (vllm/utils/argparse_utils.py).
    """
    _check_not_tuned(plan, extra_args)
    tuned: list[str] = []
    if plan.max_model_len is not None:
        tuned += ["--max-model-len", str(plan.max_model_len)]
    if plan.cudagraph_capture_sizes is not None:
        # vLLM's CompilationConfig.cudagraph_capture_sizes, through --compilation-config (-cc) JSON: the
        # form every release since 0.6 parses (vllm/engine/arg_utils.py); newer ones also take
        # --cudagraph-capture-sizes.
        tuned += ["--compilation-config", capture_sizes_json(plan.cudagraph_capture_sizes)]
    if plan.max_num_seqs is not None:
        # The concurrency bound the plan's capture sizes follow (vLLM bounds its default list by it).
        tuned += ["--max-num-seqs", str(plan.max_num_seqs)]
    if plan.kv_cache_dtype != "auto":
        # The fit assumed a one-byte KV cache: vLLM must allocate it that way (--kv-cache-dtype fp8).
        tuned += ["--kv-cache-dtype", plan.kv_cache_dtype]
    return (
        model_path,
        "--load-format",
        "runai_streamer",
        "--model-loader-extra-config",
        loader_extra_config_json(plan.streamer),
        "--tensor-parallel-size",
        str(plan.tensor_parallel_size),
        "--gpu-memory-utilization",
        f"{plan.gpu_memory_utilization:g}",
        "--served-model-name",
        served_model_name,
        "--port",
        str(SERVER_PORT),
        *tuned,
        *extra_args,
    )


def vllm_env() -> dict[str, str]:
    """vLLM's own variables: VLLM_CACHE_ROOT on the compile-cache volume (the streamer's are the pod's)."""
    return {"VLLM_CACHE_ROOT": CACHE_MOUNT_PATH}


def compile_factors(args: Sequence[str], env: Mapping[str, str]) -> dict[str, str]:
    """What besides version, model, TP and GPU can change vLLM's compiled artifacts.

    Every server argument except the model path and the streamer's loader
    config (they change where weights come from, not what is compiled), and
    every VLLM_* variable except VLLM_CACHE_ROOT (excluded from vLLM's hash).
    """
    kept = without_flags(list(args)[1:], ("--model-loader-extra-config",))  # args[0] is the model path
    return {
        "args": json.dumps(kept),
        "vllm_env": json.dumps(prefixed_variables(env, "VLLM_", leaving_out=("VLLM_CACHE_ROOT",))),
    }


def probes(budget: ProbeBudget) -> Probes:
    """(startup, readiness, liveness).

    Startup: /health with the plan's budget. Readiness: /v1/models, answered
    only once the model is served. Liveness: /health, which Kubernetes runs only
    after the startup probe succeeded, allowed a minute of silence so a busy
    server is not restarted mid-batch.
    """
    startup = HttpProbe("/health", budget.period_seconds, budget.failure_threshold, 5)
    readiness = HttpProbe("/v1/models", 10, 3, 5)
    liveness = HttpProbe("/health", 10, 6, 10)
    return startup, readiness, liveness
