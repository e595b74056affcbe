"""Each user setting declared once, on its options field; cdk.json, the command line and the docs read it there.

A `Setting` is everything about one option: its cdk.json key, its command-line flag, what it accepts, a
one-line doc, its default and the check that turns a raw value into the typed one. `setting(...)` returns
the dataclass field that carries it, so the options class (`TuningOptions`, `Serving`, `ServerOptions`,
`Autoscaling`) is the one declaration, as pip's `src/pip/_internal/cli/cmdoptions.py` defines each option once:

    warm_spares: int = setting(0, check=check_spares, accepted="...", doc="...", key="warmSpares",
                               flag="--warm-spares")

`stacks/config.py` derives its per-model keys, `cli/plan_command.py` its click options and
`docs/generate.py` the key tables from `settings_of(cls)`. Settings that only one front-end has (cdk.json's
`s3Prefix`, the CLI's `--json`) stay in that front-end.

Errors name what the user typed. A front-end runs each raw value through the setting's own `check` with
the name the user typed (`fastload:models[0].warmSpares`, `--warm-spares`), so that error names it when it
is raised. Checks that span settings (pull mode against FastImagePull, standbys against warm spares, an
engine's own knobs, a model that does not fit) run inside the options' `__post_init__` and the planner,
which know only the library's field names: the front-end declares its `Spelling` for the duration of the
build (`core.errors.spelled_as`) and `FastloadConfigError` reads it when raised. A context variable rather
than a spelling argument on every check, because those checks sit several calls below the front-end
(`plan()` -> `choose_tensor_parallel` -> the misfit message): an argument would thread through every
constructor and planner step, while the context is set once around the build, is local to the thread,
and leaves library callers with their own field names.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.errors import FastloadConfigError, booleans, choice, is_whole_number, require

Check = Callable[[Any, str], Any]
"""(raw value, the name the user gave it) -> the typed value; FastloadConfigError naming that name."""

SETTING = "fastload.setting"  # the dataclass field metadata key holding a field's Setting


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()  # a Flag's default when it is the setting's own


@dataclass(frozen=True)
class Key:
    """How cdk.json writes a setting: one per-model key under `fastload:models[i]`."""

    name: str
    read: Check | None = None
    """The key's value -> the field's, where they differ (`nodeLocalModelCache: true` -> `node-local`)."""
    accepted: str | None = None
    """What the key accepts, where it differs from the field."""
    former: str | None = None
    """The key's former name, still read (never together with `name`)."""
    default: Any = UNSET
    """The key's value when left out, where it is not the setting's default (`nodeLocalModelCache: false`)."""


@dataclass(frozen=True)
class Flag:
    """How the command line writes a setting."""

    name: str
    """`--warm-spares`; a switch with its negation `--fast-image-pull/--no-fast-image-pull`."""
    read: Check | None = None
    """The typed text -> the field's value, where plain `int`/`float`/`str` conversion is not it."""
    choices: tuple[str, ...] = ()
    """What the flag lists in --help, where it is not the setting's own choices."""
    default: Any = UNSET
    """What the flag shows and passes when absent, where it is not the setting's default."""
    former: str | None = None
    """The flag's former name, still read (hidden; never together with `name`)."""

    @property
    def option(self) -> str:
        """The flag without its negation: the name errors give."""
        return self.name.split("/", 1)[0]

    @property
    def negatable(self) -> bool:
        """A switch with its negation (`--x/--no-x`), whose default --help shows."""
        return "/" in self.name


