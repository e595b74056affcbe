"""Read what a rendered vLLM (or SGLang) pod will load, however its server is launched."""

from __future__ import annotations

from typing import Any

from fastload_constructs.core.serving.cache_sharing import LAUNCH_SCRIPT, MODEL_URI_PLACEHOLDER


def model_uri_read(pod_spec: dict[str, Any]) -> str:
    """The model URI the server is given: the one resolve-revision starts from when the pod follows
    revisions (the server then gets the resolved revision's URI in place of the placeholder), else the
    server's own model argument."""
    server = pod_spec["containers"][0]
    if server.get("command", [])[:3] != ["/bin/sh", "-c", LAUNCH_SCRIPT]:
        return str(server["args"][0])
    assert MODEL_URI_PLACEHOLDER in server["args"]
    (resolve,) = [c for c in pod_spec.get("initContainers", []) if c["name"] == "resolve-revision"]
    command = resolve["command"]
    bucket, prefix = command[command.index("--bucket") + 1], command[command.index("--prefix") + 1]
    return f"s3://{bucket}/{prefix}"
