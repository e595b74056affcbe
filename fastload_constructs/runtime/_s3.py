"""How every in-pod step talks to S3: the client, error codes, retries and bodies resumed where they broke.

A helper of the in-pod scripts (`revision.py`, `model_copy.py`, `compile_cache.py`), shipped
beside them in the runtime ConfigMap: standard library and boto3 only, and nothing of the package.

Transfers retry: a body that breaks while it is read (connection reset, a server that closes
early, a read timeout) is asked for again from the first byte not yet received, with the first
GET's ETag as If-Match, so what was copied is kept and a replaced object fails as a restage (412)
instead of mixing. Bounded per range: 5 attempts (botocore's standard mode also makes 5 for status
errors) with exponential backoff from 0.2 s, capped at 5 s, jittered (the waits add up to at most
about 3 s, so a dead endpoint still fails in seconds).

Small requests (a manifest, the pointer, an archive's HEAD) are asked again the same bounded way
when they break: botocore retries a request whose reply never came, but not a body that breaks
after the headers did, and a step must not fail the pod over one connection reset.
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

LOG = logging.getLogger("fastload.runtime")

BODY_ATTEMPTS = 5
BACKOFF_BASE_S = 0.2
BACKOFF_MAX_S = 5.0
# Pieces handed on as they arrive (at most this much per read): a deadline is checked after each,
# so a trickling body cannot overrun it by more than one piece's wait (botocore's read timeout, 60 s,
# bounds a body that stops outright).
PIECE = 256 * 1024

# Answers that a later attempt may not get: server errors and throttling (botocore's standard mode retries
# the same codes, and these are what is left when its attempts ran out).
RETRIED_CODES = frozenset({"500", "502", "503", "504", "InternalError", "SlowDown", "ServiceUnavailable"})
NOT_FOUND_CODES = frozenset({"404", "NoSuchKey", "NotFound"})
DENIED_CODES = frozenset({"403", "AccessDenied", "Forbidden"})
# Codes that mean "no such object" for a compile-cache archive: S3 answers 403 rather than 404 for a
# missing key when the caller may not list the bucket, and a pod may not list the cache prefix (its
# grant there is objects only). A miss and a denial both mean "start cold"; a real denial then
# surfaces on the publisher's PUT.
ABSENT_CODES = NOT_FOUND_CODES | DENIED_CODES


class BodyEnded(Exception):
    """The server ended a body before the bytes it announced: a break like any other, so resumed."""


class DeadlinePassed(Exception):
    """A transfer ran past its time limit while data was still arriving."""


def error_code(exc: BaseException) -> str:
    """The S3 error code of a botocore ClientError (`NoSuchKey`, `412`, ...); "" for anything else."""
    response = getattr(exc, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))


def client(endpoint_url: str | None) -> Any:
    import boto3  # deferred: --help must work without it
    from botocore.config import Config

    # Checksums are ours (SHA-256); a server's whole-object checksum header on a ranged GET must not fail it.
    config = Config(response_checksum_validation="when_required", retries={"mode": "standard", "max_attempts": 5})
    return boto3.client("s3", endpoint_url=endpoint_url or None, config=config)


def metadata_value(metadata: dict[str, str] | None, key: str) -> str | None:
    """A user-metadata value whatever case the server returned its key in (Go servers send `Fastload-Sha256`)."""
    for name, value in (metadata or {}).items():
        if name.lower() == key.lower():
            return value
    return None


T = TypeVar("T")


def retrying(what: str, request: Callable[[], T]) -> T:
    """`request()`, made again after a broken connection or a server error, BODY_ATTEMPTS times at most."""
    for attempt in range(BODY_ATTEMPTS):
        try:
            return request()
        except Exception as exc:
            if attempt + 1 == BODY_ATTEMPTS or not (transient(exc) or error_code(exc) in RETRIED_CODES):
                raise
            LOG.warning("%s: %s; asking again", what, type(exc).__name__)
            backoff(attempt)
    raise AssertionError("unreachable: the last attempt returns or raises")


def read_object(s3: Any, bucket: str, key: str) -> bytes:
    """A small object's bytes (a manifest, a pointer), asked for again when the request or its body breaks."""
    data: bytes = retrying(f"s3://{bucket}/{key}", lambda: s3.get_object(Bucket=bucket, Key=key)["Body"].read())
    return data


def listed(s3: Any, bucket: str, key: str) -> bool:
    """Whether `key` exists, by listing exactly it: what tells a forbidden object from a missing one.

    Raises ValueError when the listing is refused too: then nothing tells them apart."""
    try:
        found = retrying(f"s3://{bucket}/{key}", lambda: s3.list_objects_v2(Bucket=bucket, Prefix=key, MaxKeys=1)).get(
            "Contents", []
        )
    except Exception as exc:
        if error_code(exc) not in DENIED_CODES:
            raise
        raise ValueError(
            f"s3://{bucket}/{key}: reading it was refused and so was listing it, which tells a missing object "
            "from a forbidden one: the role needs s3:GetObject on it and s3:ListBucket on its prefix"
        ) from None
    return any(item.get("Key") == key for item in found)


