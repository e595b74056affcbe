"""Plans with a serving choice, for tests that render what a plan says (core/planning/serving.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning import Serving, ServingPlan, TuningOptions, plan


def planned(
    profile: ModelProfile, instance_type: str, tuning: TuningOptions | None = None, **serving: Any
) -> ServingPlan:
    """`plan` with `TuningOptions(serving=Serving(**serving))` (other tuning kept)."""
    options = tuning or TuningOptions()
    return plan(profile, instance_type, dataclasses.replace(options, serving=Serving(**serving)))


def served_as(p: ServingPlan, **serving: Any) -> ServingPlan:
    """The same model and instance planned again with other serving choices."""
    options = TuningOptions(
        tensor_parallel_size=p.tensor_parallel_size,
        max_model_len=p.max_model_len,
        cudagraph_capture_sizes=p.cudagraph_capture_sizes,
        kv_cache_dtype=p.kv_cache_dtype,
        serving=dataclasses.replace(p.serving, **serving),
    )
    return plan(p.model, p.instance, options)
