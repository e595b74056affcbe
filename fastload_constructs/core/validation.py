"""The rules every edge shares: Kubernetes names, IAM role ARNs, S3 bucket names and key prefixes, counts.

One module so that the cdk.json parser, the constructs, the charts and the CLI
accept and refuse the same strings. Each rule is an `is_*` TypeGuard (so a
checked value is a `str` to the type checker) and a `check_*` that raises the
one FastloadConfigError naming the field, the value and the rule.
"""

from __future__ import annotations

import ipaddress
import math
import re
from dataclasses import dataclass
from typing import TypeGuard

from fastload_constructs.core.errors import FastloadConfigError

# Kubernetes object names (k8s.io/apimachinery pkg/util/validation/validation.go).
_DNS1123_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
_DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?")
_DNS1123_SUBDOMAIN_MAX = 253

DNS1123_LABEL_RULE = "a DNS-1123 label: lower-case letters, digits and '-', 1-63 characters"
DNS1035_LABEL_RULE = "an RFC 1035 label: lower-case letters, digits and '-', starting with a letter, 1-63 characters"
DNS1123_SUBDOMAIN_RULE = "a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', at most 253"

# arn:<partition>:iam::<account>:role/<optional path/><name>. IAM names allow [\w+=,.@-] (1-64
# characters); a path is '/'-separated segments of the same characters, at most 512 in all.
_ROLE_ARN = re.compile(
    r"arn:aws(-cn|-us-gov|-iso|-iso-b)?:iam::\d{12}:role/(?P<path>([\w+=,.@-]+/)*)[\w+=,.@-]{1,64}", re.ASCII
)
ROLE_ARN_RULE = "an IAM role ARN such as arn:aws:iam::123456789012:role/model-stager"

# S3 general-purpose bucket naming rules (docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html).
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
BUCKET_RULE = (
    "3-63 characters of lower-case letters, digits, '.' and '-', starting and ending with a "
    "letter or digit, no '..', not an IP address, not starting 'xn--' or 'sthree-', "
    "not ending '-s3alias' or '--ol-s3'"
)
# Key prefixes end up inside IAM resource ARNs and `s3:prefix` StringLike conditions, where
# '*' and '?' are wildcards and '${...}' is a policy variable (IAM User Guide, "IAM JSON policy
# elements: Resource" and "IAM policy elements: Variables and tags"): a prefix holding one would
# widen the grant beyond the model. Allowed: S3's "safe characters" (S3 User Guide, "Naming
# Amazon S3 objects": letters, digits, ! - _ . ' ( ) and '/') minus '*'; ASCII only.
_KEY_PREFIX_CHARS = re.compile(r"[A-Za-z0-9!_.'()/-]+", re.ASCII)
# S3 keys are at most 1,024 bytes; the prefix leaves room for the model's file names.
KEY_PREFIX_MAX = 512
KEY_PREFIX_RULE = (
    "a relative key prefix such as 'models/llama-3.1-8b': letters, digits and ! - _ . ' ( ) in "
    f"'/'-separated segments, at most {KEY_PREFIX_MAX} characters; no leading '/', no '.' or '..' "
    "segments, no IAM wildcard or policy-variable characters (* ? $ [ ] { })"
)


def is_dns_label(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and _DNS1123_LABEL.fullmatch(value) is not None


def is_dns1035_label(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and _DNS1035_LABEL.fullmatch(value) is not None


def is_dns_subdomain(value: object) -> TypeGuard[str]:
    return (
        isinstance(value, str)
        and 0 < len(value) <= _DNS1123_SUBDOMAIN_MAX
        and all(_DNS1123_LABEL.fullmatch(label) for label in value.split("."))
    )


def is_role_arn(value: object) -> TypeGuard[str]:
    if not isinstance(value, str):
        return False
    match = _ROLE_ARN.fullmatch(value)
    return match is not None and len(match.group("path")) <= 512


def is_bucket_name(value: object) -> TypeGuard[str]:
    if not (isinstance(value, str) and _BUCKET.fullmatch(value) and ".." not in value):
        return False
    try:
        ipaddress.IPv4Address(value)
        return False
    except ValueError:
        pass
    return not value.startswith(("xn--", "sthree-", "amzn-s3-demo-")) and not value.endswith(
        ("-s3alias", "--ol-s3", ".mrap", "--x-s3")
    )


def is_key_prefix(value: object) -> TypeGuard[str]:
    """A relative key prefix of S3-safe characters: no leading '/', no '.', '..' or empty segments."""
    if not isinstance(value, str) or len(value) > KEY_PREFIX_MAX or value.startswith("/"):
        return False
    if _KEY_PREFIX_CHARS.fullmatch(value) is None:
        return False
    return all(s not in ("", ".", "..") for s in value.rstrip("/").split("/"))


def check_dns_label(value: object, field: str = "name") -> str:
    if not is_dns_label(value):
        raise FastloadConfigError(field, value, DNS1123_LABEL_RULE)
    return value


def check_dns1035_label(value: object, field: str = "name") -> str:
    if not is_dns1035_label(value):
        raise FastloadConfigError(field, value, DNS1035_LABEL_RULE)
    return value


def check_dns_subdomain(value: object, field: str = "name") -> str:
    if not is_dns_subdomain(value):
        raise FastloadConfigError(field, value, DNS1123_SUBDOMAIN_RULE)
    return value


def check_role_arn(value: object, field: str = "role_arn") -> str:
    if not is_role_arn(value):
        raise FastloadConfigError(field, value, ROLE_ARN_RULE)
    return value


def check_bucket_name(value: object, field: str = "bucket_name") -> str:
    if not is_bucket_name(value):
        raise FastloadConfigError(field, value, BUCKET_RULE)
    return value


def check_key_prefix(value: object, field: str = "prefix") -> str:
    """The prefix without a trailing '/'."""
    if not is_key_prefix(value):
        raise FastloadConfigError(field, value, KEY_PREFIX_RULE)
    return value.rstrip("/")


# Counts (parameters, bytes). A model card says "70B"; people write 70e9 or 8.03e9. JSON reads `70e9`
# as a float and the CLI reads `--params 8.03e9` as text, so both edges accept the same thing: a
# positive whole number given as an int, as a float that is finite and whole, or (from a command
# line) as text holding either. `true`, 8.5, NaN, infinities and empty text are refused.


@dataclass(frozen=True)
class CountRule:
    """A positive whole number at most `maximum`; `example` shows how to write one."""

    maximum: int
    example: str

    @property
    def accepted(self) -> str:
        return f"a positive whole number at most {self.maximum:,}, in digits or e-notation such as {self.example}"

    def check(self, value: object, field: str) -> int:
        """`value` (an int, or a float that is finite and whole) as an int, or one FastloadConfigError."""
        number: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            number = value
        elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
            number = int(value)
        if number is None or not 0 < number <= self.maximum:
            raise FastloadConfigError(field, value, self.accepted)
        return number

    def parse(self, text: str, field: str) -> int:
        """Command-line text ("8030261248", "8.03e9", "70e9") under the same rule as `check`."""
        value: object = text
        for number in (int, float):  # int first: digits stay exact, however many
            try:
                value = number(text.strip())
                break
            except ValueError:
                continue
        try:
            return self.check(value, field)
        except FastloadConfigError:
            raise FastloadConfigError(field, text.strip(), self.accepted) from None  # as typed: `1e400`, not inf
