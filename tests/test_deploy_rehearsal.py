"""The deploy rehearsal: each stack resolved as CloudFormation would, then checked as the services will.

Four stacks: the reference app in both GPU node modes (with autoscaling, warm spares, the
shared compile cache and a second model, so every construct appears), the existing-cluster
example, and InferenceCluster with the EBS CSI add-on (the one Pod Identity role the
reference app leaves off). Each is synthesised once per session. Every check runs on
deploy-time values (tests/rehearsal/); nothing here substitutes a placeholder.

The Helm and trust tests catch two defects that synthesis lets through: the node group
`Ref` (`<cluster>/<node group>`) as a nodeSelector label value, and trust conditions on
keys EKS Pod Identity is not documented to send.

The self-tests at the end run the rehearsal on small hand-built templates, so what it
catches (and what it lets through) is shown without a CDK app.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

from tests.rehearsal import helm, trust
from tests.rehearsal.deployment import Deployment
from tests.rehearsal.environment import Environment, generated_name
from tests.rehearsal.resolve import Resolver
from tests.rehearsal.return_values import TABLE, UnknownReturnValue

ROOT = Path(__file__).resolve().parent.parent
CDK_JSON = json.loads((ROOT / "cdk.json").read_text())["context"]
ACCOUNT, REGION = "210987654321", "us-west-2"
# The example as `cdk synth -c ...` would get it for a real account (see tests/test_example_existing_cluster.py).
EXAMPLE_CONTEXT = {
    "clusterName": "prod-gpu",
    "kubectlRoleArn": f"arn:aws:iam::{ACCOUNT}:role/prod-gpu-admin",
    "vpcId": "vpc-0a1b2c3d4e5f60718",
    "vpcCidr": "10.20.0.0/16",
    "availabilityZones": "us-west-2a,us-west-2b",
    "privateSubnetIds": "subnet-0a1b2c3d4e5f60711,subnet-0a1b2c3d4e5f60712",
    "privateRouteTableIds": "rtb-0a1b2c3d4e5f60711,rtb-0a1b2c3d4e5f60712",
    "account": ACCOUNT,
    "region": REGION,
}


def _reference_context(gpu_nodes: str, ami_family: str | None = None) -> dict:
    """cdk.json plus what makes every construct appear: KEDA (maxReplicas > minReplicas), warm spares, the shared
    compile cache with a node-local model copy, and a second, fixed-size model; with Karpenter a buffered node
    (a CapacityBuffer). `ami_family`: the nodes' OS (default cdk.json's: Bottlerocket)."""
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:gpuNodes"] = gpu_nodes
    if ami_family is not None:
        ctx["fastload:amiFamily"] = ami_family
    first = ctx["fastload:models"][0]
    first.update(minReplicas=1, maxReplicas=3, warmSpares=1, sharedCompileCache=True, nodeLocalModelCache=True)
    if gpu_nodes == "karpenter":
        first.update(bufferedNodes=1)
    second = {k: v for k, v in first.items() if k not in ("minReplicas", "maxReplicas", "targetWaitingRequests")}
    second.update(name="qwen", s3Prefix="models/qwen", replicas=1, warmSpares=0, sharedCompileCache=False)
    second.update(nodeLocalModelCache=False, engine="sglang")
    ctx["fastload:models"].append(second)
    # Standby engines on FMA: a vLLM model with one sleeping engine and the node-local copy (the launcher pod
    # resolves the revision when it starts).
    third = {k: v for k, v in second.items() if k != "engine"}
    third.update(name="mistral", s3Prefix="models/mistral", standbys=1, nodeLocalModelCache=True)
    ctx["fastload:models"].append(third)
    return ctx


def _reference(tmp_path_factory, gpu_nodes: str, ami_family: str | None = None) -> Deployment:
    from app import build_app

    outdir = str(tmp_path_factory.mktemp(f"cdk.out-{gpu_nodes}-{ami_family}"))
    app = build_app(context=_reference_context(gpu_nodes, ami_family), outdir=outdir)
    stack = app.synth().get_stack_by_name("FastloadReference")
    return Deployment(stack.template, Environment(stack.stack_name, account=ACCOUNT, region=REGION))


def _example(tmp_path_factory) -> Deployment:
    import aws_cdk as cdk

    sys.path.insert(0, str(ROOT / "examples"))
    import existing_cluster

    app = cdk.App(outdir=str(tmp_path_factory.mktemp("cdk.out-example")), context=EXAMPLE_CONTEXT)
    built = existing_cluster.build(app)
    stack = app.synth().get_stack_by_name(built.stack_name)
    return Deployment(stack.template, Environment(stack.stack_name, account=built.account, region=built.region))


def _ebs_csi_cluster(tmp_path_factory) -> Deployment:
    """InferenceCluster with the EBS CSI add-on (the one Pod Identity role the reference app leaves off) and FMA's
    controllers, whose chart claims a volume of the cluster's default StorageClass."""
    import aws_cdk as cdk

    from fastload_constructs.infra import FmaController, InferenceCluster

    app = cdk.App(outdir=str(tmp_path_factory.mktemp("cdk.out-ebs-csi")))
    stack = cdk.Stack(app, "FastloadEbsCsi", env=cdk.Environment(account=ACCOUNT, region=REGION))
    cluster = InferenceCluster(stack, "Inference", ebs_csi=True, cluster_name="fastload-ebs")
    FmaController(stack, "Fma", cluster=cluster.cluster, namespace="kube-system")
    template = app.synth().get_stack_by_name(stack.stack_name).template
    return Deployment(template, Environment(stack.stack_name, account=ACCOUNT, region=REGION))


