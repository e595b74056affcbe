"""Serving the vLLM image from ECR in-region through a pull-through cache rule: the decisions.

Which upstream registries ECR can pull through, what credentials each needs,
the checks ECR's API applies to a rule (CreatePullThroughCacheRule), and how
an upstream image reference becomes its mirrored ECR reference. Pure: no CDK;
`infra/image_mirror.py` applies it.

Credentials (Amazon ECR User Guide, "Sync an upstream registry with an Amazon
ECR private registry"): Amazon ECR Public, the Kubernetes registry and Quay
need none; Docker Hub, GitHub Container Registry and GitLab Container Registry
need a Secrets Manager secret whose name begins `ecr-pullthroughcache/`, in
the rule's account and region, holding `username` and `accessToken`. Amazon ECR
to ECR needs an IAM role instead and is not offered here (use ECR replication
or a rule made by hand). `vllm/vllm-openai` is on Docker Hub, so the default
needs a secret: a rule without one is refused at synthesis rather than failing
every pull at run time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.tokens import is_token

SECRET_NAME_PREFIX = "ecr-pullthroughcache/"
# CreatePullThroughCacheRule request constraints (ECR API reference).
REPOSITORY_PREFIX = re.compile(r"(?:[a-z0-9]+(?:[._-][a-z0-9]+)*/)*[a-z0-9]+(?:[._-][a-z0-9]+)*")
PREFIX_LENGTH = (2, 30)
CREDENTIAL_ARN = re.compile(
    r"^arn:aws[a-z-]*:secretsmanager:[a-zA-Z0-9-:]+:secret:ecr\-pullthroughcache\/[a-zA-Z0-9\/_+=.@-]+$"
)


@dataclass(frozen=True)
class Upstream:
    """One upstream registry ECR can pull through."""

    name: str
    url: str  # upstreamRegistryUrl
    needs_secret: bool
    aliases: tuple[str, ...] = ()  # other host names image references use for it
    official_namespace: str | None = None  # namespace of single-name images (Docker Hub's library/)


UPSTREAMS: dict[str, Upstream] = {
    u.name: u
    for u in (
        Upstream("docker-hub", "registry-1.docker.io", True, ("docker.io", "index.docker.io"), "library"),
        Upstream("ecr-public", "public.ecr.aws", False),
        Upstream("quay", "quay.io", False),
        Upstream("k8s", "registry.k8s.io", False),
        Upstream("github-container-registry", "ghcr.io", True),
        Upstream("gitlab-container-registry", "registry.gitlab.com", True),
    )
}
DEFAULT_UPSTREAM = "docker-hub"


def upstream(name: object) -> Upstream:
    require(
        isinstance(name, str) and name in UPSTREAMS,
        "upstream",
        name,
        "one of " + ", ".join(UPSTREAMS) + " (ECR-to-ECR needs an IAM role and is not offered)",
    )
    assert isinstance(name, str)
    return UPSTREAMS[name]


def check_repository_prefix(prefix: object, field: str = "repository_prefix") -> str:
    low, high = PREFIX_LENGTH
    require(
        isinstance(prefix, str) and low <= len(prefix) <= high and REPOSITORY_PREFIX.fullmatch(prefix) is not None,
        field,
        prefix,
        f"{low} to {high} characters of lower-case letters, digits and . _ - / (an ECR repository prefix)",
    )
    assert isinstance(prefix, str)
    return prefix


def check_credentials(source: Upstream, credential_arn: str | None, secret_name: str | None) -> None:
    """Refuse a rule that cannot authenticate to an upstream needing it, or credentials nobody reads."""
    if source.needs_secret:
        require(
            credential_arn is not None,
            "credential_secret",
            None,
            f"a Secrets Manager secret named {SECRET_NAME_PREFIX}... with username and accessToken "
            f"for {source.name} ({source.url} requires authentication for pull through cache)",
        )
    else:
        require(
            credential_arn is None,
            "credential_secret",
            credential_arn,
            f"None for {source.name}: it needs no credentials",
        )
        return
    if secret_name is not None and not is_token(secret_name):
        require(
            secret_name.startswith(SECRET_NAME_PREFIX),
            "credential_secret.secret_name",
            secret_name,
            f"a name beginning {SECRET_NAME_PREFIX!r} (ECR reads no other secret for pull through cache)",
        )
    assert credential_arn is not None
    if not is_token(credential_arn):
        require(
            CREDENTIAL_ARN.match(credential_arn) is not None,
            "credential_secret.secret_arn",
            credential_arn,
            f"a Secrets Manager secret ARN whose name begins {SECRET_NAME_PREFIX!r}",
        )


def _split(image: str) -> tuple[str | None, str, str]:
    """(registry host or None, repository path, ':tag' or '@digest') of an image reference."""
    if "@" in image:
        rest, sep, ref = image.partition("@")
        suffix = sep + ref
    else:
        head, _, last = image.rpartition("/")
        if ":" in last:
            name, _, tag = last.partition(":")
            rest, suffix = (f"{head}/{name}" if head else name), ":" + tag
        else:
            rest, suffix = image, ""
    first, _, remainder = rest.partition("/")
    if remainder and ("." in first or ":" in first or first == "localhost"):
        return first, remainder, suffix
    return None, rest, suffix


def mirrored_image(image: str, *, source: Upstream, registry_host: str, repository_prefix: str) -> str:
    """`image` as pulled through the rule: `<registry_host>/<prefix>/<upstream repository>:<tag>`."""
    require(isinstance(image, str) and not is_token(image), "image", image, "a literal upstream image reference")
    host, repository, suffix = _split(image)
    require(suffix != "", "image", image, "a pinned image reference (a tag or digest)")
    hosts = (source.url, *source.aliases)
    if host is None:
        require(
            source.official_namespace is not None,
            "image",
            image,
            f"a reference naming its registry ({source.url}/...) for upstream {source.name}",
        )
        if "/" not in repository and source.official_namespace:
            repository = f"{source.official_namespace}/{repository}"
    else:
        require(host in hosts, "image", image, f"an image from {' or '.join(hosts)} (the rule's upstream)")
    # A deploy-time account or region (CDK tokens) is kept as is; a literal host is checked.
    if not is_token(registry_host) and not re.fullmatch(
        r"[0-9]{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(\.cn)?", registry_host
    ):
        raise FastloadConfigError("registry_host", registry_host, "<account>.dkr.ecr.<region>.amazonaws.com")
    return f"{registry_host}/{repository_prefix}/{repository}{suffix}"
