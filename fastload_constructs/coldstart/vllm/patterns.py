"""The vLLM log lines a cold-start report is built from, as regular expressions.

Each pattern names the vLLM source file and the releases whose format string it
was read from (the wheels of vLLM 0.6.6, 0.8.5, 0.9.2, 0.10.0, 0.10.1, 0.11.0 and
0.34.0, and runai-model-streamer 0.11.0, 0.14.0 and 0.17.1). Older spellings of
the same event share one `LineKind`, so a log from any of those releases parses
the same. `tests/fixtures/vllm_logs/real/` holds logs published by others that
these patterns are checked against.
"""

from __future__ import annotations

import re
from enum import Enum

from fastload_constructs.coldstart.streamer import STREAMER_SUMMARY

# Ray's log de-duplication suffix (ray/_private/ray_logging: "[repeated Nx across cluster]").
RAY_REPEATED = re.compile(r"\s*\[repeated (?P<times>\d+)x across cluster\]\s*$")

# Lines that say "this is vLLM" (engine detection, coldstart/parser.py): its logger and process names.
MARKERS = re.compile(r"\bvllm[./]|vLLM API server version|\(EngineCore|VllmWorker|\bvllm serve\b")

# A process prefix written by vLLM's stdout wrapper, innermost last when nested:
#   0.11.0 vllm/utils/__init__.py `_add_prefix`: "(APIServer pid=1) ", "(EngineCore_DP0 pid=7) ", "(Worker_TP1 pid=9) "
#   0.10.x: "(VllmWorker TP1 pid=9) "; 0.8.5 v1/executor/multiproc_executor.py: "(VllmWorker rank=1 pid=9) "
#   0.6.6 vllm/executor/multiproc_worker_utils.py: "(VllmWorkerProcess pid=9) "; Ray: "(RayWorkerWrapper pid=9, ip=10.0.0.2) "
_PREFIX = r"\((?P<process>[A-Za-z][\w.-]*(?: [\w=.-]+)?) pid=(?P<pid>\d+)(?:, ip=[\d.:a-f]+)?\)\s*"
PROCESS_PREFIX = re.compile(r"\((?P<process>[A-Za-z][\w.-]*(?: [\w=.-]+)?) pid=(?P<pid>\d+)(?:, ip=[\d.:a-f]+)?\)")

# The record envelope, vllm/logger.py `_FORMAT` with datefmt "%m-%d %H:%M:%S":
#   0.34.0:      "(%(vllm_process_name)s pid=%(process)d) %(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s"
#   0.10-0.11:   "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] %(message)s" (0.11: fileinfo)
#   0.6.6:       "%(levelname)s %(asctime)s %(filename)s:%(lineno)d] %(message)s" (no opening bracket)
#   without the time: "INFO [model.py:531] Resolved architecture: ..." (a vLLM 0.17 ROCm pod read with
#   `kubectl logs --timestamps`, whose collector clock times it; a JSON record rebuilt by forms.py)
# `search`, not `match`: a collector prefix or VLLM_LOGGING_PREFIX may come first.
RECORD = re.compile(
    rf"(?:{_PREFIX})?"
    r"(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+"
    r"(?:(?P<time>\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?:[.,]\d+)?\s+\[?|\[)"
    r"(?P<source>[\w./-]+\.py:\d+)\]\s?(?P<message>.*)$"
)

# runai_model_streamer/__init__.py (0.17.1) with RUNAI_STREAMER_LOG_TO_STDERR=1:
#   logging.Formatter("%(asctime)s [%(levelname)s] %(message)s"), i.e. "2026-12-02 17:00:31,204 [INFO] ..."
STREAMER_RECORD = re.compile(
    rf"(?:{_PREFIX})?"
    r"\d{4}-(?P<time>\d{2}-\d{2} \d{2}:\d{2}:\d{2}),\d+ \[(?P<level>[A-Z]+)\] (?P<message>.*)$"
)

# Any "YYYY-MM-DD HH:MM:SS" inside a line (other envelopes, e.g. "[2026-02-15 05:16:38] INFO file_streamer.py:66: ").
ANY_DATETIME = re.compile(r"\d{4}-(?P<time>\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2})")

# Lines without vLLM's envelope that still matter (uvicorn's default formatter
# "%(levelprefix)s %(message)s"); they take the time of the last timed line.
UNTIMED = re.compile(rf"^(?:{_PREFIX})*(?P<level>INFO|WARNING|ERROR):\s+(?P<message>.*)$")

