"""kv_cache_profiling: the last "Load weight end" -> the last "Memory pool end" (KV pool sizing and allocation)."""

from __future__ import annotations

from fastload_constructs.coldstart.report import Evidence
from fastload_constructs.coldstart.sglang.scanner import Scan


def kv_pool(scan: Scan, ready: bool) -> tuple[float | None, list[Evidence]]:
    """Weights end -> pool end; a start that died (or a log that ends) sizing the pool: weights end -> last line."""
    ends = scan.of("weight_end")
    pools = scan.of("pool_end") or scan.of("kv_allocated")
    if ends and pools:
        seconds = max(0.0, (max(e.at for e in pools) - max(e.at for e in ends)).total_seconds())
        return seconds, [Evidence("kv_cache_profiling", pools[-1].line_number, pools[-1].text, "last rank's pool")]
    if ends and not ready and not scan.of("capture_begin") and scan.last_at is not None:
        seconds = max(0.0, (scan.last_at - max(e.at for e in ends)).total_seconds())
        return seconds, [
            Evidence("kv_cache_profiling", ends[-1].line_number, ends[-1].text, "weights end; the log ends")
        ]
    return None, []
