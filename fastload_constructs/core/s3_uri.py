"""S3 locations: parse `s3://bucket/prefix` and check bucket names and key prefixes.

Shared by the constructs (bucket names, model prefixes), the chart (the
`--model s3://...` argument) and the CLI, so all three accept and refuse the
same things.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastload_constructs.core.errors import require
from fastload_constructs.core.validation import check_bucket_name, check_key_prefix

__all__ = ["S3Location", "check_bucket_name", "check_key_prefix", "misspelt_s3_uri", "parse_s3_uri"]


@dataclass(frozen=True)
class S3Location:
    bucket: str
    prefix: str  # no trailing slash; "" for the bucket root

    @property
    def uri(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}" if self.prefix else f"s3://{self.bucket}"

    def key(self, name: str) -> str:
        """The object key of `name` under this prefix."""
        return f"{self.prefix}/{name}" if self.prefix else name


def parse_s3_uri(value: object, field: str = "s3_uri", require_prefix: bool = True) -> S3Location:
    """Parse `s3://bucket/prefix`; the prefix is required unless `require_prefix` is False."""
    require(isinstance(value, str) and value.startswith("s3://"), field, value, "an s3://bucket/prefix URI")
    assert isinstance(value, str)
    bucket, _, prefix = value[len("s3://") :].partition("/")
    check_bucket_name(bucket, f"{field}.bucket")
    if prefix.strip("/") == "":
        require(not require_prefix, f"{field}.prefix", prefix, "a non-empty key prefix after the bucket")
        return S3Location(bucket, "")
    return S3Location(bucket, check_key_prefix(prefix, f"{field}.prefix"))


def misspelt_s3_uri(value: str) -> bool:
    """An S3 URI typed almost right (`s3:/bucket`, `S3://bucket`, `s3//bucket`, `s3:bucket`): say so, rather
    than take it for a local folder that does not exist."""
    lowered = value.lower()
    return not value.startswith("s3://") and (lowered.startswith("s3:") or lowered.startswith("s3//"))
