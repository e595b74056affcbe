"""PersistentVolumeClaims against the StorageClasses that will exist: a claim on a missing class stays Pending.

A claim naming a class binds only once that class exists; a claim naming none is given the
cluster's default class by the DefaultStorageClass admission plugin, and with no default it
stays Pending for ever (Kubernetes docs, "Persistent Volumes", Class and "Default StorageClass":
https://kubernetes.io/docs/concepts/storage/persistent-volumes/#class-1). `storageClassName: ""`
asks for a pre-bound volume and needs no class.

Classes come from the stack's StorageClass manifests (default when annotated
`storageclass.kubernetes.io/is-default-class: "true"`), from what EKS makes itself, and from the
aws-ebs-csi-driver add-on's `defaultStorageClass.enabled` configuration value (add-on v1.31.0
and later), which makes the default class `ebs-csi-default-sc`
(https://github.com/kubernetes-sigs/aws-ebs-csi-driver/blob/master/charts/aws-ebs-csi-driver/templates/ebs-csi-default-sc.yaml).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
EBS_CSI_ADDON = "aws-ebs-csi-driver"
EBS_CSI_DEFAULT_CLASS = "ebs-csi-default-sc"
# EKS creates StorageClass gp2 on every new cluster; from Kubernetes 1.30 on it is no longer the default
# (Amazon EKS User Guide, "Kubernetes 1.30": https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions-standard.html).
EKS_CLASSES = frozenset({"gp2"})


@dataclass(frozen=True)
class Claim:
    where: str
    storage_class: str | None  # None: the claim names no class


@dataclass(frozen=True)
class Classes:
    names: frozenset[str]
    defaults: frozenset[str]


def classes(manifests: Iterable[tuple[str, Mapping[str, Any]]], addons: Iterable[Mapping[str, Any]]) -> Classes:
    names, defaults = set(EKS_CLASSES), set()
    for _, obj in manifests:
        if obj.get("kind") != "StorageClass":
            continue
        names.add(obj["metadata"]["name"])
        if obj["metadata"].get("annotations", {}).get(DEFAULT_CLASS_ANNOTATION) == "true":
            defaults.add(obj["metadata"]["name"])
    for props in addons:
        raw = props.get("ConfigurationValues") or "{}"
        config = json.loads(raw) if isinstance(raw, str) else raw
        if props.get("AddonName") == EBS_CSI_ADDON and config.get("defaultStorageClass", {}).get("enabled") is True:
            names.add(EBS_CSI_DEFAULT_CLASS)
            defaults.add(EBS_CSI_DEFAULT_CLASS)
    return Classes(frozenset(names), frozenset(defaults))


def manifest_claims(manifests: Iterable[tuple[str, Mapping[str, Any]]]) -> list[Claim]:
    """Claims the stack applies itself, and those of StatefulSets' volumeClaimTemplates."""
    found = []
    for lid, obj in manifests:
        where = f"{lid} {obj.get('kind')}/{obj['metadata']['name']}"
        if obj.get("kind") == "PersistentVolumeClaim":
            found.append(Claim(where, obj.get("spec", {}).get("storageClassName")))
        for template in obj.get("spec", {}).get("volumeClaimTemplates", []) if obj.get("kind") == "StatefulSet" else []:
            found.append(
                Claim(f"{where} claim {template['metadata']['name']}", template["spec"].get("storageClassName"))
            )
    return found


def problems(claims: Iterable[Claim], available: Classes) -> list[str]:
    found = []
    for claim in claims:
        if claim.storage_class is None and not available.defaults:
            found.append(
                f"{claim.where}: the claim names no StorageClass and the cluster has no default one "
                f"(EKS >= 1.30 marks none; classes here: {sorted(available.names)}): it stays Pending"
            )
        elif claim.storage_class and claim.storage_class not in available.names:
            found.append(f"{claim.where}: StorageClass {claim.storage_class!r} does not exist: the claim stays Pending")
    if len(available.defaults) > 1:
        found.append(f"more than one default StorageClass: {sorted(available.defaults)} (the newest one wins)")
    return found
