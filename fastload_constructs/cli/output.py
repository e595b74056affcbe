"""Human-readable output of the commands: YAML (null, true, lists), never Python's None or True."""

from __future__ import annotations

from typing import Any

import click
import yaml


class _Dumper(yaml.SafeDumper):
    """SafeDumper that writes tuples as lists and keeps long lines whole."""


_Dumper.add_representer(tuple, lambda dumper, data: dumper.represent_list(list(data)))


def yaml_text(view: Any) -> str:
    """`view` as block YAML, keys in the order given."""
    return yaml.dump(view, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=2**31 - 1)


def echo_yaml(view: Any) -> None:
    click.echo(yaml_text(view), nl=False)