# A Python exception line at the end of a traceback, e.g. "torch.OutOfMemoryError: CUDA out of memory."
EXCEPTION_LINE = re.compile(rf"^(?:{_PREFIX})*(?P<message>(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception): .+)$")

# A traceback frame, as Python prints it: '  File "/.../vllm/v1/worker/gpu_model_runner.py", line 2410, in capture_model'.
TRACEBACK_FRAME = re.compile(r'File "(?P<path>[^"]+)", line \d+, in (?P<function>[\w<>.]+)')

# What a traceback says was running: vLLM and torch functions that do one phase's work and call no other
# phase's (outer functions such as EngineCore._initialize_kv_caches or Worker.determine_available_memory
# wrap torch.compile, the KV-cache sizing and capture together, so they name none). The innermost
# frame (or code line) that matches, before the root-cause exception, names the phase; first rule wins.
#   cuda_graph: vllm/v1/worker/gpu_model_runner.py `capture_model` (0.8.5-0.34.0), vllm/worker/model_runner.py
#     `capture_model` (V0); on TPU, tpu_model_runner.py `capture_model` is XLA's precompile (graph_compile).
#   weight_load: model_runner `load_model`, loaders' `load_weights` / `load_model` / `download_model`,
#     `process_weights_after_loading`.
#   kv_cache_profiling: vllm/v1/core/kv_cache_utils.py `get_kv_cache_config(s)`, `check_enough_kv_cache_memory`;
#     V0 worker.py `determine_num_available_blocks`, `raise_if_cache_size_invalid` (not `initialize_cache`,
#     which also warms up and captures); the KV-cache allocation `initialize_kv_cache`, `_allocate_kv_cache_tensors`.
#   distributed_init: vllm/distributed/parallel_state.py `init_distributed_environment`,
#     `initialize_model_parallel`, `ensure_model_parallel_initialized`, worker `init_worker_distributed_environment`,
#     the NCCL communicator (device_communicators/pynccl*.py, `ncclCommInitRank`, `GroupCoordinator`), torch's
#     TCPStore rendezvous (`DistNetworkError`).
#   engine_init: worker `init_device` (device set-up, which also calls the distributed init above: a failure
#     whose lines also show distributed frames, torch's c10d C++ ones included, is the distributed init's).
#   dynamo_transform: torch/_dynamo's tracing (convert_frame.py, symbolic_convert.py, output_graph.py), not
#     eval_frame.py, through which every call of a compiled model passes.
#   graph_compile: torch/_inductor/compile_fx.py, vllm/compilation/backends.py and compiler_interface.py.
DISTRIBUTED_CALLS = re.compile(
    r"\b(?:init_distributed_environment|init_worker_distributed_environment|initialize_model_parallel"
    r"|ensure_model_parallel_initialized|ncclCommInit\w*|PyNcclCommunicator|GroupCoordinator"
    r"|DistNetworkError|TCPStore|ProcessGroupNCCL)\b|device_communicators/pynccl|c10d/"
)
INIT_DEVICE = re.compile(r"\binit_device\b")
FAILING_CALLS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("graph_compile", re.compile(r'tpu\w*\.py", line \d+, in capture_model\b|\b_precompile_\w+')),
    ("cuda_graph", re.compile(r"\b(?:capture_model|_capture_cudagraphs)\b")),
    ("dynamo_transform", re.compile(r"torch/_dynamo/(?:convert_frame|symbolic_convert|output_graph)\.py")),
    (
        "graph_compile",
        re.compile(r"torch/_inductor/compile_fx\.py|vllm/compilation/(?:backends|compiler_interface)\.py"),
    ),
    (
        "kv_cache_profiling",
        re.compile(
            r"\b(?:get_kv_cache_configs?|_?check_enough_kv_cache_memory|determine_num_available_blocks"
            r"|raise_if_cache_size_invalid|initialize_kv_cache|_allocate_kv_cache_tensors)\b"
        ),
    ),
    (
        "weight_load",
        re.compile(r"\b(?:load_model|load_weights|download_model|process_weights_after_loading)\b"),
    ),
    ("distributed_init", DISTRIBUTED_CALLS),
    ("engine_init", INIT_DEVICE),
)
# A traceback of a TPU worker: its capture_model is XLA's precompile, not a CUDA-graph capture.
TPU_WORKER = re.compile(r"\btpu_(?:model_runner|worker)\.py")

