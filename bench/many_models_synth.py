"""How the reference app grows with the number of models: resources, template bytes, bucket policy bytes.

    .venv/bin/python bench/many_models_synth.py 1 10 100

Each model serves an 8B model on g6e.2xlarge with every feature that adds objects (KEDA
autoscaling, the shared compile cache, the node-local copy, one warm spare), staged by one
stager role. Prints, per count and per stack (the app splits the models over stacks,
`stacks/reference_app.py`), the figures `infra/synth_limits.py` checks against CloudFormation's
and S3's limits, and the reference stack's per-model increments while it holds them all.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastload_constructs.jsii_node import use_packaged_node

use_packaged_node()

import aws_cdk as cdk  # noqa: E402
from aws_cdk import aws_s3 as s3  # noqa: E402

from app import build_app  # noqa: E402
from fastload_constructs.infra.synth_limits import policy_bytes  # noqa: E402


def context(count: int) -> dict[str, object]:
    base = json.loads(Path(__file__).resolve().parents[1].joinpath("cdk.json").read_text())["context"]
    models = [
        {
            "name": f"m{i:03d}",
            "s3Prefix": f"models/m{i:03d}",
            "instanceType": "g6e.2xlarge",
            "parameterCount": 8_030_261_248,
            "dtype": "BF16",
            "minReplicas": 1,
            "maxReplicas": 2,
            "targetWaitingRequests": 4,
            "sharedCompileCache": True,
            "nodeLocalModelCache": True,
            "warmSpares": 1,
        }
        for i in range(count)
    ]
    return {
        **base,
        "fastload:models": json.dumps(models),
        "fastload:stagerRoleArns": json.dumps(["arn:aws:iam::111122223333:role/stager"]),
    }


def measure(count: int) -> list[dict[str, float | str]]:
    """One row per stack of the app serving `count` models (the reference stack first)."""
    started = time.perf_counter()
    app = build_app(context(count), outdir=tempfile.mkdtemp(prefix="fastload-many-"))
    stacks = [c for c in app.node.children if isinstance(c, cdk.Stack)]
    assembly = app.synth()
    seconds = round(time.perf_counter() - started, 1)
    rows: list[dict[str, float | str]] = []
    for stack in stacks:
        policies = [
            policy_bytes(stack.resolve(p.policy_document))
            for p in stack.node.find_all()
            if isinstance(p, s3.CfnBucketPolicy)
        ]
        rows.append(
            {
                "models": count,
                "stack": stack.stack_name,
                "served_models": len(getattr(stack, "served_models", {})),
                "resources": sum(1 for c in stack.node.find_all() if cdk.CfnResource.is_cfn_resource(c)),
                "template_bytes": Path(assembly.get_stack_by_name(stack.stack_name).template_full_path).stat().st_size,
                "bucket_policy_bytes": max(policies, default=0),
                "seconds": seconds,
            }
        )
    return rows


if __name__ == "__main__":
    measured = [measure(int(n)) for n in (sys.argv[1:] or ["1", "10"])]
    for rows in measured:
        for row in rows:
            print(json.dumps(row))
    alone = [rows[0] for rows in measured if len(rows) == 1]  # the reference stack holding every model
    if len(alone) >= 2:
        a, b = alone[0], alone[-1]
        n = int(b["models"]) - int(a["models"])
        print(
            json.dumps(
                {
                    "per_model_resources": (float(b["resources"]) - float(a["resources"])) / n,
                    "per_model_template_bytes": round((float(b["template_bytes"]) - float(a["template_bytes"])) / n),
                    "per_model_bucket_policy_bytes": round(
                        (float(b["bucket_policy_bytes"]) - float(a["bucket_policy_bytes"])) / n
                    ),
                }
            )
        )
