"""The reference app's Kubernetes side: one VllmChart per configured model, applied and exported.

Charts go onto the cluster with `add_cdk8s_chart` (the namespace first) and
the same charts are exported as YAML into `cdk.out/manifests/`. Deploy-time
values become placeholders in the export: `${AWS_REGION}` when the stack is
environment-agnostic, `${MODEL_BUCKET_NAME}` when the bucket name is not a
literal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import cdk8s
from aws_cdk import Stack, Token
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct, IDependable

from fastload_constructs.core import naming
from fastload_constructs.core.cache_sharing import DEFAULT_CACHE_PREFIX, SharedCompileCache
from fastload_constructs.core.serving_access import ServingAccess
from fastload_constructs.k8s.manifest_export import ManifestExport
from fastload_constructs.k8s.namespace_chart import NamespaceChart
from fastload_constructs.k8s.vllm_chart import VllmChart
from fastload_constructs.k8s.warm_spares import PriorityClassesChart, WarmSparesChart
from stacks.config import ModelSpec


class ModelCharts(Construct):
    """Namespace chart plus a VllmChart per model, on `cluster` and in the YAML export."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        models: Sequence[ModelSpec],
        bucket_name: str,
        namespace: str = naming.DEFAULT_NAMESPACE,
        compile_cache_prefix: str = DEFAULT_CACHE_PREFIX,
        customize: Callable[[ModelSpec, VllmChart], None] | None = None,
        access: ServingAccess | None = None,
        image_for: Callable[[str], str] | None = None,
        applied_before: Sequence[tuple[cdk8s.Chart, IDependable]] = (),
    ) -> None:
        """`customize(spec, chart)` runs before a chart is applied (add_cdk8s_chart renders it at once);
        `image_for(image)` maps each model's image to the one pulled (an ECR pull-through mirror);
        `applied_before`: (chart, its manifest) the stack applied first (the local-nvme storage class, which
        a claim of a model pod needs), applied before every model chart and exported first."""
        super().__init__(scope, id)
        region = Stack.of(self).region
        self.cdk8s_app = cdk8s.App()
        self.namespace_chart = NamespaceChart(self.cdk8s_app, "namespace", namespace=namespace)
        self.charts: dict[str, VllmChart] = {}
        # Warm spares anywhere: every vLLM pod gets the class above the spares' (one spare may serve any model).
        self.priority_chart = (
            PriorityClassesChart(self.cdk8s_app, "priority-classes") if any(m.warm_spares for m in models) else None
        )
        vllm_class = self.priority_chart.vllm_class_name if self.priority_chart else None
        self.spare_charts: dict[str, WarmSparesChart] = {}
        for spec in models:
            self.charts[spec.name] = VllmChart(
                self.cdk8s_app,
                spec.name,
                plan=spec.serving_plan(),
                model_name=spec.name,
                model_uri=f"s3://{bucket_name}/{spec.s3_prefix}",
                region=region,
                options=replace(
                    spec.server_options(
                        SharedCompileCache(bucket_name, compile_cache_prefix) if spec.shared_compile_cache else None,
                        image=image_for(spec.image) if image_for is not None else spec.image,
                        priority_class_name=vllm_class,
                    ),
                    namespace=namespace,
                ),
                access=access,
            )
            if customize is not None:
                customize(spec, self.charts[spec.name])
            if spec.warm_spares > 0:
                self.spare_charts[spec.name] = WarmSparesChart(
                    self.cdk8s_app,
                    f"{spec.name}-warm-spares",
                    plan=spec.serving_plan(),
                    server=self.charts[spec.name].spec,
                    spares=spec.warm_spares,
                )

        namespace_manifest = cluster.add_cdk8s_chart(f"{id}Namespace", self.namespace_chart)
        # Admission refuses a pod whose PriorityClass does not exist yet.
        before: list[IDependable] = [namespace_manifest, *(manifest for _, manifest in applied_before)]
        if self.priority_chart is not None:
            before.append(cluster.add_cdk8s_chart(f"{id}PriorityClasses", self.priority_chart))
        self.manifests = {}
        for name, chart in self.charts.items():
            manifest = cluster.add_cdk8s_chart(f"{id}-{name}", chart)
            manifest.node.add_dependency(*before)
            self.manifests[name] = manifest
        self.spare_manifests = {}
        for name, spare_chart in self.spare_charts.items():
            manifest = cluster.add_cdk8s_chart(f"{id}-{name}-warm-spares", spare_chart)
            manifest.node.add_dependency(*before)
            self.spare_manifests[name] = manifest

        placeholders = {}
        if Token.is_unresolved(region):
            placeholders[region] = "${AWS_REGION}"
        if Token.is_unresolved(bucket_name):
            placeholders[bucket_name] = "${MODEL_BUCKET_NAME}"
        images = [c.spec.image for c in self.charts.values()]
        if image_for is not None:  # an ECR mirror in an environment-agnostic stack
            stack = Stack.of(self)
            for token, placeholder in ((stack.account, "${AWS_ACCOUNT_ID}"), (stack.url_suffix, "${AWS_URL_SUFFIX}")):
                if Token.is_unresolved(token) and any(token in image for image in images):
                    placeholders[token] = placeholder
        self.export = ManifestExport(
            self,
            "Export",
            charts=[
                *(chart for chart, _ in applied_before),
                self.namespace_chart,
                *([self.priority_chart] if self.priority_chart else []),
                *self.charts.values(),
                *self.spare_charts.values(),
            ],
            placeholders=placeholders,
        )
