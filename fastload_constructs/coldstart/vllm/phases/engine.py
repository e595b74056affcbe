"""kv_cache_profiling and api_server.

kv_cache_profiling the rest of "init engine (profile, create kv cache, warmup model) took ...":
                   memory profiling, KV-cache allocation, warmup
api_server         engine ready -> "Application startup complete."
"""

from __future__ import annotations

from collections import defaultdict

from fastload_constructs.coldstart.report import Evidence
from fastload_constructs.coldstart.vllm.patterns import LineKind
from fastload_constructs.coldstart.vllm.phases.compile import Compile
from fastload_constructs.coldstart.vllm.phases.start import Readiness
from fastload_constructs.coldstart.vllm.records import LogEvent, seconds_of


def _from_profiling_lines(events: list[LogEvent], compiled: Compile) -> tuple[float | None, list[Evidence]]:
    """No "init engine" line: the profiling lines, less the torch.compile the first forward ran."""
    profiled: dict[str, float] = defaultdict(float)
    evidence: list[Evidence] = []
    for e in events:
        if e.kind is not LineKind.PROFILING:
            continue
        if "warmup" in e.values:  # 0.34: logged after torch.compile, excluding it
            profiled[e.process] += float(e.values["warmup"])
        else:  # "Memory profiling": the first forward, which runs torch.compile
            own = (compiled.total or 0.0) if e.process == compiled.process else 0.0
            profiled[e.process] += max(0.0, seconds_of(e) - own)
        evidence.append(Evidence("kv_cache_profiling", e.line_number, e.text, ""))
    return (max(profiled.values()) if profiled else None), evidence


def kv_cache(
    events: list[LogEvent], engine: LogEvent | None, compiled: Compile, cuda_graph_s: float | None
) -> tuple[float | None, list[Evidence]]:
    """ "init engine ... took" less torch.compile and CUDA graphs, which it contains."""
    if engine is None:
        return _from_profiling_lines(events, compiled)
    compile_total = compiled.total or 0.0
    note = f"{seconds_of(engine):g} s less torch.compile {compile_total:g} s and CUDA graphs {cuda_graph_s or 0:g} s"
    seconds = max(0.0, seconds_of(engine) - compile_total - (cuda_graph_s or 0.0))
    return seconds, [Evidence("kv_cache_profiling", engine.line_number, engine.text, note)]


def api_server(ready: Readiness) -> tuple[float | None, list[Evidence]]:
    """Engine ready -> "Application startup complete." (a served start only)."""
    if ready.engine is None or ready.server_ready is None:
        return None, []
    return (ready.end - ready.engine.at).total_seconds(), [
        Evidence("api_server", ready.engine.line_number, ready.engine.text, "engine ready"),
        Evidence("api_server", ready.server_ready.line_number, ready.server_ready.text, "server ready"),
    ]
