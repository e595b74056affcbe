"""One served model on an EKS cluster: its read-only identity, its server, and everything they wait for.

`ServedModel` is what serving one model in an existing CDK app takes: a Pod Identity role that
reads only the model's prefix of any `s3.IBucket`, the tuned `ServerChart` applied through the
cluster's kubectl provider, and the order that makes it work (the association and its grants exist
before a pod asks for credentials). What the model needs on the cluster comes with it, shared with
the stack's other models there: its namespace and the in-pod scripts (`ServingNamespace`), the
PriorityClasses its pods name (`ServingPriorityClasses`). Its warm spares and its KEDA
ScaledObject are applied after the server, and any other chart of the model plugs in with
`add_chart`; every chart applied here is found by `ManifestExport`.

Every input is checked, and every chart rendered, before anything joins the construct tree; what
needs every model of the stack (two of one name, one object applied twice) is checked once at synth
(`infra.serving_registry`).
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

from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import ServingPlan, plan
from fastload_constructs.core.scaling.autoscaling import Autoscaling, scaling_behavior
from fastload_constructs.core.serving.access import ServingAccess
from fastload_constructs.core.serving.clashes import Server
from fastload_constructs.core.serving.server_pod import ServerOptions, ServerSpec
from fastload_constructs.core.serving.warm_spares import warm_spare_spec
from fastload_constructs.core.validation import check_dns_label, check_key_prefix
from fastload_constructs.infra.applied_chart import AppliedChart, check_cluster
from fastload_constructs.infra.model_bucket import ModelBucket
from fastload_constructs.infra.model_reader_identity import ModelReaderIdentity
from fastload_constructs.infra.scale_out_metrics import KedaScaling
from fastload_constructs.infra.serving_namespace import ServingNamespace, scripts_owner
from fastload_constructs.infra.serving_priority_classes import CLASS_NAMES, ServingPriorityClasses
from fastload_constructs.infra.serving_registry import ServingRegistry
from fastload_constructs.k8s.keda import AutoscalingChart
from fastload_constructs.k8s.server_chart import ServerChart
from fastload_constructs.k8s.standby import StandbyEnginesChart
from fastload_constructs.k8s.warm_spares import WarmSparesChart


class ServedModel(Construct):
    """A model served on `cluster` by its plan's engine (vLLM or SGLang), streaming from `prefix` of `bucket`.

    Props (each checked, the field named, before anything is added):
    - `cluster`: an aws_eks_v2 `ICluster` with a kubectl provider (an imported one needs `kubectl_provider=`).
      Required.
    - `bucket`: any `s3.IBucket`, or a `ModelBucket`. Required.
    - `prefix`: the key prefix the model is staged under. Required.
    - `model_name`: a DNS label naming the model's objects and service account. Required.
    - `plan`: the `ServingPlan`. How the model is served (`plan.serving`: engine, image, caches, warm spares,
      standbys) is the plan's alone. Default: planned from `profile`, `instance_type` and `tuning`.
    - `profile`, `instance_type`: the model and the GPU instance type to plan for, without `plan`. Default: None.
    - `tuning`: the `TuningOptions` of that plan. Default: `TuningOptions()`.
    - `server`: `ServerOptions` (namespace, replicas, compile-cache volume and prefix, extra args...).
      Default: `ServerOptions()`.
    - `access`: `ServingAccess`: who else may reach the server (CIDRs, namespaces), an API key.
      Default: None, the namespace's own pods only.
    - `autoscaling`: `KedaScaling`: a KEDA ScaledObject on the engine's queue metric, HPA behaviour from the
      plan; `server.replicas` must then be None or 1 (KEDA's HPA owns the count). Default: None, a fixed count.
    - `kms_key`: the key the bucket's objects are encrypted with. Default: the `ModelBucket`'s, else none.
    - `after`: your own prerequisites of the server (a storage class, node pools, `FmaController.chart` for
      standbys). Default: nothing; the namespace and the PriorityClasses come by themselves.

    What is applied, and in which order, is decided in `_render_charts`.

    Attributes: `plan`, `reader` (`ModelReaderIdentity`), `chart` (`ServerChart`), `standby_chart`,
    `spare_chart`, `autoscaling_chart` (None when off), `server` (the `AppliedChart` of the server, or of
    its standbys), `spares`, `autoscaler` (their `AppliedChart`s, None when off), `applied` (every
    `AppliedChart`, in apply order), `serving_namespace`, `priority_classes` (None when the pods name no
    class of ours), `runtime_scripts`, `model_uri`, `service_url`.
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
        self.plan = self._plan(plan, profile, instance_type, tuning)
        options = self._check_inputs(server, access, autoscaling, model_name, owner=scripts_owner(scope))
        prefix = check_key_prefix(prefix)
        self.model_uri = f"s3://{_literal_bucket_name(bucket)}/{prefix}"
        self._render_charts(model_name, options, access, autoscaling, region=Stack.of(scope).region)
        self._check_cluster(cluster, autoscaling)
        super().__init__(scope, id)
        self.reader = self._identity(cluster, bucket, kms_key, prefix, model_name, options)
        waits = self._prerequisites(cluster, after)
        self._apply(cluster, waits, autoscaling)
        self._watch_metrics(autoscaling)
        self._join_stack_checks(cluster)

    @property
    def service_url(self) -> str:
        """In-cluster URL of the OpenAI-compatible API."""
        return self.chart.service_url

    def add_chart(self, id: str, chart: cdk8s.Chart, *, after: Sequence[IDependable] = ()) -> AppliedChart:
        """Apply another chart of this model (a ScaledObject, warm spares) once the server is applied."""
        applied = AppliedChart(self, id, cluster=self._cluster, chart=chart, after=[self.server, *after])
        self.applied.append(applied)
        return applied

    # Before the construct joins the tree: decide and check.

    @staticmethod
    def _plan(
        serving_plan: ServingPlan | None,
        profile: ModelProfile | None,
        instance_type: str | None,
        tuning: TuningOptions | None,
    ) -> ServingPlan:
        """`plan`, or one made from `profile`, `instance_type` and `tuning`: never both."""
        if serving_plan is not None:
            require(isinstance(serving_plan, ServingPlan), "plan", serving_plan, "a ServingPlan")
            if profile is not None or instance_type is not None or tuning is not None:
                raise FastloadConfigError(
                    "plan", "plan with profile/instance_type/tuning", "a plan, or the inputs to one"
                )
            return serving_plan
        require(
            isinstance(profile, ModelProfile) and instance_type is not None,
            "profile",
            profile,
            "a ModelProfile with instance_type (or pass plan=)",
        )
        assert profile is not None and instance_type is not None
        return plan(profile, instance_type, tuning)

    def _check_inputs(
        self,
        server: ServerOptions | None,
        access: ServingAccess | None,
        autoscaling: KedaScaling | None,
        model_name: str,
        *,
        owner: str,
    ) -> ServerOptions:
        """The props the plan does not check, and the server options they lead to."""
        options = server if server is not None else ServerOptions()
        require(isinstance(options, ServerOptions), "server", options, "a ServerOptions")
        require(
            access is None or isinstance(access, ServingAccess),
            "access",
            access,
            "None or a ServingAccess(network_policy=..., allow_from_cidrs=..., api_key_secret=...)",
        )
        check_dns_label(model_name, "model_name")
        options = _autoscaled(options, autoscaling, self.plan)
        # The in-pod scripts come from the namespace's one ConfigMap (`ServingNamespace.runtime_scripts`), not
        # one per model (the template size limit), keyed by the stack that applies (and deletes) it.
        return replace(options, shared_runtime_scripts=True, runtime_scripts_owner=owner)

    def _render_charts(
        self,
        model_name: str,
        options: ServerOptions,
        access: ServingAccess | None,
        autoscaling: KedaScaling | None,
        *,
        region: str,
    ) -> None:
        """Every chart of the model, into a cdk8s App of its own (outside the construct tree), so each one's
        checks run before anything is added. What is rendered, and applied in this order:

        | plan's warm_spares | plan's standbys | autoscaling | charts applied, in order                        |
        | ------------------ | --------------- | ----------- | ----------------------------------------------- |
        | 0                  | 0               | None        | server                                          |
        | N > 0              | 0               | None        | server, N warm spares                           |
        | 0                  | N > 0           | None        | standby engines, in place of the server's pods  |
        | any                | any             | KedaScaling | the above, then a ScaledObject (no replicas)    |

        `Serving` refuses warm spares beside standbys, and standbys on an engine without sleep mode (SGLang).
        The engine changes what is inside the charts (image, args, probes, queue metric), never which.
        """
        self.cdk8s_app = cdk8s.App()
        self.chart = ServerChart(
            self.cdk8s_app,
            options.name or model_name,
            plan=self.plan,
            model_name=model_name,
            model_uri=self.model_uri,
            region=region,
            options=options,
            access=access,
        )
        spec = self.chart.spec
        self.namespace, self.name, self.service_account = spec.namespace, spec.name, spec.service_account_name
        serving = self.plan.serving
        self.spare_chart = self._spare_chart(spec) if serving.warm_spares > 0 else None
        self.standby_chart = (
            StandbyEnginesChart(self.cdk8s_app, f"{spec.name}-standby", plan=self.plan, server=spec, access=access)
            if serving.standbys > 0
            else None
        )
        self.autoscaling_chart = (
            AutoscalingChart(
                self.cdk8s_app,
                f"{spec.name}-autoscaling",
                server=spec.name,
                autoscaling=_engine_settings(autoscaling, self.plan),
                behavior=scaling_behavior(self.plan),
                server_address=autoscaling.query_endpoint,
                region=autoscaling.region,
                namespace=spec.namespace,
            )
            if autoscaling is not None
            else None
        )

    def _spare_chart(self, spec: ServerSpec) -> WarmSparesChart:
        """The warm spares, after their own checks (their fields named as this construct's props)."""
        try:
            warm_spare_spec(self.plan, spec)
        except FastloadConfigError as exc:
            field = "server.priority_class_name" if exc.field == "priority_class_name" else exc.field
            raise FastloadConfigError(field, exc.value, exc.accepted) from None
        return WarmSparesChart(self.cdk8s_app, f"{spec.name}-warm-spares", plan=self.plan, server=spec)

    def _check_cluster(self, cluster: eks.ICluster, autoscaling: KedaScaling | None) -> None:
        """The cluster takes manifests (a kubectl provider), and an autoscaled server's metric is scraped."""
        check_cluster(cluster)
        if autoscaling is not None:
            autoscaling.controller.metrics.check_scraped(self.namespace)

    # In the tree: identity, prerequisites, charts, metrics.

    def _identity(
        self,
        cluster: eks.ICluster,
        bucket: s3.IBucket | ModelBucket,
        kms_key: kms.IKey | None,
        prefix: str,
        model_name: str,
        options: ServerOptions,
    ) -> ModelReaderIdentity:
        """The Pod Identity role reading the model's prefix (and, with a shared compile cache, its folder of
        the cache prefix), bound to the server's service account: the spares run as it too."""
        shared_cache = self.plan.serving.shared_compile_cache
        return ModelReaderIdentity(
            self,
            "Reader",
            cluster=cluster,
            bucket=bucket,
            kms_key=kms_key,
            prefix=prefix,
            model_name=model_name,
            namespace=options.namespace,
            compile_cache_prefix=options.compile_cache_prefix if shared_cache else None,
        )

    def _prerequisites(self, cluster: eks.ICluster, after: Sequence[IDependable]) -> list[IDependable]:
        """What the server waits for besides its identity: its namespace, the PriorityClasses when its pods
        name one of ours (each found or made once per stack and cluster), then the caller's `after`."""
        self.serving_namespace = ServingNamespace.of(self, cluster, self.namespace)
        waits: list[IDependable] = [self.serving_namespace.ready]
        self.priority_classes: ServingPriorityClasses | None = None
        if self.chart.spec.priority_class_name in CLASS_NAMES:
            self.priority_classes = ServingPriorityClasses.of(self, cluster)
            waits.append(self.priority_classes.ready)
        return [*waits, *after]

    def _apply(self, cluster: eks.ICluster, waits: Sequence[IDependable], autoscaling: KedaScaling | None) -> None:
        """The server once its identity (Pod Identity hands out credentials when a pod starts), its
        prerequisites and the namespace's scripts exist; then its spares and its ScaledObject after it."""
        spec, self._cluster = self.chart.spec, cluster
        self.runtime_scripts = (
            self.serving_namespace.runtime_scripts(after=waits) if spec.init_containers or spec.sidecars else None
        )
        scripts = [self.runtime_scripts] if self.runtime_scripts is not None else []
        self.server = AppliedChart(
            self,
            "Server",
            cluster=cluster,
            chart=self.standby_chart if self.standby_chart is not None else self.chart,
            after=[self.reader.identity.ready, *waits, *scripts],
        )
        self.applied: list[AppliedChart] = [self.server]
        self.spares = self.add_chart("WarmSpares", self.spare_chart) if self.spare_chart is not None else None
        # ScaledObject is a KEDA CRD: KEDA's Helm chart first.
        self.autoscaler = (
            self.add_chart("Autoscaling", self.autoscaling_chart, after=[autoscaling.controller.chart])
            if self.autoscaling_chart is not None and autoscaling is not None
            else None
        )

    def _watch_metrics(self, autoscaling: KedaScaling | None) -> None:
        """An alert when the autoscaled server's queue metric goes missing (KEDA would hold its replicas)."""
        if autoscaling is not None:
            metric = _engine_settings(autoscaling, self.plan).prometheus_metric
            autoscaling.controller.metrics.watch_server(self.name, self.namespace, metric)

    def _join_stack_checks(self, cluster: eks.ICluster) -> None:
        """What the stack's clash checks need of this model: they run once, at synth (`ServingRegistry`)."""
        server = Server(self.node.path, cluster.node.addr, self.namespace, self.name, self.service_account)
        ServingRegistry.of(self).add_server(server)


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


def _engine_settings(autoscaling: KedaScaling, serving_plan: ServingPlan) -> Autoscaling:
    """The autoscaling settings on the plan's engine's queue metric (vllm:num_requests_waiting or
    sglang:num_queue_reqs)."""
    return replace(autoscaling.settings, engine=serving_plan.engine)


def _literal_bucket_name(bucket: s3.IBucket | ModelBucket) -> str:
    """The bucket's name as a literal when one is known at synth (created with bucket_name=, or imported):
    the exported YAML then holds no placeholder for it."""
    if isinstance(bucket, ModelBucket):
        bucket = bucket.bucket
    if not Token.is_unresolved(bucket.bucket_name):
        return bucket.bucket_name
    cfn = bucket.node.default_child
    if isinstance(cfn, s3.CfnBucket) and isinstance(cfn.bucket_name, str) and not Token.is_unresolved(cfn.bucket_name):
        return cfn.bucket_name
    return bucket.bucket_name
