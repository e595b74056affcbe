"""SGLang server log lines -> the same `ColdStartReport` as vLLM's (issue 29).

SGLang prints every start-up step with a full date to the second, `[YYYY-MM-DD HH:MM:SS{ DPn}{ PPn}{ TPn}...]`
(python/sglang/srt/utils/common.py:2618-2637 at 0.5.23; the rank tags from srt/managers/scheduler.py), and
prints its own durations for the weights (`elapsed=`, 0.5.8+) and the CUDA-graph capture (`Time elapsed:`,
`elapsed=` in 0.5.23's renamed lines). Ranks work in parallel: a phase lasts as long as its slowest rank.
The phases, named like vLLM's so tables, plots and `--instance` comparisons need nothing new:

    process_start       container start -> first line (only with `started_at`)
    engine_init         the rest: imports, server args, tokenizer, distributed init, gaps
    weight_load         "Load weight begin" -> "Load weight end" (its `elapsed=` when printed)
    kv_cache_profiling  last "Load weight end" -> last "Memory pool end" (KV pool sizing and allocation)
    cuda_graph          "Capture ... cuda graph begin/end" (torch.compile, when on, runs inside it)
    api_server          capture end (or pool end) -> "The server is fired up and ready to roll!" (after the
                        warmup request); older logs and excerpts without it: uvicorn's "Application startup
                        complete." / "Uvicorn running on"

Line forms from 0.3 to 0.5.23 are in PATTERNS (the samples are tests/fixtures/sglang_logs/real/, each with its
source). Memory is read as printed: SGLang's "GB" figures come from its memory helpers, taken here as GiB
(2**30 bytes; not re-read at 0.5.23).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import chain

from fastload_constructs.coldstart import patterns as vllm_patterns
from fastload_constructs.coldstart.parser import ColdStartReport
from fastload_constructs.coldstart.records import GIB, PHASE_ORDER, Evidence, Phase, WeightLoad
from fastload_constructs.coldstart.scanner import MAX_LINE_CHARS
from fastload_constructs.core.errors import FastloadConfigError

ENGINE = "sglang"
_EVIDENCE_CHARS = 400  # as the vLLM scanner keeps (coldstart/scanner.py)
_UNIT_BYTES = {"Byte": 1, "Bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
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
    ("http_up", re.compile(r"Application startup complete\.|Uvicorn running on")),
    # http_server.py:2600 at 0.5.23, the same since 0.2.
    ("ready", re.compile(r"The server is fired up and ready to roll!")),
)
# Failures, most specific first; searched in every line (tracebacks carry no prefix).
FAILURES: tuple[tuple[str | None, re.Pattern[str]], ...] = (
    ("kv_cache_profiling", re.compile(r"Not enough memory\. Please try to increase --mem-fraction-static.*")),
    ("kv_cache_profiling", re.compile(r"max_total_tokens=\d+ is larger than the profiled value -\d+.*")),
    (None, re.compile(r"(?:torch\.)?(?:cuda\.)?OutOfMemoryError: CUDA out of memory.*")),
    ("cuda_graph", re.compile(r"Capture cuda graph failed.*", re.IGNORECASE)),
    ("cuda_graph", re.compile(r"RuntimeError: CUDA error: operation not permitted when stream is capturing.*")),
    (None, re.compile(r"Unexpected extra config keys for load format.*")),
    (None, re.compile(r"Health check failed\..*")),
    (None, re.compile(r"Scheduler hit an exception.*")),
    (None, re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception): .*")),
)
# Lines that say "this is SGLang" (engine detection, `detect`): its own messages and module paths.
MARKERS = re.compile(
    r"server_args=ServerArgs\(|Load weight (?:begin|end)\.|Capture (?:[a-z ]+ )?cuda graph (?:begin|end)"
    r"|Memory pool end\.|KV Cache is allocated\.|fired up and ready to roll|--mem-fraction-static"
    r"|Scheduler hit an exception|sglang[./]srt|\bsglang\.launch_server\b",
    re.IGNORECASE,
)
# Lines that say "this is vLLM": its logger and process names.
VLLM_MARKERS = re.compile(r"\bvllm[./]|vLLM API server version|\(EngineCore|VllmWorker|\bvllm serve\b")
# How many lines detection reads before it settles on vLLM (the parser's default).
DETECT_LINES = 2000


def detect(lines: Iterable[str]) -> tuple[str, Iterator[str]]:
    """("sglang" or "vllm", the same lines): reads ahead until a line names the engine (at most
    DETECT_LINES), and hands back every line, the ones read included."""
    it = iter(lines)
    seen: list[str] = []
    engine = "vllm"
    for line in it:
        seen.append(line)
        text = line[:MAX_LINE_CHARS]
        if MARKERS.search(text):
            engine = ENGINE
            break
        if VLLM_MARKERS.search(text) or len(seen) >= DETECT_LINES:
            break
    return engine, chain(seen, it)


@dataclass(frozen=True)
class _Event:
    at: datetime
    rank: str
    kind: str
    values: tuple[str | None, ...]
    line_number: int
    text: str


@dataclass
class _Scan:
    events: list[_Event] = field(default_factory=list)
    first_at: datetime | None = None
    last_at: datetime | None = None
    failure: tuple[str | None, str, int] | None = None  # (phase it implies, text, line number)
    failure_rank: int = len(FAILURES)
    streamed: list[tuple[float, float | None, int, str]] = field(default_factory=list)  # bytes, s, line, text
    lines_read: int = 0
    server_args: str | None = None
    ranks: set[str] = field(default_factory=set)  # every rank tag seen on a prefixed line


def _scan(lines: Iterable[str]) -> _Scan:
    scan = _Scan()
    for number, raw in enumerate(lines, start=1):
        scan.lines_read = number
        line = raw[:MAX_LINE_CHARS].rstrip("\r\n")
        for rank, (phase, pattern) in enumerate(FAILURES):
            found = pattern.search(line)
            if found and rank < scan.failure_rank:
                scan.failure, scan.failure_rank = (phase, found.group(0)[:_EVIDENCE_CHARS], number), rank
                break
        streamed = vllm_patterns.STREAMER_SUMMARY.search(line)
        if streamed:
            size = float(streamed["size"]) * _UNIT_BYTES[streamed["size_unit"]]
            scan.streamed.append((size, float(streamed["seconds"]), number, line[:_EVIDENCE_CHARS]))
        prefix = PREFIX.search(line)
        if prefix is None:
            continue
        at = datetime.strptime(prefix["at"], "%Y-%m-%d %H:%M:%S")
        if prefix["ms"]:
            at = at.replace(microsecond=int(prefix["ms"].ljust(6, "0")))
        scan.first_at = scan.first_at or at
        scan.last_at = at
        message = prefix["msg"]
        if prefix["ranks"].strip() and len(scan.ranks) < 4096:
            scan.ranks.add(prefix["ranks"].strip())
        for kind, pattern in PATTERNS:
            found = pattern.search(message)
            if found:
                if kind == "server_args" and scan.server_args is None:
                    scan.server_args = message
                scan.events.append(
                    _Event(at, prefix["ranks"].strip(), kind, found.groups(), number, line[:_EVIDENCE_CHARS])
                )
                break
    return scan


def _of(events: list[_Event], kind: str) -> list[_Event]:
    return [e for e in events if e.kind == kind]


def _workers(scan: _Scan) -> tuple[int, str]:
    """GPUs of the server: tp x pp x dp from server_args when logged, else the distinct rank tags."""
    if scan.server_args:
        sizes = {k: int(v) for k, v in re.findall(r"\b(tp_size|pp_size|dp_size)=(\d+)", scan.server_args)}
        if "tp_size" in sizes:
            count = sizes["tp_size"] * sizes.get("pp_size", 1) * sizes.get("dp_size", 1)
            return count, "server_args"
    if scan.ranks:
        return len(scan.ranks), "rank prefixes"
    return 1, "no rank prefix"


def _weights(scan: _Scan, weight_s: float | None, workers: int) -> tuple[WeightLoad | None, list[Evidence]]:
    """Bytes from each rank's "mem usage" (the GPU memory its weights took), or the streamer's summary."""
    ends = _of(scan.events, "weight_end")
    if weight_s is None:
        return None, []
    evidence: list[Evidence] = []
    if scan.streamed:
        total = sum(size for size, _, _, _ in scan.streamed)
        evidence += [Evidence("weight_load", n, text, "Run:ai streamer summary") for _, _, n, text in scan.streamed]
        rate = total / GIB / weight_s if weight_s > 0 else None
        return WeightLoad(weight_s, int(total), rate, "runai_streamer", None, len(scan.streamed), False, workers), (
            evidence
        )
    per_rank: dict[str, float] = {}
    for e in ends:
        if e.values[1] is not None:
            per_rank[e.rank] = float(e.values[1]) * GIB
    if not per_rank:
        return WeightLoad(weight_s, None, None, None, None, 0, False, workers), evidence
    per_gpu = max(per_rank.values())
    complete = len(per_rank) >= workers
    total = sum(per_rank.values()) if complete else per_gpu * workers
    rate = total / GIB / weight_s if weight_s > 0 else None
    return (
        WeightLoad(weight_s, int(total), rate, "sglang", int(per_gpu), len(per_rank), not complete, workers),
        evidence,
    )


def _began(end: _Event, seconds: float, begins: list[_Event]) -> datetime:
    """When a rank's printed phase began: its begin line when logged, else its end line less the time."""
    own = [e.at for e in begins if e.rank == end.rank and e.at <= end.at]
    return max(own) if own else end.at - timedelta(seconds=seconds)


