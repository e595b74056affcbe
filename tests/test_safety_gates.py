"""Safety gates over everything the library synthesises: cdk-nag, cfn-lint, Kubernetes schemas, Pod Security.

Two apps are synthesised once for the module: the reference app with cdk.json's
context, and a variant (stager roles, a second model on p4d, Kubernetes 1.33)
with an extra stack exercising the constructs' other options (private
endpoint, all log types, EBS CSI, interface endpoints, p3 without instance
store, Karpenter, an SSE-KMS bucket with a stager). Both run cdk-nag's
AwsSolutions pack as a CDK validation plugin, which fails synthesis on any
finding that is not acknowledged.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import aws_cdk as cdk
import kubernetes_validate
import pytest
from aws_cdk import Stack, Validations
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_eks_v2 as eks
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_secretsmanager as secretsmanager
from cdk_nag import AwsSolutionsChecks
from cfnlint.api import lint_all

from app import build_app
from fastload_constructs.core.cluster.karpenter import NodePoolOptions
from fastload_constructs.infra.gpu_nodegroup import GpuNodeGroup
from fastload_constructs.infra.image_mirror import EcrPullThroughCache
from fastload_constructs.infra.inference_cluster import InferenceCluster
from fastload_constructs.infra.karpenter import KarpenterController, KarpenterGpuNodes
from fastload_constructs.infra.model_bucket import ModelBucket, ModelBucketLock
from fastload_constructs.infra.model_reader_identity import ModelReaderIdentity
from fastload_constructs.infra.network import FastloadNetwork
from fastload_constructs.infra.scale_out_metrics import KedaController, ScaleOutMetrics
from stacks.config import SUPPORTED_KUBERNETES_VERSIONS
from tests.crd_schemas import KINDS as CRD_KINDS
from tests.crd_schemas import crd_schema
from tests.emitted_manifests import (
    CHART_INPUTS,
    DEPLOY_TIME,
    chart_classes,
    chart_manifests,
    cluster_version,
    template_manifests,
)
from tests.pod_security import pod_of
from tests.pss_exemptions import EXEMPTIONS, unexempted_violations

CDK_JSON = json.loads((Path(__file__).parent.parent / "cdk.json").read_text())["context"]
ENV = cdk.Environment(account="123456789012", region="us-west-2")
# Custom resources (Karpenter, KEDA): no built-in schema; checked against the vendored CRDs instead.


def variant_context() -> dict:
    ctx = copy.deepcopy(CDK_JSON)
    ctx["fastload:kubernetesVersion"] = "1.33"
    # The AZ lookup `cdk synth` would cache in cdk.context.json, for the environment-specific stack.
    ctx[f"availability-zones:account={ENV.account}:region={ENV.region}"] = ["us-west-2a", "us-west-2b", "us-west-2c"]
    ctx["fastload:stagerRoleArns"] = ["arn:aws:iam::123456789012:role/model-stager"]
    ctx["fastload:vllmImageMirror"] = {
        "upstream": "docker-hub",
        "credentialSecretArn": "arn:aws:secretsmanager:us-west-2:123456789012:secret:ecr-pullthroughcache/hub-AbCdEf",
    }
    ctx["fastload:models"].append(
        {
            "name": "llama-70b",
            "s3Prefix": "models/llama-70b",
            "instanceType": "p4d.24xlarge",
            "parameterCount": 70_000_000_000,
            "replicas": 2,
            "sharedCompileCache": True,
            "nodeLocalModelCache": True,
            "warmSpares": 1,
        }
    )
    return ctx


def add_construct_variants(app: cdk.App) -> None:
    stack = Stack(app, "ConstructVariants", env=ENV)
    network = FastloadNetwork(stack, "Network", max_azs=2, interface_endpoints=True)
    cluster = InferenceCluster(
        stack,
        "Cluster",
        version="1.36",
        vpc=network.vpc,
        vpc_subnets=network.cluster_subnets,
        endpoint_access=eks.EndpointAccess.PRIVATE,
        ebs_csi=True,
        admin_role_arns=["arn:aws:iam::123456789012:role/admin"],
        logging=list(eks.ClusterLoggingTypes),
    ).cluster
    GpuNodeGroup(
        stack,
        "P3",
        cluster=cluster,
        instance_type="p3.8xlarge",
        instance_store=False,
        capacity_type=eks.CapacityType.SPOT,
        max_size=2,
        subnets=network.gpu_subnet_selection,
    )
    inference = cluster
    karpenter_nodes = KarpenterGpuNodes(
        stack,
        "Karpenter",
        cluster=inference,
        instance_types=["g6e", "p5.48xlarge"],
        options=NodePoolOptions(
            capacity_types=("reserved", "spot"), capacity_reservation_ids=("cr-0123456789abcdef0",)
        ),
    )
    controller = KarpenterController(
        stack,
        "KarpenterController",
        cluster=inference,
        cluster_name="variants",
        node_role=karpenter_nodes.node_role,
        subnets=network.gpu_subnets.subnets,
    )
    karpenter_nodes.manifest.node.add_dependency(controller.chart)
    metrics = ScaleOutMetrics(
        stack,
        "Metrics",
        cluster=inference,
        scraper_subnets=network.monitoring_subnets.subnets,
        security_group_ids=[inference.cluster_security_group_id],
        cluster_label="variants",
    )
    KedaController(stack, "Keda", cluster=inference, metrics=metrics)
    # The vLLM image from Docker Hub through an ECR pull-through cache rule, pulled by the Karpenter nodes.
    mirror = EcrPullThroughCache(
        stack,
        "VllmImage",
        credential_secret=secretsmanager.Secret.from_secret_complete_arn(
            stack,
            "DockerHub",
            f"arn:aws:secretsmanager:{ENV.region}:{ENV.account}:secret:ecr-pullthroughcache/hub-AbCdEf",
        ),
        network=network,
    )
    mirror.grant_pull(karpenter_nodes.node_role)
    stager = iam.Role(stack, "Stager", assumed_by=iam.AccountRootPrincipal())
    bucket = ModelBucket(
        stack,
        "Models",
        vpc_endpoint=network.s3_endpoint,
        stager_principals=[stager],
        kms_key=kms.Key(stack, "ModelKey", enable_key_rotation=True),
    )
    bucket.grant_stage_models(stager, "models/llama")
    ModelReaderIdentity(
        stack,
        "Reader",
        cluster=cluster,
        bucket=bucket,
        prefix="models/llama",
        model_name="llama",
        compile_cache_prefix="compile-cache",
    )
    # Bring your own bucket: an imported bucket and key, the lock added to a bucket policy the app owns.
    key = kms.Key.from_key_arn(
        stack, "OwnKey", "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
    )
    own = s3.Bucket.from_bucket_attributes(stack, "OwnBucket", bucket_name="acme-models", encryption_key=key)
    ModelBucketLock(
        stack,
        "OwnLock",
        bucket=own,
        vpc_endpoint=network.s3_endpoint,
        policy=s3.BucketPolicy(stack, "OwnPolicy", bucket=own),
    )
    ModelReaderIdentity(stack, "OwnReader", cluster=cluster, bucket=own, prefix="models/qwen", model_name="qwen")


def synth_with_nag(app: cdk.App):
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app, app.synth()


@pytest.fixture(scope="module")
def synthesised(tmp_path_factory):
    """{variant: (app, assembly)}; synthesis itself is the cdk-nag gate."""
    reference = build_app(copy.deepcopy(CDK_JSON), outdir=str(tmp_path_factory.mktemp("reference")))
    variant = build_app(variant_context(), outdir=str(tmp_path_factory.mktemp("variant")))
    add_construct_variants(variant)
    return {"reference": synth_with_nag(reference), "variant": synth_with_nag(variant)}


def templates(synthesised):
    for name, (_, assembly) in synthesised.items():
        for path in sorted(Path(assembly.directory).glob("*.template.json")):
            yield f"{name}/{path.name}", json.loads(path.read_text())


# cdk-nag -------------------------------------------------------------------------------------------


def test_no_unacknowledged_aws_solutions_findings(synthesised):
    for _, (_, assembly) in synthesised.items():
        report = json.loads(Path(assembly.directory, "validation-report.json").read_text())
        violations = [v for plugin in report["pluginReports"] for v in plugin.get("violations", [])]
        assert violations == []


def test_the_nag_gate_fails_on_an_unacknowledged_finding(tmp_path):
    app = cdk.App(outdir=str(tmp_path))
    stack = Stack(app, "Unchecked")
    ec2.Vpc(
        stack,
        "Vpc",
        max_azs=2,
        nat_gateways=0,
        subnet_configuration=[ec2.SubnetConfiguration(name="isolated", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED)],
    )
    with pytest.raises(RuntimeError, match="ValidationFailed"):
        synth_with_nag(app)
    report = json.loads((tmp_path / "validation-report.json").read_text())
    assert "AwsSolutions-VPC7" in {v["ruleName"] for p in report["pluginReports"] for v in p["violations"]}


def test_acknowledgements_sit_on_constructs_with_a_written_reason(synthesised):
    key = Validations.ACKNOWLEDGED_RULES_METADATA_KEY
    seen = []
    for _, (app, _) in synthesised.items():
        for construct in app.node.find_all():
            for entry in construct.node.metadata:
                if entry.type != key:
                    continue
                # aws-cdk-lib acknowledges its own CloudFormation-Validate rules; ours are the AwsSolutions ones.
                for finding, reason in entry.data.items():
                    if "AwsSolutions-" not in finding:
                        continue
                    assert not isinstance(construct, (Stack, cdk.App)), f"stack-wide acknowledgement {finding}"
                    assert len(reason.split()) >= 8, (construct.node.path, finding, reason)
                    seen.append(finding)
    assert seen, "no acknowledgement found: the metadata key changed?"


# cfn-lint ------------------------------------------------------------------------------------------


def test_every_template_of_every_variant_has_no_cfn_lint_errors(synthesised):
    linted = []
    for name, template in templates(synthesised):
        errors = [f"{m.rule.id} {m.message}" for m in lint_all(json.dumps(template)) if m.rule.id.startswith("E")]
        assert errors == [], name
        linted.append(name)
    assert len(linted) == 3


# Kubernetes manifests ------------------------------------------------------------------------------


def validate(doc: dict, version: str) -> None:
    if doc["kind"] in CRD_KINDS:
        import jsonschema

        validator = jsonschema.Draft7Validator(crd_schema(doc["apiVersion"], doc["kind"]))
        # A reference (known only at deploy time) cannot match an id pattern; everything else must hold.
        errors = [e for e in validator.iter_errors(doc) if not (e.validator == "pattern" and e.instance == DEPLOY_TIME)]
        if errors:
            raise errors[0]
        kubernetes_validate.validate(
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": doc["metadata"]}, version, strict=True
        )
    else:
        kubernetes_validate.validate(doc, version, strict=True)


def test_every_manifest_in_the_templates_validates_for_the_cluster_version(synthesised):
    count = 0
    for name, template in templates(synthesised):
        docs = template_manifests(template)
        if docs:
            version = cluster_version(template)
            for logical_id, doc in docs:
                try:
                    validate(doc, version)
                except Exception as exc:  # name the object in the failure
                    raise AssertionError(f"{name} {logical_id} {doc['kind']}: {exc}") from exc
                count += 1
    assert count >= 14  # local-nvme storage in both reference apps, Karpenter in the variant stack


def test_every_chart_class_has_inputs():
    assert set(chart_classes()) <= set(CHART_INPUTS)


@pytest.mark.parametrize("version", SUPPORTED_KUBERNETES_VERSIONS)
def test_every_chart_validates_for_every_supported_version(version):
    for name, cls in chart_classes().items():
        for case, doc in chart_manifests(name, cls):
            try:
                validate(doc, version)
            except Exception as exc:
                raise AssertionError(f"{case} {doc['kind']}: {exc}") from exc


# Pod Security Standards ----------------------------------------------------------------------------


def all_workloads(synthesised):
    for name, template in templates(synthesised):
        for logical_id, doc in template_manifests(template):
            if pod_of(doc) is not None:
                yield f"{name} {logical_id}", doc
    for name, cls in chart_classes().items():
        for case, doc in chart_manifests(name, cls):
            if pod_of(doc) is not None:
                yield case, doc


def test_every_workload_meets_baseline_or_is_explicitly_exempt(synthesised):
    workloads = list(all_workloads(synthesised))
    assert any(doc["kind"] == "DaemonSet" for _, doc in workloads)
    for where, doc in workloads:
        assert unexempted_violations(doc) == [], where


def test_the_storage_provisioner_is_exempt_only_in_kube_system():
    import cdk8s

    from fastload_constructs.k8s.local_storage import LocalNvmeStorage

    for namespace, exempt in (("kube-system", True), ("inference", False)):
        docs = cdk8s.Testing.synth(LocalNvmeStorage(cdk8s.Testing.app(), "s", namespace=namespace))
        (daemon_set,) = [d for d in docs if d["kind"] == "DaemonSet"]
        assert (unexempted_violations(daemon_set) == []) is exempt


def test_exemptions_are_few_and_explained():
    # The storage provisioner and the server's two opt-in node caches (vLLM's, and SGLang's same pod shape).
    assert len({e.reason for e in EXEMPTIONS}) <= 3
    assert {e.label[1] for e in EXEMPTIONS} <= {"local-volume-provisioner", "vllm", "sglang"}
    assert all(len(e.reason.split()) >= 20 and e.controls for e in EXEMPTIONS)
