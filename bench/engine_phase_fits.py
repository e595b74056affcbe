"""Re-derive the planner's engine figures from published measurements, and each fit's honest error.

Rows: tests/fixtures/engine_phase_measurements.json (each with its public source and its independent
group). Every fit weights each group equally (a row counts 1 / the rows of its group), so one harness
with many rows cannot outvote the others, and minimises the weighted sum of |ln(predicted / measured)|
(a robust fit: one source far from the rest moves it little). A model with free parameters is fitted
over a fixed grid of candidate values (FitSpec.grid); a constant is the weighted median in log space.
The predictions call the planner's own formulas (core.engines.vllm.phases, core.planning.standby) with
the row's model, GPU, TP and capture sizes, so what is fitted is what the planner computes.

Leave one source out: for each group, fit on the others and predict its rows; reported per group as
the median factor (exp of the median |ln ratio|), then the median over groups and the groups within
35%. tests/test_engine_phase_fits.py refits every figure and fails when a constant in the code drifts.

    .venv/bin/python bench/engine_phase_fits.py [--markdown]
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import math
import statistics
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fastload_constructs.core.engines.vllm.phases import (  # noqa: E402
    CaptureShape,
    VllmFigures,
    capture_seconds,
    cold_compile_seconds,
    warm_compile_seconds,
)
from fastload_constructs.core.engines.vllm.releases import release_family, uses_aot_compile  # noqa: E402
from fastload_constructs.core.planning.standby import StandbyAssumptions, wake_seconds_for  # noqa: E402

TABLE = ROOT / "tests" / "fixtures" / "engine_phase_measurements.json"
WITHIN = math.log(1.35)
Row = dict[str, Any]
Values = dict[str, float]


def load_rows(path: Path = TABLE) -> list[Row]:
    return list(json.loads(path.read_text())["rows"])


def _steps(start: float, stop: float, step: float) -> tuple[float, ...]:
    """start, start + step, ... <= stop, rounded so the grid's values are the figures' exact values."""
    count = round((stop - start) / step)
    return tuple(round(start + i * step, 6) for i in range(count + 1))


# --- the planner's formulas, per row ---------------------------------------------------------------------


def _vllm(values: Values) -> VllmFigures:
    return dataclasses.replace(VllmFigures(), **values)


def _standby(values: Values) -> StandbyAssumptions:
    return dataclasses.replace(StandbyAssumptions(), **values)


def _capture(row: Row, figures: VllmFigures) -> float:
    shape = CaptureShape(
        graphs=row["piecewise_graphs"] + row["full_graphs"],
        layers=row["layers"],
        tensor_parallel_size=row["tp"],
        weight_bytes_per_gpu=row["weight_gb"] * 1e9 / row["tp"],
        memory_gb_s=row["memory_gb_s"],
        family=release_family(row["engine_release"]),
    )
    return capture_seconds(shape, figures)


def _wake(row: Row, a: StandbyAssumptions) -> float:
    return wake_seconds_for(row["weight_gb"] * 1e9 / row["tp"], row["host_link"], a)


def _warm_compile(row: Row, figures: VllmFigures) -> float:
    return warm_compile_seconds(row["layers"] or 0, uses_aot_compile(row["engine_release"]), figures, row["tp"])


def _cold_compile(row: Row, figures: VllmFigures) -> float:
    return cold_compile_seconds(figures, row["tp"])


def _kv_and_server(row: Row, figures: VllmFigures) -> float:
    return figures.kv_and_server_s_per_layer * row["layers"]


def _constant(name: str) -> Callable[[Row, Any], float]:
    return lambda row, figures: float(getattr(figures, name))


@dataclass(frozen=True)
class FitSpec:
    """One figure set: which rows it is fitted on, the planner's formula (`predict` on the figures `build`
    makes from candidate values), and the grid of candidate values (empty for a constant: the weighted
    median)."""

    name: str
    phase: str
    keep: Callable[[Row], bool]
    predict: Callable[[Row, Any], float]
    grid: Mapping[str, tuple[float, ...]]
    constant: str = ""  # the figure a constant fit sets
    build: Callable[[Values], Any] = _vllm
    # A cited figure checked against the rows, not fitted to them (their spans differ from the planner's).
    checked_only: bool = False


def _v1_or_later(row: Row) -> bool:
    return release_family(row["engine_release"]) != "v0"


FITS: tuple[FitSpec, ...] = (
    FitSpec(
        "CUDA-graph capture",
        "cuda_graph",
        _v1_or_later,
        _capture,
        {
            "cuda_graph_fixed_s": _steps(0.25, 3.0, 0.25),
            "cuda_graph_s_per_graph_layer": _steps(0.0001, 0.002, 0.00005),
            "cuda_graph_tp_exponent": _steps(0.0, 1.0, 0.1),
        },
    ),
    FitSpec(
        "wake from sleep (level 1)",
        "wake",
        lambda row: row["sleep_level"] == 1,
        _wake,
        {"wake_fixed_s": _steps(0.01, 1.5, 0.01), "wake_pcie4_gb_s": _steps(5.0, 40.0, 0.5)},
        build=_standby,
    ),
    FitSpec(
        "torch.compile, cache hit",
        "compile_warm",
        lambda row: not uses_aot_compile(row["engine_release"]),
        _warm_compile,
        {"compile_warm_fixed_s": _steps(0.25, 8.0, 0.25), "compile_warm_s_per_layer": _steps(0.0, 0.4, 0.01)},
    ),
    FitSpec(
        "torch.compile, AOT cache hit",
        "compile_warm",
        lambda row: uses_aot_compile(row["engine_release"]),
        _constant("compile_warm_aot_s"),
        {},
        constant="compile_warm_aot_s",
    ),
    FitSpec(
        "torch.compile, cache miss",
        "compile_cold",
        lambda row: True,
        _cold_compile,
        {"compile_cold_fixed_s": _steps(1.0, 60.0, 0.5), "compile_cold_tp_exponent": _steps(0.0, 1.0, 0.05)},
    ),
    FitSpec(
        "KV cache, profiling and warm-up",
        "kv_and_server",
        lambda row: True,
        _kv_and_server,
        {"kv_and_server_s_per_layer": _steps(0.01, 0.5, 0.005)},
    ),
    FitSpec(
        "process start (checked, not fitted)",
        "process_start",
        lambda row: True,
        _constant("process_start_s"),
        {},
        constant="process_start_s",
        checked_only=True,
    ),
)


def rows_for(spec: FitSpec, rows: Sequence[Row]) -> list[Row]:
    """The fitted rows of `spec`'s phase that it is fitted on."""
    return [r for r in rows if r["phase"] == spec.phase and r["fitted"] and spec.keep(r)]


