"""A reference app config whose models take two stacks: what the split tests and the deploy rehearsal build.

Six models in `fastload:models` order: one vLLM model with every per-model feature (KEDA, a warm spare, both
caches), four with standby engines (FMA's objects make each about 125 kB of template) and one SGLang model
with a node held warm (a CapacityBuffer). The reference stack has room for the first four; the last two go
to `FastloadReference-Models1`, which serves a standby model (FMA's CRDs and controller are the reference
stack's) and the SGLang one with its buffer, and names the PriorityClasses the reference stack applies.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

CDK_JSON = json.loads((Path(__file__).resolve().parent.parent / "cdk.json").read_text())["context"]
STAGER = "arn:aws:iam::210987654321:role/model-stager"


def model_entry(name: str, **keys: object) -> dict[str, object]:
    """One `fastload:models` entry: an 8B BF16 model on g6e.2xlarge under models/<name>, and `keys`."""
    return {
        "name": name,
        "s3Prefix": f"models/{name}",
        "instanceType": "g6e.2xlarge",
        "parameterCount": 8_030_261_248,
        "dtype": "BF16",
        **keys,
    }


# Every per-model feature that adds objects: KEDA, a warm spare, both caches.
EVERY_FEATURE = dict(minReplicas=1, maxReplicas=2, warmSpares=1, sharedCompileCache=True, nodeLocalModelCache=True)


def split_context(gpu_nodes: str = "karpenter") -> dict[str, object]:
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:gpuNodes"] = gpu_nodes
    ctx["fastload:stagerRoleArns"] = [STAGER]
    standby = dict(standbys=1, nodeLocalModelCache=True, minReplicas=1, maxReplicas=2)
    ctx["fastload:models"] = [
        model_entry("llama", **EVERY_FEATURE),
        *(model_entry(f"standing-{i}", **standby) for i in range(4)),
        model_entry("qwen", engine="sglang", minReplicas=1, maxReplicas=2, bufferedNodes=1),
    ]
    return ctx
