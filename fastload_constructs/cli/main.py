"""`fastload`: the command line entry point; each command lives in its own module, imported when run.

`fastload --help` and `fastload plan` import neither boto3 nor the log
analysis: a command's module (and what it needs) is imported only when that
command runs or its own help is asked for. The one-line summaries in
`--help` come from `COMMANDS`, so listing them imports nothing.
"""

from __future__ import annotations

import importlib
import os
import re
import sys

import click

from fastload_constructs.cli.signals import EXIT_TERMINATED, Terminated
from fastload_constructs.core.errors import FastloadConfigError

# name -> (module:attribute, one-line summary for `fastload --help`)
COMMANDS: dict[str, tuple[str, str]] = {
    "plan": (
        "fastload_constructs.cli.plan_command:plan_command",
        "Decide TP, streamer settings and probe budget; predict the fresh-node, warm-node and warm-spare starts.",
    ),
    "stage": (
        "fastload_constructs.cli.stage_command:stage_command",
        "Stage LOCAL_DIR (a Hugging Face model folder) to S3_URI (s3://bucket/prefix).",
    ),
    "revisions": (
        "fastload_constructs.cli.revisions_command:revisions_command",
        "List, publish, pin, roll back and collect the revisions of a model staged to S3_URI.",
    ),
    "inspect": (
        "fastload_constructs.cli.inspect_command:inspect_command",
        "Profile SOURCE (s3://bucket/prefix or a local folder) from its safetensors headers only.",
    ),
    "coldstart": (
        "fastload_constructs.cli.coldstart_command:coldstart_command",
        "Phase-by-phase start-up times from vLLM or SGLang server logs (several logs compare side by side).",
    ),
    "timeline": (
        "fastload_constructs.cli.timeline_command:timeline_command",
        "Phases of one real scale-out from kubectl get events (and the pod's vLLM or SGLang log), beside the plan.",
    ),
    "image-cache": (
        "fastload_constructs.cli.image_cache_command:image_cache_command",
        "Print the builder commands for an EBS snapshot holding the vLLM image (or the node's mount script).",
    ),
    "calibrate": (
        "fastload_constructs.cli.calibrate_command:calibrate_command",
        "Fit stream throughput and fixed costs to LOGS of your own launches; write an assumptions file.",
    ),
}


# Library fields whose option has another name. Any other field that is an option's own name
# (`concurrency`, `instance_type`) becomes that option too.
FIELD_ALIASES = {
    "cudagraph_capture_sizes": "capture_sizes",
    "node_local_model_cache": "node_local_cache",
    "compile_cache_warm": "warm_compile_cache",
    "memory_limit": "memory_limit_bytes",
    "config.json": "config_json",
    "plot": "plot_path",
}
_COMMAND = "fastload.command"


def named_as_options(exc: FastloadConfigError, command: click.Command | None) -> FastloadConfigError:
    """The error under the option the user typed (`tensor_parallel_size` -> `--tp`), in field and explanation."""
    if command is None:
        return exc
    by_param = {p.name: max(p.opts, key=len) for p in command.params if isinstance(p, click.Option) and p.name}
    names = {**by_param, **{f: by_param[p] for f, p in FIELD_ALIASES.items() if p in by_param}}
    if not names:
        return exc
    # In the explanation, field names only (snake_case: `max_model_len <= 21760`), never plain words
    # such as "pod" or "config.json", and only whole names.
    fields = sorted((n for n in names if "_" in n and "." not in n), key=len, reverse=True)
    pattern = re.compile(r"(?<![\w.-])(" + "|".join(map(re.escape, fields)) + r")\b") if fields else None
    accepted = pattern.sub(lambda m: names[m.group(1)], exc.accepted) if pattern else exc.accepted
    if exc.field not in names and accepted == exc.accepted:
        return exc
    return FastloadConfigError(names.get(exc.field, exc.field), exc.value, accepted)


class LazyGroup(click.Group):
    """A click group that imports a command's module only when the command is used."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        ctx.meta[_COMMAND] = command
        return name, command, rest

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except FastloadConfigError as exc:
            renamed = named_as_options(exc, ctx.meta.get(_COMMAND))
            if renamed is exc:
                raise
            raise renamed from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module_name, _, attribute = COMMANDS[cmd_name][0].partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, summary) for name, (_, summary) in COMMANDS.items()])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="fastload-constructs")
def cli() -> None:
    """Fast cold starts for vLLM on Amazon EKS: plan, stage, inspect, report and calibrate."""


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; configuration errors print one line and exit 2."""
    try:
        cli.main(args=argv, prog_name="fastload", standalone_mode=False)
    except FastloadConfigError as exc:
        click.echo(f"fastload: {exc}", err=True)
        return 2
    except click.exceptions.Abort as exc:
        if isinstance(exc.__cause__, Terminated):
            click.echo("fastload: terminated (SIGTERM)", err=True)
            return EXIT_TERMINATED
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
