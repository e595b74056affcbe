"""The one error type every input check raises.

Users catch a single exception, and every message names the field, the value
received and what is accepted, so a failed `cdk synth` says what to change.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeGuard


class FastloadConfigError(ValueError):
    """Bad input to a fastload decision, construct, chart or command."""

    def __init__(self, field: str, value: object, accepted: str) -> None:
        self.field = field
        self.value = value
        self.accepted = accepted
        # One line whatever the input: a field built from a user's key ("models[0].\r") is escaped.
        super().__init__(f"{_printable(field)}: got {value!r}; accepted: {_printable(accepted)}")


def _printable(text: str) -> str:
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


def require(condition: bool, field: str, value: object, accepted: str) -> None:
    """Raise FastloadConfigError unless `condition` holds."""
    if not condition:
        raise FastloadConfigError(field, value, accepted)


def is_whole_number(value: object) -> TypeGuard[int]:
    """An int that is not a bool: JSON and YAML `true` must not pass as 1."""
    return isinstance(value, int) and not isinstance(value, bool)


def whole_number_in(value: object, field: str, low: int, high: int) -> int:
    """`value` if it is a whole number from `low` to `high`, else FastloadConfigError naming `field`."""
    require(is_whole_number(value) and low <= value <= high, field, value, f"a whole number from {low} to {high}")
    assert isinstance(value, int)
    return value


def one_of(field: str, value: object, choices: Iterable[object]) -> None:
    """Raise unless `value` is one of `choices`, listing them in the message."""
    options = list(choices)
    if value not in options:
        raise FastloadConfigError(field, value, "one of " + ", ".join(map(str, options)))
