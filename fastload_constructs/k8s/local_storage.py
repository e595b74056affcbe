"""Instance-store storage: the `local-nvme` StorageClass and its static provisioner.

Host layout under the RAID0 mount of the nodes' AMI family (`naming.INSTANCE_STORE_MOUNTS`: AL2023
nodeadm's /mnt/k8s-disks/0, Bottlerocket's /mnt/.ephemeral), all under `naming.node_cache_paths(family)`:

    <root>/vllm-cache/          compile_cache: the engines' cache roots (hostPath, server chart)
    <root>/models/              models: staged model files (hostPath, server chart)
    <root>/local-volume-data/   local_volume_data: backing dirs vol1..volN
    <root>/local-volumes/       local_volumes: bind mounts the provisioner discovers

The sig-storage local static provisioner only turns *mount points* into
PersistentVolumes; one RAID0 filesystem is shared by N bind-mounted
directories (its "sharing a disk filesystem" recipe). An init container makes
those bind mounts on the host (Bidirectional propagation) each time the pod
starts, so they come back after a reboot. The PVs share the array's capacity
and bandwidth: no isolation between them.

Both containers run privileged, as upstream's chart runs the provisioner; the checkov findings that follow
carry their reasons on the DaemonSet (`core.serving.checkov_skips`). The provisioner's one port serves its
metrics: it is probed there, and a NetworkPolicy admits that port only.
"""

from __future__ import annotations

import cdk8s
import cdk8s_plus_28 as kplus
import yaml
from cdk8s_plus_28 import k8s
from constructs import Construct

from fastload_constructs.core.cluster.ami_family import DEFAULT_AMI_FAMILY, AmiFamily, check_ami_family
from fastload_constructs.core.errors import whole_number_in
from fastload_constructs.core.naming import (
    GPU_POOL_TAINT_KEYS,
    INSTANCE_STORE_RAID0,
    LABEL_AMI_FAMILY,
    LABEL_INSTANCE_STORE,
    LOCAL_NVME_STORAGE_CLASS,
    MANAGED_BY,
    PART_OF,
    PROVISIONER_NAME,
    NodeCachePaths,
    node_cache_paths,
)
from fastload_constructs.core.serving.checkov_skips import Workload, skip_annotations, workload_skips
from fastload_constructs.k8s.network_policies import ingress_policy

# Pinned: kubernetes-sigs/sig-storage-local-static-provisioner v2.9.0 (helm chart appVersion).
PROVISIONER_IMAGE = "registry.k8s.io/sig-storage/local-volume-provisioner:v2.9.0"
CONFIG_MOUNT = "/etc/provisioner/config"
# The provisioner serves Prometheus metrics over HTTP on its one port: `--listen-address` ":8080",
# `--metrics-path` "/metrics" (v2.9.0 cmd/local-volume-provisioner/main.go: http.Handle(optMetricsPath,
# promhttp.Handler()); http.ListenAndServe(optListenAddress, nil)).
METRICS_PORT = 8080
METRICS_PATH = "/metrics"
# Upstream's own liveness probe (v2.9.0 helm/provisioner/values.yaml livenessProbe): a TCP connect to the
# metrics port, so a busy provisioner is never restarted for a slow scrape.
LIVENESS_DELAY_S, LIVENESS_PERIOD_S, LIVENESS_TIMEOUT_S, LIVENESS_FAILURES = 10, 60, 5, 3


def storage_class_map(volumes_dir: str) -> dict[str, dict[str, str]]:
    """The provisioner's `storageClassMap`: discover Filesystem PVs under `volumes_dir`."""
    return {
        LOCAL_NVME_STORAGE_CLASS: {
            "hostDir": volumes_dir,
            "mountDir": volumes_dir,
            "volumeMode": "Filesystem",
            "accessMode": "ReadWriteOnce",
            "namePattern": "*",
        }
    }


def bind_mount_script(volumes: int, paths: NodeCachePaths) -> str:
    """Idempotent shell: vol1..volN under the data root, each bind-mounted into the discovery dir."""
    data, discovered = paths.local_volume_data, paths.local_volumes
    return (
        "set -eu\n"
        f"for i in $(seq 1 {volumes}); do\n"
        f'  mkdir -p "{data}/vol$i" "{discovered}/vol$i"\n'
        f'  mountpoint -q "{discovered}/vol$i" || '
        f'mount --bind "{data}/vol$i" "{discovered}/vol$i"\n'
        "done\n"
    )


