"""Stage with fastload, then load with the Run:ai streamer from s3:// as vLLM would.

The streamer runs in a subprocess whose environment is exactly what
`streamer_env` emits for the vLLM chart (endpoint, path-style addressing,
concurrency, memory limit, region) plus the test credentials.
"""

import os
import subprocess
import sys

import torch

from fastload_constructs.cli.main import main
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.s3_uri import parse_s3_uri
from fastload_constructs.core.serving.streamer_env import streamer_env
from fastload_constructs.runtime import revision as pod_revision
from fastload_constructs.s3.client import s3_client
from fastload_constructs.s3.headers import inspect_s3
from tests.hf_model_factory import write_hf_model
from tests.s3_server import REGION

TORCH_DTYPES = {"BF16": torch.bfloat16, "F32": torch.float32}

LOAD = """
import sys, torch
from runai_model_streamer import SafetensorsStreamer
tensors = {}
with SafetensorsStreamer() as streamer:
    streamer.stream_files(sys.argv[2:])
    for name, tensor in streamer.get_tensors():
        tensors[name] = tensor.clone()
torch.save(tensors, sys.argv[1])
"""


def test_streamer_loads_exactly_what_was_staged(s3_server, tmp_path):
    written = write_hf_model(tmp_path / "tiny")
    bucket = s3_server.new_bucket()
    uri = f"s3://{bucket}/models/tiny"
    assert (
        main(
            [
                "stage",
                str(tmp_path / "tiny"),
                uri,
                "--endpoint-url",
                s3_server.url,
                "--chunk-size-mib",
                "5",
                "--no-progress",
            ]
        )
        == 0
    )

    # The pod resolves the published revision once (resolve-revision) and streams that folder.
    resolved, revision = pod_revision.resolve_revision(
        s3_client(endpoint_url=s3_server.url), bucket=bucket, prefix="models/tiny"
    )
    assert resolved == f"models/tiny/revisions/{revision}"
    uri = f"s3://{bucket}/{resolved}"
    profile = inspect_s3(s3_client(endpoint_url=s3_server.url), parse_s3_uri(uri)).profile
    serving = plan(profile, "g6e.xlarge")
    env = streamer_env(serving.streamer, region=REGION, endpoint_url=s3_server.url)
    assert env["RUNAI_STREAMER_S3_USE_VIRTUAL_ADDRESSING"] == "0" and env["AWS_ENDPOINT_URL"] == s3_server.url
    child_env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        **env,
        "AWS_ACCESS_KEY_ID": os.environ["AWS_ACCESS_KEY_ID"],
        "AWS_SECRET_ACCESS_KEY": os.environ["AWS_SECRET_ACCESS_KEY"],
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    out = tmp_path / "loaded.pt"
    shards = [f"{uri}/{s.name}" for s in profile.shards]
    done = subprocess.run(
        [sys.executable, "-c", LOAD, str(out), *shards], env=child_env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-4000:]

    loaded = torch.load(out)
    assert set(loaded) == set(written)
    for name, (dtype, shape, payload) in written.items():
        expected = torch.frombuffer(bytearray(payload), dtype=TORCH_DTYPES[dtype]).reshape(shape)
        assert loaded[name].dtype == expected.dtype and list(loaded[name].shape) == shape
        assert torch.equal(loaded[name].view(torch.uint8), expected.view(torch.uint8)), name
