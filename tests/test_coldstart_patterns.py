"""Every pattern against the format strings as they appear in vLLM's source, rendered the way logging does."""

from __future__ import annotations

import pytest

from fastload_constructs.coldstart.forms import ANSI_ESCAPE, FRAME_CHARS
from fastload_constructs.coldstart.vllm.patterns import (
    RAY_REPEATED,
    RECORD,
    LineKind,
    classify,
    classify_bare,
)

# (release and file the format string was read from, format string, args, kind)
FORMATS = [
    ("0.34.0 v1/worker/gpu/model_runner.py", "Loading model from scratch...", (), LineKind.WEIGHTS_START),
    ("0.11.0 v1/worker/gpu_model_runner.py", "Starting to load model %s...", ("s3://b/m",), LineKind.WEIGHTS_START),
    (
        "0.34.0 v1/worker/gpu/model_runner.py",
        "Model loading took %s GiB memory and %.6f seconds",
        ("14.99", 31.7),
        LineKind.MODEL_LOADED,
    ),
    (
        "0.11.0 v1/worker/gpu_model_runner.py",
        "Model loading took %.4f GiB and %.6f seconds",
        (14.99, 31.7),
        LineKind.MODEL_LOADED,
    ),
    ("0.6.6 worker/model_runner.py", "Loading model weights took %.4f GB", (14.99,), LineKind.MODEL_LOADED),
    ("0.34.0 model_loader/default_loader.py", "Loading weights took %.2f seconds", (30.1,), LineKind.WEIGHTS_LOADED),
    (
        "0.34.0 compilation/backends.py",
        "%sUsing cache directory: %s for vLLM's torch.compile",
        ("[backbone] ", "/c/rank_0_0/backbone"),
        LineKind.COMPILE_CACHE_DIR,
    ),
    (
        "0.34.0 compilation/backends.py",
        "%svLLM's torch.compile cache is disabled.",
        ("",),
        LineKind.COMPILE_CACHE_DISABLED,
    ),
    (
        "0.34.0 compilation/backends.py",
        "%sDynamo bytecode transform time: %.2f s",
        ("[backbone] ", 9.1),
        LineKind.DYNAMO_TRANSFORM,
    ),
    (
        "0.34.0 compilation/backends.py",
        "%sCompiling a graph for compile range %s takes %.2f s",
        ("", "(1, 8192)", 37.9),
        LineKind.GRAPH_COMPILED,
    ),
    (
        "0.11.0 compilation/backends.py",
        "Compiling a graph for dynamic shape takes %.2f s",
        (37.9,),
        LineKind.GRAPH_COMPILED,
    ),
    (
        "0.11.0 compilation/backends.py",
        "Compiling a graph for shape %s takes %.2f s",
        (8, 3.2),
        LineKind.GRAPH_COMPILED,
    ),
    (
        "0.8.5 compilation/backends.py",
        "Compiling a graph for general shape takes %.2f s",
        (37.9,),
        LineKind.GRAPH_COMPILED,
    ),
    (
        "0.34.0 compilation/backends.py",
        "%sDirectly load the compiled graph(s) for compile range %s from the cache, took %.3f s",
        ("[backbone] ", "(1, 8192)", 1.873),
        LineKind.GRAPH_FROM_CACHE,
    ),
    (
        "0.11.0 compilation/backends.py",
        "Directly load the compiled graph(s) for dynamic shape from the cache, took %.3f s",
        (1.873,),
        LineKind.GRAPH_FROM_CACHE,
    ),
    (
        "0.8.5 compilation/backends.py",
        "Directly load the compiled graph(s) for shape %s from the cache, took %.3f s",
        (None, 2.1),
        LineKind.GRAPH_FROM_CACHE,
    ),
    (
        "0.34.0 compilation/decorators.py",
        "%sDirectly load AOT compilation from path %s",
        ("", "/c/aot/model"),
        LineKind.AOT_FROM_CACHE,
    ),
    ("0.34.0 compilation/monitor.py", "%storch.compile took %.2f s in total", ("", 48.3), LineKind.COMPILE_TOTAL),
    ("0.11.0 compilation/monitor.py", "torch.compile takes %.2f s in total", (48.3,), LineKind.COMPILE_TOTAL),
    (
        "0.34.0 v1/worker/gpu/model_runner.py",
        "Graph capturing finished in %.0f secs, took %.2f GiB",
        (15.2, 0.62),
        LineKind.CUDA_GRAPH,
    ),
    ("0.34.0 v1/worker/gpu_worker.py", "Available KV cache memory: %s GiB", ("21.37",), LineKind.KV_CACHE_MEMORY),
    ("0.34.0 compilation/monitor.py", "%sInitial profiling/warmup run took %.2f s", ("", 2.6), LineKind.PROFILING),
    (
        "0.11.0 utils/__init__.py",
        "Memory profiling takes %.2f seconds. Total non KV cache memory: %.2fGiB",
        (3.2, 16.1),
        LineKind.PROFILING,
    ),
    (
        "0.34.0 v1/engine/core.py",
        "init engine (profile, create kv cache, warmup model) took %.2f s (compilation: %.2f s)",
        (68.8, 48.3),
        LineKind.ENGINE_INITIALISED,
    ),
    (
        "0.34.0 v1/engine/core.py",
        "init engine (profile, create kv cache, warmup model) took %.2f s",
        (20.1,),
        LineKind.ENGINE_INITIALISED,
    ),
    (
        "0.11.0 v1/engine/core.py",
        "init engine (profile, create kv cache, warmup model) took %.2f seconds",
        (98.4,),
        LineKind.ENGINE_INITIALISED,
    ),
    (
        "0.34.0 entrypoints/launchers/api_server/entry.py",
        "Starting vLLM server on %s",
        ("http://0.0.0.0:8000",),
        LineKind.SERVER_STARTING,
    ),
    (
        "0.11.0 entrypoints/openai/api_server.py",
        "Starting vLLM API server %d on %s",
        (0, "http://0.0.0.0:8000"),
        LineKind.SERVER_STARTING,
    ),
    (
        "0.8.5 entrypoints/openai/api_server.py",
        "Starting vLLM API server on http%s://%s:%d",
        ("", "0.0.0.0", 8000),
        LineKind.SERVER_STARTING,
    ),
    ("uvicorn lifespan", "Application startup complete.", (), LineKind.SERVER_READY),
    ("0.11.0 entrypoints/openai/api_server.py", "vLLM API server version %s", ("0.11.0",), LineKind.VERSION),
    (
        "0.34.0 v1/engine/core.py",
        "Initializing a V1 LLM engine (v%s) with config: %s",
        ("0.34.0", "model='m'"),
        LineKind.VERSION,
    ),
]


