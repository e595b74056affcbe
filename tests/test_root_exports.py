"""The package root's lazy exports: the TYPE_CHECKING imports, `_WHERE` and `__all__` stay literal
(static tools read only a literal `__all__`), so this holds the three equal."""

import ast
import importlib
from pathlib import Path

import fastload_constructs

ROOT_INIT = Path(fastload_constructs.__file__)


def _type_checking_names() -> set[str]:
    tree = ast.parse(ROOT_INIT.read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING")
    return {alias.asname or alias.name for n in block.body if isinstance(n, ast.ImportFrom) for alias in n.names}


def test_what_type_checkers_see_is_what_loads():
    assert _type_checking_names() == set(fastload_constructs._WHERE)
    assert sorted(fastload_constructs.__all__) == sorted(fastload_constructs._WHERE)


def test_every_public_name_loads_from_its_module():
    for name, module in fastload_constructs._WHERE.items():
        assert getattr(fastload_constructs, name) is getattr(importlib.import_module(module), name), name
