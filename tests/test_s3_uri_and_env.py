import pytest

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.planning.streamer import StreamerSettings
from fastload_constructs.core.s3_uri import parse_s3_uri
from fastload_constructs.core.serving.streamer_env import streamer_env
from fastload_constructs.core.validation import check_bucket_name, check_key_prefix


def test_parse_s3_uri():
    loc = parse_s3_uri("s3://my-models/meta/llama-8b/")
    assert (loc.bucket, loc.prefix, loc.uri) == ("my-models", "meta/llama-8b", "s3://my-models/meta/llama-8b")
    assert loc.key("config.json") == "meta/llama-8b/config.json"
    assert parse_s3_uri("s3://my-models", require_prefix=False).prefix == ""


@pytest.mark.parametrize(
    "uri, field",
    [
        ("https://x/y", "s3_uri"),
        ("s3://My_Bucket/x", "s3_uri.bucket"),
        ("s3://my-models", "s3_uri.prefix"),
        ("s3://my-models/a/../b", "s3_uri.prefix"),
        ("s3://my-models/a//b", "s3_uri.prefix"),
    ],
)
def test_bad_uris_name_the_part(uri, field):
    with pytest.raises(FastloadConfigError) as err:
        parse_s3_uri(uri)
    assert err.value.field == field


@pytest.mark.parametrize(
    "name", ["ab", "a" * 64, "-abc", "abc-", "a..b", "192.168.1.1", "xn--abc", "bucket-s3alias", "UPPER"]
)
def test_bad_bucket_names(name):
    with pytest.raises(FastloadConfigError):
        check_bucket_name(name)


def test_good_bucket_names_and_prefixes():
    assert check_bucket_name("fastload-models-123.eu") == "fastload-models-123.eu"
    assert check_key_prefix("models/x/") == "models/x"
    for bad in ("/models", "..", "a/./b", ""):
        with pytest.raises(FastloadConfigError):
            check_key_prefix(bad)


def test_streamer_env():
    env = streamer_env(StreamerSettings(24, 2**30, False), region="eu-west-1")
    assert env == {
        "AWS_REGION": "eu-west-1",
        "AWS_DEFAULT_REGION": "eu-west-1",
        "RUNAI_STREAMER_CONCURRENCY": "24",
        "RUNAI_STREAMER_OBJ_CONCURRENCY": "24",
        "RUNAI_STREAMER_MEMORY_LIMIT": str(2**30),
        "RUNAI_STREAMER_LOG_TO_STDERR": "1",
    }
    local = streamer_env(StreamerSettings(4, 2**20, False), region="us-east-1", endpoint_url="http://127.0.0.1:9")
    assert local["AWS_ENDPOINT_URL"] == "http://127.0.0.1:9"
    assert local["RUNAI_STREAMER_S3_USE_VIRTUAL_ADDRESSING"] == "0"
    distributed = streamer_env(StreamerSettings(8, 2**30, True, ranks=4), region="us-east-1")
    assert distributed["RUNAI_STREAMER_MEMORY_LIMIT"] == str(4 * 2**30)  # a node total, split by 4 ranks
    with pytest.raises(FastloadConfigError, match="endpoint_url"):
        streamer_env(StreamerSettings(4, 2**20, False), region="us-east-1", endpoint_url="127.0.0.1:9")
