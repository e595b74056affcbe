"""`fastload coldstart`: where a vLLM or SGLang server's start-up time went, from its logs."""

from __future__ import annotations

import functools
import importlib.metadata
import json
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import click

from fastload_constructs.cli.plan_command import model_plan_options, plan_from_options
from fastload_constructs.cli.setting_options import setting_option
from fastload_constructs.coldstart.kubectl import (
    ClusterUnreachable,
    list_pods,
    pod_log_stream,
    read_container_started_at,
    read_recorded_plan,
)
from fastload_constructs.coldstart.parser import parse_lines, parse_stream
from fastload_constructs.coldstart.render import render_table, report_as_dict
from fastload_constructs.coldstart.report import ColdStartReport
from fastload_constructs.coldstart.timestamps import parse_started_at
from fastload_constructs.core.catalog import INSTANCE_TYPE
from fastload_constructs.core.engines import DEFAULT_ENGINE
from fastload_constructs.core.engines.phases import PhaseEstimate
from fastload_constructs.core.errors import FastloadConfigError, spelled_as
from fastload_constructs.core.serving.plan_record import PlanRecord
from fastload_constructs.core.settings import renamed


class StartupFailed(click.ClickException):
    """A log whose server never became ready: the report is printed, the exit code says it failed."""

    exit_code = 1


class SomeLogsUnrecognised(click.ClickException):
    """Some inputs held no start-up line: the others are reported (and plotted), the exit code says so."""

    exit_code = 2


class NoCluster(click.ClickException):
    """kubectl reached no cluster: one `fastload: ...` line naming the server it tried, exit status 1."""

    exit_code = 1

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"fastload: {self.format_message()}", err=True, file=file)


def _no_cluster_in_one_line(command: Callable[..., None]) -> Callable[..., None]:
    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            command(*args, **kwargs)
        except ClusterUnreachable as exc:
            raise NoCluster(str(exc)) from None

    return run


@dataclass(frozen=True)
class _Source:
    """One log to read: its label, how to parse it (given a start time), and the pod's own start time."""

    label: str
    parse: Callable[[datetime | None], ColdStartReport]
    pod_started_at: str | None = None


def _file_source(label: str, path: Path) -> _Source:
    def parse(start: datetime | None) -> ColdStartReport:
        with path.open("rb") as stream:  # read line by line: memory bounded by the start-up section
            return parse_stream(stream, label=label, started_at=start)

    return _Source(label, parse)


def _stdin_source() -> _Source:
    def parse(start: datetime | None) -> ColdStartReport:
        binary = getattr(sys.stdin, "buffer", None)
        if binary is not None:  # bytes: no locale decides whether odd bytes raise
            return parse_stream(binary, label="stdin", started_at=start)
        return parse_lines(sys.stdin, label="stdin", started_at=start)

    return _Source("stdin", parse)


def _pod_source(pod: str, namespace: str, container: str | None, previous: bool, started: str | None) -> _Source:
    def parse(start: datetime | None) -> ColdStartReport:
        with pod_log_stream(pod, namespace, container, previous) as stream:
            return parse_stream(stream, label=pod, started_at=start)

    return _Source(pod, parse, started)