def _split_reference(tmp_path_factory) -> dict[str, Deployment]:
    """The reference app with more models than one stack holds (tests/split_models.py): each stack deployed after
    the one before it, importing its exports, on the cluster it applied to."""
    from app import build_app
    from tests.split_models import split_context

    app = build_app(context=split_context(), outdir=str(tmp_path_factory.mktemp("cdk.out-split")))
    assembly = app.synth()
    deployed: list[Deployment] = []
    for name in ("FastloadReference", "FastloadReference-Models1"):
        stack = assembly.get_stack_by_name(name)
        env = Environment(stack.stack_name, account=ACCOUNT, region=REGION)
        deployed.append(Deployment(stack.template, env, earlier=list(deployed)))
    return {"split-reference": deployed[0], "split-models-1": deployed[1]}


STACKS = (
    "reference-karpenter",
    "reference-managed",
    "reference-al2023-karpenter",
    "reference-al2023-managed",
    "existing-cluster-example",
    "cluster-with-ebs-csi",
    "split-reference",
    "split-models-1",
)


@pytest.fixture(scope="session")
def deployments(tmp_path_factory) -> dict[str, Deployment]:
    return {
        "reference-karpenter": _reference(tmp_path_factory, "karpenter"),
        "reference-managed": _reference(tmp_path_factory, "managed"),
        # AL2023 nodes: the device plugin's DaemonSet, and a snapshot holding the sandbox image and the plugin's.
        "reference-al2023-karpenter": _reference(tmp_path_factory, "karpenter", "al2023"),
        "reference-al2023-managed": _reference(tmp_path_factory, "managed", "al2023"),
        "existing-cluster-example": _example(tmp_path_factory),
        "cluster-with-ebs-csi": _ebs_csi_cluster(tmp_path_factory),
        **_split_reference(tmp_path_factory),
    }


@pytest.fixture(params=STACKS)
def deployment(request, deployments) -> Deployment:
    return deployments[request.param]


def _report(problems: list[str]) -> str:
    return "\n".join(["", *problems])


# --- the rehearsed stacks -----------------------------------------------------------------------------------------


