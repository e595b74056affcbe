"""Validation rules shared by every edge that takes names from users."""

from __future__ import annotations

import re

from fastload_constructs.core.errors import require

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def check_dns_label(field: str, value: object) -> str:
    require(
        isinstance(value, str) and bool(_DNS_LABEL.match(value)),
        field,
        value,
        "a DNS-1123 label: lower-case letters, digits and '-', 1-63 characters",
    )
    return value  # type: ignore[return-value]
