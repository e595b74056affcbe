"""Figures read from logs, event dumps and `fastload timeline --json`, bounded where they are read.

A number in a log line or an event is text someone else wrote: a 400-digit integer, NaN or Infinity (Python's
json accepts both), 1e308 or a negative duration must never reach arithmetic that overflows, a datetime it
cannot hold, or a report that is no longer JSON. A figure outside its bound is left out: a log line that carries
one is read as if it were not there (the report counts them in one note), an event dump or a timeline file that
carries one is refused with one line naming the file and the field.

    MAX_SECONDS  30 days for any phase, pull or start-up: the longest phase published is 3.2 h (CUDA-graph
                 capture with LoRA, 11,412 s, tests/fixtures/vllm_logs/real/v0.8.4_lora_long_capture_excerpt)
    MAX_BYTES    1 PiB for weights or an image: the largest open checkpoints and images are a few TB
    MAX_COUNT    10^9 occurrences of one Kubernetes event
    MAX_WORKERS  65,536 GPUs in one server (tensor x pipeline x data parallel, a world size, Ray's repeat count):
                 the largest published inference deployments span hundreds
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from fastload_constructs.core.errors import FastloadConfigError

MAX_SECONDS = 30 * 86400.0
MAX_BYTES = float(2**50)
MAX_COUNT = 10**9
MAX_WORKERS = 65_536
GIB = 2**30

# A figure quoted in a message keeps this many characters; a longer one is cut and its length said.
_SHOWN = 16


def bounded(value: object, high: float) -> float | None:
    """`value` (a number, or its text) as a finite float from 0 to `high`; None for anything else (a bool, NaN,
    an infinity, a negative, a figure too large for a float or above `high`)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return None
    return number if math.isfinite(number) and 0 <= number <= high else None


def whole(text: str, high: int) -> int | None:
    """Digits as a whole number from 0 to `high`; None when they are more or larger (int() itself refuses text of
    more than 4,300 digits, with a ValueError)."""
    if not text.isdigit() or len(text) > len(str(high)):
        return None
    number = int(text)
    return number if number <= high else None


def shown(value: object) -> str:
    """A figure as a message quotes it: a 400-digit integer as its first digits and its length."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= _SHOWN:
        return text
    return f"{text[:_SHOWN]}... ({len(text)} {'digits' if text.isdigit() else 'characters'})"


def out_of_range(values: Mapping[str, object], bounds: Mapping[str, float]) -> tuple[str, object] | None:
    """The first of `values` (by the names in `bounds`) that is not within its bound, as (name, value)."""
    return next(
        ((k, v) for k, high in bounds.items() if (v := values.get(k)) is not None and bounded(v, high) is None), None
    )


class FigureOutOfRange(FastloadConfigError):
    """An event dump's figure outside its bound: the command that read the file names it before the field."""


@dataclass
class Skipped:
    """Figures out of range that a log carried: how many, and the first (its line, field and value). A start-up
    line whose figure is one is left out; a collector time that is one leaves its line to the engine's clock."""

    count: int = 0
    first: str = ""

    def add(self, line_number: int, field: str, value: object) -> None:
        if not self.count:
            self.first = f"line {line_number}: {field} = {shown(value)}"
        self.count += 1

    @property
    def note(self) -> str | None:
        """The report's one note on them, None when the log had none."""
        if not self.count:
            return None
        figures = "1 figure" if self.count == 1 else f"{self.count} figures"
        return f"{figures} out of range not read ({self.first}): a start-up line with one is left out"
