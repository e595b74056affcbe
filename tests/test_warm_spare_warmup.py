"""A warm spare's warm-up, end to end against the local S3 server, then the vLLM pod that replaces it.

The steps are the ones the charts render: each init container's command, run
as the pod would run it (the shipped scripts, standalone, as subprocesses),
with its volume mounts mapped onto one temporary "node": the model cache and
the keyed compile-cache folder the hostPath volumes name. The model is staged
with `fastload stage` and the compile cache published as the first vLLM pod's
sidecar would, so every byte the spare fetches is what a real pod would see.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.naming import SERVER_PRIORITY_CLASS
from fastload_constructs.core.serving.cache_sharing import (
    COMPILE_CACHE_VOLUME,
    model_cache_prefix,
)
from fastload_constructs.core.serving.server_pod import ServerOptions, server_spec
from fastload_constructs.core.serving.warm_spares import warm_spare_spec
from fastload_constructs.runtime import compile_cache, revision
from tests.hf_model_factory import write_hf_model
from tests.pod_node import Node
from tests.serving_plans import planned

PREFIX = "models/tiny"
CACHE_PREFIX = "compile-cache"


@pytest.fixture()
def staged(s3_server, tmp_path):
    """A bucket holding a model staged by `fastload stage` and, as a first pod published it, a compile cache."""
    bucket = s3_server.new_bucket("warm")
    model_dir = tmp_path / "tiny"
    write_hf_model(model_dir)
    args = ["stage", str(model_dir), f"s3://{bucket}/{PREFIX}", "--endpoint-url", s3_server.url, "--no-progress"]
    assert main(args) == 0
    return bucket, model_dir


def specs(bucket: str):
    profile = ModelProfile.from_numbers(parameter_count=8_000_000_000)
    serving = planned(profile, "g6e.2xlarge", model_cache="node-local", shared_compile_cache=True, warm_spares=1)
    server = server_spec(
        serving,
        model_name="tiny",
        model_uri=f"s3://{bucket}/{PREFIX}",
        region="us-east-1",
        options=ServerOptions(compile_cache_prefix=CACHE_PREFIX),
    )
    assert server.priority_class_name == SERVER_PRIORITY_CLASS
    return server, warm_spare_spec(serving, server)


def publish_first_pods_cache(s3, bucket: str, key: str, root: Path) -> None:
    compiled = root / compile_cache.COMPILE_SUBDIR / "rank_0_0" / "backbone"
    compiled.mkdir(parents=True)
    (compiled / "computation_graph.py").write_text("def f(x):\n    return x\n")
    (compiled / "kernel.bin").write_bytes(os.urandom(8192))
    # Each model's pods publish under their own folder of the cache prefix (core.serving.cache_sharing).
    prefix = model_cache_prefix(CACHE_PREFIX, "tiny")
    # Keyed by the revision the pod loads, as its sidecar's --revision-dir does.
    _, resolved = revision.resolve_revision(s3, bucket=bucket, prefix=PREFIX)
    key = revision.revision_cache_key(key, resolved)
    outcome = compile_cache.publish_compile_cache(s3, bucket=bucket, prefix=prefix, cache_key=key, cache_root=root)
    assert outcome.status == "published"


def test_the_pod_after_a_spare_finds_everything_warm_and_skips_copy_and_restore(s3_server, staged, tmp_path):
    bucket, model_dir = staged
    s3 = s3_server.client()
    server, spare = specs(bucket)
    publish_first_pods_cache(s3, bucket, server.compile_cache_key, tmp_path / "first-pod")
    node = Node(tmp_path / "node", server, s3_server.url)

    # The spare warms the node: nothing there yet, so it copies the model and restores the cache.
    steps = ["resolve-revision", "warm-check", "stage-model", "restore-compile-cache"]
    assert [s.name for s in spare.init_containers] == steps
    warming = node.run(spare.init_containers)
    assert "path=cold model=absent compile-cache=absent" in warming["warm-check"]
    assert "stage-model staged" in warming["stage-model"]
    assert "restore-compile-cache restored" in warming["restore-compile-cache"]
    local_model = node.server_file(server, 1, server.model_path)  # the copy the spare's link names
    for path in model_dir.iterdir():
        assert (local_model / path.name).read_bytes() == path.read_bytes()
    compiled = node.host[COMPILE_CACHE_VOLUME] / compile_cache.COMPILE_SUBDIR
    assert (compiled / "rank_0_0" / "backbone" / "kernel.bin").is_file()
    before = {p: p.stat().st_mtime_ns for p in [local_model, *local_model.rglob("*"), *compiled.rglob("*")]}

    # Take away what a copy or a restore would need: only the pointer and the manifest stay in S3.
    for obj in s3.list_objects_v2(Bucket=bucket)["Contents"]:
        if not obj["Key"].endswith((revision.MANIFEST_NAME, revision.POINTER_NAME)):
            s3.delete_object(Bucket=bucket, Key=obj["Key"])

    # The vLLM pod that preempted the spare, on the same node paths.
    assert [s.name for s in server.init_containers] == steps
    serving = node.run(server.init_containers)
    assert "path=warm model=verified compile-cache=present" in serving["warm-check"]
    assert "stage-model present" in serving["stage-model"]
    assert "restore-compile-cache present" in serving["restore-compile-cache"]
    assert {p: p.stat().st_mtime_ns for p in before} == before  # nothing copied or unpacked again
    assert node.server_file(server, 2, server.model_path) == local_model


def test_a_new_revision_is_copied_beside_the_one_the_spare_warmed(s3_server, staged, tmp_path):
    bucket, model_dir = staged
    server, spare = specs(bucket)
    node = Node(tmp_path / "node", server, s3_server.url)
    node.run(spare.init_containers)
    old_tokenizer = (model_dir / "tokenizer.json").read_text()

    (model_dir / "tokenizer.json").write_text('{"version": "2.0"}')  # a new revision, published
    args = ["stage", str(model_dir), f"s3://{bucket}/{PREFIX}", "--endpoint-url", s3_server.url, "--no-progress"]
    assert main(args) == 0

    logs = node.run(server.init_containers)
    assert "path=cold model=absent" in logs["warm-check"]  # no copy of this revision yet; the old one untouched
    assert "stage-model staged" in logs["stage-model"]
    assert (node.server_file(server, 2, server.model_path) / "tokenizer.json").read_text() == '{"version": "2.0"}'
    assert (node.server_file(server, 1, server.model_path) / "tokenizer.json").read_text() == old_tokenizer
    assert "model=verified" in node.run(server.init_containers[:2])["warm-check"]


def test_a_damaged_copy_loses_its_marker(s3_server, staged, tmp_path):
    bucket, _ = staged
    server, spare = specs(bucket)
    node = Node(tmp_path / "node", server, s3_server.url)
    node.run(spare.init_containers)
    local_model = node.server_file(server, 1, server.model_path)
    shard = next(local_model.glob("*.safetensors"))
    shard.write_bytes(shard.read_bytes()[:-1])  # truncated on the node

    logs = node.run(server.init_containers)
    assert "path=cold model=damaged" in logs["warm-check"] and shard.name in logs["warm-check"]
    assert "stage-model staged" in logs["stage-model"]