def test_the_reference_configs_make_every_construct_appear(deployments):
    karpenter, managed = deployments["reference-karpenter"], deployments["reference-managed"]
    releases = {p["Release"] for p in karpenter.of_type("Custom::AWSCDK-EKS-HelmChart").values()}
    # Bottlerocket (the default) runs the device plugin itself; AL2023 nodes get its DaemonSet.
    assert releases == {"karpenter-crd", "karpenter", "keda", "fma", "fma-crds"}
    for al2023 in (deployments["reference-al2023-karpenter"], deployments["reference-al2023-managed"]):
        assert "nvidia-device-plugin" in {p["Release"] for p in al2023.of_type("Custom::AWSCDK-EKS-HelmChart").values()}
    # Every GPU node restores the image snapshot the stack builds.
    for deployment in (karpenter, managed, *(deployments[f"reference-al2023-{m}"] for m in ("karpenter", "managed"))):
        assert len(deployment.of_type("Custom::NodeImageSnapshot")) == 1
        assert deployment.snapshot_pools() and all(p.snapshot_ids for p in deployment.snapshot_pools() if p.gpu)
    kinds = {o["kind"] for _, o in karpenter.manifests}
    assert {"EC2NodeClass", "NodePool", "ScaledObject", "PriorityClass", "StorageClass", "Deployment"} <= kinds
    assert "CapacityBuffer" in kinds
    # Standbys: FMA's objects, the standby pool (a NodePool, or a managed group of its own), the EBS add-on.
    assert {"InferenceServerConfig", "LauncherConfig", "LauncherPopulationPolicy"} <= kinds
    pools = [o for _, o in karpenter.manifests if o["kind"] == "NodePool"]
    assert any("fastload.io/standby" in o["spec"]["template"]["metadata"]["labels"] for o in pools)
    standby_groups = [
        p for p in managed.of_type("AWS::EKS::Nodegroup").values() if "Taints" in p and len(p["Taints"]) == 2
    ]
    assert len(standby_groups) == 1 and standby_groups[0]["Labels"]["fastload.io/standby"] == "true"
    for deployment in (karpenter, managed):
        assert {p["AddonName"] for p in deployment.of_type("AWS::EKS::Addon").values()} >= {"aws-ebs-csi-driver"}
    assert karpenter.of_type("AWS::APS::Scraper") and karpenter.of_type("AWS::SQS::Queue")
    assert len(managed.of_type("AWS::EKS::Nodegroup")) == 3  # system + one GPU group + the standby group
    warm = [
        o
        for _, o in karpenter.manifests
        if o["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "warm-spare"
    ]
    assert warm, "the warm-spare Deployment is applied"
    assert {o["kind"] for _, o in deployments["existing-cluster-example"].manifests} >= {"ServiceAccount", "Deployment"}
    ebs = deployments["cluster-with-ebs-csi"]
    assert ebs.of_type("AWS::EKS::Addon")  # its association sits on the add-on
    releases = {p["Release"] for p in ebs.of_type("Custom::AWSCDK-EKS-HelmChart").values()}
    assert releases == {"fma", "fma-crds"}  # FMA's controllers, and its CRDs as a chart asset


def test_the_models_stack_deploys_on_what_the_reference_stack_made(deployments):
    """Its cluster, bucket and kubectl provider are the reference stack's exports; the namespace and the
    PriorityClasses its pods name are applied by the reference stack alone; it applies its own scripts."""
    reference, models = deployments["split-reference"], deployments["split-models-1"]
    imports = set(reference.exports())
    assert imports and "Fn::ImportValue" in json.dumps(models.template)
    with pytest.raises(KeyError, match="no export named"):  # without the reference stack it cannot resolve
        Deployment(
            models.template, Environment(models.env.stack_name, account=ACCOUNT, region=REGION)
        ).resolver.resources()
    kinds = {name: [o["kind"] for _, o in d.manifests] for name, d in (("reference", reference), ("models", models))}
    assert kinds["reference"].count("Namespace") == 1 and "Namespace" not in kinds["models"]
    assert "PriorityClass" in kinds["reference"] and "PriorityClass" not in kinds["models"]
    assert "CapacityBuffer" in kinds["models"]  # a buffered model's buffer is applied beside it
    classes = {o["metadata"]["name"] for _, o in reference.manifests if o["kind"] == "PriorityClass"}
    pods = [o["spec"]["template"]["spec"] for _, o in models.manifests if o["kind"] == "Deployment"]
    assert pods and all(pod.get("priorityClassName") in classes for pod in pods)
    scripts = [
        {
            o["metadata"]["name"]
            for _, o in d.manifests
            if o["kind"] == "ConfigMap" and "runtime" in o["metadata"]["name"]
        }
        for d in (reference, models)
    ]
    assert all(len(names) == 1 for names in scripts) and scripts[0] != scripts[1]


def test_every_intrinsic_resolves_to_a_deploy_time_value(deployment):
    """Every resource and output resolves; no CDK token, `${...}` or intrinsic is left in the result."""
    resolved = json.dumps([deployment.resources, deployment.resolver.outputs()])
    assert '"Ref"' not in resolved and '"Fn::' not in resolved
    assert "${Token" not in resolved and "deploy-time-value" not in resolved
    assert {r["Type"] for r in deployment.template["Resources"].values()} <= set(TABLE)


def test_kubernetes_objects_pass_the_api_servers_validation(deployment):
    problems = deployment.kubernetes_problems()
    assert not problems, _report(problems)


def test_helm_values_that_land_in_pod_specs_pass_the_api_servers_validation(deployment):
    problems = deployment.helm_problems()
    assert not problems, _report(problems)


def test_trust_policies_admit_their_own_pods_only_on_documented_keys(deployment):
    problems = deployment.trust_problems()
    assert not problems, _report(problems)


def test_cross_references_resolve_to_this_stacks_resources(deployment):
    problems = deployment.cross_reference_problems()
    assert not problems, _report(problems)


def test_cloudformation_and_iam_limits_hold(deployment):
    problems = deployment.limit_problems()
    assert not problems, _report(problems)


# --- self-tests on hand-built templates ---------------------------------------------------------------------

ENV = Environment("FastloadReference", account=ACCOUNT, region=REGION)
SETTINGS = {"clusterName": "FastloadReference"}
POD_TRUST_TAGS = {
    "aws:RequestTag/eks-cluster-arn": {"Fn::GetAtt": ["Cluster", "Arn"]},
    "aws:RequestTag/kubernetes-namespace": "kube-system",
    "aws:RequestTag/kubernetes-service-account": "karpenter",
}


def _template(*, values: dict | None = None, trust_conditions: dict | None = None, **extra: dict) -> dict:
    """A cluster, its system node group, Karpenter's Helm release and Pod Identity role, as our stacks have them."""
    resources = {
        "Cluster": {"Type": "AWS::EKS::Cluster", "Properties": {"Name": "FastloadReference"}},
        "SystemNodes": {"Type": "AWS::EKS::Nodegroup", "Properties": {"ClusterName": {"Ref": "Cluster"}}},
        "Karpenter": {
            "Type": "Custom::AWSCDK-EKS-HelmChart",
            "Properties": {
                "ClusterName": {"Ref": "Cluster"},
                "Chart": "karpenter",
                "Version": "1.14.1",
                "Namespace": "kube-system",
                "Values": values or {"settings": SETTINGS, "serviceAccount": {"create": True, "name": "karpenter"}},
            },
        },
        "ControllerRole": {
            "Type": "AWS::IAM::Role",
            "Properties": {
                "AssumeRolePolicyDocument": {
                    "Version": "2012-10-17",
                    "Statement": [
                        {
                            "Effect": "Allow",
                            "Principal": {"Service": "pods.eks.amazonaws.com"},
                            "Action": ["sts:AssumeRole", "sts:TagSession"],
                            **({"Condition": trust_conditions} if trust_conditions is not None else {}),
                        }
                    ],
                }
            },
        },
        "Association": {
            "Type": "AWS::EKS::PodIdentityAssociation",
            "Properties": {
                "ClusterName": {"Ref": "Cluster"},
                "Namespace": "kube-system",
                "ServiceAccount": "karpenter",
                "RoleArn": {"Fn::GetAtt": ["ControllerRole", "Arn"]},
            },
        },
        **extra,
    }
    return {"Resources": resources}


def test_self_a_nodegroup_ref_used_as_a_label_value_is_caught():
    values = {
        "Fn::Join": [
            "",
            ['{"nodeSelector":{"eks.amazonaws.com/nodegroup":"', {"Ref": "SystemNodes"}, '"}}'],
        ]
    }
    (problem,) = Deployment(_template(values=values), ENV).helm_problems()
    assert "karpenter 1.14.1 Helm values nodeSelector['eks.amazonaws.com/nodegroup'] = 'FastloadReference/" in problem
    assert "is not a valid label value" in problem
    # The node group's own name (GetAtt NodegroupName) or a label of our own is a valid value.
    for value in ({"Fn::GetAtt": ["SystemNodes", "NodegroupName"]}, "system"):
        ok = {"Fn::Join": ["", ['{"nodeSelector":{"example.com/pool":"', value, '"}}']]}
        assert Deployment(_template(values=ok), ENV).helm_problems() == []


def test_self_a_nodegroup_ref_resolves_to_cluster_slash_generated_name():
    resolver = Resolver(_template(), ENV)
    ref = resolver.ref("SystemNodes")
    cluster, name = ref.split("/")
    assert cluster == "FastloadReference" and name.startswith("SystemNodes-") and len(name) == len("SystemNodes-") + 12
    assert resolver.get_att("SystemNodes", "NodegroupName") == name


def test_self_an_arn_equals_if_exists_source_arn_in_a_pod_identity_trust_is_an_unknown():
    conditions = {
        "StringEquals": POD_TRUST_TAGS,
        "ArnEqualsIfExists": {"aws:SourceArn": {"Fn::GetAtt": ["Cluster", "Arn"]}},
    }
    problems = Deployment(_template(trust_conditions=conditions), ENV).trust_problems()
    assert (
        len(problems) == 1 and "ArnEqualsIfExists aws:SourceArn is an UNKNOWN for pods.eks.amazonaws.com" in problems[0]
    )


def test_self_a_trust_on_the_documented_session_tags_passes_and_refuses_everyone_else():
    deployment = Deployment(_template(trust_conditions={"StringEquals": POD_TRUST_TAGS}), ENV)
    assert deployment.trust_problems() == []
    loose = {"StringEquals": {k: v for k, v in POD_TRUST_TAGS.items() if "cluster" not in k}}
    problems = Deployment(_template(trust_conditions=loose), ENV).trust_problems()
    assert [p.split(": ")[1].split(" (")[0] for p in problems] == ["another cluster", "another account"]


def test_self_source_account_is_an_unknown_until_a_documented_source_is_recorded():
    """The EKS user guide does not document aws:SourceAccount for pods.eks.amazonaws.com (see tests/rehearsal/trust.py):
    a trust that pins it is reported, and passes once the table records the key with its source."""
    conditions = {"StringEquals": {"aws:SourceAccount": {"Ref": "AWS::AccountId"}, **POD_TRUST_TAGS}}
    deployment = Deployment(_template(trust_conditions=conditions), ENV)
    problems = deployment.trust_problems()
    assert any("StringEquals aws:SourceAccount is an UNKNOWN" in p for p in problems)
    pods = trust.PRINCIPALS["pods.eks.amazonaws.com"]
    documented = {**pods.keys, "aws:SourceAccount": (lambda c: c.account, "<the page that documents it>")}
    principals = {**trust.PRINCIPALS, "pods.eks.amazonaws.com": trust.Principal(pods.actions, documented, pods.source)}
    assert deployment.trust_problems(principals) == []


def test_self_a_resource_type_missing_from_the_table_fails_clearly():
    template = _template(Thing={"Type": "AWS::Example::Thing", "Properties": {}})
    with pytest.raises(UnknownReturnValue, match=r"resource type AWS::Example::Thing has no entry in .*TABLE"):
        Resolver(template, ENV).resources()
    template = _template(Queue={"Type": "AWS::SQS::QueuePolicy", "Properties": {}})
    template["Resources"]["Cluster"]["Properties"]["Tags"] = [{"Key": "k", "Value": {"Ref": "Queue"}}]
    with pytest.raises(UnknownReturnValue, match=r"Ref of AWS::SQS::QueuePolicy \(Queue\) is not modelled"):
        Resolver(template, ENV).resources()


def test_self_an_association_without_its_service_account_is_reported():
    template = _template(values={"settings": SETTINGS, "serviceAccount": {"create": False}})
    (problem,) = Deployment(template, ENV).cross_reference_problems()
    assert "service account kube-system/karpenter is created by no manifest, Helm release or add-on" in problem


def test_self_an_ec2nodeclass_must_select_this_stacks_role_subnets_and_security_group():
    node_class = {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": "gpu"},
        "spec": {
            "role": "someone-elses-role",
            "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "FastloadReference"}}],
            "securityGroupSelectorTerms": [{"id": "sg-0123456789abcdef0"}],
        },
    }
    manifest = {
        "Type": "Custom::AWSCDK-EKS-KubernetesResource",
        "Properties": {"ClusterName": {"Ref": "Cluster"}, "Manifest": json.dumps([node_class])},
    }
    problems = Deployment(_template(NodeClass=manifest), ENV).cross_reference_problems()
    assert [p.split(": ", 1)[1].split(" ")[0] for p in problems] == [
        "spec.role",
        "subnetSelectorTerms[0]",
        "securityGroupSelectorTerms[0]",
    ]


def test_self_kubernetes_rules_follow_apimachinery():
    from tests.rehearsal import kubernetes as k8s

    assert k8s.label_value("a" * 63, "v") == [] and k8s.label_value("a" * 64, "v")
    assert k8s.label_value("c/ng", "v") and k8s.label_value("-a", "v") and k8s.label_value("", "v") == []
    assert k8s.qualified_name("eks.amazonaws.com/nodegroup", "k") == [] and k8s.qualified_name("a/b/c", "k")
    assert k8s.iana_svc_name("http", "p") == [] and k8s.iana_svc_name("metrics-endpoint", "p")  # 16 > 15
    assert k8s.iana_svc_name("8080", "p") and k8s.iana_svc_name("a--b", "p")
    assert k8s.tolerations([{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}], "t") == []
    assert k8s.tolerations([{"operator": "Equal", "value": "x"}], "t") and k8s.tolerations(
        [{"key": "k", "effect": "Never"}], "t"
    )
    assert k8s.env_var_name("VLLM_CACHE_ROOT", "e") == [] and k8s.env_var_name("1X", "e")
    assert k8s.quantity("1Gi", "q") == [] and k8s.quantity("500m", "q") == [] and k8s.quantity("1GB", "q")
    assert k8s.dns1035_label("1svc", "s") and k8s.dns1123_label("1svc", "s") == []


def test_self_generated_names_fit_their_types_limits():
    env = Environment("A" * 100)
    name = generated_name(env, "KarpenterGpuNodesNodeRole99663FEC", 64)
    assert len(name) == 64 and name.startswith("AAAA") and "-Karpenter" in name
    assert generated_name(ENV, "ModelBucketEBB1ADF4", 63, lowercase=True).islower()


def test_self_intrinsics_resolve_as_cloudformation_documents():
    template = {
        "Conditions": {"IsAws": {"Fn::Equals": [{"Ref": "AWS::Partition"}, "aws"]}},
        "Resources": {
            "Queue": {
                "Type": "AWS::SQS::Queue",
                "Properties": {
                    "QueueName": {"Fn::Sub": "${AWS::StackName}-q-${!Literal}"},
                    "Tags": [
                        {"Key": "az", "Value": {"Fn::Select": [1, {"Fn::GetAZs": ""}]}},
                        {"Key": "part", "Value": {"Fn::Select": [2, {"Fn::Split": [":", "a:b:c"]}]}},
                        {"Fn::If": ["IsAws", {"Ref": "AWS::NoValue"}, {"Key": "x", "Value": "y"}]},
                        {"Key": "imported", "Value": {"Fn::ImportValue": "SharedVpcId"}},
                    ],
                },
            }
        },
    }
    resolver = Resolver(template, ENV, imports={"SharedVpcId": "vpc-0123456789abcdef0"})
    props = resolver.resources()["Queue"]["Properties"]
    assert props["QueueName"] == "FastloadReference-q-${Literal}"
    assert props["Tags"] == [
        {"Key": "az", "Value": "us-west-2b"},
        {"Key": "part", "Value": "c"},
        {"Key": "imported", "Value": "vpc-0123456789abcdef0"},
    ]
    assert resolver.ref("Queue") == f"https://sqs.us-west-2.amazonaws.com/{ACCOUNT}/FastloadReference-q-${{Literal}}"


def test_self_every_table_entry_cites_its_cloudformation_page():
    for kind, entry in TABLE.items():
        service, name = kind.split("::")[1:] if kind.startswith("AWS::") else ("cloudformation", "customresource")
        assert entry.url.endswith(f"aws-resource-{service.lower()}-{name.lower()}.html"), kind


def test_self_helm_chart_tables_cover_our_charts_and_know_their_defaults():
    karpenter = helm.CHARTS[("karpenter", "1.14.1")]
    rendered = helm.merged(karpenter.defaults(), {"nodeSelector": {"example.com/pool": "system"}})
    assert rendered["nodeSelector"] == {"kubernetes.io/os": "linux", "example.com/pool": "system"}  # maps merge
    assert helm.unknown_keys({"controler": {}}, karpenter.defaults(), set(karpenter.paths)) == ["controler"]


def test_self_references_between_applied_objects_must_resolve():
    from tests.rehearsal import references

    pod = {"metadata": {"labels": {"app": "vllm"}}, "spec": {"serviceAccountName": "vllm", "priorityClassName": "fast"}}
    objects = [
        (
            "M",
            {"kind": "Deployment", "metadata": {"name": "vllm", "namespace": "inference"}, "spec": {"template": pod}},
        ),
        (
            "M",
            {
                "kind": "Service",
                "metadata": {"name": "vllm", "namespace": "inference"},
                "spec": {"selector": {"app": "x"}},
            },
        ),
        (
            "M",
            {
                "kind": "ScaledObject",
                "metadata": {"name": "vllm", "namespace": "inference"},
                "spec": {"scaleTargetRef": {"name": "llama"}, "triggers": [{"authenticationRef": {"name": "amp"}}]},
            },
        ),
    ]
    found = references.problems(objects, namespaces=set(), service_accounts=set())
    assert [p.split(": ", 1)[1].split(" ")[0] for p in found] == [
        "namespace",
        "service",
        "PriorityClass",
        "namespace",
        "selector",
        "namespace",
        "scaleTargetRef",
        "authenticationRef",
    ]
    assert (
        references.problems(
            [*objects[:1], ("N", {"kind": "PriorityClass", "metadata": {"name": "fast"}})],
            namespaces={"inference"},
            service_accounts={("inference", "vllm")},
        )
        == []
    )


def test_self_a_controllers_node_selector_must_match_a_node_group_of_the_stack():
    """The fix's shape: a label of our own on the system node group, selected by the controller. The label name
    here is only an example."""
    values = {"settings": SETTINGS, "serviceAccount": {"create": True, "name": "karpenter"}}
    selected = {**values, "nodeSelector": {"example.com/pool": "system"}}
    template = _template(values=selected)
    (problem,) = Deployment(template, ENV).cross_reference_problems()
    assert (
        "nodeSelector {'kubernetes.io/os': 'linux', 'example.com/pool': 'system'} matches the labels of no" in problem
    )
    template["Resources"]["SystemNodes"]["Properties"]["Labels"] = {"example.com/pool": "system"}
    assert Deployment(template, ENV).cross_reference_problems() == []
    by_name = {
        **values,
        "nodeSelector": {"eks.amazonaws.com/nodegroup": {"Fn::GetAtt": ["SystemNodes", "NodegroupName"]}},
    }
    assert Deployment(_template(values=by_name), ENV).cross_reference_problems() == []


def test_self_limits_are_reported_with_their_source():
    template = _template(trust_conditions={"StringEquals": POD_TRUST_TAGS})
    role = template["Resources"]["ControllerRole"]["Properties"]
    role["RoleName"] = "r" * 65
    role["AssumeRolePolicyDocument"]["Statement"] *= 12  # ~2,500 characters without whitespace
    queue = {"Type": "AWS::SQS::Queue", "Properties": {"QueueName": "q" * 81}}
    problems = Deployment({**template, "Resources": {**template["Resources"], "Queue": queue}}, ENV).limit_problems()
    assert len(problems) == 3 and all("https://docs.aws.amazon.com/" in p for p in problems)
    assert (
        problems[0].startswith(f"IAM role ControllerRole name '{'r' * 65}': must match") and "at most 64" in problems[0]
    )
    assert "IAM role ControllerRole: trust policy" in problems[1] and "> 2048" in problems[1]
    assert problems[2].startswith(f"SQS queue Queue '{'q' * 81}': must match") and "at most 80" in problems[2]


def test_self_a_trust_pinned_to_another_namespace_refuses_its_own_association():
    conditions = {"StringEquals": {**POD_TRUST_TAGS, "aws:RequestTag/kubernetes-namespace": "karpenter"}}
    problems = Deployment(_template(trust_conditions=conditions), ENV).trust_problems()
    assert len(problems) == 2  # sts:AssumeRole and sts:TagSession
    assert "StringEquals aws:RequestTag/kubernetes-namespace 'karpenter' fails on 'kube-system'" in problems[0]


def test_daemonsets_run_on_every_pool_they_serve(deployment):
    problems = deployment.daemonset_problems()
    assert not problems, _report(problems)


def test_claims_name_storage_classes_that_exist(deployment):
    problems = deployment.storage_problems()
    assert not problems, _report(problems)


def test_self_a_claim_without_a_class_needs_a_default_one():
    claim = {"kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "kube-system"}, "spec": {}}
    named = {**claim, "metadata": {"name": "cache", "namespace": "kube-system"}, "spec": {"storageClassName": "fast"}}
    manifest = {
        "Type": "Custom::AWSCDK-EKS-KubernetesResource",
        "Properties": {"ClusterName": {"Ref": "Cluster"}, "Manifest": json.dumps([claim, named])},
    }
    problems = Deployment(_template(Claims=manifest), ENV).storage_problems()
    assert [p.split(": ", 1)[1].split(" (")[0] for p in problems] == [
        "the claim names no StorageClass and the cluster has no default one",
        "StorageClass 'fast' does not exist: the claim stays Pending",
    ]
    addon = {
        "Type": "AWS::EKS::Addon",
        "Properties": {
            "ClusterName": {"Ref": "Cluster"},
            "AddonName": "aws-ebs-csi-driver",
            "ConfigurationValues": json.dumps({"defaultStorageClass": {"enabled": True}}),
        },
    }
    problems = Deployment(_template(Claims=manifest, Ebs=addon), ENV).storage_problems()
    assert len(problems) == 1 and "'fast' does not exist" in problems[0]


def test_every_containers_command_is_provided_by_its_image(deployment):
    problems = deployment.image_problems()
    assert not problems, _report(problems)


def test_the_rehearsed_pods_run_sglang_and_vllm_with_s3_streaming_and_our_scripts(deployments):
    from tests.rehearsal import images

    found = {images.repository(c["image"]): set() for _, c in deployments["reference-karpenter"].containers()}
    for _, c in deployments["reference-karpenter"].containers():
        found[images.repository(c["image"])] |= images.needs(c)
    assert {"sglang", "runai_model_streamer_s3", "boto3", "python3", "sh"} <= found["lmsysorg/sglang"]
    assert {"vllm", "boto3", "python3"} <= found["vllm/vllm-openai"]


def test_self_a_command_its_image_lacks_is_reported():
    from tests.rehearsal import images

    resolve = {"name": "resolve", "image": "busybox:1.38.0", "command": ["python3", "/opt/fastload/revision.py"]}
    streamer = {
        "name": "engine",
        "image": "lmsysorg/sglang:v0.5.23",
        "command": ["python3", "-m", "sglang.launch_server", "--model-path", "s3://b/m", "--load-format"],
        "args": ["runai_streamer"],
    }
    assert images.needs(resolve) == {"python3", "boto3"}
    assert images.needs(streamer) == {"python3", "sglang", "runai_model_streamer", "runai_model_streamer_s3"}
    assert images.needs({"name": "c", "image": "x"}) == set()  # the image's own entrypoint
    (problem,) = images.problems([("pod resolve", resolve), ("pod engine", streamer)])
    assert problem == "pod resolve: image busybox:1.38.0 has no entry in tests/rehearsal/images.PROVIDES"
    table = {**images.PROVIDES, "busybox": images.Claim(frozenset({"sh"}), "https://example.invalid", "tag")}
    (problem,) = images.problems([("pod resolve", resolve)], table)
    assert problem.startswith("pod resolve: runs ['boto3', 'python3'] that image busybox:1.38.0 is not known")
    assert images.repository("123456789012.dkr.ecr.us-west-2.amazonaws.com/docker-hub/lmsysorg/sglang:v1") == (
        "lmsysorg/sglang"
    )


def _pools_and_daemonsets_template() -> dict:
    """The GPU node pool and the standby pool as `StandbyNodePoolChart` renders them, the device plugin's Helm release
    with the values `NvidiaDevicePlugin` gives it, and the local-volume provisioner's DaemonSet as `LocalNvmeStorage`
    renders it."""
    import cdk8s

    from fastload_constructs.core.cluster.gpu_nodes import gpu_node_spec
    from fastload_constructs.core.cluster.karpenter import node_pool_spec
    from fastload_constructs.core.serving.standby import standby_node_pool_spec
    from fastload_constructs.infra.nvidia_device_plugin import device_plugin_values
    from fastload_constructs.k8s.local_storage import LocalNvmeStorage

    # AL2023 nodes: the device plugin is a DaemonSet there, and must tolerate the standby taint.
    node = gpu_node_spec("g6e.2xlarge", ami_family="al2023")
    standby = standby_node_pool_spec("g6e.2xlarge", **_POOL, ami_family="al2023")
    pools = [
        {"kind": "NodePool", "metadata": {"name": "g6e"}, "spec": node_pool_spec(node, ["g6e.2xlarge"], **_POOL)},
        {"kind": "NodePool", "metadata": {"name": "standby"}, "spec": standby},
    ]
    local_nvme = LocalNvmeStorage(cdk8s.App(), "local-nvme", ami_family="al2023")
    local = [o for o in local_nvme.to_json() if o["kind"] == "DaemonSet"]
    return _template(
        Pools={
            "Type": "Custom::AWSCDK-EKS-KubernetesResource",
            "Properties": {"ClusterName": {"Ref": "Cluster"}, "Manifest": json.dumps([*pools, *local])},
        },
        DevicePlugin={
            "Type": "Custom::AWSCDK-EKS-HelmChart",
            "Properties": {
                "ClusterName": {"Ref": "Cluster"},
                "Chart": "nvidia-device-plugin",
                "Version": "0.20.0",
                "Namespace": "nvidia-device-plugin",
                "Values": json.dumps(device_plugin_values()),
            },
        },
    )


_POOL = {"node_class": "gpu", "capacity_types": ("on-demand",), "gpu_limit": 8}


def test_self_the_device_plugin_and_local_volumes_tolerate_the_standby_pool():
    """The standby pool adds `fastload.io/standby=true:NoSchedule` to the GPU taint: every DaemonSet the GPU pools need
    must tolerate it, or standby nodes advertise no GPU and their requesters stay Pending."""
    deployment = Deployment(_pools_and_daemonsets_template(), ENV)
    assert len(deployment.pools()) == 3 and len(deployment.daemonset_pods()) == 2  # with the system node group
    problems = deployment.daemonset_problems()
    assert not problems, _report(problems)


def test_self_a_daemonset_that_does_not_tolerate_a_pools_taint_is_reported():
    template = _pools_and_daemonsets_template()
    values = json.loads(template["Resources"]["DevicePlugin"]["Properties"]["Values"])
    values["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    template["Resources"]["DevicePlugin"]["Properties"]["Values"] = json.dumps(values)
    problems = Deployment(template, ENV).daemonset_problems()
    assert len(problems) == 2, _report(problems)
    assert "(nvidia-device-plugin DaemonSet) selects the nodes of Pools NodePool/standby" in problems[0]
    assert "does not tolerate its taint fastload.io/standby=true:NoSchedule" in problems[0]
    assert problems[1].startswith("Pools NodePool/standby: GPU nodes without a built-in device plugin")
    # Without the plugin's release at all, both GPU pools are reported; a Bottlerocket pool would not be.
    del template["Resources"]["DevicePlugin"]
    problems = Deployment(template, ENV).daemonset_problems()
    assert [p.split(":")[0] for p in problems if "built-in" in p] == ["Pools NodePool/g6e", "Pools NodePool/standby"]


def test_self_a_crd_over_the_last_applied_annotation_is_refused_as_a_manifest():
    """FMA's LauncherConfig CRD applied through a KubernetesManifest (client-side `kubectl apply`) fails on its
    256 KiB last-applied annotation; the stack installs it from a chart's crds/ instead (FmaController)."""
    import yaml

    from fastload_constructs.infra.standby_engines import CRDS_CHART

    crds = [yaml.safe_load(p.read_text()) for p in sorted((CRDS_CHART / "crds").iterdir())]
    manifest = {
        "Type": "Custom::AWSCDK-EKS-KubernetesResource",
        "Properties": {"ClusterName": {"Ref": "Cluster"}, "Manifest": json.dumps(crds)},
    }
    problems = [p for p in Deployment(_template(Crds=manifest), ENV).kubernetes_problems() if "last-applied" in p]
    assert len(problems) == 1, _report(problems)
    assert problems[0].startswith("Crds CustomResourceDefinition/launcherconfigs.fma.llm-d.ai: ")
    assert "install a CRD from a Helm chart's crds/ or with server-side apply" in problems[0]


def test_node_snapshots_hold_what_nodes_need_before_their_first_pod(deployment):
    problems = deployment.snapshot_problems()
    assert not problems, _report(problems)


# --- self-tests of the node-snapshot rule and the device plugin on Bottlerocket --------------------------------

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}
STANDBY_TAINT = {"key": "fastload.io/standby", "value": "true", "effect": "NoSchedule"}


def _node_pool(name: str, node_class: str, taints: list[dict]) -> dict:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": name},
        "spec": {
            "template": {
                "metadata": {"labels": {"fastload.io/gpu-model": "l40s", "fastload.io/instance-store": "raid0"}},
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": node_class},
                    "taints": taints,
                    "requirements": [
                        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6e.2xlarge"]}
                    ],
                },
            }
        },
    }


