"""CDK constructs: inference cluster, GPU node groups, device plugin (one synth per module)."""

import email
import json

import aws_cdk as cdk
import pytest
import yaml
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_kms as kms
from aws_cdk.assertions import Match, Template

from fastload_constructs.core.cluster.gpu_nodes import gpu_node_spec
from fastload_constructs.core.cluster.nodeadm import NODEADM_CONTENT_TYPE
from fastload_constructs.core.cluster.settings import CORE_ADDONS, EBS_CSI_ADDON, kubectl_layer_module
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.naming import GPU_TAINT_KEY, LABEL_GPU_MODEL
from fastload_constructs.infra.gpu_nodegroup import GpuNodeGroup
from fastload_constructs.infra.inference_cluster import InferenceCluster
from fastload_constructs.infra.karpenter import KarpenterGpuNodes
from fastload_constructs.infra.nvidia_device_plugin import (
    CHART_NAME,
    CHART_REPOSITORY,
    CHART_VERSION,
    NvidiaDevicePlugin,
    device_plugin_values,
)
from tests.cfn_template import resources
from tests.iam_eval import allowed

ADMIN = "arn:aws:iam::123456789012:role/PlatformAdmin"
RESERVATION = "cr-0123456789abcdef0"


@pytest.fixture(scope="module")
def stack():
    app = cdk.App()
    stack = cdk.Stack(app, "Test", env=cdk.Environment(account="123456789012", region="us-west-2"))
    inference = InferenceCluster(
        stack,
        "Inference",
        version="1.34",
        endpoint_access=eks.EndpointAccess.PRIVATE,
        admin_role_arns=[ADMIN],
        logging=[eks.ClusterLoggingTypes.API, eks.ClusterLoggingTypes.AUDIT],
        ebs_csi=True,
    )
    GpuNodeGroup(
        stack,
        "G6e",
        cluster=inference.cluster,
        instance_type=ec2.InstanceType("g6e.12xlarge"),
        min_size=1,
        desired_size=1,
        max_size=4,
        root_volume_gib=300,
        ami_family="al2023",
    )
    GpuNodeGroup(
        stack,
        "P3",
        cluster=inference.cluster,
        instance_type="p3.8xlarge",
        instance_store=False,
        capacity_type=eks.CapacityType.SPOT,
        ami_family="al2023",
    )
    GpuNodeGroup(
        stack,
        "P5",
        cluster=inference.cluster,
        instance_type="p5.48xlarge",
        capacity_type=eks.CapacityType.CAPACITY_BLOCK,
        capacity_reservation_id=RESERVATION,
        max_size=1,
    )
    plugin = NvidiaDevicePlugin(stack, "DevicePlugin", cluster=inference.cluster)
    KarpenterGpuNodes(
        stack, "Karpenter", cluster=inference.cluster, instance_types=["g6e", "p5.48xlarge"], after=[plugin]
    )
    return stack


@pytest.fixture(scope="module")
def template(stack):
    return Template.from_stack(stack)


def nodegroup(template, instance_type):
    (ng,) = [
        r["Properties"]
        for r in resources(template, "AWS::EKS::Nodegroup").values()
        if r["Properties"].get("InstanceTypes") == [instance_type]
    ]
    return ng


def launch_template_of(template, ng):
    return resources(template, "AWS::EC2::LaunchTemplate")[ng["LaunchTemplate"]["Id"]["Ref"]]["Properties"]


def node_configs(launch_template):
    user_data = launch_template["LaunchTemplateData"]["UserData"]["Fn::Base64"]
    message = email.message_from_string(user_data)
    assert message.is_multipart()
    return [
        yaml.safe_load(p.get_payload()) for p in message.get_payload() if p.get_content_type() == NODEADM_CONTENT_TYPE
    ]


