"""The reference app synthesises, and bad context stops it before anything is written."""

import copy
import json
from pathlib import Path

import pytest
from aws_cdk.assertions import Template

from app import build_app
from fastload_constructs.core.errors import FastloadConfigError

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]


@pytest.fixture(scope="module")
def assembly(tmp_path_factory):
    outdir = tmp_path_factory.mktemp("cdk.out")
    app = build_app(context=copy.deepcopy(CDK_JSON), outdir=str(outdir))
    return app.synth()


@pytest.fixture(scope="module")
def template(assembly):
    return Template.from_json(assembly.get_stack_by_name("FastloadReference").template)


def test_cluster_is_a_native_eks_cluster_at_the_configured_version(template):
    template.resource_count_is("AWS::EKS::Cluster", 1)
    template.has_resource_properties("AWS::EKS::Cluster", {"Version": "1.35"})


def test_assembly_is_written(assembly):
    assert Path(assembly.directory, "FastloadReference.template.json").exists()


def test_bad_context_fails_before_anything_is_written(tmp_path):
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:models"][0]["instanceType"] = "g6e.99xlarge"
    outdir = tmp_path / "out"
    with pytest.raises(FastloadConfigError):
        build_app(context=ctx, outdir=str(outdir))
    assert not outdir.exists() or not any(outdir.iterdir())


def test_app_run_by_a_python_without_aws_cdk_reruns_itself_with_the_project_venv(tmp_path):
    """What `.venv/cdk-cli/node_modules/.bin/cdk synth` does: cdk.json's `python3 app.py` with any python3."""
    import shutil
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    bare = next(
        (p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if Path(p).exists() and _lacks_aws_cdk(p)),
        None,
    )
    if bare is None:
        pytest.skip("no python3 without aws_cdk on this machine")
    shutil.copy(root / "app.py", tmp_path / "app.py")
    shutil.copy(root / "cdk.json", tmp_path / "cdk.json")
    for package in ("fastload_constructs", "stacks"):
        (tmp_path / package).symlink_to(root / package)
    (tmp_path / ".venv").symlink_to(Path(sys.prefix))
    done = subprocess.run(
        [bare, "app.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={  # as the CDK CLI runs the app: context and output folder in the environment
            "PATH": f"{Path(sys.prefix) / 'bin'}:/usr/bin:/bin",
            "CDK_OUTDIR": str(tmp_path / "out"),
            "CDK_CONTEXT_JSON": json.dumps(CDK_JSON),
        },
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "out" / "FastloadReference.template.json").exists()
    assert (tmp_path / "out" / "manifests" / "02-namespace.yaml").exists()


def _lacks_aws_cdk(python: str) -> bool:
    import subprocess

    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('aws_cdk') is not None)"
    return subprocess.run([python, "-c", probe], capture_output=True, timeout=30).returncode == 0


def test_admin_roles_from_context_get_cluster_admin_access_entries(tmp_path):
    admin = "arn:aws:iam::123456789012:role/PlatformAdmin"
    ctx = {**copy.deepcopy(CDK_JSON), "fastload:adminRoleArns": json.dumps([admin])}  # as -c passes it
    assembly = build_app(context=ctx, outdir=str(tmp_path)).synth()
    template = Template.from_json(assembly.get_stack_by_name("FastloadReference").template)
    entries = [r["Properties"] for r in template.find_resources("AWS::EKS::AccessEntry").values()]
    (entry,) = [e for e in entries if e["PrincipalArn"] == admin]
    (policy,) = entry["AccessPolicies"]
    assert policy["AccessScope"] == {"Type": "cluster"}
    assert json.dumps(policy["PolicyArn"]).endswith(':eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"]]}')


def test_one_model_is_the_reference_stack_alone_with_its_outputs(assembly):
    """More models than one stack holds split over models stacks (tests/test_reference_models_stacks.py); cdk.json's
    one model is today's single stack, with the outputs its users read."""
    assert [s.stack_name for s in assembly.stacks] == ["FastloadReference"]
    outputs = assembly.get_stack_by_name("FastloadReference").template["Outputs"]
    assert {k for k in outputs if not k.startswith("ExportsOutput")} == {
        "ClusterName",
        "ModelBucketName",
        "KarpenterNodeRoleName",
        "ClusterSecurityGroupId",
        "PrometheusQueryUrl",
        "NodeImageSnapshotId",
    }
    assert not any(k.startswith("ExportsOutput") for k in outputs)  # nothing exported: no stack imports from it
