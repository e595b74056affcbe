"""`fastload calibrate`: fit the planner's assumptions to your own vLLM start-up logs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import click

from fastload_constructs.cli.setting_options import setting_option
from fastload_constructs.coldstart.clock import step_text
from fastload_constructs.coldstart.figures import MAX_BYTES, MAX_SECONDS, bounded, shown
from fastload_constructs.coldstart.parser import parse_log
from fastload_constructs.coldstart.report import ColdStartReport
from fastload_constructs.core.catalog import lookup
from fastload_constructs.core.cluster.ami_family import DEFAULT_AMI_FAMILY
from fastload_constructs.core.engines import engine_named
from fastload_constructs.core.engines.vllm import VLLM
from fastload_constructs.core.engines.vllm.releases import release_family
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import MODEL_BYTES, MODEL_DTYPE, MODEL_PARAMETERS, ModelArchitecture, ModelProfile
from fastload_constructs.core.planning.assumptions_file import assumptions_as_dict, vllm_figures
from fastload_constructs.core.planning.calibration import MeasuredLaunch, MeasuredNode, fit_assumptions, fit_node_phases
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.pull_modes import PULL_MODES, PullMode
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.settings import settings_of

# The capture sizes are typed as `fastload plan --capture-sizes` takes them.
(CAPTURE_SIZES,) = (s for s in settings_of(TuningOptions) if s.name == "cudagraph_capture_sizes")


def launch_from_report(
    report: ColdStartReport,
    *,
    instance_type: str,
    source: str,
    model: ModelProfile | None,
    vllm_version: str | None,
    capture_sizes: tuple[int, ...] | None,
) -> MeasuredLaunch:
    """A parsed log in the planner's five phases."""
    if report.engine != VLLM.name:
        raise FastloadConfigError(
            "log",
            report.label,
            f"a vLLM log: {engine_named(report.engine).display_name}'s figures are not calibrated yet",
        )
    if model is None:
        weights = report.weights
        if weights is None or not weights.total_bytes:
            raise FastloadConfigError(
                "log", report.label, "a log that reports the bytes loaded ('Model loading took ... GiB'), or --bytes"
            )
        model = ModelProfile(total_bytes=weights.total_bytes, dtype="BF16", name=report.label)
    version = vllm_version or report.engine_version
    if version is None:
        raise FastloadConfigError("--vllm-version", None, f"the vLLM release of {report.label} (its log does not say)")
    release_family(version)

    measured = report.plan_phase_seconds  # distributed init and warm-up go with the phases that hold them
    return MeasuredLaunch(
        label=report.label,
        instance_type=instance_type,
        source=source,
        model=model,
        options=TuningOptions(
            # The upstream image of the release the log names: the plan replays that release.
            serving=Serving(image=f"vllm/vllm-openai:v{version.lstrip('v')}"),
            cudagraph_capture_sizes=capture_sizes,
        ),
        process_start_s=measured["process_start"],
        weight_load_s=measured["weight_load"],
        compile_s=measured["compile"],
        compile_warm=report.compile_cache == "hit",
        cuda_graph_s=measured["cuda_graph"],
        kv_and_server_s=measured["kv_and_server"],
    )


# Under this, "pod created -> scheduled" is a pod placed on a node that was already up: a new GPU node takes
# over a minute (74 s on GKE scaling from zero, tests/fixtures/k8s_events/SOURCES.md), a CPU node 26 s
# (awslabs/node-latency-for-k8s).
NO_NEW_NODE_S = 10.0


def _figure(value: Any, label: str, where: str, high: float, accepted: str) -> float | None:
    """A figure of a timeline file: null, or a number from 0 to `high`; anything else (a 400-digit integer, NaN,
    Infinity, a negative, text) is refused, naming the file and the field, before it reaches the fit."""
    if value is None:
        return None
    number = bounded(value, high) if isinstance(value, int | float) else None
    if number is None:
        raise FastloadConfigError(f"--timeline {label}", f"{where} = {shown(value)}", f"{accepted}, or null")
    return number


def _seconds(value: Any, label: str, where: str) -> float | None:
    return _figure(value, label, where, MAX_SECONDS, f"seconds from 0 to {MAX_SECONDS:.0f} (30 days)")