def test_cluster_version_private_endpoint_and_logging(template):
    template.has_resource_properties(
        "AWS::EKS::Cluster",
        {
            "Version": "1.34",
            "AccessConfig": {"AuthenticationMode": "API"},
            "ResourcesVpcConfig": Match.object_like({"EndpointPrivateAccess": True, "EndpointPublicAccess": False}),
            "Logging": {"ClusterLogging": {"EnabledTypes": [{"Type": "api"}, {"Type": "audit"}]}},
        },
    )


def test_secrets_are_encrypted_with_a_rotated_key_the_cluster_role_may_use(template):
    (key_id,) = resources(template, "AWS::KMS::Key")
    template.has_resource_properties("AWS::KMS::Key", {"EnableKeyRotation": True})
    template.has_resource_properties(
        "AWS::EKS::Cluster",
        {"EncryptionConfig": [{"Provider": {"KeyArn": {"Fn::GetAtt": [key_id, "Arn"]}}, "Resources": ["secrets"]}]},
    )
    (cluster_id, cluster) = next(iter(resources(template, "AWS::EKS::Cluster").items()))
    role = cluster["Properties"]["RoleArn"]["Fn::GetAtt"][0]
    (policy_id,) = [
        k for k, p in resources(template, "AWS::IAM::Policy").items() if p["Properties"]["Roles"] == [{"Ref": role}]
    ]
    statements = resources(template, "AWS::IAM::Policy")[policy_id]["Properties"]["PolicyDocument"]["Statement"]
    key_arn = "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    refs = {f"{key_id}.Arn": key_arn}
    for action in ("kms:Encrypt", "kms:Decrypt", "kms:DescribeKey"):
        assert allowed(statements, action, resource=key_arn, refs=refs), action
    assert not allowed(statements, "kms:ScheduleKeyDeletion", resource=key_arn, refs=refs)
    # EKS checks the key as the role at creation: the grant must exist before the cluster.
    assert policy_id in cluster["DependsOn"], cluster_id


