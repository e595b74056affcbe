"""The Bottlerocket settings a GPU node boots with, as typed data, and the TOML user data around them (pure).

Bottlerocket reads its user data as TOML settings (bottlerocket-os/bottlerocket README, "Settings").
Only what this library decides is emitted; the rest is left to whoever owns it:

- Karpenter overwrites the cluster coordinates, labels and max-pods, REPLACES `node-taints` with the
  NodePool's and drops `settings.kubernetes` keys its struct does not know
  (aws/karpenter-provider-aws v1.14.1 pkg/providers/amifamily/bootstrap/bottlerocket.go); EKS managed
  node groups merge their own cluster settings, and labels and taints belong on the node group
  (EKS user guide, launch templates: "we recommend that you configure these within your node group").
  So no `settings.kubernetes` key is emitted at all: labels and taints go on the NodePool / node group.
- The instance-store RAID0 is Bottlerocket's own: `apiclient ephemeral-storage init` stripes every
  instance-store disk, `bind` mounts the array at /mnt/.ephemeral and bind-mounts the given directories
  onto it (bottlerocket-core-kit sources/api/apiserver/src/server/ephemeral_storage.rs). Karpenter writes
  that bootstrap command itself for `instanceStorePolicy: RAID0`; a managed node group gets it from here.
  With an image snapshot on the data volume /var/lib/containerd is left where it is (a bind over it would
  hide the cached images): only kubelet's and the pods' directories move to the array.
- The admin container (a root shell on the host) stays off, stated so; the control container (SSM) keeps
  its default.

Every key and value emitted is checked against Bottlerocket's settings model by the tests
(tests/fixtures/bottlerocket-1.64.0/settings-model.json, with its sources).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from fastload_constructs.core.errors import require

BootstrapMode = Literal["off", "once", "always"]
# The directories bound onto the array, of those Bottlerocket's `ephemeral-storage bind` accepts on Kubernetes
# variants (`allowed_bind_dirs`, bottlerocket-core-kit v3.1.1; /var/lib/soci-snapshotter joined them with the
# default list of 1.46.0).
KUBELET_DIR = "/var/lib/kubelet"
POD_LOGS_DIR = "/var/log/pods"
# Bottlerocket's own name for the bootstrap command Karpenter writes for `instanceStorePolicy: RAID0`; ours,
# for node groups and snapshot-restored nodes, sorts first too (bootstrap commands run in name order).
INSTANCE_STORAGE_COMMAND = "000-fastload-instance-storage"


@dataclass(frozen=True)
class BootstrapCommand:
    """`settings.bootstrap-commands.<name>`: apiclient commands run before the kubelet starts."""

    commands: tuple[tuple[str, ...], ...]
    mode: BootstrapMode = "always"
    essential: bool = True

    def __post_init__(self) -> None:
        require(
            all(command and command[0] == "apiclient" for command in self.commands),
            "bootstrap_commands",
            self.commands,
            "commands that each start with apiclient (Bottlerocket's ApiclientCommand)",
        )


@dataclass(frozen=True)
class HostContainer:
    """`settings.host-containers.<name>`: whether a host container runs."""

    enabled: bool


@dataclass(frozen=True)
class BottlerocketSettings:
    """The settings this library emits; rendered by `user_data`."""

    bootstrap_commands: Mapping[str, BootstrapCommand] = field(default_factory=dict)
    host_containers: Mapping[str, HostContainer] = field(default_factory=dict)

    def as_settings(self) -> dict[str, object]:
        """The `settings` table as nested dicts, keys as Bottlerocket spells them."""
        settings: dict[str, object] = {}
        if self.host_containers:
            settings["host-containers"] = {name: {"enabled": c.enabled} for name, c in self.host_containers.items()}
        if self.bootstrap_commands:
            settings["bootstrap-commands"] = {
                name: {"commands": [list(c) for c in cmd.commands], "essential": cmd.essential, "mode": cmd.mode}
                for name, cmd in self.bootstrap_commands.items()
            }
        return {"settings": settings}


def instance_storage_command(*, keep_containerd: bool) -> BootstrapCommand:
    """RAID0 of the instance store and the directories on it: Bottlerocket's defaults (kubelet, containerd,
    pod logs, SOCI; 1.46.0 and later), or, to keep the snapshot-restored containerd root, kubelet and pod
    logs only. On an instance without instance store both commands do nothing ("no ephemeral disks found")."""
    bind: tuple[str, ...] = ("apiclient", "ephemeral-storage", "bind")
    if keep_containerd:
        bind = (*bind, "--dirs", KUBELET_DIR, POD_LOGS_DIR)
    return BootstrapCommand(commands=(("apiclient", "ephemeral-storage", "init"), bind))


def gpu_node_settings(*, raid0_command: bool, keep_containerd: bool) -> BottlerocketSettings:
    """A GPU node's settings: the admin container off, and the RAID0 command when we (not Karpenter) write it."""
    commands = {INSTANCE_STORAGE_COMMAND: instance_storage_command(keep_containerd=keep_containerd)}
    return BottlerocketSettings(
        bootstrap_commands=commands if raid0_command else {},
        host_containers={"admin": HostContainer(enabled=False)},
    )


def builder_settings() -> BottlerocketSettings:
    """The image-snapshot builder's settings: the admin container on, so `apiclient exec admin sheltie ctr`
    can pull into the host's containerd (aws-samples/bottlerocket-images-cache, snapshot.sh)."""
    return BottlerocketSettings(host_containers={"admin": HostContainer(enabled=True)})


# ------------------------------------------------------------------------------------------------
# TOML: the subset these settings need (tables, strings, booleans, integers, arrays of them), written
# with bare keys and dotted table headers only. EKS merges managed node group user data and refuses
# "Quotes within quoted keys" and "Bracketed headers with quoted keys" (EKS user guide, launch templates).

_BARE_KEY = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _key(key: str) -> str:
    require(bool(key) and set(key) <= _BARE_KEY, "settings key", key, "a TOML bare key: letters, digits, - and _")
    return key


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        require(escaped.isprintable(), "settings value", value, "printable text")
        return f'"{escaped}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {value!r}")


def _tables(prefix: tuple[str, ...], table: Mapping[str, object]) -> list[str]:
    scalars = {k: v for k, v in table.items() if not isinstance(v, Mapping)}
    nested = {k: v for k, v in table.items() if isinstance(v, Mapping)}
    lines: list[str] = []
    if scalars:
        lines += ["[" + ".".join(_key(p) for p in prefix) + "]"]
        lines += [f"{_key(k)} = {_value(v)}" for k, v in scalars.items()]
        lines.append("")
    for name, sub in nested.items():
        assert isinstance(sub, Mapping)
        lines += _tables((*prefix, name), sub)
    return lines


def to_toml(document: Mapping[str, object]) -> str:
    """`document` (nested dicts) as TOML, one table header per table that holds values."""
    lines: list[str] = []
    for name, table in document.items():
        require(isinstance(table, Mapping), "settings", document, "a table of tables")
        assert isinstance(table, Mapping)
        lines += _tables((name,), table)
    return "\n".join(lines).rstrip("\n") + "\n"


def user_data(settings: BottlerocketSettings) -> str:
    """The EC2 user data of a Bottlerocket node: its settings as TOML (no MIME: EKS merges TOML for
    Bottlerocket node groups, and Karpenter merges its own settings into it)."""
    return to_toml(settings.as_settings())
