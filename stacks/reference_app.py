"""The reference app's stacks: the reference stack, and as many models stacks as CloudFormation's limits need.

The configured models are placed in their `fastload:models` order (`infra.stack_budget.pack`): the
reference stack serves as many as fit beside its own resources, each models stack as many as fit beside
its own. One model, or a few, is the reference stack alone, as it always was; a hundred are that stack and
a few models stacks, deployed in order by `cdk deploy --all`. A model added at the end never moves
another; removing one, or turning on what makes a model larger, can move the models after it to the next
stack, which deletes them from one stack and creates them in the next (their pods start again).
"""

from __future__ import annotations

from aws_cdk import Stack
from constructs import Construct

from fastload_constructs.infra.stack_budget import STACK_LIMITS, Footprint, pack, served_model_footprint
from stacks.config import ReferenceConfig
from stacks.models_stack import FastloadModelsStack
from stacks.reference_stack import FastloadReferenceStack

REFERENCE_STACK_ID = "FastloadReference"
# What the reference stack holds besides the models it serves: network, cluster, node pools, the node image
# snapshot's builder, controllers, the bucket (its policy within S3's 20 KB) and the namespace's scripts
# ConfigMap. Measured with every feature on, several instance types and an image mirror: 264 kB and 135
# resources; the room kept for it is about 1.7 times that.
REFERENCE_STACK_OWN = Footprint(250, 450_000)
# What each autoscaled model adds to the reference stack wherever it is served: its alert rule in the
# workspace's rule group (552 bytes of YAML measured, escaped in the template).
ALERT_RULE = Footprint(0, 1_000)
# A models stack's own: its copy of the scripts ConfigMap (97 kB measured) and the imported references.
MODELS_STACK_OWN = Footprint(20, 150_000)


def model_groups(config: ReferenceConfig) -> list[range]:
    """The models (by index in `config.models`) of the reference stack, then of each models stack."""
    footprints = [
        served_model_footprint(m.serving_plan(), name=m.name, autoscaled=m.autoscaled, extra_args=m.extra_args)
        for m in config.models
    ]
    alert_rules = Footprint(0, ALERT_RULE.template_bytes * sum(m.autoscaled for m in config.models))
    return pack(
        footprints,
        first=STACK_LIMITS - REFERENCE_STACK_OWN - alert_rules,
        then=STACK_LIMITS - MODELS_STACK_OWN,
        names=[f"fastload:models[{i}]" for i in range(len(config.models))],
    )


def add_reference_stacks(scope: Construct, config: ReferenceConfig) -> list[Stack]:
    """The reference stack serving the first models, then a models stack per further group, each after the last."""
    first, *rest = model_groups(config)
    reference = FastloadReferenceStack(
        scope, REFERENCE_STACK_ID, config=config, models=[config.models[i] for i in first]
    )
    stacks: list[Stack] = [reference]
    for number, group in enumerate(rest, start=1):
        stacks.append(
            FastloadModelsStack(
                scope,
                f"{REFERENCE_STACK_ID}-Models{number}",
                reference=reference,
                models=[config.models[i] for i in group],
                after=stacks[-1],
            )
        )
    return stacks
