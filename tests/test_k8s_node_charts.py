"""cdk8s charts: local-nvme storage and Karpenter GPU node pools."""

import re
import subprocess

import cdk8s
import jsonschema
import kubernetes_validate
import pytest
import yaml

from fastload_constructs.core.cluster.ami_family import DEFAULT_AMI_FAMILY, default_ami_alias
from fastload_constructs.core.cluster.gpu_nodes import gpu_node_spec
from fastload_constructs.core.cluster.karpenter import NodePoolOptions
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.naming import (
    GPU_TAINT_KEY,
    INSTANCE_STORE_MOUNTS,
    INSTANCE_STORE_RAID0,
    LABEL_AMI_FAMILY,
    LABEL_INSTANCE_STORE,
    LOCAL_NVME_STORAGE_CLASS,
    node_cache_paths,
)
from fastload_constructs.k8s.karpenter import KarpenterGpuNodePools
from fastload_constructs.k8s.local_storage import LocalNvmeStorage, bind_mount_script
from stacks.config import SUPPORTED_KUBERNETES_VERSIONS
from tests.crd_schemas import crd_schema

RECOMMENDED = {
    "app.kubernetes.io/name",
    "app.kubernetes.io/instance",
    "app.kubernetes.io/component",
    "app.kubernetes.io/part-of",
    "app.kubernetes.io/managed-by",
}


PATHS = node_cache_paths("bottlerocket")  # the default family's: under Bottlerocket's /mnt/.ephemeral


@pytest.fixture(scope="module")
def storage_docs():
    return cdk8s.Testing.synth(LocalNvmeStorage(cdk8s.Testing.app(), "local-nvme", volumes_per_node=3))


def by_kind(docs, kind):
    return [d for d in docs if d["kind"] == kind]


@pytest.mark.parametrize("version", SUPPORTED_KUBERNETES_VERSIONS)
def test_local_storage_manifests_validate(storage_docs, version):
    for doc in storage_docs:
        kubernetes_validate.validate(doc, version, strict=True)
        assert set(doc["metadata"]["labels"]) >= RECOMMENDED


def test_storage_class_is_static_and_waits_for_the_pod(storage_docs):
    (sc,) = by_kind(storage_docs, "StorageClass")
    assert sc["metadata"]["name"] == LOCAL_NVME_STORAGE_CLASS
    assert sc["provisioner"] == "kubernetes.io/no-provisioner"
    assert sc["volumeBindingMode"] == "WaitForFirstConsumer"
    assert "namespace" not in sc["metadata"]


def test_provisioner_discovers_the_raid0_volume_dir(storage_docs):
    (cm,) = by_kind(storage_docs, "ConfigMap")
    classes = yaml.safe_load(cm["data"]["storageClassMap"])
    assert classes[LOCAL_NVME_STORAGE_CLASS]["hostDir"] == PATHS.local_volumes
    assert PATHS.local_volumes.startswith(INSTANCE_STORE_MOUNTS["bottlerocket"] + "/")
    (ds,) = by_kind(storage_docs, "DaemonSet")
    pod = ds["spec"]["template"]["spec"]
    host_paths = {v["name"]: v["hostPath"]["path"] for v in pod["volumes"] if "hostPath" in v}
    (provisioner,) = pod["containers"]
    mounts = {m["mountPath"]: m for m in provisioner["volumeMounts"]}
    discovery = mounts[PATHS.local_volumes]
    assert host_paths[discovery["name"]] == PATHS.local_volumes
    assert discovery["mountPropagation"] == "HostToContainer"
    assert any(v.get("configMap", {}).get("name") == cm["metadata"]["name"] for v in pod["volumes"])
    (init,) = pod["initContainers"]
    (root_mount,) = init["volumeMounts"]
    assert root_mount["mountPropagation"] == "Bidirectional"
    assert host_paths[root_mount["name"]] == PATHS.root


