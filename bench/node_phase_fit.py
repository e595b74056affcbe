"""Fit a new GPU node's phases, per AMI family, from published start-ups; and the error when one source is left out.

Rows: tests/fixtures/gpu_node_startups.json (node timelines) and tests/fixtures/image_phase.json (image
phases per pull and restore mode), each with the public address it was read from. Standard library only;
`core.planning.assumptions` holds the constants this prints, and tests/test_node_phase_fit.py fails when
they drift apart.

Node model (seconds), Karpenter's NodeClaim created -> `nvidia.com/gpu` allocatable:
    C + L[family] + G[family, device plugin]
      C  NodeClaim created -> instance launched (shared by all families)
      L  instance launched -> node registered / Ready (per family; Bottlerocket pooled with EKS Auto Mode,
         which runs the same Bottlerocket NVIDIA variant with the device plugin built in)
      G  registered -> GPU allocatable (per family and device-plugin mode)
Estimator: one vote per author group (the median of that group's rows), the constant is the geometric
mean of the votes. A phase no published row isolates takes a documented prior (`PRIOR_G`). Composite
anchors are decomposed by subtracting the fitted C and G. Leave-one-source-out (LOSO): each author group
is left out, the constants refitted from the others, and that group's rows predicted.

    .venv/bin/python bench/node_phase_fit.py [--json]
"""

from __future__ import annotations

import json
import math
import statistics
import sys
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
NODES = ROOT / "tests" / "fixtures" / "gpu_node_startups.json"
IMAGES = ROOT / "tests" / "fixtures" / "image_phase.json"
WITHIN = 0.35  # "within 35%": |predicted / measured - 1| <= 0.35

ANCHOR_PHASES = {
    "create->launch": ("C",),
    "launch->registered": ("L",),
    "launch->ready": ("L",),
    "registered->gpu_allocatable": ("G",),
    "ready->gpu_allocatable": ("G",),
    "ready->scheduled": ("G",),
    "launch->gpu_allocatable": ("L", "G"),
    "create->gpu_allocatable": ("C", "L", "G"),
    "nominated->scheduled": ("C", "L", "G"),  # Nominated is emitted when the NodeClaim is created
    "detected->gpu_allocatable": ("C", "L", "G"),  # 'found provisionable pod(s)' ~ created
}
# Registered -> GPU allocatable where no published row isolates it:
#  AL2023 (and AL2) with the device plugin as a DaemonSet and no Node Feature Discovery wait: the plugin's
#    image pull (6.1 s for v0.20.0, 55 MB; 7.1 s for v0.17.0, 188 MB), its start (~3 s) and the kubelet
#    reporting allocatable: about 15 s; derived from component timings, not measured on EKS.
#  built-in (Bottlerocket, Auto Mode): a host service that registers the moment kubelet's socket exists
#    ("Registered device plugin for 'nvidia.com/gpu' with Kubelet" in the same second as the socket,
#    https://github.com/bottlerocket-os/bottlerocket/issues/4250): about 5 s.
PRIOR_G = {
    ("al2023", "daemonset"): 15.0,
    ("al2", "daemonset"): 15.0,
    ("bottlerocket", "built-in"): 5.0,
    ("auto-mode", "built-in"): 5.0,
}
L_POOL = {"bottlerocket": ("bottlerocket", "auto-mode")}
FAMILIES = ("al2023", "bottlerocket", "auto-mode", "al2")


def load(path: Path) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text())["rows"])


def gmean(values: Iterable[float]) -> float:
    values = list(values)
    return math.exp(sum(math.log(v) for v in values) / len(values))


def aggregate(pairs: Iterable[tuple[str, float]]) -> dict[str, Any] | None:
    """(group, value) pairs -> one vote per group (its median), their geometric mean, median and count."""
    by: dict[str, list[float]] = defaultdict(list)
    for group, value in pairs:
        by[group].append(value)
    if not by:
        return None
    votes = {g: statistics.median(v) for g, v in by.items()}
    return {
        "gm": gmean(votes.values()),
        "median": statistics.median(votes.values()),
        "groups": len(votes),
        "votes": votes,
    }


