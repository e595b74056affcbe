"""The assumptions file `fastload calibrate` writes and `fastload plan --assumptions` / cdk.json's
`fastload:assumptions` read: every figure, the measured throughputs and where they came from."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from fastload_constructs.core.engines.vllm import VLLM
from fastload_constructs.core.engines.vllm.phases import VllmFigures
from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.figure_bounds import check_figure, check_rate

FORMAT = "fastload-assumptions/1"
# The file's "assumptions" object holds, flat, the platform's figures (LoadAssumptions) and vLLM's
# (VllmFigures): the engine whose logs `fastload calibrate` reads.
_PLATFORM_FIELDS = tuple(
    f.name for f in dataclasses.fields(LoadAssumptions) if f.name not in ("measured_throughput_mb_s", "engine_figures")
)
_VLLM_FIELDS = tuple(f.name for f in dataclasses.fields(VllmFigures))
_FLOAT_FIELDS = _PLATFORM_FIELDS + _VLLM_FIELDS


def vllm_figures(a: LoadAssumptions) -> VllmFigures:
    """vLLM's figures in `a`: calibrated ones, else vLLM's cited defaults."""
    return VLLM.figures(a.figures_for(VLLM.name))


def with_vllm_figures(a: LoadAssumptions, **changes: float) -> LoadAssumptions:
    """`a` with vLLM's figures changed as given."""
    figures = dataclasses.replace(vllm_figures(a), **changes)
    return dataclasses.replace(a, engine_figures={**a.engine_figures, VLLM.name: figures})


def assumptions_as_dict(a: LoadAssumptions, fitted_from: list[str] | None = None) -> dict[str, object]:
    """The assumptions file's JSON: every figure, the measured throughputs and where they came from.

    Every figure is checked against its range first (`figure_bounds`), so the file is JSON (no NaN, no
    Infinity) and `plan` reads back whatever was written; one out of range is refused, named."""
    figures = vllm_figures(a)
    values = {
        **{name: getattr(a, name) for name in _PLATFORM_FIELDS},
        **{name: getattr(figures, name) for name in _VLLM_FIELDS},
    }
    return {
        "format": FORMAT,
        "fitted_from": list(fitted_from or []),
        # A figure left at None (no calibrated node phases) is not written: the fitted ones apply.
        "assumptions": {
            name: check_figure(name, v, f"assumptions.{name}") for name, v in values.items() if v is not None
        },
        "measured_throughput_mb_s": [
            {"instance_type": i, "source": s, "mb_s": check_rate(mb_s, f"assumptions.measured_throughput_mb_s[{n}]")}
            for n, (i, s, mb_s) in enumerate(a.measured_throughput_mb_s)
        ],
    }


# Figures an older planner wrote that the re-derived engine model no longer has: refused by name, with the fix.
_RETIRED_FIELDS = frozenset(
    {
        "dynamo_s_per_layer",
        "inductor_s_per_layer",
        "inductor_fixed_s",
        "compile_warm_dynamo_s_per_layer",
        "compile_warm_v1_s",
        "compile_warm_recent_s",
        "cuda_graph_full_s_per_graph_layer",
        "cuda_graph_hopper_factor",
        "kv_and_server_s",
        "compile_cold_s_per_layer",
    }
)


def _figures_from(values: dict[object, object], field: str) -> dict[str, float]:
    """The file's "assumptions" object: every key one figure, every value a number in its range."""
    changes: dict[str, float] = {}
    for key, value in values.items():
        if key in _RETIRED_FIELDS:
            raise FastloadConfigError(
                f"{field}.assumptions.{key}", value, "a figure of this planner: run `fastload calibrate` again"
            )
        if key not in _FLOAT_FIELDS:
            raise FastloadConfigError(f"{field}.assumptions.{key}", value, "one of " + ", ".join(_FLOAT_FIELDS))
        assert isinstance(key, str)
        changes[key] = check_figure(key, value, f"{field}.assumptions.{key}")
    return changes


def _throughputs_from(rows: object, field: str) -> tuple[tuple[str, str, float], ...]:
    require(isinstance(rows, list), f"{field}.measured_throughput_mb_s", rows, "a list")
    assert isinstance(rows, list)
    measured = []
    for i, row in enumerate(rows):
        where = f"{field}.measured_throughput_mb_s[{i}]"
        ok = (
            isinstance(row, dict) and isinstance(row.get("instance_type"), str) and row.get("source") in ("s3", "local")
        )
        require(ok, where, row, '{"instance_type": "g6e.2xlarge", "source": "s3" or "local", "mb_s": a rate}')
        measured.append((row["instance_type"], row["source"], check_rate(row.get("mb_s"), where)))
    return tuple(measured)


def assumptions_from_dict(raw: object, field: str = "assumptions") -> LoadAssumptions:
    """Read an assumptions file's JSON; names the bad key. Keys left out keep their cited defaults."""
    require(isinstance(raw, dict), field, type(raw).__name__, "a JSON object written by `fastload calibrate`")
    assert isinstance(raw, dict)
    require(raw.get("format") == FORMAT, f"{field}.format", raw.get("format"), repr(FORMAT))
    unknown = sorted(set(raw) - {"format", "fitted_from", "assumptions", "measured_throughput_mb_s"})
    require(not unknown, f"{field}.{unknown[0] if unknown else ''}", unknown, "format, assumptions, ...")
    values = raw.get("assumptions", {})
    require(isinstance(values, dict), f"{field}.assumptions", values, "an object of numbers")
    changes = _figures_from(values, field)
    platform = {k: v for k, v in changes.items() if k in _PLATFORM_FIELDS}
    engine = {k: v for k, v in changes.items() if k in _VLLM_FIELDS}
    measured = _throughputs_from(raw.get("measured_throughput_mb_s", []), field)
    a = dataclasses.replace(LoadAssumptions(), measured_throughput_mb_s=measured, **platform)  # type: ignore[arg-type]
    return with_vllm_figures(a, **engine)


def read_assumptions_file(path: object, field: str = "assumptions") -> LoadAssumptions:
    """The assumptions in the file at `path`; FastloadConfigError naming `field` when it is not one."""
    require(isinstance(path, (str, Path)) and str(path) != "", field, path, "the path of a `fastload calibrate` file")
    file = Path(str(path))
    require(file.is_file(), field, str(path), "an existing assumptions file from `fastload calibrate`")
    try:
        raw = json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FastloadConfigError(field, str(path), f"a JSON file ({exc})") from exc
    return assumptions_from_dict(raw, field=field)