def _node_class(name: str, alias: str, snapshot: object | None = None) -> dict:
    devices = [{"deviceName": "/dev/xvda", "ebs": {"volumeSize": "200Gi"}}]
    if snapshot is not None:
        devices.append({"deviceName": "/dev/xvdb", "ebs": {"volumeSize": "100Gi", "snapshotID": snapshot}})
    return {
        "apiVersion": "karpenter.k8s.aws/v1",
        "kind": "EC2NodeClass",
        "metadata": {"name": name},
        "spec": {"amiSelectorTerms": [{"alias": alias}], "blockDeviceMappings": devices},
    }


def _pools_template(objects: list, *, plugin_values: dict | None = None, snapshot_props: dict | None = None) -> dict:
    manifest = {"Fn::Join": ["", ["[", *_join_json(objects), "]"]]}
    resources = {
        "Cluster": {"Type": "AWS::EKS::Cluster", "Properties": {"Name": "FastloadReference"}},
        "Pools": {
            "Type": "Custom::AWSCDK-EKS-KubernetesResource",
            "Properties": {"ClusterName": "FastloadReference", "Manifest": manifest},
        },
    }
    if plugin_values is not None:
        resources["Plugin"] = {
            "Type": "Custom::AWSCDK-EKS-HelmChart",
            "Properties": {
                "ClusterName": "FastloadReference",
                "Chart": "nvidia-device-plugin",
                "Version": "0.20.0",
                "Namespace": "nvidia-device-plugin",
                "Values": json.dumps(plugin_values),
            },
        }
    if snapshot_props is not None:
        resources["Images"] = {"Type": "Custom::NodeImageSnapshot", "Properties": snapshot_props}
    return {"Resources": resources}


