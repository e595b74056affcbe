"""Every release the stack pins by default exists in its project's vendored release list."""

from __future__ import annotations

import re

import pytest

from fastload_constructs.core.cluster import karpenter_controller
from fastload_constructs.core.cluster.ami_family import default_ami_alias
from fastload_constructs.core.engines import ENGINES
from fastload_constructs.core.release_lists import release_list, release_lists
from fastload_constructs.core.serving import path_filter, standby, standby_primer
from fastload_constructs.infra import nvidia_device_plugin, scale_out_metrics


def test_every_list_names_its_source_and_the_day_it_was_read():
    for known in release_lists().values():
        assert known.source.startswith("https://"), known.project
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", known.read_on), known.project
        assert known.releases, known.project
        assert all(date <= known.read_on for _, date in known.releases), known.project


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_each_engine_s_default_release_is_a_published_release(engine):
    assert release_list(engine).holds(ENGINES[engine].default_release)


@pytest.mark.parametrize(
    ("project", "version"),
    [
        ("karpenter", karpenter_controller.KARPENTER_VERSION),
        ("keda", scale_out_metrics.KEDA_VERSION),
        ("nvidia-device-plugin", nvidia_device_plugin.CHART_VERSION),
        ("fma", standby.FMA_VERSION),
        ("amazon-eks-ami", default_ami_alias("al2023").split("@", 1)[1]),
        ("kubernetes", standby_primer.KUBECTL_VERSION),
    ],
)
def test_each_pinned_controller_and_ami_release_exists(project, version):
    assert release_list(project).holds(version), f"{project} {version}"


def test_the_path_filters_nginx_release_exists():
    assert release_list("nginx").holds(f"release-{path_filter.NGINX_VERSION}")


def test_a_release_is_listed_newer_or_unknown():
    vllm = release_list("vllm")
    assert vllm.known("v0.34.0") == "listed" and vllm.known("0.34.0") == "listed"
    assert vllm.known("99.0.0") == "newer than the list"
    assert vllm.known("0.33.7") == "not listed"
    ami = release_list("amazon-eks-ami")
    assert ami.known("v20260903") == "newer than the list"
    assert ami.known("v20260101") == "not listed"
