"""Each setting's command-line option, derived from its declaration (core.settings): flag, help, choices,
default and check, so every command that takes a setting takes it the same way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from fastload_constructs.core.settings import Setting

FORMER = "_former"  # the parameter suffix of a flag's former name (`--vllm-version`)


class SettingType(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.3, plain before
    """A setting's value on the command line: its own reading and check (`Setting.read_text`), the error naming
    the flag typed. Choices are matched in any case (`--dtype bf16`, `--engine SGLang`)."""

    def __init__(self, setting: Setting) -> None:
        self.setting = setting
        self.name = {int: "integer", float: "float"}.get(setting.kind, "text")

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str | None:
        choices = self.setting.flag.choices if self.setting.flag and self.setting.flag.choices else self.setting.choices
        return f"[{'|'.join(choices)}]" if choices else None

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        assert self.setting.flag is not None
        flag = param.opts[0] if param is not None else self.setting.flag.option
        return self.setting.read_text(value, flag)


def setting_option(
    s: Setting, *, help: str | None = None, required: bool = False
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The click option(s) of setting `s`: its flag (and its former name, hidden), help, default and check."""
    assert s.flag is not None, s.name
    default = s.flag_default
    if s.kind is bool:
        # A switch: `--x` alone, or `--x/--no-x` with its default shown.
        option = (
            click.option(s.flag.name, s.name, default=bool(default), show_default=True, help=help or s.doc)
            if s.flag.negatable
            else click.option(s.flag.name, s.name, is_flag=True, default=bool(default), help=help or s.doc)
        )
    else:
        # A default read from text (`--image-gb 11.6`) is given as text, as a user would type it.
        shown = None if default is None else str(default) if s.flag.read is not None else default
        option = click.option(
            s.flag.name,
            s.name,
            type=SettingType(s),
            default=shown,
            show_default=shown is not None,
            required=required,
            help=help or s.doc,
        )
    if s.flag.former is None:
        return option
    former = click.option(s.flag.former, s.name + FORMER, type=SettingType(s), hidden=True)
    return lambda command: option(former(command))
