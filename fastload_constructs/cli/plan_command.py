"""`fastload plan`: the ServingPlan for a model size on an instance type, and its scale-out paths."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from fastload_constructs.cli.output import echo_yaml
from fastload_constructs.cli.setting_options import FORMER, setting_option
from fastload_constructs.core.catalog import INSTANCE_TYPE
from fastload_constructs.core.cluster.image_cache import (
    DEFAULT_VOLUME_GIB,
    MAX_INITIALIZATION_RATE_MIBPS,
    REGION_INITIALIZATION_RATE_MIBPS,
    fast_snapshot_restore_credits,
)
from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.engines.vllm import VLLM
from fastload_constructs.core.errors import FastloadConfigError, spelled_as
from fastload_constructs.core.model import MODEL_BYTES, MODEL_DTYPE, MODEL_PARAMETERS, ModelArchitecture, ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.phase_sources import phase_source
from fastload_constructs.core.planning.plan import ServingPlan, plan
from fastload_constructs.core.planning.scale_out import PHASE_ORDER, ScaleOutPath, ScaleOutPaths
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.planning.standby import StandbyPath
from fastload_constructs.core.scaling.autoscaling import scaling_behavior
from fastload_constructs.core.settings import Setting, flag_spelling, settings_of, values_for


def plan_as_dict(p: ServingPlan) -> dict[str, object]:
    """A JSON-ready view of a plan, for `--json` and for people reading it."""
    view: dict[str, object] = {
        "instance_type": p.instance.name,
        "gpu": f"{p.instance.gpu_count} x {p.instance.gpu_model} {p.instance.gpu_memory_mib:,} MiB",
        "model_gib": round(p.model.total_gib, 2),
        "engine": p.engine,
        # The key predates other engines: vLLM's release only (an SGLang plan's is in the notes).
        "vllm_version": p.engine_version if engine_named(p.engine) is VLLM else None,
        "tensor_parallel_size": p.tensor_parallel_size,
        "gpu_memory_utilization": p.gpu_memory_utilization,
        "source": p.source,
        # What the pod's --model-loader-extra-config holds (SGLang's always names `distributed`).
        "model_loader_extra_config": engine_named(p.engine).loader_extra_config(p.streamer),
        "max_model_len": p.max_model_len,
        "cudagraph_capture_sizes": list(p.cudagraph_capture_sizes) if p.cudagraph_capture_sizes is not None else None,
        "max_num_seqs": p.max_num_seqs,
        "load_throughput_mb_s": round(p.predicted.load_throughput_mb_s, 1),
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
    }
    if p.capture is not None:
        # What the pod captures, chosen or the engine's default: the plan states it either way.
        view["cuda_graphs"] = {
            "capture_sizes": list(p.capture.sizes),
            "graphs": p.capture.graphs,
            "max_num_seqs": p.capture.max_num_seqs,
            "sizes_from": "chosen" if p.cudagraph_capture_sizes is not None else "the engine's default",
        }
    if p.kv_fit is not None:
        view["kv_cache"] = {
            "bytes_per_token_per_gpu": p.kv_fit.kv_bytes_per_token,
            "max_model_len": p.kv_fit.max_model_len,
            "sequences": p.kv_fit.kv_sequences,
            "needed_gib": round(p.kv_fit.kv_needed_bytes / 1024**3, 2),
            "available_gib": round(p.kv_fit.kv_available_bytes / 1024**3, 2),
            "max_tokens": p.kv_fit.max_tokens,
        }
    if p.scale_out_paths is not None:
        paths = p.scale_out_paths
        view["image_pull_mode"] = paths.pull_mode
        view["scale_out_paths"] = {
            path.name: {
                "phases": {name: round(seconds, 1) for name, seconds in path.phases},
                "total": round(path.total_s, 1),
                "sources": path_sources(p, path),
            }
            for path in paths.as_tuple()
            if path.name != "standby"  # its phases and sources: `standbys`, `standby_sources`
        } | {
            path.name: {"phases": {n: round(s, 1) for n, s in path.phases}, "total": round(path.total_s, 1)}
            for path in paths.as_tuple()
            if path.name == "standby"
        }
        view["fresh_node_sources"] = list(path_sources(p, paths.fresh_node).values())
        view["warm_spares"] = {"count": paths.warm_spares, "idle_gpu_hours_per_day": paths.spare_gpu_hours_per_day}
        view["nodes"] = nodes_view(paths)
        if paths.standby is not None:
            view["standbys"] = standby_view(paths.standby)
            view["standby_sources"] = standby_sources(paths.standby)
    view["assumptions"] = list(p.assumptions)
    return view


def path_sources(p: ServingPlan, path: ScaleOutPath) -> dict[str, str]:
    """Per phase of `path`: its seconds, the kind of figure, and its public sources (core.planning.phase_sources)."""
    paths = p.scale_out_paths
    assert paths is not None
    return {
        name: phase_source(
            name,
            ami_family=paths.ami_family,
            pull_mode=paths.pull_mode,
            restore=paths.restore_mode,
            engine=p.engine,
            warm_compile=name == "compile" and seconds < p.predicted.compile_s,
        ).line(name, seconds)
        for name, seconds in path.phases
    }


def nodes_view(paths: ScaleOutPaths) -> dict[str, object]:
    """The nodes the paths are planned on, and what capacity held warm for them costs idle."""
    view: dict[str, object] = {
        "ami_family": paths.ami_family,
        "image": paths.pull_mode,
        "buffered_nodes": paths.buffered_nodes,
        "buffered_idle_gpu_hours_per_day": paths.buffered_idle.gpu_hours,
    }
    if paths.pull_mode == "snapshot":
        view["restore_mode"] = paths.restore_mode
        if paths.restore_mode == "fsr":
            # One Fast Snapshot Restore per Availability Zone the nodes launch in, billed per hour; each zone
            # creates this many initialized volumes at once, then this many an hour (the rest load lazily).
            view["fast_snapshot_restore_hours_per_day_per_zone"] = 24
            view["fast_snapshot_restore_nodes_per_zone_per_hour"] = fast_snapshot_restore_credits(DEFAULT_VOLUME_GIB)
        elif paths.restore_mode == "rate":
            # The Region's cap on concurrent initialization: more nodes launching at once fail to launch.
            view["nodes_launching_at_once_at_most"] = REGION_INITIALIZATION_RATE_MIBPS // MAX_INITIALIZATION_RATE_MIBPS
    return view


def standby_view(standby: StandbyPath) -> dict[str, object]:
    """The standby path's total and what the standbys hold idle (phases and sources: `standby_sources`)."""
    idle = standby.idle
    return {
        "count": idle.standbys,
        "total_seconds": round(standby.total_s, 1),
        "from_measurements_seconds": round(standby.measured_s, 1),
        "idle_gpus": idle.gpus,
        "idle_gpu_hours_per_day": idle.gpu_hours_per_day,
        "host_gib_per_standby": round(idle.host_bytes_per_standby / 1024**3, 1),
        "pinned_host_gib_per_standby": round(idle.pinned_host_bytes_per_standby / 1024**3, 1),
        "gpu_gib_per_sleeper": round(idle.gpu_bytes_per_sleeper_per_gpu / 1024**3, 1),
    }


