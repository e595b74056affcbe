"""Who can reach what: the vLLM NetworkPolicy and API key, node metadata (IMDS) and Pod Identity trust.

NetworkPolicy objects are evaluated with a small evaluator of the Kubernetes
semantics (a pod selected by a policy of type Ingress accepts only what some
rule's peer and port allow), so a widened policy fails here.
"""

from __future__ import annotations

import ipaddress
import json

import aws_cdk as cdk
import cdk8s
import pytest
import yaml
from aws_cdk.assertions import Template

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.serving.access import ServingAccess
from fastload_constructs.infra.inference_cluster import InferenceCluster
from fastload_constructs.k8s.server_chart import ServerChart
from tests.iam_eval import applies, resolve
from tests.pod_identity_context import pod_identity_request, source_arn_guesses

NAMESPACE = "inference"


def synth(access: ServingAccess | None = None, name: str = "llama") -> list[dict]:
    app = cdk8s.App()
    serving = plan(ModelProfile.from_numbers(parameter_count=8_030_261_248), "g6e.2xlarge")
    ServerChart(
        app,
        name,
        plan=serving,
        model_name=name,
        model_uri=f"s3://models-bucket/models/{name}",
        region="eu-west-1",
        access=access,
    )
    return [d for d in yaml.safe_load_all(app.synth_yaml()) if d]


def of_kind(docs: list[dict], kind: str) -> list[dict]:
    return [d for d in docs if d["kind"] == kind]


def _selects(selector: dict, labels: dict) -> bool:
    assert set(selector) <= {"matchLabels"}, selector  # matchExpressions are not emitted
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


def ingress_allowed(policies: list[dict], pod_labels: dict, *, source: dict, port: int) -> bool:
    """Kubernetes NetworkPolicy ingress semantics for one connection to a pod in NAMESPACE.

    `source`: {"namespace": ns, "namespace_labels": {...}, "labels": {...}} for a pod, or {"ip": ...}.
    """
    selecting = [p for p in policies if _selects(p["spec"]["podSelector"], pod_labels)]
    selecting = [p for p in selecting if "Ingress" in p["spec"].get("policyTypes", ["Ingress"])]
    if not selecting:
        return True  # not isolated
    for policy in selecting:
        for rule in policy["spec"].get("ingress", []):
            ports = rule.get("ports")
            if ports is not None and not any(
                p.get("port") == port and p.get("protocol", "TCP") == "TCP" for p in ports
            ):
                continue
            peers = rule.get("from")
            if peers is None:
                return True
            for peer in peers:
                if "ipBlock" in peer:
                    if "ip" in source and ipaddress.ip_address(source["ip"]) in ipaddress.ip_network(
                        peer["ipBlock"]["cidr"]
                    ):
                        return True
                    continue
                if "ip" in source:
                    continue
                if "namespaceSelector" in peer:
                    ns_ok = _selects(peer["namespaceSelector"], source["namespace_labels"])
                else:
                    ns_ok = source["namespace"] == NAMESPACE
                if ns_ok and _selects(peer.get("podSelector", {}), source["labels"]):
                    return True
    return False


def pod_in(namespace: str, **labels: str) -> dict:
    return {"namespace": namespace, "namespace_labels": {"kubernetes.io/metadata.name": namespace}, "labels": labels}


def vllm_pod_labels(docs: list[dict]) -> dict:
    (deployment,) = of_kind(docs, "Deployment")
    return deployment["spec"]["template"]["metadata"]["labels"]


