"""The shipped Grafana dashboard queries what the scraper collects, with the labels the scrape config writes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fastload_constructs.core.engines.sglang import SGLANG
from fastload_constructs.core.engines.vllm import VLLM
from fastload_constructs.core.scaling.metrics import SERVER_LABEL, scrape_config

DASHBOARD = json.loads((Path(__file__).parent.parent / "dashboards" / "vllm-scale-out.json").read_text())
# Metric names per exporter: vLLM 0.34 (vllm/v1/metrics/loggers.py), Karpenter 1.14 (website reference/metrics.md),
# KEDA 2.20 (pkg/metricscollector/prommetrics.go: namespace keda, subsystem scaler, name metrics_value).
EXPORTERS = {
    # The "vllm" job scrapes the server pods of both engines; SGLang 0.5.23's names are in
    # python/sglang/srt/observability/metrics_collector.py (core/engines/sglang/launch.py cites each).
    "vllm": {
        *VLLM.scaling_metrics.values(),
        "vllm:time_to_first_token_seconds_bucket",
        *SGLANG.scaling_metrics.values(),
        "sglang:time_to_first_token_seconds_bucket",
    },
    "karpenter": {"karpenter_pods_state", "karpenter_nodes_allocatable"},
    "keda-operator": {"keda_scaler_metrics_value"},
}
SELECTOR = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)\{([^}]*)\}")


def exprs():
    return [t["expr"] for p in DASHBOARD["panels"] for t in p["targets"]]


def test_the_dashboard_has_every_panel_the_scale_out_needs():
    titles = " | ".join(p["title"].lower() for p in DASHBOARD["panels"])
    for needed in ("queue depth", "running requests", "time to first token", "kv-cache", "replicas", "pending pods"):
        assert needed in titles


def test_every_query_reads_a_scraped_metric_with_labels_that_exist():
    jobs = {j["job_name"] for j in scrape_config(cluster_label="c")["scrape_configs"]}
    assert jobs == set(EXPORTERS)
    known = set().union(*EXPORTERS.values())
    written = {
        r["target_label"]
        for j in scrape_config(cluster_label="c")["scrape_configs"]
        for r in j["relabel_configs"]
        if "target_label" in r
    }
    for expr in exprs():
        selectors = SELECTOR.findall(expr)
        assert selectors, expr
        for metric, labels in selectors:
            assert metric in known, metric
            names = {part.split("=")[0].rstrip("!~") for part in labels.split(",") if part}
            if metric.startswith(("vllm:", "sglang:")):
                assert names <= written, (expr, names - written)
                assert SERVER_LABEL in names


def test_every_panel_uses_the_datasource_variable():
    (variable,) = [v for v in DASHBOARD["templating"]["list"] if v["type"] == "datasource"]
    for panel in DASHBOARD["panels"]:
        assert panel["datasource"]["uid"] == "${" + variable["name"] + "}"


def test_every_vllm_panel_shows_the_sglang_servers_beside_them():
    for panel in DASHBOARD["panels"]:
        queries = [t["expr"] for t in panel["targets"]]
        for vllm_metric, sglang_metric in (
            *((VLLM.scaling_metrics[k], SGLANG.scaling_metrics[k]) for k in VLLM.scaling_metrics),
            ("vllm:time_to_first_token_seconds_bucket", "sglang:time_to_first_token_seconds_bucket"),
        ):
            for query in queries:
                if vllm_metric in query:
                    assert query.replace(vllm_metric, sglang_metric) in queries, (panel["title"], query)


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_the_scrape_config_keeps_the_pods_the_server_chart_emits(engine):
    """Apply the vllm job's keep rules to the Deployment the chart really emits (its labels and port name),
    for either engine."""
    import cdk8s

    from fastload_constructs.k8s.server_chart import ServerChart
    from tests.emitted_manifests import _vllm

    docs = cdk8s.Testing.synth(ServerChart(cdk8s.Testing.app(), "llama", **_vllm("host-path", {"engine": engine})))
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    pod = deployment["spec"]["template"]
    (vllm_job, *_) = scrape_config(cluster_label="c")["scrape_configs"]
    meta = {
        f"__meta_kubernetes_pod_label_{k.replace('.', '_').replace('/', '_').replace('-', '_')}": v
        for k, v in pod["metadata"]["labels"].items()
    }
    meta["__meta_kubernetes_pod_phase"] = "Running"
    ports = [p["name"] for c in pod["spec"]["containers"] for p in c.get("ports", [])]
    kept = []
    for port in ports:
        target = {**meta, "__meta_kubernetes_pod_container_port_name": port}
        rules = [r for r in vllm_job["relabel_configs"] if r["action"] == "keep"]
        if all(re.fullmatch(r["regex"], target.get(r["source_labels"][0], "")) for r in rules):
            kept.append(port)
    assert kept == ["http"]  # the port the server serves /metrics on, once per pod
    assert meta["__meta_kubernetes_pod_label_app_kubernetes_io_name"] == engine
    assert meta["__meta_kubernetes_pod_label_app_kubernetes_io_instance"] == deployment["metadata"]["name"]
