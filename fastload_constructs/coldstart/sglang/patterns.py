"""The SGLang log lines a cold-start report is built from, as regular expressions.

SGLang prints every start-up step with a full date to the second, `[YYYY-MM-DD HH:MM:SS{ DPn}{ PPn}{ TPn}...]`
(python/sglang/srt/utils/common.py:2618-2637 at 0.5.23; the rank tags from srt/managers/scheduler.py), and
prints its own durations for the weights (`elapsed=`, 0.5.8+) and the CUDA-graph capture (`Time elapsed:`,
`elapsed=` in 0.5.23's renamed lines). Line forms from 0.3 to 0.5.23 are below (the samples are
tests/fixtures/sglang_logs/real/, each with its source).
"""

from __future__ import annotations

import re

from fastload_constructs.coldstart.figures import GIB, MAX_BYTES, MAX_SECONDS

# A bracketed full date, optional milliseconds (SGLANG_LOG_MS=1), rank tags; searched anywhere in a line so
# a collector's or another logger's prefix, or a progress bar printed before it, does not hide it.
PREFIX = re.compile(
    r"\[(?P<at>\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?:[.,](?P<ms>\d{1,6}))?(?P<ranks>(?: [A-Z_]+\d+)*)\] (?P<msg>.*)"
)
_NUM = r"(\d+(?:\.\d+)?)"

# kind -> message pattern (searched in the message after the prefix).
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # 0.3+: the first line of a start-up, with every setting.
    ("server_args", re.compile(r"server_args=ServerArgs\(")),
    # model_runner.py init_torch_distributed (0.4.6+): "Init torch distributed begin." and "Init torch distributed
    # ends. mem usage=N GB"; 0.5.x adds "elapsed=N s, " before it. "sglang is using nccl==X" comes in between.
    ("dist_begin", re.compile(r"Init torch distributed begin\.")),
    ("dist_end", re.compile(rf"Init torch distributed ends\.(?: elapsed={_NUM} s,)?")),
    ("nccl", re.compile(r"sglang is using nccl==")),
    ("weight_begin", re.compile(r"Load weight begin\.")),
    # 0.3/0.4 "Load weight end. type=X, dtype=Y, avail mem=N GB"; 0.4.3+ adds ", mem usage=N GB.";
    # 0.5.8+ "Load weight end. elapsed=N s, type=..." (model_runner.py:1372-1379 at 0.5.23).
    ("weight_end", re.compile(rf"Load weight end\.(?: elapsed={_NUM} s,)?.*?(?:mem usage={_NUM} GB)?\.?$")),
    ("kv_allocated", re.compile(r"KV Cache is allocated\.")),
    ("pool_end", re.compile(r"Memory pool end\.")),
    # <=0.5.1x "Capture cuda graph begin. This can take up to several minutes."; 0.5.23 "Capture target decode
    # CUDA graph begin. backend=..." and "... prefill CUDA graph begin" (cuda_graph_setup.py:684-699, 758-792).
    ("capture_begin", re.compile(r"Capture (?:[a-z ]+ )?cuda graph begin", re.IGNORECASE)),
    # "Capture cuda graph end. Time elapsed: N s[. ...]"; 0.5.23 "Capture target decode CUDA graph end. bs=[...],
    # elapsed=N s, ...".
    (
        "capture_end",
        re.compile(rf"Capture (?:[a-z ]+ )?cuda graph end\..*?(?:Time elapsed: |elapsed=){_NUM} ?s", re.IGNORECASE),
    ),
    # SGLang's DeepGEMM wrapper: "Entering DeepGEMM JIT Pre-Compile session." (spelled "Pre-Complie" in spring 2025),
    # "Try DeepGEMM JIT Compiling for <KERNEL> N=.., K=.." once per GEMM shape on first use: inside the capture, or
    # in the warmup request.
    ("jit", re.compile(r"Entering DeepGEMM JIT Pre-Comp(?:ile|lie) session|Try DeepGEMM JIT Compiling for")),
    ("http_up", re.compile(r"Application startup complete\.|Uvicorn running on")),
    # http_server.py: --warmups ("Warmup ended"), PD disaggregation's warmup request ("Start of pd disaggregation
    # warmup ...", "End of prefill disaggregation mode warmup ...").
    ("warmup_begin", re.compile(r"Start of (?:[\w ]+ )?warmup")),
    ("warmup_end", re.compile(r"End of (?:[\w ]+ )?warmup|Warmup ended")),
    # http_server.py:2600 at 0.5.23, the same since 0.2.
    ("ready", re.compile(r"The server is fired up and ready to roll!")),
)
# The figures a start-up line's groups hold, by kind, and their bounds (coldstart/figures.py): seconds, or the
# "GB" of SGLang's memory helpers (GiB).
FIGURES: dict[str, tuple[tuple[str, float], ...]] = {
    "dist_end": (("elapsed", MAX_SECONDS),),
    "weight_end": (("elapsed", MAX_SECONDS), ("mem usage", MAX_BYTES / GIB)),
    "capture_end": (("elapsed", MAX_SECONDS),),
}
# Failures that name their cause, most specific first, with the phase each names (None: the phase that was
# running); searched in every line (tracebacks carry no prefix).
NAMED_FAILURES: tuple[tuple[str | None, re.Pattern[str]], ...] = (
    ("kv_cache_profiling", re.compile(r"Not enough memory\. Please try to increase --mem-fraction-static.*")),
    ("kv_cache_profiling", re.compile(r"max_total_tokens=\d+ is larger than the profiled value -\d+.*")),
    (None, re.compile(r"(?:torch\.)?(?:cuda\.)?OutOfMemoryError: CUDA out of memory.*")),
    ("cuda_graph", re.compile(r"Capture cuda graph failed.*", re.IGNORECASE)),
    ("cuda_graph", re.compile(r"RuntimeError: CUDA error: operation not permitted when stream is capturing.*")),
    (None, re.compile(r"Unexpected extra config keys for load format.*")),
    (None, re.compile(r"Health check failed\..*")),
)
# Lines that say a failure happened, not why: the error line that ends the traceback, when the log has it,
# is the root cause instead.
WRAPPER_FAILURES: tuple[tuple[str | None, re.Pattern[str]], ...] = (
    (None, re.compile(r"Scheduler hit an exception.*")),
    (None, re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception): .*")),
)
FAILURES = NAMED_FAILURES + WRAPPER_FAILURES
# Lines that say "this is SGLang" (engine detection, coldstart/parser.py): its own messages and module paths.
MARKERS = re.compile(
    r"server_args=ServerArgs\(|Load weight (?:begin|end)\.|Capture (?:[a-z ]+ )?cuda graph (?:begin|end)"
    r"|Memory pool end\.|KV Cache is allocated\.|fired up and ready to roll|--mem-fraction-static"
    r"|Scheduler hit an exception|sglang[./]srt|\bsglang\.launch_server\b"
    r"|Init torch distributed (?:begin|ends)|sglang is using nccl|DeepGEMM JIT|sglang\.compile_deep_gemm",
    re.IGNORECASE,
)
# Devices whose GPU shares its memory with the CPU (GB10: DGX Spark's one pool) or is tied to a Grace CPU's
# (GH200, GB200, GB300): SGLang's "mem usage" is a change in free memory (model_runner.py `load_model`:
# before_avail_memory - after_avail_memory, from torch.cuda.mem_get_info), which there moves with what the CPU
# side does (page cache, host copies) and is not the weights' size. Torch names the device in its warnings
# ("Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.").
UNIFIED_MEMORY = re.compile(r"\b(?:GB10|GH200|GB200|GB300)\b|\bGrace\b|\b[Uu]nified [Mm]emory\b")
# What the server_args line says of the model's size: its path (whose name usually states the parameter count:
# "Llama-3.1-70B-Instruct", "Nemotron-3-Super-120B-A12B-NVFP4"; "A12B" is the active count, not read), its dtype
# and quantization.
MODEL_PATH = re.compile(r"\bmodel_path='(?P<path>[^']+)'")
MODEL_DTYPE = re.compile(r"(?<!\w)dtype='(?P<dtype>\w+)'")
MODEL_QUANTIZATION = re.compile(r"(?<!\w)quantization='(?P<quantization>[\w-]+)'")
PARAMETERS_IN_NAME = re.compile(r"(?<![A-Za-z0-9.])(?P<billions>\d+(?:\.\d+)?)[Bb](?![A-Za-z0-9])")
# The parallel sizes in the server_args line, and DP attention (its DP ranks are the TP ranks, not replicas).
PARALLEL_SIZES = re.compile(r"\b(tp_size|pp_size|dp_size)=(\d+)")
DP_ATTENTION = re.compile(r"\benable_dp_attention=True\b")

