"""core.scaling.keda: the typed ScaledObject and TriggerAuthentication of one server, before any rendering."""

from __future__ import annotations

import pytest

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.scaling.autoscaling import Autoscaling, HpaPolicy, scaling_behavior
from fastload_constructs.core.scaling.keda import keda_objects

BEHAVIOR = scaling_behavior(plan(ModelProfile.from_numbers(parameter_count=8_000_000_000), "g6e.2xlarge"))
ADDRESS = "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1"


def objects(**kwargs):
    args = dict(
        server="llama",
        autoscaling=Autoscaling(min_replicas=2, max_replicas=6, target=0.8, metric="kv_cache_usage"),
        behavior=BEHAVIOR,
        server_address=ADDRESS,
        region="us-west-2",
    )
    return keda_objects(**(args | kwargs))


def test_the_scaled_object_targets_the_deployment_and_signs_with_the_named_authentication():
    o = objects()
    so, auth = o.scaled_object, o.trigger_authentication
    assert so.deployment == "llama" and (so.min_replicas, so.max_replicas) == (2, 6)
    assert so.trigger.authentication == auth.name == "llama-amp"
    assert (auth.provider, auth.identity_owner) == ("aws", "keda")
    assert so.trigger.name == "kv-cache-usage" and so.trigger.threshold == "0.8"
    assert so.trigger.metadata["ignoreNullValues"] == "false"  # an empty result is an error, never 0
    assert so.fallback.replicas == 2 and so.fallback.behavior == "currentReplicas"
    assert so.behavior.scale_up.policies == (HpaPolicy("Pods", BEHAVIOR.scale_up_pods, BEHAVIOR.scale_up_period_s),)
    assert so.cooldown_s == BEHAVIOR.cooldown_s and so.polling_interval_s == BEHAVIOR.polling_interval_s
    assert o.labels["app.kubernetes.io/instance"] == "llama"


def test_a_long_server_name_keeps_the_authentication_name_a_dns_label():
    name = "m" * 63
    assert len(objects(server=name).trigger_authentication.name) == 63


def test_a_deploy_time_workspace_address_is_taken_as_is():
    token = "${Token[TOKEN.123]}"
    assert objects(server_address=token).scaled_object.trigger.server_address == token


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"server": "Llama_3"}, "server"),
        ({"namespace": "Inference"}, "namespace"),
        ({"server_address": "http://prometheus:9090"}, "server_address"),
        ({"server_address": ADDRESS + "/"}, "server_address"),
        ({"region": ""}, "region"),
        ({"autoscaling": Autoscaling(min_replicas=3, max_replicas=2)}, "autoscaling.maxReplicas"),
    ],
)
def test_bad_inputs_name_their_field(kwargs, field):
    with pytest.raises(FastloadConfigError) as err:
        objects(**kwargs)
    assert err.value.field == field
