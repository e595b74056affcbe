"""ServerChart synthesised with cdk8s: what the Deployment runs, and every manifest is schema-valid."""

import json

import cdk8s
import kubernetes_validate
import pytest

from fastload_constructs.core import naming
from fastload_constructs.core.engines.vllm.launch import CACHE_MOUNT_PATH, compile_factors
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.serving.cache_sharing import LAUNCH_SCRIPT, MODEL_URI_PLACEHOLDER
from fastload_constructs.core.serving.server_pod import ServerOptions, cache_key_for
from fastload_constructs.core.serving.streamer_env import streamer_env
from fastload_constructs.k8s.namespace_chart import NamespaceChart
from fastload_constructs.k8s.server_chart import ServerChart
from stacks.config import DEFAULT_KUBERNETES_VERSION

MIB = 1024**2
URI_8B = "s3://fastload-test-models/models/llama-3.1-8b"
URI_70B = "s3://fastload-test-models/models/llama-3.1-70b"


@pytest.fixture(scope="module")
def plan_8b():
    return plan(ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16"), "g6e.2xlarge")


@pytest.fixture(scope="module")
def plan_70b():
    return plan(ModelProfile.from_numbers(parameter_count=70_600_000_000, dtype="BF16"), "g6e.12xlarge")


@pytest.fixture(scope="module")
def charts(plan_8b, plan_70b):
    """One app, several models: host-path, TP=4, PVC and empty-dir charts plus the namespace."""
    app = cdk8s.Testing.app()
    return {
        "namespace": NamespaceChart(app, "namespace"),
        "small": ServerChart(
            app,
            "small",
            plan=plan_8b,
            model_name="llama-8b",
            model_uri=URI_8B,
            region="eu-west-1",
            options=ServerOptions(replicas=2),
        ),
        "tp4": ServerChart(app, "tp4", plan=plan_70b, model_name="llama-70b", model_uri=URI_70B, region="eu-west-1"),
        "pvc": ServerChart(
            app,
            "pvc",
            plan=plan_8b,
            model_name="llama-8b",
            model_uri=URI_8B,
            region="eu-west-1",
            options=ServerOptions(name="llama-8b-pvc", compile_cache="pvc", pvc_size_gib=20),
        ),
        "ephemeral": ServerChart(
            app,
            "ephemeral",
            plan=plan_8b,
            model_name="qwen",
            model_uri=URI_8B,
            region="eu-west-1",
            options=ServerOptions(compile_cache="empty-dir", namespace="other"),
        ),
    }


@pytest.fixture(scope="module")
def docs(charts):
    return {key: cdk8s.Testing.synth(chart) for key, chart in charts.items()}


def only(docs, kind):
    found = [d for d in docs if d["kind"] == kind]
    assert len(found) == 1, kind
    return found[0]


def pod(docs):
    return only(docs, "Deployment")["spec"]["template"]["spec"]


def container(docs):
    (c,) = pod(docs)["containers"]
    return c


def flag(args, name):
    return args[args.index(name) + 1]


def engine_args(c, uri):
    """The `vllm serve` arguments of a container, with the model URI the launcher puts in from the revision."""
    assert c["command"][:2] == ["/bin/sh", "-c"] and c["command"][2] == LAUNCH_SCRIPT
    assert c["args"][:2] == ["vllm", "serve"]
    return [uri if a == MODEL_URI_PLACEHOLDER else a for a in c["args"][2:]]


def all_docs(docs):
    return [(key, d) for key, ds in docs.items() for d in ds]


def test_every_manifest_is_valid_for_the_cluster_version(docs):
    checked = 0
    for _key, doc in all_docs(docs):
        kubernetes_validate.validate(doc, DEFAULT_KUBERNETES_VERSION, strict=True)
        checked += 1
    assert checked >= 17


def test_the_validator_would_catch_a_wrong_field(docs):
    broken = json.loads(json.dumps(only(docs["small"], "Deployment")))
    broken["spec"]["template"]["spec"]["containers"][0]["resource"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, DEFAULT_KUBERNETES_VERSION, strict=True)


def test_objects_per_chart(docs):
    assert sorted(d["kind"] for d in docs["small"]) == [
        "ConfigMap",  # the in-pod scripts: resolve-revision runs in every pod
        "Deployment",
        "NetworkPolicy",
        "PodDisruptionBudget",
        "Service",
        "ServiceAccount",
    ]
    assert sorted(d["kind"] for d in docs["pvc"]) == [
        "ConfigMap",
        "Deployment",
        "NetworkPolicy",
        "PersistentVolumeClaim",
        "PodDisruptionBudget",
        "Service",
    ]  # SA shared with "small"
    assert [d["kind"] for d in docs["namespace"]] == ["Namespace"]


def test_args_run_the_streamer_with_the_plan(docs, plan_8b):
    c = container(docs["small"])
    assert c["image"] == "vllm/vllm-openai:v0.34.0"
    assert c["args"][2] == MODEL_URI_PLACEHOLDER  # the resolved revision's URI, put in by the launcher
    args = engine_args(c, URI_8B)
    assert args[0] == URI_8B
    assert flag(args, "--load-format") == "runai_streamer"
    assert json.loads(flag(args, "--model-loader-extra-config")) == {
        "concurrency": plan_8b.streamer.concurrency,
        "memory_limit": plan_8b.streamer.memory_limit_bytes,
    }
    assert flag(args, "--tensor-parallel-size") == "1"
    assert float(flag(args, "--gpu-memory-utilization")) == plan_8b.gpu_memory_utilization
    assert flag(args, "--served-model-name") == "llama-8b"


def test_env_region_streamer_and_cache_root(docs, plan_8b):
    env = container(docs["small"])["env"]
    assert all("valueFrom" not in e for e in env)  # nothing per pod: the compile-cache hash stays stable
    values = {e["name"]: e["value"] for e in env}
    assert values == {**streamer_env(plan_8b.streamer, region="eu-west-1"), "VLLM_CACHE_ROOT": CACHE_MOUNT_PATH}
    assert values["AWS_REGION"] == values["AWS_DEFAULT_REGION"] == "eu-west-1"
    mounts = {m["name"]: m["mountPath"] for m in container(docs["small"])["volumeMounts"]}
    assert mounts["compile-cache"] == values["VLLM_CACHE_ROOT"] == CACHE_MOUNT_PATH


def test_compile_cache_on_the_instance_store_host_path(docs, plan_8b):
    volumes = {v["name"]: v for v in pod(docs["small"])["volumes"]}
    host = volumes["compile-cache"]["hostPath"]
    c = container(docs["small"])
    env = {e["name"]: e["value"] for e in c["env"]}
    key = cache_key_for(
        plan_8b,
        image="vllm/vllm-openai:v0.34.0",
        model_uri=URI_8B,
        factors=compile_factors(engine_args(c, URI_8B), env),
    )
    expected = f"{naming.node_cache_paths('bottlerocket').compile_cache}/{key}"
    assert host == {"path": expected, "type": "DirectoryOrCreate"}
    assert host["path"].startswith(naming.node_cache_paths("bottlerocket").compile_cache + "/")


def test_compile_cache_on_a_local_nvme_claim(docs):
    claim = only(docs["pvc"], "PersistentVolumeClaim")
    assert claim["spec"]["storageClassName"] == naming.LOCAL_NVME_STORAGE_CLASS
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert claim["spec"]["resources"]["requests"]["storage"] == "20Gi"
    volumes = {v["name"]: v for v in pod(docs["pvc"])["volumes"]}
    assert volumes["compile-cache"]["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
    ephemeral = {v["name"]: v for v in pod(docs["ephemeral"])["volumes"]}
    assert "emptyDir" in ephemeral["compile-cache"] and "medium" not in ephemeral["compile-cache"]["emptyDir"]


def test_shm_is_a_memory_volume_sized_for_tp(docs, plan_8b, plan_70b):
    def shm(key):
        (mount,) = [m for m in container(docs[key])["volumeMounts"] if m["mountPath"] == "/dev/shm"]
        (vol,) = [v for v in pod(docs[key])["volumes"] if v["name"] == mount["name"]]
        assert vol["emptyDir"]["medium"] == "Memory"
        return vol["emptyDir"]["sizeLimit"]

    assert shm("small") == f"{plan_8b.shm_bytes // MIB}Mi"
    assert shm("tp4") == f"{plan_70b.shm_bytes // MIB}Mi"
    assert plan_70b.shm_bytes > plan_8b.shm_bytes


def test_tp4_chart_streams_distributed_on_four_gpus(docs, plan_70b):
    c = container(docs["tp4"])
    assert json.loads(flag(c["args"], "--model-loader-extra-config"))["distributed"] is True
    assert flag(c["args"], "--tensor-parallel-size") == "4"
    assert c["resources"]["limits"][naming.GPU_RESOURCE] == 4
    assert c["resources"]["requests"][naming.GPU_RESOURCE] == 4
    assert c["resources"]["limits"]["memory"] == f"{plan_70b.pod_memory_bytes // MIB}Mi"


def test_resources(docs, plan_8b):
    r = container(docs["small"])["resources"]
    assert r["limits"][naming.GPU_RESOURCE] == r["requests"][naming.GPU_RESOURCE] == 1
    assert r["requests"]["memory"] == r["limits"]["memory"] == f"{plan_8b.pod_memory_bytes // MIB}Mi"
    assert r["requests"]["cpu"] == str(plan_8b.pod_cpu)


def test_probes(docs, plan_8b):
    c = container(docs["small"])
    startup, ready, live = c["startupProbe"], c["readinessProbe"], c["livenessProbe"]
    assert startup["httpGet"] == {"path": "/health", "port": 8000, "scheme": "HTTP"}
    assert startup["periodSeconds"] * startup["failureThreshold"] == plan_8b.startup_probe.budget_seconds
    assert startup["failureThreshold"] == plan_8b.startup_probe.failure_threshold
    assert ready["httpGet"]["path"] == "/v1/models"
    assert live["httpGet"]["path"] == "/health"
    # Liveness waits for startup to succeed (Kubernetes semantics); no delay of its own needed.
    assert live.get("initialDelaySeconds", 0) == 0
    assert live["periodSeconds"] * live["failureThreshold"] >= 30


def test_scheduling_onto_gpu_nodes(docs):
    spec = pod(docs["small"])
    assert spec["tolerations"] == [
        {
            "key": naming.GPU_TAINT_KEY,
            "operator": "Equal",
            "value": naming.GPU_TAINT_VALUE,
            "effect": naming.GPU_TAINT_EFFECT,
        }
    ]
    (term,) = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    required = {e["key"]: e["values"] for e in term["matchExpressions"] if e["operator"] == "In"}
    assert required == {
        naming.WELL_KNOWN_INSTANCE_TYPE: ["g6e.2xlarge"],
        naming.LABEL_INSTANCE_STORE: [naming.INSTANCE_STORE_RAID0],
    }
    (term,) = pod(docs["tp4"])["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert {e["key"]: e["values"] for e in term["matchExpressions"]}[naming.WELL_KNOWN_INSTANCE_TYPE] == [
        "g6e.12xlarge"
    ]
    (term,) = pod(docs["pvc"])["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"
    ]
    assert naming.LABEL_INSTANCE_STORE not in {e["key"] for e in term["matchExpressions"]}


def test_rollout_disruption_budget_and_service_select_the_pods(docs):
    deployment = only(docs["small"], "Deployment")
    assert deployment["spec"]["replicas"] == 2
    assert deployment["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    selector = deployment["spec"]["selector"]["matchLabels"]
    assert selector.items() <= pod_labels.items()
    pdb = only(docs["small"], "PodDisruptionBudget")
    assert pdb["spec"]["selector"]["matchLabels"] == selector
    assert pdb["spec"]["maxUnavailable"] == 1
    service = only(docs["small"], "Service")
    assert service["spec"]["type"] == "ClusterIP"
    assert service["spec"]["selector"].items() <= pod_labels.items()
    assert [(p["port"], p["targetPort"]) for p in service["spec"]["ports"]] == [(8000, 8000)]
    assert container(docs["small"])["ports"][0]["containerPort"] == 8000


def test_service_account_matches_the_pod_identity_name(docs, charts):
    sa = only(docs["small"], "ServiceAccount")
    assert sa["metadata"] == {
        **sa["metadata"],
        "name": naming.service_account_name("llama-8b"),
        "namespace": naming.DEFAULT_NAMESPACE,
    }
    assert pod(docs["small"])["serviceAccountName"] == sa["metadata"]["name"]
    assert pod(docs["pvc"])["serviceAccountName"] == sa["metadata"]["name"]
    assert charts["small"].service_url == "http://llama-8b.inference.svc.cluster.local:8000"


def test_security_context(docs):
    sc = container(docs["small"])["securityContext"]
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"]
    assert sc["privileged"] is False
    assert sc["seccompProfile"] == {"type": "RuntimeDefault"}
    assert pod(docs["small"])["automountServiceAccountToken"] is False


def test_recommended_labels_and_namespace_on_every_object(docs):
    for key, doc in all_docs(docs):
        labels = doc["metadata"]["labels"]
        assert labels["app.kubernetes.io/part-of"] == naming.PART_OF, key
        assert labels["app.kubernetes.io/managed-by"] == naming.MANAGED_BY, key
        if doc["kind"] != "Namespace":
            expected_ns = "other" if key == "ephemeral" else naming.DEFAULT_NAMESPACE
            assert doc["metadata"]["namespace"] == expected_ns, key
            assert labels["app.kubernetes.io/name"] == "vllm"
            assert labels["app.kubernetes.io/instance"] == doc["metadata"]["name"].removesuffix("-vllm").removesuffix(
                "-compile-cache"
            ).removesuffix("-cache-sync")
    template_labels = only(docs["tp4"], "Deployment")["spec"]["template"]["metadata"]["labels"]
    assert template_labels["app.kubernetes.io/instance"] == "llama-70b"
    assert template_labels["app.kubernetes.io/version"] == "v0.34.0"


def test_several_models_get_distinct_names(docs):
    names = [(d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]) for _, d in all_docs(docs)]
    assert len(names) == len(set(names))
    deployments = {d["metadata"]["name"] for _, d in all_docs(docs) if d["kind"] == "Deployment"}
    assert deployments == {"llama-8b", "llama-70b", "llama-8b-pvc", "qwen"}


def test_a_second_chart_with_the_same_name_is_refused(plan_8b):
    app = cdk8s.Testing.app()
    ServerChart(app, "a", plan=plan_8b, model_name="llama", model_uri=URI_8B, region="eu-west-1")
    with pytest.raises(FastloadConfigError) as err:
        ServerChart(app, "b", plan=plan_8b, model_name="llama", model_uri=URI_8B, region="eu-west-1")
    assert err.value.field == "name"
    # Same name in another namespace is a different Deployment.
    ServerChart(
        app,
        "c",
        plan=plan_8b,
        model_name="llama",
        model_uri=URI_8B,
        region="eu-west-1",
        options=ServerOptions(namespace="b"),
    )


def test_bad_input_fails_at_construction(plan_8b):
    app = cdk8s.Testing.app()
    with pytest.raises(FastloadConfigError) as err:
        ServerChart(
            app, "x", plan=plan_8b, model_name="llama", model_uri="s3://fastload-test-models", region="eu-west-1"
        )
    assert err.value.field == "model_uri.prefix"
    assert app.node.try_find_child("x") is None
