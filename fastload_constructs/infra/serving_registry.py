"""What one stack serves, kept in one place: its shared prerequisites, found by key, and its clash check.

Every `AppliedChart` and `ServedModel` of a stack reports here as it is made, and the prerequisites
they share (a namespace, the PriorityClasses) are looked up here by (kind, cluster, ...), never by
walking the construct tree. The checks that need all of them (`core.serving.clashes`) run once, as a
validation of this construct, when the app is synthesised: a failure stops synthesis before any
file is written, and `raise_config_error` hands it back as the `FastloadConfigError` it was.
"""

from __future__ import annotations

import jsii
from aws_cdk import Stack
from constructs import Construct, IConstruct, IValidation

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.serving.clashes import Applied, Server, check_objects, check_servers

_ID = "FastloadServing"


class ServingRegistry(Construct):
    """One per stack, at its root (`ServingRegistry.of`): no resources of its own."""

    def __init__(self, scope: Construct, id: str) -> None:
        super().__init__(scope, id)
        self._shared: dict[tuple[str, ...], Construct] = {}
        self._servers: list[Server] = []
        self._applied: list[Applied] = []
        self.failure: FastloadConfigError | None = None
        self.node.add_validation(_Clashes(self))

    @classmethod
    def of(cls, scope: IConstruct) -> ServingRegistry:
        """The registry of `scope`'s stack, made on first use."""
        stack = Stack.of(scope)
        found = stack.node.try_find_child(_ID)
        return found if isinstance(found, ServingRegistry) else cls(stack, _ID)

    def shared(self, key: tuple[str, ...]) -> Construct | None:
        """The prerequisite registered under `key`, if any."""
        return self._shared.get(key)

    def share(self, key: tuple[str, ...], prerequisite: Construct) -> None:
        """Register `prerequisite` under `key`: later lookups find it; `key` must be free (see `shared`)."""
        assert key not in self._shared, key
        self._shared[key] = prerequisite

    def add_server(self, server: Server) -> None:
        self._servers.append(server)

    def add_applied(self, applied: Applied) -> None:
        self._applied.append(applied)

    def check(self) -> None:
        """Raise the first clash among everything the stack serves and applies."""
        check_servers(self._servers)
        check_objects(self._applied, self._servers)


@jsii.implements(IValidation)
class _Clashes:
    def __init__(self, registry: ServingRegistry) -> None:
        self._registry = registry

    def validate(self) -> list[str]:
        try:
            self._registry.check()
        except FastloadConfigError as exc:
            self._registry.failure = exc
            return [str(exc)]
        self._registry.failure = None
        return []


def raise_config_error(root: IConstruct) -> None:
    """After a failed synthesis: raise the first clash a registry under `root` found, if any did."""
    for construct in root.node.find_all():
        if isinstance(construct, ServingRegistry) and construct.failure is not None:
            raise construct.failure from None
