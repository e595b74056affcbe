"""Pure cluster settings: versions, kubectl layers, admins, add-ons."""

import importlib

import pytest

from fastload_constructs.core.cluster.settings import (
    CORE_ADDONS,
    EBS_CSI_ADDON,
    KUBECTL_LAYER_VERSIONS,
    addon_names,
    check_admin_role_arns,
    check_version,
    kubectl_layer_module,
)
from fastload_constructs.core.errors import FastloadConfigError


@pytest.mark.parametrize("version", KUBECTL_LAYER_VERSIONS)
def test_every_supported_version_has_an_installed_kubectl_layer(version):
    module, cls = kubectl_layer_module(version)
    assert module.endswith("v" + version.split(".")[1])
    assert callable(getattr(importlib.import_module(module), cls))


def test_versions_start_at_1_33():
    assert min(KUBECTL_LAYER_VERSIONS, key=lambda v: tuple(map(int, v.split(".")))) == "1.33"
    with pytest.raises(FastloadConfigError) as err:
        check_version("1.32")
    assert err.value.field == "version"


def test_addons_are_the_core_four_plus_ebs_csi_on_request():
    assert set(addon_names(ebs_csi=False)) == {"vpc-cni", "coredns", "kube-proxy", "eks-pod-identity-agent"}
    assert addon_names(ebs_csi=True) == (*CORE_ADDONS, EBS_CSI_ADDON)


def test_admin_roles_must_be_role_arns():
    arn = "arn:aws-cn:iam::123456789012:role/team/Admin"
    assert check_admin_role_arns([arn, arn]) == (arn,)
    with pytest.raises(FastloadConfigError) as err:
        check_admin_role_arns(["arn:aws:iam::123456789012:user/alice"])
    assert err.value.field == "admin_role_arns"
