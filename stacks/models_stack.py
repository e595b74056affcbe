"""A stack of models that the reference stack has no room for, served on its cluster from its bucket.

The reference stack (`FastloadReferenceStack`) owns the cluster, the bucket, the controllers and what the
models share on the cluster: the namespace and the PriorityClasses. A models stack imports what it uses
(cross-stack references: the cluster's name and kubectl provider, the bucket's ARN, KEDA's chart), declares
the namespace and the classes another stack's (`existing=True`), and applies its own models and its own copy
of the in-pod scripts ConfigMap (named for this stack), so deleting it removes only its models. It deploys
after the stack before it (the reference stack, or the previous models stack): a model that moves to a later
stack is deleted from the earlier one first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from aws_cdk import Stack
from constructs import Construct

from fastload_constructs.infra.manifest_export import ManifestExport
from fastload_constructs.infra.served_model import ServedModel
from fastload_constructs.infra.serving_namespace import ServingNamespace
from fastload_constructs.infra.serving_priority_classes import ServingPriorityClasses
from stacks.config import ModelSpec
from stacks.reference_stack import FastloadReferenceStack


class FastloadModelsStack(Stack):
    """`models` served on `reference`'s cluster, deployed after `after` (default: `reference`).

    Attributes: `reference`, `served_models` (name -> `ServedModel`), `capacity_buffers` (name -> the
    `AppliedChart` of its CapacityBuffer, for models with buffered nodes), `manifest_export` (its charts as YAML
    in `cdk.out/manifests-<stack name>/`).
    """

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        reference: FastloadReferenceStack,
        models: Sequence[ModelSpec],
        after: Stack | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.reference = reference
        self.add_stack_dependency(reference)
        if after is not None and after is not reference:
            self.add_stack_dependency(after)
        # Declared before the first model, so its models find them and apply neither.
        ServingNamespace(self, "Namespace", cluster=reference.cluster, existing=True)
        if reference.priority_classes is not None:
            ServingPriorityClasses(self, "PriorityClasses", cluster=reference.cluster, existing=True)
        self.served_models: dict[str, ServedModel] = reference.serve(self, models)
        self.capacity_buffers = reference.buffer_capacity(self, models, self.served_models)
        self.manifest_export = ManifestExport(
            self,
            "ManifestExport",
            placeholders=reference.manifest_placeholders(self.served_models.values()),
            directory=f"manifests-{self.stack_name}",
        )
