"""The reference app's Kubernetes side: one VllmChart per configured model, applied and exported.

Charts go onto the cluster with `add_cdk8s_chart` (the namespace first) and
the same charts are exported as YAML into `cdk.out/manifests/`. Deploy-time
values become placeholders in the export: `${AWS_REGION}` when the stack is
environment-agnostic, `${MODEL_BUCKET_NAME}` when the bucket name is not a
literal.
"""

from __future__ import annotations

from collections.abc import Sequence

import cdk8s
from aws_cdk import Stack, Token
from aws_cdk import aws_eks_v2 as eks
from constructs import Construct

from fastload_constructs.core import naming
from fastload_constructs.core.cache_sharing import DEFAULT_CACHE_PREFIX, SharedCompileCache
from fastload_constructs.core.vllm_args import ServerOptions
from fastload_constructs.k8s.manifest_export import ManifestExport
from fastload_constructs.k8s.namespace_chart import NamespaceChart
from fastload_constructs.k8s.vllm_chart import VllmChart
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
    ) -> None:
        super().__init__(scope, id)
        region = Stack.of(self).region
        self.cdk8s_app = cdk8s.App()
        self.namespace_chart = NamespaceChart(self.cdk8s_app, "namespace", namespace=namespace)
        self.charts: dict[str, VllmChart] = {}
        for spec in models:
            self.charts[spec.name] = VllmChart(
                self.cdk8s_app,
                spec.name,
                plan=spec.serving_plan(),
                model_name=spec.name,
                model_uri=f"s3://{bucket_name}/{spec.s3_prefix}",
                region=region,
                options=ServerOptions(
                    namespace=namespace,
                    replicas=spec.replicas,
                    shared_compile_cache=(
                        SharedCompileCache(bucket_name, compile_cache_prefix) if spec.shared_compile_cache else None
                    ),
                    model_cache="node-local" if spec.node_local_model_cache else "s3",
                ),
            )

        namespace_manifest = cluster.add_cdk8s_chart(f"{id}Namespace", self.namespace_chart)
        self.manifests = {}
        for name, chart in self.charts.items():
            manifest = cluster.add_cdk8s_chart(f"{id}-{name}", chart)
            manifest.node.add_dependency(namespace_manifest)
            self.manifests[name] = manifest

        placeholders = {}
        if Token.is_unresolved(region):
            placeholders[region] = "${AWS_REGION}"
        if Token.is_unresolved(bucket_name):
            placeholders[bucket_name] = "${MODEL_BUCKET_NAME}"
        self.export = ManifestExport(
            self,
            "Export",
            charts=[self.namespace_chart, *self.charts.values()],
            placeholders=placeholders,
        )