def standby_sources(standby: StandbyPath) -> list[str]:
    """One line per phase of the standby path: seconds, measured or estimated, and the source; then the notes."""
    return [
        f"{p.name} {p.seconds:.1f} s ({'measured' if p.measured else 'estimated'}): {p.source}" for p in standby.phases
    ] + list(standby.notes)


def _autoscaling_view(p: ServingPlan) -> dict[str, object]:
    """The KEDA/HPA timing the reference stack derives from this plan (core.scaling)."""
    b = scaling_behavior(p)
    return {
        "from_predicted_startup_seconds": round(b.startup_s, 1),
        "scale_up_stabilization_seconds": b.scale_up_window_s,
        "scale_up_period_seconds": b.scale_up_period_s,
        "scale_down_stabilization_seconds": b.scale_down_window_s,
        "scale_down_period_seconds": b.scale_down_period_s,
        "polling_interval_seconds": b.polling_interval_s,
    }


# Every option a plan takes, each a setting declared once on its option's field in core (flag, help, choices,
# default, check): the model's size and how it streams (shared with `coldstart --instance`), then the rest.
MODEL_SETTINGS: tuple[Setting, ...] = (
    MODEL_PARAMETERS,
    MODEL_BYTES,
    MODEL_DTYPE,
    *(s for s in settings_of(TuningOptions) if s.name in ("tensor_parallel_size", "compile_cache_warm")),
    *(s for s in settings_of(Serving) if s.name == "model_cache"),
)
TUNING_SETTINGS: tuple[Setting, ...] = tuple(
    s
    for s in (*settings_of(TuningOptions), *settings_of(Serving))
    if s.flag is not None and s.name not in {m.name for m in MODEL_SETTINGS}
)
PLAN_SETTINGS = (INSTANCE_TYPE, *MODEL_SETTINGS, *TUNING_SETTINGS)


