"""Import order never matters and the CDK CLI needs no PATH: the .pth file and the .venv/bin/cdk wrapper."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from fastload_constructs.jsii_node import packaged_node

ROOT = Path(__file__).resolve().parent.parent
PTH_NAME = "fastload_constructs-jsii-node.pth"
CDK_JS = ROOT / ".venv" / "cdk-cli" / "node_modules" / "aws-cdk" / "bin" / "cdk"

# aws_cdk first (the order isort writes), then the library: jsii starts node at `import aws_cdk`.
SYNTH_AWS_CDK_FIRST = """
import aws_cdk as cdk
import json, os, sys
from fastload_constructs.infra.network import FastloadNetwork
app = cdk.App(outdir=sys.argv[1])
stack = cdk.Stack(app, "ImportOrder", env=cdk.Environment(account="111122223333", region="us-east-1"))
FastloadNetwork(stack, "Network")
template = app.synth().get_stack_by_name("ImportOrder").template
print(os.environ["JSII_NODE"])
print(sum(1 for r in template["Resources"].values() if r["Type"] == "AWS::EC2::VPC"))
"""


def _no_node_env(tmp_path: Path) -> dict[str, str]:
    """The environment minus JSII_NODE, with a PATH of one empty folder: no node, no npm."""
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("JSII_NODE", "PYTHONPATH")}
    env["PATH"] = str(empty)
    return env


@pytest.fixture(scope="module")
def built_wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The wheel (`pip install .`) and the editable wheel (`pip install -e .`) built from this tree."""
    out = tmp_path_factory.mktemp("wheels")
    # A copy of what the sdist holds, so the build leaves no build/ or egg-info in the checkout.
    src = tmp_path_factory.mktemp("src")
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "fastload_constructs", src / "fastload_constructs", ignore=shutil.ignore_patterns("__pycache__")
    )
    built = {}
    for kind, hook in (("wheel", "build_wheel"), ("editable", "build_editable")):
        code = f"import sys; from setuptools import build_meta; print('BUILT', build_meta.{hook}(sys.argv[1]))"
        done = subprocess.run(
            [sys.executable, "-c", code, str(out)], cwd=src, capture_output=True, text=True, timeout=300, check=False
        )
        assert done.returncode == 0, done.stderr[-3000:]
        built[kind] = out / done.stdout.split("BUILT ")[-1].strip()
    return built


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["wheel", "editable"])
def test_both_installs_carry_the_pth_at_site_packages_top(built_wheels: dict[str, Path], kind: str) -> None:
    with zipfile.ZipFile(built_wheels[kind]) as wheel:
        assert PTH_NAME in wheel.namelist()  # the top level: installed into site-packages itself
        line = wheel.read(PTH_NAME).decode()
    assert line.startswith("import ") and line.count("\n") == 1  # `site` executes such a line


@pytest.mark.slow
def test_aws_cdk_imported_first_with_no_node_on_path_synthesizes(built_wheels: dict[str, Path], tmp_path: Path) -> None:
    """The .pth from the wheel, in a site folder added before anything is imported, as at interpreter start."""
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    with zipfile.ZipFile(built_wheels["wheel"]) as wheel:
        (site_dir / PTH_NAME).write_bytes(wheel.read(PTH_NAME))
    code = f"import site; site.addsitedir({str(site_dir)!r})\n" + SYNTH_AWS_CDK_FIRST
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "cdk.out")],
        cwd=ROOT,
        env=_no_node_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    jsii_node, vpcs = done.stdout.split()[-2:]
    assert jsii_node == str(packaged_node()) and vpcs == "1"
    # A JSII_NODE the user set is left as it is.
    code = f"import os, site; site.addsitedir({str(site_dir)!r}); print(os.environ['JSII_NODE'])"
    env = {**_no_node_env(tmp_path), "JSII_NODE": "/opt/node-22/bin/node"}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "/opt/node-22/bin/node"


def test_without_the_pth_aws_cdk_first_finds_no_node(tmp_path: Path) -> None:
    """What the .pth fixes: the same program without it fails where PATH has no node."""
    done = subprocess.run(
        [
            *(sys.executable, "-S", "-c", "import sys; sys.path[:0] = sys.argv[2:]\n" + SYNTH_AWS_CDK_FIRST),
            *(str(tmp_path / "cdk.out"), str(ROOT), *[p for p in sys.path if p.endswith("site-packages")]),
        ],
        cwd=ROOT,
        env=_no_node_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode != 0
    assert "node" in done.stderr


def test_installed_environment_sets_jsii_node_at_start(tmp_path: Path) -> None:
    """This environment's install (`make setup`) carries the .pth: JSII_NODE is set before any import."""
    site_packages = [Path(p) for p in sys.path if p.endswith("site-packages")]
    if not any((p / PTH_NAME).is_file() for p in site_packages):
        pytest.skip(f"installed before {PTH_NAME} existed: `make setup` installs it again")
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.environ.get('JSII_NODE'))"],
        env=_no_node_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == str(packaged_node())


def test_an_explicit_jsii_node_wins(tmp_path: Path) -> None:
    from fastload_constructs import jsii_node

    env = {**_no_node_env(tmp_path), "JSII_NODE": "/opt/node-22/bin/node"}
    code = "import os; from fastload_constructs.jsii_node import use_packaged_node as u; print(u())"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "/opt/node-22/bin/node"
    assert jsii_node.packaged_node() is not None


@pytest.mark.skipif(not CDK_JS.is_file(), reason="the CDK CLI is not installed (make setup installs it)")
def test_cdk_wrapper_runs_with_a_minimal_path(tmp_path: Path) -> None:
    """`make setup` writes .venv/bin/cdk; the same rule writes one here, run with PATH=/nonexistent."""
    wrapper = tmp_path / "cdk"
    stamps = ["-o", ".venv/.installed", "-o", str(CDK_JS.relative_to(ROOT))]
    subprocess.run(["make", "--no-print-directory", *stamps, f"CDK={wrapper}", str(wrapper)], cwd=ROOT, check=True)
    assert wrapper.read_text().startswith("#!/bin/sh\n")
    done = subprocess.run(
        [str(wrapper), "--version"],
        env={"PATH": "/nonexistent", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0].startswith("2.")
