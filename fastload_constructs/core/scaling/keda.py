"""KEDA's objects for one server Deployment, as typed data: a ScaledObject on its engine's queue and the
TriggerAuthentication it signs with.

The numbers come from `core.scaling.autoscaling` (replica bounds, target, HPA behaviour derived from the
plan's predicted start-up, the fallback) and `core.scaling.metrics` (the PromQL). Field names and values
follow KEDA 2.20.2's CRDs (`keda.sh/v1alpha1`, vendored in tests/fixtures/keda-2.20.2); `k8s/keda.py`
renders these specs through the classes `cdk8s import` made of them.

The Prometheus trigger reads an Amazon Managed Service for Prometheus workspace (`server_address`, its
query base URL) and signs with SigV4: `awsRegion` set, and a TriggerAuthentication with
`podIdentity.provider: aws`, `identityOwner: keda`, the KEDA operator's own Pod Identity credentials.
Pure: no cdk8s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from fastload_constructs.core import naming
from fastload_constructs.core.errors import require
from fastload_constructs.core.scaling.autoscaling import (
    Autoscaling,
    Fallback,
    HpaBehavior,
    ScalingBehavior,
    check_autoscaling,
    fallback,
    scaling_rules,
)
from fastload_constructs.core.scaling.metrics import scaling_query
from fastload_constructs.core.tokens import is_token
from fastload_constructs.core.validation import check_dns_label

# KEDA docs, scalers/prometheus: with AverageValue the HPA aims for sum(metric) / replicas = threshold.
METRIC_TYPE = "AverageValue"


@dataclass(frozen=True)
class PrometheusTrigger:
    """The ScaledObject's one trigger: `query` against `server_address`, signed for `aws_region`."""

    name: str
    server_address: str
    query: str
    threshold: str
    aws_region: str
    authentication: str  # the TriggerAuthentication's name

    @property
    def metadata(self) -> dict[str, str]:
        """The trigger's `metadata` (KEDA reads every value as a string)."""
        return {
            "serverAddress": self.server_address,
            "query": self.query,
            "threshold": self.threshold,
            "awsRegion": self.aws_region,
            # An empty result is an error, never "0 waiting": KEDA's fallback then holds the current
            # replicas (core.scaling.autoscaling.fallback) and an alert fires.
            "ignoreNullValues": "false",
        }


@dataclass(frozen=True)
class ScaledObjectSpec:
    """ScaledObject `<deployment>`: scales the Deployment of that name between the bounds."""

    deployment: str
    min_replicas: int
    max_replicas: int
    polling_interval_s: int
    cooldown_s: int
    behavior: HpaBehavior
    fallback: Fallback
    trigger: PrometheusTrigger


@dataclass(frozen=True)
class TriggerAuthenticationSpec:
    """TriggerAuthentication `<name>`: KEDA's operator signs with its own Pod Identity credentials."""

    name: str
    provider: str = "aws"
    identity_owner: str = "keda"


@dataclass(frozen=True)
class KedaObjects:
    """Everything `AutoscalingChart` renders for one server; built by `keda_objects`."""

    namespace: str
    labels: Mapping[str, str]  # recommended labels of both objects
    scaled_object: ScaledObjectSpec
    trigger_authentication: TriggerAuthenticationSpec


def check_server_address(value: object) -> str:
    """An https:// query base URL, or a deploy-time token (the workspace's `PrometheusEndpoint`)."""
    require(
        isinstance(value, str) and (value.startswith("https://") or is_token(value)) and not value.endswith("/"),
        "server_address",
        value,
        "the workspace's https:// query base URL without a trailing '/' (KEDA appends /api/v1/query)",
    )
    assert isinstance(value, str)
    return value


def autoscaling_labels(server: str) -> dict[str, str]:
    """The recommended labels of a server's KEDA objects."""
    return {
        "app.kubernetes.io/name": "vllm-autoscaling",  # one value for either engine: selectors match it
        "app.kubernetes.io/instance": server,
        "app.kubernetes.io/component": "autoscaling",
        "app.kubernetes.io/part-of": naming.PART_OF,
        "app.kubernetes.io/managed-by": naming.MANAGED_BY,
    }


def keda_objects(
    *,
    server: str,
    autoscaling: Autoscaling,
    behavior: ScalingBehavior,
    server_address: str,
    region: str,
    namespace: str = naming.DEFAULT_NAMESPACE,
) -> KedaObjects:
    """The ScaledObject and TriggerAuthentication for Deployment `server` in `namespace`.

    Raises FastloadConfigError naming the first bad input.
    """
    check_dns_label(server, "server")
    check_dns_label(namespace, "namespace")
    check_autoscaling(autoscaling)
    check_server_address(server_address)
    require(isinstance(region, str) and region != "", "region", region, "the workspace's AWS region")
    auth = TriggerAuthenticationSpec(name=f"{server}-amp"[:63])
    trigger = PrometheusTrigger(
        name=autoscaling.metric.replace("_", "-"),
        server_address=server_address,
        query=scaling_query(autoscaling, server=server, namespace=namespace),
        threshold=f"{autoscaling.target:g}",
        aws_region=region,
        authentication=auth.name,
    )
    scaled_object = ScaledObjectSpec(
        deployment=server,
        min_replicas=autoscaling.min_replicas,
        max_replicas=autoscaling.max_replicas,
        polling_interval_s=behavior.polling_interval_s,
        cooldown_s=behavior.cooldown_s,
        behavior=scaling_rules(behavior),
        fallback=fallback(autoscaling),
        trigger=trigger,
    )
    return KedaObjects(
        namespace=namespace,
        labels=autoscaling_labels(server),
        scaled_object=scaled_object,
        trigger_authentication=auth,
    )
