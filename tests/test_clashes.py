"""core.serving.clashes: what two served models, or two charts, may not share on one cluster."""

import pytest

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.serving.clashes import Applied, Server, check_objects, check_servers, object_keys

LLAMA = Server("App/Stack/Llama", "cluster-a", "inference", "llama", "llama-vllm")


def test_object_keys_name_kind_namespace_and_name_of_every_named_object():
    docs = [
        {"kind": "Namespace", "metadata": {"name": "inference"}},
        {"kind": "Deployment", "metadata": {"name": "llama", "namespace": "inference"}},
        {"kind": "Pod", "metadata": {"generateName": "job-"}},  # named by the API server: cannot clash
    ]
    assert object_keys(docs) == {("Namespace", "", "inference"), ("Deployment", "inference", "llama")}


def test_servers_of_other_names_namespaces_or_clusters_pass():
    check_servers(
        [
            LLAMA,
            Server("App/Stack/Qwen", "cluster-a", "inference", "qwen", "qwen-vllm"),
            Server("App/Stack/Other", "cluster-a", "other", "llama", "llama-vllm"),
            Server("App/Stack/Staging", "cluster-b", "inference", "llama", "llama-vllm"),
        ]
    )


def test_a_second_server_of_one_name_is_refused_naming_the_first():
    with pytest.raises(FastloadConfigError) as err:
        check_servers([LLAMA, Server("App/Stack/Again", "cluster-a", "inference", "llama", "llama-b-vllm")])
    assert err.value.field == "server.name" and err.value.value == "llama"
    assert "App/Stack/Llama serves it" in err.value.accepted


def test_a_second_binding_of_one_service_account_is_refused():
    with pytest.raises(FastloadConfigError) as err:
        check_servers([LLAMA, Server("App/Stack/Renamed", "cluster-a", "inference", "llama-b", "llama-vllm")])
    assert err.value.field == "model_name" and err.value.value == "llama-vllm"


def test_an_object_applied_twice_on_one_cluster_names_the_model_that_applies_it_again():
    spares = Applied(
        "App/Stack/Llama/WarmSpares", "cluster-a", frozenset({("Deployment", "inference", "llama-warm-spare")})
    )
    other = Server("App/Stack/Spare", "cluster-a", "inference", "llama-warm-spare", "llama-warm-spare-vllm")
    again = Applied("App/Stack/Spare/Server", "cluster-a", frozenset({("Deployment", "inference", "llama-warm-spare")}))
    with pytest.raises(FastloadConfigError) as err:
        check_objects([spares, again], [LLAMA, other])
    assert err.value.field == "model_name" and err.value.value == "inference/llama-warm-spare"
    assert "App/Stack/Llama already applies Deployment inference/llama-warm-spare" in err.value.accepted


def test_a_namespace_applied_beside_a_models_own_says_how_to_keep_its_logical_id():
    mine = Applied("App/Stack/Namespace", "cluster-a", frozenset({("Namespace", "", "inference")}))
    models = Applied("App/Stack/FastloadNamespace-inference-c8abcdef/Default", "cluster-a", mine.objects)
    with pytest.raises(FastloadConfigError) as err:
        check_objects([mine, models], [LLAMA])
    assert err.value.field == "chart" and err.value.value == "Namespace inference"
    assert "declare ServingNamespace(scope, <your chart's id>, cluster=...)" in err.value.accepted
    assert str(err.value).startswith("chart: got 'Namespace inference'; accepted: one chart applying it")


def test_one_object_on_two_clusters_is_two_objects():
    classes = frozenset({("PriorityClass", "", "fastload-vllm")})
    check_objects([Applied("App/A/Classes", "cluster-a", classes), Applied("App/A/Classes2", "cluster-b", classes)])
    with pytest.raises(FastloadConfigError) as err:
        check_objects([Applied("App/A/Classes", "cluster-a", classes), Applied("App/A/Mine", "cluster-a", classes)])
    assert "declare ServingPriorityClasses(" in err.value.accepted
