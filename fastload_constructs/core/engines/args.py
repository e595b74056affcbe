"""Server command lines as the engines read them: the shape of a user's extra arguments, flag spellings,
and the parts of a command line and environment that can change compiled artifacts."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from fastload_constructs.core.errors import require

EXTRA_ARGS_EXAMPLE = "['--max-num-seqs', '64']"


def normalised_flag(arg: str) -> str:
    """The flag `arg` sets, as vLLM's and SGLang's parsers read it: `--flag_name` is `--flag-name`
    (vllm/utils/argparse_utils.py FlexibleArgumentParser, SGLang's field names) and `--flag=value`
    is `--flag value`."""
    flag = arg.split("=", 1)[0]
    return "--" + flag[2:].replace("_", "-") if flag.startswith("--") else flag


def check_arg_shape(
    extra_args: object, field: str = "extra_args", example: str = EXTRA_ARGS_EXAMPLE
) -> tuple[str, ...]:
    """Extra server arguments: non-empty strings, the first a flag (a bare value first would become a
    second model argument). Which flags are allowed is the engine's check (`Engine.check_extra_args`)."""
    require(
        isinstance(extra_args, (list, tuple)) and all(isinstance(a, str) and a.strip() != "" for a in extra_args),
        field,
        extra_args,
        f"a list of non-empty strings, e.g. {example}",
    )
    assert isinstance(extra_args, (list, tuple))
    args = tuple(extra_args)
    require(not args or args[0].startswith("-"), field, args[0] if args else None, "a list that starts with a --flag")
    return args


def without_flags(args: Sequence[str], flags: Collection[str]) -> list[str]:
    """`args` less each of `flags` with its value, given as `--flag value` or `--flag=value`."""
    kept: list[str] = []
    skip_next = False
    for arg in args:
        if skip_next:
            skip_next = False
        elif arg in flags:
            skip_next = True
        elif arg.split("=", 1)[0] not in flags:
            kept.append(arg)
    return kept


def prefixed_variables(env: Mapping[str, str], prefix: str, leaving_out: Collection[str] = ()) -> dict[str, str]:
    """The variables of `env` whose names start with `prefix`, sorted by name, except `leaving_out`."""
    return {k: v for k, v in sorted(env.items()) if k.startswith(prefix) and k not in leaving_out}
