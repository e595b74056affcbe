"""The vLLM log lines a cold-start report is built from, as regular expressions.

Each pattern names the vLLM source file and the releases whose format string it
was read from (the wheels of vLLM 0.6.6, 0.8.5, 0.10.1, 0.11.0 and 0.34.0, and
runai-model-streamer 0.11.0, 0.14.0 and 0.17.1). Older spellings of the same
event share one `LineKind`, so a log from any of those releases parses the same.
"""

from __future__ import annotations

import re
from enum import Enum

# ANSI colours: vLLM 0.8-0.11 wrap the "(Worker pid=N)" prefix in them, and
# 0.34 colours the level, time and file when logging to a terminal.
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")

# `kubectl logs --timestamps` puts an RFC 3339 time before every line.
KUBECTL_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})\s")

# The record envelope, vllm/logger.py `_FORMAT` with datefmt "%m-%d %H:%M:%S":
#   0.34.0:      "(%(vllm_process_name)s pid=%(process)d) %(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s"
#   0.10-0.11:   "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] %(message)s" (0.11: fileinfo)
#   0.6.6:       "%(levelname)s %(asctime)s %(filename)s:%(lineno)d] %(message)s" (no opening bracket)
# Process prefixes written in front of that by the workers' stdout wrapper:
#   0.11.0 vllm/utils/__init__.py `_add_prefix`: "(APIServer pid=1) ", "(EngineCore_DP0 pid=7) ", "(Worker_TP1 pid=9) "
#   0.8.5 vllm/v1/executor/multiproc_executor.py: "(VllmWorker rank=1 pid=9) "; v1/engine/core.py: "(EngineCore_0 pid=7) "
#   0.6.6 vllm/executor/multiproc_worker_utils.py: "(VllmWorkerProcess pid=9) "
# `search`, not `match`: an optional VLLM_LOGGING_PREFIX may come first.
RECORD = re.compile(
    r"(?:\((?P<process>[A-Za-z][\w.-]*(?: rank=\d+)?) pid=(?P<pid>\d+)\)\s+)?"
    r"(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+"
    r"(?P<time>\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?:[.,]\d+)?\s+"
    r"\[?(?P<source>[\w./-]+\.py:\d+)\]\s?(?P<message>.*)$"
)

# runai_model_streamer/__init__.py (0.17.1) with RUNAI_STREAMER_LOG_TO_STDERR=1:
#   logging.Formatter("%(asctime)s [%(levelname)s] %(message)s"), i.e. "2026-12-02 17:00:31,204 [INFO] ..."
STREAMER_RECORD = re.compile(
    r"(?:\((?P<process>[A-Za-z][\w.-]*(?: rank=\d+)?) pid=(?P<pid>\d+)\)\s+)?"
    r"\d{4}-(?P<time>\d{2}-\d{2} \d{2}:\d{2}:\d{2}),\d+ \[(?P<level>[A-Z]+)\] (?P<message>.*)$"
)

# Lines without vLLM's envelope that still matter (uvicorn's default formatter
# "%(levelprefix)s %(message)s"); they take the time of the last timed line.
UNTIMED = re.compile(
    r"^(?:\((?P<process>[A-Za-z][\w.-]*(?: rank=\d+)?) pid=(?P<pid>\d+)\)\s+)?"
    r"(?P<level>INFO|WARNING|ERROR):\s+(?P<message>.*)$"
)

# A Python exception line at the end of a traceback, e.g. "torch.OutOfMemoryError: CUDA out of memory."
EXCEPTION_LINE = re.compile(
    r"^(?:\((?P<process>[A-Za-z][\w.-]*(?: rank=\d+)?) pid=(?P<pid>\d+)\)\s+)?"
    r"(?P<message>(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception): .+)$"
)

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
    CUDA_GRAPH = "cuda_graph"
    KV_CACHE_MEMORY = "kv_cache_memory"
    PROFILING = "profiling"
    ENGINE_INITIALISED = "engine_initialised"
    SERVER_STARTING = "server_starting"
    SERVER_READY = "server_ready"
    VERSION = "version"


