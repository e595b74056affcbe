"""core/images.py: pinned image references, their repository and the release a tag names."""

from __future__ import annotations

import pytest

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.images import image_repository, image_tag, tagged_release

DIGEST = "sha256:" + "a" * 64


@pytest.mark.parametrize(
    ("image", "tag"),
    [
        ("vllm/vllm-openai:v0.34.0", "v0.34.0"),
        ("docker.io/lmsysorg/sglang:v0.5.23-cu130", "v0.5.23-cu130"),
        ("registry.example:5000/team/vllm:prod", "prod"),
        (f"vllm/vllm-openai@{DIGEST}", DIGEST),
        # An ECR mirror in the stack's own account: the host is a deploy-time token, the path and tag are not.
        ("${Token[AWS.AccountId.1]}.dkr.ecr.${Token[AWS.Region.2]}.amazonaws.com/vllm/vllm-openai:v0.34.0", "v0.34.0"),
    ],
)
def test_a_pinned_reference_gives_its_tag(image, tag):
    assert image_tag(image) == tag


@pytest.mark.parametrize(
    "image",
    [
        "vllm/vllm-openai:latest",
        "vllm/vllm-openai",
        "",
        7,
        None,
        "Vllm/Upper:v1",
        "repo/${Token[X.1]}:v1",
        "a:${Token[T.9]}",
    ],
)
def test_latest_untagged_and_token_paths_are_refused_naming_the_field(image):
    with pytest.raises(FastloadConfigError) as caught:
        image_tag(image, "models[0].image")
    assert caught.value.field == "models[0].image" and "pinned" in caught.value.accepted


@pytest.mark.parametrize(
    ("image", "repository"),
    [
        ("docker.io/vllm/vllm-openai:v0.34.0", "vllm/vllm-openai"),
        (f"vllm/vllm-openai@{DIGEST}", "vllm/vllm-openai"),
        ("registry.example:5000/team/sglang:v1", "registry.example:5000/team/sglang"),
        ("lmsysorg/sglang", "lmsysorg/sglang"),
    ],
)
def test_the_repository_leaves_out_tag_digest_and_docker_hub(image, repository):
    assert image_repository(image) == repository


@pytest.mark.parametrize(
    ("image", "release"),
    [
        ("vllm/vllm-openai:v0.8.5", "0.8.5"),
        ("vllm/vllm-openai:0.11.0-cu128", "0.11.0"),
        ("vllm/vllm-openai:v0.34.0rc1", "0.34.0"),
        ("lmsysorg/sglang:v0.5.23", "0.5.23"),
        ("acme/vllm:prod", None),
        (f"vllm/vllm-openai@{DIGEST}", None),
    ],
)
def test_the_release_a_tag_names(image, release):
    assert tagged_release(image) == release
