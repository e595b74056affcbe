"""Every Bottlerocket setting the library emits stays inside Bottlerocket's settings model at the pinned release.

The model subset is vendored with its sources (tests/fixtures/bottlerocket-1.64.0/settings-model.json). Each
emitted TOML document is parsed back (tomllib) and every leaf is checked against it: the key must be in the
model, the value of its type and among its allowed values, the apiclient commands ones Bottlerocket runs.
Karpenter owns `settings.kubernetes` on its nodes (and EKS on node groups), so none is emitted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from fastload_constructs.core.cluster import bottlerocket
from fastload_constructs.core.cluster.bottlerocket_releases import (
    DEFAULT_BOTTLEROCKET_VERSION,
    RELEASES,
    bottlerocket_release,
)
from fastload_constructs.core.cluster.image_cache import ImageCache
from fastload_constructs.core.cluster.karpenter import NodePoolOptions, node_class_for, plan_node_pools
from fastload_constructs.core.cluster.settings import SUPPORTED_KUBERNETES_VERSIONS
from fastload_constructs.core.errors import FastloadConfigError
from tests.toml_read import tomllib

FIXTURE = Path(__file__).parent / "fixtures" / f"bottlerocket-{DEFAULT_BOTTLEROCKET_VERSION}" / "settings-model.json"
MODEL = json.loads(FIXTURE.read_text())
TYPES = {"boolean": bool, "string": str}


def _leaves(table: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for key, value in table.items():
        path = f"{prefix}.{key}" if prefix else key
        out += _leaves(value, path) if isinstance(value, dict) else [(path, value)]
    return out


def _model_key(path: str) -> tuple[str | None, str | None]:
    """The model's key for an emitted path (a named table's name becomes `<name>`), and that name."""
    for key in MODEL["settings"]:
        if "<name>" not in key:
            if key == path:
                return key, None
            continue
        pattern = re.escape(key).replace(re.escape("<name>"), "([^.]+)")
        match = re.fullmatch(pattern, path)
        if match:
            return key, match.group(1)
    return None, None


def _command_problems(path: str, commands: Any, spec: dict[str, Any]) -> list[str]:
    problems = []
    if not (isinstance(commands, list) and all(isinstance(c, list) and c for c in commands)):
        return [f"{path}: {commands!r} is not {spec['type']}"]
    allowed = MODEL["apiclient"]
    for command in commands:
        if command[0] != spec["first_element"]:
            problems.append(f"{path}: {command!r} does not start with {spec['first_element']}")
        if command[:3] not in allowed["subcommands"]["allowed"]:
            problems.append(f"{path}: {command!r} is not an apiclient command the model lists")
        if "--dirs" in command:
            dirs = command[command.index("--dirs") + 1 :]
            bad = [d for d in dirs if d not in allowed["ephemeral-storage bind --dirs"]["allowed"]]
            if bad:
                problems.append(f"{path}: ephemeral-storage bind refuses {bad} (allowed_bind_dirs)")
    return problems


def model_problems(toml_text: str) -> list[str]:
    """Every emitted setting outside the vendored model, one line each (empty: all inside)."""
    document = tomllib.loads(toml_text)
    problems = [f"{key}: top-level table outside settings" for key in document if key != "settings"]
    for path, value in _leaves(document.get("settings", {}), "settings"):
        key, name = _model_key(path)
        if key is None:
            problems.append(f"{path}: not a key of Bottlerocket's settings model")
            continue
        spec = MODEL["settings"][key]
        table = MODEL["settings"].get(key.rsplit(".", 1)[0], {})
        if name is not None and "name_pattern" in table and not re.fullmatch(table["name_pattern"], name):
            problems.append(f"{path}: name {name!r} is not {table['name_note']}")
        if spec["type"] == "array<array<string>>":
            problems += _command_problems(path, value, spec)
        elif not isinstance(value, TYPES[spec["type"]]):
            problems.append(f"{path}: {value!r} is not {spec['type']}")
        elif "allowed" in spec and value not in spec["allowed"]:
            problems.append(f"{path}: {value!r} is not one of {spec['allowed']}")
    return problems


def _node_class_user_data(**options: Any) -> str:
    opts = NodePoolOptions(**options)
    pools = plan_node_pools(["g6e.2xlarge"], opts)
    spec = node_class_for(opts, pools, cluster_name="c", node_role="r")
    assert spec.user_data is not None
    return spec.user_data


SNAPSHOT = ImageCache("snap-0123456789abcdef0")
EMITTED = {
    "karpenter node, RAID0 by Karpenter": _node_class_user_data(),
    "karpenter node, image snapshot": _node_class_user_data(image_cache=SNAPSHOT),
    "karpenter node, no instance store": _node_class_user_data(image_cache=SNAPSHOT, instance_store=False),
    "node group, RAID0": bottlerocket.user_data(
        bottlerocket.gpu_node_settings(raid0_command=True, keep_containerd=False)
    ),
    "node group, image snapshot": bottlerocket.user_data(
        bottlerocket.gpu_node_settings(raid0_command=True, keep_containerd=True)
    ),
    "snapshot builder": bottlerocket.user_data(bottlerocket.builder_settings()),
}


def test_the_fixture_names_its_release_and_sources():
    assert MODEL["release"] == DEFAULT_BOTTLEROCKET_VERSION
    for spec in MODEL["settings"].values():
        assert any(str(v).startswith("https://github.com/bottlerocket-os/") for v in spec.values()), spec


@pytest.mark.parametrize("name", sorted(EMITTED))
def test_every_emitted_setting_is_inside_the_settings_model(name):
    problems = model_problems(EMITTED[name])
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", sorted(EMITTED))
def test_nothing_karpenter_or_eks_owns_is_emitted(name):
    assert "kubernetes" not in tomllib.loads(EMITTED[name])["settings"]


def test_the_toml_reads_back_as_the_typed_settings():
    settings = bottlerocket.gpu_node_settings(raid0_command=True, keep_containerd=True)
    assert tomllib.loads(bottlerocket.user_data(settings)) == settings.as_settings()


@pytest.mark.parametrize(
    "bad,problem",
    [
        ("[settings.host-containers.admin]\nenable = false\n", "not a key"),
        ('[settings.host-containers.admin]\nenabled = "no"\n', "is not boolean"),
        ("[settings.host-containers.my_admin]\nenabled = false\n", "is not Identifier"),
        ('[settings.bootstrap-commands.x]\ncommands = [["bash", "-c", "id"]]\nmode = "always"\n', "apiclient"),
        ('[settings.bootstrap-commands.x]\nmode = "sometimes"\n', "not one of"),
        (
            '[settings.bootstrap-commands.x]\ncommands = [["apiclient", "ephemeral-storage", "bind", "--dirs", '
            '"/mnt/k8s-disks"]]\n',
            "refuses",
        ),
        ('[settings.kubernetes]\ncluster-name = "c"\n', "not a key"),
    ],
)
def test_the_model_check_fails_on_what_bottlerocket_would_refuse(bad, problem):
    problems = model_problems(bad)
    assert problems and problem in problems[0], problems


def test_the_pinned_release_serves_every_supported_kubernetes_version():
    for version in SUPPORTED_KUBERNETES_VERSIONS:
        assert bottlerocket_release(f"v{DEFAULT_BOTTLEROCKET_VERSION}", version) == DEFAULT_BOTTLEROCKET_VERSION
    for release in RELEASES.values():
        assert release.source.startswith("https://github.com/bottlerocket-os/"), release


@pytest.mark.parametrize(
    "version,kubernetes,accepted",
    [
        ("1.58.0", "1.36", "aws-k8s-1.36-nvidia"),  # 1.36 variants arrive in 1.61.0
        ("v1.64.0", "1.30", "aws-k8s-1.30-nvidia"),  # removed in 1.64.0
        ("1.99.0", "1.35", "vendored table"),
        ("latest", "1.35", "such as"),
    ],
)
def test_a_release_that_cannot_serve_the_cluster_is_one_line_naming_the_field(version, kubernetes, accepted):
    with pytest.raises(FastloadConfigError) as err:
        bottlerocket_release(version, kubernetes, "fastload:amiAlias")
    assert err.value.field == "fastload:amiAlias" and accepted in err.value.accepted
    assert "\n" not in str(err.value)