@pytest.mark.parametrize("origin, fmt, args, kind", FORMATS, ids=[f"{o}: {f[:40]}" for o, f, _, _ in FORMATS])
def test_each_vllm_format_string_is_recognised(origin, fmt, args, kind):
    found = classify(fmt % args if args else fmt)
    assert found is not None, origin
    assert found[0] is kind


def test_streamer_summary_formats():
    # runai-model-streamer 0.17.1 (with device) and 0.11.0/0.14.0 (without), humanize.naturalsize(binary=True) sizes.
    for line in (
        "[RunAI Streamer] Overall time to stream 14.96 GiB of all files to cuda:0: 30.41s, 503.7 MiB/s",
        "[RunAI Streamer] Overall time to stream 812.3 MiB of all files: 2.1s, 386.8 MiB/s",
    ):
        kind, match = classify(line)
        assert kind is LineKind.STREAMER_SUMMARY
        assert float(match["seconds"]) > 0


def test_unrelated_messages_are_not_recognised():
    for message in (
        "Loading weights on cuda ...",
        "Route: /health, Methods: GET",
        "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%",
        "Cache the graph of compile range",
    ):
        assert classify(message) is None


@pytest.mark.parametrize(
    "line, process, source",
    [
        ("(EngineCore pid=211) INFO 12-02 17:00:53 [model_runner.py:441] x", "EngineCore", "model_runner.py:441"),
        (
            "(VllmWorker rank=1 pid=302) INFO 12-02 14:05:37 [gpu_model_runner.py:1347] x",
            "VllmWorker rank=1",
            "gpu_model_runner.py:1347",
        ),
        ("INFO 12-02 15:30:41 model_runner.py:1099] x", None, "model_runner.py:1099"),
        ("myprefix INFO 12-02 15:30:41 [v1/worker/.../gpu_worker.py:298] x", None, "v1/worker/.../gpu_worker.py:298"),
    ],
)
def test_record_envelopes_of_each_release(line, process, source):
    record = RECORD.search(line)
    assert record and record["process"] == process and record["source"] == source and record["message"] == "x"


