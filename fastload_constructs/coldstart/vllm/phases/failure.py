"""For a start that never got ready: the phase that was running when it failed, and the root cause.

Where a failure goes, strongest evidence first:

1. The traceback names what was running: the innermost frame (or code line) of the root cause's
   traceback that belongs to one phase's own work (`patterns.FAILING_CALLS`): an OOM raised under
   `capture_model` is a CUDA-graph failure whatever line came last.
2. The message names it (`patterns.KV_CACHE_FAILURE`: the KV cache does not fit).
3. Otherwise, the phase the last start-up line left running (`PHASE_AFTER`): a line that starts a phase
   ("Starting to load model", "Capturing CUDA graphs", "Compiling the model with different input
   shapes") keeps it running until a line says it ended, however long that takes. No time limit can
   close such a phase: it prints nothing until it is done, and published starts ran for hours in one
   (CUDA-graph capture with LoRA: 11,412 s, tests/fixtures/vllm_logs/real/v0.8.4_lora_long_capture;
   torch.compile 2,222 s; a load grows with the bytes). A line that ends a phase hands over to the next
   one, so a failure after "Model loading took" is never a load failure.
4. The exception to 3: a line that ends the read of the weights but not the load ("Loading weights
   took", the Run:ai streamer's summary, the shard bar at 100%) leaves only the post-processing of the
   weights and the "Model loading took" line, seconds of work (at most 6.9 s between the two lines in
   this project's fixtures). A failure within `LOAD_TAIL_S` of it is still the load's; a later one
   (the log went quiet for longer than the tail can take, e.g. 14 minutes after the weights were read)
   happened in the phase after the load.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from fastload_constructs.coldstart.report import Evidence, ended_without_error
from fastload_constructs.coldstart.vllm import patterns
from fastload_constructs.coldstart.vllm.patterns import LineKind
from fastload_constructs.coldstart.vllm.records import LogEvent, Problem, Timeline

# The phase under way after each event: where a start that never got ready stopped.
PHASE_AFTER = {
    LineKind.VERSION: "engine_init",
    LineKind.DISTRIBUTED_START: "distributed_init",
    # The ranks are assigned; the model runner is built, then the weights load.
    LineKind.DISTRIBUTED_READY: "engine_init",
    LineKind.WEIGHTS_START: "weight_load",
    LineKind.WEIGHTS_PROGRESS: "weight_load",
    LineKind.STREAMER_SUMMARY: "weight_load",
    LineKind.WEIGHTS_LOADED: "weight_load",
    LineKind.MODEL_LOADED: "dynamo_transform",
    # TPU (tpu-inference): the KV cache is sized and allocated next, then XLA precompiles.
    LineKind.WEIGHTS_ON_DEVICE: "kv_cache_profiling",
    LineKind.COMPILE_CACHE_DIR: "dynamo_transform",
    LineKind.COMPILE_CACHE_DISABLED: "dynamo_transform",
    LineKind.DYNAMO_TRANSFORM: "graph_compile",
    LineKind.GRAPH_COMPILED: "graph_compile",
    LineKind.GRAPH_FROM_CACHE: "graph_compile",
    LineKind.AOT_FROM_CACHE: "graph_compile",
    LineKind.COMPILE_TOTAL: "kv_cache_profiling",
    LineKind.PROFILING: "kv_cache_profiling",
    # vllm/v1/worker/gpu_worker.py logs the KV memory, then the engine sizes and allocates the
    # KV cache (where "max seq len" errors are raised), and only then capture begins.
    LineKind.KV_CACHE_MEMORY: "kv_cache_profiling",
    LineKind.CUDA_GRAPH_START: "cuda_graph",
    LineKind.CUDA_GRAPH: "kv_cache_profiling",
    # TPU: XLA compiles one input shape after another; the next one starts as the last one finishes.
    LineKind.XLA_COMPILE_START: "graph_compile",
    LineKind.XLA_COMPILED: "graph_compile",
    LineKind.ENGINE_INITIALISED: "api_server",
    LineKind.SERVER_STARTING: "api_server",
    LineKind.SERVER_READY: "api_server",
}
# How long after the read of the weights ended a failure still belongs to the load (see 4. above).
LOAD_TAIL_S = 60.0


@dataclass(frozen=True)
class Failure:
    phase: str
    cause: str
    evidence: Evidence | None


def _named_cause(messages: list[Problem]) -> Problem | None:
    """The first NCCL, CUDA or out-of-memory error: an exception line as printed, any other line from the
    error on ("ncclCommInitRank failed with error: NCCL error: internal error" -> "NCCL error: internal error")."""
    named = next((p for p in messages if p.is_exception and patterns.ROOT_CAUSE.search(p.text)), None)
    if named is not None:
        return named
    named = next((p for p in messages if patterns.ROOT_CAUSE.search(p.text)), None)
    found = patterns.ROOT_CAUSE.search(named.text) if named is not None else None
    return None if named is None or found is None else replace(named, text=found.group(0))


def _root_cause(timeline: Timeline) -> Problem | None:
    """Errors after the last start-up line (errors before it were survived; all of them in a log with no start-up
    line): the first NCCL, CUDA or out-of-memory error, else the first exception, else the first error message.
    A traceback's own lines are no message: when it is all the log has, it is said so."""
    after = timeline.problems[-timeline.problems_after_last_event :] if timeline.problems_after_last_event else []
    pool = after or ([] if timeline.events else timeline.problems)
    messages = [p for p in pool if not p.context]
    chosen = _named_cause(messages) or next((p for p in messages if p.is_exception), None)
    if chosen is None and messages:
        chosen = messages[0]
    if chosen is None and pool:
        return replace(pool[0], text="an error whose message is not in the log (only its traceback is)")
    return chosen


