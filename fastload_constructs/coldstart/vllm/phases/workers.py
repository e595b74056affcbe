"""How many GPU workers ran: every phase lasts as long as its slowest worker."""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.coldstart.vllm.patterns import LineKind
from fastload_constructs.coldstart.vllm.records import Timeline, by_process


@dataclass(frozen=True)
class Workers:
    count: int
    source: str


_WORK = (LineKind.MODEL_LOADED, LineKind.WEIGHTS_START, LineKind.CUDA_GRAPH, LineKind.WEIGHTS_LOADED)


def _prefixed(timeline: Timeline) -> int:
    """Workers named by a process prefix. V0's multiprocessing executor runs the driver (rank 0) in the
    main process (vllm/executor/mp_distributed_executor.py, 0.6.6-0.9.2): it has no prefix."""
    main_worked = any(e.process == "main" for e in timeline.events if e.kind in _WORK)
    return len(timeline.worker_pids) + (1 if timeline.v0_worker_processes and main_worked else 0)


def count_workers(timeline: Timeline) -> Workers:
    """The GPU worker count from every signal the log carries; the largest wins (ranks that log nothing still ran)."""
    events = timeline.events
    loaded = by_process(events, LineKind.MODEL_LOADED)
    signals = {
        "world_size": max(timeline.world_sizes, default=0),
        "tensor_parallel_size x pipeline_parallel_size": timeline.parallel_config,
        "worker prefixes": _prefixed(timeline),
        "workers that logged the model load": sum(1 + lines[-1].repeated for lines in loaded.values()),
        "workers that logged CUDA graphs": len({e.process for e in timeline.of_kind(LineKind.CUDA_GRAPH)}),
        "Ray's repeated-line count": max((1 + e.repeated for e in events if e.repeated), default=0),
    }
    best = max(signals.values())
    if best <= 0:
        return Workers(1, "no multi-GPU signal in the log")
    return Workers(best, next(name for name, value in signals.items() if value == best))
