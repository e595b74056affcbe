"""S3 locations: parse `s3://bucket/prefix` and check bucket names and key prefixes.

Shared by the constructs (bucket names, model prefixes), the chart (the
`--model s3://...` argument) and the CLI, so all three accept and refuse the
same things.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from fastload_constructs.core.errors import require

_BUCKET = re.compile(r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$")
_BUCKET_RULES = (
    "3-63 characters of lower-case letters, digits, '.' and '-', starting and ending with a "
    "letter or digit, no '..', not an IP address, not starting 'xn--' or 'sthree-', "
    "not ending '-s3alias' or '--ol-s3'"
)


def check_bucket_name(value: object, field: str = "bucket_name") -> str:
    """Apply the S3 general-purpose bucket naming rules."""
    ok = isinstance(value, str) and bool(_BUCKET.match(value)) and ".." not in value
    if ok:
        assert isinstance(value, str)
        try:
            ipaddress.IPv4Address(value)
            ok = False
        except ValueError:
            pass
        ok = ok and not value.startswith(("xn--", "sthree-", "amzn-s3-demo-"))
        ok = ok and not value.endswith(("-s3alias", "--ol-s3", ".mrap", "--x-s3"))
    require(ok, field, value, _BUCKET_RULES)
    return value  # type: ignore[return-value]


def check_key_prefix(value: object, field: str = "prefix") -> str:
    """A relative key prefix: no leading '/', no '.' or '..' segments, no empty segments."""
    ok = isinstance(value, str) and value.strip() != "" and not value.startswith("/")
    if ok:
        assert isinstance(value, str)
        segments = value.rstrip("/").split("/")
        ok = all(s not in ("", ".", "..") for s in segments) and "\\" not in value
    require(ok, field, value, "a relative key prefix such as 'models/llama-3.1-8b' (no leading '/', no '..')")
    return value.rstrip("/")  # type: ignore[union-attr]


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
