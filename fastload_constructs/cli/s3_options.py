"""What the commands that talk to S3 share: endpoint/region options and one-line S3 errors."""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable
from typing import IO, Any

import click

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.s3.errors import S3AccessError  # boto3-free: botocore is imported where errors are mapped


class S3Failure(click.ClickException):
    """An S3 failure as one `fastload: ...` line on stderr, exit status 1."""

    exit_code = 1

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"fastload: {self.format_message()}", err=True, file=file)


def s3_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add --endpoint-url and --region, and report S3AccessError as one line instead of a traceback."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except S3AccessError as exc:
            raise S3Failure(str(exc)) from exc
        except Exception as exc:
            # The AWS configuration itself (a profile that does not exist, an unreadable config file)
            # fails where the client is made, before any S3 call: one line, exit 2.
            if _is_aws_configuration_error(exc):
                if type(exc).__name__ == "ProfileNotFound":
                    profile = getattr(exc, "kwargs", {}).get("profile")
                    raise FastloadConfigError(
                        "AWS_PROFILE", profile, "a profile of your AWS config (aws configure list-profiles)"
                    ) from None
                raise FastloadConfigError("AWS configuration", str(exc), "a readable AWS config and region") from None
            raise

    run = click.option(
        "--endpoint-url",
        envvar="AWS_ENDPOINT_URL",
        default=None,
        help="S3-compatible endpoint (MinIO, a local test server); also read from AWS_ENDPOINT_URL.",
    )(run)
    return click.option(
        "--region", default=None, callback=_check_region, help="AWS region (default: from the AWS config/env)."
    )(run)


# AWS Region names: `us-east-1`, `eu-central-2`, `us-gov-west-1`, `cn-north-1`, `ap-southeast-7`.
_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d+$")


def _check_region(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not _REGION.match(value):
        raise FastloadConfigError("--region", value, "an AWS region such as us-east-1")
    return value


def _is_aws_configuration_error(exc: BaseException) -> bool:
    """botocore's errors about the local AWS configuration (loaded only when botocore already is)."""
    botocore_errors = sys.modules.get("botocore.exceptions")
    if botocore_errors is None:
        return False
    kinds = tuple(
        getattr(botocore_errors, name)
        for name in ("ProfileNotFound", "ConfigParseError", "ConfigNotFound", "InvalidRegionError")
        if hasattr(botocore_errors, name)
    )
    return isinstance(exc, kinds)