# Errors that are a root cause wherever they are printed (an ERROR record before the exception line, a
# wrapped message): NCCL's ("NCCL error: unhandled system error", "ncclCommInitRank failed with error: NCCL
# error: internal error"), CUDA's ("CUDA error: out of memory"), torch's OOM and rendezvous timeouts
# (torch/csrc/distributed/c10d/socket.cpp: "The client socket has timed out after 600000ms while trying to
# connect to (host, port).").
ROOT_CAUSE = re.compile(
    r"NCCL error\b.*|CUDA error\b.*|(?:torch\.)?(?:cuda\.)?OutOfMemoryError\b.*|CUDA out of memory\b.*"
    r"|DistNetworkError\b.*|The client socket has timed out after \d+ms while trying to connect to .*"
)
# torch's C++ log lines (glog's "[E616 02:08:15.931416442 socket.cpp:1023] [c10d] ..."), printed to stderr
# without vLLM's envelope: the errors (E, F) of c10d's TCPStore rendezvous and of NCCL are root causes.
TORCH_CPP_ERROR = re.compile(r"^\[[EF]\d{3,4} \d{2}:\d{2}:\d{2}\.\d+ [\w.]+:\d+\] (?P<message>.+)$")
# A frame of torch's C++ backtrace ("Exception raised from ... (most recent call first):", then "frame #6:
# c10d::TCPStore::TCPStore(...)"): it says where, as a Python frame does.
CPP_FRAME = re.compile(r"^frame #\d+: \S")
NCCL_ERROR = re.compile(r"\bNCCL error\b")
# Lines of a traceback that are not its message: frames, code, carets, the header.
TRACEBACK_CONTEXT = re.compile(r'^(?:\s|File "|\^+$|Traceback \(most recent call last\):|During handling of)')

# Failures whose message names the phase, whatever line came last:
#   KV cache: vllm/v1/core/kv_cache_utils.py (0.9.2-0.34.0) "To serve at least one request with the
#   model(s)'s max seq len ...", "No available memory for the cache blocks"; vllm/worker/worker.py (V0,
#   0.6.6-0.9.2) "The model's max seq len (%d) is larger than the maximum number of tokens that can be
#   stored in KV cache", "No available memory for the cache blocks".
KV_CACHE_FAILURE = re.compile(
    r"To serve at least one request with the models?'?s? max seq len"
    r"|maximum number of tokens that can be stored in KV cache"
    r"|No available memory for the cache blocks"
    r"|larger than the available KV cache memory"
)

# Server-only signals (an offline `LLM()` run prints none of them):
#   vllm/entrypoints/openai/api_server.py, vllm/entrypoints/launcher.py, vllm/entrypoints/cli/serve.py; uvicorn;
#   the APIServer process prefix.
SERVER_SOURCE = re.compile(r"(?:^|/)(?:api_server|launcher|serve|entry)\.py:\d+$")
SERVER_PROCESS = "APIServer"

# World size, from vllm/distributed/parallel_state.py (0.8.5-0.34.0):
#   "world_size=%d rank=%d local_rank=%d distributed_init_method=%s backend=%s"
#   "rank %s in world size %s is assigned as DP rank %s, PP rank %s, TP rank %s"
WORLD_SIZE = re.compile(r"(?:\bworld_size=(?P<a>\d+) rank=\d+|\brank \d+ in world size (?P<b>\d+) )")
# The engine config line (vllm/config.py repr, 0.6.6-0.34.0): "tensor_parallel_size=2, pipeline_parallel_size=1"
PARALLEL_CONFIG = re.compile(r"\btensor_parallel_size=(?P<tp>\d+), pipeline_parallel_size=(?P<pp>\d+)")
# Worker processes, as named by the executors cited at PROCESS_PREFIX.
WORKER_PROCESS = re.compile(r"^(?:VllmWorker|Worker|RayWorkerWrapper)")  # VllmWorkerProcess, Worker_TP1, WorkerDict

_NUM = r"(?P<seconds>\d+(?:\.\d+)?)"
_GIB = r"(?P<gib>\d+(?:\.\d+)?)"


