"""Turn botocore failures into one clear line a user can act on.

botocore reports a missing bucket, a refused request and absent credentials as
different exception types (and HeadBucket only as a bare '404' or '403'), so
the CLI maps them here once instead of printing tracebacks.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

_DENIED = {"AccessDenied", "403", "Forbidden", "AllAccessDisabled", "AccountProblem"}
_BAD_KEYS = {"InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "TokenRefreshRequired"}
_NO_BUCKET = {"NoSuchBucket"}


class S3AccessError(Exception):
    """S3 refused or could not serve a request; the message says why and what to do."""


def error_code(exc: BaseException) -> str:
    """The S3 error code of a botocore ClientError (`NoSuchKey`, `412`, ...); "" for anything else."""
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def explain(exc: BaseException, where: str) -> S3AccessError | None:
    """The S3AccessError describing `exc` at `where` (an s3:// URI), or None if it is not an S3 failure."""
    from botocore.exceptions import (
        BotoCoreError,
        ClientError,
        EndpointConnectionError,
        NoCredentialsError,
        NoRegionError,
        PartialCredentialsError,
    )

    if _is_boto3_upload_failure(exc) and isinstance(exc.__context__, ClientError):
        exc = exc.__context__
    if isinstance(exc, (NoCredentialsError, PartialCredentialsError)):
        return S3AccessError(
            f"{where}: no AWS credentials found; set AWS_PROFILE, or AWS_ACCESS_KEY_ID and "
            "AWS_SECRET_ACCESS_KEY, or run on a role (instance profile, Pod Identity, SSO login)"
        )
    if isinstance(exc, NoRegionError):
        return S3AccessError(f"{where}: no AWS region; pass --region or set AWS_REGION")
    if isinstance(exc, EndpointConnectionError):
        return S3AccessError(f"{where}: cannot reach the S3 endpoint ({exc}); check --endpoint-url and the network")
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        code = str(error.get("Code", ""))
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        operation = exc.operation_name
        if code in _NO_BUCKET or (operation == "HeadBucket" and code in {"404", "NotFound"}):
            return S3AccessError(f"{where}: no such bucket; check the bucket name, account and region")
        if code in _BAD_KEYS:
            return S3AccessError(f"{where}: the credentials were rejected ({code}); refresh or replace them")
        if code in _DENIED or status == 403:
            return S3AccessError(
                f"{where}: access denied ({operation}); the caller needs s3:ListBucket on the bucket and "
                "s3:GetObject (inspect) or s3:PutObject and s3:DeleteObject (stage) on the prefix"
            )
        return S3AccessError(f"{where}: S3 {operation} failed: {code} {error.get('Message', '')}".rstrip())
    if isinstance(exc, BotoCoreError):
        return S3AccessError(f"{where}: {exc}")
    return None


def _is_boto3_upload_failure(exc: BaseException) -> bool:
    """boto3's transfer manager wraps a refused upload; only a caller that imported boto3 can meet one."""
    boto3_errors = sys.modules.get("boto3.exceptions")
    return boto3_errors is not None and isinstance(exc, boto3_errors.S3UploadFailedError)


@contextmanager
def explained(where: str) -> Iterator[None]:
    """Re-raise S3 failures inside the block as S3AccessError; let everything else through.

    boto3 is not imported for this (fastload's S3 commands run on botocore alone).
    """
    try:
        yield
    except Exception as exc:
        mapped = explain(exc, where)  # None for anything but an S3 failure
        if mapped is None:
            raise
        raise mapped from exc
