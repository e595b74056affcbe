"""weight_load: "Load weight begin" -> "Load weight end" (its `elapsed=` when printed), and the bytes on the GPUs.

Ranks load in parallel: the slowest rank's printed time wins, else the first begin -> the last end. Bytes
come from each rank's "mem usage" (the GPU memory its weights took), counted once per shard of one copy
of the model (a TP x PP shard set): data-parallel replicas print the same shard again, and with DP
attention every DP rank is one of the TP ranks. Or from the Run:ai streamer's summary. SGLang's "GB"
figures come from its memory helpers, taken here as GiB (2**30 bytes; not re-read at 0.5.23).

"mem usage" is a change in free GPU memory (model_runner.py `load_model`, 0.4.3 to 0.5.23), not a count of
the weights' bytes: it is not reported as their size on a device whose memory the CPU shares (GB10, and GH200,
GB200 with a Grace CPU: patterns.UNIFIED_MEMORY), nor when it contradicts the model's size the server args
state (model_size.py) by more than CONTRADICTS times either way; the report says why in a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from fastload_constructs.coldstart.report import GIB, Evidence, WeightLoad
from fastload_constructs.coldstart.sglang.phases.model_size import model_size
from fastload_constructs.coldstart.sglang.phases.workers import shard, shards_per_copy
from fastload_constructs.coldstart.sglang.scanner import Event, Scan

# Printed lines kept as evidence, at most (a TP8 x DP8 run prints 64).
_SHOWN = 8
# A "mem usage" this many times smaller or larger than the model's stated size is not the weights' size: a
# model name's count is rounded ("7B" for 7.6e9) and the weights share the GPU with buffers, never by 2.5x.
CONTRADICTS = 2.5


@dataclass(frozen=True)
class WeightPhase:
    seconds: float | None
    evidence: list[Evidence]
    # When each rank's printed load began: an excerpt that starts mid-load still counts it.
    began: list[datetime] = field(default_factory=list)


def _began(end: Event, seconds: float, begins: list[Event]) -> datetime:
    """When a rank's printed phase began: its begin line when logged, else its end line less the time."""
    own = [e.at for e in begins if e.rank == end.rank and e.at <= end.at]
    return max(own) if own else end.at - timedelta(seconds=seconds)


def weight_load(scan: Scan, ready: bool) -> WeightPhase:
    """The slowest rank's printed elapsed=, else begin -> end across ranks; a load the log ends in runs to its end."""
    begins, ends = scan.of("weight_begin"), scan.of("weight_end")
    printed = [(float(e.values[0]), e) for e in ends if e.values[0] is not None]
    if printed:
        return WeightPhase(
            max(seconds for seconds, _ in printed),
            [Evidence("weight_load", e.line_number, e.text, "elapsed printed") for _, e in printed][:_SHOWN],
            [_began(e, seconds, begins) for seconds, e in printed],
        )
    if begins and ends:
        return WeightPhase(
            (max(e.at for e in ends) - min(e.at for e in begins)).total_seconds(),
            [
                Evidence("weight_load", begins[0].line_number, begins[0].text, "first rank begins"),
                Evidence("weight_load", ends[-1].line_number, ends[-1].text, "last rank ends"),
            ],
        )
    if begins and not ready and scan.last_at is not None:
        return WeightPhase(
            (scan.last_at - min(e.at for e in begins)).total_seconds(),
            [Evidence("weight_load", begins[0].line_number, begins[0].text, "begins; the log ends")],
        )
    return WeightPhase(None, [])


def _streamed(scan: Scan, seconds: float, workers: int) -> tuple[WeightLoad, list[Evidence]]:
    total = sum(s.bytes for s in scan.streamed)
    evidence = [Evidence("weight_load", s.line_number, s.text, "Run:ai streamer summary") for s in scan.streamed]
    rate = total / GIB / seconds if seconds > 0 else None
    return WeightLoad(seconds, int(total), rate, "runai_streamer", None, len(scan.streamed), False, workers), evidence


def _untrusted(scan: Scan, total_bytes: float) -> str | None:
    """Why a "mem usage" total is not the weights' size (a note), or None when nothing says it is not."""
    gib = total_bytes / GIB
    said = f'the weights\' "mem usage" ({gib:.2f} GiB, a change in free GPU memory)'
    if scan.unified_memory is not None:
        device, line = scan.unified_memory
        return f"{said} is not their size on {device}'s memory, which the CPU shares (line {line}): left out"
    size = model_size(scan.server_args)
    if size is not None and not size.gib / CONTRADICTS <= gib <= size.gib * CONTRADICTS:
        return f"{said} contradicts the ~{size.gib:.1f} GiB that {size.said} take: left out"
    return None


def weights_on_gpus(scan: Scan, seconds: float | None) -> tuple[WeightLoad | None, list[Evidence], list[str]]:
    """One copy's bytes from its shards' "mem usage" (a shard no rank printed counts as the largest that did),
    or the streamer's summary; None when the log times no load. Notes say why a "mem usage" was left out."""
    if seconds is None:
        return None, [], []
    shards = shards_per_copy(scan)
    if scan.streamed:
        return (*_streamed(scan, seconds, shards), [])
    per_rank = {e.rank: float(e.values[1]) * GIB for e in scan.of("weight_end") if e.values[1] is not None}
    if not per_rank:
        return WeightLoad(seconds, None, None, None, None, 0, False, shards), [], []
    per_shard: dict[str, float] = {}
    for rank, size in per_rank.items():
        per_shard[shard(rank)] = max(size, per_shard.get(shard(rank), 0.0))
    per_gpu = max(per_shard.values())
    complete = len(per_shard) >= shards
    total = sum(per_shard.values()) + per_gpu * max(0, shards - len(per_shard))
    untrusted = _untrusted(scan, total)
    if untrusted is not None:
        return WeightLoad(seconds, None, None, None, None, len(per_rank), False, shards), [], [untrusted]
    rate = total / GIB / seconds if seconds > 0 else None
    weights = WeightLoad(seconds, int(total), rate, "sglang", int(per_gpu), len(per_rank), not complete, shards)
    return weights, [], []