def test_a_brought_secrets_key_is_used_and_no_key_is_made():
    stack = cdk.Stack(cdk.App(), "Key", env=cdk.Environment(account="123456789012", region="us-west-2"))
    key = kms.Key.from_key_arn(
        stack, "Mine", "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    )
    InferenceCluster(stack, "Inference", system_nodes=0, secrets_encryption_key=key)
    template = Template.from_stack(stack)
    assert resources(template, "AWS::KMS::Key") == {}
    template.has_resource_properties(
        "AWS::EKS::Cluster", {"EncryptionConfig": [{"Provider": {"KeyArn": key.key_arn}, "Resources": ["secrets"]}]}
    )


def test_addons_present_and_adopting_self_managed_ones(template):
    addons = {r["Properties"]["AddonName"]: r["Properties"] for r in resources(template, "AWS::EKS::Addon").values()}
    assert set(addons) == set(CORE_ADDONS) | {EBS_CSI_ADDON}
    for name in ("vpc-cni", "coredns", "kube-proxy"):
        template.has_resource_properties("AWS::EKS::Addon", {"AddonName": name, "ResolveConflicts": "OVERWRITE"})
    template.has_resource_properties(
        "AWS::EKS::Addon",
        {
            "AddonName": EBS_CSI_ADDON,
            "PodIdentityAssociations": [Match.object_like({"ServiceAccount": "ebs-csi-controller-sa"})],
        },
    )


def test_the_ebs_csi_addon_makes_a_default_storage_class(template):
    """EKS >= 1.30 marks no StorageClass default: a claim naming none (FMA's controller chart) stays Pending."""
    (ebs,) = [
        p
        for p in (r["Properties"] for r in resources(template, "AWS::EKS::Addon").values())
        if p["AddonName"] == EBS_CSI_ADDON
    ]
    assert json.loads(ebs["ConfigurationValues"]) == {"defaultStorageClass": {"enabled": True}}


def test_admin_role_gets_a_cluster_admin_access_entry(template):
    template.has_resource_properties(
        "AWS::EKS::AccessEntry",
        {
            "PrincipalArn": ADMIN,
            "AccessPolicies": [{"AccessScope": {"Type": "cluster"}, "PolicyArn": Match.any_value()}],
        },
    )


def test_kubectl_provider_uses_the_layer_of_the_cluster_version(template):
    module, _ = kubectl_layer_module("1.34")
    assert module.endswith("kubectl_v34")
    layers = resources(template, "AWS::Lambda::LayerVersion")
    # The layer describes itself, e.g. "/opt/kubectl/kubectl 1.34.5; /opt/helm/helm 3.x".
    kubectl_layers = [k for k, r in layers.items() if "/opt/kubectl/kubectl" in r["Properties"].get("Description", "")]
    assert len(kubectl_layers) == 1
    description = layers[kubectl_layers[0]]["Properties"]["Description"]
    assert description.split(";")[0].split()[-1].startswith("1.34.")
    handlers = [
        r["Properties"]
        for r in resources(template, "AWS::Lambda::Function").values()
        if {"Ref": kubectl_layers[0]} in r["Properties"].get("Layers", [])
    ]
    assert handlers, "no Lambda function carries the kubectl layer"


def test_system_nodes_are_untainted_standard_al2023(template):
    system = [
        r["Properties"]
        for r in resources(template, "AWS::EKS::Nodegroup").values()
        if r["Properties"]["AmiType"] == "AL2023_x86_64_STANDARD"
    ]
    assert len(system) == 1 and "Taints" not in system[0]


def test_gpu_nodegroup_ami_labels_taint_and_sizes(template):
    ng = nodegroup(template, "g6e.12xlarge")
    assert ng["AmiType"] == "AL2023_x86_64_NVIDIA"
    assert ng["CapacityType"] == "ON_DEMAND"
    assert ng["Labels"] == gpu_node_spec("g6e.12xlarge", ami_family="al2023").labels
    assert ng["Taints"] == [{"Key": GPU_TAINT_KEY, "Value": "true", "Effect": "NO_SCHEDULE"}]
    assert ng["ScalingConfig"] == {"MinSize": 1, "DesiredSize": 1, "MaxSize": 4}
    assert "DiskSize" not in ng  # sized in the launch template


def test_launch_template_boots_raid0_with_an_encrypted_gp3_root(template):
    lt = launch_template_of(template, nodegroup(template, "g6e.12xlarge"))
    (config,) = node_configs(lt)
    assert config["kind"] == "NodeConfig" and config["apiVersion"] == "node.eks.aws/v1alpha1"
    assert config["spec"]["instance"]["localStorage"]["strategy"] == "RAID0"
    (root,) = lt["LaunchTemplateData"]["BlockDeviceMappings"]
    assert root["Ebs"] == {
        "VolumeSize": 300,
        "VolumeType": "gp3",
        "Encrypted": True,
        "DeleteOnTermination": True,
        "Throughput": 125,
    }
    assert lt["LaunchTemplateData"]["MetadataOptions"]["HttpTokens"] == "required"
    assert "ImageId" not in lt["LaunchTemplateData"]  # EKS picks the NVIDIA AMI from AmiType


def test_opted_out_type_runs_without_raid0_on_spot(template):
    ng = nodegroup(template, "p3.8xlarge")
    assert ng["CapacityType"] == "SPOT"
    assert ng["Labels"]["fastload.io/instance-store"] == "none"
    lt = launch_template_of(template, ng)
    (config,) = node_configs(lt)
    assert "instance" not in config["spec"]
    # Caches live on the root volume: it gets more than the gp3 baseline.
    assert lt["LaunchTemplateData"]["BlockDeviceMappings"][0]["Ebs"]["Throughput"] > 125


def test_capacity_block_targets_its_reservation(template):
    ng = nodegroup(template, "p5.48xlarge")
    assert ng["CapacityType"] == "CAPACITY_BLOCK"
    data = launch_template_of(template, ng)["LaunchTemplateData"]
    assert data["InstanceMarketOptions"] == {"MarketType": "capacity-block"}
    assert data["CapacityReservationSpecification"]["CapacityReservationTarget"]["CapacityReservationId"] == RESERVATION


def test_device_plugin_chart_is_pinned_and_tolerates_every_gpu_pools_taints(template):
    (chart,) = [r["Properties"] for r in resources(template, "Custom::AWSCDK-EKS-HelmChart").values()]
    assert (chart["Chart"], chart["Repository"], chart["Version"]) == (CHART_NAME, CHART_REPOSITORY, CHART_VERSION)
    values = json.loads(chart["Values"]) if isinstance(chart["Values"], str) else chart["Values"]
    for key in (GPU_TAINT_KEY, "fastload.io/standby"):  # the standby pool's taint too
        assert {"key": key, "operator": "Exists"} in values["tolerations"]
    terms = values["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    # Our GPU nodes (or NFD's NVIDIA label), never a node whose OS runs the plugin itself (Bottlerocket).
    built_in = {"key": "fastload.io/ami-family", "operator": "NotIn", "values": ["bottlerocket"]}
    assert {"matchExpressions": [{"key": LABEL_GPU_MODEL, "operator": "Exists"}, built_in]} in terms
    assert all(built_in in term["matchExpressions"] for term in terms)


def imported_cluster(stack):
    vpc = ec2.Vpc(stack, "Vpc", max_azs=2, nat_gateways=0)
    return eks.Cluster.from_cluster_attributes(stack, "Imported", cluster_name="existing", vpc=vpc)


def test_no_instance_store_type_is_refused_before_anything_is_added():
    stack = cdk.Stack(cdk.App(), "Refused")
    cluster = imported_cluster(stack)
    with pytest.raises(FastloadConfigError) as err:
        GpuNodeGroup(stack, "P3", cluster=cluster, instance_type="p3.8xlarge")
    assert err.value.field == "instance_type"
    assert stack.node.try_find_child("P3") is None


def test_node_group_works_on_a_brought_cluster():
    stack = cdk.Stack(cdk.App(), "Brought")
    cluster = imported_cluster(stack)
    GpuNodeGroup(stack, "G6", cluster=cluster, instance_type="g6.xlarge", max_size=1)
    Template.from_stack(stack).has_resource_properties(
        "AWS::EKS::Nodegroup", {"ClusterName": "existing", "AmiType": "BOTTLEROCKET_x86_64_NVIDIA"}
    )


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"version": "1.29"}, "version"),
        ({"endpoint_access": "private"}, "endpoint_access"),  # strings stay in the cdk.json parser
        ({"logging": ["api"]}, "logging"),
        ({"logging": [eks.ClusterLoggingTypes.API, eks.ClusterLoggingTypes.API]}, "logging"),
        ({"system_instance_type": "m6i.large"}, "system_instance_type"),
        ({"admin_role_arns": ["arn:aws:iam::123:user/bob"]}, "admin_role_arns"),
        ({"secrets_encryption_key": "alias/eks"}, "secrets_encryption_key"),
    ],
)
def test_bad_cluster_inputs_are_refused(kwargs, field):
    stack = cdk.Stack(cdk.App(), "Bad")
    with pytest.raises(FastloadConfigError) as err:
        InferenceCluster(stack, "Inference", **kwargs)
    assert err.value.field == field


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"min_size": 3, "max_size": 2}, "desired_size"),
        ({"capacity_type": eks.CapacityType.CAPACITY_BLOCK}, "capacity_reservation_id"),
        ({"capacity_type": "spot"}, "capacity_type"),
        ({"capacity_reservation_id": RESERVATION}, "capacity_reservation_id"),
    ],
)
def test_bad_node_group_inputs_are_refused(kwargs, field):
    stack = cdk.Stack(cdk.App(), "Bad")
    cluster = imported_cluster(stack)
    with pytest.raises(FastloadConfigError) as err:
        GpuNodeGroup(stack, "G", cluster=cluster, instance_type="g6e.xlarge", **kwargs)
    assert err.value.field == field