def parse_lines(lines: Iterable[str], label: str = "log", started_at: datetime | None = None) -> ColdStartReport:
    """The report of one SGLang start-up; raises FastloadConfigError when no timed start-up line is found."""
    scan = _scan(lines)
    events = scan.events
    if not events or scan.first_at is None or scan.last_at is None:
        raise FastloadConfigError(
            "log",
            label,
            "an SGLang server log with at least one start-up line (e.g. '[2026-01-30 20:54:50 TP0] Load weight "
            "begin.', 'Capture cuda graph end', 'The server is fired up and ready to roll!')",
        )
    if started_at is not None and started_at > scan.first_at:
        raise FastloadConfigError(
            "started_at", f"{started_at:%Y-%m-%d %H:%M:%S}", "a moment before the log's first line"
        )
    evidence: list[Evidence] = []
    ready_events = _of(events, "ready") or _of(events, "http_up")
    ready = bool(ready_events)
    end = ready_events[0].at if ready else scan.last_at
    # A printed duration that ends on a line began before it: an excerpt that starts mid-phase still counts it.
    derived_starts: list[datetime] = []

    # Weights: the slowest rank's printed elapsed=, else begin -> end across ranks.
    begins, ends = _of(events, "weight_begin"), _of(events, "weight_end")
    weight_s: float | None = None
    printed = [(float(e.values[0]), e) for e in ends if e.values[0] is not None]
    if printed:
        weight_s = max(seconds for seconds, _ in printed)
        derived_starts += [_began(e, seconds, begins) for seconds, e in printed]
        evidence += [Evidence("weight_load", e.line_number, e.text, "elapsed printed") for _, e in printed][:8]
    elif begins and ends:
        weight_s = (max(e.at for e in ends) - min(e.at for e in begins)).total_seconds()
        evidence += [Evidence("weight_load", begins[0].line_number, begins[0].text, "first rank begins")]
        evidence += [Evidence("weight_load", ends[-1].line_number, ends[-1].text, "last rank ends")]
    elif begins and not ready:
        weight_s = (scan.last_at - min(e.at for e in begins)).total_seconds()
        evidence.append(Evidence("weight_load", begins[0].line_number, begins[0].text, "begins; the log ends"))

    # KV pool: last weight end -> last pool end.
    pools = _of(events, "pool_end") or _of(events, "kv_allocated")
    kv_s: float | None = None
    if ends and pools:
        kv_s = max(0.0, (max(e.at for e in pools) - max(e.at for e in ends)).total_seconds())
        evidence.append(Evidence("kv_cache_profiling", pools[-1].line_number, pools[-1].text, "last rank's pool"))
    elif ends and not ready and not _of(events, "capture_begin"):
        # Died (or the log ends) sizing the pool: weights end -> the last line.
        kv_s = max(0.0, (scan.last_at - max(e.at for e in ends)).total_seconds())
        evidence.append(
            Evidence("kv_cache_profiling", ends[-1].line_number, ends[-1].text, "weights end; the log ends")
        )

    # CUDA graphs: the slowest rank's printed time (decode and prefill captures add up per rank). A rank's
    # capture ended no earlier than its begin line plus that time (both lines are cut to the second).
    captures = _of(events, "capture_end")
    capture_begins = _of(events, "capture_begin")
    cuda_s: float | None = None
    engine_done: list[datetime] = []
    if captures:
        per_rank: dict[str, float] = {}
        for e in captures:
            per_rank[e.rank] = per_rank.get(e.rank, 0.0) + float(e.values[0] or 0)
        cuda_s = max(per_rank.values())
        for rank, seconds in per_rank.items():
            last_end = max(e.at for e in captures if e.rank == rank)
            began = [e.at for e in capture_begins if e.rank == rank]
            derived_starts.append(min(began) if began else last_end - timedelta(seconds=seconds))
            engine_done.append(max(last_end, min(began) + timedelta(seconds=seconds)) if began else last_end)
        evidence += [Evidence("cuda_graph", e.line_number, e.text, "") for e in captures][:8]
    elif capture_begins and not ready:
        cuda_s = (scan.last_at - capture_begins[0].at).total_seconds()
        evidence.append(Evidence("cuda_graph", capture_begins[0].line_number, capture_begins[0].text, "begins"))
    origin = started_at or min([scan.first_at, *derived_starts])

    # The server: from the engine's last step (capture end, else pool or weights end) to ready.
    api_s: float | None = None
    if ready:
        steps = [e for e in events if e.kind in ("capture_end", "pool_end", "kv_allocated", "weight_end")]
        if steps:
            done = max(engine_done) if engine_done else max(e.at for e in steps)
            api_s = max(0.0, (end - done).total_seconds())
            last = max(steps, key=lambda e: e.at)
            evidence.append(Evidence("api_server", last.line_number, last.text, "engine ready"))
        evidence.append(Evidence("api_server", ready_events[0].line_number, ready_events[0].text, "server ready"))

    named = {
        "process_start": (scan.first_at - started_at).total_seconds() if started_at else None,
        "weight_load": weight_s,
        "cuda_graph": cuda_s,
        "kv_cache_profiling": kv_s,
        "api_server": api_s,
    }
    span = (end - origin).total_seconds()
    named["engine_init"] = max(0.0, span - sum(v for v in named.values() if v is not None))
    phases = tuple(Phase(n, round(v, 3)) for n in PHASE_ORDER if (v := named.get(n)) is not None)

    failed_in: str | None = None
    failure: str | None = None
    if not ready:
        last_kind = events[-1].kind
        failed_in = {
            "weight_begin": "weight_load",
            "weight_end": "kv_cache_profiling",
            "kv_allocated": "kv_cache_profiling",
            "pool_end": "cuda_graph",
            "capture_begin": "cuda_graph",
            "capture_end": "api_server",
        }.get(last_kind, "engine_init")
        if scan.failure is not None:
            phase, failure, number = scan.failure
            failed_in = phase or failed_in
            evidence.append(Evidence(failed_in, number, failure, "failure"))
    workers, workers_source = _workers(scan)
    weights, weight_evidence = _weights(scan, weight_s, workers)
    evidence += weight_evidence
    if started_at is not None:
        evidence.insert(
            0,
            Evidence(
                "process_start",
                events[0].line_number,
                f"container started {started_at:%Y-%m-%d %H:%M:%S} UTC; first timed line {scan.first_at:%H:%M:%S}",
                "",
            ),
        )
    compiled = bool(scan.server_args and "enable_torch_compile=True" in scan.server_args)
    return ColdStartReport(
        label=label,
        phases=phases,
        total_s=round(sum(p.seconds for p in phases), 3),
        ready=ready,
        failure=failure,
        failed_in=failed_in,
        worker_count=workers,
        # SGLang compiles inside the capture and logs no cache hit or miss.
        compile_cache="unknown" if compiled else "not_compiled",
        compile_cache_dir=None,
        torch_compile_s=None,
        weights=weights,
        vllm_version=None,
        recognised_lines=len(events),
        mode="server",
        clock=ENGINE,
        worker_count_source=workers_source,
        evidence=tuple(evidence),
        lines_read=scan.lines_read,
        engine=ENGINE,
    )