def test_an_al2023_provisioner_uses_nodeadms_mount():
    docs = cdk8s.Testing.synth(LocalNvmeStorage(cdk8s.Testing.app(), "local-nvme", ami_family="al2023"))
    (cm,) = by_kind(docs, "ConfigMap")
    al2023 = node_cache_paths("al2023")
    assert yaml.safe_load(cm["data"]["storageClassMap"])[LOCAL_NVME_STORAGE_CLASS]["hostDir"] == al2023.local_volumes
    assert al2023.root == "/mnt/k8s-disks/0/fastload"


def test_provisioner_runs_only_on_raid0_gpu_nodes_of_its_family_standbys_included(storage_docs):
    (ds,) = by_kind(storage_docs, "DaemonSet")
    pod = ds["spec"]["template"]["spec"]
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [
        {
            "matchExpressions": [
                {"key": LABEL_INSTANCE_STORE, "operator": "In", "values": [INSTANCE_STORE_RAID0]},
                {"key": LABEL_AMI_FAMILY, "operator": "In", "values": ["bottlerocket"]},
            ]
        }
    ]
    assert any(t["key"] == GPU_TAINT_KEY and t["operator"] == "Exists" for t in pod["tolerations"])
    assert any(t["key"] == "fastload.io/standby" and t["operator"] == "Exists" for t in pod["tolerations"])


def test_bind_mount_script_is_valid_shell_over_the_documented_dirs(tmp_path):
    script = bind_mount_script(3, PATHS)
    subprocess.run(["bash", "-n", "-c", script], check=True)
    # Run it against a scratch root with mount/mountpoint stubbed to record calls.
    root = tmp_path / "root"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mountpoint").write_text("#!/bin/sh\nexit 1\n")
    (bin_dir / "mount").write_text(f'#!/bin/sh\necho "$@" >> {tmp_path}/mounts\n')
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    rooted = script.replace(PATHS.root, f"{root}{PATHS.root}")
    subprocess.run(["bash", "-c", rooted], check=True, env={"PATH": f"{bin_dir}:/usr/bin:/bin"})
    calls = (tmp_path / "mounts").read_text().splitlines()
    assert calls == [
        f"--bind {root}{PATHS.local_volume_data}/vol{i} {root}{PATHS.local_volumes}/vol{i}" for i in (1, 2, 3)
    ]


def test_bad_volume_count_is_refused():
    with pytest.raises(FastloadConfigError) as err:
        LocalNvmeStorage(cdk8s.Testing.app(), "x", volumes_per_node=0)
    assert err.value.field == "volumes_per_node"


# The vendored Karpenter v1.14.1 CRDs (tests/fixtures/SOURCES.md), strict about unknown fields.
NODEPOOL_V1 = crd_schema("karpenter.sh/v1", "NodePool")
EC2NODECLASS_V1 = crd_schema("karpenter.k8s.aws/v1", "EC2NodeClass")


@pytest.fixture(scope="module")
def karpenter_docs():
    chart = KarpenterGpuNodePools(
        cdk8s.Testing.app(),
        "fastload-gpu",
        cluster_name="inference",
        node_role="KarpenterNodeRole",
        instance_types=["g6e", "p5.48xlarge"],
        options=NodePoolOptions(capacity_types=("on-demand", "spot"), gpu_limit=32),
    )
    return cdk8s.Testing.synth(chart)


def test_karpenter_manifests_match_the_v1_crds(karpenter_docs):
    assert sorted(d["kind"] for d in karpenter_docs) == ["EC2NodeClass", "NodePool", "NodePool"]
    for doc in karpenter_docs:
        jsonschema.validate(doc, NODEPOOL_V1 if doc["kind"] == "NodePool" else EC2NODECLASS_V1)
        kubernetes_validate.validate(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": doc["metadata"]}, "1.35", strict=True
        )


