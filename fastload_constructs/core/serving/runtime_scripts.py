"""Where a pod finds the in-pod scripts: one ConfigMap per namespace, named by content, or one per model.

The scripts (`runtime/`: one per step, the helpers they share, about 90 kB together) were
embedded in a ConfigMap of every model's chart, and so in the CloudFormation template once
per model (a KubernetesManifest carries its manifest inline): 20 models with both caches
passed CloudFormation's 1 MB template limit on the scripts alone. Shared, they are one
ConfigMap per namespace (`k8s.RuntimeScriptsChart`, applied once by `infra.ServedModel`),
named after a hash of their text, so a new library version adds a new ConfigMap that new
pods mount while running pods keep the one they started with.

Each file is one key of the ConfigMap, so the mount holds them side by side: a step's script
imports its helpers from its own folder (the server image has no fastload install).
"""

from __future__ import annotations

import hashlib
from importlib import resources

from fastload_constructs.core import naming
from fastload_constructs.core.serving.cache_sharing import COMPILE_CACHE_SCRIPT, MODEL_COPY_SCRIPT, REVISION_SCRIPT
from fastload_constructs.core.serving.warm_check import WARM_CHECK_SCRIPT

# The steps' scripts, then the helpers they import (`_*.py`: no step runs them).
RUNTIME_SCRIPTS = (
    REVISION_SCRIPT,
    MODEL_COPY_SCRIPT,
    COMPILE_CACHE_SCRIPT,
    WARM_CHECK_SCRIPT,
    "_s3.py",
    "_manifest.py",
    "_files.py",
    "_node_copies.py",
    "_step.py",
    "_cache_archive.py",
)
# 10 hex digits (40 bits) of SHA-256: a name that changes with any change to any script.
_HASH_DIGITS = 10


def runtime_scripts() -> dict[str, str]:
    """File name -> text of every in-pod script, as mounted at SCRIPT_MOUNT_PATH."""
    folder = resources.files("fastload_constructs.runtime")
    return {name: folder.joinpath(name).read_text() for name in RUNTIME_SCRIPTS}


def shared_scripts_name(owner: str = "") -> str:
    """The shared ConfigMap's name: `fastload-runtime-<hash of the scripts and owner>` (DNS-1123, 27 characters).

    `owner` keeps two stacks that serve models in one namespace of one cluster apart: each applies and
    deletes only its own ConfigMap (a second `kubectl create` of one name would fail the second deploy,
    and deleting either stack would take the other's pods' scripts away).
    """
    digest = hashlib.sha256(owner.encode() + b"\0")
    for name, text in sorted(runtime_scripts().items()):
        digest.update(name.encode() + b"\0" + text.encode() + b"\0")
    return f"{naming.PART_OF}-runtime-{digest.hexdigest()[:_HASH_DIGITS]}"
