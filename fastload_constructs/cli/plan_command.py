"""`fastload plan`: the ServingPlan for a model size on an instance type."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from fastload_constructs.core.model import DTYPE_BYTES, ModelProfile
from fastload_constructs.core.scaling import scaling_behavior
from fastload_constructs.core.tuning import ServingPlan, TuningOptions, plan


def plan_as_dict(p: ServingPlan) -> dict[str, object]:
    """A JSON-ready view of a plan, for `--json` and for people reading it."""
    return {
        "instance_type": p.instance.name,
        "gpu": f"{p.instance.gpu_count} x {p.instance.gpu_model} {p.instance.gpu_memory_gib:g} GiB",
        "model_gib": round(p.model.total_gib, 2),
        "tensor_parallel_size": p.tensor_parallel_size,
        "gpu_memory_utilization": p.gpu_memory_utilization,
        "model_loader_extra_config": p.streamer.loader_extra_config(),
        "predicted_seconds": {
            "process_start": round(p.predicted.process_start_s, 1),
            "weight_load": round(p.predicted.weight_load_s, 1),
            "compile": round(p.predicted.compile_s, 1),
            "cuda_graph": round(p.predicted.cuda_graph_s, 1),
            "kv_and_server": round(p.predicted.kv_and_server_s, 1),
            "total": round(p.predicted.total_s, 1),
        },
        "dominant_phase": p.predicted.dominant_phase,
        "startup_probe": {
            "period_seconds": p.startup_probe.period_seconds,
            "failure_threshold": p.startup_probe.failure_threshold,
            "budget_seconds": p.startup_probe.budget_seconds,
        },
        "autoscaling": _autoscaling_view(p),
        "assumptions": list(p.assumptions),
    }


def _autoscaling_view(p: ServingPlan) -> dict[str, object]:
    """The KEDA/HPA timing the reference stack derives from this plan (core.scaling)."""
    b = scaling_behavior(p)
    return {
        "from_predicted_startup_seconds": round(b.startup_s, 1),
        "scale_up_period_seconds": b.scale_up_period_s,
        "scale_down_stabilization_seconds": b.scale_down_window_s,
        "scale_down_period_seconds": b.scale_down_period_s,
        "polling_interval_seconds": b.polling_interval_s,
    }


def plan_from_options(
    instance_type: str,
    parameter_count: float | None,
    total_bytes: int | None,
    dtype: str,
    tensor_parallel_size: int | None,
    source: str,
    warm_compile_cache: bool,
) -> ServingPlan:
    """The ServingPlan the plan options describe (shared by `plan` and `coldstart --instance`)."""
    profile = ModelProfile.from_numbers(
        total_bytes=total_bytes,
        parameter_count=int(parameter_count) if parameter_count is not None else None,
        dtype=dtype,
    )
    options = TuningOptions(
        tensor_parallel_size=tensor_parallel_size,
        source=source,  # type: ignore[arg-type]
        compile_cache_warm=warm_compile_cache,
    )
    return plan(profile, instance_type, options)


def model_plan_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The model-size and tuning options `plan_from_options` takes, for every command that plans."""
    options = (
        click.option("--params", "parameter_count", type=float, help="Parameter count, e.g. 8e9."),
        click.option("--bytes", "total_bytes", type=int, help="Total weight bytes (instead of --params)."),
        click.option("--dtype", default="BF16", show_default=True, type=click.Choice(sorted(DTYPE_BYTES))),
        click.option(
            "--tp", "tensor_parallel_size", type=int, help="Tensor-parallel size (default: smallest that fits)."
        ),
        click.option(
            "--source",
            type=click.Choice(["s3", "local"]),
            default="s3",
            show_default=True,
            help="Where the streamer reads weights: S3, or a node-local NVMe copy.",
        ),
        click.option("--warm-compile-cache", is_flag=True, help="Predict with a compile-cache hit."),
    )
    for option in reversed(options):
        command = option(command)
    return command


@click.command("plan")
@click.option("--instance", "instance_type", required=True, help="EC2 instance type, e.g. g6e.12xlarge.")
@model_plan_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def plan_command(
    instance_type: str,
    parameter_count: float | None,
    total_bytes: int | None,
    dtype: str,
    tensor_parallel_size: int | None,
    source: str,
    warm_compile_cache: bool,
    as_json: bool,
) -> None:
    """Decide TP, streamer settings and probe budget for a model on an instance type."""
    if parameter_count is None and total_bytes is None:
        raise click.UsageError("give --params or --bytes")
    view = plan_as_dict(
        plan_from_options(
            instance_type, parameter_count, total_bytes, dtype, tensor_parallel_size, source, warm_compile_cache
        )
    )
    if as_json:
        click.echo(json.dumps(view, indent=2))
        return
    for key, value in view.items():
        if isinstance(value, dict):
            click.echo(f"{key}:")
            for sub, v in value.items():
                click.echo(f"  {sub}: {v}")
        elif isinstance(value, list):
            click.echo(f"{key}:")
            for item in value:
                click.echo(f"  - {item}")
        else:
            click.echo(f"{key}: {value}")
