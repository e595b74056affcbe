"""Recognise CDK tokens: values (a generated bucket name, the region of an
environment-agnostic stack) that are only known at deploy time."""

from __future__ import annotations

import re

# CDK encodes an unresolved string token as `${Token[...]}`.
CDK_TOKEN = re.compile(r"\$\{Token\[[^\]]+\]\}")
TOKEN_MARKER = "<deploy-time>"


def is_token(value: str) -> bool:
    """True when `value` holds a CDK token."""
    return bool(CDK_TOKEN.search(value))


def stable(value: str) -> str:
    """`value` with every token replaced by a fixed marker: token numbering moves between syntheses."""
    return CDK_TOKEN.sub(TOKEN_MARKER, value)