def _weights(rows: Sequence[Row]) -> list[float]:
    sizes: dict[str, int] = {}
    for r in rows:
        sizes[r["group"]] = sizes.get(r["group"], 0) + 1
    return [1 / sizes[r["group"]] for r in rows]


def _weighted_log_median(rows: Sequence[Row]) -> float:
    """exp of the group-weighted median of ln(seconds), halfway (in log space) where the weights split evenly."""
    pairs = sorted(zip((math.log(r["seconds"]) for r in rows), _weights(rows), strict=True))
    total = sum(w for _, w in pairs)
    seen = 0.0
    for i, (value, weight) in enumerate(pairs):
        seen += weight
        if math.isclose(seen, total / 2):
            return math.exp((value + pairs[i + 1][0]) / 2)
        if seen > total / 2:
            return math.exp(value)
    raise ValueError("no rows")


def _loss(spec: FitSpec, rows: Sequence[Row], weights: Sequence[float], values: Values) -> float:
    figures = spec.build(values)
    return sum(w * abs(math.log(spec.predict(r, figures) / r["seconds"])) for r, w in zip(rows, weights, strict=True))


def predict(spec: FitSpec, row: Row, values: Values) -> float:
    """The planner's prediction for `row` with the figures `values`."""
    return spec.predict(row, spec.build(values))


def fit(spec: FitSpec, rows: Sequence[Row]) -> Values:
    """The figures that fit `rows` (already `rows_for(spec)`) best, rounded to 3 significant digits for a constant."""
    if spec.constant:
        value = _weighted_log_median(rows)
        return {spec.constant: float(f"{value:.3g}")}
    names = list(spec.grid)
    candidates = (dict(zip(names, combo, strict=True)) for combo in itertools.product(*spec.grid.values()))
    weights = _weights(rows)
    return min(candidates, key=lambda values: _loss(spec, rows, weights, values))


def factor(ratios: Sequence[float]) -> float:
    """exp(median |ln ratio|): how far off a typical prediction is, either way."""
    return math.exp(statistics.median(abs(math.log(r)) for r in ratios))


@dataclass(frozen=True)
class Report:
    """A fit, its in-sample error and its leave-one-source-out error per group."""

    spec: FitSpec
    values: Values
    rows: int
    groups: int
    in_sample: float  # median over the groups of each group's factor, fitted on all rows
    loso_by_group: Mapping[str, float]

    @property
    def loso(self) -> float:
        """Median over the groups of each left-out group's median factor."""
        return statistics.median(self.loso_by_group.values())

    @property
    def groups_within(self) -> int:
        return sum(1 for f in self.loso_by_group.values() if math.log(f) < WITHIN)


