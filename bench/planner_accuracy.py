"""The planner against published measurements: one predicted / measured ratio per row and phase.

Rows come from tests/fixtures/published_measurements.json (each with its source URL). The planner
is run on every row with the row's own settings (instance type, storage and its published
throughput, streamer concurrency, vLLM release, capture sizes, compile cache) and nothing fitted
to the row. Prints every ratio, then per phase the median |ln(predicted / measured)|, over all
rows and over the rows that did not feed a planner constant (held out).

    .venv/bin/python bench/planner_accuracy.py [--json]
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fastload_constructs.core.catalog import lookup  # noqa: E402
from fastload_constructs.core.engines.vllm.phases import compile_seconds, cuda_graph_seconds  # noqa: E402
from fastload_constructs.core.model import ModelArchitecture, ModelProfile  # noqa: E402
from fastload_constructs.core.planning.assumptions import LoadAssumptions  # noqa: E402
from fastload_constructs.core.planning.assumptions_file import vllm_figures  # noqa: E402
from fastload_constructs.core.planning.options import TuningOptions  # noqa: E402
from fastload_constructs.core.planning.plan import plan  # noqa: E402
from fastload_constructs.core.planning.scale_out import scale_out_paths  # noqa: E402
from fastload_constructs.core.planning.serving import Serving  # noqa: E402

TABLE = ROOT / "tests" / "fixtures" / "published_measurements.json"
# A type for rows that name no instance: only instance-independent phases are predicted for them.
_ANY_INSTANCE = "p5.48xlarge"


def load_rows(path: Path = TABLE) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text())["rows"])


def _profile(row: dict[str, Any]) -> ModelProfile:
    profile = ModelProfile(total_bytes=int(row["bytes"] or 1), dtype=row.get("dtype") or "BF16", name=row["id"])
    if row.get("architecture"):
        profile = profile.with_architecture(ModelArchitecture.from_config(row["architecture"], field=row["id"]))
    return profile


def _options(row: dict[str, Any], base: LoadAssumptions | None = None) -> TuningOptions:
    s = row.get("settings", {})
    assumptions = base or LoadAssumptions()
    if "device_mb_s" in s:  # a local volume's published throughput (EBS gp3/io2 in the streamer's sweep)
        assumptions = dataclasses.replace(assumptions, nvme_mb_per_device=float(s["device_mb_s"]))
    sizes = s.get("capture_sizes")
    version = str(s.get("vllm_version", "0.34.0")).lstrip("v")
    serving = Serving(
        # The upstream image of the row's release: the plan is made for that release.
        image=f"vllm/vllm-openai:v{version}",
        model_cache="s3" if row.get("storage") == "s3" else "node-local",
        fast_image_pull=bool(s.get("fast_image_pull", s.get("pull_mode", "parallel") == "parallel")),
        # The rows pulled from a registry (parallel unless they say otherwise) on AL2023 or older AMIs.
        pull_mode=s.get("pull_mode", "parallel" if s.get("fast_image_pull", True) else "plain"),
        ami_family=s.get("ami_family", "al2023"),
    )
    return TuningOptions(
        concurrency=s.get("concurrency"),
        tensor_parallel_size=s.get("tensor_parallel_size"),
        cudagraph_capture_sizes=tuple(sizes) if sizes is not None else None,
        compile_cache_warm=s.get("compile_cache") == "warm",
        serving=serving,
        image_bytes=int(row["bytes"]) if row.get("storage") == "ecr" else TuningOptions().image_bytes,
        max_model_len=s.get("max_model_len"),
        assumptions=assumptions,
    )


def predict(row: dict[str, Any], base: LoadAssumptions | None = None) -> dict[str, float]:
    """Predicted seconds for every phase the row measured, on the row's span (`base`: other constants)."""
    opts = _options(row, base)
    measured = row["measured"]
    out: dict[str, float] = {}
    a = opts.assumptions
    # The rows' nodes ran AL2023 or older AMIs with the device plugin as a DaemonSet (the family fit, by AMI
    # family and plugin mode, is bench/node_phase_fit.py on tests/fixtures/gpu_node_startups.json).
    launch, registration = a.node_phases(row.get("settings", {}).get("ami_family", "al2023"))
    if "node_launch_s" in measured:
        out["node_launch"] = launch
    if "gpu_registration_s" in measured:
        out["gpu_registration"] = registration
    if "node_s" in measured:  # pending pod -> a node with the GPU allocatable (launch + registration)
        out["node"] = launch + registration
    if row.get("bytes") is None:
        return out
    profile = _profile(row)
    release, figures = opts.serving.engine_version, vllm_figures(a)
    if "compile_s" in measured:
        tp = opts.tensor_parallel_size or 1
        out["compile"] = compile_seconds(profile, release, opts.compile_cache_warm, figures, tp)
    if "cuda_graph_s" in measured:
        instance = lookup(row["instance_type"]) if row.get("instance_type") else None
        sizes = opts.cudagraph_capture_sizes
        tp = opts.tensor_parallel_size or 1
        out["cuda_graph"] = cuda_graph_seconds(profile, release, sizes, opts.max_num_seqs, instance, figures, tp)
    if "image_pull_s" in measured:
        p = plan(ModelProfile(total_bytes=10**9, dtype="BF16"), _ANY_INSTANCE, opts)
        paths = scale_out_paths(p.model, p.instance, p.tensor_parallel_size, p.streamer, opts)
        out["image_pull"] = paths.fresh_node.seconds("image_pull")
    if "weight_load_s" in measured or "total_s" in measured:
        p = plan(profile, lookup(row["instance_type"]), opts)
        span = row.get("span", {})
        if "weight_load_s" in measured:
            streamer_only = span.get("weight_load") == "streamer"
            out["weight_load"] = p.predicted.weight_load_s - (figures.weight_load_fixed_s if streamer_only else 0.0)
        if "total_s" in measured:
            engine_only = span.get("total") == "engine"
            out["total"] = p.predicted.total_s - (p.predicted.process_start_s if engine_only else 0.0)
    return out


