"""The plan travels with the Deployment: what was predicted, recorded where `kubectl describe` shows it.

The server Deployment carries two annotations (on its own metadata, not the pod template, so a
new release of the planner's figures never restarts a serving pod):

- `fastload.io/plan`: compact JSON (`PLAN_SCHEMA` 1): the engine and its release (under `vllm_version`, the
  key's name since schema 1 began; `engine` only when it is not the default), image, instance type, TP,
  the serving choices, the predicted seconds of every scale-out path and of each pod phase, what a warm
  spare leaves on its node (`spare_warms`) and the pod's phases when it finds a warm compile cache
  (`warm_pod_phases_s`, a repeat on a node that ran the model). `fastload coldstart --pod` reads it back
  (`read_plan_record`) to put actual beside predicted, warm or cold as the pod's log shows.
- `fastload.io/predicted-start`: the same paths in words, for a human reading `kubectl describe`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastload_constructs.core.engines import DEFAULT_ENGINE, ENGINES
from fastload_constructs.core.engines.phases import PhaseEstimate
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.planning.plan import ServingPlan

PLAN_ANNOTATION = "fastload.io/plan"
SUMMARY_ANNOTATION = "fastload.io/predicted-start"
PLAN_SCHEMA = 1


def _phases(p: PhaseEstimate) -> dict[str, float]:
    return {
        "process_start": round(p.process_start_s, 1),
        "weight_load": round(p.weight_load_s, 1),
        "compile": round(p.compile_s, 1),
        "cuda_graph": round(p.cuda_graph_s, 1),
        "kv_and_server": round(p.kv_and_server_s, 1),
    }


def plan_record(plan: ServingPlan) -> dict[str, Any]:
    """The facts of `plan` a later comparison needs, as plain JSON-ready data."""
    p = plan.predicted
    record: dict[str, Any] = {
        "schema": PLAN_SCHEMA,
        "vllm_version": plan.engine_version,
        "image": plan.serving.image,
        "instance_type": plan.instance.name,
        "tensor_parallel_size": plan.tensor_parallel_size,
        "model_cache": plan.serving.model_cache,
        "shared_compile_cache": plan.serving.shared_compile_cache,
        "warm_spares": plan.serving.warm_spares,
        "pod_phases_s": _phases(p),
        "pod_total_s": round(p.total_s, 1),
    }
    if plan.engine != DEFAULT_ENGINE.name:  # absent: the default engine (older records name no engine)
        record["engine"] = plan.engine
    paths = plan.scale_out_paths
    if paths is not None:
        record["paths_s"] = {path.name: round(path.total_s, 1) for path in paths.as_tuple()}
        record["spare_warms"] = list(paths.spare_holds.warmed)
        record["warm_pod_phases_s"] = {name: round(seconds, 1) for name, seconds in paths.warm_node.phases}
    return record


def plan_annotations(plan: ServingPlan) -> dict[str, str]:
    """The Deployment's annotations recording `plan`."""
    record = plan_record(plan)
    paths = record.get("paths_s", {})
    summary = (
        f"{ENGINES[plan.engine].display_name} {record['vllm_version']} on {record['instance_type']} "
        f"(TP {record['tensor_parallel_size']}): "
        + (", ".join(f"{name.replace('_', ' ')} {seconds:g} s" for name, seconds in paths.items()) or "")
        + (f"; pod {record['pod_total_s']:g} s" if not paths else "")
        + (f"; a warm spare warms {', '.join(record['spare_warms'])}" if "spare_warms" in record else "")
    )
    return {
        PLAN_ANNOTATION: json.dumps(record, separators=(",", ":"), sort_keys=True),
        SUMMARY_ANNOTATION: summary,
    }


@dataclass(frozen=True)
class PlanRecord:
    """A plan read back from a Deployment's annotation."""

    vllm_version: str
    instance_type: str
    tensor_parallel_size: int
    pod_phases_s: Mapping[str, float]
    paths_s: Mapping[str, float]
    engine: str = DEFAULT_ENGINE.name  # the release above is this engine's
    # The pod's phases when its compile cache hits (absent from records written before it was kept).
    warm_pod_phases_s: Mapping[str, float] | None = None

    @property
    def engine_name(self) -> str:
        """The engine's display name (the recorded name where it is no engine this version knows)."""
        engine = ENGINES.get(self.engine)
        return engine.display_name if engine is not None else self.engine


def read_plan_record(annotations: Mapping[str, str]) -> PlanRecord | None:
    """The plan recorded in `annotations`, None when there is none; a malformed one is refused."""
    raw = annotations.get(PLAN_ANNOTATION)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        if data.get("schema") != PLAN_SCHEMA:
            raise ValueError(f"schema {data.get('schema')!r}")
        return PlanRecord(
            vllm_version=str(data["vllm_version"]),
            instance_type=str(data["instance_type"]),
            tensor_parallel_size=int(data["tensor_parallel_size"]),
            pod_phases_s={str(k): float(v) for k, v in data["pod_phases_s"].items()},
            paths_s={str(k): float(v) for k, v in data.get("paths_s", {}).items()},
            engine=str(data.get("engine", DEFAULT_ENGINE.name)),
            warm_pod_phases_s=(
                {str(k): float(v) for k, v in data["warm_pod_phases_s"].items()}
                if "warm_pod_phases_s" in data
                else None
            ),
        )
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise FastloadConfigError(
            PLAN_ANNOTATION, raw[:80], f"the JSON plan record fastload writes (schema {PLAN_SCHEMA}): {exc}"
        ) from None


__all__ = [
    "PLAN_ANNOTATION",
    "PLAN_SCHEMA",
    "SUMMARY_ANNOTATION",
    "PlanRecord",
    "plan_annotations",
    "plan_record",
    "read_plan_record",
]
