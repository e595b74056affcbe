"""The reference app with `"engine": "sglang"` on its model: what `cdk synth` applies.

One synthesis of the app as shipped, with only the engine changed: the SGLang Deployment runs
SGLang's launcher streaming from s3://, mounts its caches, and KEDA scales it on SGLang's queue;
every manifest validates like the vLLM ones (schemas of the configured Kubernetes version, KEDA's CRDs).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from app import build_app
from fastload_constructs.core.engines.sglang import SGLANG
from fastload_constructs.core.serving.cache_sharing import MODEL_URI_PLACEHOLDER
from tests.emitted_manifests import template_manifests
from tests.pod_views import model_uri_read
from tests.pss_exemptions import unexempted_violations
from tests.test_safety_gates import validate

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]


@pytest.fixture(scope="module")
def manifests(tmp_path_factory):
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:models"][0]["engine"] = "sglang"
    outdir = tmp_path_factory.mktemp("sglang-app")
    app = build_app(context=ctx, outdir=str(outdir))
    assembly = app.synth()
    docs, resources = [], {}
    for path in sorted(Path(assembly.directory).glob("*.template.json")):
        template = json.loads(path.read_text())
        docs += [doc for _, doc in template_manifests(template)]
        resources.update(template["Resources"])
    return ctx, docs, resources


def test_the_sglang_model_runs_sglang_streaming_from_s3_with_its_caches(manifests):
    ctx, docs, _ = manifests
    name = ctx["fastload:models"][0]["name"]
    (deployment,) = [d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"] == name]
    assert deployment["metadata"]["labels"]["app.kubernetes.io/name"] == "sglang"
    container = next(c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == "sglang")
    assert container["image"].endswith(SGLANG.default_image.split("/", 1)[1])
    assert container["args"][:3] == ["python3", "-m", "sglang.launch_server"]  # through the revision launcher
    args = container["args"]
    uri = model_uri_read(deployment["spec"]["template"]["spec"])
    assert args[args.index("--model-path") + 1] == MODEL_URI_PLACEHOLDER
    assert uri.startswith("s3://") and uri.endswith(ctx["fastload:models"][0]["s3Prefix"])
    assert args[args.index("--load-format") + 1] == "runai_streamer"
    assert "--enable-metrics" in args
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["SGLANG_CACHE_DIR"].startswith(SGLANG.cache_mount_path + "/")
    assert SGLANG.cache_mount_path in {m["mountPath"] for m in container["volumeMounts"]}
    assert unexempted_violations(deployment) == []


def test_keda_scales_it_on_sglangs_waiting_queue(manifests):
    ctx, docs, _ = manifests
    name = ctx["fastload:models"][0]["name"]
    (scaled,) = [d for d in docs if d["kind"] == "ScaledObject"]
    assert scaled["spec"]["scaleTargetRef"]["name"] == name
    query = scaled["spec"]["triggers"][0]["metadata"]["query"]
    assert query.startswith("sum(sglang:num_queue_reqs{") and f'server="{name}"' in query


def test_every_manifest_validates(manifests):
    ctx, docs, _ = manifests
    assert len(docs) > 10
    for doc in docs:
        validate(doc, ctx["fastload:kubernetesVersion"])


def test_the_missing_metric_alert_watches_sglangs_queue(manifests):
    ctx, _, resources = manifests
    name = ctx["fastload:models"][0]["name"]
    (rules,) = [r for r in resources.values() if r["Type"] == "AWS::APS::RuleGroupsNamespace"]
    assert f'absent(sglang:num_queue_reqs{{namespace="inference",server="{name}"}})' in rules["Properties"]["Data"]
    assert "vllm:num_requests_waiting" not in rules["Properties"]["Data"]