@pytest.mark.parametrize(
    "path,bad",
    [
        (("spec", "instanceStorePolicy"), "raid0"),
        (("spec", "amiSelectorTerms"), []),
        (("spec", "blockDeviceMappings", 0, "ebs", "volumeSize"), "200GB"),
    ],
)
def test_the_structure_check_rejects_a_broken_node_class(karpenter_docs, path, bad):
    import copy

    (nc,) = by_kind(copy.deepcopy(karpenter_docs), "EC2NodeClass")
    target = nc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = bad
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(nc, EC2NODECLASS_V1)


def test_node_class_asks_for_raid0_on_bottlerocket_by_default(karpenter_docs):
    (nc,) = by_kind(karpenter_docs, "EC2NodeClass")
    # Karpenter writes Bottlerocket's `apiclient ephemeral-storage init` and `bind` bootstrap command for it.
    assert nc["spec"]["instanceStorePolicy"] == "RAID0"
    # A pinned release by default: `latest` would turn every AMI release into drift (all nodes replaced).
    assert nc["spec"]["amiSelectorTerms"] == [{"alias": default_ami_alias(DEFAULT_AMI_FAMILY)}]
    assert re.fullmatch(r"bottlerocket@v1\.\d+\.\d+", default_ami_alias(DEFAULT_AMI_FAMILY))
    assert nc["spec"]["subnetSelectorTerms"] == [{"tags": {"karpenter.sh/discovery": "inference"}}]
    # The OS volume and the data volume (containerd, kubelet), the one pods' ephemeral storage is sized from.
    devices = {d["deviceName"]: d for d in nc["spec"]["blockDeviceMappings"]}
    assert devices["/dev/xvda"]["ebs"]["volumeSize"] == "4Gi" and "rootVolume" not in devices["/dev/xvda"]
    assert devices["/dev/xvdb"]["rootVolume"] is True and devices["/dev/xvdb"]["ebs"]["encrypted"] is True
    # No settings.kubernetes table: Karpenter owns labels, taints and the cluster coordinates.
    assert nc["spec"]["userData"] == "[settings.host-containers.admin]\nenabled = false\n"


def test_node_class_asks_for_raid0_and_parallel_pulls_on_al2023():
    docs = cdk8s.Testing.synth(
        KarpenterGpuNodePools(
            cdk8s.Testing.app(),
            "k",
            cluster_name="c",
            node_role="r",
            instance_types=["g6e"],
            options=NodePoolOptions(ami_family="al2023"),
        )
    )
    (nc,) = by_kind(docs, "EC2NodeClass")
    assert nc["spec"]["instanceStorePolicy"] == "RAID0"
    assert re.fullmatch(r"al2023@v20\d{6}", nc["spec"]["amiSelectorTerms"][0]["alias"])
    assert "FastImagePull: true" in nc["spec"]["userData"]
    (pool,) = by_kind(docs, "NodePool")
    assert pool["spec"]["template"]["metadata"]["labels"]["fastload.io/ami-family"] == "al2023"
    for doc in docs:
        jsonschema.validate(doc, NODEPOOL_V1 if doc["kind"] == "NodePool" else EC2NODECLASS_V1)


def test_the_chart_renders_exactly_the_typed_specs(karpenter_docs):
    chart = KarpenterGpuNodePools(
        cdk8s.Testing.app(),
        "fastload-gpu",
        cluster_name="inference",
        node_role="KarpenterNodeRole",
        instance_types=["g6e", "p5.48xlarge"],
        options=NodePoolOptions(capacity_types=("on-demand", "spot"), gpu_limit=32),
    )
    (nc,) = by_kind(karpenter_docs, "EC2NodeClass")
    assert nc["spec"] == chart.node_class_spec.as_dict()
    pools = {p["metadata"]["name"]: p["spec"] for p in by_kind(karpenter_docs, "NodePool")}
    assert pools == {f"fastload-gpu-{f}": s.as_dict() for f, s in chart.node_pool_specs.items()}