@dataclass(frozen=True)
class Setting:
    """One user setting: checked by `check`, written `key` in cdk.json and `flag` on the command line."""

    check: Check
    accepted: str
    default: Any = None
    doc: str = ""
    """One line for --help and the docs' key tables (front-end settings need one)."""
    key: Key | None = None
    flag: Flag | None = None
    choices: tuple[str, ...] = ()
    """The values a text setting takes (matched in any case by `check`)."""
    kind: type = object
    """The JSON type cdk.json gives (`list` and `dict` also arrive as JSON text from `cdk -c`); the
    command line converts `int` and `float` text."""
    name: str = ""
    """The attribute the setting fills (bound by `settings_of`)."""
    path: str = ""
    """The name library errors give the field: `serving.warm_spares` (bound by `settings_of`)."""

    def read_key(self, raw: Any, name: str) -> Any:
        """A cdk.json value (decoded) -> the typed value, errors naming `name`."""
        value = self.key.read(raw, name) if self.key is not None and self.key.read is not None else raw
        return self.check(value, name)

    def read_text(self, text: Any, name: str) -> Any:
        """A command-line value -> the typed value, errors naming `name` (what click passes: text, or a
        switch's bool, or the default)."""
        value = text
        if self.flag is not None and self.flag.read is not None and isinstance(text, str):
            value = self.flag.read(text, name)
        elif isinstance(text, str) and self.kind in (int, float):
            value = _number(text, self.kind)
        try:
            return self.check(value, name)
        except FastloadConfigError as err:
            if isinstance(text, str) and err.value is value and value is not text:
                # Name what was typed (`1e999`, `-3`), not what it read as (`inf`, `-3.0`).
                raise FastloadConfigError(name, text.strip(), err.accepted) from None
            raise

    @property
    def key_default(self) -> Any:
        """What cdk.json reads when the key is left out, as the key writes it."""
        if self.key is not None and self.key.default is not UNSET:
            return self.key.default
        return self.default

    @property
    def flag_default(self) -> Any:
        if self.flag is not None and self.flag.default is not UNSET:
            return self.flag.default
        return self.default


