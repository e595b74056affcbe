"""Which engine's server spec a plan gets: vLLM (core/serving/vllm_server.py) or SGLang (sglang_server.py).

Both build the same `ServerSpec` (the chart renders either) through `vllm_server.build_server_spec`;
they differ in the container only. The engine is the plan's (`Serving(engine=...)`).
"""

from __future__ import annotations

from fastload_constructs.core.engines.sglang import SGLANG
from fastload_constructs.core.engines.vllm import VLLM
from fastload_constructs.core.planning.plan import ServingPlan
from fastload_constructs.core.serving import sglang_server, vllm_server
from fastload_constructs.core.serving.vllm_server import ServerOptions, ServerSpec

DEFAULT_IMAGES = {"vllm": VLLM.default_image, "sglang": SGLANG.default_image}
# Where each engine's server listens, and its container's name (what `kubectl logs -c` and a
# port-forward to the Service need).
SERVER_PORTS = {"vllm": vllm_server.SERVER_PORT, "sglang": sglang_server.SERVER_PORT}
CONTAINER_NAMES = {"vllm": vllm_server.CONTAINER_NAME, "sglang": sglang_server.CONTAINER_NAME}


def server_spec(
    plan: ServingPlan,
    *,
    model_name: str,
    model_uri: str,
    region: str,
    options: ServerOptions | None = None,
) -> ServerSpec:
    """The pod of `plan.engine`'s server; raises FastloadConfigError naming the bad field."""
    build = sglang_server.server_spec if getattr(plan, "engine", "vllm") == "sglang" else vllm_server.server_spec
    return build(plan, model_name=model_name, model_uri=model_uri, region=region, options=options)