def _sources(
    logs: tuple[str, ...],
    pod: str | None,
    selector: str | None,
    namespace: str | None,
    container: str | None,
    previous: bool,
    read_pod_start: bool,
) -> list[_Source]:
    """What to read: files, '-' for stdin, one pod, or every pod a label selector matches (newest first)."""
    for flag, value, example in (("--pod", pod, "a pod name"), ("--selector", selector, "a selector such as app=vllm")):
        if value is not None and not value.strip():
            raise click.UsageError(f"{flag} is empty: give {example}")
    if pod is not None and selector is not None:
        raise click.UsageError("give --pod or --selector, not both")
    if (pod is not None or selector is not None) and logs:
        raise click.UsageError("give log files or --pod/--selector, not both")
    if pod is not None or selector is not None:
        if not namespace:
            raise click.UsageError(f"{'--pod' if pod is not None else '--selector'} needs --namespace")
        if pod is not None:
            started = read_container_started_at(pod, namespace, container, previous) if read_pod_start else None
            return [_pod_source(pod, namespace, container, previous, started)]
        assert selector is not None
        return [
            _pod_source(p.name, namespace, container, previous, p.started_at if read_pod_start else None)
            for p in list_pods(selector, namespace, container, previous)
        ]
    if not logs:
        raise click.UsageError("give one or more log files ('-' for stdin), --pod NAME or -l SELECTOR with -n NS")
    paths: list[tuple[str, Path | None]] = []
    for name in logs:
        if name == "-":
            paths.append((name, None))
            continue
        path = Path(name)
        if not path.is_file():
            raise FastloadConfigError("log", name, "an existing log file, or '-' for stdin")
        paths.append((name, path))
    stems = [path.stem for _, path in paths if path is not None]
    clash = len(set(stems)) < len(stems)  # e.g. cold/vllm.log and warm/vllm.log: keep the bars apart
    return [
        _stdin_source() if path is None else _file_source(name if clash else path.stem, path) for name, path in paths
    ]


def plot_requirements() -> str:
    """What the package's [plot] extra requires (pyproject.toml), quoted for pip: published packages only."""
    try:
        requires = importlib.metadata.requires("fastload-constructs") or []
    except importlib.metadata.PackageNotFoundError:
        requires = []
    plot = [r.split(";")[0].strip() for r in requires if re.search(r"""extra\s*==\s*["']plot["']""", r)]
    return " ".join(f"'{r}'" for r in plot) or "matplotlib"


def _estimate(
    instance_type: str | None, model: dict[str, Any], engine: str = DEFAULT_ENGINE.name
) -> PhaseEstimate | None:
    """The plan's prediction, when --instance and a model size are given (for the logs' engine); `model`: the
    plan options by setting name (`model_plan_options`)."""
    sized = model["parameter_count"] is not None or model["total_bytes"] is not None
    if instance_type is None and not sized:
        return None
    if instance_type is None or not sized:
        raise click.UsageError("compare with a plan by giving --instance and --params or --bytes")
    return plan_from_options(instance_type, **model, engine=engine).predicted


def _recorded_estimate(record: PlanRecord, reports: list[ColdStartReport]) -> PhaseEstimate:
    """The prediction the pod's Deployment records (`fastload.io/plan`): the plan it was deployed with, on
    its warm path when the pod's log shows a compile-cache hit (and the record keeps that path's phases)."""
    warm = record.warm_pod_phases_s is not None and all(r.compile_cache == "hit" for r in reports)
    phases = record.warm_pod_phases_s if warm and record.warm_pod_phases_s is not None else record.pod_phases_s
    click.echo(
        "fastload: compared with the plan recorded on the pod's Deployment "
        f"({record.engine_name} {record.vllm_version}, {record.instance_type}, TP {record.tensor_parallel_size}"
        + ("; its warm path: the log shows a compile-cache hit" if warm else "")
        + ")",
        err=True,
    )
    return PhaseEstimate(
        process_start_s=phases.get("process_start", 0.0),
        weight_load_s=phases.get("weight_load", 0.0),
        compile_s=phases.get("compile", 0.0),
        cuda_graph_s=phases.get("cuda_graph", 0.0),
        kv_and_server_s=phases.get("kv_and_server", 0.0),
        load_throughput_mb_s=0.0,
    )


def _parse_source(source: _Source, start: datetime | None) -> ColdStartReport:
    """Parse one source; a pod's own startedAt after its first log line is dropped with a note."""
    if start is not None or source.pod_started_at is None:
        return source.parse(start)
    try:
        return source.parse(parse_started_at(source.pod_started_at))
    except FastloadConfigError as exc:
        if exc.field != "started_at":
            raise
        click.echo(
            f"fastload: {source.label}: the pod's startedAt is after the first log line; process start left out",
            err=True,
        )
        return source.parse(None)


