"""One served model on an EKS cluster: its read-only identity, its vLLM server and the order between them.

`ServedModel` is what serving one model in an existing CDK app takes: a
Pod Identity role that reads only the model's prefix of any `s3.IBucket`,
the tuned `ServerChart` applied through the cluster's kubectl provider, and the
ordering that makes it work (the association and its grants exist before a
pod asks for credentials). Its warm spares (the plan's `serving.warm_spares`) and its KEDA
ScaledObject (`autoscaling=`) are applied after the server, and any other
chart of the model plugs in with `add_chart`; every chart applied here is
found by `ManifestExport`. Every input is checked, and every chart rendered,
before anything joins the construct tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import cdk8s
from aws_cdk import Stack, Token
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from constructs import Construct, IDependable

from fastload_constructs.core.errors import FastloadConfigError, require, spelled_as
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import ServingPlan, plan
from fastload_constructs.core.scaling.autoscaling import scaling_behavior
from fastload_constructs.core.serving.access import ServingAccess
from fastload_constructs.core.serving.server_pod import ServerOptions, ServerSpec
from fastload_constructs.core.serving.warm_spares import warm_spare_spec
from fastload_constructs.core.settings import renamed
from fastload_constructs.core.validation import check_dns_label, check_key_prefix
from fastload_constructs.infra.applied_chart import AppliedChart, check_cluster
from fastload_constructs.infra.model_bucket import ModelBucket
from fastload_constructs.infra.model_reader_identity import ModelReaderIdentity
from fastload_constructs.infra.scale_out_metrics import KedaScaling
from fastload_constructs.k8s.keda import AutoscalingChart
from fastload_constructs.k8s.runtime_scripts import RuntimeScriptsChart
from fastload_constructs.k8s.server_chart import ServerChart
from fastload_constructs.k8s.standby import StandbyEnginesChart
from fastload_constructs.k8s.warm_spares import PriorityClassesChart, WarmSparesChart


class ServedModel(Construct):
    """A model served by vLLM on `cluster`, streaming from `prefix` of `bucket`.

    Props:
    - `cluster`: an `eks.ICluster` with a kubectl provider (an imported one needs `kubectl_provider=`).
    - `bucket`: any `s3.IBucket` (a `ModelBucket` is unwrapped); `kms_key` default: the bucket's `encryption_key`.
    - `prefix`, `model_name`: where the model is staged, and the DNS label naming its objects.
    - `plan`: a `ServingPlan`; or `profile` + `instance_type` (+ `tuning`, default `TuningOptions()`) to make one.
      How the model is served is the plan's (`plan.serving`: engine (vLLM or SGLang), image, node-local copy,
      shared compile cache, warm spares): nothing here repeats it. With a shared compile cache the role may
      also publish under `server.compile_cache_prefix` of this bucket; with warm spares they are applied after
      the server (`k8s.WarmSparesChart`, same service account, so the same reader identity): the cluster needs the
      PriorityClasses (`k8s.PriorityClassesChart`, applied once per cluster: pass its `AppliedChart` in
      `after`).
    - `server`: `ServerOptions` (namespace, replicas, compile-cache volume and prefix, extra args,
      do_not_disrupt...). Default: `ServerOptions()`.
    - `access`: `ServingAccess`, who may reach the server (NetworkPolicy exceptions, an API key).
      Default: `None`, a NetworkPolicy admitting the namespace's own pods only.
    - `autoscaling`: `KedaScaling(controller=KedaController, settings=Autoscaling(...))`: a KEDA ScaledObject
      on the model's vLLM metric, HPA behaviour from the plan (`core.scaling.autoscaling.scaling_behavior`),
      applied after the server and after KEDA's Helm chart. The Deployment then has no `spec.replicas`
      (KEDA's HPA owns it): `server.replicas` must be None or the default 1. Default: `None`, a fixed count.
    - Standbys (the plan's `serving.standbys`): sleeping vLLM engines woken on scale-out, on FMA v0.6.4
      (`k8s.StandbyEnginesChart`, `core.serving.standby`): the model's Deployment becomes FMA's requester
      Deployment (same name, so the ScaledObject is unchanged) and every replica's vLLM runs in an FMA
      launcher Pod (the launcher image's vLLM 0.26.0). Needs `infra.FmaController` in the model's namespace
      (pass its `chart` in `after`), FMA's CRDs, and a standby node pool (`k8s.StandbyNodePoolChart`).
    - `after`: what must exist before the server is applied (the namespace's chart, PriorityClasses,
      the local-nvme storage class, node pools...). Default: nothing but the reader identity.

    Attributes: `plan`, `reader` (`ModelReaderIdentity`: `role`, `association`), `chart` (`ServerChart`),
    `standby_chart` (`StandbyEnginesChart`, None without standbys), `server` (`AppliedChart` of the chart,
    or of `standby_chart`; `.manifest`), `spare_chart` / `spares` (`WarmSparesChart` and
    its `AppliedChart`, None without warm spares), `autoscaling_chart` / `autoscaler`
    (`AutoscalingChart` and its `AppliedChart`, None without autoscaling), `applied` (every
    `AppliedChart`, in apply order), `model_uri`, `service_url`.
    """

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        cluster: eks.ICluster,
        bucket: s3.IBucket | ModelBucket,
        prefix: str,
        model_name: str,
        plan: ServingPlan | None = None,
        profile: ModelProfile | None = None,
        instance_type: str | None = None,
        tuning: TuningOptions | None = None,
        server: ServerOptions | None = None,
        access: ServingAccess | None = None,
        autoscaling: KedaScaling | None = None,
        kms_key: kms.IKey | None = None,
        after: Sequence[IDependable] = (),
    ) -> None:
        serving_plan = _serving_plan(plan, profile, instance_type, tuning)
        options = server if server is not None else ServerOptions()
        require(isinstance(options, ServerOptions), "server", options, "a ServerOptions")
        require(
            access is None or isinstance(access, ServingAccess),
            "access",
            access,
            "None or a ServingAccess(network_policy=..., allow_from_cidrs=..., api_key_secret=...)",
        )
        warm_spares = serving_plan.serving.warm_spares
        standbys = serving_plan.serving.standbys
        options = _autoscaled(options, autoscaling, serving_plan)
        # The in-pod scripts from the namespace's one ConfigMap, not embedded per model (the template size limit).
        # Keyed by the stack: another stack serving in this namespace applies (and deletes) its own.
        options = replace(options, shared_runtime_scripts=True, runtime_scripts_owner=Stack.of(scope).node.addr[:12])
        prefix = check_key_prefix(prefix)
        check_dns_label(model_name, "model_name")
        if isinstance(bucket, ModelBucket):
            kms_key = kms_key or bucket.kms_key
            bucket = bucket.bucket
        # A literal bucket name keeps the exported YAML free of placeholders.
        model_uri = f"s3://{_literal_bucket_name(bucket)}/{prefix}"
        # The charts live in their own cdk8s App, outside the construct tree: making them here runs every
        # check of the server (those needing the plan too) before anything joins the tree.
        app = cdk8s.App()
        chart = ServerChart(
            app,
            options.name or model_name,
            plan=serving_plan,
            model_name=model_name,
            model_uri=model_uri,
            region=Stack.of(scope).region,
            options=options,
            access=access,
        )
        spec = chart.spec
        if warm_spares > 0:
            _check_spares(serving_plan, spec)
            # The pods name the PriorityClasses: admission refuses them while the classes do not exist.
            require(
                any(isinstance(a, AppliedChart) and isinstance(a.chart, PriorityClassesChart) for a in after),
                "after",
                [type(a).__name__ for a in after],
                "the AppliedChart of a k8s.PriorityClassesChart (applied once per cluster) among `after` when the plan "
                "has warm spares: the pods name its classes, and admission refuses them until they exist",
            )
        _refuse_clash(scope, cluster, spec.namespace, spec.name, spec.service_account_name)
        spare_chart = (
            WarmSparesChart(
                app,
                f"{chart.node.id}-warm-spares",
                plan=serving_plan,
                server=spec,
            )
            if warm_spares > 0
            else None
        )
        standby_chart = (
            StandbyEnginesChart(app, f"{chart.node.id}-standby", plan=serving_plan, server=spec, access=access)
            if standbys > 0
            else None
        )
        autoscaling_chart = (
            AutoscalingChart(
                app,
                f"{chart.node.id}-autoscaling",
                server=spec.name,
                # The queue metric of the plan's engine (vllm:num_requests_waiting or sglang:num_queue_reqs).
                autoscaling=replace(autoscaling.settings, engine=serving_plan.engine),
                behavior=scaling_behavior(serving_plan),
                server_address=autoscaling.query_endpoint,
                region=autoscaling.region,
                namespace=spec.namespace,
            )
            if autoscaling is not None
            else None
        )
        check_cluster(cluster)
        if autoscaling is not None:
            autoscaling.controller.metrics.check_scraped(spec.namespace)
        # Every object this model applies, by (kind, namespace, name): another ServedModel of the stack on
        # this cluster must apply none of them (two `kubectl create`s of one object fail the deploy).
        objects = _object_keys(
            [c for c in (standby_chart or chart, spare_chart, autoscaling_chart) if c is not None], spec.namespace
        )
        _refuse_object_clash(scope, cluster, objects)
        super().__init__(scope, id)
        self._objects = objects
        self.cdk8s_app, self.chart = app, chart
        self.spare_chart, self.autoscaling_chart = spare_chart, autoscaling_chart
        # With standbys FMA's objects replace the vLLM Deployment (`chart` still holds the server's spec).
        self.standby_chart = standby_chart
        self.namespace, self.name, self.service_account = spec.namespace, spec.name, spec.service_account_name
        self.plan = serving_plan
        self.reader = ModelReaderIdentity(
            self,
            "Reader",
            cluster=cluster,
            bucket=bucket,
            kms_key=kms_key,
            prefix=prefix,
            model_name=model_name,
            namespace=options.namespace,
            compile_cache_prefix=options.compile_cache_prefix if serving_plan.serving.shared_compile_cache else None,
        )
        self.model_uri = model_uri
        # Pod Identity hands out credentials when a pod is created: the association (and the
        # grants it waits for) must exist before the Deployment.
        self.runtime_scripts = (
            _runtime_scripts(scope, cluster, spec.namespace, after) if spec.init_containers or spec.sidecars else None
        )
        self.server = AppliedChart(
            self,
            "Server",
            cluster=cluster,
            chart=standby_chart if standby_chart is not None else self.chart,
            after=[self.reader.identity.ready, *after, *([self.runtime_scripts] if self.runtime_scripts else [])],
        )
        self._cluster = cluster
        self.applied: list[AppliedChart] = [self.server]
        # The spares run as the server's service account (created by the server's chart), so they read
        # S3 through the same association.
        self.spares = self.add_chart("WarmSpares", self.spare_chart) if self.spare_chart is not None else None
        if autoscaling is not None:
            settings = replace(autoscaling.settings, engine=serving_plan.engine)
            autoscaling.controller.metrics.watch_server(self.name, self.namespace, settings.prometheus_metric)
        # ScaledObject is a KEDA CRD: KEDA's Helm chart first.
        self.autoscaler = (
            self.add_chart("Autoscaling", autoscaling_chart, after=[autoscaling.controller.chart])
            if autoscaling_chart is not None and autoscaling is not None
            else None
        )

    @property
    def service_url(self) -> str:
        """In-cluster URL of the OpenAI-compatible API."""
        return self.chart.service_url

    def add_chart(self, id: str, chart: cdk8s.Chart, *, after: Sequence[IDependable] = ()) -> AppliedChart:
        """Apply another chart of this model (a ScaledObject, warm spares) once the server is applied."""
        applied = AppliedChart(self, id, cluster=self._cluster, chart=chart, after=[self.server, *after])
        self.applied.append(applied)
        return applied


def _autoscaled(options: ServerOptions, autoscaling: KedaScaling | None, serving_plan: ServingPlan) -> ServerOptions:
    """The server options an autoscaled Deployment renders with: no replica count (KEDA's HPA owns it)."""
    if autoscaling is None:
        return options
    require(
        isinstance(autoscaling, KedaScaling),
        "autoscaling",
        autoscaling,
        "None or a KedaScaling(controller=KedaController, settings=Autoscaling(...))",
    )
    require(
        options.replicas in (None, 1),
        "server.replicas",
        options.replicas,
        "None (or the default 1) with autoscaling: KEDA's HPA owns the count; set autoscaling.settings.min_replicas",
    )
    if options.compile_cache == "pvc":
        # One local volume lives on one node: the autoscaler's upper bound must fit that node's GPUs.
        instance = serving_plan.instance
        fits = instance.gpu_count // serving_plan.tensor_parallel_size
        require(
            autoscaling.settings.max_replicas <= fits,
            "autoscaling.settings.maxReplicas",
            autoscaling.settings.max_replicas,
            f"at most {fits} with compile_cache='pvc' (one local-nvme volume, one {instance.name}); "
            "use 'host-path' to spread replicas",
        )
    return replace(options, replicas=None)


def _check_spares(serving_plan: ServingPlan, spec: ServerSpec) -> None:
    """The spares' own checks, their fields named as ServedModel's props."""
    with spelled_as(renamed({"priority_class_name": "server.priority_class_name"})):
        warm_spare_spec(serving_plan, spec)


def _serving_plan(
    serving_plan: ServingPlan | None,
    profile: ModelProfile | None,
    instance_type: str | None,
    tuning: TuningOptions | None,
) -> ServingPlan:
    if serving_plan is not None:
        require(isinstance(serving_plan, ServingPlan), "plan", serving_plan, "a ServingPlan")
        if profile is not None or instance_type is not None or tuning is not None:
            raise FastloadConfigError("plan", "plan with profile/instance_type/tuning", "a plan, or the inputs to one")
        return serving_plan
    require(
        isinstance(profile, ModelProfile) and instance_type is not None,
        "profile",
        profile,
        "a ModelProfile with instance_type (or pass plan=)",
    )
    require(
        tuning is None or isinstance(tuning, TuningOptions),
        "tuning",
        tuning,
        "a TuningOptions (a Serving goes inside it: tuning=TuningOptions(serving=Serving(...)))",
    )
    assert profile is not None and instance_type is not None
    return plan(profile, instance_type, tuning)


def _refuse_clash(scope: Construct, cluster: eks.ICluster, namespace: str, name: str, service_account: str) -> None:
    """Two servers of one name would overwrite each other's Deployment; two associations for one
    service account are refused by EKS at deploy. Catch both at synth, within the stack."""
    for other in Stack.of(scope).node.find_all():
        if not isinstance(other, ServedModel) or other._cluster is not cluster or other.namespace != namespace:
            continue
        require(
            other.name != name,
            "server.name",
            name,
            f"a name not yet served in namespace {namespace!r} on this cluster (pass ServerOptions(name=...))",
        )
        require(
            other.service_account != service_account,
            "model_name",
            service_account,
            f"one ServedModel per model and namespace ({other.node.path} already binds this service account)",
        )


def _object_keys(charts: Sequence[cdk8s.Chart], namespace: str) -> frozenset[tuple[str, str, str]]:
    """(kind, namespace, name) of every object the charts render (cluster-scoped ones with namespace '')."""
    keys = set()
    for chart in charts:
        for doc in chart.to_json():
            metadata = doc.get("metadata", {})
            scoped = doc.get("kind") not in ("PriorityClass", "Namespace", "ClusterRole", "ClusterRoleBinding")
            keys.add(
                (
                    str(doc.get("kind")),
                    str(metadata.get("namespace", namespace)) if scoped else "",
                    str(metadata.get("name")),
                )
            )
    return frozenset(keys)


def _refuse_object_clash(scope: Construct, cluster: eks.ICluster, objects: frozenset[tuple[str, str, str]]) -> None:
    """A model named `llama-warm-spare` beside `llama` with warm spares would render one Deployment twice."""
    for other in Stack.of(scope).node.find_all():
        if not isinstance(other, ServedModel) or other._cluster is not cluster:
            continue
        shared = sorted(objects & other._objects)
        require(
            not shared,
            "model_name",
            "/".join(shared[0][1:]) if shared else "",
            f"objects of their own: {other.node.path} already applies {shared[0][0] if shared else ''} "
            f"{'/'.join(shared[0][1:]) if shared else ''} (rename the model or pass ServerOptions(name=...))",
        )


def _runtime_scripts(
    scope: Construct, cluster: eks.ICluster, namespace: str, after: Sequence[IDependable]
) -> AppliedChart:
    """The namespace's shared scripts ConfigMap on `cluster`: applied once per stack, cluster and namespace."""
    stack = Stack.of(scope)
    id = f"FastloadRuntimeScripts-{namespace}-{cluster.node.addr[:8]}"
    existing = stack.node.try_find_child(id)
    if isinstance(existing, AppliedChart):
        return existing
    chart = RuntimeScriptsChart(
        cdk8s.App(), f"fastload-runtime-{namespace}", namespace=namespace, owner=stack.node.addr[:12]
    )
    return AppliedChart(stack, id, cluster=cluster, chart=chart, after=after)


def _literal_bucket_name(bucket: s3.IBucket) -> str:
    """The bucket's name as a literal when one is known at synth (created with bucket_name=, or imported)."""
    if not Token.is_unresolved(bucket.bucket_name):
        return bucket.bucket_name
    cfn = bucket.node.default_child
    if isinstance(cfn, s3.CfnBucket) and isinstance(cfn.bucket_name, str) and not Token.is_unresolved(cfn.bucket_name):
        return cfn.bucket_name
    return bucket.bucket_name
