"""weight_load: the slowest worker's load time, the bytes on the GPUs, and how fast they arrived.

"Model loading took ... seconds" (slowest worker) when printed; 0.5-0.6.6 print no time, so it runs
from that worker's "Starting to load model"; TPU (tpu-inference) prints none either: from "Loading
model with MODEL_IMPL_TYPE" to "Init model | hbm=" (the weights in HBM); for a start that died while
loading, from "Starting to load model" (or the first shard progress bar) to the end of the log.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from fastload_constructs.coldstart.report import GIB, Evidence, WeightLoad
from fastload_constructs.coldstart.streamer import streamed_bytes
from fastload_constructs.coldstart.vllm.patterns import LineKind
from fastload_constructs.coldstart.vllm.records import LogEvent, by_process, seconds_of


@dataclass
class WeightPhase:
    seconds: float | None
    weights: WeightLoad | None
    evidence: list[Evidence] = field(default_factory=list)
    # The line the throughput came from (listed after the other phases' evidence).
    rate_evidence: list[Evidence] = field(default_factory=list)


@dataclass
class _Reported:
    """What the workers' "Model loading took X GiB" lines add up to."""

    per_gpu_gib: float = 0.0
    gib: float = 0.0
    workers: int = 0


def _reported(loaded: dict[str, list[LogEvent]]) -> _Reported:
    total = _Reported()
    for lines in loaded.values():
        last = lines[-1]
        gib = float(last.values["gib"])
        total.per_gpu_gib = max(total.per_gpu_gib, gib)
        total.gib += gib * (1 + last.repeated)
        total.workers += 1 + last.repeated
    return total


def _slowest_worker(
    loaded: dict[str, list[LogEvent]], starts: dict[str, list[LogEvent]]
) -> tuple[float, list[Evidence]] | None:
    """The slowest worker's own load time (printed, or from its own start line); None when no worker has one."""
    per_worker: list[tuple[float, LogEvent, LogEvent | None]] = []
    for process, lines in loaded.items():
        last = lines[-1]
        if "seconds" in last.values:
            per_worker.append((float(last.values["seconds"]), last, None))
            continue
        # 0.5-0.6.6 print no seconds: time it from this worker's "Starting to load model".
        earlier = [s for s in starts.get(process, []) if s.at <= last.at]
        if earlier:
            per_worker.append(((last.at - earlier[-1].at).total_seconds(), last, earlier[-1]))
    if not per_worker:
        return None
    seconds, slowest, begun = max(per_worker, key=lambda item: item[0])
    evidence = [Evidence("weight_load", begun.line_number, begun.text, "load starts")] if begun else []
    evidence.append(Evidence("weight_load", slowest.line_number, slowest.text, f"slowest worker: {seconds:g} s"))
    return seconds, evidence


def _first_start_to_last_end(
    loaded: dict[str, list[LogEvent]], starts: dict[str, list[LogEvent]]
) -> tuple[float, list[Evidence]]:
    """Starts and ends from different processes (a cut log): the ranks load in parallel, first start -> last end.
    -1 when there is no start line either (unknown)."""
    all_starts = [s for lines in starts.values() for s in lines]
    last_end = max((lines[-1] for lines in loaded.values()), key=lambda e: e.at)
    if not all_starts:
        return -1.0, []
    first_start = min(all_starts, key=lambda e: e.at)
    return max(0.0, (last_end.at - first_start.at).total_seconds()), [
        Evidence("weight_load", first_start.line_number, first_start.text, "first load start"),
        Evidence("weight_load", last_end.line_number, last_end.text, "last load end"),
    ]


def _streamer_rate(streamed: list[LogEvent], workers: int) -> tuple[float | None, Evidence]:
    """GiB/s from the Run:ai streamer's own summary lines (scaled up to the workers that did not print one)."""
    by_streamer: dict[str, list[LogEvent]] = defaultdict(list)
    for e in streamed:
        by_streamer[e.process].append(e)
    total = sum(streamed_bytes(e.values["size"], e.values["size_unit"]) for e in streamed)
    # Bare lines carry no prefix: each one is a worker's own summary.
    streamers = sum(len(v) if p == "main" else 1 for p, v in by_streamer.items())
    if workers > streamers:
        total *= workers / streamers
    slowest = max(streamed, key=seconds_of)
    rate = total / GIB / seconds_of(slowest) if seconds_of(slowest) > 0 else None
    return rate, Evidence("weight_load", slowest.line_number, slowest.text, "GiB/s from this line")


