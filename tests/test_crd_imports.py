"""The typed Karpenter, KEDA and FMA classes are what `cdk8s import` makes of the vendored CRDs, and nothing else.

Fast: the sha256 of every CRD and every generated file against the folder's `SHA256SUMS`, so a CRD updated
without regenerating, or a generated file edited by hand, fails. Slow: the pinned cdk8s CLI regenerates each
module into a temporary folder (npm registry needed, as `make setup` does) and every file must match.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.crd_imports import CRDS, IMPORTS, MODULES, ROOT, generate, generated_files, recorded_sums, sums


@pytest.mark.parametrize("controller", sorted(CRDS))
def test_the_generated_module_and_its_crds_are_the_recorded_ones(controller):
    recorded = recorded_sums(controller)
    for crd in CRDS[controller]:
        assert crd.relative_to(ROOT).as_posix() in recorded, f"{crd.name} is not among {controller}'s inputs"
    assert sums(controller) == recorded, (
        f"k8s/imports/{controller} drifted from its CRDs or was edited: regenerate with "
        f"`python -m tests.crd_imports {controller}` (k8s/imports/{controller}/README.md)"
    )


def test_only_the_charts_that_render_them_import_the_generated_modules():
    users = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "fastload_constructs").rglob("*.py")
        if IMPORTS not in path.parents and "k8s.imports." in path.read_text()
    }
    assert users <= {
        "fastload_constructs/k8s/capacity_buffer.py",
        "fastload_constructs/k8s/fma_objects.py",
        "fastload_constructs/k8s/karpenter.py",
        "fastload_constructs/k8s/keda.py",
        "fastload_constructs/k8s/standby.py",
    }, users
    probe = (
        "import sys, fastload_constructs, fastload_constructs.cli.main; "
        "print(sorted(m for m in sys.modules if '.k8s.imports.' in m))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert loaded.stdout.strip() == "[]"


@pytest.mark.slow
@pytest.mark.parametrize("controller", sorted(CRDS))
def test_cdk8s_import_regenerates_the_module_byte_for_byte(controller, tmp_path):
    try:
        generate(controller, tmp_path)
    except subprocess.CalledProcessError as err:
        if "ENOTFOUND" in err.stderr or "EAI_AGAIN" in err.stderr:
            pytest.skip(f"the npm registry cannot be reached: {err.stderr.strip().splitlines()[-1]}")
        raise
    for module_path in MODULES[controller]:
        module, fresh = IMPORTS / controller / module_path, tmp_path / module_path
        mine = {p.relative_to(module): p.read_bytes() for p in generated_files(module)}
        made = {p.relative_to(fresh): p.read_bytes() for p in generated_files(fresh)}
        assert sorted(made) == sorted(mine)
        for name, content in made.items():
            assert content == mine[name], f"{controller}: {module_path / name} differs from what cdk8s import makes"