def manifest_docs(manifest):
    """A KubernetesResource Manifest: JSON text, or an Fn::Join of text and tokens (made placeholders)."""
    if isinstance(manifest, dict):
        manifest = "".join(p if isinstance(p, str) else "TOKEN" for p in manifest["Fn::Join"][1])
    return json.loads(manifest)


def test_karpenter_nodes_get_a_role_an_ec2_access_entry_and_raid0_pools(template):
    entries = [
        r["Properties"]
        for r in resources(template, "AWS::EKS::AccessEntry").values()
        if r["Properties"].get("Type") == "EC2_LINUX"
    ]
    assert len(entries) == 1 and entries[0].get("AccessPolicies", []) == []
    docs = [
        d
        for r in resources(template, "Custom::AWSCDK-EKS-KubernetesResource").values()
        for d in manifest_docs(r["Properties"]["Manifest"])
    ]
    (node_class,) = [d for d in docs if d["kind"] == "EC2NodeClass"]
    assert node_class["spec"]["instanceStorePolicy"] == "RAID0"
    assert node_class["spec"]["role"] == "TOKEN"  # the role made here, resolved at deploy time
    pools = sorted(d["metadata"]["name"] for d in docs if d["kind"] == "NodePool")
    assert pools == ["fastload-gpu-g6e", "fastload-gpu-p5"]


