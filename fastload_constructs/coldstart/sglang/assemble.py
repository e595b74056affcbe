"""SGLang log lines -> the same `ColdStartReport` as vLLM's: where start-up time went.

Ranks work in parallel: a phase lasts as long as its slowest rank. The phases, named like vLLM's so
tables, plots and `--instance` comparisons need nothing new, do not overlap and add up to the time to ready:

    process_start       container start -> first line (only with `started_at`)
    engine_init         the rest: imports, server args, tokenizer, gaps
    distributed_init    "Init torch distributed begin." -> "ends." (its `elapsed=` when printed)
    weight_load         "Load weight begin" -> "Load weight end" (its `elapsed=` when printed)
    kv_cache_profiling  last "Load weight end" -> last "Memory pool end" (KV pool sizing and allocation)
    cuda_graph          "Capture ... cuda graph begin/end" (torch.compile, when on, runs inside it)
    api_server          capture end (or pool end) -> the HTTP server up
    warmup              the HTTP server up -> "The server is fired up and ready to roll!" (the warmup request,
                        and the kernels its first prefill JIT-compiles)

Each phase is worked out by its own module in `phases/`; this module puts them together (`parse_lines`,
which `coldstart/parser.py` hands an SGLang log to).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from fastload_constructs.coldstart.engine_log import EngineLog
from fastload_constructs.coldstart.report import ColdStartReport, phases_in_order
from fastload_constructs.coldstart.sglang.patterns import MARKERS
from fastload_constructs.coldstart.sglang.phases.distributed import distributed_init
from fastload_constructs.coldstart.sglang.phases.failure import failure
from fastload_constructs.coldstart.sglang.phases.graphs import cuda_graphs
from fastload_constructs.coldstart.sglang.phases.pool import kv_pool
from fastload_constructs.coldstart.sglang.phases.server import api_server, engine_done
from fastload_constructs.coldstart.sglang.phases.start import container_start, process_start, readiness
from fastload_constructs.coldstart.sglang.phases.warmup import warmup, warmup_from
from fastload_constructs.coldstart.sglang.phases.weights import weight_load, weights_on_gpus
from fastload_constructs.coldstart.sglang.phases.workers import count_workers
from fastload_constructs.coldstart.sglang.scanner import Scan, scan
from fastload_constructs.core.errors import FastloadConfigError

ENGINE = "sglang"


def _require_start_up_lines(found: Scan, label: str) -> tuple[datetime, datetime]:
    """The log's first and last timed moments; refused when it holds no timed line, or neither a start-up line
    nor a failure."""
    if not (found.events or found.failure) or found.first_at is None or found.last_at is None:
        raise FastloadConfigError(
            "log",
            label,
            "an SGLang server log with at least one start-up line (e.g. '[2026-01-30 20:54:50 TP0] Load weight "
            "begin.', 'Capture cuda graph end', 'The server is fired up and ready to roll!')",
        )
    return found.first_at, found.last_at


def parse_lines(lines: Iterable[str], label: str = "log", started_at: datetime | None = None) -> ColdStartReport:
    """The report of one SGLang start-up; raises FastloadConfigError when no timed start-up line is found."""
    found = scan(lines)
    first_at, last_at = _require_start_up_lines(found, label)
    container_start(started_at, first_at)
    ready = readiness(found, last_at)
    dist = distributed_init(found, ready.ready)
    weights = weight_load(found, ready.ready)
    pool_s, pool_evidence = kv_pool(found, ready.ready)
    capture = cuda_graphs(found, ready.ready)
    done = engine_done(found, capture.done)
    warmup_sign = warmup_from(found, ready, done)
    server_s, server_evidence = api_server(ready, done, warmup_sign)
    warmup_s, warmup_evidence = warmup(ready, warmup_sign)
    stopped = None if ready.ready else failure(found, warmup_sign is not None)
    workers, workers_source = count_workers(found)
    on_gpus, on_gpus_evidence, weight_notes = weights_on_gpus(found, weights.seconds)
    seconds = {"distributed_init": dist.seconds, "weight_load": weights.seconds, "cuda_graph": capture.seconds}
    seconds |= {"kv_cache_profiling": pool_s, "api_server": server_s, "warmup": warmup_s}
    evidence = [*dist.evidence, *weights.evidence, *pool_evidence, *capture.evidence, *server_evidence]
    evidence += warmup_evidence
    evidence += [stopped.evidence] if stopped is not None and stopped.evidence is not None else []
    evidence += on_gpus_evidence
    if started_at is not None:
        seconds["process_start"], start_line = process_start(started_at, found, first_at)
        evidence.insert(0, start_line)
    # A printed duration that ends on a line began before it: an excerpt that starts mid-phase still counts it.
    origin = started_at or min([first_at, *dist.began, *weights.began, *capture.began])
    phases = phases_in_order(seconds, (ready.end - origin).total_seconds())
    compiled = bool(found.server_args and "enable_torch_compile=True" in found.server_args)
    return ColdStartReport(
        label=label,
        engine=ENGINE,
        engine_version=None,
        phases=phases,
        total_s=round(sum(p.seconds for p in phases), 3),
        ready=ready.ready,
        failure=stopped.cause if stopped else None,
        failed_in=stopped.phase if stopped else None,
        worker_count=workers,
        # SGLang compiles inside the capture and logs no cache hit or miss.
        compile_cache="unknown" if compiled else "not_compiled",
        compile_cache_dir=None,
        torch_compile_s=None,
        weights=on_gpus,
        clock=ENGINE,
        worker_count_source=workers_source,
        evidence=tuple(evidence),
        lines_read=found.lines_read,
        notes=tuple(note for note in (found.steps.note, found.skipped.note, *weight_notes) if note),
        clock_steps=tuple(found.steps.steps),
    )


def _recognises(line: str) -> bool:
    return MARKERS.search(line) is not None


# What coldstart/parser.py needs to tell an SGLang log apart and read it.
LOG = EngineLog(ENGINE, "SGLang", _recognises, parse_lines, "The server is fired up and ready to roll!")
