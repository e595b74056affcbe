"""KEDA objects that scale one server Deployment on its engine's queue: a TriggerAuthentication and a ScaledObject.

The numbers are decided in `fastload_constructs.core.scaling` (replica bounds,
target, HPA behaviour derived from the plan's predicted start-up) and
`core.scaling.metrics` (the PromQL). Field names follow KEDA 2.20.2's CRDs
(`keda.sh/v1alpha1`; vendored in tests/fixtures/keda-2.20.2).

The Prometheus trigger points at an Amazon Managed Service for Prometheus
workspace (`server_address`, its `PrometheusEndpoint`) and signs with SigV4
(`awsRegion` set, TriggerAuthentication `podIdentity.provider: aws` with
`identityOwner: keda`: the KEDA operator's own Pod Identity credentials).
"""

from __future__ import annotations

import cdk8s
from constructs import Construct

from fastload_constructs.core import naming
from fastload_constructs.core.errors import require
from fastload_constructs.core.scaling.autoscaling import (
    Autoscaling,
    ScalingBehavior,
    check_autoscaling,
    fallback_spec,
    hpa_behavior,
)
from fastload_constructs.core.scaling.metrics import scaling_query
from fastload_constructs.core.validation import check_dns_label

KEDA_API_VERSION = "keda.sh/v1alpha1"


class AutoscalingChart(cdk8s.Chart):
    """ScaledObject `<server>` and TriggerAuthentication `<server>-amp` in `namespace`.

    `server` is the server Deployment's name (`ServerChart`'s `name`). Attributes:
    `scaled_object`, `trigger_authentication`, `query`.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        server: str,
        autoscaling: Autoscaling,
        behavior: ScalingBehavior,
        server_address: str,
        region: str,
        namespace: str = naming.DEFAULT_NAMESPACE,
    ) -> None:
        check_dns_label(server, "server")
        check_dns_label(namespace, "namespace")
        check_autoscaling(autoscaling)
        require(
            isinstance(server_address, str)
            and (server_address.startswith("https://") or "${Token[" in server_address)
            and not server_address.endswith("/"),
            "server_address",
            server_address,
            "the workspace's https:// query base URL without a trailing '/' (KEDA appends /api/v1/query)",
        )
        require(isinstance(region, str) and region != "", "region", region, "the workspace's AWS region")
        super().__init__(
            scope,
            id,
            namespace=namespace,
            labels={
                "app.kubernetes.io/name": "vllm-autoscaling",  # one value for either engine: selectors match it
                "app.kubernetes.io/instance": server,
                "app.kubernetes.io/component": "autoscaling",
                "app.kubernetes.io/part-of": naming.PART_OF,
                "app.kubernetes.io/managed-by": naming.MANAGED_BY,
            },
        )
        auth_name = f"{server}-amp"[:63]
        self.query = scaling_query(autoscaling, server=server, namespace=namespace)
        self.trigger_authentication = cdk8s.ApiObject(
            self,
            "TriggerAuthentication",
            api_version=KEDA_API_VERSION,
            kind="TriggerAuthentication",
            metadata=cdk8s.ApiObjectMetadata(name=auth_name),
        )
        self.trigger_authentication.add_json_patch(
            cdk8s.JsonPatch.add("/spec", {"podIdentity": {"provider": "aws", "identityOwner": "keda"}})
        )
        self.scaled_object = cdk8s.ApiObject(
            self,
            "ScaledObject",
            api_version=KEDA_API_VERSION,
            kind="ScaledObject",
            metadata=cdk8s.ApiObjectMetadata(name=server),
        )
        self.scaled_object.add_json_patch(
            cdk8s.JsonPatch.add(
                "/spec",
                {
                    "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": server},
                    "minReplicaCount": autoscaling.min_replicas,
                    "maxReplicaCount": autoscaling.max_replicas,
                    "pollingInterval": behavior.polling_interval_s,
                    "cooldownPeriod": behavior.cooldown_s,
                    "advanced": {"horizontalPodAutoscalerConfig": {"behavior": hpa_behavior(behavior)}},
                    "fallback": fallback_spec(autoscaling),
                    "triggers": [
                        {
                            "type": "prometheus",
                            "name": autoscaling.metric.replace("_", "-"),
                            "metricType": "AverageValue",
                            "metadata": {
                                "serverAddress": server_address,
                                "query": self.query,
                                "threshold": f"{autoscaling.target:g}",
                                "awsRegion": region,
                                # An empty result is an error, never "0 waiting": KEDA's fallback then holds
                                # the current replicas (core.scaling.autoscaling.fallback_spec) and an alert fires.
                                "ignoreNullValues": "false",
                            },
                            "authenticationRef": {"name": auth_name, "kind": "TriggerAuthentication"},
                        }
                    ],
                },
            )
        )
