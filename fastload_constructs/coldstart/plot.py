"""A stacked bar per log (and one for the plan's prediction), as PNG or HTML.

Side-by-side bars are how a cold and a warm launch compare at a glance. The
HTML file embeds the same chart as SVG plus the text table, so it needs no
other files and no network.
"""

from __future__ import annotations

import html
import io
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only: no display on servers and CI
import matplotlib.pyplot as plt

from fastload_constructs.coldstart.parser import PHASE_ORDER, ColdStartReport
from fastload_constructs.coldstart.render import PHASE_LABELS, PLAN_PHASES, predicted_seconds, render_table
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.tuning import PhaseEstimate

PLOT_SUFFIXES = (".png", ".html", ".htm")


def _figure(reports: Sequence[ColdStartReport], estimate: PhaseEstimate | None):
    labels = [r.label + ("" if r.ready else " (failed)") for r in reports]
    columns = [{p: r.seconds(p) for p in PHASE_ORDER} for r in reports]
    if estimate is not None:
        # The plan's coarser phases drawn in the colour of the first measured phase they cover.
        predicted = predicted_seconds(estimate)
        labels.append("plan (predicted)")
        columns.append({parts[0]: predicted[name] for name, parts in PLAN_PHASES.items()})
    fig, ax = plt.subplots(figsize=(max(4.0, 1.6 * len(labels) + 3.0), 5.0), dpi=100)
    colours = plt.get_cmap("tab10")
    bottoms = [0.0] * len(labels)
    for index, phase in enumerate(PHASE_ORDER):
        heights = [c.get(phase, 0.0) for c in columns]
        if not any(heights):
            continue
        ax.bar(labels, heights, bottom=bottoms, label=PHASE_LABELS[phase], color=colours(index), width=0.6)
        bottoms = [b + h for b, h in zip(bottoms, heights, strict=False)]
    if estimate is not None:  # name the plan's coarser phases on its (hatched) bar
        x, bottom = len(labels) - 1, 0.0
        for name, parts in PLAN_PHASES.items():
            height = columns[-1].get(parts[0], 0.0)
            if height > 0:
                ax.bar([labels[x]], [height], bottom=[bottom], width=0.6, fill=False, hatch="//", linewidth=0)
                ax.text(x, bottom + height / 2, name, ha="center", va="center", fontsize=7)
            bottom += height
    for x, total in enumerate(bottoms):
        ax.annotate(f"{total:.0f} s", (x, total), ha="center", va="bottom", fontsize=9)
    if len(labels) > 3:
        plt.setp(ax.get_xticklabels(), rotation=20, ha="right")
    ax.set_ylim(0, max([*bottoms, 1.0]) * 1.12)
    ax.set_ylabel("seconds to ready")
    ax.set_title("vLLM cold start: where the time went")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    fig.tight_layout()
    return fig


def write_plot(path: Path, reports: Sequence[ColdStartReport], estimate: PhaseEstimate | None = None) -> Path:
    """Write `path` as PNG (.png) or a self-contained HTML page (.html/.htm)."""
    suffix = path.suffix.lower()
    if suffix not in PLOT_SUFFIXES:
        raise FastloadConfigError("plot", str(path), "a file name ending in " + ", ".join(PLOT_SUFFIXES))
    fig = _figure(reports, estimate)
    try:
        if suffix == ".png":
            fig.savefig(path, format="png")
            return path
        svg = io.StringIO()
        fig.savefig(svg, format="svg")
    finally:
        plt.close(fig)
    svg_text = svg.getvalue()
    svg_text = svg_text[svg_text.index("<svg") :]  # drop the XML prolog and DOCTYPE inside HTML
    table = html.escape(render_table(reports, estimate))
    path.write_text(
        '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8">'
        "<title>vLLM cold-start report</title></head>\n<body>\n"
        "<h1>vLLM cold-start report</h1>\n" + svg_text + "\n<pre>" + table + "</pre>\n</body>\n</html>\n",
        encoding="utf-8",
    )
    return path
