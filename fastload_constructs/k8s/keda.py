"""KEDA objects that scale one server Deployment on its engine's queue: a TriggerAuthentication and a ScaledObject.

What they hold is decided in `fastload_constructs.core.scaling.keda` (from `core.scaling.autoscaling` and
`core.scaling.metrics`) as typed data; this chart renders it through the classes `cdk8s import` generated
from KEDA 2.20.2's CRDs (`k8s.imports.keda`, README there), so a field the CRD lacks fails at synth.
"""

from __future__ import annotations

import cdk8s
from constructs import Construct

from fastload_constructs.core import naming
from fastload_constructs.core.scaling.autoscaling import Autoscaling, HpaRules, ScalingBehavior
from fastload_constructs.core.scaling.keda import (
    METRIC_TYPE,
    PrometheusTrigger,
    ScaledObjectSpec,
    TriggerAuthenticationSpec,
    keda_objects,
)
from fastload_constructs.k8s.imports.keda.sh import keda

_FALLBACK = {"currentReplicas": keda.ScaledObjectSpecFallbackBehavior.CURRENT_REPLICAS}
_PROVIDER = {"aws": keda.TriggerAuthenticationSpecPodIdentityProvider.AWS}
_OWNER = {"keda": keda.TriggerAuthenticationSpecPodIdentityIdentityOwner.KEDA}


def _scale_up(rules: HpaRules) -> keda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp:
    return keda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUp(
        stabilization_window_seconds=rules.window_s,
        select_policy=rules.select,
        policies=[
            keda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleUpPolicies(
                type=p.type, value=p.value, period_seconds=p.period_s
            )
            for p in rules.policies
        ],
    )


def _scale_down(rules: HpaRules) -> keda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown:
    return keda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDown(
        stabilization_window_seconds=rules.window_s,
        select_policy=rules.select,
        policies=[
            keda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehaviorScaleDownPolicies(
                type=p.type, value=p.value, period_seconds=p.period_s
            )
            for p in rules.policies
        ],
    )


def _trigger(trigger: PrometheusTrigger) -> keda.ScaledObjectSpecTriggers:
    return keda.ScaledObjectSpecTriggers(
        type="prometheus",
        name=trigger.name,
        metric_type=METRIC_TYPE,
        metadata=trigger.metadata,
        authentication_ref=keda.ScaledObjectSpecTriggersAuthenticationRef(
            name=trigger.authentication, kind=keda.ScaledObjectSpecTriggersAuthenticationRefKind.TRIGGER_AUTHENTICATION
        ),
    )


def scaled_object_props(spec: ScaledObjectSpec) -> keda.ScaledObjectSpec:
    """A `ScaledObjectSpec` as the imported class."""
    behavior = keda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfigBehavior(
        scale_up=_scale_up(spec.behavior.scale_up), scale_down=_scale_down(spec.behavior.scale_down)
    )
    return keda.ScaledObjectSpec(
        scale_target_ref=keda.ScaledObjectSpecScaleTargetRef(
            api_version="apps/v1", kind="Deployment", name=spec.deployment
        ),
        min_replica_count=spec.min_replicas,
        max_replica_count=spec.max_replicas,
        polling_interval=spec.polling_interval_s,
        cooldown_period=spec.cooldown_s,
        advanced=keda.ScaledObjectSpecAdvanced(
            horizontal_pod_autoscaler_config=keda.ScaledObjectSpecAdvancedHorizontalPodAutoscalerConfig(
                behavior=behavior
            )
        ),
        fallback=keda.ScaledObjectSpecFallback(
            failure_threshold=spec.fallback.failure_threshold,
            replicas=spec.fallback.replicas,
            behavior=_FALLBACK[spec.fallback.behavior],
        ),
        triggers=[_trigger(spec.trigger)],
    )


def trigger_authentication_props(spec: TriggerAuthenticationSpec) -> keda.TriggerAuthenticationSpec:
    """A `TriggerAuthenticationSpec` as the imported class."""
    return keda.TriggerAuthenticationSpec(
        pod_identity=keda.TriggerAuthenticationSpecPodIdentity(
            provider=_PROVIDER[spec.provider], identity_owner=_OWNER[spec.identity_owner]
        )
    )


class AutoscalingChart(cdk8s.Chart):
    """ScaledObject `<server>` and TriggerAuthentication `<server>-amp` in `namespace`.

    `server` is the server Deployment's name (`ServerChart`'s `name`). Attributes:
    `scaled_object`, `trigger_authentication`, `query`, `objects` (`core.scaling.keda.KedaObjects`).
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
        objects = keda_objects(
            server=server,
            autoscaling=autoscaling,
            behavior=behavior,
            server_address=server_address,
            region=region,
            namespace=namespace,
        )
        super().__init__(scope, id, namespace=objects.namespace, labels=dict(objects.labels))
        self.objects = objects
        self.query = objects.scaled_object.trigger.query
        auth = objects.trigger_authentication
        self.trigger_authentication = keda.TriggerAuthentication(
            self,
            "TriggerAuthentication",
            metadata=cdk8s.ApiObjectMetadata(name=auth.name),
            spec=trigger_authentication_props(auth),
        )
        self.scaled_object = keda.ScaledObject(
            self,
            "ScaledObject",
            metadata=cdk8s.ApiObjectMetadata(name=objects.scaled_object.deployment),
            spec=scaled_object_props(objects.scaled_object),
        )
