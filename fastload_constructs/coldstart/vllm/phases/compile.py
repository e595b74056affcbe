"""dynamo_transform and graph_compile: torch.compile of the slowest-compiling worker, and the cache verdict.

dynamo_transform   "Dynamo bytecode transform time"
graph_compile      the rest of "torch.compile took ... in total": Inductor compiling graphs,
                   or loading them from the compile cache; on TPU, XLA's precompile of every
                   input shape (the sum of its "Compilation finished in X [secs]." lines)

XLA's lines say nothing of a cache (the JAX compile cache is not reported per shape), so a TPU start
that precompiled (or began to: only its shapes announced) is reported as "miss": it compiled, and the log
cannot show a hit.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime

from fastload_constructs.coldstart.report import CompileCache, Evidence
from fastload_constructs.coldstart.vllm.patterns import LineKind
from fastload_constructs.coldstart.vllm.records import LogEvent, seconds_of

# 0.9.2/0.10.0 leave the cache load out of "torch.compile takes ... in total"; the sum is printed to 0.01 s.
_ROUNDING_S = 0.05
_SLOTS = {
    LineKind.DYNAMO_TRANSFORM: "dynamo",
    LineKind.GRAPH_COMPILED: "compiled",
    LineKind.GRAPH_FROM_CACHE: "loaded",
    LineKind.COMPILE_TOTAL: "total",
    LineKind.XLA_COMPILED: "compiled",
}
_GRAPH_LINES = frozenset(
    {LineKind.GRAPH_COMPILED, LineKind.GRAPH_FROM_CACHE, LineKind.COMPILE_TOTAL, LineKind.XLA_COMPILED}
)

# Lines that may follow the start of an XLA precompile while it is still running.
_XLA_RUNNING = frozenset({LineKind.XLA_COMPILE_START, LineKind.VERSION})


@dataclass
class Compile:
    dynamo: float | None
    graphs: float | None
    total: float | None
    process: str | None
    evidence: list[Evidence]


def _process_total(v: dict[str, float]) -> float:
    """One worker's torch.compile seconds: its "in total" line, or the sum of its parts when that is missing."""
    if v["total"] <= 0:
        return v["dynamo"] + v["compiled"] + v["loaded"]
    # 0.9.2/0.10.0 print the cache load but leave it out of the total (see patterns.py).
    excludes_load = v["loaded"] > 0 and v["total"] + _ROUNDING_S < v["dynamo"] + v["loaded"]
    return v["total"] + (v["loaded"] if excludes_load else 0.0)


def torch_compile(events: list[LogEvent]) -> Compile:
    """(Dynamo, graph compile or cache load, torch.compile total) of the slowest-compiling worker."""
    per_process: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    lines: dict[str, list[LogEvent]] = defaultdict(list)
    for event in events:
        slot = _SLOTS.get(event.kind)
        if slot:
            per_process[event.process][slot] += seconds_of(event)
            lines[event.process].append(event)
    if not per_process:
        return Compile(None, None, None, None, [])
    totals = {process: _process_total(v) for process, v in per_process.items()}
    slowest = max(totals, key=totals.__getitem__)
    kinds = {e.kind for e in lines[slowest]}
    dynamo = per_process[slowest]["dynamo"]
    total = max(totals[slowest], dynamo)
    # A phase whose line is missing (a cut log) is left out rather than shown as 0 s.
    shown_dynamo = dynamo if LineKind.DYNAMO_TRANSFORM in kinds else None
    evidence = [
        Evidence(
            "dynamo_transform" if e.kind is LineKind.DYNAMO_TRANSFORM else "graph_compile", e.line_number, e.text, ""
        )
        for e in lines[slowest]
    ]
    return Compile(shown_dynamo, total - dynamo if kinds & _GRAPH_LINES else None, total, slowest, evidence)


def compile_cache(events: list[LogEvent]) -> tuple[CompileCache, str | None]:
    """hit, miss, partial (some graphs from the cache), disabled or not_compiled; and the cache directory."""
    kinds = {e.kind for e in events}
    directory = next((e.values["path"] for e in events if e.kind is LineKind.COMPILE_CACHE_DIR), None)
    hit = bool(kinds & {LineKind.GRAPH_FROM_CACHE, LineKind.AOT_FROM_CACHE})
    miss = bool(kinds & {LineKind.GRAPH_COMPILED, LineKind.XLA_COMPILED})
    if hit and miss:
        return "partial", directory
    if hit:
        return "hit", directory
    if LineKind.COMPILE_CACHE_DISABLED in kinds:
        return "disabled", directory
    # A compile with no cache-hit line compiled from scratch (the Dynamo or graph line may be cut from the log;
    # a TPU's XLA precompile may show only the shapes it started).
    if miss or kinds & {LineKind.DYNAMO_TRANSFORM, LineKind.COMPILE_TOTAL, LineKind.XLA_COMPILE_START}:
        return "miss", directory
    return "not_compiled", directory


def xla_still_compiling(events: list[LogEvent], end: datetime) -> tuple[float, Evidence] | None:
    """A TPU start that stopped during XLA's precompile: the shapes since the last "Compilation finished"
    ran until `end` (as a load that died runs until the end of the log)."""
    last_done = max((i for i, e in enumerate(events) if e.kind is LineKind.XLA_COMPILED), default=-1)
    begun = next((e for e in events[last_done + 1 :] if e.kind is LineKind.XLA_COMPILE_START), None)
    if begun is None or any(e.kind not in _XLA_RUNNING for e in events[last_done + 1 :] if e.at > begun.at):
        return None
    seconds = max(0.0, (end - begun.at).total_seconds())
    return seconds, Evidence(
        "graph_compile", begun.line_number, begun.text, f"still compiling: {seconds:g} s to the end"
    )
