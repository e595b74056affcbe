"""The vLLM image through an ECR pull-through cache rule: rule, credentials, mirrored names, grants, the chart."""

from __future__ import annotations

import aws_cdk as cdk
import cdk8s
import pytest
from aws_cdk import aws_iam as iam
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk.assertions import Match, Template

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.images import image_tag
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import DEFAULT_IMAGE
from fastload_constructs.core.serving.image_mirror import UPSTREAMS, mirrored_image
from fastload_constructs.core.serving.server_pod import server_spec
from fastload_constructs.infra.image_mirror import EcrPullThroughCache
from fastload_constructs.infra.network import FastloadNetwork
from fastload_constructs.k8s.server_chart import ServerChart
from tests.iam_eval import ALLOW, decide, resolve
from tests.serving_plans import served_as

SECRET_ARN = "arn:aws:secretsmanager:us-west-2:123456789012:secret:ecr-pullthroughcache/docker-hub-AbCdEf"
HOST = "123456789012.dkr.ecr.us-west-2.amazonaws.com"


def allowed(statements, action: str, resource: str) -> bool:
    """The shared IAM evaluator, with the partition pseudo-parameter resolved (the stack's env gives the rest)."""
    return decide(resolve(statements, {}), action, resource=resource) == ALLOW


def stack() -> cdk.Stack:
    return cdk.Stack(cdk.App(), "S", env=cdk.Environment(account="123456789012", region="us-west-2"))


def secret(scope: cdk.Stack, arn: str = SECRET_ARN) -> secretsmanager.ISecret:
    return secretsmanager.Secret.from_secret_complete_arn(scope, "Secret", arn)


def test_docker_hub_rule_with_its_secret():
    s = stack()
    mirror = EcrPullThroughCache(s, "Mirror", credential_secret=secret(s))
    Template.from_stack(s).has_resource_properties(
        "AWS::ECR::PullThroughCacheRule",
        {
            "EcrRepositoryPrefix": "docker-hub",
            "UpstreamRegistryUrl": "registry-1.docker.io",
            "CredentialArn": SECRET_ARN,
        },
    )
    assert mirror.image(DEFAULT_IMAGE) == f"{HOST}/docker-hub/vllm/vllm-openai:v0.34.0"


def test_upstreams_without_credentials_need_none():
    s = stack()
    EcrPullThroughCache(s, "Mirror", upstream="ecr-public", repository_prefix="ecr-public")
    Template.from_stack(s).has_resource_properties(
        "AWS::ECR::PullThroughCacheRule",
        {"UpstreamRegistryUrl": "public.ecr.aws", "CredentialArn": Match.absent()},
    )


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({}, "credential_secret"),  # Docker Hub requires authentication
        ({"upstream": "github-container-registry"}, "credential_secret"),
        ({"upstream": "quay", "with_secret": True}, "credential_secret"),  # nobody would read it
        ({"upstream": "ecr"}, "upstream"),
        ({"repository_prefix": "X"}, "repository_prefix"),
        ({"repository_prefix": "a" * 31, "with_secret": True}, "repository_prefix"),
        (
            {"secret_arn": "arn:aws:secretsmanager:us-west-2:123456789012:secret:dockerhub-AbCdEf"},
            "credential_secret.secret_name",
        ),
    ],
)
def test_refused_configurations(kwargs, field):
    s = stack()
    arn = kwargs.pop("secret_arn", None)
    with_secret = kwargs.pop("with_secret", False) or arn is not None
    credential = secret(s, arn or SECRET_ARN) if with_secret else None
    with pytest.raises(FastloadConfigError) as err:
        EcrPullThroughCache(s, "Mirror", credential_secret=credential, **kwargs)
    assert err.value.field == field
    assert not [c for c in s.node.children if c.node.id == "Mirror"]  # refused before anything is added