def _options(settings: tuple[Setting, ...]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        for s in reversed(settings):
            command = setting_option(s)(command)
        return command

    return decorate


def model_plan_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The model-size and streaming options `plan_from_options` takes, for every command that plans."""
    return _options(MODEL_SETTINGS)(command)


def tuning_plan_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Every other option the plan takes, so a measured setup can be replayed exactly."""
    command = _options(TUNING_SETTINGS)(command)
    return click.option(
        "--config-json",
        type=click.Path(exists=True, path_type=Path),
        help="The model's config.json (or its folder): layers, KV heads, context for the KV-aware fit.",
    )(command)


def plan_from_options(instance_type: str, config_json: Path | None = None, **values: Any) -> ServingPlan:
    """The ServingPlan the plan options describe (shared by `plan`, `timeline` and `coldstart --instance`).

    `values`: the settings' values by name (`PLAN_SETTINGS`), as their options read and checked them; None is
    "not given". The options and the planner check what spans settings with the command line's spelling of
    them declared, so their errors name the flags.
    """
    values = dict(values)
    typed = _former_flags(values)
    _pull_mode_decides_fast_image_pull(values)
    if values.get("parameter_count") is not None and values.get("total_bytes") is not None:
        raise click.UsageError("--params and --bytes both give the model's size: give one of them")
    with spelled_as(flag_spelling(_offered(values), typed)):
        profile = ModelProfile.from_numbers(
            total_bytes=values.get("total_bytes"),
            parameter_count=values.get("parameter_count"),
            dtype=values.get("dtype") or MODEL_DTYPE.default,
        )
        if config_json is not None:
            profile = profile.with_architecture(ModelArchitecture.from_file(config_json, "--config-json"))
        given = {k: v for k, v in values.items() if v is not None}
        options = TuningOptions(**values_for(TuningOptions, given), serving=Serving(**values_for(Serving, given)))
        return plan(profile, instance_type, options)


def _offered(values: dict[str, Any]) -> list[Setting]:
    """The settings the running command has options for (all those given, outside a command)."""
    context = click.get_current_context(silent=True)
    names = {p.name for p in context.command.params} if context is not None else set(values)
    return [s for s in PLAN_SETTINGS if s.name in names]


def _former_flags(values: dict[str, Any]) -> dict[str, str]:
    """Take a former flag's value as its setting's (never both); the settings so given, path -> that flag."""
    typed: dict[str, str] = {}
    for s in PLAN_SETTINGS:
        value = values.pop(s.name + FORMER, None)
        if value is None or s.flag is None or s.flag.former is None:
            continue
        if values.get(s.name) is not None:
            raise FastloadConfigError(s.flag.former, value, f"no value with {s.flag.option} (its former name)")
        values[s.name] = value
        typed[s.path] = s.flag.former
    return typed


def _pull_mode_decides_fast_image_pull(values: dict[str, Any]) -> None:
    """`--pull-mode` decides the node's FastImagePull (on for parallel only), unless typed against it."""
    mode = values.get("pull_mode")
    if mode is None:
        return
    wanted = mode == "parallel"
    context = click.get_current_context(silent=True)
    typed = context is not None and context.get_parameter_source("fast_image_pull") == ParameterSource.COMMANDLINE
    if typed and values.get("fast_image_pull") != wanted:
        raise FastloadConfigError(
            "--fast-image-pull",
            values.get("fast_image_pull"),
            f"{'--fast-image-pull' if wanted else '--no-fast-image-pull'} with --pull-mode {mode}, "
            "or neither (--pull-mode decides it: FastImagePull is the parallel pull)",
        )
    values["fast_image_pull"] = wanted


def _echo_table(view: dict[str, object]) -> None:
    paths = view.pop("scale_out_paths", None)
    graphs = view.get("cuda_graphs")
    if isinstance(graphs, dict):  # the sizes on one line, not one per line
        graphs["capture_sizes"] = ", ".join(str(size) for size in graphs["capture_sizes"])
    echo_yaml(view)
    if isinstance(paths, dict):
        names: list[str] = []
        for path in paths.values():
            names += [n for n in path["phases"] if n not in names]
        names.sort(key=lambda n: PHASE_ORDER.index(n) if n in PHASE_ORDER else len(PHASE_ORDER))
        click.echo("scale-out paths (seconds):")
        click.echo(f"  {'phase':<18}" + "".join(f"{name:>14}" for name in paths))
        for phase in names:
            cells = "".join(
                f"{path['phases'][phase]:>14.1f}" if phase in path["phases"] else f"{'-':>14}"
                for path in paths.values()
            )
            click.echo(f"  {phase:<18}{cells}")
        click.echo(f"  {'total':<18}" + "".join(f"{path['total']:>14.1f}" for path in paths.values()))


@click.command("plan")
@setting_option(INSTANCE_TYPE, required=True)
@model_plan_options
@tuning_plan_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def plan_command(as_json: bool, **values: Any) -> None:
    """Decide TP, streamer settings and probe budget; predict the fresh-node, warm-node and warm-spare starts."""
    if values["parameter_count"] is None and values["total_bytes"] is None:
        raise click.UsageError("give --params or --bytes")
    view = plan_as_dict(plan_from_options(**values))
    if as_json:
        click.echo(json.dumps(view, indent=2))
        return
    _echo_table(view)
