"""A 1 -> 10 burst against the autoscaling chain, before and after one-step scale-up (pure simulation).

Runs core.scaling.simulation on the plan of an 8B model on g6e.2xlarge (its fresh-node, warm-node and
warm-spare start-up times), the scraper's 30 s interval, the HPA's 15 s sync and the HPA rules of
(a) a policy that waits for each start-up (one pod or 50% per start-up) and (b) the emitted one; then sweeps the
scale-up stabilisation window (time to capacity against scale-ups caused by one scrape's spike). Prints
Markdown tables; with matplotlib installed, draws replicas and waiting requests over time to
docs/burst_simulation.png (the PNG carries the comparison table, so a test tells a stale picture).

    .venv/bin/python bench/burst_simulation.py [--png PATH] [--instance g6e.2xlarge --params 8e9]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fastload_constructs.core.model import ModelProfile  # noqa: E402
from fastload_constructs.core.planning.options import TuningOptions  # noqa: E402
from fastload_constructs.core.planning.plan import plan  # noqa: E402
from fastload_constructs.core.scaling.autoscaling import scaling_behavior  # noqa: E402
from fastload_constructs.core.scaling.simulation import (  # noqa: E402
    BURST_AUTOSCALING,
    SimulationResult,
    burst_comparison,
    comparison_table,
    one_step_behavior,
    one_to_ten_burst,
    scaled_object_timing,
    simulate,
    spike_false_scale_ups,
    start_paths,
)

WINDOWS = (0, 15, 30, 45, 60, 90, 120, 275)


def run(instance: str, params: float, opts: TuningOptions) -> dict[str, SimulationResult]:
    model = ModelProfile.from_numbers(parameter_count=int(params))
    p = plan(model, instance, opts)
    pulled = dataclasses.replace(opts.serving, pull_mode="plain", fast_image_pull=False)  # no node image snapshot
    results = burst_comparison(p, plan(model, instance, dataclasses.replace(opts, serving=pulled)))
    paths = start_paths(p)
    workload = one_to_ten_burst()
    print(
        f"{instance}, {params:g} parameters: fresh node {paths.fresh_node_s:.0f} s, warm node "
        f"{paths.warm_node_s:.0f} s, warm spare {paths.warm_spare_s:.0f} s (the plan's scale-out paths)"
    )
    shape = "0.8 -> 9.5 replicas' worth for 30 min"
    print(f"burst: {workload.slots} slots x {workload.service_s:g} s per replica; {shape}\n")
    print(comparison_table(results))
    print("\nScale-up stabilisation window (one-step policy): time to capacity vs one-scrape spikes scaled on")
    print("| window | time to capacity | p95 wait | spikes scaled on (of 6 alignments) |")
    print("|---|---|---|---|")
    b = scaling_behavior(p)
    for w in WINDOWS:
        timing = scaled_object_timing(BURST_AUTOSCALING, one_step_behavior(b, w))
        r = simulate(timing, workload, paths, policy=f"{w} s")
        print(f"| {w} s | {r.time_to_capacity_s:.0f} s | {r.p95_wait_s:.0f} s | {spike_false_scale_ups(timing)} |")
    return results


def draw(results: dict[str, SimulationResult], path: Path) -> Any:
    """Replicas and waiting requests over time, one colour per policy; returns the figure (None without
    matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no picture")
        return None
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 7), sharex=True)
    first = next(iter(results.values()))
    minutes = [t / 60 for t, *_ in first.timeline]
    rps = one_to_ten_burst().replica_rps
    top.plot(minutes, [rate / rps for _, rate, *_ in first.timeline], "k:", label="demand (replicas' worth)")
    for r in results.values():
        line = top.plot(minutes, [ready for *_, ready, _ in r.timeline], label=f"{r.policy}: serving")
        top.plot(minutes, [reps for _, _, reps, _, _ in r.timeline], "--", color=line[0].get_color(), alpha=0.5)
        bottom.plot(minutes, [w for *_, w in r.timeline], color=line[0].get_color(), label=r.policy)
    top.set_ylabel("replicas (dashed: asked for)")
    bottom.set_ylabel("requests waiting")
    bottom.set_xlabel("minutes")
    fig.suptitle("1 -> 10 burst, 8B on g6e.2xlarge (core.scaling.simulation)")
    # The legend below both panels: inside, it covered the "before" curve.
    handles, labels = top.get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    # The table the curves were simulated for, in the PNG itself: a test tells a stale picture by it.
    fig.savefig(path, dpi=90, metadata={"Description": comparison_table(results)})
    print(f"picture: {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
    return fig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instance", default="g6e.2xlarge")
    parser.add_argument("--params", type=float, default=8e9)
    parser.add_argument("--png", type=Path, default=None, help="where to draw (default: no picture)")
    args = parser.parse_args(argv)
    results = run(args.instance, args.params, TuningOptions())
    if args.png is not None:
        draw(results, args.png)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
