"""A log's clock as it ran: a step of the clock is taken out before any phase is timed.

A fresh node's clock is often wrong until NTP corrects it: it steps back (a correction of seconds to minutes)
or jumps forward (a clock that started unset). A log written across the step times a phase across it too,
negative or absurd. The rule, for the times in the order the lines were read:

    back      a line timed more than TOLERANCE_S before the latest line so far: processes log through one
              stream each (every logging record is flushed as it is written), so lines of different
              processes fall out of order by the rounding of their whole-second stamps, not more. Lines a
              process forwards for others later (Ray's workers, read by its log monitor) are not compared.
    forward   a line timed more than MAX_GAP_S after the latest line so far: no start-up phase runs that
              long without a timed line (the longest published phase, 11,412 s of CUDA-graph capture with
              LoRA in tests/fixtures/vllm_logs/real/v0.8.4_lora_long_capture_excerpt, is 3.2 h).

Either step is taken out: every later time moves by it, so the time across the step counts as 0 s (it is
not in the log), and the report says where the clock stepped and by how much, once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

# Whole-second stamps of different processes fall out of order by a second; more is a clock that stepped.
TOLERANCE_S = 2.0
# A gap longer than a day between two timed lines of a start-up is a clock that jumped.
MAX_GAP_S = 86400.0


@dataclass
class Clock:
    """Reads a log's times in order and takes its steps out (see the module docstring)."""

    offset: timedelta = timedelta(0)
    latest: datetime | None = None
    # Every step taken out: (line number, seconds; negative when the clock went back).
    steps: list[tuple[int, float]] = field(default_factory=list)

    def read(self, at: datetime, line_number: int, compared: bool = True) -> datetime:
        """`at` as the log's steady clock; `compared`: False for lines printed late for another process."""
        steady = at + self.offset
        if not compared or self.latest is None:
            self.latest = self.latest or (steady if compared else None)
            return steady
        gap = (steady - self.latest).total_seconds()
        if gap < -TOLERANCE_S or gap > MAX_GAP_S:
            self.offset -= steady - self.latest
            self.steps.append((line_number, gap))
            steady = self.latest
        self.latest = max(self.latest, steady)
        return steady

    @property
    def note(self) -> str | None:
        """The report's one note on the steps, None when the clock ran steadily."""
        if not self.steps:
            return None
        more = f" (and {len(self.steps) - 1} more steps)" if len(self.steps) > 1 else ""
        return (
            f"the log's clock {step_text(*self.steps[0])}{more}: the time across a step is not in the log, it "
            "counts as 0 s, and later lines are moved by the step (an NTP correction on a fresh node?)"
        )


def step_text(line_number: int, seconds: float) -> str:
    """A step as a report says it: "went back 30 s at line 100", "jumped forward 172800 s at line 29"."""
    size = f"{abs(seconds):.3f}".rstrip("0").rstrip(".")
    return f"{'went back' if seconds < 0 else 'jumped forward'} {size} s at line {line_number}"