def test_network_must_offer_the_ecr_endpoints():
    s = stack()
    without = FastloadNetwork(s, "Plain", max_azs=2)
    with pytest.raises(FastloadConfigError) as err:
        EcrPullThroughCache(s, "Mirror", credential_secret=secret(s), network=without)
    assert err.value.field == "network"
    s = stack()
    with_endpoints = FastloadNetwork(s, "Private", max_azs=2, interface_endpoints=True)
    EcrPullThroughCache(s, "Mirror", credential_secret=secret(s), network=with_endpoints)


@pytest.mark.parametrize(
    "image, expected",
    [
        ("vllm/vllm-openai:v0.34.0", "docker-hub/vllm/vllm-openai:v0.34.0"),
        ("docker.io/vllm/vllm-openai:v0.34.0", "docker-hub/vllm/vllm-openai:v0.34.0"),
        ("ubuntu:24.04", "docker-hub/library/ubuntu:24.04"),  # official images live under library/
        ("vllm/vllm-openai@sha256:" + "a" * 64, "docker-hub/vllm/vllm-openai@sha256:" + "a" * 64),
    ],
)
def test_mirrored_names(image, expected):
    assert mirrored_image(
        image, source=UPSTREAMS["docker-hub"], registry_host=HOST, repository_prefix="docker-hub"
    ) == (f"{HOST}/{expected}")


@pytest.mark.parametrize("image", ["ghcr.io/vllm/vllm-openai:v1", "vllm/vllm-openai", "quay.io/x/y:1"])
def test_mirrored_names_refuse_other_registries_and_unpinned(image):
    with pytest.raises(FastloadConfigError):
        mirrored_image(image, source=UPSTREAMS["docker-hub"], registry_host=HOST, repository_prefix="docker-hub")


def test_grant_pull_allows_importing_only_under_the_prefix():
    s = stack()
    mirror = EcrPullThroughCache(s, "Mirror", credential_secret=secret(s))
    role = iam.Role(s, "Nodes", assumed_by=iam.ServicePrincipal("ec2.amazonaws.com"))
    mirror.grant_pull(role)
    (policy,) = Template.from_stack(s).find_resources("AWS::IAM::Policy").values()
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    inside = "arn:aws:ecr:us-west-2:123456789012:repository/docker-hub/vllm/vllm-openai"
    outside = "arn:aws:ecr:us-west-2:123456789012:repository/private/app"
    for action in ("ecr:BatchImportUpstreamImage", "ecr:CreateRepository", "ecr:BatchGetImage"):
        assert allowed(statements, action, inside)
        assert not allowed(statements, action, outside)
    assert not allowed(statements, "ecr:PutImage", inside)


def test_the_chart_runs_the_mirrored_image_with_the_same_cache_key():
    deploy_time = cdk.Stack(cdk.App(), "Agnostic")
    mirror = EcrPullThroughCache(deploy_time, "Mirror", credential_secret=secret(deploy_time))
    image = mirror.image(DEFAULT_IMAGE)  # account and region are deploy-time tokens here
    assert image_tag(image) == "v0.34.0"
    serving = plan(ModelProfile.from_numbers(parameter_count=8_000_000_000), "g6e.2xlarge")
    mirrored_plan = served_as(serving, image=image)
    assert mirrored_plan.engine_version == serving.engine_version == "0.34.0"  # the same release, planned alike
    args = dict(model_name="llama", model_uri="s3://models-bucket/llama", region="us-west-2")
    mirrored = server_spec(mirrored_plan, **args)
    upstream = server_spec(serving, **args)
    assert mirrored.compile_cache_key == upstream.compile_cache_key  # the same vLLM build, the same cache
    chart = ServerChart(cdk8s.Testing.app(), "llama", plan=mirrored_plan, **args)
    (deployment,) = [d for d in cdk8s.Testing.synth(chart) if d["kind"] == "Deployment"]
    assert deployment["spec"]["template"]["spec"]["containers"][0]["image"] == image


# The reference app ---------------------------------------------------------------------------------