def node_from_timeline(view: Any, label: str, pull_mode: PullMode) -> MeasuredNode:
    """One `fastload timeline --json` output as the fresh-node phases it recorded."""
    ok = isinstance(view, dict) and isinstance(view.get("phases"), list) and isinstance(view.get("image_pulls"), list)
    if not ok or not all(isinstance(p, dict) and isinstance(p.get("name"), str) for p in view["phases"]):
        raise FastloadConfigError("--timeline", label, "the JSON that `fastload timeline --json` prints")
    phases = {
        p["name"]: _seconds(p.get("seconds"), label, f"phases[{i}].seconds") for i, p in enumerate(view["phases"])
    }
    launch, registration = phases.get("node_launch"), phases.get("gpu_registration")
    whole = phases.get("node_launch + gpu_registration")
    if launch is not None and registration is not None:
        whole = launch + registration
    if whole is not None and whole < NO_NEW_NODE_S:  # the pod went to a running node: nothing launched
        launch = registration = whole = None
    # The kubelet's own timing of the pull ("in X", "Image size: N bytes"), else the events' span.
    pulls = [
        (seconds, p.get("size_bytes"), i)
        for i, p in enumerate(view["image_pulls"])
        if isinstance(p, dict)
        and (seconds := _seconds(p.get("seconds"), label, f"image_pulls[{i}].seconds")) is not None
    ]
    pull_s = pulls[0][0] if pulls else phases.get("image_pull")
    size = (
        _figure(pulls[0][1], label, f"image_pulls[{pulls[0][2]}].size_bytes", MAX_BYTES, "bytes up to 1 PiB")
        if pulls
        else None
    )
    return MeasuredNode(
        label=label,
        node_launch_s=launch,
        gpu_registration_s=registration,
        node_s=whole,
        image_pull_s=pull_s,
        image_bytes=int(size) if size else None,
        pull_mode=pull_mode,
    )


def _read_timeline(path: Path) -> Any:
    if not path.is_file():
        raise FastloadConfigError("--timeline", str(path), "an existing file written by `fastload timeline --json`")
    try:
        return json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except json.JSONDecodeError:
        raise FastloadConfigError("--timeline", str(path), "the JSON that `fastload timeline --json` prints") from None


