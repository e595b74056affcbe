"""checkov, a third-party policy scanner, over every template and manifest the reference app can emit.

checkov runs from its own virtual environment (`make test-tools` puts it in `.venv/checkov/`; it pins
an older boto3 than the project's). Variants: the default `cdk.json`; every per-model feature on Karpenter
with the image mirrored through ECR; the same on managed node groups with AL2023 nodes and a provisioned
restore rate. A finding the library accepts is acknowledged on its resource with a reason
(`infra/checkov_findings.py` for CloudFormation, `checkov.io/skip<N>` annotations on Kubernetes objects);
anything else fails here, by check id, resource and file.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from app import build_app
from fastload_constructs.infra.manifest_export import synth_with_manifests
from tests.split_models import CDK_JSON, split_context

ROOT = Path(__file__).resolve().parent.parent
CHECKOV = Path(os.environ.get("FASTLOAD_CHECKOV", ROOT / ".venv" / "checkov" / "bin" / "checkov"))
MIRROR = {
    "upstream": "docker-hub",
    "credentialSecretArn": "arn:aws:secretsmanager:us-west-2:123456789012:secret:ecr-pullthroughcache/docker-abc123",
}


def _variants() -> dict[str, dict[str, Any]]:
    mirrored = split_context("karpenter")
    mirrored["fastload:vllmImageMirror"] = MIRROR
    managed = split_context("managed")
    managed["fastload:amiFamily"] = "al2023"
    managed["fastload:imageRestore"] = "rate"
    for model in managed["fastload:models"]:
        model.pop("bufferedNodes", None)  # CapacityBuffers are Karpenter's; node groups hold every replica's node
    return {"default": copy.deepcopy(CDK_JSON), "every-feature": mirrored, "managed-al2023": managed}


VARIANTS = _variants()


def _checkov(*args: str) -> list[dict[str, Any]]:
    """checkov's JSON report(s), offline (no download of Prisma Cloud's guidelines)."""
    if not CHECKOV.exists():
        pytest.fail(f"checkov is not installed at {CHECKOV}: run `make test-tools` (or set FASTLOAD_CHECKOV)")
    out = subprocess.run(
        [str(CHECKOV), *args, "--compact", "--quiet", "--skip-download", "-o", "json"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert out.returncode in (0, 1), out.stderr[-2000:]  # 1: findings, read below
    report = json.loads(out.stdout)
    return report if isinstance(report, list) else [report]


def _failures(reports: list[dict[str, Any]]) -> list[str]:
    return [
        f"{f['check_id']} {f['resource']} ({Path(f['file_path']).name}): {f['check_name']}"
        for report in reports
        for f in report.get("results", {}).get("failed_checks", [])
    ]


@pytest.fixture(scope="module", params=sorted(VARIANTS))
def assembly(request, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp(request.param)
    synth_with_manifests(build_app(VARIANTS[request.param], outdir=str(out)))
    return out


def test_every_template_passes_checkov(assembly):
    templates = sorted(assembly.glob("*.template.json"))
    assert templates
    reports = _checkov(*(a for t in templates for a in ("-f", str(t))), "--framework", "cloudformation")
    assert sum(r["summary"]["passed"] for r in reports) > 100  # it read the resources, not an empty file
    assert _failures(reports) == []


def test_every_manifest_passes_checkov(assembly):
    manifests = assembly / "manifests"
    assert any(manifests.rglob("*.yaml"))
    reports = _checkov("-d", str(manifests), "--framework", "kubernetes")
    assert sum(r["summary"]["passed"] for r in reports) > 50
    assert _failures(reports) == []


def test_each_acknowledged_template_finding_names_its_reason(assembly):
    for template in assembly.glob("*.template.json"):
        for logical_id, resource in json.loads(template.read_text())["Resources"].items():
            for skip in resource.get("Metadata", {}).get("checkov", {}).get("skip", []):
                assert skip["id"].startswith("CKV"), (logical_id, skip)
                assert len(skip.get("comment", "")) > 40, (logical_id, skip)  # a reason, not a shrug