def test_karpenter_nodes_refuse_before_adding_anything():
    stack = cdk.Stack(cdk.App(), "KarpenterRefused")
    cluster = imported_cluster(stack)
    with pytest.raises(FastloadConfigError) as err:
        KarpenterGpuNodes(stack, "Karpenter", cluster=cluster, instance_types=["p3.8xlarge"])
    assert err.value.field == "instance_type"
    assert stack.node.try_find_child("Karpenter") is None


def cluster_with_kubectl(stack):
    from aws_cdk import aws_iam as iam
    from aws_cdk.lambda_layer_kubectl_v35 import KubectlV35Layer

    reference = eks.Cluster.from_cluster_attributes(stack, "Reference", cluster_name="existing")
    provider = eks.KubectlProvider(
        stack,
        "Kubectl",
        cluster=reference,
        kubectl_layer=KubectlV35Layer(stack, "Layer"),
        role=iam.Role.from_role_arn(stack, "Admin", ADMIN, mutable=False),
    )
    return eks.Cluster.from_cluster_attributes(stack, "Existing", cluster_name="existing", kubectl_provider=provider)


TIME_SLICING = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n"


def test_device_plugin_values_deep_merge_onto_the_defaults():
    stack = cdk.Stack(cdk.App(), "PluginValues")
    overrides = {
        "config": {"map": {"default": TIME_SLICING}},
        "tolerations": [{"key": "dedicated", "operator": "Exists"}],  # lists replace, as in Helm
        "affinity": {"podAntiAffinity": {}},  # maps merge: nodeAffinity stays
    }
    plugin = NvidiaDevicePlugin(stack, "Plugin", cluster=cluster_with_kubectl(stack), values=overrides)
    (chart,) = [r["Properties"] for r in resources(Template.from_stack(stack), "Custom::AWSCDK-EKS-HelmChart").values()]
    values = json.loads(chart["Values"]) if isinstance(chart["Values"], str) else chart["Values"]
    assert values == plugin.values
    assert values["tolerations"] == [{"key": "dedicated", "operator": "Exists"}]
    assert values["config"] == overrides["config"]
    assert set(values["affinity"]) == {"nodeAffinity", "podAntiAffinity"}
    assert values["affinity"]["nodeAffinity"] == device_plugin_values()["affinity"]["nodeAffinity"]
    other = cdk.Stack(cdk.App(), "PluginRemoves")
    cluster = cluster_with_kubectl(other)
    assert (
        "tolerations" not in NvidiaDevicePlugin(other, "Plugin", cluster=cluster, values={"tolerations": None}).values
    )
    with pytest.raises(FastloadConfigError) as err:
        NvidiaDevicePlugin(other, "Bad", cluster=cluster, values=[("a", 1)])
    assert err.value.field == "values"
