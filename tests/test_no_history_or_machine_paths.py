"""What a reader finds in the repository says why, and cites what anyone can look up.

Refused everywhere a user or contributor reads (the package, the reference app, docs, examples,
benchmarks, tests and their fixtures; this module, which spells the rules out, aside):
- "issue N": an issue of this project, which a reader cannot look up. A public issue is cited as
  `owner/repo#N` or by its URL; the reason itself replaces a reference to this project's history.
- a path of the machine the project was written on (a root `/work/` folder, `research/N` notes) and
  ids of a private search index: cite the public address instead, or say that it is not recorded.
Upstream logs copied verbatim into fixtures hold their authors' paths (`/home/<user>/work/...`), which
are not roots of this machine, so the path rule matches only a `/work/` that starts a path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("fastload_constructs", "stacks", "docs", "examples", "bench", "tests", "dashboards")
TOP_FILES = ("README.md", "CHANGELOG.md", "app.py", "cdk.json", "Makefile", "pyproject.toml", "setup.py")
SKIPPED_DIRS = {"__pycache__", "cdk.out", ".pytest_cache", "node_modules"}

RULES = {
    "this project's issue number (cite owner/repo#N or a URL, or give the reason)": re.compile(
        r"\bissues? #?\d", re.IGNORECASE
    ),
    "a path of this machine": re.compile(r"(?<![\w.~])/work(?=/)|(?<![\w-])research(?=/\d)"),
    "a private search index's id": re.compile(r"\b(?:search[- ]index|file) id \d", re.IGNORECASE),
}


def _text_files() -> Iterator[Path]:
    for name in TOP_FILES:
        if (ROOT / name).is_file():
            yield ROOT / name
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            skipped = SKIPPED_DIRS.intersection(path.relative_to(ROOT).parts) or path == Path(__file__).resolve()
            if path.is_file() and not skipped:
                yield path


def findings(text: str) -> list[str]:
    """`rule: line` for every line of `text` that breaks a rule."""
    return [
        f"{rule}: {line.strip()[:160]}"
        for line in text.splitlines()
        for rule, pattern in RULES.items()
        if pattern.search(line)
    ]


def test_no_file_carries_an_issue_number_a_machine_path_or_a_private_index_id():
    found = []
    for path in _text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # images, archives
        found += [f"{path.relative_to(ROOT)}: {f}" for f in findings(text)]
    assert found == []


@pytest.mark.parametrize(
    "line",
    [
        "checked at synth with one clear message each (issue " + "28).",
        "# The SGLang Deployment (Issue #" + "29) is the same pod",
        "(amazon-eks-ami issues " + "1751, 2210)",
        "collected under /" + "work/research/26/events/",
        "cited in research/" + "26/image_pull.md",
        "a blog post (search index id " + "54837287828)",
        "the code-search index gives its text (file id " + "46017414235)",
    ],
)
def test_each_rule_catches_what_it_is_for(line):
    assert findings(line)


@pytest.mark.parametrize(
    "line",
    [
        "(vllm-project/vllm#20264; https://github.com/sgl-project/sglang/issues/4257)",
        '"group": "issue16663"',
        'File "/home/clouduser/work/models/DeepSeek-R1-Distill-Qwen-32B"',
        "https://github.com/JIA-Lab-research/VisionThink/issues/14",
        "21_FAIL_v0.4.3_r1_distill_32b_tp8_nccl_init_issue4289.log",
    ],
)
def test_public_references_and_upstream_paths_pass(line):
    assert findings(line) == []