def test_node_pools_are_restricted_to_the_chosen_families_with_managed_group_labels(karpenter_docs):
    (nc,) = by_kind(karpenter_docs, "EC2NodeClass")
    pools = {p["metadata"]["name"]: p["spec"] for p in by_kind(karpenter_docs, "NodePool")}
    assert set(pools) == {"fastload-gpu-g6e", "fastload-gpu-p5"}
    for name, spec in pools.items():
        reqs = {r["key"]: r["values"] for r in spec["template"]["spec"]["requirements"]}
        family = reqs["karpenter.k8s.aws/instance-family"]
        assert family == [name.rsplit("-", 1)[1]]
        assert all(t.startswith(family[0] + ".") for t in reqs["node.kubernetes.io/instance-type"])
        assert reqs["karpenter.sh/capacity-type"] == ["on-demand", "spot"]
        assert (
            spec["template"]["metadata"]["labels"] == gpu_node_spec(reqs["node.kubernetes.io/instance-type"][0]).labels
        )
        assert spec["template"]["spec"]["taints"] == [{"key": GPU_TAINT_KEY, "value": "true", "effect": "NoSchedule"}]
        assert spec["template"]["spec"]["nodeClassRef"]["name"] == nc["metadata"]["name"]
        assert spec["limits"] == {"nvidia.com/gpu": 32}
    assert pools["fastload-gpu-p5"]["template"]["spec"]["requirements"][1]["values"] == ["p5.48xlarge"]
    assert len(pools["fastload-gpu-g6e"]["template"]["spec"]["requirements"][1]["values"]) > 1


def test_karpenter_refuses_raid0_without_instance_store_unless_opted_out():
    with pytest.raises(FastloadConfigError) as err:
        KarpenterGpuNodePools(cdk8s.Testing.app(), "k", cluster_name="c", node_role="r", instance_types=["p3"])
    assert err.value.field == "instance_type"
    docs = cdk8s.Testing.synth(
        KarpenterGpuNodePools(
            cdk8s.Testing.app(),
            "k",
            cluster_name="c",
            node_role="r",
            instance_types=["p3"],
            options=NodePoolOptions(instance_store=False),
        )
    )
    (nc,) = by_kind(docs, "EC2NodeClass")
    assert "instanceStorePolicy" not in nc["spec"]
    (pool,) = by_kind(docs, "NodePool")
    assert pool["spec"]["template"]["metadata"]["labels"][LABEL_INSTANCE_STORE] == "none"


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"instance_types": ["x9"]}, "instance_types"),
        ({"capacity_types": ["capacity-block"]}, "capacity_types"),
        ({"ami_alias": "al2023@latest"}, "ami_alias"),
        ({"ami_alias": "bottlerocket@v1.58.0", "kubernetes_version": "1.36"}, "ami_alias"),
        ({"ami_alias": "bottlerocket@v1.99.0"}, "ami_alias"),
        ({"ami_family": "ubuntu"}, "ami_family"),
        ({"ami_family": "al2023", "ami_alias": "al2023@v20990101"}, "ami_alias"),
        ({"ami_family": "bottlerocket", "fast_image_pull": True}, "fast_image_pull"),
        ({"kubernetes_version": "1.29"}, "kubernetes_version"),
        ({"gpu_limit": 0}, "gpu_limit"),
        ({"capacity_types": "spot"}, "capacity_types"),
        ({"root_volume_gib": 5}, "root_volume_gib"),
        ({"instance_store": "yes"}, "instance_store"),
    ],
)
def test_bad_karpenter_inputs_are_refused(kwargs, field):
    instance_types = kwargs.pop("instance_types", ["g6e"])
    with pytest.raises(FastloadConfigError) as err:
        KarpenterGpuNodePools(
            cdk8s.Testing.app(),
            "k",
            cluster_name="c",
            node_role="r",
            instance_types=instance_types,
            options=NodePoolOptions(**kwargs),
        )
    assert err.value.field == field
