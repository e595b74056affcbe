"""How many served models a CloudFormation stack holds: each model's footprint, and models packed into stacks.

A stack holds at most 500 resources and a 1 MB template (`synth_limits`). A `ServedModel` adds a few
resources and tens of kilobytes of template, most of it its charts' manifests, so the template fills
first. `served_model_footprint` bounds what one model adds from its plan (which charts it applies) and the
strings that repeat in them; `pack` places models, in their order, into as many stacks as that takes.

The figures below are upper bounds of what `bench/many_models_synth.py` measures on the reference app, with
room for the charts to grow a little (`tests/test_stack_budget.py` synthesises each kind of model and holds
every bound between the measurement and 1.7 times it). They are constants on purpose: a model's stack must
not change when a chart grows by a few bytes, as moving a model between stacks deletes it in one and
creates it in the other.

Measured per model (an 8B model on g6e.2xlarge, a 4-character name): the server with both caches 16.9 kB
(12.7 kB without), warm spares 6.7-9.4 kB more, KEDA's ScaledObject 3.6 kB more, a CapacityBuffer (buffered
nodes) 2.8 kB more, standby engines in place of the server's pods 123-127 kB; each character of the model's
name 64-89 bytes (it names every object), each character of its extra arguments about 1 byte. Resources: 4,
one more each for warm spares, KEDA and a capacity buffer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.planning.plan import ServingPlan
from fastload_constructs.infra.synth_limits import MAX_STACK_RESOURCES, MAX_TEMPLATE_BYTES

SERVER_BYTES = 20_000
STANDBY_ENGINES_BYTES = 150_000
WARM_SPARES_BYTES = 12_000
AUTOSCALING_BYTES = 5_000
CAPACITY_BUFFER_BYTES = 5_000
BYTES_PER_NAME_CHARACTER = 100
BYTES_PER_EXTRA_ARG_CHARACTER = 2
SERVER_RESOURCES = 4  # the reader role, its policy, its Pod Identity association, the server's manifest


@dataclass(frozen=True)
class Footprint:
    """CloudFormation resources and template bytes."""

    resources: int
    template_bytes: int

    def __add__(self, other: Footprint) -> Footprint:
        return Footprint(self.resources + other.resources, self.template_bytes + other.template_bytes)

    def __sub__(self, other: Footprint) -> Footprint:
        return Footprint(self.resources - other.resources, self.template_bytes - other.template_bytes)

    def fits(self, room: Footprint) -> bool:
        return self.resources <= room.resources and self.template_bytes <= room.template_bytes


STACK_LIMITS = Footprint(MAX_STACK_RESOURCES, MAX_TEMPLATE_BYTES)
NOTHING = Footprint(0, 0)


def served_model_footprint(
    plan: ServingPlan, *, name: str, autoscaled: bool, extra_args: Sequence[str] = ()
) -> Footprint:
    """At most what a `ServedModel` of `plan` adds to its stack (see the module docstring for the figures)."""
    serving = plan.serving
    spares, buffer = serving.warm_spares > 0, serving.buffered_nodes > 0
    template = STANDBY_ENGINES_BYTES if serving.standbys > 0 else SERVER_BYTES
    template += WARM_SPARES_BYTES * spares + AUTOSCALING_BYTES * autoscaled + CAPACITY_BUFFER_BYTES * buffer
    template += BYTES_PER_NAME_CHARACTER * len(name) + BYTES_PER_EXTRA_ARG_CHARACTER * len(json.dumps(list(extra_args)))
    return Footprint(SERVER_RESOURCES + spares + autoscaled + buffer, template)


def pack(footprints: Sequence[Footprint], *, first: Footprint, then: Footprint, names: Sequence[str]) -> list[range]:
    """The models (by index, in their order) of each stack: the first stack has room `first`, every other
    `then`. A stack takes the next model while it fits, else the next stack begins (next fit: a model added at
    the end never moves one before it). The first group may be empty; a model that fits no stack on its own
    is refused, named by `names`."""
    groups: list[range] = []
    start, used = 0, NOTHING
    for i, footprint in enumerate(footprints):
        if not (used + footprint).fits(first if not groups else then):
            if not footprint.fits(then):
                raise FastloadConfigError(
                    names[i],
                    f"about {footprint.template_bytes} template bytes and {footprint.resources} resources",
                    f"a served model that fits a stack beside the stack's own (at most {then.template_bytes} bytes "
                    f"and {then.resources} resources): a shorter name, or fewer extra arguments",
                )
            groups.append(range(start, i))
            start, used = i, NOTHING
        used += footprint
    groups.append(range(start, len(footprints)))
    return groups
