"""Right outcomes and nothing left behind for `fastload stage`, against a real S3 server on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from fastload_constructs.core.naming import STAGE_MANIFEST_NAME
from fastload_constructs.core.s3_uri import parse_s3_uri
from fastload_constructs.s3.client import s3_client
from fastload_constructs.s3.staging import validate_model_folder
from fastload_constructs.s3.uploader import upload_model
from tests.fault_proxy import FaultProxy
from tests.hf_model_factory import write_hf_model


@pytest.fixture()
def proxy(s3_server):
    fault = FaultProxy(s3_server.port)
    yield fault
    fault.close()


@pytest.fixture()
def moto_proxy(moto_server):
    fault = FaultProxy(moto_server.port)
    yield fault
    fault.close()


def test_a_manifest_put_whose_reply_was_lost_is_recognised_as_ours(moto_server, moto_proxy, tmp_path):
    """moto, because it enforces If-None-Match on PUT as S3 does (rclone 1.7x ignores it)."""
    proxy = moto_proxy
    bucket = moto_server.new_bucket()
    write_hf_model(tmp_path / "m")
    model = validate_model_folder(tmp_path / "m")
    # The PUT reaches the server and is stored; its reply is lost, so botocore sends it again (If-None-Match: *).
    proxy.drop_reply_to(f"PUT /{bucket}/m/{STAGE_MANIFEST_NAME}".encode())

    result = upload_model(s3_client(endpoint_url=proxy.url), model, parse_s3_uri(f"s3://{bucket}/m"))

    assert proxy.drops_made == 1
    stored = moto_server.client().get_object(Bucket=bucket, Key=f"m/{STAGE_MANIFEST_NAME}")["Body"].read()
    assert json.loads(stored)["files"] == result.manifest["files"]