def point_anchors(row: dict[str, Any]) -> dict[str, float]:
    bounds = row.get("bounds") or {}
    return {k: v for k, v in row["anchors"].items() if k in ANCHOR_PHASES and k not in bounds}


def measured(row: dict[str, Any], anchor: str) -> float | None:
    anchors = row["anchors"]
    if anchor in anchors:
        return float(anchors[anchor])
    if anchor == "launch->gpu_allocatable":
        launch = next((anchors[k] for k in ("launch->registered", "launch->ready") if k in anchors), None)
        gpu = next(
            (
                anchors[k]
                for k in ("registered->gpu_allocatable", "ready->gpu_allocatable", "ready->scheduled")
                if k in anchors
            ),
            None,
        )
        if launch is not None and gpu is not None:
            return float(launch + gpu)
    return None


def _fit_g(rows: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    g_fit: dict[tuple[str, str], dict[str, Any]] = {}
    for key in sorted({(r["ami_family"], r["device_plugin"]) for r in rows} | set(PRIOR_G)):
        pairs = [
            (r["author_group"], v)
            for r in rows
            if (r["ami_family"], r["device_plugin"]) == key
            for k, v in point_anchors(r).items()
            if ANCHOR_PHASES[k] == ("G",)
        ]
        agg = aggregate(pairs)
        if agg:
            g_fit[key] = {**agg, "value": agg["gm"], "source": "fitted"}
        elif key in PRIOR_G:
            g_fit[key] = {"value": PRIOR_G[key], "source": "prior", "groups": 0}
    return g_fit


def _l_votes(
    rows: list[dict[str, Any]], family: str, c: float | None, g_fit: dict[Any, Any]
) -> list[tuple[str, float]]:
    pairs = []
    for r in rows:
        if r["ami_family"] not in L_POOL.get(family, (family,)):
            continue
        g = g_fit.get((r["ami_family"], r["device_plugin"]))
        for anchor, value in point_anchors(r).items():
            phases = ANCHOR_PHASES[anchor]
            if "L" not in phases or ("C" in phases and c is None) or ("G" in phases and g is None):
                continue
            rest = (c if "C" in phases else 0.0) + (g["value"] if "G" in phases else 0.0)
            pairs.append((r["author_group"], value - rest))
    return pairs


def fit_nodes(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """C, L per family and G per (family, plugin), from the rows marked for the fit."""
    rows = [r for r in rows if r["use_in_fit"]]
    c_fit = aggregate(
        (r["author_group"], v) for r in rows for k, v in point_anchors(r).items() if ANCHOR_PHASES[k] == ("C",)
    )
    c = c_fit["gm"] if c_fit else None
    g_fit = _fit_g(rows)
    l_fit = {}
    for family in FAMILIES:
        agg = aggregate(_l_votes(rows, family, c, g_fit))
        if agg:
            l_fit[family] = {**agg, "value": agg["gm"], "pooled": L_POOL.get(family)}
    return {"C": c_fit, "L": l_fit, "G": g_fit}


def predict(fit: dict[str, Any], family: str, plugin: str, anchor: str) -> float | None:
    total = 0.0
    for phase in ANCHOR_PHASES[anchor]:
        if phase == "C":
            if not fit["C"]:
                return None
            total += fit["C"]["gm"]
        elif phase == "L":
            if family not in fit["L"]:
                return None
            total += fit["L"][family]["value"]
        else:
            g = fit["G"].get((family, plugin))
            if g is None:
                return None
            total += g["value"]
    return total


def loso_nodes(rows: list[dict[str, Any]]) -> list[tuple[dict[str, Any], float, float | None]]:
    """(row, measured, predicted with its author group left out) for every row with a point primary anchor."""
    usable = [
        r
        for r in rows
        if r["use_in_fit"]
        and r["primary"] in ANCHOR_PHASES
        and r["primary"] not in (r.get("bounds") or {})
        and measured(r, r["primary"]) is not None
    ]
    out = []
    for group in sorted({r["author_group"] for r in usable}):
        fit = fit_nodes([r for r in rows if r["author_group"] != group])
        for r in usable:
            if r["author_group"] == group:
                meas = measured(r, r["primary"])
                assert meas is not None
                out.append((r, meas, predict(fit, r["ami_family"], r["device_plugin"], r["primary"])))
    return out


def loso_summary(results: list[tuple[dict[str, Any], float, float | None]]) -> dict[str, dict[str, Any]]:
    """Per family and for all: rows, predicted, median |ln(pred/meas)|, median ratio, within 35%."""
    by: dict[str, list[tuple[float, float]]] = defaultdict(list)
    counts: dict[str, int] = defaultdict(int)
    for row, meas, pred in results:
        for key in (row["ami_family"], "all"):
            counts[key] += 1
            if pred is not None:
                by[key].append((pred, meas))
    summary = {}
    for key, count in counts.items():
        got = by.get(key, [])
        summary[key] = {
            "rows": count,
            "predicted": len(got),
            "median_abs_ln": round(statistics.median(abs(math.log(p / m)) for p, m in got), 2) if got else None,
            "median_ratio": round(statistics.median(p / m for p, m in got), 2) if got else None,
            "within_35": sum(abs(p / m - 1) <= WITHIN for p, m in got),
        }
    return summary


# ------------------------------------------------------------------------------------------ images
def mb_s(row: dict[str, Any]) -> float | None:
    if row.get("rate_mb_s"):
        return float(row["rate_mb_s"])
    if row.get("bytes") and row.get("seconds") and not row.get("bound"):
        return float(row["bytes"]) / 1e6 / float(row["seconds"])
    return None


def image_rate(rows: list[dict[str, Any]], mode: str, *, restore: str | None = None, storage: str | None = None):
    """The fitted MB/s of one pull mode (one vote per group), from the rows marked for the fit."""
    chosen = [
        r
        for r in rows
        if r["mode"] == mode
        and r["restore_mode"] == restore
        and r["use_in_fit"]
        and mb_s(r)
        and (storage is None or r["storage_class"].startswith(storage))
    ]
    return aggregate((r["author_group"], mb_s(r)) for r in chosen)


def fitted(nodes: list[dict[str, Any]], images: list[dict[str, Any]]) -> dict[str, float]:
    """The constants core.planning.assumptions carries, from the fixtures."""
    fit = fit_nodes(nodes)
    c = fit["C"]["gm"]
    containerd_fast = image_rate(images, "containerd", storage="fast")
    parallel = image_rate(images, "soci-parallel")
    lazy_restore = image_rate(images, "snapshot", restore="lazy")
    return {
        "create_to_launch_s": c,
        "bottlerocket_launch_to_ready_s": fit["L"]["bottlerocket"]["value"],
        "bottlerocket_ready_to_gpu_s": fit["G"][("bottlerocket", "built-in")]["value"],
        "al2023_launch_to_ready_s": fit["L"]["al2023"]["value"],
        "al2023_ready_to_gpu_s": fit["G"][("al2023", "daemonset")]["value"],
        "containerd_fast_mb_s": containerd_fast["gm"],
        "soci_parallel_mb_s": parallel["gm"],
        "snapshot_lazy_mb_s": lazy_restore["gm"],
    }


def report() -> dict[str, Any]:
    nodes, images = load(NODES), load(IMAGES)
    results = loso_nodes(nodes)
    return {
        "constants": {k: round(v, 2) for k, v in fitted(nodes, images).items()},
        "loso": [
            {
                "row": r["id"],
                "family": r["ami_family"],
                "anchor": r["primary"],
                "measured_s": round(meas, 1),
                "predicted_s": None if pred is None else round(pred, 1),
            }
            for r, meas, pred in results
        ],
        "loso_summary": loso_summary(results),
    }


def main(argv: list[str]) -> int:
    out = report()
    if "--json" in argv:
        print(json.dumps(out, indent=1))
        return 0
    for name, value in out["constants"].items():
        print(f"{name:34} {value:8.2f}")
    print()
    for row in out["loso"]:
        pred = row["predicted_s"]
        ratio = "n/a" if pred is None else f"{pred / row['measured_s']:.2f}"
        print(f"{row['row']:46} {row['anchor']:26} meas {row['measured_s']:6.1f} pred {pred!s:>6} ratio {ratio}")
    print()
    for family, s in out["loso_summary"].items():
        print(f"{family:12} {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