@pytest.mark.parametrize(
    "origin, message, kind",
    [
        (
            "0.7.x-0.8.4 worker/model_runner.py",
            "Model loading took 15.4137 GB and 9.033798 seconds",
            LineKind.MODEL_LOADED,
        ),
        ("0.5.x-0.6.3 worker/model_runner.py", "Graph capturing finished in 32 secs.", LineKind.CUDA_GRAPH),
        (
            "0.6.5 worker/worker.py",
            "Memory profiling results: duration=71.88 seconds, total_gpu_memory=79.15GiB",
            LineKind.PROFILING,
        ),
        (
            "0.6.x-0.9.2 worker/model_runner.py",
            "Capturing cudagraphs for decoding. This may lead to",
            LineKind.CUDA_GRAPH_START,
        ),
        (
            "0.6.x engine/llm_engine.py",
            "Initializing an LLM engine (v0.6.1.dev238+ge2c6e0a82) with config: x",
            LineKind.VERSION,
        ),
        ("0.8.5 engine/llm_engine.py", "Initializing a V0 LLM engine (v0.8.5.post1) with config: x", LineKind.VERSION),
    ],
)
def test_older_release_wordings(origin, message, kind):
    found = classify(message)
    assert found is not None and found[0] is kind, origin


def test_bare_lines_streamer_print_and_progress_bars():
    for line in (
        "[RunAI Streamer] Overall time to stream 942.3 MiB of all files: 0.18s, 5.0 GiB/s",
        "(Worker_TP1 pid=3) [2026-02-15 05:16:38] INFO file_streamer.py:66: [RunAI Streamer] Overall time to "
        "stream 34.3 GiB of all files to cpu: 28.52s, 1.2 GiB/s",
        "[RunAI Distributed Streamer] Overall time to stream 7.1 GiB of all files to cuda:0: 3.62s, 2.0 GiB/s",
    ):
        found = classify_bare(line)
        assert found is not None and found[0] is LineKind.STREAMER_SUMMARY, line
    found = classify_bare("Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 100%|███| 51/51")
    assert found is not None and found[0] is LineKind.CUDA_GRAPH_START
    assert classify_bare("Loading safetensors checkpoint shards: 100% Completed | 4/4") is None


def test_prefix_variants_ansi_without_escape_and_frames():
    assert RECORD.search("(VllmWorker TP1 pid=3527) INFO 09-01 13:22:49 [default_loader.py:262] x")["process"] == (
        "VllmWorker TP1"
    )
    ray = "(RayWorkerWrapper pid=11876, ip=172.19.197.159) INFO 04-25 14:54:40 [loader.py:458] x"
    assert RECORD.search(ray)["process"] == "RayWorkerWrapper"
    pasted = "[1;36m(VllmWorkerProcess pid=9)[0;0m INFO 12-02 15:30:41 [model_runner.py:1099] x"
    assert RECORD.search(ANSI_ESCAPE.sub("", pasted))["process"] == "VllmWorkerProcess"
    assert (
        ANSI_ESCAPE.sub("", "INFO 12-02 15:30:41 [model_runner.py:1099] x")
        == "INFO 12-02 15:30:41 [model_runner.py:1099] x"
    )
    assert (
        "│ INFO 03-21 20:15:44 [monitor.py:33] x        │".strip(FRAME_CHARS) == "INFO 03-21 20:15:44 [monitor.py:33] x"
    )
    assert RAY_REPEATED.search("Dynamo bytecode transform time: 10.55 s [repeated 7x across cluster]")["times"] == "7"
