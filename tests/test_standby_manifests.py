"""Standby engines on FMA v0.6.4: the emitted objects against the vendored CRDs, readiness, and who reaches /sleep.

NetworkPolicies are evaluated with the evaluator of test_attack_network_access
(Kubernetes ingress semantics); the path filter's rendered nginx config runs for
real on loopback in front of a recording engine.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import threading
import time
from http.server import ThreadingHTTPServer

import cdk8s
import jsonschema
import pytest
import yaml

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.serving.access import ServingAccess
from fastload_constructs.core.serving.cache_sharing import NODE_LOCAL_MODEL_LINK, REVISION_MOUNT_PATH
from fastload_constructs.core.serving.path_filter import NGINX_IMAGE, PathFilter, nginx_config
from fastload_constructs.core.serving.server_pod import ServerOptions, server_spec
from fastload_constructs.core.serving.standby import (
    ANNOTATION_ISC,
    LABEL_FMA_SLEEPING,
    LABEL_STANDBY,
    controller_pod_labels,
    standby_spec,
)
from fastload_constructs.k8s.standby import StandbyEnginesChart, StandbyNodePoolChart
from tests.crd_schemas import crd_schema, validate_custom_resource
from tests.serving_plans import planned
from tests.test_attack_network_access import NAMESPACE, ingress_allowed, pod_in

LLAMA_8B = ModelProfile.from_numbers(parameter_count=8_030_261_248)
FMA_KINDS = {"InferenceServerConfig", "LauncherConfig", "LauncherPopulationPolicy"}


def serving_plan(**serving):
    return planned(LLAMA_8B, "g6e.2xlarge", **serving)


def server(p=None, **options):
    p = p or serving_plan()
    # FMA's launcher reads an s3:// model as written (a flat stage or a named revision), not the pointer.
    options.setdefault("follow_revisions", p.serving.model_cache != "s3")
    return server_spec(
        p,
        model_name="llama",
        model_uri="s3://models-bucket/models/llama",
        region="us-east-1",
        options=ServerOptions(replicas=None, **options),
    )


def synth(standbys=2, access=None, model_cache="s3", **options):
    p = serving_plan(model_cache=model_cache, standbys=standbys)
    app = cdk8s.App()
    StandbyEnginesChart(app, "llama", plan=p, server=server(p, **options), access=access)
    return [d for d in yaml.safe_load_all(app.synth_yaml()) if d]


def one(docs, kind, name=None):
    (doc,) = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    return doc


@pytest.mark.parametrize("model_cache", ["s3", "node-local"])
def test_every_fma_object_validates_against_the_vendored_v0_6_4_crds(model_cache):
    docs = synth(model_cache=model_cache)
    fma = [d for d in docs if d["kind"] in FMA_KINDS]
    assert sorted(d["kind"] for d in fma) == sorted(FMA_KINDS)
    for doc in fma:
        assert doc["apiVersion"] == "fma.llm-d.ai/v1alpha1"
        validate_custom_resource(doc)


def test_the_schema_is_strict_enough_to_catch_a_misspelt_field():
    doc = one(synth(), "InferenceServerConfig")
    doc["spec"]["modelServerConfig"]["envVars"] = {"A": "1"}  # the CRD spells it env_vars
    with pytest.raises(jsonschema.ValidationError):
        validate_custom_resource(doc)
    lc = one(synth(), "LauncherConfig")
    del lc["spec"]["maxInstances"]
    with pytest.raises(jsonschema.ValidationError):
        validate_custom_resource(lc)
    lpp = one(synth(), "LauncherPopulationPolicy")
    del lpp["spec"]["countForLauncher"]
    with pytest.raises(jsonschema.ValidationError):
        validate_custom_resource(lpp)
    assert (
        "countForLauncher"
        in crd_schema("fma.llm-d.ai/v1alpha1", "LauncherPopulationPolicy")["properties"]["spec"]["required"]
    )


def test_the_objects_name_each_other_and_the_requesters_point_at_the_isc():
    docs = synth()
    isc, lc, lpp = (one(docs, k) for k in ("InferenceServerConfig", "LauncherConfig", "LauncherPopulationPolicy"))
    assert isc["spec"]["launcherConfigName"] == lc["metadata"]["name"] == "llama"
    assert lpp["spec"]["countForLauncher"] == [{"launcherConfigName": "llama", "launcherCount": 1}]
    assert lpp["spec"]["enhancedNodeSelector"]["labelSelector"]["matchLabels"][LABEL_STANDBY] == "true"
    for name in ("llama", "llama-standby"):
        template = one(docs, "Deployment", name)["spec"]["template"]
        assert template["metadata"]["annotations"][ANNOTATION_ISC] == "llama"
        assert template["metadata"]["annotations"]["dual-pods.llm-d.ai/admin-port"] == "8081"
        (container,) = template["spec"]["containers"]
        assert container["name"] == "inference-server"  # the name FMA's controller looks for
        assert container["resources"]["requests"]["nvidia.com/gpu"] == 1
        assert container["image"].endswith("/requester:v0.6.4")


def test_isc_options_run_our_server_asleep_capable_with_room_for_a_sleeper():
    isc = one(synth(), "InferenceServerConfig")["spec"]["modelServerConfig"]
    options = isc["options"].split()
    assert options[:2] == ["--model", "s3://models-bucket/models/llama"]
    assert "--enable-sleep-mode" in options and "--port" not in options  # FMA appends --port <isc port>
    utilization = float(options[options.index("--gpu-memory-utilization") + 1])
    assert utilization < 0.9 and (0.9 - utilization) * 45_776 * 2**20 >= 2 * 2**30
    assert json.loads(options[options.index("--model-loader-extra-config") + 1])["concurrency"] >= 1
    assert isc["env_vars"]["VLLM_SERVER_DEV_MODE"] == "1"
    assert isc["env_vars"]["VLLM_CACHE_ROOT"] == "/var/cache/vllm"
    assert isc["port"] == 8000


def test_the_launcher_holds_the_sleepers_weights_and_keeps_its_node():
    lc = one(synth(), "LauncherConfig")["spec"]
    assert lc["maxInstances"] == 1
    assert lc["podTemplate"]["metadata"]["annotations"] == {"karpenter.sh/do-not-disrupt": "true"}
    engine, proxy = lc["podTemplate"]["spec"]["containers"]
    assert engine["name"] == "inference-server" and engine["image"].endswith("/launcher:v0.6.4")
    request = int(engine["resources"]["requests"]["memory"].removesuffix("Mi")) * 2**20
    assert request >= LLAMA_8B.total_bytes  # the level-1 weight backup is pinned in this pod
    assert "nvidia.com/gpu" not in engine["resources"]["requests"]  # FMA strips GPU requests from launchers
    assert proxy["ports"] == [{"containerPort": 8100, "name": "http"}]


def test_node_local_copy_moves_into_the_launcher():
    lc = one(synth(model_cache="node-local"), "LauncherConfig")["spec"]["podTemplate"]["spec"]
    # The launcher pod resolves the published revision when it starts and copies that one.
    assert [c["name"] for c in lc["initContainers"]] == ["resolve-revision", "stage-model"]
    assert "--revision-dir" in lc["initContainers"][1]["command"]
    volumes = {v["name"]: v for v in lc["volumes"]}
    assert set(volumes) >= {"model-cache", "cache-sync", "compile-cache", "dshm", "model-revision"}
    assert volumes["model-revision"]["emptyDir"]["medium"] == "Memory"
    docs = synth(model_cache="node-local")
    assert one(docs, "ConfigMap", "llama-cache-sync")


def test_the_launcher_sees_only_its_own_models_copy():
    """Isolation on the node: the engine mounts its model's folder, never the node's whole cache."""
    lc = one(synth(model_cache="node-local"), "LauncherConfig")["spec"]["podTemplate"]["spec"]
    engine = next(c for c in lc["containers"] if c["name"] == "inference-server")
    (mount,) = [m for m in engine["volumeMounts"] if m["name"] == "model-cache"]
    options = one(synth(model_cache="node-local"), "InferenceServerConfig")["spec"]["modelServerConfig"]["options"]
    (stage,) = [c for c in lc["initContainers"] if c["name"] == "stage-model"]
    folder = stage["command"][stage["command"].index("--dest") + 1]
    assert mount == {
        "name": "model-cache",
        "mountPath": folder,
        "subPath": folder.removeprefix("/models/"),
        "readOnly": True,
    }
    # The engine opens the launcher pod's own link to the copy of the revision it resolved.
    assert options.split()[options.split().index("--model") + 1] == NODE_LOCAL_MODEL_LINK
    (link,) = [m for m in engine["volumeMounts"] if m["name"] == "model-revision"]
    assert link == {"name": "model-revision", "mountPath": REVISION_MOUNT_PATH, "readOnly": True}


def test_an_s3_model_that_follows_revisions_is_refused_since_fma_cannot_follow_the_pointer():
    p = serving_plan(model_cache="s3", standbys=2)
    with pytest.raises(FastloadConfigError) as err:
        StandbyEnginesChart(cdk8s.App(), "llama", plan=p, server=server(p, follow_revisions=True))
    assert err.value.field == "follow_revisions" and "node-local" in err.value.accepted


@pytest.mark.parametrize("model_cache", ["s3", "node-local"])
def test_launcher_pods_break_baseline_only_by_the_node_caches_vllm_pods_use_too(model_cache):
    from fastload_constructs.core.naming import node_cache_paths

    paths = node_cache_paths("bottlerocket")
    from tests.pod_security import baseline_violations
    from tests.pss_exemptions import unexempted_violations

    docs = synth(model_cache=model_cache)
    template = one(docs, "LauncherConfig")["spec"]["podTemplate"]
    pod = {"kind": "Pod", "metadata": {"namespace": NAMESPACE, **template["metadata"]}, "spec": template["spec"]}
    for finding in baseline_violations(pod):
        assert finding.startswith("hostPathVolumes:"), finding
        assert f"host path {paths.compile_cache}/" in finding or f"host path {paths.models}" in finding
    for name in ("llama", "llama-standby"):
        assert unexempted_violations(one(docs, "Deployment", name)) == []


def launcher_pod_labels(docs, *, awake: bool) -> dict:
    """A launcher Pod as FMA makes it: our template labels, its own, and the ISC labels only while awake."""
    lc = one(docs, "LauncherConfig")["spec"]
    labels = {
        **lc["podTemplate"]["metadata"]["labels"],
        "app.kubernetes.io/component": "launcher",
        "dual-pods.llm-d.ai/launcher-config-name": "llama",
        LABEL_FMA_SLEEPING: "false" if awake else "true",
    }
    if awake:
        labels.update(one(docs, "InferenceServerConfig")["spec"]["modelServerConfig"]["labels"])
    return labels


def test_no_request_reaches_a_sleeping_engine():
    docs = synth()
    service = one(docs, "Service")["spec"]
    selects = lambda labels: all(labels.get(k) == v for k, v in service["selector"].items())  # noqa: E731
    assert selects(launcher_pod_labels(docs, awake=True))
    assert not selects(launcher_pod_labels(docs, awake=False))
    # Nor a requester (it never listens on the engine port) nor a primer.
    for name in ("llama", "llama-standby"):
        assert not selects(one(docs, "Deployment", name)["spec"]["template"]["metadata"]["labels"])
    assert service["ports"] == [{"name": "http", "port": 8000, "targetPort": 8100, "protocol": "TCP"}]
    # Requesters are Ready only when FMA says their engine is awake.
    (container,) = one(docs, "Deployment", "llama")["spec"]["template"]["spec"]["containers"]
    assert container["readinessProbe"]["httpGet"] == {"path": "/ready", "port": 8080}


def test_the_requester_deployment_records_the_plan_with_its_standby_path():
    from fastload_constructs.core.serving.plan_record import PLAN_ANNOTATION

    docs = synth()
    record = json.loads(one(docs, "Deployment", "llama")["metadata"]["annotations"][PLAN_ANNOTATION])
    assert record["paths_s"]["standby"] <= 10
    assert PLAN_ANNOTATION not in (one(docs, "Deployment", "llama-standby")["metadata"].get("annotations") or {})


def test_keda_owns_the_requesters_and_the_primer_rests_at_zero_on_the_standby_pool():
    docs = synth(standbys=3)
    requesters = one(docs, "Deployment", "llama")["spec"]
    primer = one(docs, "Deployment", "llama-standby")["spec"]
    # A re-applied manifest must leave no primer requester holding (and so waking) a standby: the primer rests
    # at 0, and the priming Job (below) raises it to the standby count only until the engines are awake.
    assert "replicas" not in requesters and primer["replicas"] == 0
    required = primer["template"]["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    (term,) = required["nodeSelectorTerms"]
    assert {"key": LABEL_STANDBY, "operator": "In", "values": ["true"]} in term["matchExpressions"]
    affinity = requesters["template"]["spec"]["affinity"]
    (preferred,) = affinity["nodeAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert preferred["preference"]["matchExpressions"][0]["key"] == LABEL_STANDBY
    (sleeper,) = affinity["podAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert _selects(sleeper["podAffinityTerm"]["labelSelector"], launcher_pod_labels(docs, awake=False))
    assert not _selects(sleeper["podAffinityTerm"]["labelSelector"], launcher_pod_labels(docs, awake=True))
    # Two Deployments must not select each other's pods.
    assert not _selects(requesters["selector"], primer["template"]["metadata"]["labels"])
    assert not _selects(primer["selector"], requesters["template"]["metadata"]["labels"])


def primer_job(docs):
    (job,) = [d for d in docs if d["kind"] == "Job"]
    return job


def test_a_job_primes_the_standbys_and_scales_the_primer_back_to_zero_once_their_engines_are_awake():
    """FMA makes a sleeping engine only from a requester bound to an awake one that goes away (FMA v0.6.4
    pkg/controller/dual-pods/inference-server.go: a requester deleted -> ensureUnbound -> POST /sleep): N
    requesters on the standby pool until they are Ready (FMA relays Ready only while the engine is awake), then
    none. Each step is kubectl alone (the image has no shell); a failed step fails the pod and the Job retries."""
    docs = synth(standbys=3)
    job = primer_job(docs)
    assert job["spec"]["backoffLimit"] >= 1 and "ttlSecondsAfterFinished" not in job["spec"]
    pod = job["spec"]["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    steps = [*pod["initContainers"], *pod["containers"]]
    assert [c["name"] for c in steps] == ["scale-up", "wait-ready", "scale-down"]
    for step in steps:
        assert step["image"].startswith("registry.k8s.io/kubectl:v1.35.")
        assert step["command"][0] == "/bin/kubectl" and "--namespace=inference" in step["command"]
        assert "deployment/llama-standby" in step["command"]
    scale_up, wait, scale_down = (step["command"] for step in steps)
    assert "scale" in scale_up and "--replicas=3" in scale_up
    assert "wait" in wait and "--for=jsonpath={.status.readyReplicas}=3" in wait
    assert any(a.startswith("--timeout=") and a != "--timeout=0s" for a in wait)
    assert "scale" in scale_down and "--replicas=0" in scale_down
    # Ready means awake: the primer's requesters are Ready only when FMA relays their engine's readiness.
    (requester,) = one(docs, "Deployment", "llama-standby")["spec"]["template"]["spec"]["containers"]
    assert requester["readinessProbe"]["httpGet"]["path"] == "/ready"


def test_the_priming_job_may_scale_the_primer_and_nothing_else():
    docs = synth()
    job = primer_job(docs)
    account = job["spec"]["template"]["spec"]["serviceAccountName"]
    assert job["spec"]["template"]["spec"]["automountServiceAccountToken"] is True
    (binding,) = [
        d
        for d in docs
        if d["kind"] == "RoleBinding"
        and {"kind": "ServiceAccount", "name": account, "namespace": "inference"} in d["subjects"]
    ]
    role = one(docs, "Role", binding["roleRef"]["name"])
    assert sorted((tuple(r["resources"]), tuple(r["verbs"])) for r in role["rules"]) == [
        (("deployments",), ("get", "list", "watch")),
        (("deployments/scale",), ("get", "patch", "update")),
    ]
    assert all(r["apiGroups"] == ["apps"] and r["resourceNames"] == ["llama-standby"] for r in role["rules"])
    # No other subject holds that Role, and the requesters keep their token-less pods.
    holders = [d for d in docs if d["kind"] == "RoleBinding" and d["roleRef"] == binding["roleRef"]]
    assert [s["name"] for d in holders for s in d["subjects"]] == [account]
    for name in ("llama", "llama-standby"):
        assert one(docs, "Deployment", name)["spec"]["template"]["spec"]["automountServiceAccountToken"] is False


def test_the_priming_job_is_named_by_what_the_standbys_are_made_of():
    """Unchanged, a re-applied chart leaves the finished Job alone (no second prime); a change that makes FMA
    drop the sleepers (ISC, LauncherConfig) or asks for another count is a new Job, which primes again (the
    old one, gone from the manifest, is pruned)."""
    name = primer_job(synth())["metadata"]["name"]
    assert name == primer_job(synth())["metadata"]["name"]
    assert name.startswith("llama-standby-prime-") and len(name) <= 63
    access = ServingAccess(allow_from_cidrs=("10.0.0.0/16",))
    assert primer_job(synth(access=access))["metadata"]["name"] == name  # who may connect: no new engine
    assert primer_job(synth(standbys=3))["metadata"]["name"] != name
    assert primer_job(synth(model_cache="node-local"))["metadata"]["name"] != name
    assert primer_job(synth(extra_args=("--max-num-batched-tokens", "4096")))["metadata"]["name"] != name


def test_the_priming_job_of_a_long_model_name_is_a_label_value():
    p = serving_plan(standbys=1)
    app = cdk8s.App()
    StandbyEnginesChart(app, "m", plan=p, server=server(p, name="m" * 55))
    job = primer_job([d for d in yaml.safe_load_all(app.synth_yaml()) if d])
    assert len(job["metadata"]["name"]) <= 63  # Kubernetes labels each pod with its Job's name


@pytest.mark.parametrize("page", ["docs/standby-engines.md", "README.md"])
def test_the_docs_ask_for_no_hand_step_to_set_standbys_up(page):
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / page).read_text()
    # A command to run (`kubectl ... scale ...`) or a replica count to set: neither is the user's to do.
    assert not re.search(r"`kubectl[^`]*\bscale\b[^`]*`|--replicas=|not yet done by the stack", text)


def _selects(selector, labels):
    return all(labels.get(k) == v for k, v in selector.get("matchLabels", {}).items())


CONTROLLER = pod_in(NAMESPACE, **controller_pod_labels())


def test_only_fma_controller_reaches_sleep_wake_and_the_launcher_api():
    docs = synth()
    policies = [d for d in docs if d["kind"] == "NetworkPolicy"]
    for awake in (True, False):
        launcher = launcher_pod_labels(docs, awake=awake)
        for port in (8000, 8001):  # /sleep, /wake_up, /collective_rpc; /v2/vllm/instances
            assert ingress_allowed(policies, launcher, source=CONTROLLER, port=port)
            assert not ingress_allowed(policies, launcher, source=pod_in(NAMESPACE, app="client"), port=port)
            assert not ingress_allowed(
                policies, launcher, source=pod_in("default", **controller_pod_labels()), port=port
            )
            assert not ingress_allowed(policies, launcher, source={"ip": "10.0.3.7"}, port=port)
            other_release = pod_in(NAMESPACE, **controller_pod_labels("other"))
            assert not ingress_allowed(policies, launcher, source=other_release, port=port)
        # Clients reach the path filter, as they reached vLLM before.
        assert ingress_allowed(policies, launcher, source=pod_in(NAMESPACE, app="client"), port=8100)
        assert not ingress_allowed(policies, launcher, source=pod_in("default", app="client"), port=8100)
    for name in ("llama", "llama-standby"):
        requester = one(docs, "Deployment", name)["spec"]["template"]["metadata"]["labels"]
        assert ingress_allowed(policies, requester, source=CONTROLLER, port=8081)
        assert not ingress_allowed(policies, requester, source=pod_in(NAMESPACE, app="client"), port=8081)


def test_named_gateways_and_cidrs_reach_only_the_path_filter():
    access = ServingAccess(allow_from_namespaces=("envoy-gateway-system",), allow_from_cidrs=("10.0.0.0/16",))
    docs = synth(access=access)
    policies = [d for d in docs if d["kind"] == "NetworkPolicy"]
    launcher = launcher_pod_labels(docs, awake=True)
    gateway = pod_in("envoy-gateway-system", app="envoy")
    assert ingress_allowed(policies, launcher, source=gateway, port=8100)
    assert ingress_allowed(policies, launcher, source={"ip": "10.0.3.7"}, port=8100)
    assert not ingress_allowed(policies, launcher, source=gateway, port=8000)
    assert not ingress_allowed(policies, launcher, source={"ip": "10.0.3.7"}, port=8000)


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"standbys": 0}, "standbys"),
        ({"standbys": 101}, "standbys"),
        ({"standbys": 1, "co_sleepers": -1}, "co_sleepers"),
        ({"standbys": 1, "release": "Bad_Release"}, "release"),
    ],
)
def test_bad_standby_inputs_name_the_field(kwargs, field):
    with pytest.raises(FastloadConfigError) as err:
        standby_spec(serving_plan(), server(), **kwargs)
    assert err.value.field == field


def test_an_argument_with_whitespace_is_refused_since_fma_splits_on_it():
    spec = server(extra_args=("--chat-template", "{{ a }}"))
    with pytest.raises(FastloadConfigError) as err:
        standby_spec(serving_plan(), spec, standbys=1)
    assert err.value.field.startswith("server.args[")


def test_sleepers_that_leave_too_little_kv_cache_are_refused(tmp_path):
    from fastload_constructs.core.model import ModelArchitecture

    config = tmp_path / "config.json"
    config.write_text(
        json.dumps(
            {
                "num_hidden_layers": 32,
                "hidden_size": 4096,
                "num_attention_heads": 32,
                "num_key_value_heads": 8,
                "max_position_embeddings": 131072,
            }
        )
    )
    model = LLAMA_8B.with_architecture(ModelArchitecture.from_file(config))
    p = planned(model, "g6e.2xlarge", TuningOptions(kv_sequences=1), standbys=1)
    assert p.kv_fit is not None
    spec = server(p)
    sleepers_that_do_not_fit = int(p.kv_fit.kv_available_bytes - p.kv_fit.kv_needed_bytes) // (2 * 2**30) + 1
    with pytest.raises(FastloadConfigError) as err:
        standby_spec(p, spec, standbys=1, co_sleepers=min(8, sleepers_that_do_not_fit))
    assert err.value.field == "standbys" and "KV cache" in err.value.accepted


def test_standby_node_pool_is_labelled_tainted_and_limited():
    app = cdk8s.App()
    StandbyNodePoolChart(app, "standby-g6e", instance_type="g6e.2xlarge", node_class="fastload-gpu", gpu_limit=2)
    (pool,) = [d for d in yaml.safe_load_all(app.synth_yaml()) if d]
    validate_custom_resource(pool)
    assert pool["spec"]["limits"] == {"nvidia.com/gpu": 2}
    assert pool["spec"]["template"]["metadata"]["labels"][LABEL_STANDBY] == "true"
    assert {"key": LABEL_STANDBY, "value": "true", "effect": "NoSchedule"} in pool["spec"]["template"]["spec"]["taints"]


# The path filter: nginx from the rendered ConfigMap, for real on loopback (tests/test_path_filter.py attacks it)


def test_the_path_filter_is_nginx_reading_its_configmap():
    docs = synth()
    lc = one(docs, "LauncherConfig")["spec"]["podTemplate"]["spec"]
    (proxy,) = [c for c in lc["containers"] if c["name"] == "path-filter"]
    assert proxy["image"] == NGINX_IMAGE and proxy["command"][0] == "nginx"
    assert proxy["securityContext"]["readOnlyRootFilesystem"] is True and proxy["securityContext"]["runAsUser"] == 101
    volumes = {v["name"]: v for v in lc["volumes"]}
    mounts = {m["name"]: m["mountPath"] for m in proxy["volumeMounts"]}
    config = volumes["path-filter-config"]["configMap"]["name"]
    (configmap,) = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == config]
    assert proxy["command"][proxy["command"].index("-c") + 1] == f"{mounts['path-filter-config']}/nginx.conf"
    assert configmap["data"]["nginx.conf"] == nginx_config(PathFilter(listen_port=8100, upstream_port=8000))
    assert mounts["path-filter-state"] == "/tmp/nginx" and "emptyDir" in volumes["path-filter-state"]


def test_the_rendered_configmap_filters_for_real(tmp_path):
    """The ConfigMap's text itself (only its ports and state folder moved to free ones) run by nginx."""
    from tests.path_filter_harness import Engine, exchange, free_port, nginx_binary, statuses

    binary = nginx_binary()
    (configmap,) = [d for d in synth() if d["kind"] == "ConfigMap" and "nginx.conf" in d.get("data", {})]
    engine = Engine()
    backend = ThreadingHTTPServer(("127.0.0.1", 0), engine.handler())
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    port = free_port()
    tmp_path.chmod(0o777)
    text = configmap["data"]["nginx.conf"].replace("/tmp/nginx", str(tmp_path))
    text = text.replace("listen 8100 ", f"listen 127.0.0.1:{port} ").replace(
        "127.0.0.1:8000", f"127.0.0.1:{backend.server_address[1]}"
    )
    (tmp_path / "nginx.conf").write_text(text)
    process = subprocess.Popen(
        [binary, "-e", "stderr", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-g", "daemon off;"]
    )
    try:
        for _ in range(100):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            time.sleep(0.05)
        ask = b"%s HTTP/1.1\r\nHost: f\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        assert statuses(exchange(port, ask % b"GET /v1/models")) == [200]
        assert statuses(exchange(port, ask % b"POST /sleep")) == [404]
        assert statuses(exchange(port, ask % b"POST /v1/../collective_rpc")) == [404]
        assert engine.paths() == ["/v1/models"]
    finally:
        process.terminate()
        process.wait(10)
        backend.shutdown()


@pytest.mark.parametrize("name", ["StandbyEnginesChart", "StandbyNodePoolChart"])
def test_standby_charts_validate_for_every_supported_kubernetes_version(name):
    from tests.emitted_manifests import chart_classes, chart_manifests
    from tests.test_safety_gates import SUPPORTED_KUBERNETES_VERSIONS, validate

    docs = chart_manifests(name, chart_classes()[name])
    assert docs
    for version in SUPPORTED_KUBERNETES_VERSIONS:
        for case, doc in docs:
            try:
                validate(doc, version)
            except Exception as exc:
                raise AssertionError(f"{case} {doc['kind']} on {version}: {exc}") from exc