class LocalNvmeStorage(cdk8s.Chart):
    """`local-nvme` StorageClass plus the static provisioner on RAID0 GPU nodes.

    `volumes_per_node` local PVs are offered on every node of `ami_family` (default: bottlerocket) labelled
    `fastload.io/instance-store=raid0`; each PV is a directory on the array (at the family's mount). It
    tolerates the taints of the GPU pools, the standby pool's included.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        namespace: str = "kube-system",
        volumes_per_node: int = 4,
        image: str = PROVISIONER_IMAGE,
        ami_family: AmiFamily = DEFAULT_AMI_FAMILY,
    ) -> None:
        whole_number_in(volumes_per_node, "volumes_per_node", 1, 64)
        family = check_ami_family(ami_family)
        paths = node_cache_paths(family)
        super().__init__(
            scope,
            id,
            namespace=namespace,
            labels={
                "app.kubernetes.io/name": PROVISIONER_NAME,
                "app.kubernetes.io/instance": id,
                "app.kubernetes.io/component": "storage",
                "app.kubernetes.io/part-of": PART_OF,
                "app.kubernetes.io/managed-by": MANAGED_BY,
            },
        )
        # cdk8s-plus has no StorageClass construct.
        self.storage_class = cdk8s.ApiObject(
            self,
            "StorageClass",
            api_version="storage.k8s.io/v1",
            kind="StorageClass",
            metadata=cdk8s.ApiObjectMetadata(name=LOCAL_NVME_STORAGE_CLASS),
        )
        self.storage_class.add_json_patch(
            cdk8s.JsonPatch.add("/provisioner", "kubernetes.io/no-provisioner"),
            cdk8s.JsonPatch.add("/volumeBindingMode", "WaitForFirstConsumer"),
            # Released PVs are wiped and re-offered by the provisioner.
            cdk8s.JsonPatch.add("/reclaimPolicy", "Delete"),
        )

        self.config = kplus.ConfigMap(
            self,
            "Config",
            data={
                "storageClassMap": yaml.safe_dump(storage_class_map(paths.local_volumes), sort_keys=False),
            },
        )
        self.service_account = kplus.ServiceAccount(self, "ServiceAccount", automount_token=True)
        role = kplus.ClusterRole(self, "ClusterRole")
        role.allow(["get", "list", "watch", "create", "delete"], kplus.ApiResource.PERSISTENT_VOLUMES)
        role.allow(["get", "list", "watch"], kplus.ApiResource.STORAGE_CLASSES)
        role.allow(["watch", "create", "update", "patch"], kplus.ApiResource.EVENTS)
        role.allow(
            ["create", "update", "patch"], kplus.ApiResource.custom(api_group="events.k8s.io", resource_type="events")
        )
        role.allow(["get", "update"], kplus.ApiResource.NODES)
        binding = kplus.ClusterRoleBinding(self, "ClusterRoleBinding", role=role)
        binding.add_subjects(self.service_account)
        for cluster_scoped in (self.storage_class, role, binding):
            cdk8s.ApiObject.of(cluster_scoped).add_json_patch(cdk8s.JsonPatch.remove("/metadata/namespace"))

        cache_root = kplus.Volume.from_host_path(
            self,
            "CacheRootVolume",
            "cache-root",
            path=paths.root,
            type=kplus.HostPathVolumeType.DIRECTORY_OR_CREATE,
        )
        discovery = kplus.Volume.from_host_path(
            self,
            "DiscoveryVolume",
            "local-volumes",
            path=paths.local_volumes,
            type=kplus.HostPathVolumeType.DIRECTORY_OR_CREATE,
        )
        config_volume = kplus.Volume.from_config_map(self, "ConfigVolume", self.config, name="provisioner-config")
        small = kplus.ContainerResources(
            cpu=kplus.CpuResources(request=kplus.Cpu.millis(10), limit=kplus.Cpu.millis(200)),
            memory=kplus.MemoryResources(request=cdk8s.Size.mebibytes(32), limit=cdk8s.Size.mebibytes(128)),
        )
        privileged = kplus.ContainerSecurityContextProps(
            privileged=True,
            ensure_non_root=False,
            read_only_root_filesystem=False,
            allow_privilege_escalation=True,
        )
        self.daemon_set = kplus.DaemonSet(
            self,
            "DaemonSet",
            metadata=cdk8s.ApiObjectMetadata(
                annotations=skip_annotations(workload_skips(Workload.STORAGE_PROVISIONER, [image]))
            ),
            service_account=self.service_account,
            automount_service_account_token=True,
            security_context=kplus.PodSecurityContextProps(ensure_non_root=False),
            init_containers=[
                kplus.ContainerProps(
                    name="bind-mounts",
                    image=image,
                    command=["/bin/bash", "-c", bind_mount_script(volumes_per_node, paths)],
                    security_context=privileged,
                    image_pull_policy=kplus.ImagePullPolicy.IF_NOT_PRESENT,
                    resources=small,
                    volume_mounts=[
                        kplus.VolumeMount(
                            path=paths.root, volume=cache_root, propagation=kplus.MountPropagation.BIDIRECTIONAL
                        )
                    ],
                )
            ],
            containers=[
                kplus.ContainerProps(
                    name="provisioner",
                    image=image,
                    security_context=privileged,
                    env_variables={
                        "MY_NODE_NAME": kplus.EnvValue.from_field_ref(kplus.EnvFieldPaths.NODE_NAME),
                        "MY_NAMESPACE": kplus.EnvValue.from_field_ref(kplus.EnvFieldPaths.POD_NAMESPACE),
                    },
                    ports=[kplus.ContainerPort(number=METRICS_PORT, name="metrics")],
                    liveness=kplus.Probe.from_tcp_socket(
                        port=METRICS_PORT,
                        initial_delay_seconds=cdk8s.Duration.seconds(LIVENESS_DELAY_S),
                        period_seconds=cdk8s.Duration.seconds(LIVENESS_PERIOD_S),
                        timeout_seconds=cdk8s.Duration.seconds(LIVENESS_TIMEOUT_S),
                        failure_threshold=LIVENESS_FAILURES,
                    ),
                    # Ready once it serves its metrics (Kubernetes' default period and failures).
                    readiness=kplus.Probe.from_http_get(
                        METRICS_PATH,
                        port=METRICS_PORT,
                        period_seconds=cdk8s.Duration.seconds(10),
                        timeout_seconds=cdk8s.Duration.seconds(LIVENESS_TIMEOUT_S),
                        failure_threshold=3,
                    ),
                    volume_mounts=[
                        kplus.VolumeMount(path=CONFIG_MOUNT, volume=config_volume, read_only=True),
                        kplus.VolumeMount(
                            path=paths.local_volumes,
                            volume=discovery,
                            propagation=kplus.MountPropagation.HOST_TO_CONTAINER,
                        ),
                    ],
                    image_pull_policy=kplus.ImagePullPolicy.IF_NOT_PRESENT,
                    resources=small,
                )
            ],
        )
        self.daemon_set.scheduling.attract(
            kplus.Node.labeled(
                kplus.NodeLabelQuery.is_(LABEL_INSTANCE_STORE, INSTANCE_STORE_RAID0),
                kplus.NodeLabelQuery.is_(LABEL_AMI_FAMILY, family),
            )
        )
        # Every GPU pool's taints (the standby pool's too): the claims on its nodes need the provisioner there.
        self.daemon_set.scheduling.tolerate(
            kplus.Node.tainted(*(kplus.NodeTaintQuery.exists(key) for key in GPU_POOL_TAINT_KEYS))
        )
        self.network_policy = self._network_policy()

    def _network_policy(self) -> k8s.KubeNetworkPolicy:
        """Ingress to the metrics port only, from anywhere (whatever scrapes it); egress open (the API server)."""
        metrics = k8s.NetworkPolicyPort(protocol="TCP", port=k8s.IntOrString.from_number(METRICS_PORT))
        return ingress_policy(
            self,
            "NetworkPolicy",
            pods=self.daemon_set.match_labels,
            rules=[k8s.NetworkPolicyIngressRule(ports=[metrics])],
        )
