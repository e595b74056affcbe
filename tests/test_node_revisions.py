"""Node-local copies across revisions, on a real local S3 (rclone) and a temporary node: publish, publish, roll back.

Each pod runs the steps the chart renders (resolve-revision, warm-check, stage-model) as the kubelet
would; its server then opens its model path as the container would when it starts, or restarts.
A pod must open exactly the revision it resolved, whatever later pods on the node resolved, and no
pod's step may damage another revision's copy: after a rollback the old copy is used as it is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fastload_constructs.cli.main import main
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.serving.server_pod import server_spec
from tests.hf_model_factory import SHARD_1, SHARD_2, write_hf_model
from tests.pod_node import Node
from tests.serving_plans import planned

PREFIX = "models/tiny"


def _server(bucket: str, **serving):
    profile = ModelProfile.from_numbers(parameter_count=8_000_000_000)
    p = planned(profile, "g6e.2xlarge", model_cache="node-local", **serving)
    return server_spec(p, model_name="tiny", model_uri=f"s3://{bucket}/{PREFIX}", region="us-east-1")


def _stage(s3_server, bucket: str, folder: Path) -> None:
    uri = f"s3://{bucket}/{PREFIX}"
    assert main(["stage", str(folder), uri, "--endpoint-url", s3_server.url, "--no-progress"]) == 0


def _revision(tmp_path: Path, name: str, last_byte: int) -> Path:
    """A model folder whose first shard ends in `last_byte`: one changed file, one unchanged."""
    folder = tmp_path / name
    write_hf_model(folder)
    data = bytearray((folder / SHARD_1).read_bytes())
    data[-1] = last_byte
    (folder / SHARD_1).write_bytes(bytes(data))
    return folder


@pytest.fixture()
def two_revisions(s3_server, tmp_path):
    bucket = s3_server.new_bucket("revs")
    return bucket, _revision(tmp_path, "a", 1), _revision(tmp_path, "b", 2)


def _opens(node: Node, server, pod: int, name: str) -> bytes:
    return node.server_file(server, pod, f"{server.model_path}/{name}").read_bytes()


def test_a_pod_opens_the_revision_it_resolved_whatever_a_later_pod_resolved(s3_server, two_revisions, tmp_path):
    bucket, a, b = two_revisions
    server = _server(bucket)
    node = Node(tmp_path / "node", server, s3_server.url)
    _stage(s3_server, bucket, a)
    node.run(server.init_containers)  # pod 1 resolves a and copies it; its server has not started yet
    _stage(s3_server, bucket, b)
    node.run(server.init_containers)  # pod 2 resolves b on the same node

    # Pod 1's server starts (or restarts) now: the first revision, never the one pod 2 resolved.
    assert _opens(node, server, 1, SHARD_1) == (a / SHARD_1).read_bytes()
    assert _opens(node, server, 2, SHARD_1) == (b / SHARD_1).read_bytes()
    assert _opens(node, server, 1, SHARD_2) == (a / SHARD_2).read_bytes()


def test_no_step_damages_another_revisions_copy_and_a_rollback_copies_nothing(s3_server, two_revisions, tmp_path):
    bucket, a, b = two_revisions
    server = _server(bucket, warm_spares=1)
    assert [s.name for s in server.init_containers] == ["resolve-revision", "warm-check", "stage-model"]
    node = Node(tmp_path / "node", server, s3_server.url)
    uri = f"s3://{bucket}/{PREFIX}"
    _stage(s3_server, bucket, a)
    node.run(server.init_containers)
    _stage(s3_server, bucket, b)
    second = node.run(server.init_containers)
    assert "stage-model staged" in second["stage-model"]

    assert main(["revisions", "rollback", uri, "--endpoint-url", s3_server.url]) == 0
    third = node.run(server.init_containers)  # resolves a again: its copy is complete and untouched

    assert "model=verified" in third["warm-check"], third["warm-check"]
    assert "stage-model present" in third["stage-model"], third["stage-model"]
    assert _opens(node, server, 3, SHARD_1) == (a / SHARD_1).read_bytes()
    assert _opens(node, server, 2, SHARD_1) == (b / SHARD_1).read_bytes()  # pod 2 still opens b
    # And b's copy was not damaged by the rollback's warm check either: publish b again, nothing is copied.
    assert main(["revisions", "rollback", uri, "--endpoint-url", s3_server.url]) == 0
    fourth = node.run(server.init_containers)
    assert "model=verified" in fourth["warm-check"] and "stage-model present" in fourth["stage-model"]
    assert _opens(node, server, 4, SHARD_1) == (b / SHARD_1).read_bytes()
