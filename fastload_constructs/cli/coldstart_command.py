"""`fastload coldstart`: where a vLLM server's start-up time went, from its logs."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

import click

from fastload_constructs.cli.plan_command import model_plan_options, plan_from_options
from fastload_constructs.coldstart.kubectl import read_container_started_at, read_pod_log
from fastload_constructs.coldstart.parser import ColdStartReport, parse_log, parse_started_at
from fastload_constructs.coldstart.render import render_table, report_as_dict
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.tuning import PhaseEstimate


class StartupFailed(click.ClickException):
    """A log whose server never became ready: the report is printed, the exit code says it failed."""

    exit_code = 1


def _read_logs(
    logs: tuple[str, ...], pod: str | None, namespace: str | None, container: str | None, previous: bool
) -> list[tuple[str, str]]:
    """(label, text) per log: files, '-' for stdin, or the pod's log."""
    if pod is not None and logs:
        raise click.UsageError("give log files or --pod, not both")
    if pod is not None:
        if not namespace:
            raise click.UsageError("--pod needs --namespace")
        return [(pod, read_pod_log(pod, namespace, container, previous))]
    if not logs:
        raise click.UsageError("give one or more log files ('-' for stdin), or --pod NAME --namespace NS")
    read: list[tuple[str, str]] = []
    for name in logs:
        if name == "-":
            read.append(("stdin", sys.stdin.read()))
            continue
        path = Path(name)
        if not path.is_file():
            raise FastloadConfigError("log", name, "an existing log file, or '-' for stdin")
        read.append((path.stem, path.read_text(encoding="utf-8", errors="replace")))
    stems = [label for label, _ in read]
    if len(set(stems)) < len(stems):  # e.g. cold/vllm.log and warm/vllm.log: keep the bars apart
        read = [(name, text) for name, (_, text) in zip(logs, read, strict=False)]
    return read


def _estimate(
    instance_type: str | None,
    parameter_count: float | None,
    total_bytes: int | None,
    dtype: str,
    tensor_parallel_size: int | None,
    source: str,
    warm: bool,
) -> PhaseEstimate | None:
    """The plan's prediction, when --instance and a model size are given."""
    if instance_type is None and parameter_count is None and total_bytes is None:
        return None
    if instance_type is None or (parameter_count is None and total_bytes is None):
        raise click.UsageError("compare with a plan by giving --instance and --params or --bytes")
    return plan_from_options(
        instance_type, parameter_count, total_bytes, dtype, tensor_parallel_size, source, warm
    ).predicted


def _pod_start_if_consistent(text: str, start: datetime) -> datetime | None:
    """The pod's start time, unless it lies after the first log line (a container clock not on UTC)."""
    try:
        parse_log(text, started_at=start)
    except FastloadConfigError as exc:
        if exc.field == "started_at":
            click.echo("fastload: the pod's startedAt is after the first log line; process start left out", err=True)
            return None
    return start


@click.command("coldstart")
@click.argument("logs", nargs=-1)
@click.option("--pod", help="Read this pod's log with `kubectl logs` instead of files.")
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
@click.option("--instance", "instance_type", help="Compare with the plan for this instance type.")
@model_plan_options
def coldstart_command(
    logs: tuple[str, ...],
    pod: str | None,
    namespace: str | None,
    container: str | None,
    previous: bool,
    started_at: tuple[str, ...],
    as_json: bool,
    plot_path: Path | None,
    instance_type: str | None,
    parameter_count: float | None,
    total_bytes: int | None,
    dtype: str,
    tensor_parallel_size: int | None,
    source: str,
    warm_compile_cache: bool,
) -> None:
    """Phase-by-phase start-up times from vLLM server logs (several logs compare side by side)."""
    texts = _read_logs(logs, pod, namespace, container, previous)
    pod_start = None
    if pod is not None and not started_at:
        pod_start = read_container_started_at(pod, namespace or "", container, previous)
    if started_at and len(started_at) != len(texts):
        raise FastloadConfigError("--started-at", list(started_at), f"one start time per log ({len(texts)} given)")
    starts = [parse_started_at(s) for s in started_at] or [None] * len(texts)
    estimate = _estimate(
        instance_type, parameter_count, total_bytes, dtype, tensor_parallel_size, source, warm_compile_cache
    )
    if pod_start is not None:
        starts = [_pod_start_if_consistent(texts[0][1], parse_started_at(pod_start))]
    reports: list[ColdStartReport] = [
        parse_log(text, label=label, started_at=start) for (label, text), start in zip(texts, starts, strict=False)
    ]
    if plot_path is not None:
        try:  # matplotlib only when a plot is asked for: it is the optional [plot] extra
            from fastload_constructs.coldstart.plot import write_plot
        except ModuleNotFoundError as exc:
            raise click.UsageError(
                f"--plot needs {exc.name}: pip install 'fastload-constructs[plot]' (make test installs it)"
            ) from exc
        write_plot(plot_path, reports, estimate)
    if as_json:
        click.echo(json.dumps([report_as_dict(r, estimate) for r in reports], indent=2))
    else:
        click.echo(render_table(reports, estimate))
        if plot_path is not None:
            click.echo(f"\nwrote {plot_path}")
    failed = [r.label for r in reports if not r.ready]
    if failed:
        raise StartupFailed(f"never got ready: {', '.join(failed)}")
