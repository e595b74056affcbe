"""The metrics pipeline's decisions (pure): what the EKS managed scraper collects and how KEDA queries it.

Pipeline: vLLM pods serve Prometheus text on `:8000/metrics` (vLLM's OpenAI
server mounts it next to the API). The Amazon Managed Service for Prometheus
managed collector (`AWS::APS::Scraper`) discovers them through the Kubernetes
API (`kubernetes_sd_configs`, role `pod`) and remote-writes to an AMP
workspace. KEDA's Prometheus scaler queries the workspace's query API signed
with SigV4 (service `aps`) using the KEDA operator's Pod Identity.

Why not an in-cluster Prometheus: it is one more stateful workload to size,
upgrade and keep highly available on the system nodes, and its loss stops
autoscaling; the managed scraper and workspace have neither. Why not
CloudWatch (Container Insights / the CloudWatch agent's Prometheus support):
KEDA's CloudWatch scaler reads metrics with a period of 60 s or more and
CloudWatch's Prometheus ingestion adds its own delay, so a queue signal would
lag a minute or more behind the 30 s scrape; PromQL (sum by model) is also
simpler to get right than EMF metric filters. Cost of the choice: the scraper
bills per collector hour and per sample ingested (AMP pricing), and the
scraper's minimum interval is 30 s (AMP user guide, "Scraper configuration"),
so scaling reacts in 30-60 s, which is small next to a pod's start-up.
"""

from __future__ import annotations

from typing import Any

import yaml

from fastload_constructs.core.engines import ENGINE_NAMES
from fastload_constructs.core.naming import DEFAULT_NAMESPACE
from fastload_constructs.core.scaling.autoscaling import SCRAPE_INTERVAL_S, Autoscaling

VLLM_METRICS_PATH = "/metrics"
VLLM_PORT_NAME = "http"
# Labels the scrape config writes on every vLLM sample.
SERVER_LABEL = "server"  # the vLLM Deployment / app.kubernetes.io/instance
# The engines' app.kubernetes.io/name (their registered names); Prometheus regexes are anchored.
SERVER_APP_NAMES = "|".join(ENGINE_NAMES)
KARPENTER_METRICS_PORT_NAME = "http-metrics"  # karpenter chart 1.14.1 templates/deployment.yaml
KEDA_OPERATOR_METRICS_PORT_NAME = "metrics"  # keda chart 2.20.2 templates/manager/deployment.yaml


def _keep(label: str, regex: str) -> dict[str, Any]:
    return {"source_labels": [label], "regex": regex, "action": "keep"}


def _copy(label: str, target: str) -> dict[str, Any]:
    return {"source_labels": [label], "target_label": target, "action": "replace"}


def _pod_job(name: str, namespaces: list[str], app: str, port_name: str, honor_labels: bool = False) -> dict[str, Any]:
    """One pod-discovery job; `honor_labels` keeps a controller's own `namespace`/`pod` labels on its metrics
    (Karpenter's `karpenter_pods_state{namespace=...}` describes other pods, not the controller)."""
    return {
        "job_name": name,
        "honor_labels": honor_labels,
        "metrics_path": VLLM_METRICS_PATH,
        "kubernetes_sd_configs": [{"role": "pod", "namespaces": {"names": namespaces}}],
        "relabel_configs": [
            _keep("__meta_kubernetes_pod_label_app_kubernetes_io_name", app),
            _keep("__meta_kubernetes_pod_container_port_name", port_name),
            _keep("__meta_kubernetes_pod_phase", "Running"),
            _copy("__meta_kubernetes_namespace", "namespace"),
            _copy("__meta_kubernetes_pod_name", "pod"),
            _copy("__meta_kubernetes_pod_node_name", "node"),
            _copy("__meta_kubernetes_pod_label_app_kubernetes_io_instance", SERVER_LABEL),
        ],
    }


def scrape_config(
    *,
    cluster_label: str,
    vllm_namespaces: list[str] | None = None,
    karpenter_namespace: str | None = "kube-system",
    keda_namespace: str | None = "keda",
) -> dict[str, Any]:
    """The scraper's Prometheus configuration: vLLM pods, and the Karpenter and KEDA controllers."""
    # Server pods of either engine (app.kubernetes.io/name "vllm" or "sglang"; both name their port "http").
    jobs = [_pod_job("vllm", vllm_namespaces or [DEFAULT_NAMESPACE], SERVER_APP_NAMES, VLLM_PORT_NAME)]
    if karpenter_namespace is not None:
        jobs.append(_pod_job("karpenter", [karpenter_namespace], "karpenter", KARPENTER_METRICS_PORT_NAME, True))
    if keda_namespace is not None:
        jobs.append(_pod_job("keda-operator", [keda_namespace], "keda-operator", KEDA_OPERATOR_METRICS_PORT_NAME, True))
    return {
        "global": {
            "scrape_interval": f"{SCRAPE_INTERVAL_S}s",
            "external_labels": {"cluster": cluster_label},
        },
        "scrape_configs": jobs,
    }


