"""Pieces of a pod spec that the vLLM chart and the warm-spare chart render alike."""

from __future__ import annotations

import cdk8s_plus_28 as kplus

# core.vllm_args.Toleration.effect -> cdk8s-plus.
TAINT_EFFECTS = {
    "NoSchedule": kplus.TaintEffect.NO_SCHEDULE,
    "PreferNoSchedule": kplus.TaintEffect.PREFER_NO_SCHEDULE,
    "NoExecute": kplus.TaintEffect.NO_EXECUTE,
}