def _join_json(objects: list) -> list:
    """Objects as JSON text, with a `{"Fn::GetAtt": ...}` value spliced in where it stands (as CDK writes tokens)."""
    parts: list = []
    for i, obj in enumerate(objects):
        text = json.dumps(obj)
        marker = '"__SNAPSHOT__"'
        if marker in text:
            before, after = text.split(marker)
            parts += [before + '"', {"Fn::GetAtt": ["Images", "SnapshotId"]}, '"' + after]
        else:
            parts.append(text)
        if i < len(objects) - 1:
            parts.append(",")
    return parts


def test_self_a_device_plugin_on_bottlerocket_nodes_is_caught():
    objects = [_node_class("gpu", "bottlerocket@v1.64.0"), _node_pool("gpu-g6e", "gpu", [GPU_TAINT])]
    # The chart's own affinity (NFD labels) would not select our nodes; an affinity of our GPU label alone would.
    values = {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "fastload.io/gpu-model", "operator": "Exists"}]}
                    ]
                }
            }
        }
    }
    (problem,) = Deployment(_pools_template(objects, plugin_values=values), ENV).daemonset_problems()
    assert "whose OS runs its own device plugin" in problem
    # The values NvidiaDevicePlugin gives it keep it off nodes labelled with that family.
    from fastload_constructs.infra.nvidia_device_plugin import device_plugin_values

    objects[1]["spec"]["template"]["metadata"]["labels"]["fastload.io/ami-family"] = "bottlerocket"
    assert Deployment(_pools_template(objects, plugin_values=device_plugin_values()), ENV).daemonset_problems() == []


