"""Plans with a serving choice, for tests that render what a plan says (core/planning/serving.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning import Serving, ServingPlan, TuningOptions, plan
from fastload_constructs.core.serving.server_pod import ServerOptions, ServerSpec, server_spec

MODEL_URI = "s3://fastload-test-models/models/llama-3.1-8b"


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


def spec_of(
    p: ServingPlan, *, model_name: str = "llama", model_uri: str = MODEL_URI, region: str = "eu-west-1", **options: Any
) -> ServerSpec:
    """The server pod of `p` for one model, with `ServerOptions(**options)`."""
    return server_spec(p, model_name=model_name, model_uri=model_uri, region=region, options=ServerOptions(**options))


def flag_value(args: tuple[str, ...], name: str) -> str:
    """The value after flag `name` in a command line."""
    return args[args.index(name) + 1]
