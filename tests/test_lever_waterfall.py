"""bench/lever_waterfall.py: every bar is what `fastload plan` prints for its flags, the chain passes through the
reference app's default path, and the picture draws the same numbers as the README's table."""

from __future__ import annotations

import importlib.util
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from fastload_constructs.cli.main import main

ROOT = Path(__file__).resolve().parent.parent


def _load(name: str, path: Path):  # type: ignore[no-untyped-def]
    """A script beside the package, as a module (registered first: its dataclasses look themselves up)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


waterfall = _load("lever_waterfall", ROOT / "bench" / "lever_waterfall.py")
BARS = waterfall.bars()


def _cli_total(capsys, instance: str, flags: str, path: str) -> float:
    """The total `fastload plan` prints for `path`, with the README's model flags and the bar's own."""
    argv = ["plan", "--instance", instance, "--params", "8.03e9", *flags.split(), "--json"]
    assert main(argv) == 0, capsys.readouterr().err
    return float(json.loads(capsys.readouterr().out)["scale_out_paths"][path]["total"])


def test_every_bar_is_fastload_plan_with_the_flags_in_its_row(capsys):
    model = waterfall.reference_model()
    assert model.profile.parameter_count == pytest.approx(8.03e9, rel=1e-3)  # what the README's command types
    for bar in BARS:
        printed = _cli_total(capsys, model.instance_type, bar.flags, bar.path)
        assert printed == pytest.approx(bar.total_s, abs=0.05), (bar.label, bar.flags)


def test_the_chain_passes_through_the_reference_apps_default_path_once():
    generate = _load("docs_generate", ROOT / "docs" / "generate.py")
    ((_, reference),) = generate._reference_plans()
    (default,) = [b for b in BARS if b.default]
    assert default.flags == "" and default.path == "fresh_node"
    assert default.phases == reference.scale_out_paths.fresh_node.phases
    # Every lever the picture promises is a step: node family, image, restore modes, compile cache, capture
    # sizes, and the three paths that skip the node.
    assert {b.lever for b in BARS} == set(waterfall.LEVER_COLOURS)
    assert [b.path for b in BARS if b.path != "fresh_node"] == ["buffered_node", "warm_spare", "standby"]
    # Each step's saving is its difference from the row above.
    for above, below in itertools.pairwise(BARS):
        assert below.saved_s == pytest.approx(above.total_s - below.total_s)


def test_the_picture_draws_each_bars_total_and_saving(tmp_path):
    import matplotlib.pyplot as plt

    fig = waterfall.draw(BARS, tmp_path / "w.png", "title")
    try:
        (ax,) = fig.axes
        texts = [t.get_text() for t in ax.texts]
        limit = ax.get_xlim()[1] / 1.38
        for row, bar in enumerate(BARS):
            assert f"{bar.total_s:.1f} s" in texts[texts.index(waterfall.bar_text(bar))]
            # The light bar of each row is its total, or the axis' end where the axis is cut.
            (light,) = [p for p in ax.patches if abs(p.get_y() + p.get_height() / 2 - row) < 1e-9 and p.get_x() == 0]
            assert light.get_width() == pytest.approx(min(bar.total_s, limit))
        assert any(line.get_xdata()[0] == waterfall.GOAL_S for line in ax.lines)
        assert (tmp_path / "w.png").stat().st_size > 10_000
    finally:
        plt.close(fig)


def test_the_script_prints_the_readmes_table_and_draws_the_picture(tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "lever_waterfall.py"), "--png", str(tmp_path / "w.png")],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    table = waterfall.markdown(BARS)
    assert table in out and (tmp_path / "w.png").is_file()
    readme = (ROOT / "README.md").read_text()
    assert "<!-- generated: lever-waterfall -->\n" + table in readme
    assert "](docs/lever_waterfall.png)" in readme


def test_the_committed_picture_is_drawn_from_the_plan_as_it_is():
    from PIL import Image

    stored = Image.open(ROOT / "docs" / "lever_waterfall.png").text.get("Description")
    assert stored == waterfall.markdown(BARS), (
        "stale: run .venv/bin/python bench/lever_waterfall.py --png docs/lever_waterfall.png"
    )
