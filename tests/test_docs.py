"""The docs cannot go stale: generated parts match the code, and the README quotes no figure of its own.

`docs/generate.py` (`make docs`) writes the README's plan table and docs/api.md from the code; here it
runs in check mode. A figure in the README's prose (a number with a unit: seconds, GB, MB/s, a percent,
a ratio) outside a generated part is refused: it would be a number nobody recomputes.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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
