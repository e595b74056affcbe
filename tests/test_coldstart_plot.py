"""The chart's layout decisions: a broken axis for outliers, one colour per phase."""

from __future__ import annotations

from pathlib import Path

import pytest

from fastload_constructs.coldstart.parser import parse_log
from fastload_constructs.coldstart.plot import BREAK_RATIO, PHASE_COLOURS, _figure, axis_limit
from fastload_constructs.coldstart.report import PHASE_ORDER

LOGS = Path(__file__).parent / "fixtures" / "vllm_logs"


def test_axis_is_broken_only_for_a_far_longer_bar():
    limit, broken = axis_limit([120, 76, 11412])
    assert broken and limit == pytest.approx(120 * 1.35)
    limit, broken = axis_limit([120, 76, 120 * BREAK_RATIO * 0.99])
    assert not broken and limit > 120 * BREAK_RATIO * 0.99
    assert axis_limit([0.0]) == (pytest.approx(1.12), False)


def test_every_phase_has_its_own_colour():
    assert set(PHASE_COLOURS) == set(PHASE_ORDER)
    assert len(set(PHASE_COLOURS.values())) == len(PHASE_ORDER)


def test_long_failed_start_does_not_squash_the_others():
    cold = parse_log((LOGS / "cold_v0.34_s3_tp1.log").read_text(), label="cold")
    lora = parse_log((LOGS / "real" / "v0.8.4_lora_long_capture_excerpt.log").read_bytes(), label="lora")
    fig = _figure([cold, lora], None)
    ax = fig.axes[0]
    assert ax.get_xlim()[1] < 1000  # not 11,412 s: the cold start's bar keeps most of the width
    assert any("11,412 s" in t.get_text() for t in ax.texts)  # the cut bar says how long it really was