# A Python traceback as the scheduler prints it after "Scheduler hit an exception: " (no prefix on its lines).
TRACEBACK_START = re.compile(r"Traceback \(most recent call last\):")
TRACEBACK_FRAME = re.compile(r'^\s*File "[^"]+", line \d+, in ')
# Its error line: "RuntimeError: NCCL error: unhandled system error ...", "AssertionError", "torch.OutOfMemoryError:
# CUDA out of memory. ..."; the first one is the root cause ("During handling of the above exception" follows it).
ERROR_LINE = re.compile(r"^(?:[a-z_]\w*\.)*[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b(?::\s.*)?$")

# What a traceback says was running: the innermost frame or code line that belongs to one phase's own work
# (python/sglang/srt at 0.4-0.5.x); outer calls (ModelRunner.__init__, initialize) hold several phases and name none.
FAILING_CALLS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("warmup", re.compile(r"\b_execute_server_warmup\b|\b_wait_and_warmup\b|\bcompile_deep_gemm\b")),
    ("cuda_graph", re.compile(r"cuda_graph_runner\.py|\binit_(?:device|cuda)_graphs\b|\bcapture_one_batch_size\b")),
    (
        "kv_cache_profiling",
        re.compile(r"\binit_memory_pool\b|\bprofile_max_num_token\b|memory_pool\w*\.py|TokenToKVPool\b"),
    ),
    ("weight_load", re.compile(r"\bload_model\b|\bload_weights\b|model_loader/")),
    (
        "distributed_init",
        re.compile(
            r"\binit_torch_distributed\b|\binitialize_model_parallel\b|\binit_distributed_environment\b"
            r"|\bPyNcclCommunicator\b|\bncclCommInit\w*|pynccl\w*\.py|\bGroupCoordinator\b|custom_all_reduce"
        ),
    ),
)
