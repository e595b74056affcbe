"""Who may reach a vLLM server: a NetworkPolicy on its port and an optional API key from a Secret.

Pure decisions; `k8s.server_chart.ServerChart(access=...)` renders them.

* NetworkPolicy (on by default): ingress to the vLLM pods only on the server
  port, and only from pods of the same namespace, plus the namespaces and CIDRs
  named here: the gateway or ingress controller's namespace (e.g.
  `envoy-gateway-system`, `ingress-nginx`), and for an AWS Load Balancer
  Controller NLB/ALB with IP targets the VPC CIDR (the load balancer's nodes
  connect from their private addresses in the VPC; with client IP preservation
  the clients' CIDRs instead). Egress is left open: the pods need S3, STS via the
  Pod Identity agent and DNS. On EKS the policy is enforced by the VPC CNI's
  network policy agent (`enableNetworkPolicy`, which `InferenceCluster` turns on).
  Traffic from the pod's own node (kubelet probes) is always allowed by the
  NetworkPolicy semantics.
* API key (off by default): the engine's key variable (`Engine.api_key_env`, vLLM's
  `VLLM_API_KEY`) from a Kubernetes Secret key; vLLM reads it as `--api-key`
  (vllm/entrypoints/openai/api_server.py: `args.api_key or envs.VLLM_API_KEY`) and
  then requires `Authorization: Bearer <key>` on `/v1/*` only. `/health` and
  `/metrics` stay open, so the readiness probe moves from `/v1/models` to
  `/health`. The key reaches the process as an environment variable, never as a
  command-line argument (which `ps` would show), and is no
  part of the compile-cache key.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from fastload_constructs.core.errors import FastloadConfigError, require
from fastload_constructs.core.validation import check_dns_label, check_dns_subdomain

if TYPE_CHECKING:
    from fastload_constructs.core.engines.base import HttpProbe

DEFAULT_API_KEY_SECRET_KEY = "api-key"
UNAUTHENTICATED_HEALTH_PATH = "/health"
# Secret data keys: alphanumerics, '-', '_' and '.', at most 253 (apimachinery IsConfigMapKey).
_SECRET_KEY = re.compile(r"[-._a-zA-Z0-9]{1,253}")


@dataclass(frozen=True)
class ServingAccess:
    """Ingress rules and authentication for one vLLM Deployment.

    `api_key_secret`: name of a Secret in the model's namespace holding the key
    under `api_key_secret_key` (create it yourself, e.g. `kubectl create secret
    generic llama-api-key --from-literal=api-key=...`; the key never passes through
    CDK or the YAML export). `network_policy=False` leaves ingress to the cluster's
    defaults. `allow_from_namespaces` / `allow_from_cidrs`: what else may reach the
    port besides the namespace's own pods.
    """

    network_policy: bool = True
    allow_from_namespaces: tuple[str, ...] = ()
    allow_from_cidrs: tuple[str, ...] = ()
    api_key_secret: str | None = None
    api_key_secret_key: str = DEFAULT_API_KEY_SECRET_KEY

    def __post_init__(self) -> None:
        require(isinstance(self.network_policy, bool), "access.network_policy", self.network_policy, "True or False")
        for field_name in ("allow_from_namespaces", "allow_from_cidrs"):
            value = getattr(self, field_name)
            require(
                isinstance(value, (tuple, list)), f"access.{field_name}", value, "a list of strings (not one string)"
            )
            object.__setattr__(self, field_name, tuple(value))
        for i, namespace in enumerate(self.allow_from_namespaces):
            check_dns_label(namespace, f"access.allow_from_namespaces[{i}]")
        object.__setattr__(
            self,
            "allow_from_cidrs",
            tuple(_check_cidr(c, f"access.allow_from_cidrs[{i}]") for i, c in enumerate(self.allow_from_cidrs)),
        )
        if self.api_key_secret is not None:
            check_dns_subdomain(self.api_key_secret, "access.api_key_secret")
        require(
            isinstance(self.api_key_secret_key, str) and _SECRET_KEY.fullmatch(self.api_key_secret_key) is not None,
            "access.api_key_secret_key",
            self.api_key_secret_key,
            "a Secret data key: letters, digits, '-', '_' and '.', at most 253",
        )
        require(
            self.network_policy or not (self.allow_from_namespaces or self.allow_from_cidrs),
            "access.allow_from_namespaces",
            self.allow_from_namespaces or self.allow_from_cidrs,
            "no ingress exceptions when network_policy is False (there is no policy to except from)",
        )

    @property
    def requires_api_key(self) -> bool:
        return self.api_key_secret is not None


def _check_cidr(value: object, field: str) -> str:
    if not isinstance(value, str):
        raise FastloadConfigError(field, value, "an IPv4 or IPv6 CIDR such as 10.0.0.0/16")
    try:
        network = ipaddress.ip_network(value, strict=True)
    except ValueError as exc:
        raise FastloadConfigError(field, value, "an IPv4 or IPv6 CIDR such as 10.0.0.0/16 (host bits zero)") from exc
    require(
        network.prefixlen > 0,
        field,
        value,
        "a CIDR narrower than the whole internet (use network_policy=False for that)",
    )
    return str(network)


def readiness_probe(access: ServingAccess, probe: HttpProbe) -> HttpProbe:
    """With an API key, `/v1/models` answers 401 to the kubelet: probe the unauthenticated `/health`."""
    if access.requires_api_key:
        return replace(probe, path=UNAUTHENTICATED_HEALTH_PATH)
    return probe