def _in_sample(spec: FitSpec, rows: Sequence[Row], values: Values) -> float:
    """Median over the groups of each group's factor with the figures fitted on every row."""
    groups = sorted({r["group"] for r in rows})
    return statistics.median(
        factor([predict(spec, r, values) / r["seconds"] for r in rows if r["group"] == g]) for g in groups
    )


def report(spec: FitSpec, all_rows: Sequence[Row]) -> Report:
    rows = rows_for(spec, all_rows)
    if spec.checked_only:
        values = {spec.constant: float(getattr(spec.build({}), spec.constant))}
        return Report(spec, values, len(rows), len({r["group"] for r in rows}), _in_sample(spec, rows, values), {})
    values = fit(spec, rows)
    groups = sorted({r["group"] for r in rows})
    loso: dict[str, float] = {}
    for group in groups:
        train = [r for r in rows if r["group"] != group]
        test = [r for r in rows if r["group"] == group]
        if not train:
            continue
        held = fit(spec, train)
        loso[group] = factor([predict(spec, r, held) / r["seconds"] for r in test])
    return Report(spec, values, len(rows), len(groups), _in_sample(spec, rows, values), loso)


def v0_capture_factor(all_rows: Sequence[Row], values: Values) -> float:
    """V0's full-model graphs against the fitted model: measured / predicted on the V0 rows whose GPU is known,
    as a weighted log-median (with the V1 figures `values`)."""
    v0 = [r for r in all_rows if r["phase"] == "cuda_graph" and r["fitted"] and not _v1_or_later(r)]
    figures = _vllm({**values, "cuda_graph_v0_factor": 1.0})
    ratios = [{**r, "seconds": r["seconds"] / _capture(r, figures)} for r in v0]
    return float(f"{_weighted_log_median(ratios):.3g}")


def markdown(reports: Sequence[Report]) -> str:
    """The fits and their leave-one-source-out errors as a table (docs/planning.md)."""
    lines = [
        "| figures | fitted values | rows (sources) | in-sample factor, median over sources | leave-one-source-out"
        " factor, median over sources | sources within 35% left out |",
        "| --- | --- | ---: | ---: | ---: | ---: |",
    ]
    for r in reports:
        fitted = ", ".join(f"`{k}` {v:g}" for k, v in r.values.items()) + (" (cited)" if r.spec.checked_only else "")
        loso = f"{r.loso:.2f}" if r.loso_by_group else "-"
        within = f"{r.groups_within} of {len(r.loso_by_group)}" if r.loso_by_group else "-"
        lines.append(f"| {r.spec.name} | {fitted} | {r.rows} ({r.groups}) | {r.in_sample:.2f} | {loso} | {within} |")
    return "\n".join(lines)


def loso_detail(reports: Sequence[Report]) -> str:
    """Each left-out source's factor, per fit."""
    lines = ["| figures | left-out source | its median factor |", "| --- | --- | ---: |"]
    for r in reports:
        for group, f in sorted(r.loso_by_group.items()):
            lines.append(f"| {r.spec.name} | {group} | {f:.2f} |")
    return "\n".join(lines)


def all_reports(rows: Sequence[Row] | None = None) -> list[Report]:
    if rows is None:
        return list(_fixture_reports())
    return [report(spec, rows) for spec in FITS]


@functools.cache
def _fixture_reports() -> tuple[Report, ...]:
    """The reports of the fixture's rows, once per process (tests and the docs ask for them)."""
    return tuple(report(spec, load_rows()) for spec in FITS)


def main(argv: list[str]) -> int:
    rows = load_rows()
    reports = all_reports()
    if "--markdown" in argv:
        print(markdown(reports))
        print()
        print(loso_detail(reports))
        return 0
    for r in reports:
        print(f"{r.spec.name}: {r.values} over {r.rows} rows of {r.groups} sources; in-sample x{r.in_sample:.2f}")
        for group, f in sorted(r.loso_by_group.items()):
            print(f"    leave out {group}: x{f:.2f}")
        if r.loso_by_group:
            print(f"    median over sources x{r.loso:.2f}; {r.groups_within} of {len(r.loso_by_group)} within 35%")
    capture = next(r for r in reports if r.spec.phase == "cuda_graph")
    print(f"V0 capture factor: {v0_capture_factor(rows, dict(capture.values))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
