"""The vLLM image from ECR in this region: an ECR pull-through cache rule, and who may pull through it.

A fresh GPU node spends minutes pulling the multi-GB vLLM image. From Docker
Hub that pull leaves the VPC through NAT (billed per GB) and counts against
Docker Hub's pull rate limits; through a pull-through cache rule the node
pulls `<account>.dkr.ecr.<region>.amazonaws.com/<prefix>/vllm/vllm-openai:<tag>`:
ECR fetches the image from the upstream once, keeps it, and every later pull
stays in the region, through the network's ECR api/dkr interface endpoints
(`FastloadNetwork(interface_endpoints=True)`) and, for the layers, its S3
gateway endpoint. Decisions (upstreams, credentials, names) live in
`core/serving/image_mirror.py`.
"""

from __future__ import annotations

from aws_cdk import Arn, ArnComponents, Stack, Token
from aws_cdk import aws_ecr as ecr
from aws_cdk import aws_iam as iam
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from fastload_constructs.core.errors import require
from fastload_constructs.core.serving.image_mirror import (
    DEFAULT_UPSTREAM,
    Upstream,
    check_credentials,
    check_repository_prefix,
    mirrored_image,
    upstream,
)
from fastload_constructs.infra.nag_findings import acknowledge, flatten
from fastload_constructs.infra.network import FastloadNetwork

ECR_ENDPOINTS = ("EcrApi", "EcrDocker")
# What a pull through the rule needs besides the pull actions every EKS node role already has
# (Amazon ECR User Guide, "IAM permissions required to sync an upstream registry"): importing the
# upstream image, and creating the cache repository on the first pull of an image.
PULL_THROUGH_ACTIONS = ("ecr:BatchImportUpstreamImage", "ecr:CreateRepository")
PULL_ACTIONS = ("ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer", "ecr:BatchCheckLayerAvailability")


class EcrPullThroughCache(Construct):
    """An ECR pull-through cache rule for one upstream registry (default Docker Hub).

    Props: `upstream` (docker-hub, ecr-public, quay, k8s, github-container-registry,
    gitlab-container-registry), `repository_prefix` (default: the upstream's name),
    `credential_secret` (required exactly when the upstream requires authentication:
    a Secrets Manager secret named `ecr-pullthroughcache/...` with `username` and
    `accessToken`, in this account and region; pass it with its full ARN, e.g.
    `Secret.from_secret_complete_arn`), `network` (optional: then it must have the
    ECR api and dkr interface endpoints, so pulls stay in the VPC).

    Attributes: `rule`, `upstream`, `repository_prefix`, `registry_host`.
    Methods: `image(upstream_image)` gives the mirrored reference to run;
    `grant_pull(grantee)` lets a node role pull through the rule.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        upstream: str = DEFAULT_UPSTREAM,
        repository_prefix: str | None = None,
        credential_secret: secretsmanager.ISecret | None = None,
        network: FastloadNetwork | None = None,
    ) -> None:
        source = _upstream(upstream)
        prefix = check_repository_prefix(repository_prefix if repository_prefix is not None else source.name)
        check_credentials(
            source,
            credential_secret.secret_arn if credential_secret is not None else None,
            _literal_name(credential_secret),
        )
        if network is not None:
            missing = [name for name in ECR_ENDPOINTS if name not in network.interface_endpoints]
            require(
                not missing,
                "network",
                network.node.path,
                "a FastloadNetwork with interface_endpoints=True (the ECR api and dkr endpoints keep pulls in the VPC)",
            )
        super().__init__(scope, id)
        self.upstream: Upstream = source
        self.repository_prefix = prefix
        self.credential_secret = credential_secret
        self.rule = ecr.CfnPullThroughCacheRule(
            self,
            "Rule",
            ecr_repository_prefix=prefix,
            upstream_registry_url=source.url,
            credential_arn=credential_secret.secret_arn if credential_secret is not None else None,
        )
        stack = Stack.of(self)
        # A literal host when the stack's environment is known (the YAML export then needs no placeholder).
        suffix = stack.url_suffix
        if not Token.is_unresolved(stack.region):
            suffix = "amazonaws.com.cn" if stack.region.startswith("cn-") else "amazonaws.com"
        self.registry_host = f"{stack.account}.dkr.ecr.{stack.region}.{suffix}"

    def image(self, upstream_image: str) -> str:
        """The reference that pulls `upstream_image` (e.g. 'vllm/vllm-openai:v0.34.0') through this rule."""
        return mirrored_image(
            upstream_image,
            source=self.upstream,
            registry_host=self.registry_host,
            repository_prefix=self.repository_prefix,
        )

    def grant_pull(self, grantee: iam.IGrantable) -> iam.Grant:
        """Pull, import and create repositories under this rule's prefix only."""
        repositories = Arn.format(
            ArnComponents(service="ecr", resource="repository", resource_name=f"{self.repository_prefix}/*"),
            Stack.of(self),
        )
        grant = iam.Grant.add_to_principal(
            grantee=grantee, actions=[*PULL_THROUGH_ACTIONS, *PULL_ACTIONS], resource_arns=[repositories]
        )
        if grant.principal_statement is not None and isinstance(grantee, Construct):
            acknowledge(
                grantee,
                f"AwsSolutions-IAM5[Resource::{flatten(Stack.of(self).resolve(repositories))}]",
                "pulling through the cache rule creates one repository per upstream image on first pull, named "
                "under the rule's prefix; the prefix is the narrowest scope that covers repositories not yet created",
            )
        return grant


def _upstream(name: object) -> Upstream:
    return upstream(name)


def _literal_name(secret: secretsmanager.ISecret | None) -> str | None:
    """The secret's name when known at synthesis (imported by name or complete ARN), else None."""
    if secret is None:
        return None
    try:
        return secret.secret_name
    except RuntimeError:  # jsii: no name on some imported secrets
        return None
