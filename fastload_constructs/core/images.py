"""Container image references: pinned tags, the repository an image comes from, the release a tag names.

Every image the package deploys is pinned (`latest` is refused): its tag is the engine release a plan
is made for and part of the compile-cache key, and a node that already holds the layers starts
without asking the registry.
"""

from __future__ import annotations

import re

from fastload_constructs.core.errors import require
from fastload_constructs.core.tokens import CDK_TOKEN, is_token

_IMAGE = re.compile(r"^[a-z0-9][a-z0-9._/:-]*[a-z0-9](:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}|@sha256:[a-f0-9]{64})$")
_RELEASE_TAG = re.compile(r"^v?(\d+\.\d+(?:\.\d+)?)")


def image_tag(image: object, field: str = "image") -> str:
    """The tag (or digest) of a pinned image reference; 'latest' and untagged images are refused.

    The registry host may hold CDK tokens (an ECR mirror in this stack's account and region,
    `infra.image_mirror`); the repository path and the tag must be literal.
    """
    literal = CDK_TOKEN.sub("deploy-time", image) if isinstance(image, str) else image
    ok = isinstance(image, str) and isinstance(literal, str) and bool(_IMAGE.match(literal))
    tag = ""
    if ok:
        assert isinstance(image, str)
        tag = image.rsplit("@", 1)[1] if "@" in image else image.rsplit(":", 1)[1]
        ok = tag != "latest" and not is_token(tag) and not is_token(image.split("/", 1)[-1])
    require(ok, field, image, "a pinned image reference such as 'vllm/vllm-openai:v0.34.0' (not 'latest')")
    return tag


def image_repository(image: str) -> str:
    """`vllm/vllm-openai` of `docker.io/vllm/vllm-openai:v0.34.0` or `vllm/vllm-openai@sha256:...`."""
    name = image.split("@", 1)[0]
    if ":" in name.rsplit("/", 1)[-1]:
        name = name.rsplit(":", 1)[0]
    return name.removeprefix("docker.io/")


def tagged_release(image: str) -> str | None:
    """The release a pinned image's tag names (`v0.8.5`, `0.11.0-cu128`, `v0.34.0rc1` -> 0.8.5, 0.11.0,
    0.34.0), or None for a digest or a tag that names no release (then the plan needs it said)."""
    tag = image_tag(image)
    match = _RELEASE_TAG.match(tag) if "@" not in image else None
    return match[1] if match else None