def test_by_default_only_the_namespaces_pods_reach_the_server_port():
    docs = synth()
    policies = of_kind(docs, "NetworkPolicy")
    labels = vllm_pod_labels(docs)
    assert len(policies) == 1 and policies[0]["metadata"]["namespace"] == NAMESPACE
    assert ingress_allowed(policies, labels, source=pod_in(NAMESPACE, app="client"), port=8000)
    assert not ingress_allowed(policies, labels, source=pod_in(NAMESPACE, app="client"), port=9999)
    assert not ingress_allowed(policies, labels, source=pod_in("default", app="client"), port=8000)
    assert not ingress_allowed(policies, labels, source={"ip": "10.0.3.7"}, port=8000)
    assert not ingress_allowed(policies, labels, source={"ip": "203.0.113.9"}, port=8000)
    # Egress stays open: S3, STS through the Pod Identity agent, DNS.
    assert policies[0]["spec"]["egress"] == [{}]


def test_the_policy_selects_exactly_this_deployments_pods():
    docs = synth()
    (policy,) = of_kind(docs, "NetworkPolicy")
    assert _selects(policy["spec"]["podSelector"], vllm_pod_labels(docs))
    (deployment,) = of_kind(docs, "Deployment")
    assert policy["spec"]["podSelector"]["matchLabels"].items() <= deployment["spec"]["selector"]["matchLabels"].items()
    other = synth(name="qwen")
    assert not _selects(policy["spec"]["podSelector"], vllm_pod_labels(other))


def test_the_gateway_namespace_and_the_vpc_cidr_are_let_in_when_named():
    access = ServingAccess(allow_from_namespaces=("envoy-gateway-system",), allow_from_cidrs=("10.0.0.0/16",))
    docs = synth(access)
    policies = of_kind(docs, "NetworkPolicy")
    labels = vllm_pod_labels(docs)
    assert ingress_allowed(policies, labels, source=pod_in("envoy-gateway-system", app="envoy"), port=8000)
    assert ingress_allowed(policies, labels, source={"ip": "10.0.3.7"}, port=8000)
    assert not ingress_allowed(policies, labels, source={"ip": "10.1.0.1"}, port=8000)
    assert not ingress_allowed(policies, labels, source=pod_in("kube-system", app="x"), port=8000)
    assert not ingress_allowed(policies, labels, source={"ip": "10.0.3.7"}, port=22)


def test_network_policy_can_be_switched_off():
    assert of_kind(synth(ServingAccess(network_policy=False)), "NetworkPolicy") == []


def test_api_key_comes_from_the_secret_and_readiness_moves_to_health():
    docs = synth(ServingAccess(api_key_secret="llama-api-key"))
    (deployment,) = of_kind(docs, "Deployment")
    (vllm,) = [c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == "vllm"]
    (env,) = [e for e in vllm["env"] if e["name"] == "VLLM_API_KEY"]
    assert env == {"name": "VLLM_API_KEY", "valueFrom": {"secretKeyRef": {"name": "llama-api-key", "key": "api-key"}}}
    assert not any("api-key" in a or "api_key" in a for a in vllm["args"])  # never on the command line
    # vLLM authenticates /v1/* only: /v1/models would answer the kubelet 401.
    assert vllm["readinessProbe"]["httpGet"]["path"] == "/health"
    assert vllm["startupProbe"]["httpGet"]["path"] == "/health"
    plain = of_kind(synth(), "Deployment")[0]
    (plain_vllm,) = [c for c in plain["spec"]["template"]["spec"]["containers"] if c["name"] == "vllm"]
    assert plain_vllm["readinessProbe"]["httpGet"]["path"] == "/v1/models"
    assert not any(e["name"] == "VLLM_API_KEY" for e in plain_vllm["env"])
    # The key is not part of the compile-cache configuration: same cache folder with or without it.
    volumes = deployment["spec"]["template"]["spec"]["volumes"]
    assert [v for v in volumes if v["name"] == "compile-cache"] == [
        v for v in plain["spec"]["template"]["spec"]["volumes"] if v["name"] == "compile-cache"
    ]