def head(s3: Any, bucket: str, key: str) -> dict[str, Any] | None:
    """HEAD an object, asked again when it breaks; None when it does not exist (or, see ABSENT_CODES, is hidden)."""
    try:
        return retrying(f"s3://{bucket}/{key}", lambda: s3.head_object(Bucket=bucket, Key=key))  # type: ignore[no-any-return]
    except Exception as exc:  # botocore ClientError; not imported so the file stays light
        if error_code(exc) in ABSENT_CODES:
            return None
        raise


def transient(exc: BaseException) -> bool:
    """A broken body or connection (resumable), as opposed to an answer from S3 (an error code) or our own refusal."""
    if error_code(exc):
        return False
    if isinstance(exc, (BodyEnded, OSError)):
        return True
    module = type(exc).__module__
    return module.startswith(("botocore.exceptions", "urllib3", "http.client"))


def backoff(attempt: int) -> None:
    time.sleep(min(BACKOFF_MAX_S, BACKOFF_BASE_S * 2**attempt) * random.uniform(0.5, 1.0))


class ResumingBody:
    """Bytes `start`..`end` (inclusive; `end` None: to the object's end) of one object, resumed where a body broke.

    `read(n)` returns up to `n` bytes as soon as any arrive (never waits to fill a block), and
    raises `DeadlinePassed` once `deadline` (time.monotonic) passes, between any two pieces.
    """

    def __init__(
        self,
        s3: Any,
        bucket: str,
        key: str,
        *,
        start: int = 0,
        end: int | None = None,
        etag: str | None = None,
        deadline: float | None = None,
        attempts: int = BODY_ATTEMPTS,
        first: dict[str, Any] | None = None,
    ) -> None:
        self.s3, self.bucket, self.key = s3, bucket, key
        self.position, self.end, self.etag = start, end, etag
        self.deadline, self.attempts = deadline, attempts
        self.resumed = 0
        self.failures = 0
        self._response = first
        self._finished = end is not None and start > end

    def _open(self) -> None:
        if self.end is None and self.position == 0:
            ranged: dict[str, Any] = {}
        else:
            ranged = {"Range": f"bytes={self.position}-{'' if self.end is None else self.end}"}
        conditional = {"IfMatch": self.etag} if self.etag else {}
        self._response = self.s3.get_object(Bucket=self.bucket, Key=self.key, **ranged, **conditional)
        if not self.etag and self._response.get("ETag"):
            self.etag = self._response["ETag"]

    def _read_piece(self, n: int) -> bytes:
        if self._response is None:
            self._open()
        assert self._response is not None
        body = self._response["Body"]
        raw = getattr(body, "_raw_stream", None)
        read1 = getattr(raw, "read1", None)
        want = n if self.end is None else min(n, self.end - self.position + 1)
        data: bytes = read1(want) if read1 is not None else body.read(want)
        if not data and self.end is not None and self.position <= self.end:
            raise BodyEnded(f"{self.key}: body ended at byte {self.position}, before {self.end + 1}")
        return data

    def read(self, n: int = PIECE) -> bytes:
        n = PIECE if n is None or n < 0 else min(n, PIECE)
        while not self._finished:
            if self.deadline is not None and time.monotonic() > self.deadline:
                self.close()
                raise DeadlinePassed(f"{self.key}: past its time limit at byte {self.position}")
            try:
                data = self._read_piece(n)
            except Exception as exc:
                if not transient(exc):
                    raise
                self.close()
                self.failures += 1
                if self.failures >= self.attempts or self.resumed >= self.attempts * 8:
                    raise  # in a row without progress, or in all (a server that resets every few bytes)
                LOG.warning("%s: body broke at byte %d (%s); resuming", self.key, self.position, type(exc).__name__)
                self.resumed += 1
                backoff(self.failures - 1)
                continue
            self.failures = 0  # bytes arrived: the bound is on attempts in a row without progress
            if not data:
                self._finished = True
                break
            self.position += len(data)
            if self.end is not None and self.position > self.end:
                self._finished = True
            return data
        return b""

    def close(self) -> None:
        if self._response is not None:
            with contextlib.suppress(Exception):
                self._response["Body"].close()
        self._response = None


def read_range(
    s3: Any, bucket: str, key: str, r: tuple[int, int], etag: str | None, first: dict[str, Any] | None
) -> bytes:
    """One range's bytes, resumed from where its body broke (conditional on `etag`): the range is kept, not redone."""
    body = ResumingBody(s3, bucket, key, start=r[0], end=r[1], etag=etag, first=first)
    pieces = []
    try:
        while piece := body.read(PIECE):
            pieces.append(piece)
    finally:
        body.close()
    return b"".join(pieces)
