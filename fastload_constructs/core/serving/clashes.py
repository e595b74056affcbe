"""Two servers of one name, two bindings of one service account, or one object applied twice on one cluster.

Each fails only at deploy, and late: the second `kubectl create` of an object stops the stack half-way
(and deleting either stack would delete the object under the other), and EKS refuses a second Pod
Identity association for one service account. Checked here over everything a stack applies, once,
so synthesis fails first with the field that tells the two apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.errors import FastloadConfigError

# (kind, namespace, name); the namespace is '' where the manifest names none (cluster-scoped kinds).
ObjectKey = tuple[str, str, str]
# The objects a ServedModel applies once per stack and cluster, by the construct that declares them.
_SHARED = {"Namespace": "ServingNamespace", "PriorityClass": "ServingPriorityClasses"}


@dataclass(frozen=True)
class Server:
    """One served model: `path` is its construct's, `cluster` the address of the cluster it serves on."""

    path: str
    cluster: str
    namespace: str
    name: str
    service_account: str


@dataclass(frozen=True)
class Applied:
    """What the construct at `path` applies to `cluster`."""

    path: str
    cluster: str
    objects: frozenset[ObjectKey]


def object_keys(docs: Iterable[Mapping[str, Any]]) -> frozenset[ObjectKey]:
    """(kind, namespace, name) of every named object of a rendered manifest."""
    keys = set()
    for doc in docs:
        metadata = doc.get("metadata") or {}
        if metadata.get("name"):
            keys.add((str(doc.get("kind")), str(metadata.get("namespace") or ""), str(metadata["name"])))
    return frozenset(keys)


def check_servers(servers: Sequence[Server]) -> None:
    """One server per name, and one per service account, in each namespace of each cluster."""
    names: dict[tuple[str, str, str], Server] = {}
    accounts: dict[tuple[str, str, str], Server] = {}
    for server in servers:
        first = names.setdefault((server.cluster, server.namespace, server.name), server)
        if first is not server:
            raise FastloadConfigError(
                "server.name",
                server.name,
                f"a name not yet served in namespace {server.namespace!r} on this cluster ({first.path} serves "
                "it; pass ServerOptions(name=...))",
            )
        first = accounts.setdefault((server.cluster, server.namespace, server.service_account), server)
        if first is not server:
            raise FastloadConfigError(
                "model_name",
                server.service_account,
                f"one ServedModel per model and namespace ({first.path} already binds this service account)",
            )


def check_objects(applied: Sequence[Applied], servers: Sequence[Server] = ()) -> None:
    """Every object applied once per cluster; the later of two is refused, named by the prop that renames it."""
    seen: dict[tuple[str, ObjectKey], Applied] = {}
    for chart in applied:
        for key in sorted(chart.objects):
            first = seen.setdefault((chart.cluster, key), chart)
            if first is not chart:
                raise _clash(first, chart, key, servers)


def _clash(first: Applied, later: Applied, key: ObjectKey, servers: Sequence[Server]) -> FastloadConfigError:
    kind, namespace, name = key
    where = f"{namespace}/{name}" if namespace else name
    owner = _owner(first.path, servers)
    if _owner(later.path, servers) != later.path:
        return FastloadConfigError(
            "model_name",
            where,
            f"objects of their own: {owner} already applies {kind} {where} "
            "(rename the model or pass ServerOptions(name=...))",
        )
    shared = _SHARED.get(kind)
    hint = (
        f"a ServedModel applies its {kind} itself: declare {shared}(scope, <your chart's id>, cluster=...) in "
        "place of your chart, and its manifest keeps your chart's logical id"
        if shared
        else "apply each object from one chart"
    )
    return FastloadConfigError(
        "chart", f"{kind} {where}", f"one chart applying it on this cluster, not {owner} and {later.path} ({hint})"
    )


def _owner(path: str, servers: Sequence[Server]) -> str:
    """The served model a chart belongs to (its construct path), else the chart's own path."""
    return next((s.path for s in servers if path.startswith(s.path + "/")), path)
