"""The botocore failures the CLI explains in one line, including ones moto does not produce."""

import pytest
from boto3.exceptions import S3UploadFailedError
from botocore.exceptions import ClientError, EndpointConnectionError, NoCredentialsError

from fastload_constructs.cli.main import main
from fastload_constructs.s3.errors import S3AccessError, explain, explained


def _client_error(code, status, operation="ListObjectsV2"):
    return ClientError(
        {"Error": {"Code": code, "Message": "m"}, "ResponseMetadata": {"HTTPStatusCode": status}}, operation
    )


@pytest.mark.parametrize(
    "exc, phrase",
    [
        (NoCredentialsError(), "no AWS credentials found"),
        (_client_error("NoSuchBucket", 404), "no such bucket"),
        (_client_error("404", 404, "HeadBucket"), "no such bucket"),
        (_client_error("AccessDenied", 403), "access denied (ListObjectsV2)"),
        (_client_error("403", 403, "HeadBucket"), "access denied (HeadBucket)"),
        (_client_error("InvalidAccessKeyId", 403), "credentials were rejected (InvalidAccessKeyId)"),
        (_client_error("ExpiredToken", 400), "credentials were rejected (ExpiredToken)"),
        (_client_error("SlowDown", 503), "S3 ListObjectsV2 failed: SlowDown m"),
        (EndpointConnectionError(endpoint_url="http://127.0.0.1:9"), "cannot reach the S3 endpoint"),
    ],
)
def test_explain(exc, phrase):
    mapped = explain(exc, "s3://b/p")
    assert isinstance(mapped, S3AccessError)
    assert str(mapped).startswith("s3://b/p: ") and phrase in str(mapped)


def test_upload_failures_are_explained_by_their_cause():
    try:
        try:
            raise _client_error("AccessDenied", 403, "UploadPart")
        except ClientError as inner:
            raise S3UploadFailedError(f"Failed to upload: {inner}")  # noqa: B904 (as boto3 raises it)
    except S3UploadFailedError as outer:
        assert "access denied (UploadPart)" in str(explain(outer, "s3://b/p"))


def test_other_errors_pass_through():
    assert explain(ValueError("x"), "s3://b/p") is None
    with pytest.raises(KeyError), explained("s3://b/p"):
        raise KeyError("not an S3 failure")


def test_unreachable_endpoint_is_one_line(capsys, monkeypatch):
    from tests.s3_server import TEST_ENV

    for name, value in TEST_ENV.items():
        monkeypatch.setenv(name, value)
    # Port 9 (discard) on 127.0.0.1 has no listener here: the connection is refused at once.
    assert main(["inspect", "s3://bucket/m", "--endpoint-url", "http://127.0.0.1:9"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot reach the S3 endpoint" in err[0]


@pytest.mark.parametrize("command", [[], ["stage"], ["inspect"], ["plan"]])
def test_every_command_has_help(command, capsys):
    assert main([*command, "--help"]) == 0
    assert "Usage: fastload" in capsys.readouterr().out


@pytest.mark.parametrize("command", [["inspect", "s3://models-x/llama"], ["stage", "MODEL", "s3://models-x/llama"]])
def test_a_missing_profile_or_bad_region_is_one_line(command, capsys, monkeypatch, tmp_path):
    """A profile that does not exist fails where the client is made, before any S3 call: one line, exit 2."""
    from tests.hf_model_factory import write_hf_model

    write_hf_model(tmp_path / "model")
    command = [str(tmp_path / "model") if part == "MODEL" else part for part in command]
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_PROFILE", "nope")
    assert main(command) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("fastload: AWS_PROFILE: got 'nope'") and "list-profiles" in line
    monkeypatch.delenv("AWS_PROFILE")
    for region in ("", "bad region", "us_east_1"):
        assert main([*command, "--region", region]) == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("fastload: --region: ")
