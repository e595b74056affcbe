"""A reviewed snapshot of the reference app's exported manifests, one golden YAML per chart.

An unintended change to what `make synth` writes under cdk.out/manifests/
fails here and shows as a diff in review. After an intended change, refresh
the snapshot and review the diff it makes:

    FASTLOAD_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_golden_manifests.py
"""

from __future__ import annotations

import copy
import difflib
import json
import os
from pathlib import Path

import pytest

from app import build_app
from fastload_constructs.infra.manifest_export import synth_with_manifests

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden"
CDK_JSON = json.loads((ROOT / "cdk.json").read_text())["context"]
UPDATE = os.environ.get("FASTLOAD_UPDATE_GOLDEN") == "1"


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> dict[str, str]:
    outdir = tmp_path_factory.mktemp("cdk.out")
    synth_with_manifests(build_app(context=copy.deepcopy(CDK_JSON), outdir=str(outdir)))
    return {p.name: p.read_text() for p in sorted((outdir / "manifests").glob("*.yaml"))}


def test_exported_manifests_match_the_reviewed_snapshot(exported: dict[str, str]) -> None:
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        for stale in {p.name for p in GOLDEN.glob("*.yaml")} - set(exported):
            (GOLDEN / stale).unlink()
        for name, text in exported.items():
            (GOLDEN / name).write_text(text)
    golden = {p.name: p.read_text() for p in sorted(GOLDEN.glob("*.yaml"))}
    assert sorted(exported) == sorted(golden), "charts added or removed: refresh with FASTLOAD_UPDATE_GOLDEN=1"
    for name, text in exported.items():
        diff = "".join(difflib.unified_diff(golden[name].splitlines(True), text.splitlines(True), name, "synth"))
        assert not diff, f"{name} changed; review and refresh with FASTLOAD_UPDATE_GOLDEN=1:\n{diff}"