def ratios(
    rows: list[dict[str, Any]], base: LoadAssumptions | None = None
) -> list[tuple[str, str, float, float, bool]]:
    """(row id, phase, predicted, measured, held out) for every measured phase of every row."""
    table = []
    for row in rows:
        predicted = predict(row, base)
        for key, value in row["measured"].items():
            phase = key.removesuffix("_s")
            if phase in predicted:
                held_out = phase not in row.get("constants_from", [])
                table.append((row["id"], phase, predicted[phase], float(value), held_out))
    return table


def median_abs_log_ratio(
    table: list[tuple[str, str, float, float, bool]], phase: str, held_out_only: bool
) -> float | None:
    logs = [abs(math.log(p / m)) for _, ph, p, m, h in table if ph == phase and (h or not held_out_only)]
    return statistics.median(logs) if logs else None


def main(argv: list[str]) -> int:
    table = ratios(load_rows())
    if "--json" in argv:
        print(
            json.dumps(
                [dict(zip(("id", "phase", "predicted_s", "measured_s", "held_out"), r, strict=True)) for r in table],
                indent=2,
            )
        )
        return 0
    print(f"{'row':<44} {'phase':<12} {'predicted s':>11} {'measured s':>10} {'ratio':>6}  held out")
    for row_id, phase, p, m, held in table:
        print(f"{row_id:<44} {phase:<12} {p:>11.2f} {m:>10.2f} {p / m:>6.2f}  {'yes' if held else 'no'}")
    print()
    header = f"{'phase':<12} {'rows':>4} {'median |ln ratio|':>18} {'as factor':>9}"
    print(header + f" {'held-out rows':>13} {'held-out factor':>15}")
    for phase in sorted({r[1] for r in table}):
        n = sum(1 for r in table if r[1] == phase)
        held = sum(1 for r in table if r[1] == phase and r[4])
        every = median_abs_log_ratio(table, phase, False)
        out = median_abs_log_ratio(table, phase, True)
        assert every is not None
        held_text = f"{math.exp(out):>15.2f}" if out is not None else f"{'-':>15}"
        print(f"{phase:<12} {n:>4} {every:>18.3f} {math.exp(every):>9.2f} {held:>13} {held_text}")
    print(f"\ntarget: median factor under 1.35 (|ln| < {math.log(1.35):.3f}) for weight_load and total")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
