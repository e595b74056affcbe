"""The one error type every input check raises.

Users catch a single exception, and every message names the field, the value
received and what is accepted, so a failed `cdk synth` says what to change.

The field is named as the user wrote it. A check that reads one setting is given that name by its
caller. A check that spans settings (in a `__post_init__`, in the planner) knows only the library's
field names; the front-end that builds the options says how it spells them for the duration of the
build (`spelled_as`, with a `core.settings.Spelling`), and the error reads that spelling when it is
raised. Library callers set none and read the library's names.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Protocol, TypeGuard


class FieldSpelling(Protocol):
    """How one front-end (cdk.json, the command line) writes the library's fields."""

    def field(self, name: str) -> str:
        """The name an error about library field `name` gives (`serving.warm_spares` -> `--warm-spares`)."""

    def mention(self, name: str) -> str:
        """How a message refers to field `name` (`warm_spares`, `--warm-spares`, `warmSpares`)."""

    def example(self, name: str, value: object) -> str:
        """Field `name` set to `value`, written as the user would write it."""

    @property
    def booleans(self) -> str:
        """How the front-end writes yes and no (`true or false` in JSON)."""


_SPELLING: ContextVar[FieldSpelling | None] = ContextVar("fastload_field_spelling", default=None)


@contextmanager
def spelled_as(spelling: FieldSpelling) -> Iterator[None]:
    """Errors raised inside name the library's fields as `spelling` writes them."""
    token = _SPELLING.set(spelling)
    try:
        yield
    finally:
        _SPELLING.reset(token)


def mention(name: str) -> str:
    """Field `name` as the active front-end writes it in prose; the library's attribute name otherwise."""
    spelling = _SPELLING.get()
    return spelling.mention(name) if spelling is not None else name.rsplit(".", 1)[-1]


def example(name: str, value: object) -> str:
    """Field `name` set to `value`, as the active front-end writes it (`engine_release='0.34.0'` in Python)."""
    spelling = _SPELLING.get()
    return spelling.example(name, value) if spelling is not None else f"{name.rsplit('.', 1)[-1]}={value!r}"


def booleans() -> str:
    """Yes and no as the active front-end writes them: `True or False` in Python."""
    spelling = _SPELLING.get()
    return spelling.booleans if spelling is not None else "True or False"


class _Missing:
    """The value of a required setting nobody gave (a cdk.json key left out)."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING = _Missing()


class FastloadConfigError(ValueError):
    """Bad input to a fastload decision, construct, chart or command."""

    def __init__(self, field: str, value: object, accepted: str) -> None:
        spelling = _SPELLING.get()
        self.field = spelling.field(field) if spelling is not None else field
        self.value = value
        self.accepted = accepted
        # One line whatever the input: a field built from a user's key ("models[0].\r") is escaped.
        got = "missing" if value is MISSING else f"got {value!r}"
        super().__init__(f"{_printable(self.field)}: {got}; accepted: {_printable(accepted)}")


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


def choice(value: object, field: str, choices: Iterable[str]) -> str:
    """The one of `choices` that `value` names, in any case (`SGLang` is `sglang`, `bf16` is `BF16`)."""
    options = list(choices)
    if isinstance(value, str):
        for option in options:
            if option.casefold() == value.casefold():
                return option
    raise FastloadConfigError(field, value, "one of " + ", ".join(options))
