"""`fastload`: the command line entry point; each command lives in its own module."""

from __future__ import annotations

import os
import sys

import click

from fastload_constructs.cli.calibrate_command import calibrate_command
from fastload_constructs.cli.coldstart_command import coldstart_command
from fastload_constructs.cli.inspect_command import inspect_command
from fastload_constructs.cli.plan_command import plan_command
from fastload_constructs.cli.stage_command import stage_command
from fastload_constructs.core.errors import FastloadConfigError


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fastload-constructs")
def cli() -> None:
    """Fast cold starts for vLLM on Amazon EKS: plan, stage, inspect, report and calibrate."""


cli.add_command(plan_command)
cli.add_command(stage_command)
cli.add_command(inspect_command)
cli.add_command(coldstart_command)
cli.add_command(calibrate_command)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; configuration errors print one line and exit 2."""
    try:
        cli.main(args=argv, prog_name="fastload", standalone_mode=False)
    except FastloadConfigError as exc:
        click.echo(f"fastload: {exc}", err=True)
        return 2
    except click.exceptions.Abort:
        click.echo("fastload: aborted", err=True)
        return 130
    except click.UsageError as exc:
        # One line naming the option ("Invalid value for '--params': 'x' is not a valid float."),
        # not click's three-line usage banner.
        click.echo(f"fastload: {' '.join(exc.format_message().split())}", err=True)
        return 2
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except Exception as exc:  # a bug, not bad input: still one line, never a traceback
        if os.environ.get("FASTLOAD_DEBUG"):
            raise
        message = " ".join(f"{type(exc).__name__}: {exc}".split())[:500]
        click.echo(f"fastload: unexpected error: {message} (set FASTLOAD_DEBUG=1 for a traceback)", err=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