def scrape_config_yaml(**kwargs: Any) -> str:
    return yaml.safe_dump(scrape_config(**kwargs), sort_keys=False)


def scaling_query(autoscaling: Autoscaling, *, server: str, namespace: str = DEFAULT_NAMESPACE) -> str:
    """PromQL summed over the server's pods: KEDA's AverageValue target divides it by the replicas.

    For KV-cache usage (a 0..1 fraction per pod) the sum over pods divided by
    the replicas is the mean usage, so the target is a fraction too.
    """
    selector = f'{{namespace="{namespace}",{SERVER_LABEL}="{server}"}}'
    return f"sum({autoscaling.prometheus_metric}{selector})"


__all__ = ["scaling_query", "scrape_config", "scrape_config_yaml"]


# Alerts evaluated by the AMP workspace's rules engine (AWS::APS::RuleGroupsNamespace). The queue
# metric missing for 5 minutes means the ScaledObject runs on its fallback (core.scaling): scaling is
# frozen at the current replicas until the pipeline is back. KEDA's own error counter
# (`keda_scaled_object_errors_total`, KEDA docs "Integrate with Prometheus", 2.15 and later) names the
# ScaledObject whose queries fail.
METRIC_MISSING_FOR = "5m"


def alert_rules(
    autoscaled: dict[str, str], metric: str = "vllm:num_requests_waiting", metrics: dict[str, str] | None = None
) -> dict[str, Any]:
    """Prometheus rule groups for `{server: namespace}` of every autoscaled model; `metrics` names a
    server's own queue metric where it is not `metric` (an SGLang server's `sglang:num_queue_reqs`)."""
    rules: list[dict[str, Any]] = []
    default_metric = metric
    for server, namespace in sorted(autoscaled.items()):
        metric = (metrics or {}).get(server, default_metric)
        rules.append(
            {
                "alert": "FastloadScalingMetricMissing",
                "expr": f'absent({metric}{{namespace="{namespace}",{SERVER_LABEL}="{server}"}})',
                "for": METRIC_MISSING_FOR,
                "labels": {"severity": "critical", "namespace": namespace, SERVER_LABEL: server},
                "annotations": {
                    "summary": f"{metric} of {namespace}/{server} is missing: autoscaling holds the current replicas",
                    "description": "KEDA cannot read the queue metric, so its fallback keeps the replica count "
                    "where it is. Check the managed scraper, the vLLM pods' /metrics and KEDA's operator log.",
                },
            }
        )
    rules.append(
        {
            "alert": "FastloadKedaQueryErrors",
            "expr": "sum by (namespace, scaledObject) (increase(keda_scaled_object_errors_total[5m])) > 0",
            "for": METRIC_MISSING_FOR,
            "labels": {"severity": "warning"},
            "annotations": {"summary": "KEDA fails to query the scaling metric of {{ $labels.scaledObject }}"},
        }
    )
    return {"groups": [{"name": "fastload-scale-out", "rules": rules}]}


def alert_rules_yaml(autoscaled: dict[str, str], metrics: dict[str, str] | None = None) -> str:
    return yaml.safe_dump(alert_rules(autoscaled, metrics=metrics), sort_keys=False)


__all__ += ["alert_rules", "alert_rules_yaml"]


def alert_manager_yaml(topic_arn: str, region: str) -> str:
    """The workspace's alert manager definition: every alert to one SNS topic, signed for `region`
    (AMP user guide, "Configure Alertmanager to send messages to Amazon SNS")."""
    config = {
        "route": {"receiver": "sns", "group_by": ["alertname", SERVER_LABEL]},
        "receivers": [{"name": "sns", "sns_configs": [{"topic_arn": topic_arn, "sigv4": {"region": region}}]}],
    }
    return "alertmanager_config: |\n" + "".join(
        f"  {line}\n" for line in yaml.safe_dump(config, sort_keys=False).splitlines()
    )


__all__ += ["alert_manager_yaml"]