def setting(
    default: Any = None,
    *,
    check: Check,
    accepted: str,
    doc: str = "",
    key: str | Key | None = None,
    flag: str | Flag | None = None,
    choices: Iterable[str] = (),
    kind: type = object,
    default_factory: Callable[[], Any] | None = None,
    error_name: str | None = None,
) -> Any:
    """A dataclass field carrying its `Setting` (`error_name`: the whole name library errors give it, when not
    the class's `settings_prefix` and the attribute)."""
    record = Setting(
        check=check,
        accepted=accepted,
        default=default if default_factory is None else None,
        doc=doc,
        key=Key(key) if isinstance(key, str) else key,
        flag=Flag(flag) if isinstance(flag, str) else flag,
        choices=tuple(choices),
        kind=kind,
        path=error_name or "",
    )
    metadata = {SETTING: record}
    if default_factory is not None:
        return dataclasses.field(default_factory=default_factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def settings_of(cls: type) -> tuple[Setting, ...]:
    """The settings of options class `cls`, each bound to its attribute and to the field name errors give
    (the class's `settings_prefix` + the attribute, unless declared)."""
    prefix = getattr(cls, "settings_prefix", "")
    found = []
    for f in dataclasses.fields(cls):
        record = f.metadata.get(SETTING)
        if isinstance(record, Setting):
            found.append(dataclasses.replace(record, name=f.name, path=record.path or prefix + f.name))
    return tuple(found)


def check_settings(options: Any) -> None:
    """Run every setting's check on dataclass `options` (its `__post_init__`), keeping the typed value:
    `"SGLang"` becomes `"sglang"`, a list of sizes a tuple."""
    for record in settings_of(type(options)):
        value = getattr(options, record.name)
        checked = record.check(value, record.path)
        if checked is not value:
            object.__setattr__(options, record.name, checked)


def boolean(value: Any, name: str) -> bool:
    """True or False; not 1, not "true"."""
    require(isinstance(value, bool), name, value, booleans())
    return bool(value)


def optional(check: Check) -> Check:
    """`check`, letting None (derive it) through."""

    def checked(value: Any, name: str) -> Any:
        return None if value is None else check(value, name)

    return checked


def whole_number(low: int, high: int, accepted: str | None = None) -> Check:
    """A whole number from `low` to `high` (not a bool)."""

    def checked(value: Any, name: str) -> int:
        ok = is_whole_number(value) and low <= value <= high
        require(ok, name, value, accepted or f"a whole number from {low} to {high}")
        return int(value)

    return checked


def positive_whole_number(accepted: str) -> Check:
    """A whole number above 0, however large."""

    def checked(value: Any, name: str) -> int:
        require(is_whole_number(value) and value > 0, name, value, accepted)
        return int(value)

    return checked


def number_in(accepted: str, low: float, high: float, *, low_open: bool = True, high_open: bool = False) -> Check:
    """A finite number (not a bool) between `low` and `high`; each bound included unless `*_open`."""

    def checked(value: Any, name: str) -> Any:
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        # Comparisons are False for NaN and the bounds refuse the infinities, with no float conversion of a huge int.
        ok = number and (low < value if low_open else low <= value) and (value < high if high_open else value <= high)
        require(ok, name, value, accepted)
        return value

    return checked


def one_of_choices(choices: Iterable[str]) -> Check:
    """One of `choices`, typed in any case; the choice as declared."""
    options = tuple(choices)

    def checked(value: Any, name: str) -> str:
        return choice(value, name, options)

    return checked


def values_for(cls: type, values: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of `values` (by attribute name) that are settings of `cls`: its constructor's keywords."""
    return {s.name: values[s.name] for s in settings_of(cls) if s.name in values}


def _number(text: str, kind: type) -> Any:
    """`int` or `float` text as a number; text that is not one is returned for the check to refuse."""
    try:
        return kind(text.strip())
    except ValueError:
        return text


@dataclass(frozen=True)
class Spelling:
    """How one front-end writes the library's fields: `fields` names errors, `mentions` words in messages.

    `style` is how it writes a value: `flag` (`--engine-release 0.34.0`), `key` (`"engineRelease": "0.34.0"`)
    or `python` (`engine_release='0.34.0'`). Fields it does not list keep the library's names.
    """

    fields: Mapping[str, str]
    mentions: Mapping[str, str]
    style: str = "python"

    def field(self, name: str) -> str:
        return self.fields.get(name, name)

    def mention(self, name: str) -> str:
        return self.mentions.get(name, name.rsplit(".", 1)[-1])

    @property
    def booleans(self) -> str:
        return "True or False" if self.style == "python" else "true or false"

    def example(self, name: str, value: object) -> str:
        word = self.mention(name)
        if self.style == "flag" and name in self.mentions:
            return f"{word} {value}"
        if self.style == "key" and name in self.mentions:
            return f'"{word}": {json.dumps(value)}'
        return f"{word}={value!r}"


def renamed(names: Mapping[str, str], style: str = "python") -> Spelling:
    """A spelling that renames a few fields: a command's options for a library check's parameters
    (`{"concurrency": "--concurrency"}`, style `flag`), a construct's props (`server.priority_class_name`)."""
    return Spelling(dict(names), dict(names), style)


def key_spelling(settings: Iterable[Setting], where: str, typed: Mapping[str, str] | None = None) -> Spelling:
    """cdk.json's: a field is `<where>.<key>` (`fastload:models[0].warmSpares`); `typed` (path -> key)
    holds the keys given under another name (a former one)."""
    keys = {s.path: s.key.name for s in settings if s.key is not None}
    keys.update(typed or {})
    return Spelling({path: f"{where}.{key}" for path, key in keys.items()}, keys, "key")


def flag_spelling(settings: Iterable[Setting], typed: Mapping[str, str] | None = None) -> Spelling:
    """The command line's: a field is its flag; `typed` (path -> flag) holds flags given under a former name."""
    flags = {s.path: s.flag.option for s in settings if s.flag is not None}
    flags.update(typed or {})
    return Spelling(flags, flags, "flag")


__all__ = [
    "SETTING",
    "Check",
    "Flag",
    "Key",
    "Setting",
    "Spelling",
    "boolean",
    "check_settings",
    "flag_spelling",
    "key_spelling",
    "number_in",
    "one_of_choices",
    "optional",
    "positive_whole_number",
    "renamed",
    "setting",
    "settings_of",
    "values_for",
    "whole_number",
]