@click.command("calibrate")
@click.argument("logs", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--instance", "instance_type", help="The instance type the LOGS' launches ran on (needed with LOGS).")
@click.option(
    "--timeline",
    "timelines",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A `fastload timeline --json` output of a real scale-out (repeatable): fits the fresh-node phases.",
)
@click.option(
    "--pull-mode",
    type=click.Choice(list(PULL_MODES)),
    default="parallel",
    show_default=True,
    help="How the --timeline scale-outs' nodes pulled the image.",
)
@click.option("--source", type=click.Choice(["s3", "local"]), default="s3", show_default=True)
@setting_option(MODEL_PARAMETERS, help="Parameter count (default: from the log).")
@setting_option(MODEL_BYTES, help="Weight bytes (default: from the log).")
@setting_option(MODEL_DTYPE)
@click.option("--config-json", type=click.Path(exists=True, path_type=Path), help="The model's config.json.")
@click.option("--vllm-version", help="vLLM release of the launches (default: from each log).")
@setting_option(CAPTURE_SIZES, help="CUDA-graph capture sizes the launches used (default: vLLM's).")
@click.option("-o", "--out", "out_path", required=True, type=click.Path(dir_okay=False, path_type=Path))
def calibrate_command(
    logs: tuple[Path, ...],
    instance_type: str | None,
    timelines: tuple[Path, ...],
    pull_mode: PullMode,
    source: str,
    parameter_count: float | None,
    total_bytes: int | None,
    dtype: str,
    config_json: Path | None,
    vllm_version: str | None,
    cudagraph_capture_sizes: tuple[int, ...] | None,
    out_path: Path,
) -> None:
    """Fit stream throughput and fixed costs to LOGS of your own launches; write an assumptions file.

    With --timeline (the JSON of `fastload timeline`), also the fresh node: node launch, GPU registration
    and the image pull. Use it with `fastload plan --assumptions FILE` or the reference app's
    `fastload:assumptions`.
    """
    if not logs and not timelines:
        raise FastloadConfigError("LOGS", "none", "vLLM start-up logs, or --timeline files, or both")
    if not out_path.name or out_path.is_dir() or not out_path.parent.is_dir():  # refuse before fitting, not after
        raise FastloadConfigError("--out", str(out_path), "a file in an existing folder")
    nodes = [node_from_timeline(_read_timeline(path), str(path), pull_mode) for path in timelines]
    fitted = (
        fit_assumptions(
            _launches(
                logs,
                instance_type,
                source,
                parameter_count,
                total_bytes,
                dtype,
                config_json,
                vllm_version,
                cudagraph_capture_sizes,
            )
        )
        if logs
        else None
    )
    if nodes:
        fitted = fit_node_phases(nodes, fitted)
    assert fitted is not None
    sources = [str(p) for p in logs] + [str(p) for p in timelines]
    try:  # the file is JSON (no NaN, no Infinity) or it is not written
        text = json.dumps(assumptions_as_dict(fitted, sources), indent=2, allow_nan=False)
    except ValueError:
        raise FastloadConfigError(
            "--out", str(out_path), "assumptions the fit made finite (one came out NaN or infinite)"
        ) from None
    out_path.write_text(text + "\n")
    for name, src, mb_s in fitted.measured_throughput_mb_s:
        click.echo(f"{name} {src}: {mb_s:,.0f} MB/s")
    if logs:
        vllm = vllm_figures(fitted)
        click.echo(
            f"process start {vllm.process_start_s:.1f} s, "
            f"KV + server {vllm.kv_and_server_s_per_layer:.3f} s per layer, "
            f"compile x{vllm.compile_scale:.2f} (warm {vllm.compile_warm_fixed_s:.1f} s + Dynamo per layer, "
            f"AOT {vllm.compile_warm_aot_s:.1f} s), "
            f"CUDA graphs x{vllm.cuda_graph_scale:.2f}"
        )
    if nodes:
        launch, registration = fitted.node_phases(DEFAULT_AMI_FAMILY)
        click.echo(
            f"fresh node: launch {launch:.1f} s, GPU registration {registration:.1f} s, "
            f"image pull {fitted.image_pull_mb_s:.1f} MB/s plain ({len(nodes)} scale-outs)"
        )
    click.echo(f"wrote {out_path}")


def _launches(
    logs: tuple[Path, ...],
    instance_type: str | None,
    source: str,
    parameter_count: float | None,
    total_bytes: int | None,
    dtype: str,
    config_json: Path | None,
    vllm_version: str | None,
    sizes: tuple[int, ...] | None,
) -> list[MeasuredLaunch]:
    if instance_type is None:
        raise FastloadConfigError("--instance", None, "the instance type the LOGS' launches ran on")
    instance = lookup(instance_type, "--instance")
    model = None
    if parameter_count is not None and total_bytes is not None:
        raise click.UsageError("--params and --bytes both give the model's size: give one of them")
    if parameter_count is not None or total_bytes is not None:
        model = ModelProfile.from_numbers(
            total_bytes=total_bytes,
            parameter_count=int(parameter_count) if parameter_count is not None else None,
            dtype=dtype,
        )
    if config_json is not None:
        arch = ModelArchitecture.from_file(config_json, "--config-json")
        model = model.with_architecture(arch) if model is not None else None
    launches = []
    for path in logs:
        if not path.is_file():
            raise FastloadConfigError("log", str(path), "an existing vLLM log file")
        report = parse_log(path.read_text(encoding="utf-8", errors="replace"), label=path.stem)
        if not report.ready:
            raise FastloadConfigError("log", str(path), "a launch that got ready (this one failed)")
        if report.clock_steps:
            raise FastloadConfigError(
                "log",
                str(path),
                f"a log whose clock ran steadily (this one's {step_text(*report.clock_steps[0])}: "
                "the phases across it are not measurements)",
            )
        launch = launch_from_report(
            report,
            instance_type=instance.name,
            source=source,
            model=model,
            vllm_version=vllm_version,
            capture_sizes=sizes,
        )
        if config_json is not None and model is None:
            launch = _with_arch(launch, ModelArchitecture.from_file(config_json, "--config-json"))
        launches.append(_measured(launch, path))
    return launches


# The measured figures of a launch the fit reads (core/planning/calibration.py `fit_assumptions`).
_LAUNCH_SECONDS = ("process_start_s", "weight_load_s", "compile_s", "cuda_graph_s", "kv_and_server_s")


def _measured(launch: MeasuredLaunch, path: Path) -> MeasuredLaunch:
    """The launch, when every figure the fit reads is a measurement: seconds finite from 0 to 30 days (or not in
    the log), the model's bytes up to 1 PiB. Anything else (NaN, Infinity, a negative) is refused, naming the log,
    so the assumptions file stays JSON and `plan` accepts it."""
    figures: list[tuple[str, object, float]] = [(f[:-2], getattr(launch, f), MAX_SECONDS) for f in _LAUNCH_SECONDS]
    figures.append(("model bytes", launch.model.total_bytes, MAX_BYTES))
    for name, value, high in figures:
        if value is not None and bounded(value, high) is None:
            raise FastloadConfigError(
                "log", str(path), f"a launch whose phases are measurements (this one has {name} = {shown(value)})"
            )
    return launch


def _with_arch(launch: MeasuredLaunch, arch: ModelArchitecture) -> MeasuredLaunch:
    return dataclasses.replace(launch, model=launch.model.with_architecture(arch))