class LineKind(Enum):
    """One start-up event, whatever release spelled it."""

    WEIGHTS_START = "weights_start"
    MODEL_LOADED = "model_loaded"
    WEIGHTS_LOADED = "weights_loaded"
    STREAMER_SUMMARY = "streamer_summary"
    COMPILE_CACHE_DIR = "compile_cache_dir"
    COMPILE_CACHE_DISABLED = "compile_cache_disabled"
    DYNAMO_TRANSFORM = "dynamo_transform"
    GRAPH_COMPILED = "graph_compiled"
    GRAPH_FROM_CACHE = "graph_from_cache"
    AOT_FROM_CACHE = "aot_from_cache"
    COMPILE_TOTAL = "compile_total"
    CUDA_GRAPH_START = "cuda_graph_start"
    CUDA_GRAPH = "cuda_graph"
    KV_CACHE_MEMORY = "kv_cache_memory"
    PROFILING = "profiling"
    ENGINE_INITIALISED = "engine_initialised"
    SERVER_STARTING = "server_starting"
    SERVER_READY = "server_ready"
    VERSION = "version"
    # Loading under way: the checkpoint-shard progress bar (100%: the read has ended).
    WEIGHTS_PROGRESS = "weights_progress"
    # TPU (tpu-inference, JAX): the weights are in HBM; the load printed no duration.
    WEIGHTS_ON_DEVICE = "weights_on_device"
    # TPU: the XLA precompile of every input shape (its compile phase) starts or moves to the next shape.
    XLA_COMPILE_START = "xla_compile_start"
    # The process groups of a multi-GPU engine: their init starts (NCCL found, the world joined) or ends (this
    # worker's DP/PP/TP ranks assigned).
    DISTRIBUTED_START = "distributed_start"
    DISTRIBUTED_READY = "distributed_ready"
    XLA_COMPILED = "xla_compiled"


# Progress bars printed without an envelope that still mark a phase:
#   CUDA graph capture starts: vllm/v1/worker/gpu_model_runner.py tqdm desc "Capturing CUDA graph shapes"
#   (0.8.5-0.10.0), "Capturing CUDA graphs ({mode}, {runtime_mode})" (0.10.1-0.34.0).
# vLLM's process prefix may come first.
BARE_PATTERNS: tuple[tuple[LineKind, re.Pattern[str]], ...] = (
    (LineKind.CUDA_GRAPH_START, re.compile(rf"^(?:{_PREFIX})*Capturing CUDA graph(?:s \(| shapes)")),
)
# Progress that times no phase but shows which one was running (where a failure belongs):
#   vllm/model_executor/model_loader/weight_utils.py (0.6.6-0.34.0) tqdm desc "Loading safetensors checkpoint
#   shards" ("Loading pt checkpoint shards" for .bin/.pt), bar_format "{desc}: {percentage:3.0f}% Completed | ...".
WEIGHTS_PROGRESS = re.compile(rf"^(?:{_PREFIX})*Loading \w+ checkpoint shards:\s+(?P<percent>\d+)% Completed\b")