# (kind, pattern searched in the message); first match wins.
MESSAGE_PATTERNS: tuple[tuple[LineKind, re.Pattern[str]], ...] = (
    # vllm/v1/worker/gpu_model_runner.py and vllm/worker/model_runner.py (0.6.6-0.11.0):
    #   "Starting to load model %s..."; 0.34.0 vllm/v1/worker/gpu/model_runner.py: "Loading model from scratch..."
    (LineKind.WEIGHTS_START, re.compile(r"^(?:Starting to load model \S.*\.\.\.|Loading model from scratch\.\.\.)$")),
    # 0.8.5-0.11.0 vllm/v1/worker/gpu_model_runner.py: "Model loading took %.4f GiB and %.6f seconds"
    # 0.34.0 vllm/v1/worker/gpu/model_runner.py: "Model loading took %s GiB memory and %.6f seconds"
    # 0.6.6 vllm/worker/model_runner.py: "Loading model weights took %.4f GB" (GiB, despite the label; no time)
    (LineKind.MODEL_LOADED, re.compile(rf"^Model loading took {_GIB} GiB(?: memory)? and {_NUM} seconds$")),
    (LineKind.MODEL_LOADED, re.compile(rf"^Loading model weights took {_GIB} GB$")),
    # vllm/model_executor/model_loader/default_loader.py (0.10.1-0.34.0), loader.py (0.8.5):
    #   "Loading weights took %.2f seconds"
    (LineKind.WEIGHTS_LOADED, re.compile(rf"^Loading weights took {_NUM} seconds$")),
    # runai_model_streamer/safetensors_streamer/safetensors_streamer.py (0.17.1):
    #   "[RunAI Streamer] Overall time to stream {size} of all files to {device}: {s}s, {rate}/s"
    # runai_model_streamer/file_streamer/file_streamer.py (0.11.0, 0.14.0): same without " to {device}".
    # Sizes come from humanize.naturalsize(binary=True): "15.0 GiB", "812.3 MiB", "512 Bytes".
    (
        LineKind.STREAMER_SUMMARY,
        re.compile(
            r"\[RunAI Streamer\] Overall time to stream (?P<size>\d+(?:\.\d+)?) (?P<size_unit>Bytes?|KiB|MiB|GiB|TiB)"
            rf" of all files(?: to \S+)?: {_NUM}s, (?P<rate>\d+(?:\.\d+)?) (?P<rate_unit>Bytes?|KiB|MiB|GiB|TiB)/s"
        ),
    ),
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
    #   0.6.6, 0.8.5: "Compiling a graph for general shape takes %.2f s" / "... for shape %s takes %.2f s"
    #   0.10.1, 0.11.0: "Compiling a graph for dynamic shape takes %.2f s" / "... for shape %s takes %.2f s"
    #   0.34.0: "%sCompiling a graph for compile range %s takes %.2f s"
    (
        LineKind.GRAPH_COMPILED,
        re.compile(
            rf"^(?:\[[^\]]*\] )?Compiling a graph for (?:general shape|dynamic shape|shape .+?|compile range .+?) takes {_NUM} s$"
        ),
    ),
    # vllm/compilation/backends.py, the compile-cache hit:
    #   0.8.5: "Directly load the compiled graph(s) for shape %s from the cache, took %.3f s"
    #   0.10.1, 0.11.0: also "... for dynamic shape from the cache, took %.3f s"
    #   0.34.0: "%sDirectly load the compiled graph(s) for compile range %s from the cache, took %.3f s"
    (
        LineKind.GRAPH_FROM_CACHE,
        re.compile(rf"^(?:\[[^\]]*\] )?Directly load the compiled graph\(s\) for .+? from the cache, took {_NUM} s$"),
    ),
    # vllm/compilation/decorators.py (0.34.0): "%sDirectly load AOT compilation from path %s"
    (LineKind.AOT_FROM_CACHE, re.compile(r"^(?:\[[^\]]*\] )?Directly load AOT compilation from path (?P<path>.+)$")),
    # vllm/compilation/monitor.py: 0.6.6-0.11.0 "torch.compile takes %.2f s in total";
    #   0.34.0 "%storch.compile took %.2f s in total"
    (LineKind.COMPILE_TOTAL, re.compile(rf"^(?:\[[^\]]*\] )?torch\.compile (?:takes|took) {_NUM} s in total$")),
    # vllm/v1/worker/gpu_model_runner.py (0.6.6-0.11.0), vllm/worker/model_runner.py (V0),
    #   vllm/v1/worker/gpu/model_runner.py (0.34.0): "Graph capturing finished in %.0f secs, took %.2f GiB"
    (LineKind.CUDA_GRAPH, re.compile(rf"^Graph capturing finished in {_NUM} secs?, took {_GIB} GiB$")),
    # vllm/v1/worker/gpu_worker.py: 0.10.1-0.11.0 "Available KV cache memory: %.2f GiB"; 0.34.0 "%s GiB"
    (LineKind.KV_CACHE_MEMORY, re.compile(rf"^Available KV cache memory: {_GIB} GiB$")),
    # vllm/worker/worker.py (0.6.6-0.10.1) and vllm/utils (0.11.0, 0.34.0 mem_utils.py):
    #   "Memory profiling takes %.2f seconds..."; vllm/compilation/monitor.py (0.34.0):
    #   "%sInitial profiling/warmup run took %.2f s"
    (
        LineKind.PROFILING,
        re.compile(
            r"^(?:Memory profiling takes (?P<seconds>\d+(?:\.\d+)?) seconds"
            r"|(?:\[[^\]]*\] )?Initial profiling/warmup run took (?P<seconds2>\d+(?:\.\d+)?) s$)"
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
    #   vllm/v1/engine/core.py (0.8.5-0.34.0): "Initializing a V1 LLM engine (v%s) with config: %s"
    (
        LineKind.VERSION,
        re.compile(
            r"^(?:vLLM API server version (?P<version>\S+)|Initializing a V1 LLM engine \(v(?P<version2>[^)]+)\))"
        ),
    ),
)


def classify(message: str) -> tuple[LineKind, re.Match[str]] | None:
    """The event a log message records, or None for every other line."""
    for kind, pattern in MESSAGE_PATTERNS:
        found = pattern.search(message)
        if found:
            return kind, found
    return None
