"""The docs cannot go stale: generated parts match the code, the README quotes no figure of its own, and
every module, name and file of the package that a doc, docstring or comment names exists.

`docs/generate.py` (`make docs`) writes the README's plan table and docs/api.md from the code; here it
runs in check mode. A figure in the README's prose (a number with a unit: seconds, GB, MB/s, a percent,
a ratio) outside a generated part is refused: it would be a number nobody recomputes.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fastload_constructs"
FIGURE = re.compile(r"(?<![\w.-])\d[\d,]*(\.\d+)?\s?(s|ms|min|h|GB|GiB|MB|MiB|TB|MB/s|GB/s|Gbps|%|x)(?![\w/])")


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("docs_generate", ROOT / "docs" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prose(markdown: str) -> str:
    """The README's own words: without code blocks, inline code, generated parts and HTML comments."""
    text = re.sub(r"<!-- generated: .*?<!-- end generated -->", "", markdown, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.sub(r"<!--.*?-->", "", text, flags=re.S)


def test_generated_parts_and_the_api_reference_match_the_code(capsys):
    assert _generator().main(["--check"]) == 0, capsys.readouterr().err


def test_the_readme_quotes_figures_only_from_generated_parts():
    readme = (ROOT / "README.md").read_text()
    assert "<!-- generated: reference-plan -->" in readme
    found = [m.group(0) for m in FIGURE.finditer(prose(readme))]
    assert found == [], f"figures in the README's prose (put them in a generated part): {found}"


def test_the_figure_check_can_fail():
    assert [m.group(0) for m in FIGURE.finditer(prose("a fresh node takes 274.7 s, pulls 9.4 GB at 3.3x"))] == [
        "274.7 s",
        "9.4 GB",
        "3.3x",
    ]
    assert FIGURE.search(prose("`make test` takes `6 min`; <!-- generated: x -->99 s<!-- end generated -->")) is None


def test_the_generated_plan_table_is_the_reference_apps_plan():
    generate = _generator()
    table = generate.reference_plan()
    ((name, p),) = generate._reference_plans()
    assert f"**{p.scale_out_paths.fresh_node.total_s:.1f}**" in table and name in table


# A module or name of the package: written out in full, from `core.` (`core.planning.plan.ServingPlan`), or
# quoted from another subpackage (`infra.ServedModel`, `k8s.keda.AutoscalingChart`; not `s3.`, which the docs
# use for aws_cdk.aws_s3, and not containerd's `k8s.io` namespace). And a file of the package
# (`core/serving/server_pod.py`, `fastload_constructs/k8s/server_chart.py`).
DOTTED = re.compile(
    r"(?<![\w./-])(?:fastload_constructs|core)(?:\.[A-Za-z_]\w*)+"
    r"|(?<=`)(?:infra|k8s|coldstart|runtime|cli)(?:\.[A-Za-z_]\w*)+(?=`)(?<!k8s\.io)"
)
FILE = re.compile(r"(?<![\w./-])(?:fastload_constructs/)?(?:core|k8s|infra|runtime|coldstart|cli|s3)/[\w/]*\.py\b")
PYTHON_SOURCES = ("fastload_constructs", "stacks", "bench", "examples", "tests")
GENERATED = PACKAGE / "k8s" / "imports"
# Files shipped as they are (the in-pod scripts' ConfigMap, the snapshot job's Lambda asset): their text is
# deployed output, so a reference in them is corrected with the next intended change to the file, not alone.
SHIPPED_AS_IS = {
    ("fastload_constructs/runtime/compile_cache.py", "core/access/model_access.py"),  # now model_bucket.py
    ("fastload_constructs/infra/node_image_snapshot_handler/index.py", "infra.NodeImageSnapshot"),  # not exported
}


def comments_and_docstrings(source: str) -> Iterator[tuple[int, str]]:
    """(line, text) of every comment and every string statement (module, class, function and attribute
    docstrings) of a Python source."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for offset, line in enumerate(node.value.value.splitlines()):
                yield node.lineno + offset, line


def _texts() -> Iterator[tuple[str, int, str]]:
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for n, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            yield str(doc.relative_to(ROOT)), n, line
    files = [ROOT / "app.py", *(p for d in PYTHON_SOURCES for p in sorted((ROOT / d).rglob("*.py")))]
    for path in files:
        if GENERATED not in path.parents and "cdk.out" not in path.parts:
            for n, text in comments_and_docstrings(path.read_text(encoding="utf-8")):
                yield str(path.relative_to(ROOT)), n, text


def _has(obj: object, name: str) -> bool:
    fields = obj.__dataclass_fields__ if dataclasses.is_dataclass(obj) else {}
    return hasattr(obj, name) or name in fields or name in getattr(obj, "__annotations__", {})


def dotted_name_exists(name: str) -> bool:
    """Whether a dotted name (`fastload_constructs.core.planning.plan.ServingPlan`, or the same from `core.`)
    is a module of the package or a name in one."""
    parts = name.split(".")
    if parts[0] != "fastload_constructs":
        parts = ["fastload_constructs", *parts]
    for cut in range(len(parts), 0, -1):
        where = ROOT.joinpath(*parts[:cut])
        if where.with_suffix(".py").is_file() or (where / "__init__.py").is_file():
            obj: object = importlib.import_module(".".join(parts[:cut]))
            for attribute in parts[cut:]:
                if not _has(obj, attribute):
                    return False
                obj = getattr(obj, attribute, None)
            return True
    return False


def package_file_exists(path: str) -> bool:
    return (ROOT / path).is_file() if path.startswith("fastload_constructs/") else (PACKAGE / path).is_file()


def stale_references(texts: Iterator[tuple[str, int, str]]) -> list[tuple[str, int, str]]:
    """(file, line, reference) for every reference that names no module, name or file of the package."""
    stale = []
    for where, line, text in texts:
        stale += [(where, line, m.group(0)) for m in DOTTED.finditer(text) if not dotted_name_exists(m.group(0))]
        stale += [(where, line, m.group(0)) for m in FILE.finditer(text) if not package_file_exists(m.group(0))]
    return stale


def test_every_module_name_and_file_of_the_package_named_in_docs_docstrings_and_comments_exists():
    stale = stale_references(_texts())
    assert [f"{where}:{line}: {name}" for where, line, name in stale if (where, name) not in SHIPPED_AS_IS] == []
    left = {(where, name) for where, _, name in stale}
    assert left >= SHIPPED_AS_IS, f"corrected, so off SHIPPED_AS_IS: {sorted(SHIPPED_AS_IS - left)}"


@pytest.mark.parametrize(
    "text",
    [
        "a ServingPlan from `fastload_constructs.tuning.plan`",
        "decisions live in `core/image_mirror.py`",
        "(fastload_constructs/core/model_access.py TEMPORARY_OBJECT_TAG)",
        "`core.tuning.ScaleOutPaths.fresh_node`",
        "`fastload_constructs.core.planning.plan.ServingPlan.no_such_field`",
        "restored by `infra.NoSuchSnapshot`",
    ],
)
def test_a_stale_reference_is_found(text):
    assert stale_references(iter([("doc", 1, text)]))


def test_live_references_pass_and_other_projects_paths_are_not_read_as_ours():
    text = (
        "`fastload_constructs.core.planning.plan.ServingPlan`, `core.serving.server_pod.Toleration.effect`, "
        "`fastload_constructs.core.planning`, `infra.ServedModel`, `k8s.keda.AutoscalingChart` and "
        "`infra/served_model.py`; `s3.IBucket`, containerd's `k8s.io`, and vllm's "
        "vllm/entrypoints/cli/serve.py and pip's src/pip/_internal/cli/cmdoptions.py."
    )
    assert stale_references(iter([("doc", 1, text)])) == []


def test_comments_and_docstrings_are_read_from_python():
    source = '"""Module `a`."""\n\n\nclass C:\n    x: int = 1\n    """Attribute `b`."""\n\n\ny = 2  # see `c`\n'
    assert sorted(text for _, text in comments_and_docstrings(source)) == [
        "# see `c`",
        "Attribute `b`.",
        "Module `a`.",
    ]
