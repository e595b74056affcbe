"""The reference app splits its models over as many stacks as CloudFormation's limits need.

One model stays the reference stack alone (tests/test_reference_app.py, tests/test_golden_manifests.py);
a hundred from cdk.json are the reference stack and models stacks, each within every limit the app checks,
deployed in order, the namespace and the PriorityClasses owned by the reference stack alone. The deploy
rehearsal runs on a split app too (tests/test_deploy_rehearsal.py, `split-*`).
"""

from __future__ import annotations

import copy
import itertools
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from fastload_constructs.infra.synth_limits import (
    MAX_BUCKET_POLICY_BYTES,
    MAX_STACK_RESOURCES,
    MAX_TEMPLATE_BYTES,
    MAX_TEMPLATE_OUTPUTS,
    MAX_TEMPLATE_PARAMETERS,
    policy_bytes,
)
from stacks.config import parse_reference_config
from stacks.reference_app import model_groups
from tests.emitted_manifests import template_manifests
from tests.split_models import CDK_JSON, EVERY_FEATURE, STAGER, model_entry, split_context

REFERENCE = "FastloadReference"
ROOT = Path(__file__).resolve().parent.parent


def _hundred_models() -> dict[str, object]:
    """cdk.json with 100 models, each with every per-model feature that adds objects, and one stager."""
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:stagerRoleArns"] = [STAGER]
    ctx["fastload:models"] = [model_entry(f"m{i:03d}", **EVERY_FEATURE) for i in range(100)]
    return ctx


def _run_app(tmp_path: Path, context: dict[str, object]) -> Path:
    """`cdk synth` as the CLI runs the app: `python3 app.py` with the context and the output folder in its
    environment, so `main()`'s limit checks run too."""
    outdir = tmp_path / "cdk.out"
    env = {**os.environ, "CDK_CONTEXT_JSON": json.dumps(context), "CDK_OUTDIR": str(outdir)}
    done = subprocess.run(
        [sys.executable, "app.py"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return outdir


def _stacks(outdir: Path) -> dict[str, dict]:
    """Stack name -> {template, dependencies}, from the assembly's manifest."""
    manifest = json.loads((outdir / "manifest.json").read_text())
    stacks = {}
    for name, artifact in manifest["artifacts"].items():
        if artifact["type"] == "aws:cloudformation:stack":
            path = outdir / artifact["properties"]["templateFile"]
            stacks[name] = {
                "template": json.loads(path.read_text()),
                "bytes": path.stat().st_size,
                "after": {d for d in artifact.get("dependencies", []) if not d.endswith(".assets")},
            }
    return stacks


def _servers(template: dict) -> list[str]:
    """The models whose servers (or standby engines) a stack applies."""
    return sorted(
        {
            o["metadata"]["labels"]["app.kubernetes.io/instance"]
            for _, o in template_manifests(template)
            if o["kind"] in ("Deployment", "LauncherConfig")
            and o["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "inference-server"
        }
    )


def _kinds(template: dict) -> Counter[str]:
    return Counter(o["kind"] for _, o in template_manifests(template))


def test_the_models_are_placed_in_order_and_one_model_is_the_reference_stack_alone():
    hundred = parse_reference_config(_hundred_models())
    groups = model_groups(hundred)
    assert [i for g in groups for i in g] == list(range(100)) and len(groups) >= 2
    assert len(groups[0]) < len(groups[1])  # the reference stack's own resources leave it less room
    one = parse_reference_config(copy.deepcopy(CDK_JSON))
    assert model_groups(one) == [range(0, 1)]


def test_a_split_app_deploys_its_models_stacks_after_the_reference_stack_one_after_another(tmp_path):
    outdir = _run_app(tmp_path, split_context())
    stacks = _stacks(outdir)
    assert list(stacks) == [REFERENCE, f"{REFERENCE}-Models1"]
    assert stacks[f"{REFERENCE}-Models1"]["after"] == {REFERENCE} and not stacks[REFERENCE]["after"]
    assert _servers(stacks[REFERENCE]["template"]) == ["llama", *(f"standing-{i}" for i in range(3))]
    assert _servers(stacks[f"{REFERENCE}-Models1"]["template"]) == ["qwen", "standing-3"]
    # Each stack's charts as YAML in a folder of its own.
    assert (outdir / "manifests" / "02-namespace.yaml").exists()
    models_export = sorted(p.name for p in (outdir / f"manifests-{REFERENCE}-Models1").iterdir())
    assert models_export and not any("namespace" in name for name in models_export)


@pytest.mark.slow
def test_a_hundred_models_from_cdk_json_synthesize_within_every_limit(tmp_path):
    outdir = _run_app(tmp_path, _hundred_models())
    stacks = _stacks(outdir)
    names = list(stacks)
    assert names[0] == REFERENCE and len(names) >= 3
    for name, stack in stacks.items():
        template = stack["template"]
        assert len(template["Resources"]) <= MAX_STACK_RESOURCES, name
        assert stack["bytes"] <= MAX_TEMPLATE_BYTES, name
        assert len(template.get("Outputs", {})) <= MAX_TEMPLATE_OUTPUTS, name
        assert len(template.get("Parameters", {})) <= MAX_TEMPLATE_PARAMETERS, name
    # Every model served once, in cdk.json's order over the stacks.
    served = [m for name in names for m in _servers(stacks[name]["template"])]
    assert served == [f"m{i:03d}" for i in range(100)]
    # In deploy order: each models stack after the reference stack and the stack before it.
    for before, name in itertools.pairwise(names):
        assert stacks[name]["after"] == {REFERENCE, before}, name
    # The namespace and the PriorityClasses are the reference stack's alone; each stack its own scripts.
    kinds = {name: _kinds(stack["template"]) for name, stack in stacks.items()}
    assert kinds[REFERENCE]["Namespace"] == 1 and kinds[REFERENCE]["PriorityClass"] == 2
    assert all(kinds[name]["Namespace"] == kinds[name]["PriorityClass"] == 0 for name in names[1:])
    scripts = {
        o["metadata"]["name"]
        for stack in stacks.values()
        for _, o in template_manifests(stack["template"])
        if o["kind"] == "ConfigMap" and o["metadata"]["name"].startswith("fastload-runtime-")
    }
    assert len(scripts) == len(names)
    # The stager is granted the models' folder: the bucket policy stays within S3's 20 KB.
    (policy,) = [
        r["Properties"]["PolicyDocument"]
        for r in stacks[REFERENCE]["template"]["Resources"].values()
        if r["Type"] == "AWS::S3::BucketPolicy" and "/models/*" in json.dumps(r["Properties"]["PolicyDocument"])
    ]
    assert policy_bytes(policy) <= MAX_BUCKET_POLICY_BYTES and "/models/m000" not in json.dumps(policy)
