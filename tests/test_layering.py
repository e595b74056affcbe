"""The package layout is a contract: decisions stay pure and imports run one way.

core <- s3, k8s, infra, coldstart <- cli; nothing in the library imports the
reference app (stacks/). runtime/ is shipped into pods alone, so it imports
nothing from the package at all.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fastload_constructs"

# What each package may import from fastload_constructs (besides itself).
ALLOWED = {
    "core": set(),
    "runtime": set(),
    "s3": {"core"},
    "coldstart": {"core"},
    "k8s": {"core", "jsii_node"},
    "infra": {"core", "k8s", "jsii_node"},
    "cli": {"core", "s3", "coldstart"},
}

BLOCKER = """
import importlib.abc, pkgutil, sys
BLOCKED = ("aws_cdk", "cdk8s", "cdk8s_plus_28", "constructs", "jsii", "boto3", "botocore", "s3transfer")
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"decision module imported {name}")
sys.meta_path.insert(0, Block())
import fastload_constructs.core as core
names = [m.name for m in pkgutil.walk_packages(core.__path__, "fastload_constructs.core.")]
for name in names:
    __import__(name)
print(len(names))
"""


def test_core_imports_without_cdk_cdk8s_or_boto3() -> None:
    done = subprocess.run([sys.executable, "-c", BLOCKER], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) >= 15  # every decision module was imported


def _package_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level:
            raise AssertionError(f"{path}: relative import; the layout uses absolute imports")
        for name in names:
            parts = name.split(".")
            if parts[0] == "stacks":
                found.add("stacks")
            elif parts[0] == "fastload_constructs" and len(parts) > 1:
                found.add(parts[1])
    return found


# Classes `cdk8s import` generated from vendored CRDs (k8s/imports/*/README.md): jsii's own layout, with its
# relative imports, regenerated and never edited; they import only jsii, cdk8s and constructs.
GENERATED = PACKAGE / "k8s" / "imports"


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_run_one_way(package: str) -> None:
    for path in sorted((PACKAGE / package).rglob("*.py")):
        if GENERATED in path.parents:
            continue
        used = _package_imports(path) - {package}
        assert used <= ALLOWED[package], f"{path.relative_to(PACKAGE)} imports {sorted(used - ALLOWED[package])}"


def test_core_is_packages_by_concept_around_a_few_foundations() -> None:
    """Decisions live in concept packages (planning, serving, cluster, access, scaling); only the
    foundations every package uses stay flat in core/."""
    flat = {p.name for p in (PACKAGE / "core").glob("*.py")} - {"__init__.py"}
    assert flat == {
        "catalog.py",
        "errors.py",
        "images.py",
        "release_lists.py",
        "model.py",
        "naming.py",
        "s3_uri.py",
        "settings.py",
        "tokens.py",
        "validation.py",
    }
    packages = {p.parent.name for p in (PACKAGE / "core").glob("*/__init__.py")}
    assert packages == {"access", "cluster", "engines", "planning", "scaling", "serving"}


# Inside core, what a concept package may import from core besides itself: the engines sit below
# planning (which predicts their phases) and serving (which builds their pods), on the foundations only.
CORE_ALLOWED = {
    "engines": {"catalog", "errors", "images", "model", "naming", "settings", "tokens", "validation"},
}


def _core_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("fastload_constructs.core."):
            found.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[2] for a in node.names if a.name.startswith("fastload_constructs.core.")}
    return found


@pytest.mark.parametrize("package", sorted(CORE_ALLOWED))
def test_core_packages_import_only_what_lies_below_them(package: str) -> None:
    files = sorted((PACKAGE / "core" / package).rglob("*.py"))
    assert files
    for path in files:
        used = _core_imports(path) - {package}
        assert used <= CORE_ALLOWED[package], (
            f"{path.relative_to(PACKAGE)} imports {sorted(used - CORE_ALLOWED[package])}"
        )


def test_the_core_import_check_can_fail(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(
        "from fastload_constructs.core.planning.plan import ServingPlan\nimport fastload_constructs.core.errors\n"
    )
    assert _core_imports(module) == {"planning", "errors"}


def test_nothing_flat_at_the_package_root() -> None:
    modules = {p.name for p in PACKAGE.glob("*.py")}
    assert modules == {"__init__.py", "jsii_node.py"}
