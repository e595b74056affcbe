"""The typed classes of `fastload_constructs/k8s/imports/<controller>/`, made by `cdk8s import` from vendored CRDs.

Each controller's CRDs are joined into one multi-document file, so that its kinds share one module (one
`cdk8s import` per file would give each CRD of a group the same module and the last would win), and the
cdk8s CLI pinned here runs on the packaged Node.js (`.venv/bin/node`, npx from `.venv/bin`). Every folder
keeps a `SHA256SUMS` of the CRDs it was made from and of the files it holds, which the tests check
(tests/test_crd_imports.py); regenerating rewrites both:

    PATH=$PWD/.venv/bin:$PATH PYTHONPATH=$PWD .venv/bin/python -m tests.crd_imports keda fma
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMPORTS = ROOT / "fastload_constructs" / "k8s" / "imports"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
FMA_CRDS = ROOT / "fastload_constructs" / "infra" / "charts" / "fma-crds" / "crds"
CDK8S_CLI = "2.207.60"
SUMS = "SHA256SUMS"

# Controller -> the CRDs its module is made from, in the order they are joined.
CRDS: dict[str, tuple[Path, ...]] = {
    "keda": (
        FIXTURES / "keda-2.20.2" / "keda.sh_scaledobjects.yaml",
        FIXTURES / "keda-2.20.2" / "keda.sh_triggerauthentications.yaml",
    ),
    "fma": (
        FMA_CRDS / "fma.llm-d.ai_inferenceserverconfigs.yaml",
        FMA_CRDS / "fma.llm-d.ai_launcherconfigs.yaml",
        FMA_CRDS / "fma.llm-d.ai_launcherpopulationpolicies.yaml",
    ),
    "karpenter": (
        FIXTURES / "karpenter-1.14.1" / "karpenter.sh_nodepools.yaml",
        FIXTURES / "karpenter-1.14.1" / "karpenter.k8s.aws_ec2nodeclasses.yaml",
        FIXTURES / "karpenter-1.14.1" / "autoscaling.x-k8s.io_capacitybuffers.yaml",
    ),
}
# What `cdk8s import` writes for each: one module per API group, the group reversed, as folders.
MODULES: dict[str, tuple[Path, ...]] = {
    "keda": (Path("sh") / "keda",),
    "fma": (Path("ai") / "llm_d" / "fma",),
    "karpenter": (Path("sh") / "karpenter", Path("aws") / "k8s" / "karpenter", Path("io") / "x_k8s" / "autoscaling"),
}


def joined(controller: str) -> str:
    """The controller's CRDs as one multi-document YAML file."""
    return "---\n".join(path.read_text() for path in CRDS[controller])


def generate(controller: str, out: Path) -> None:
    """Run `cdk8s import` on the joined CRDs, writing the module under `out`."""
    node_bin = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{node_bin}{os.pathsep}{os.environ.get('PATH', '')}"}
    with tempfile.TemporaryDirectory() as work:
        crds = Path(work) / f"{controller}-crds.yaml"
        crds.write_text(joined(controller))
        command = [
            str(node_bin / "npx"),
            "--yes",
            f"cdk8s-cli@{CDK8S_CLI}",
            "import",
            str(crds),
            "--no-check-upgrade",
            "--language",
            "python",
            "--output",
            str(out),
        ]
        subprocess.run(command, cwd=work, env=env, check=True, capture_output=True, text=True, timeout=900)


def generated_files(folder: Path) -> list[Path]:
    """The files `cdk8s import` wrote under `folder` (caches left out), sorted."""
    return sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sums(controller: str) -> dict[str, str]:
    """Path (from the repository root) -> sha256 of each CRD and each generated file of `controller`."""
    modules = [IMPORTS / controller / module for module in MODULES[controller]]
    paths = [*CRDS[controller], *(path for module in modules for path in generated_files(module))]
    return {path.relative_to(ROOT).as_posix(): _sha256(path) for path in paths}


def recorded_sums(controller: str) -> dict[str, str]:
    lines = (IMPORTS / controller / SUMS).read_text().splitlines()
    return {path: digest for digest, path in (line.split("  ", 1) for line in lines if line)}


def regenerate(controller: str) -> None:
    """Replace the package's module of `controller` and record its sums."""
    for module in MODULES[controller]:
        shutil.rmtree(IMPORTS / controller / module, ignore_errors=True)
    generate(controller, IMPORTS / controller)
    text = "".join(f"{digest}  {path}\n" for path, digest in sums(controller).items())
    (IMPORTS / controller / SUMS).write_text(text)


if __name__ == "__main__":
    for name in sys.argv[1:] or sorted(CRDS):
        regenerate(name)
