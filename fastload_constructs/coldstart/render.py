"""Cold-start reports as a text table (logs side by side) and as JSON.

With a ServingPlan, its prediction is shown next to the measurements. The plan
predicts five coarser phases (`PhaseEstimate`); `report.PLAN_PHASES` says which
measured phases each one covers, so the comparison adds like for like.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastload_constructs.coldstart.report import GIB, PHASE_ORDER, PLAN_PHASES, ColdStartReport
from fastload_constructs.core.engines.phases import PhaseEstimate

PHASE_LABELS = {
    "process_start": "process start -> first log",
    "engine_init": "engine init (other)",
    "distributed_init": "distributed init (NCCL)",
    "weight_load": "weight loading",
    "dynamo_transform": "torch.compile: Dynamo transform",
    "graph_compile": "torch.compile: graph compile/load",
    "cuda_graph": "CUDA graph capture",
    "kv_cache_profiling": "KV cache / profiling",
    "api_server": "API server up",
    "warmup": "warm-up request, JIT",
}


def measured_as_plan_phases(report: ColdStartReport) -> dict[str, float]:
    """A report's seconds regrouped under the PhaseEstimate names (0 where it has none)."""
    return {name: round(seconds or 0.0, 3) for name, seconds in report.plan_phase_seconds.items()}


def predicted_seconds(estimate: PhaseEstimate) -> dict[str, float]:
    return {name: round(getattr(estimate, f"{name}_s"), 3) for name in PLAN_PHASES}


def report_as_dict(report: ColdStartReport, estimate: PhaseEstimate | None = None) -> dict[str, Any]:
    """A JSON-ready view of one report (and of the prediction it is compared with)."""
    weights = report.weights
    view: dict[str, Any] = {
        "label": report.label,
        "engine": report.engine,
        "ready": report.ready,
        "total_seconds": report.total_s,
        "dominant_phase": report.dominant_phase,
        "phases": {p.name: p.seconds for p in report.phases},
        "worker_count": report.worker_count,
        "worker_count_source": report.worker_count_source,
        "mode": report.mode,
        "clock": report.clock,
        "weights": None
        if weights is None
        else {
            "seconds": round(weights.seconds, 3),
            "bytes": weights.total_bytes,
            "gib": None if weights.total_bytes is None else round(weights.total_bytes / GIB, 3),
            "gib_scope": "one copy of the model, over its tensor- and pipeline-parallel GPUs",
            "gib_per_gpu": None if weights.per_gpu_bytes is None else round(weights.per_gpu_bytes / GIB, 3),
            "gib_total_is_estimated": weights.total_is_estimated,
            "workers_that_logged_the_load": weights.reporting_workers,
            "gib_per_s": None if weights.gib_per_s is None else round(weights.gib_per_s, 3),
            "gib_per_s_per_gpu": None if weights.per_gpu_gib_per_s is None else round(weights.per_gpu_gib_per_s, 3),
            "throughput_source": weights.throughput_source,
        },
        "torch_compile": {
            "seconds": report.torch_compile_s,
            "cache": report.compile_cache,
            "cache_dir": report.compile_cache_dir,
        },
        "engine_version": report.engine_version,
        "failure": report.failure,
        "failed_in": report.failed_in,
        "notes": list(report.notes),
        "evidence": [
            {"phase": e.phase, "line": e.line_number, "text": e.line, "note": e.note} for e in report.evidence
        ],
    }
    if estimate is not None:
        measured = measured_as_plan_phases(report)
        predicted = predicted_seconds(estimate)
        view["vs_plan"] = {name: {"predicted": predicted[name], "measured": measured[name]} for name in PLAN_PHASES}
        view["vs_plan"]["total"] = {"predicted": round(estimate.total_s, 3), "measured": report.total_s}
        view["predicted_dominant_phase"] = estimate.dominant_phase
    return view


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        first = str(cells[0]).ljust(widths[0])
        return "  ".join([first, *(str(c).rjust(w) for c, w in zip(cells[1:], widths[1:], strict=False))]).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def _total_gib(report: ColdStartReport) -> str:
    weights = report.weights
    if not weights or weights.total_bytes is None:
        return "-"
    # "~": only some ranks logged the load; the total is their per-GPU share times the workers.
    return ("~" if weights.total_is_estimated else "") + f"{weights.total_bytes / GIB:.2f}"


def render_table(reports: Sequence[ColdStartReport], estimate: PhaseEstimate | None = None) -> str:
    """Seconds per phase, one column per log, with the totals and the dominant phase."""
    header = ["phase (s)", *(r.label for r in reports)]
    present = [p for p in PHASE_ORDER if any(any(x.name == p for x in r.phases) for r in reports)]
    rows: list[list[str]] = [
        [PHASE_LABELS[p], *(_cell(r.seconds(p)) if any(x.name == p for x in r.phases) else "-" for r in reports)]
        for p in present
    ]
    rows.append(["total to ready", *(_cell(r.total_s) + ("" if r.ready else " (failed)") for r in reports)])
    rows.append(["dominant phase", *(r.dominant_phase for r in reports)])
    rows.append(["weights GiB (one copy)", *(_total_gib(r) for r in reports)])
    rows.append(
        [
            "weights GiB per GPU",
            *(
                "-" if not r.weights or r.weights.per_gpu_gib is None else f"{r.weights.per_gpu_gib:.2f}"
                for r in reports
            ),
        ]
    )
    rows.append(
        [
            "weights GiB/s (one copy)",
            *("-" if not r.weights or r.weights.gib_per_s is None else f"{r.weights.gib_per_s:.2f}" for r in reports),
        ]
    )
    rows.append(
        [
            "weights GiB/s per GPU",
            *(
                "-" if not r.weights or r.weights.per_gpu_gib_per_s is None else f"{r.weights.per_gpu_gib_per_s:.2f}"
                for r in reports
            ),
        ]
    )
    rows.append(["compile cache", *(r.compile_cache for r in reports)])
    rows.append(["workers", *(str(r.worker_count) for r in reports)])
    rows.append(
        [
            "ready at",
            *(
                ("never" if not r.ready else "server ready" if r.mode == "server" else "engine ready (offline)")
                for r in reports
            ),
        ]
    )
    parts = [_table(header, rows)]
    for r in reports:
        if not r.ready:
            parts.append(f"{r.label}: not ready; stopped during {r.failed_in}: {r.failure}")
        parts += [f"{r.label}: {note}" for note in r.notes]
    if any(r.weights and r.weights.total_is_estimated for r in reports):
        parts.append("~ only some ranks logged the load (rank 0 on recent vLLM): total = per-GPU share x workers")
    if estimate is not None:
        predicted = predicted_seconds(estimate)
        plan_header = ["plan phase (s)", "predicted", *(r.label for r in reports)]
        measured = [measured_as_plan_phases(r) for r in reports]
        plan_rows = [[name, _cell(predicted[name]), *(_cell(m[name]) for m in measured)] for name in PLAN_PHASES]
        plan_rows.append(["total", _cell(estimate.total_s), *(_cell(r.total_s) for r in reports)])
        plan_rows.append(["dominant", estimate.dominant_phase, *(max(m, key=m.__getitem__) for m in measured)])
        mapping = "; ".join(f"{k} = {' + '.join(v)}" for k, v in PLAN_PHASES.items())
        parts.append(_table(plan_header, plan_rows) + f"\n(measured regrouped: {mapping})")
    return "\n\n".join(parts)