def _vllm_rate(weights_only: list[LogEvent], total_gib: float, seconds: float) -> tuple[float | None, list[Evidence]]:
    """GiB/s over "Loading weights took" (the pure read) when printed, else over the whole load."""
    pure_event = max(weights_only, key=seconds_of) if weights_only else None
    pure = seconds_of(pure_event) if pure_event else seconds
    rate = total_gib / pure if pure > 0 else None
    if pure_event is None:
        return rate, []
    return rate, [Evidence("weight_load", pure_event.line_number, pure_event.text, "GiB/s from this line")]


def _on_device(events: list[LogEvent], workers: int) -> WeightPhase:
    """TPU (tpu-inference): each worker's load start -> its "Init model | hbm=" line; the slowest wins."""
    landed = by_process(events, LineKind.WEIGHTS_ON_DEVICE)
    starts = by_process(events, LineKind.WEIGHTS_START)
    timed: list[tuple[float, LogEvent, LogEvent]] = []
    for process, lines in landed.items():
        earlier = [s for s in starts.get(process, []) if s.at <= lines[0].at]
        if earlier:
            timed.append(((lines[0].at - earlier[0].at).total_seconds(), earlier[0], lines[0]))
    if not timed:
        return WeightPhase(None, None)
    seconds, begun, done = max(timed, key=lambda item: item[0])
    evidence = [
        Evidence("weight_load", begun.line_number, begun.text, "load starts"),
        Evidence("weight_load", done.line_number, done.text, f"weights in HBM: {seconds:g} s"),
    ]
    return WeightPhase(seconds, WeightLoad(seconds, None, None, None, workers=workers), evidence)


def _weights_only(weights_only: list[LogEvent], workers: int) -> WeightPhase:
    """Only "Loading weights took" (no "Model loading took"): its time, no bytes."""
    slowest = max(weights_only, key=seconds_of)
    seconds = seconds_of(slowest)
    evidence = [Evidence("weight_load", slowest.line_number, slowest.text, "weights only")]
    return WeightPhase(seconds, WeightLoad(seconds, None, None, None, workers=workers), evidence)


def weight_load(events: list[LogEvent], workers: int) -> WeightPhase:
    """Slowest worker's load time, bytes on the GPUs, throughput, and the lines they came from."""
    loaded = by_process(events, LineKind.MODEL_LOADED)
    weights_only = [e for e in events if e.kind is LineKind.WEIGHTS_LOADED]
    streamed = [e for e in events if e.kind is LineKind.STREAMER_SUMMARY]
    if not loaded:
        if weights_only:
            return _weights_only(weights_only, workers)
        return _on_device(events, workers)
    starts = by_process(events, LineKind.WEIGHTS_START)
    timed = _slowest_worker(loaded, starts)
    seconds, evidence = timed if timed is not None else _first_start_to_last_end(loaded, starts)
    reported = _reported(loaded)
    estimated = workers > reported.workers
    total_gib = reported.gib + reported.per_gpu_gib * (workers - reported.workers) if estimated else reported.gib
    if streamed:
        rate, streamer_line = _streamer_rate(streamed, workers)
        source, rate_evidence = "runai_streamer", [streamer_line]
    else:
        rate, rate_evidence = _vllm_rate(weights_only, total_gib, seconds)
        source = "vllm"
    weights = WeightLoad(
        seconds=max(seconds, 0.0),
        total_bytes=round(total_gib * GIB),
        gib_per_s=rate,
        throughput_source=source,
        per_gpu_bytes=round(reported.per_gpu_gib * GIB),
        reporting_workers=reported.workers,
        total_is_estimated=estimated,
        workers=workers,
    )
    return WeightPhase(None if seconds < 0 else seconds, weights, evidence, rate_evidence)


def died_while_loading(events: list[LogEvent], end: datetime) -> tuple[float, Evidence] | None:
    """A start that never finished loading (OOM, S3 access denied): the load ran from its first start to `end`."""
    start = next((e for e in events if e.kind in (LineKind.WEIGHTS_START, LineKind.WEIGHTS_PROGRESS)), None)
    if start is None or any(e.kind is LineKind.MODEL_LOADED for e in events):
        return None
    return (end - start.at).total_seconds(), Evidence("weight_load", start.line_number, start.text, "load starts")
