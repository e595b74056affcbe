"""The inference engines a model can run, by name: one package per engine, one line each here.

    engine = engine_named(plan.engine)        # the Engine registered under cdk.json's `engine`
    engine.launch(plan, model_path=..., served_model_name=...)

Adding an engine is one package (an `Engine` subclass: its launch, probes, metrics, releases and
phases, `core/engines/base.py`), one line in `ENGINES` and its tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from fastload_constructs.core.engines.base import Engine
from fastload_constructs.core.engines.sglang import SGLANG
from fastload_constructs.core.engines.vllm import VLLM
from fastload_constructs.core.errors import choice

ENGINES: Mapping[str, Engine[Any]] = MappingProxyType({engine.name: engine for engine in (VLLM, SGLANG)})
ENGINE_NAMES: tuple[str, ...] = tuple(ENGINES)
# What a model runs unless it says otherwise (`Serving.engine`'s default).
DEFAULT_ENGINE: Engine[Any] = VLLM


def engine_named(name: object, field: str = "engine") -> Engine[Any]:
    """The engine registered as `name`, in any case (`SGLang`); FastloadConfigError naming `field` and the
    engines there are."""
    return ENGINES[choice(name, field, ENGINE_NAMES)]


__all__ = ["DEFAULT_ENGINE", "ENGINES", "ENGINE_NAMES", "Engine", "engine_named"]