# (kind, pattern searched in the message); first match wins.
MESSAGE_PATTERNS: tuple[tuple[LineKind, re.Pattern[str]], ...] = (
    # vllm/v1/worker/gpu_model_runner.py and vllm/worker/model_runner.py (0.6.6-0.11.0):
    #   "Starting to load model %s..."; 0.34.0 vllm/v1/worker/gpu/model_runner.py: "Loading model from scratch..."
    (LineKind.WEIGHTS_START, re.compile(r"^(?:Starting to load model \S.*\.\.\.|Loading model from scratch\.\.\.)$")),
    # 0.8.5-0.11.0 vllm/v1/worker/gpu_model_runner.py: "Model loading took %.4f GiB and %.6f seconds"
    # 0.7.x-0.8.4 (V0 worker/model_runner.py and V1): "Model loading took %.4f GB and %.6f seconds"
    #   (the number is GiB: both divide by GiB_bytes)
    # 0.34.0 vllm/v1/worker/gpu/model_runner.py: "Model loading took %s GiB memory and %.6f seconds"
    # 0.5-0.6.6 vllm/worker/model_runner.py: "Loading model weights took %.4f GB" (GiB, despite the label; no time)
    (LineKind.MODEL_LOADED, re.compile(rf"^Model loading took {_GIB} Gi?B(?: memory)? and {_NUM} seconds$")),
    (LineKind.MODEL_LOADED, re.compile(rf"^Loading model weights took {_GIB} Gi?B$")),
    # vllm/model_executor/model_loader/default_loader.py (0.10.1-0.34.0), loader.py (0.8.5):
    #   "Loading weights took %.2f seconds"
    (LineKind.WEIGHTS_LOADED, re.compile(rf"^Loading weights took {_NUM} seconds$")),
    (LineKind.STREAMER_SUMMARY, STREAMER_SUMMARY),
    # vllm/compilation/backends.py (0.8.5-0.34.0; 0.6.6 vllm/config.py), optional "[tag] " in 0.34.0:
    #   "%sUsing cache directory: %s for vLLM's torch.compile"
    (
        LineKind.COMPILE_CACHE_DIR,
        re.compile(r"^(?:\[[^\]]*\] )?Using cache directory: (?P<path>.+) for vLLM's torch\.compile$"),
    ),
    # vllm/compilation/backends.py (0.8.5-0.34.0): "vLLM's torch.compile cache is disabled."
    (LineKind.COMPILE_CACHE_DISABLED, re.compile(r"^(?:\[[^\]]*\] )?vLLM's torch\.compile cache is disabled\.$")),
    # vllm/compilation/backends.py (0.6.6-0.34.0): "%sDynamo bytecode transform time: %.2f s"
    (LineKind.DYNAMO_TRANSFORM, re.compile(rf"^(?:\[[^\]]*\] )?Dynamo bytecode transform time: {_NUM} s$")),
    # vllm/compilation/backends.py:
    #   0.6.6, 0.8.5, 0.9.2: "Compiling a graph for general shape takes %.2f s" / "... for shape %s takes %.2f s"
    #   0.10.0-0.11.0: "Compiling a graph for dynamic shape takes %.2f s" / "... for shape %s takes %.2f s"
    #   0.34.0: "%sCompiling a graph for compile range %s takes %.2f s"
    (
        LineKind.GRAPH_COMPILED,
        re.compile(
            rf"^(?:\[[^\]]*\] )?Compiling a graph for (?:general shape|dynamic shape|shape .+?|compile range .+?) takes {_NUM} s$"
        ),
    ),
    # vllm/compilation/backends.py, the compile-cache hit:
    #   0.8.5, 0.9.2: "Directly load the compiled graph(s) for shape %s from the cache, took %.3f s"
    #   0.10.0-0.11.0: also "... for dynamic shape from the cache, took %.3f s"
    #   0.34.0: "%sDirectly load the compiled graph(s) for compile range %s from the cache, took %.3f s"
    # In 0.9.2 and 0.10.0 (CompilerManager.compile) this time is logged but NOT added to
    # compilation_time, so their "torch.compile takes ... in total" leaves it out; parser.py adds it back.
    (
        LineKind.GRAPH_FROM_CACHE,
        re.compile(rf"^(?:\[[^\]]*\] )?Directly load the compiled graph\(s\) for .+? from the cache, took {_NUM} s$"),
    ),
    # vllm/compilation/decorators.py (0.34.0): "%sDirectly load AOT compilation from path %s"
    (LineKind.AOT_FROM_CACHE, re.compile(r"^(?:\[[^\]]*\] )?Directly load AOT compilation from path (?P<path>.+)$")),
    # vllm/compilation/monitor.py: 0.6.6-0.11.0 "torch.compile takes %.2f s in total";
    #   0.34.0 "%storch.compile took %.2f s in total"
    (LineKind.COMPILE_TOTAL, re.compile(rf"^(?:\[[^\]]*\] )?torch\.compile (?:takes|took) {_NUM} s in total$")),
    # CUDA graph capture starts (V0): vllm/worker/model_runner.py 0.6.x-0.9.2 "Capturing cudagraphs for
    #   decoding. ..."; 0.5.x-0.6.0 "Capturing the model for CUDA graphs. ..."
    (LineKind.CUDA_GRAPH_START, re.compile(r"^Capturing (?:cudagraphs for decoding|the model for CUDA graphs)\b")),
    # vllm/v1/worker/gpu_model_runner.py (0.6.6-0.11.0), vllm/worker/model_runner.py (V0),
    #   vllm/v1/worker/gpu/model_runner.py (0.34.0): "Graph capturing finished in %.0f secs, took %.2f GiB";
    #   0.5.x-0.6.3 vllm/worker/model_runner.py: "Graph capturing finished in %.0f secs."
    (LineKind.CUDA_GRAPH, re.compile(rf"^Graph capturing finished in {_NUM} secs?(?:, took {_GIB} GiB|\.)$")),
    # vllm/v1/worker/gpu_worker.py: 0.10.1-0.11.0 "Available KV cache memory: %.2f GiB"; 0.34.0 "%s GiB";
    # TPU, tpu-inference kv_cache_manager.py: "Init kv-cache | num_layers=%d | shape=..." (the KV cache is set up
    # next, as on GPUs after the memory line)
    (LineKind.KV_CACHE_MEMORY, re.compile(rf"^Available KV cache memory: {_GIB} GiB$|^Init kv-cache \| num_layers=")),
    # Memory profiling, which in 0.6.5-0.11.0 runs the model's first forward and so contains torch.compile:
    #   vllm/worker/worker.py (0.6.6-0.10.1) and vllm/utils (0.11.0): "Memory profiling takes %.2f seconds..."
    #   vllm/worker/worker.py (0.6.5): "Memory profiling results: duration=%.2f seconds, ..."
    # vllm/compilation/monitor.py (0.34.0): "%sInitial profiling/warmup run took %.2f s", logged after the
    #   compile and excluding it (value key "warmup").
    (
        LineKind.PROFILING,
        re.compile(
            r"^(?:Memory profiling takes (?P<seconds>\d+(?:\.\d+)?) seconds"
            r"|Memory profiling results: duration=(?P<seconds3>\d+(?:\.\d+)?) seconds"
            r"|(?:\[[^\]]*\] )?Initial profiling/warmup run took (?P<warmup>\d+(?:\.\d+)?) s$)"
        ),
    ),
    # vllm/v1/engine/core.py and vllm/engine/llm_engine.py:
    #   0.6.6-0.11.0 "init engine (profile, create kv cache, warmup model) took %.2f seconds"
    #   0.34.0 "... took %.2f s" optionally followed by " (compilation: %.2f s ...)"
    (
        LineKind.ENGINE_INITIALISED,
        re.compile(rf"^init engine \(profile, create kv cache, warmup model\) took {_NUM} (?:s|seconds)\b"),
    ),
    # vllm/entrypoints/openai/api_server.py: 0.8.5 "Starting vLLM API server on http%s://%s:%d";
    #   0.11.0 "Starting vLLM API server %d on %s";
    #   0.34.0 vllm/entrypoints/launchers/api_server/entry.py "Starting vLLM server on %s"
    (LineKind.SERVER_STARTING, re.compile(r"^Starting vLLM (?:API )?server\b")),
    # uvicorn's lifespan startup (all releases): "Application startup complete."
    (LineKind.SERVER_READY, re.compile(r"^Application startup complete\.$")),
    # vllm/entrypoints/openai/api_server.py (0.6.6-0.11.0): "vLLM API server version %s";
    #   vllm/v1/engine/core.py (0.8.5-0.34.0): "Initializing a V1 LLM engine (v%s) with config: %s";
    #   vllm/engine/llm_engine.py (0.6.x-0.9.2): "Initializing a V0 LLM engine (v%s)" / "Initializing an LLM engine (v%s)"
    # TPU back ends, whose compile phase is XLA's precompile of every input shape:
    #   vLLM V1 PyTorch/XLA vllm/v1/worker/tpu_model_runner.py (0.8.x): "Compiling the model with different
    #   input shapes.", "  -- num_tokens: %d", "Compilation finished in %.2f [secs]." (printed "in in" in
    #   some builds), then "Compiling sampling with different input shapes.", "  -- num_tokens: %d, num_seqs: %d";
    #   vLLM V0 vllm/worker/tpu_model_runner.py (0.6.x): "Compiling the model with different input shapes...",
    #   "batch_size: %d, seq_len: %d";
    #   tpu-inference (JAX) compilation_manager.py: "Precompile worker0 sample --> {...}" and
    #   "Compilation finished in %.2f [secs]." per shape.
    (
        LineKind.XLA_COMPILE_START,
        re.compile(
            r"^(?:Compiling (?:the model|\w+) with different input shapes\b"
            r"|-- num_tokens: \d+|batch_size: \d+, seq_len: \d+$|Precompile \S+ .*-->)"
        ),
    ),
    (LineKind.XLA_COMPILED, re.compile(rf"^Compilation finished in (?:in )?{_NUM} \[secs\]\.?$")),
    # vllm/distributed/parallel_state.py `init_distributed_environment` (INFO from 0.17, DEBUG before):
    #   "world_size=%d rank=%d local_rank=%d distributed_init_method=%s backend=%s";
    #   device_communicators/pynccl.py (0.5-0.34): "vLLM is using nccl==%s"; vllm/utils (0.5-0.8): "Found nccl from
    #   library %s"; then `initialize_model_parallel` ends with (0.8.5-0.34): "rank %s in world size %s is assigned
    #   as DP rank %s, PP rank %s, TP rank %s[, EP rank %s]".
    (
        LineKind.DISTRIBUTED_START,
        re.compile(
            r"^(?:world_size=\d+ rank=\d+ .*distributed_init_method=|vLLM is using nccl==|Found nccl from library)"
        ),
    ),
    (LineKind.DISTRIBUTED_READY, re.compile(r"^rank \d+ in world size \d+ is assigned as ")),
    # tpu-inference (JAX) model_loader.py: "Loading model with MODEL_IMPL_TYPE=%s" starts the load;
    #   tpu_runner.py / tpu_jax_runner.py `load_model` ends it with "Init model | hbm=%sGiB" (HBM in use once
    #   the weights have landed).
    (LineKind.WEIGHTS_START, re.compile(r"^Loading model with MODEL_IMPL_TYPE=\S+$")),
    (LineKind.WEIGHTS_ON_DEVICE, re.compile(r"^Init model \| hbm=")),
    (
        LineKind.VERSION,
        re.compile(
            r"^(?:vLLM API server version (?P<version>\S+)"
            r"|Initializing (?:a V[01] |an )LLM engine \(v(?P<version2>[^)]+)\))"
        ),
    ),
)

