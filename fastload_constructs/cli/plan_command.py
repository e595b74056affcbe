"""`fastload plan`: the ServingPlan for a model size on an instance type, and its scale-out paths."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from fastload_constructs.cli.output import echo_yaml
from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.engines.vllm import VLLM
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import (
    DTYPE_BYTES,
    PARAMETER_COUNT,
    TOTAL_BYTES,
    ModelArchitecture,
    ModelProfile,
)
from fastload_constructs.core.planning.assumptions import LoadAssumptions
from fastload_constructs.core.planning.calibration import assumptions_from_dict
from fastload_constructs.core.planning.options import DEFAULT_IMAGE_BYTES, TuningOptions
from fastload_constructs.core.planning.plan import ServingPlan, plan
from fastload_constructs.core.planning.serving import DEFAULT_IMAGE, Serving
from fastload_constructs.core.planning.standby import StandbyPath
from fastload_constructs.core.scaling.autoscaling import scaling_behavior
from fastload_constructs.core.validation import CountRule


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
            }
            for path in paths.as_tuple()
        }
        view["warm_spares"] = {"count": paths.warm_spares, "idle_gpu_hours_per_day": paths.spare_gpu_hours_per_day}
        if paths.standby is not None:
            view["standbys"] = standby_view(paths.standby)
            view["standby_sources"] = standby_sources(paths.standby)
    view["assumptions"] = list(p.assumptions)
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


def read_assumptions(path: Path | None) -> LoadAssumptions | None:
    """An assumptions file written by `fastload calibrate` (None: the cited defaults)."""
    if path is None:
        return None
    if not path.is_file():
        raise FastloadConfigError("--assumptions", str(path), "an existing assumptions file from `fastload calibrate`")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise FastloadConfigError("--assumptions", str(path), f"a JSON file ({exc})") from exc
    return assumptions_from_dict(raw, field="--assumptions")


def parse_capture_sizes(text: str | None) -> tuple[int, ...] | None:
    """ "1,2,4,8" -> (1, 2, 4, 8); "none" -> () (capture nothing); None -> vLLM's default.

    Empty text is refused: an unset shell variable must not silently mean "capture nothing".
    """
    if text is None:
        return None
    if text.strip().lower() == "none":
        return ()
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise FastloadConfigError(
            "--capture-sizes", text, "comma-separated whole numbers such as 1,2,4,8,16,32, or none"
        ) from None


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


_SIZE_FIELDS = ("model.total_bytes", "model.parameter_count")
# The image size is typed in GB; the library checks bytes.
MAX_IMAGE_GB = 1000.0


@contextmanager
def _size_named_as_typed(size_option: str, size_value: int) -> Iterator[None]:
    """A model that does not fit is named `--params` or `--bytes` (whichever gave the size), with the value typed.

    The other fields become their options in `fastload_constructs.cli.main` (`tensor_parallel_size` -> `--tp`).
    """
    try:
        yield
    except FastloadConfigError as exc:
        if exc.field not in _SIZE_FIELDS:
            raise
        raise FastloadConfigError(size_option, size_value, exc.accepted) from None


# Serving's fields -> the `fastload plan` options that set them.
_SERVING_OPTIONS = {
    "image": "--image",
    "serving.engine": "--engine",
    "serving.engine_release": "--engine-release",
    "serving.warm_spares": "--warm-spares",
    "serving.standbys": "--standbys",
    "serving.model_cache": "--source",
    "serving.shared_compile_cache": "--shared-compile-cache",
    "serving.fast_image_pull": "--fast-image-pull",
    "serving.pull_mode": "--pull-mode",
}


def plan_from_options(
    instance_type: str,
    parameter_count: float | None,
    total_bytes: int | None,
    dtype: str,
    tensor_parallel_size: int | None,
    source: str,
    warm_compile_cache: bool,
    **tuning: Any,
) -> ServingPlan:
    """The ServingPlan the plan options describe (shared by `plan` and `coldstart --instance`).

    `tuning` takes the TuningOptions fields by name, plus `config_json` (a config.json path for
    the architecture) and `assumptions_path` (an assumptions file).
    """
    if parameter_count is not None and total_bytes is not None:
        raise click.UsageError("--params and --bytes both give the model's size: give one of them")
    if parameter_count is not None:
        size_option, size_value = "--params", PARAMETER_COUNT.check(parameter_count, "--params")
    else:
        size_option, size_value = "--bytes", TOTAL_BYTES.check(total_bytes, "--bytes")
    with _size_named_as_typed(size_option, size_value):
        profile = ModelProfile.from_numbers(
            total_bytes=size_value if size_option == "--bytes" else None,
            parameter_count=size_value if size_option == "--params" else None,
            dtype=dtype,
        )
    config_json = tuning.pop("config_json", None)
    if config_json is not None:
        profile = profile.with_architecture(ModelArchitecture.from_file(config_json))
    assumptions = read_assumptions(tuning.pop("assumptions_path", None))
    # How the model is served, one value: the plan records it (core.planning.serving).
    serving_keys = (
        "engine",
        "image",
        "engine_release",
        "shared_compile_cache",
        "warm_spares",
        "standbys",
        "fast_image_pull",
        "pull_mode",
    )
    chosen = {k: tuning.pop(k) for k in serving_keys if tuning.get(k) is not None}
    if "pull_mode" in chosen:  # --pull-mode decides the node's FastImagePull (on for parallel only)
        wanted = chosen["pull_mode"] == "parallel"
        context = click.get_current_context(silent=True)
        typed = context is not None and context.get_parameter_source("fast_image_pull") == ParameterSource.COMMANDLINE
        if typed and chosen.get("fast_image_pull") != wanted:
            raise FastloadConfigError(
                "--fast-image-pull",
                chosen.get("fast_image_pull"),
                f"{'--fast-image-pull' if wanted else '--no-fast-image-pull'} with --pull-mode {chosen['pull_mode']}, "
                "or neither (--pull-mode decides it: FastImagePull is the parallel pull)",
            )
        chosen["fast_image_pull"] = wanted
    for k in serving_keys:
        tuning.pop(k, None)
    try:
        serving = Serving(model_cache="node-local" if source == "local" else "s3", **chosen)
    except FastloadConfigError as exc:  # name the option typed, not the field
        option = _SERVING_OPTIONS.get(exc.field, exc.field)
        accepted = exc.accepted.replace("engine_release=", "--engine-release ")
        raise FastloadConfigError(option, exc.value, accepted) from None
    options = TuningOptions(
        tensor_parallel_size=tensor_parallel_size,
        serving=serving,
        compile_cache_warm=warm_compile_cache,
        assumptions=assumptions if assumptions is not None else LoadAssumptions(),
        **{k: v for k, v in tuning.items() if v is not None},
    )
    with _size_named_as_typed(size_option, size_value):
        return plan(profile, instance_type, options)


class CountType(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.3, plain before
    """--params / --bytes: the number rule cdk.json uses (core.model), so 70e9 and 8030261248 both work."""

    name = "number"

    def __init__(self, rule: CountRule) -> None:
        self.rule = rule

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            return value
        option = max(param.opts, key=len) if param is not None else "value"
        return self.rule.parse(str(value), option)


def model_plan_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The model-size and tuning options `plan_from_options` takes, for every command that plans."""
    options = (
        click.option("--params", "parameter_count", type=CountType(PARAMETER_COUNT), help="Parameters, e.g. 8.03e9."),
        click.option("--bytes", "total_bytes", type=CountType(TOTAL_BYTES), help="Weight bytes (instead of --params)."),
        click.option("--dtype", default="BF16", show_default=True, type=click.Choice(sorted(DTYPE_BYTES))),
        click.option(
            "--tp", "tensor_parallel_size", type=int, help="Tensor-parallel size (default: smallest that fits)."
        ),
        click.option(
            "--source",
            type=click.Choice(["s3", "local"]),
            default="s3",
            show_default=True,
            help="Where the streamer reads weights: S3, or a node-local NVMe copy made once per node.",
        ),
        click.option("--warm-compile-cache", is_flag=True, help="Predict with a compile-cache hit."),
    )
    for option in reversed(options):
        command = option(command)
    return command


