"""`fastload calibrate`: fit the planner's assumptions to your own vLLM start-up logs."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import click

from fastload_constructs.cli.plan_command import CountType, parse_capture_sizes
from fastload_constructs.coldstart.parser import ColdStartReport, parse_log
from fastload_constructs.core.catalog import lookup
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.model import DTYPE_BYTES, PARAMETER_COUNT, TOTAL_BYTES, ModelArchitecture, ModelProfile
from fastload_constructs.core.planning.calibration import MeasuredLaunch, assumptions_as_dict, fit_assumptions
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.releases import release_family
from fastload_constructs.core.planning.serving import Serving


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
    if model is None:
        weights = report.weights
        if weights is None or not weights.total_bytes:
            raise FastloadConfigError(
                "log", report.label, "a log that reports the bytes loaded ('Model loading took ... GiB'), or --bytes"
            )
        model = ModelProfile(total_bytes=weights.total_bytes, dtype="BF16", name=report.label)
    version = vllm_version or report.vllm_version
    if version is None:
        raise FastloadConfigError("--vllm-version", None, f"the vLLM release of {report.label} (its log does not say)")
    release_family(version)

    def phase(*names: str) -> float | None:
        present = [p.seconds for p in report.phases if p.name in names]
        return sum(present) if present else None

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
        process_start_s=phase("process_start", "engine_init"),
        weight_load_s=phase("weight_load"),
        compile_s=phase("dynamo_transform", "graph_compile"),
        compile_warm=report.compile_cache == "hit",
        cuda_graph_s=phase("cuda_graph"),
        kv_and_server_s=phase("kv_cache_profiling", "api_server"),
    )


@click.command("calibrate")
@click.argument("logs", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--instance", "instance_type", required=True, help="The instance type these launches ran on.")
@click.option("--source", type=click.Choice(["s3", "local"]), default="s3", show_default=True)
@click.option(
    "--params", "parameter_count", type=CountType(PARAMETER_COUNT), help="Parameter count (default: from the log)."
)
@click.option("--bytes", "total_bytes", type=CountType(TOTAL_BYTES), help="Weight bytes (default: from the log).")
@click.option("--dtype", default="BF16", show_default=True, type=click.Choice(sorted(DTYPE_BYTES)))
@click.option("--config-json", type=click.Path(exists=True, path_type=Path), help="The model's config.json.")
@click.option("--vllm-version", help="vLLM release of the launches (default: from each log).")
@click.option("--capture-sizes", help="CUDA-graph capture sizes the launches used (default: vLLM's).")
@click.option("-o", "--out", "out_path", required=True, type=click.Path(dir_okay=False, path_type=Path))
def calibrate_command(
    logs: tuple[Path, ...],
    instance_type: str,
    source: str,
    parameter_count: float | None,
    total_bytes: int | None,
    dtype: str,
    config_json: Path | None,
    vllm_version: str | None,
    capture_sizes: str | None,
    out_path: Path,
) -> None:
    """Fit stream throughput and fixed costs to LOGS of your own launches; write an assumptions file.

    Use it with `fastload plan --assumptions FILE` or the reference app's `fastload:assumptions`.
    """
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
        arch = ModelArchitecture.from_file(config_json)
        model = model.with_architecture(arch) if model is not None else None
    sizes = parse_capture_sizes(capture_sizes)
    launches = []
    for path in logs:
        if not path.is_file():
            raise FastloadConfigError("log", str(path), "an existing vLLM log file")
        report = parse_log(path.read_text(encoding="utf-8", errors="replace"), label=path.stem)
        if not report.ready:
            raise FastloadConfigError("log", str(path), "a launch that got ready (this one failed)")
        launch = launch_from_report(
            report,
            instance_type=instance.name,
            source=source,
            model=model,
            vllm_version=vllm_version,
            capture_sizes=sizes,
        )
        if config_json is not None and model is None:
            launch = _with_arch(launch, ModelArchitecture.from_file(config_json))
        launches.append(launch)
    fitted = fit_assumptions(launches)
    out_path.write_text(json.dumps(assumptions_as_dict(fitted, [str(p) for p in logs]), indent=2) + "\n")
    for name, src, mb_s in fitted.measured_throughput_mb_s:
        click.echo(f"{name} {src}: {mb_s:,.0f} MB/s")
    click.echo(
        f"process start {fitted.process_start_s:.1f} s, KV + server {fitted.kv_and_server_s:.1f} s, "
        f"compile x{fitted.compile_scale:.2f} (warm {fitted.compile_warm_recent_s:.1f} s), "
        f"CUDA graphs x{fitted.cuda_graph_scale:.2f}"
    )
    click.echo(f"wrote {out_path}")


def _with_arch(launch: MeasuredLaunch, arch: ModelArchitecture) -> MeasuredLaunch:
    return dataclasses.replace(launch, model=launch.model.with_architecture(arch))