def _read_reports(sources: list[_Source], starts: list[datetime | None]) -> tuple[list[ColdStartReport], list[str]]:
    """Every source's report, and the labels of those with no start-up line (left out when others have one)."""
    reports: list[ColdStartReport] = []
    unrecognised: list[str] = []
    for log_source, start in zip(sources, starts, strict=True):
        try:
            reports.append(_parse_source(log_source, start))
        except FastloadConfigError as exc:
            if exc.field != "log" or len(sources) == 1:
                raise
            unrecognised.append(log_source.label)
            click.echo(f"fastload: {log_source.label}: no vLLM or SGLang start-up line recognised; left out", err=True)
    if not reports:
        raise FastloadConfigError(
            "log", ", ".join(unrecognised), "at least one vLLM or SGLang log with a start-up line"
        )
    return reports, unrecognised


def _print_reports(
    reports: list[ColdStartReport], estimate: PhaseEstimate | None, as_json: bool, plot_path: Path | None
) -> None:
    if plot_path is not None:
        try:  # matplotlib only when a plot is asked for: it is the optional [plot] extra
            from fastload_constructs.coldstart.plot import write_plot
        except ModuleNotFoundError as exc:
            raise click.UsageError(f"--plot needs {exc.name}: pip install {plot_requirements()}") from exc
        with spelled_as(renamed({"plot": "--plot"}, "flag")):
            write_plot(plot_path, reports, estimate)
    if as_json:
        click.echo(json.dumps([report_as_dict(r, estimate) for r in reports], indent=2))
    else:
        click.echo(render_table(reports, estimate))
        if plot_path is not None:
            click.echo(f"\nwrote {plot_path}")


@click.command("coldstart")
@click.argument("logs", nargs=-1)
@click.option("--pod", help="Read this pod's log with `kubectl logs` instead of files.")
@click.option(
    "--selector",
    "-l",
    help="Read every pod this label selector matches (e.g. app.kubernetes.io/instance=NAME), newest first.",
)
@click.option("--namespace", "-n", help="The pod's namespace.")
@click.option("--container", "-c", help="The vLLM container, when the pod has several.")
@click.option("--previous", is_flag=True, help="The previous container's log (after a crash).")
@click.option(
    "--started-at",
    "started_at",
    multiple=True,
    help='Container start, "MM-DD HH:MM:SS" or ISO 8601 UTC; once per log, in order. '
    "Adds the process-start phase; with --pod it is read from the pod's status.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write a stacked bar per log: .png, or .html (chart and table in one page).",
)
@setting_option(INSTANCE_TYPE, help="Compare with the plan for this instance type.")
@model_plan_options
@_no_cluster_in_one_line
def coldstart_command(
    logs: tuple[str, ...],
    pod: str | None,
    selector: str | None,
    namespace: str | None,
    container: str | None,
    previous: bool,
    started_at: tuple[str, ...],
    as_json: bool,
    plot_path: Path | None,
    instance_type: str | None,
    **model: Any,
) -> None:
    """Phase-by-phase start-up times from vLLM or SGLang server logs (several logs compare side by side)."""
    sources = _sources(logs, pod, selector, namespace, container, previous, read_pod_start=not started_at)
    if started_at and len(started_at) != len(sources):
        raise FastloadConfigError("--started-at", list(started_at), f"one start time per log ({len(sources)} given)")
    starts: list[datetime | None] = [parse_started_at(s) for s in started_at] or [None] * len(sources)
    estimate_for = functools.partial(_estimate, instance_type, model)
    estimate = estimate_for()
    record = read_recorded_plan(pod, namespace) if estimate is None and pod is not None and namespace else None
    reports, unrecognised = _read_reports(sources, starts)
    if record is not None:
        estimate = _recorded_estimate(record, reports)
    engines = {r.engine for r in reports}
    if instance_type is not None and len(engines) == 1 and engines != {DEFAULT_ENGINE.name}:
        # Logs of another engine: that engine's plan (a plan recorded on the pod is already its engine's).
        estimate = estimate_for(engine=engines.pop())
    _print_reports(reports, estimate, as_json, plot_path)
    if unrecognised:
        raise SomeLogsUnrecognised(
            f"{len(unrecognised)} of {len(sources)} logs not recognised: {', '.join(unrecognised)}"
        )
    failed = [r.label for r in reports if not r.ready]
    if failed:
        raise StartupFailed(f"never got ready: {', '.join(failed)}")
