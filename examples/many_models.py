#!/usr/bin/env python3
"""100 models on an existing cluster and one bucket, split over stacks of one app so each stays within its limits.

One stack is under CloudFormation's 500 resources and 1 MB template, and the bucket
policy under S3's 20 KB, for a few dozen models (docs/many-models.md). This app shows the
split that holds any number of models on a cluster it does not own (the reference app
splits its own the same way, `stacks/reference_app.py`):

* `Bucket`: the model bucket, locked to the VPC endpoint, with the stager granted the
  parent prefix `models` once (one exemption in the bucket policy, however many models).
* `Models<n>`: as many models as fit (`infra.stack_budget.pack`, each model's footprint from
  its plan), each stack in a namespace of its own (`inference-<n>`: the namespace and its
  shared in-pod scripts, applied with the stack's first model, belong to that stack alone, so
  deleting one stack removes nothing another uses). The cluster and bucket are imported by
  name: no cross-stack references, each stack deploys on its own.

Every stack passes `infra.check_stack_limits` and `infra.check_assembly_limits`, and
the script prints each one's figures:

    .venv/bin/python examples/many_models.py [--models 100]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aws_cdk as cdk
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_s3 as s3
from aws_cdk.lambda_layer_kubectl_v35 import KubectlV35Layer

from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.plan import plan
from fastload_constructs.core.planning.serving import Serving
from fastload_constructs.core.serving.server_pod import ServerOptions
from fastload_constructs.infra import (
    ModelBucket,
    ServedModel,
    check_assembly_limits,
    check_stack_limits,
)
from fastload_constructs.infra.stack_budget import STACK_LIMITS, Footprint, pack, served_model_footprint
from fastload_constructs.infra.synth_limits import policy_bytes

ENV = cdk.Environment(account="111122223333", region="us-east-1")
BUCKET = "acme-many-models"
CLUSTER = "prod"
ADMIN_ROLE = "arn:aws:iam::111122223333:role/prod-admin"
STAGER_ROLE = "arn:aws:iam::111122223333:role/model-stager"
VPC_ENDPOINT = "vpce-0123456789abcdef0"
MODEL = ModelProfile.from_numbers(parameter_count=8_030_261_248, dtype="BF16")
# How every model here is served: a node-local copy and the shared compile cache, planned once.
LOCAL = plan(MODEL, "g6e.2xlarge", TuningOptions(serving=Serving(model_cache="node-local", shared_compile_cache=True)))
# A models stack's own resources: the kubectl provider and its layer, the namespace and the scripts ConfigMap
# (8 resources and 102 kB measured); the rest of the stack's room is its models'.
MODELS_STACK_OWN = Footprint(20, 150_000)


class BucketStack(cdk.Stack):
    def __init__(self, scope: cdk.App, id: str) -> None:
        super().__init__(scope, id, env=ENV)
        endpoint = ec2.GatewayVpcEndpoint.from_gateway_vpc_endpoint_id(self, "Endpoint", VPC_ENDPOINT)
        stager = iam.Role.from_role_arn(self, "Stager", STAGER_ROLE, mutable=False)
        self.models = ModelBucket(self, "Models", vpc_endpoint=endpoint, bucket_name=BUCKET, stager_principals=[stager])
        self.models.grant_stage_models(stager, "models")  # one exemption for every model below models/


class ModelsStack(cdk.Stack):
    def __init__(self, scope: cdk.App, id: str, *, index: int, names: list[str]) -> None:
        super().__init__(scope, id, env=ENV)
        imported = eks.Cluster.from_cluster_attributes(self, "Imported", cluster_name=CLUSTER)
        provider = eks.KubectlProvider(
            self,
            "Kubectl",
            cluster=imported,
            kubectl_layer=KubectlV35Layer(self, "Layer"),
            role=iam.Role.from_role_arn(self, "Admin", ADMIN_ROLE, mutable=False),
        )
        cluster = eks.Cluster.from_cluster_attributes(self, "Cluster", cluster_name=CLUSTER, kubectl_provider=provider)
        bucket = s3.Bucket.from_bucket_name(self, "Bucket", BUCKET)
        namespace = f"inference-{index}"
        for name in names:
            ServedModel(
                self,
                name,
                cluster=cluster,
                bucket=bucket,
                prefix=f"models/{name}",
                model_name=name,
                plan=LOCAL,
                server=ServerOptions(namespace=namespace),
            )


def build(models: int, outdir: str) -> cdk.App:
    app = cdk.App(outdir=outdir)
    shared = BucketStack(app, "Bucket")
    names = [f"m{i:03d}" for i in range(models)]
    room = STACK_LIMITS - MODELS_STACK_OWN
    footprints = [served_model_footprint(LOCAL, name=name, autoscaled=False) for name in names]
    for index, group in enumerate(pack(footprints, first=room, then=room, names=names)):
        stack = ModelsStack(app, f"Models{index}", index=index, names=[names[i] for i in group])
        stack.add_stack_dependency(shared)
    return app


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--models", type=int, default=100)
    args = parser.parse_args()
    started = time.perf_counter()
    app = build(args.models, tempfile.mkdtemp(prefix="fastload-many-models-"))
    stacks = [c for c in app.node.children if isinstance(c, cdk.Stack)]
    for stack in stacks:
        check_stack_limits(stack)
    assembly = app.synth()
    check_assembly_limits(assembly)
    for stack in stacks:
        policies = [
            policy_bytes(stack.resolve(p.policy_document))
            for p in stack.node.find_all()
            if isinstance(p, s3.CfnBucketPolicy)
        ]
        print(
            json.dumps(
                {
                    "stack": stack.stack_name,
                    "served_models": sum(1 for c in stack.node.find_all() if isinstance(c, ServedModel)),
                    "resources": sum(1 for c in stack.node.find_all() if cdk.CfnResource.is_cfn_resource(c)),
                    "template_bytes": Path(assembly.get_stack_by_name(stack.stack_name).template_full_path)
                    .stat()
                    .st_size,
                    "bucket_policy_bytes": max(policies, default=0),
                }
            )
        )
    print(json.dumps({"models": args.models, "stacks": len(stacks), "seconds": round(time.perf_counter() - started)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