def _named_by_traceback(timeline: Timeline, cause: Problem) -> tuple[str, Problem] | None:
    """The innermost frame or code line of the root cause's traceback that belongs to one phase's work: the
    frames before its exception line, or after its message ("EngineCore failed to start.", then the traceback)."""
    lines = sorted((*timeline.problems, *timeline.frames), key=lambda p: p.line_number)
    if cause.is_exception:
        traceback = [p for p in lines if p.line_number < cause.line_number]
    else:
        # The message itself may name the call that failed ("ncclCommInitRank failed with error: ..."): it
        # is read last, as the innermost line.
        traceback = [p for p in lines if p.line_number >= cause.line_number]
        traceback = [*traceback[1:], *traceback[:1]]
    for line in reversed(traceback):
        for phase, call in patterns.FAILING_CALLS:
            if call.search(line.text):
                return phase, line
    return None


def _on_tpu(timeline: Timeline) -> bool:
    return any(patterns.TPU_WORKER.search(p.text) for p in (*timeline.problems, *timeline.frames))


def _distributed_frame(timeline: Timeline) -> Problem | None:
    """A line of the failure that belongs to the process groups' init (a Python or a C++ frame, a c10d error)."""
    lines = sorted((*timeline.problems, *timeline.frames), key=lambda p: p.line_number)
    return next((p for p in lines if patterns.DISTRIBUTED_CALLS.search(p.text)), None)


def _traceback_phase(timeline: Timeline, phase: str, frame: Problem) -> tuple[str, str]:
    """The phase a traceback's frame names, and why. A TPU's capture_model is XLA's precompile; `init_device`
    sets the device up and then joins the process groups: with a distributed frame in the failure, the latter."""
    why = f"raised under line {frame.line_number}: {frame.text.strip()[:120]}"
    if phase == "cuda_graph" and _on_tpu(timeline):
        return "graph_compile", why
    if phase == "engine_init" and patterns.INIT_DEVICE.search(frame.text):
        distributed = _distributed_frame(timeline)
        if distributed is not None:
            return "distributed_init", f"{why}; line {distributed.line_number} is the process groups' init"
    return phase, why


def _ends_the_read(event: LogEvent) -> bool:
    if event.kind is LineKind.WEIGHTS_PROGRESS:
        return event.values.get("percent") == "100"
    return event.kind in (LineKind.WEIGHTS_LOADED, LineKind.STREAMER_SUMMARY)


def _left_running(last: LogEvent | None, failed_at: datetime | None) -> tuple[str, str]:
    """The phase the last start-up line left running when the start failed, and why."""
    if last is None:
        return "engine_init", "no start-up line before it"
    phase = PHASE_AFTER[last.kind]
    if failed_at is not None and _ends_the_read(last):
        quiet = (failed_at - last.at).total_seconds()
        if quiet > LOAD_TAIL_S:
            after_load = PHASE_AFTER[LineKind.MODEL_LOADED]
            return after_load, f"{quiet:g} s after the weights were read (the load's tail takes seconds)"
    return phase, f"the phase line {last.line_number} left running"


def failure(timeline: Timeline) -> Failure:
    """Where a start that never got ready stopped, and why (or that the log says nothing about why)."""
    # The last by time: Ray prints its de-duplicated worker lines late, after lines logged later.
    phase_events = [e for e in timeline.events if e.kind is not LineKind.VERSION]
    last = max(reversed(phase_events), key=lambda e: e.at) if phase_events else None
    cause = _root_cause(timeline)
    if cause is None:
        phase, _ = _left_running(last, None)
        return Failure(phase, ended_without_error(phase), None)
    named = _named_by_traceback(timeline, cause)
    if named is not None:
        phase, why = _traceback_phase(timeline, *named)
    elif patterns.KV_CACHE_FAILURE.search(cause.text):
        phase, why = "kv_cache_profiling", "the message is the KV cache's"
    else:
        phase, why = _left_running(last, cause.at)
        if phase == "engine_init" and patterns.NCCL_ERROR.search(cause.text):
            phase, why = (
                "distributed_init",
                "an NCCL error before any later phase began (its communicators are made there)",
            )
    return Failure(phase, cause.text, Evidence("failure", cause.line_number, cause.text, f"root cause; {why}"))