# Cheap pre-filter: a message can only match a pattern above if it contains one of these.
KEYWORDS = (
    "load model",
    "Loading model",
    "Model loading",
    "Loading weights",
    "Overall time to stream",
    "torch.compile",
    "Dynamo bytecode",
    "Compiling a graph",
    "Directly load",
    "Capturing",
    "Graph capturing",
    "KV cache memory",
    "Init kv-cache",
    "profiling",
    "init engine",
    "Starting vLLM",
    "Application startup",
    "API server version",
    "LLM engine (v",
    "input shapes",
    "num_tokens:",
    "seq_len:",
    "Precompile",
    "Compilation finished",
    "MODEL_IMPL_TYPE",
    "Init model",
    "distributed_init_method=",
    "is using nccl",
    "Found nccl",
    "is assigned as",
)


def classify(message: str) -> tuple[LineKind, re.Match[str]] | None:
    """The event a log message records, or None for every other line."""
    if not any(keyword in message for keyword in KEYWORDS):
        return None
    for kind, pattern in MESSAGE_PATTERNS:
        found = pattern.search(message)
        if found:
            return kind, found
    return None


def classify_bare(line: str) -> tuple[LineKind, re.Match[str]] | None:
    """An event printed without any log envelope (progress bars, the streamer's print)."""
    found = STREAMER_SUMMARY.search(line)
    if found:
        return LineKind.STREAMER_SUMMARY, found
    for kind, pattern in BARE_PATTERNS:
        found = pattern.search(line)
        if found:
            return kind, found
    return None


def classify_progress(line: str) -> tuple[LineKind, re.Match[str]] | None:
    """A progress bar that shows a phase running (the checkpoint-shard bar), or None."""
    found = WEIGHTS_PROGRESS.search(line)
    return (LineKind.WEIGHTS_PROGRESS, found) if found else None


def is_frame(line: str) -> bool:
    """A traceback frame: Python's ('File "...", line N, in f') or torch's C++ ("frame #6: c10d::...")."""
    if 'File "' in line:
        return TRACEBACK_FRAME.search(line) is not None
    return line.startswith("frame #") and CPP_FRAME.match(line) is not None


def is_whole_line(text: str) -> bool:
    """A line that reads as written: vLLM's record, an exception or traceback line, a progress bar or print
    (a JSON record's text that is none of these is a logged message: forms.Envelopes rebuilds it)."""
    return bool(
        RECORD.search(text)
        or UNTIMED.match(text)
        or EXCEPTION_LINE.match(text)
        or TRACEBACK_FRAME.search(text)
        or classify_bare(text)
        or classify_progress(text)
    )