@pytest.mark.parametrize(
    "props, field",
    [
        ({"allow_from_cidrs": ("0.0.0.0/0",)}, "access.allow_from_cidrs[0]"),
        ({"allow_from_cidrs": ("::/0",)}, "access.allow_from_cidrs[0]"),
        ({"allow_from_cidrs": ("10.0.0.1/16",)}, "access.allow_from_cidrs[0]"),
        ({"allow_from_cidrs": "10.0.0.0/16"}, "access.allow_from_cidrs"),
        ({"allow_from_cidrs": (7,)}, "access.allow_from_cidrs[0]"),
        ({"allow_from_namespaces": ("Gateway",)}, "access.allow_from_namespaces[0]"),
        ({"api_key_secret": "Bad_Secret"}, "access.api_key_secret"),
        ({"api_key_secret": "s", "api_key_secret_key": "a/b"}, "access.api_key_secret_key"),
        ({"network_policy": False, "allow_from_cidrs": ("10.0.0.0/16",)}, "access.allow_from_namespaces"),
        ({"network_policy": "yes"}, "access.network_policy"),
    ],
)
def test_bad_access_settings_are_refused(props, field):
    with pytest.raises(FastloadConfigError) as err:
        ServingAccess(**props)
    assert err.value.field == field


@pytest.fixture(scope="module")
def cluster_template():
    stack = cdk.Stack(cdk.App(), "Access", env=cdk.Environment(account="123456789012", region="us-west-2"))
    inference = InferenceCluster(stack, "Inference", ebs_csi=True)
    template = Template.from_stack(stack).to_json()
    return stack, inference, template


def test_system_nodes_get_imdsv2_with_one_hop(cluster_template):
    stack, inference, template = cluster_template
    lt_id = stack.get_logical_id(inference.system_launch_template.node.default_child)
    metadata = template["Resources"][lt_id]["Properties"]["LaunchTemplateData"]["MetadataOptions"]
    assert metadata["HttpTokens"] == "required" and metadata["HttpPutResponseHopLimit"] == 1
    (nodegroup,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::EKS::Nodegroup"]
    assert nodegroup["Properties"]["LaunchTemplate"]["Id"] == {"Ref": lt_id}
    # Every node group of the cluster carries a launch template (none falls back to IMDS defaults).
    for r in template["Resources"].values():
        if r["Type"] == "AWS::EKS::Nodegroup":
            assert "LaunchTemplate" in r["Properties"]


def test_vpc_cni_enforces_network_policies(cluster_template):
    _, _, template = cluster_template
    (cni,) = [
        r["Properties"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::EKS::Addon" and r["Properties"]["AddonName"] == "vpc-cni"
    ]
    assert json.loads(cni["ConfigurationValues"]) == {"enableNetworkPolicy": "true"}


def test_ebs_csi_role_trusts_only_its_service_account_in_this_account(cluster_template):
    stack, inference, template = cluster_template
    (role,) = [
        r for k, r in template["Resources"].items() if r["Type"] == "AWS::IAM::Role" and k.startswith("InferenceEbsCsi")
    ]
    (trust,) = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    cluster_id = stack.get_logical_id(inference.cluster.node.default_child)
    trust = resolve(trust, {cluster_id: "c", f"{cluster_id}.Arn": "arn:aws:eks:us-west-2:123456789012:cluster/c"})
    own = pod_identity_request(
        account="123456789012",
        region="us-west-2",
        cluster="c",
        namespace="kube-system",
        service_account="ebs-csi-controller-sa",
    )
    assert sorted(trust["Action"]) == ["sts:AssumeRole", "sts:TagSession"]
    for request in source_arn_guesses(own):
        assert applies(trust, "sts:AssumeRole", request, resource="*")
    for key, other in (
        ("aws:RequestTag/kubernetes-service-account", "llama-vllm"),
        ("aws:RequestTag/kubernetes-namespace", "inference"),
        ("aws:RequestTag/eks-cluster-arn", "arn:aws:eks:us-west-2:999999999999:cluster/c"),
    ):
        assert not applies(trust, "sts:AssumeRole", {**own, key: other}, resource="*"), key
