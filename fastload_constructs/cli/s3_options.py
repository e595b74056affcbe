"""What the commands that talk to S3 share: endpoint/region options and one-line S3 errors."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import IO, Any

import click

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

    run = click.option(
        "--endpoint-url",
        envvar="AWS_ENDPOINT_URL",
        default=None,
        help="S3-compatible endpoint (MinIO, a local test server); also read from AWS_ENDPOINT_URL.",
    )(run)
    return click.option("--region", default=None, help="AWS region (default: from the AWS config/env).")(run)
