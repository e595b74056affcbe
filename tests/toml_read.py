"""TOML reading for the tests: the standard library's tomllib (Python 3.11+), else tomli (the same parser)."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the dev extra installs tomli there
    import tomli as tomllib

__all__ = ["tomllib"]