MIRROR = {"upstream": "docker-hub", "credentialSecretArn": SECRET_ARN}


def test_reference_stack_pulls_the_vllm_image_through_the_rule(tmp_path):
    import copy
    import json
    from pathlib import Path

    from app import build_app

    ctx = copy.deepcopy(json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"])
    ctx["fastload:vllmImageMirror"] = MIRROR
    app = build_app(ctx, str(tmp_path))
    (stack,) = [c for c in app.node.children if isinstance(c, cdk.Stack)]
    template = Template.from_stack(stack)
    template.has_resource_properties(
        "AWS::ECR::PullThroughCacheRule", {"CredentialArn": SECRET_ARN, "UpstreamRegistryUrl": "registry-1.docker.io"}
    )
    endpoints = template.find_resources("AWS::EC2::VPCEndpoint")
    services = json.dumps([r["Properties"]["ServiceName"] for r in endpoints.values()])
    assert "ecr.api" in services and "ecr.dkr" in services
    # The default GPU nodes are Karpenter's: their node role may pull through the rule.
    role_id = stack.resolve(stack.karpenter_nodes.node_role.role_name)["Ref"]
    policies = [
        p for p in template.find_resources("AWS::IAM::Policy").values() if {"Ref": role_id} in p["Properties"]["Roles"]
    ]
    actions = json.dumps([p["Properties"]["PolicyDocument"] for p in policies])
    assert "ecr:BatchImportUpstreamImage" in actions
    (served,) = stack.served_models.values()
    (deployment,) = [d for d in cdk8s.Testing.synth(served.chart) if d["kind"] == "Deployment"]
    image = deployment["spec"]["template"]["spec"]["containers"][0]["image"]
    assert image.endswith("/docker-hub/vllm/vllm-openai:v0.34.0") and image != DEFAULT_IMAGE
    # The node snapshot the stack builds holds the image as the pods name it, pulled through the rule with an
    # ECR token by a builder whose role may pull through it.
    (snapshot,) = template.find_resources("Custom::NodeImageSnapshot").values()
    mirrored = snapshot["Properties"]["Images"][0]
    assert stack.resolve(image) == mirrored and snapshot["Properties"]["EcrPassword"] == "true"
    builder_role = stack.resolve(stack.image_snapshot.builder_role.role_name)["Ref"]
    builder = [
        p
        for p in template.find_resources("AWS::IAM::Policy").values()
        if {"Ref": builder_role} in p["Properties"]["Roles"]
    ]
    assert "ecr:BatchImportUpstreamImage" in json.dumps([p["Properties"]["PolicyDocument"] for p in builder])
    # The environment-agnostic export names the mirror's account and URL suffix as placeholders.
    exported = stack.manifest_export.render()[f"05-{served.chart.node.id}.yaml"]  # after the in-pod scripts
    assert "image: ${AWS_ACCOUNT_ID}.dkr.ecr.${AWS_REGION}.${AWS_URL_SUFFIX}/docker-hub/vllm/vllm-openai:v0.34.0" in (
        exported
    )


@pytest.mark.parametrize(
    "raw, field",
    [
        ({"upstream": "docker-hub"}, "fastload:vllmImageMirror.credentialSecretArn"),
        ({"upstream": "quay", "credentialSecretArn": SECRET_ARN}, "fastload:vllmImageMirror.credentialSecretArn"),
        ({"upstream": "nope"}, "fastload:vllmImageMirror.upstream"),
        (
            {"credentialSecretArn": SECRET_ARN.replace("ecr-pullthroughcache/", "")},
            "fastload:vllmImageMirror.credentialSecretArn",
        ),
        ({"registry": "x"}, "fastload:vllmImageMirror.registry"),
    ],
)
def test_reference_config_refuses_a_mirror_without_what_the_upstream_needs(raw, field):
    from stacks.config import parse_image_mirror

    with pytest.raises(FastloadConfigError) as err:
        parse_image_mirror(raw)
    assert err.value.field == field