def tuning_plan_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Every other option the plan takes, so a measured setup can be replayed exactly."""
    options = (
        click.option(
            "--config-json",
            type=click.Path(exists=True, path_type=Path),
            help="The model's config.json (or its folder): layers, KV heads, context for the KV-aware fit.",
        ),
        click.option("--engine", help="vllm (default) or sglang: the server the plan is for."),
        click.option("--sglang-torch-compile", is_flag=True, default=None, help="SGLang --enable-torch-compile."),
        click.option("--concurrency", type=int, help="Streamer concurrency per process (default: derived)."),
        click.option("--memory-limit", "memory_limit_bytes", type=int, help="Streamer buffer bytes per process."),
        click.option("--gpu-memory-utilization", type=float, help="vLLM's share of GPU memory (default 0.9)."),
        click.option("--max-model-len", type=int, help="vLLM --max-model-len (default: the model's context)."),
        click.option("--kv-sequences", type=int, help="Full-length sequences the KV cache must hold (default 1)."),
        click.option("--kv-cache-dtype", type=click.Choice(["auto", "fp8"]), help="vLLM --kv-cache-dtype."),
        click.option("--capture-sizes", help="CUDA-graph capture sizes, e.g. 1,2,4,8,16,32 (default: vLLM's)."),
        click.option(
            "--image",
            default=DEFAULT_IMAGE,
            show_default=True,
            help="The pinned server image; its tag is the engine release planned for (another --engine: its own).",
        ),
        click.option("--engine-release", help="The image's engine release, only when its tag names none (a digest)."),
        # The option's former name, for scripts written before SGLang: the same value.
        click.option("--vllm-version", hidden=True),
        click.option(
            "--image-gb",
            type=float,
            default=DEFAULT_IMAGE_BYTES / 1e9,
            show_default=True,
            help="Compressed image size pulled on a fresh node (default: vllm/vllm-openai:v0.34.0).",
        ),
        click.option(
            "--fast-image-pull/--no-fast-image-pull",
            default=True,
            show_default=True,
            help="nodeadm FastImagePull (SOCI parallel pull) on the node.",
        ),
        click.option(
            "--pull-mode",
            type=click.Choice(["plain", "parallel", "lazy", "snapshot"]),
            help="How the image reaches a fresh node (default: parallel, or plain with --no-fast-image-pull).",
        ),
        click.option("--shared-compile-cache", is_flag=True, help="Compile cache restored from S3 on fresh nodes."),
        click.option("--warm-spares", type=int, default=0, show_default=True, help="Warm spare pods to cost."),
        click.option(
            "--standbys",
            type=int,
            default=0,
            show_default=True,
            help="Sleeping vLLM engines woken on scale-out (FMA): add the standby path and its idle cost.",
        ),
        click.option(
            "--assumptions",
            "assumptions_path",
            type=click.Path(path_type=Path),
            help="Assumptions file from `fastload calibrate`.",
        ),
    )
    for option in reversed(options):
        command = option(command)
    return command


def _tuning_kwargs(raw: dict[str, Any]) -> dict[str, Any]:
    """CLI values -> plan_from_options keywords."""
    former = raw.pop("vllm_version")
    if former is not None:
        if raw["engine_release"] is not None:
            raise FastloadConfigError("--vllm-version", former, "no value with --engine-release (its former name)")
        raw["engine_release"] = former
    sizes = parse_capture_sizes(raw.pop("capture_sizes"))
    image_gb = raw.pop("image_gb")
    if not (math.isfinite(image_gb) and 0 < image_gb <= MAX_IMAGE_GB):
        raise FastloadConfigError("--image-gb", image_gb, f"a number of GB above 0 and at most {MAX_IMAGE_GB:,.0f}")
    image_bytes = int(image_gb * 1e9)
    return {**raw, "cudagraph_capture_sizes": sizes, "image_bytes": image_bytes}


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
        click.echo("scale-out paths (seconds):")
        click.echo(f"  {'phase':<18}" + "".join(f"{name:>12}" for name in paths))
        for phase in names:
            cells = "".join(
                f"{path['phases'][phase]:>12.1f}" if phase in path["phases"] else f"{'-':>12}"
                for path in paths.values()
            )
            click.echo(f"  {phase:<18}{cells}")
        click.echo(f"  {'total':<18}" + "".join(f"{path['total']:>12.1f}" for path in paths.values()))


@click.command("plan")
@click.option("--instance", "instance_type", required=True, help="EC2 instance type, e.g. g6e.12xlarge.")
@model_plan_options
@tuning_plan_options
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
    **tuning: Any,
) -> None:
    """Decide TP, streamer settings and probe budget; predict the fresh-node, warm-node and warm-spare starts."""
    if parameter_count is None and total_bytes is None:
        raise click.UsageError("give --params or --bytes")
    p = plan_from_options(
        instance_type,
        parameter_count,
        total_bytes,
        dtype,
        tensor_parallel_size,
        source,
        warm_compile_cache,
        **_tuning_kwargs(dict(tuning)),
    )
    view = plan_as_dict(p)
    if as_json:
        click.echo(json.dumps(view, indent=2))
        return
    _echo_table(view)
