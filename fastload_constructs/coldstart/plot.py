"""One horizontal stacked bar per log (and one for the plan's prediction), as PNG or HTML.

Why this shape: start-ups differ by orders of magnitude (a 76 s warm start next
to a 45-minute failed one), so a shared linear axis squashes the short bars. A
log scale would distort stacked segments (each segment's width would depend on
what lies to its left), so the axis stays linear and is *broken* instead: when
one bar is far longer than the others, the axis ends a little past the second
longest, the long bar is cut there with a break mark, and its true total is
written at its end. Every phase keeps one colour, in measured and predicted bars
alike (the plan's coarser phases take the colour of the first phase they cover,
hatched). The HTML page adds the table and, per log, the log line behind each
number, so a reader can check it.
"""

from __future__ import annotations

import html
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only: no display on servers and CI
import matplotlib.pyplot as plt
from matplotlib.patches import Patch

from fastload_constructs.coldstart.render import PHASE_LABELS, predicted_seconds, render_table
from fastload_constructs.coldstart.report import PHASE_ORDER, PLAN_PHASES, ColdStartReport
from fastload_constructs.core.engines.phases import PhaseEstimate
from fastload_constructs.core.errors import FastloadConfigError

PLOT_SUFFIXES = (".png", ".html", ".htm")
# One colour per phase, everywhere (colour-blind-safe Okabe-Ito palette plus greys).
PHASE_COLOURS = {
    "process_start": "#999999",
    "engine_init": "#cccccc",
    "distributed_init": "#F0E442",
    "weight_load": "#0072B2",
    "dynamo_transform": "#E69F00",
    "graph_compile": "#D55E00",
    "cuda_graph": "#009E73",
    "kv_cache_profiling": "#CC79A7",
    "api_server": "#56B4E9",
    "warmup": "#882255",
}
# Break the axis when the longest bar is this many times the next one.
BREAK_RATIO = 2.5


def axis_limit(totals: Sequence[float]) -> tuple[float, bool]:
    """The x-axis end, and whether the longest bar is cut (a broken axis)."""
    ordered = sorted(totals, reverse=True)
    longest = ordered[0] if ordered else 1.0
    if len(ordered) >= 2 and ordered[1] > 0 and longest > BREAK_RATIO * ordered[1]:
        return ordered[1] * 1.35, True
    return max(longest, 1.0) * 1.12, False


def _rows(reports: Sequence[ColdStartReport], estimate: PhaseEstimate | None) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for r in reports:
        label = (
            r.label + ("" if r.ready else f" (failed in {r.failed_in})") + (" [offline]" if r.mode == "offline" else "")
        )
        rows.append({"label": label, "segments": [(p, r.seconds(p), False, PHASE_LABELS[p]) for p in PHASE_ORDER]})
    if estimate is not None:
        predicted = predicted_seconds(estimate)
        rows.append(
            {
                "label": "plan (predicted)",
                "segments": [(parts[0], predicted[name], True, name) for name, parts in PLAN_PHASES.items()],
            }
        )
    return rows


def _figure(reports: Sequence[ColdStartReport], estimate: PhaseEstimate | None) -> Any:
    rows = _rows(reports, estimate)
    totals = [sum(s[1] for s in row["segments"]) for row in rows]
    limit, broken = axis_limit(totals)
    height = 1.6 + 0.55 * len(rows)
    fig, ax = plt.subplots(figsize=(11.0, max(3.6, height)), dpi=100)
    for y, row in enumerate(rows):
        left = 0.0
        for phase, seconds, hatched, name in row["segments"]:
            if seconds <= 0 or left >= limit:
                left += max(seconds, 0.0)
                continue
            width = min(seconds, limit - left)
            ax.barh(
                y,
                width,
                left=left,
                height=0.62,
                color=PHASE_COLOURS[phase],
                edgecolor="white" if not hatched else "#333333",
                hatch="//" if hatched else None,
                linewidth=0.6,
            )
            if width > limit * 0.06 and width == seconds:  # a cut segment's number is written at the bar's end
                text = f"{name}\n{seconds:.0f} s" if hatched else f"{seconds:.0f}"
                ax.text(left + width / 2, y, text, ha="center", va="center", fontsize=7.5, color="black")
            left += seconds
        total = totals[y]
        if total > limit:  # the broken bar: a break mark at the axis end and the true total
            ax.plot([limit * 0.975, limit * 0.99], [y - 0.38, y + 0.38], color="black", lw=1.2, clip_on=False)
            ax.plot([limit * 0.99, limit * 1.005], [y - 0.38, y + 0.38], color="black", lw=1.2, clip_on=False)
            ax.text(
                limit * 0.965,
                y,
                f"{total:,.0f} s ▶",
                ha="right",
                va="center",
                fontsize=9,
                fontweight="bold",
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.5},
            )
        else:
            ax.text(total + limit * 0.008, y, f"{total:,.0f} s", ha="left", va="center", fontsize=9)
    ax.set_yticks(range(len(rows)), [row["label"] for row in rows], fontsize=9)
    ax.invert_yaxis()
    ax.set_xlim(0, limit)
    ax.set_xlabel("seconds to ready" + ("  (axis broken: the cut bar's total is written on it)" if broken else ""))
    ax.set_title("vLLM cold start: where the time went", fontsize=12, loc="left")
    ax.grid(axis="x", color="#e6e6e6", linewidth=0.8)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    present = [p for p in PHASE_ORDER if any(s[0] == p and s[1] > 0 for row in rows for s in row["segments"])]
    handles = [Patch(facecolor=PHASE_COLOURS[p], label=PHASE_LABELS[p]) for p in present]
    if estimate is not None:
        handles.append(Patch(facecolor="white", edgecolor="#333333", hatch="//", label="plan's phase (same colours)"))
    # Under the axis label, however many rows: anchored in inches below the axes.
    legend_y = -0.95 / fig.get_figheight() / ax.get_position().height
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, legend_y),
        ncol=min(4, len(handles)),
        fontsize=8.5,
        frameon=False,
    )
    fig.tight_layout()
    return fig