def test_self_an_al2023_snapshot_without_the_sandbox_image_is_caught():
    from fastload_constructs.infra.nvidia_device_plugin import device_plugin_values

    objects = [_node_class("gpu", "al2023@v20260714", "__SNAPSHOT__"), _node_pool("gpu-g6e", "gpu", [GPU_TAINT])]
    images = ["vllm/vllm-openai:v0.34.0", "nvcr.io/nvidia/k8s-device-plugin:v0.20.0"]
    built = {"Images": images, "SandboxImage": "", "AmiFamily": "al2023"}
    (problem,) = Deployment(
        _pools_template(objects, plugin_values=device_plugin_values(), snapshot_props=built), ENV
    ).snapshot_problems()
    assert "lacks localhost/kubernetes/pause:latest" in problem
    fixed = {**built, "SandboxImage": "localhost/kubernetes/pause:latest"}
    assert (
        Deployment(
            _pools_template(objects, plugin_values=device_plugin_values(), snapshot_props=fixed), ENV
        ).snapshot_problems()
        == []
    )
    no_plugin = {**fixed, "Images": images[:1]}
    (problem,) = Deployment(
        _pools_template(objects, plugin_values=device_plugin_values(), snapshot_props=no_plugin), ENV
    ).snapshot_problems()
    assert "lacks nvcr.io/nvidia/k8s-device-plugin:v0.20.0" in problem
    # On Bottlerocket the sandbox and the plugin come with the OS.
    objects = [_node_class("gpu", "bottlerocket@v1.64.0", "__SNAPSHOT__"), _node_pool("gpu-g6e", "gpu", [GPU_TAINT])]
    bottlerocket = {"Images": images[:1], "SandboxImage": "", "AmiFamily": "bottlerocket"}
    assert Deployment(_pools_template(objects, snapshot_props=bottlerocket), ENV).snapshot_problems() == []
