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