def _evidence_html(reports: Sequence[ColdStartReport]) -> str:
    parts = ["<h2>Evidence: the log line behind each number</h2>"]
    for r in reports:
        parts.append(f"<h3>{html.escape(r.label)}</h3>")
        meta = (
            f"{r.mode}, {'ready' if r.ready else 'not ready (stopped in ' + str(r.failed_in) + ')'}, "
            f"{r.worker_count} worker(s) from {r.worker_count_source}, clock: {r.clock}"
        )
        parts.append(f"<p>{html.escape(meta)}</p>")
        parts.append("<table><tr><th>phase</th><th>seconds</th><th>line</th><th>log line</th><th>note</th></tr>")
        for e in r.evidence:
            seconds = "" if e.phase == "failure" else f"{r.seconds(e.phase):.2f}"
            parts.append(
                f"<tr><td>{html.escape(PHASE_LABELS.get(e.phase, e.phase))}</td><td>{seconds}</td>"
                f"<td>{e.line_number}</td><td><code>{html.escape(e.line)}</code></td><td>{html.escape(e.note)}</td></tr>"
            )
        parts.append(
            f"<tr><td>{html.escape(PHASE_LABELS['engine_init'])}</td><td>{r.seconds('engine_init'):.2f}</td>"
            "<td></td><td>the rest of the time to ready: no line reports it</td><td></td></tr></table>"
        )
    return "\n".join(parts)


_STYLE = (
    "<style>body{font-family:sans-serif;margin:1.5em;max-width:1200px}"
    "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ddd;padding:3px 6px;text-align:left}"
    "code{font-size:12px;word-break:break-all}"
    # The table's failure line ("not ready; stopped during ...: <the error>") wraps instead of running off the page.
    "pre{white-space:pre-wrap;overflow-wrap:anywhere}</style>"
)


def write_plot(path: Path, reports: Sequence[ColdStartReport], estimate: PhaseEstimate | None = None) -> Path:
    """Write `path` as PNG (.png) or a self-contained HTML page (.html/.htm)."""
    suffix = path.suffix.lower()
    if suffix not in PLOT_SUFFIXES:
        raise FastloadConfigError("plot", str(path), "a file name ending in " + ", ".join(PLOT_SUFFIXES))
    fig = _figure(reports, estimate)
    try:
        if suffix == ".png":
            fig.savefig(path, format="png", bbox_inches="tight")
            return path
        svg = io.StringIO()
        fig.savefig(svg, format="svg", bbox_inches="tight")
    finally:
        plt.close(fig)
    svg_text = svg.getvalue()
    svg_text = svg_text[svg_text.index("<svg") :]  # drop the XML prolog and DOCTYPE inside HTML
    table = html.escape(render_table(reports, estimate))
    path.write_text(
        '<!DOCTYPE html>\n<html lang="en">\n<head><meta charset="utf-8">'
        f"<title>vLLM cold-start report</title>{_STYLE}</head>\n<body>\n"
        "<h1>vLLM cold-start report</h1>\n"
        + svg_text
        + "\n<pre>"
        + table
        + "</pre>\n"
        + _evidence_html(reports)
        + "\n</body>\n</html>\n",
        encoding="utf-8",
    )
    return path
