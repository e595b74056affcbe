#!/usr/bin/env python3
"""The reference app: reads `fastload:*` context (cdk.json, -c flags) and builds stacks/."""

from __future__ import annotations

import sys

from fastload_constructs.jsii_node import use_packaged_node

use_packaged_node()

import aws_cdk as cdk  # noqa: E402

from fastload_constructs.core.errors import FastloadConfigError  # noqa: E402
from fastload_constructs.k8s.manifest_export import synth_with_manifests  # noqa: E402
from stacks.config import CONTEXT_KEYS, parse_reference_config  # noqa: E402
from stacks.reference_stack import FastloadReferenceStack  # noqa: E402


def build_app(context: dict[str, object] | None = None, outdir: str | None = None) -> cdk.App:
    """Build the app; raises FastloadConfigError before any construct exists on bad context."""
    app = cdk.App(context=context, outdir=outdir)
    ctx = {key: app.node.try_get_context(key) for key in CONTEXT_KEYS}
    config = parse_reference_config(ctx)
    FastloadReferenceStack(app, "FastloadReference", config=config)
    return app


def main() -> int:
    try:
        app = build_app()
    except FastloadConfigError as exc:
        print(f"fastload: configuration error: {exc}", file=sys.stderr)
        return 2
    synth_with_manifests(app)  # the assembly, then cdk.out/manifests/*.yaml
    return 0


if __name__ == "__main__":
    sys.exit(main())
