"""`fastload timeline`: one real scale-out, phase by phase, from Kubernetes events and the pod's engine log."""

from __future__ import annotations

import dataclasses
import functools
import json
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from fastload_constructs.cli.plan_command import (
    _tuning_kwargs,
    model_plan_options,
    plan_from_options,
    tuning_plan_options,
)
from fastload_constructs.coldstart.events import K8sEvent, parse_events
from fastload_constructs.coldstart.figures import FigureOutOfRange
from fastload_constructs.coldstart.report import ColdStartReport
from fastload_constructs.coldstart.timeline import (
    SERVERS,
    ScaleOutTimeline,
    build_timeline,
    container_started,
    listed_pods,
    parse_pod_log,
    render_timeline,
    server_pod,
)
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.planning.plan import ServingPlan

# An events dump is read whole (kubectl prints it whole); larger input is refused in parse_events.
_READ_LIMIT = 64 * 1024 * 1024 + 1


def _read_events(name: str) -> list[K8sEvent]:
    if name == "-":
        raw = sys.stdin.buffer.read(_READ_LIMIT) if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    else:
        path = Path(name)
        if not path.is_file():
            raise FastloadConfigError("EVENTS", name, "an existing file of kubectl get events output, or '-' for stdin")
        with path.open("rb") as stream:
            raw = stream.read(_READ_LIMIT)
    return parse_events(raw.decode("utf-8", errors="replace"))


def read_log(path: Path, events: list[K8sEvent], pod: str | None) -> tuple[ColdStartReport, str | None]:
    """The pod's vLLM or SGLang log, timed from its container's Started event where the clocks compare."""
    with path.open("rb") as stream:  # a start-up log: the parser keeps only its recognised lines
        raw = stream.read(_READ_LIMIT)
    return parse_pod_log(raw, container_started(events, pod), label=path.stem)


def timeline_as_dict(t: ScaleOutTimeline) -> dict[str, Any]:
    view = dataclasses.asdict(t)
    for milestone in view["milestones"]:
        at = milestone["at"]
        milestone["at"] = at.isoformat() if isinstance(at, datetime) else at
    return view


@click.command("timeline")
@click.argument("events_file", metavar="EVENTS")
@click.option(
    "--log", "log_path", type=click.Path(path_type=Path), help="The pod's vLLM or SGLang log (kubectl logs POD)."
)
@click.option("--pod", help="The pod to report (default: the newest vLLM or SGLang pod in the events).")
@click.option("--instance", "instance_type", help="Compare with the plan's fresh-node path on this instance type.")
@model_plan_options
@tuning_plan_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def timeline_command(
    events_file: str,
    log_path: Path | None,
    pod: str | None,
    instance_type: str | None,
    parameter_count: float | None,
    total_bytes: int | None,
    dtype: str,
    tensor_parallel_size: int | None,
    source: str,
    warm_compile_cache: bool,
    as_json: bool,
    **tuning: Any,
) -> None:
    """Phases of one real scale-out from kubectl get events (and the pod's vLLM or SGLang log), beside the plan.

    EVENTS is `kubectl get events -A -o json` (core/v1 or events.k8s.io/v1), its table, or the Events
    block of `kubectl describe pod`; '-' for stdin. Phases: node launch, registration, image pull,
    container start, the engine's phases from --log, ready; beside the plan's fresh-node path with --instance.
    """
    where = "stdin" if events_file == "-" else events_file
    planned = functools.partial(
        _plan, instance_type, parameter_count, total_bytes, dtype, tensor_parallel_size, source, warm_compile_cache
    )
    try:
        result = _timeline(events_file, where, pod, log_path, lambda: planned(**_tuning_kwargs(dict(tuning))))
    except FigureOutOfRange as exc:  # a figure of the dump: named with the file it is in
        raise FastloadConfigError(f"{where}: {exc.field}", exc.value, exc.accepted) from None
    if as_json:
        click.echo(json.dumps(timeline_as_dict(result), indent=2))
    else:
        click.echo(render_timeline(result))


def _plan(
    instance_type: str | None,
    parameter_count: float | None,
    total_bytes: int | None,
    dtype: str,
    tensor_parallel_size: int | None,
    source: str,
    warm_compile_cache: bool,
    **tuning: Any,
) -> ServingPlan | None:
    """The plan to compare with, when --instance and a model size are given."""
    if instance_type is None and parameter_count is None and total_bytes is None:
        return None
    if instance_type is None or (parameter_count is None and total_bytes is None):
        raise click.UsageError("compare with a plan by giving --instance and --params or --bytes")
    return plan_from_options(
        instance_type, parameter_count, total_bytes, dtype, tensor_parallel_size, source, warm_compile_cache, **tuning
    )


def _timeline(
    events_file: str, where: str, pod: str | None, log_path: Path | None, planned: Callable[[], ServingPlan | None]
) -> ScaleOutTimeline:
    """Read the events (and the log), check what was asked for, and build the timeline."""
    events = _read_events(events_file)
    if pod is None and server_pod(events) is None:
        raise click.UsageError(f"no {SERVERS} pod in {where} (pods: {listed_pods(events)}); name one with --pod")
    if log_path is not None and not log_path.is_file():
        raise FastloadConfigError("--log", str(log_path), "an existing vLLM or SGLang log file")
    plan = planned()
    report, note = read_log(log_path, events, pod) if log_path is not None else (None, None)
    result = build_timeline(events, pod=pod, log=report, plan=plan)
    return dataclasses.replace(result, notes=(*result.notes, note)) if note else result
