#!/usr/bin/env python3
"""The reference app: reads `fastload:*` context (cdk.json, -c flags) and builds stacks/."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path


def _use_project_venv() -> None:
    """cdk.json runs `python3 app.py`: outside `make`, that may be a Python without aws_cdk.

    Then run again with the project's `.venv/bin/python` (what `make setup` creates), so
    `.venv/cdk-cli/node_modules/.bin/cdk synth` works run directly too.
    """
    if importlib.util.find_spec("aws_cdk") is not None:
        return
    venv_python = Path(__file__).resolve().parent / ".venv" / "bin" / "python"
    if venv_python.exists() and Path(sys.prefix).resolve() != venv_python.parent.parent.resolve():
        os.execv(str(venv_python), [str(venv_python), *sys.argv])
    sys.exit("fastload: aws_cdk is not installed for this Python; run `make setup` first, or use .venv/bin/python")


_use_project_venv()

from fastload_constructs.jsii_node import use_packaged_node  # noqa: E402

use_packaged_node()

import aws_cdk as cdk  # noqa: E402

from fastload_constructs.core.errors import FastloadConfigError  # noqa: E402
from fastload_constructs.infra.manifest_export import synth_with_manifests  # noqa: E402
from fastload_constructs.infra.synth_limits import check_assembly_limits, check_stack_limits  # noqa: E402
from stacks.config import parse_reference_config  # noqa: E402
from stacks.reference_app import add_reference_stacks  # noqa: E402


def build_app(context: dict[str, object] | None = None, outdir: str | None = None) -> cdk.App:
    """Build the app: the reference stack, and the models stacks its models need (`stacks.reference_app`).
    Raises FastloadConfigError before any construct exists on bad context."""
    app = cdk.App(context=context, outdir=outdir)
    config = parse_reference_config(app.node.get_all_context())  # refuses unknown fastload:* keys
    add_reference_stacks(app, config)
    return app


def main() -> int:
    try:
        app = build_app()
        # Limits that would fail only at deploy (500 resources, a 1 MB template, a 20 KB bucket policy):
        # refused here in one line, before and after synthesis (fastload_constructs/infra/synth_limits.py).
        for stack in (c for c in app.node.find_all() if isinstance(c, cdk.Stack)):
            check_stack_limits(stack)
        assembly = synth_with_manifests(app)  # the assembly, then cdk.out/manifests/*.yaml
        check_assembly_limits(assembly)
    except FastloadConfigError as exc:
        print(f"fastload: configuration error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
