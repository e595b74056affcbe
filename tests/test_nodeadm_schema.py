"""Every nodeadm `NodeConfig` the library emits, validated against nodeadm's own schema at the pinned AL2023 release.

Schema: the NodeConfig CRD of awslabs/amazon-eks-ami at tag v20260714, the release of the default
`al2023@v20260714` alias (tests/fixtures/nodeadm-v20260714/, loaded by tests/crd_schemas.py).

What nodeadm does with a field it does not know: it drops it without a word. In awslabs/amazon-eks-ami@v20260714
(https://github.com/awslabs/amazon-eks-ami/tree/v20260714/nodeadm), `internal/configprovider/mime.go:62`
decodes each `application/node.eks.aws` part with `bridge.DecodeNodeConfig`, which builds
`serializer.NewCodecFactory(scheme)` without `serializer.EnableStrict` (`internal/api/bridge/decode.go:25-26`);
the factory's default is `CodecFactoryOptions{Pretty: true}`, Strict false (the vendored k8s.io/apimachinery
v0.36.2, `vendor/k8s.io/apimachinery/pkg/runtime/serializer/codec_factory.go:178-179`), and a non-strict
serializer decodes with `kjson.UnmarshalCaseSensitivePreserveInts` and returns (`.../serializer/json/json.go:268-274`):
unknown fields, and fields spelt in another case, are ignored. A wrong type, on the other hand, fails that decode
and the node never joins. So this test is stricter than the node (`_strict`: no `additionalProperties` where the
CRD lists `properties`): a misspelt field here is a setting the node would silently go without.

Two rules of nodeadm's Go source that the generated CRD leaves out are added: `apiVersion`/`kind` must be
`node.eks.aws/v1alpha1`/`NodeConfig` (`internal/api/bridge/decode.go:30-35` refuses another kind or group;
v1alpha1 is the only version in its scheme, `internal/api/bridge/scheme.go:12-15`), and a feature gate must be
one nodeadm knows (`api/v1alpha1/nodeconfig_types.go:159`, `+kubebuilder:validation:Enum={InstanceIdNodeName,
FastImagePull}` on the map's key type, which controller-gen does not carry into the CRD; an unknown gate is
simply off, `internal/api/featuregates.go:25-29`).

What is validated: `core.cluster.nodeadm.node_config` with every option; the user data of an AL2023 managed node
group (`infra.gpu_nodegroup.node_user_data`) and of an AL2023 EC2NodeClass (`core.cluster.karpenter.node_class`)
for every combination their constructs accept; and every NodeConfig in the synthesised reference app on AL2023,
managed and Karpenter, with the image on a snapshot or pulled, each stack resolved as the deploy rehearsal
resolves it (tests/rehearsal/). Nothing else emits one: the system node group's launch template has no user
data (EKS writes its own), the AL2023 image-snapshot builder's is a shell script (it runs containerd itself and
joins no cluster), and node labels, taints and kubelet settings go on the node group or NodePool, never into
our NodeConfig.
"""

from __future__ import annotations

import base64
import binascii
import copy
import email
import hashlib
import itertools
import re
from functools import cache
from typing import Any

import jsonschema
import pytest
import yaml

from fastload_constructs.core.cluster.eks_ami_releases import DEFAULT_AL2023_RELEASE, FAST_IMAGE_PULL_SINCE
from fastload_constructs.core.cluster.gpu_nodes import gpu_node_spec
from fastload_constructs.core.cluster.image_cache import ImageCache
from fastload_constructs.core.cluster.karpenter import NodePoolOptions, node_class
from fastload_constructs.core.cluster.nodeadm import (
    LOCAL_STORAGE_STRATEGIES,
    NODEADM_API_VERSION,
    NODEADM_CONTENT_TYPE,
    NODEADM_KIND,
    mime_user_data,
    node_config,
)
from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.infra.gpu_nodegroup import node_user_data
from tests.crd_schemas import FIXTURES, NODEADM_RELEASE, crd_schema
from tests.rehearsal.deployment import Deployment
from tests.rehearsal.environment import Environment

VENDORED = FIXTURES / f"nodeadm-{NODEADM_RELEASE}"
CRD_FILE = VENDORED / "node.eks.aws_nodeconfigs.yaml"
# nodeadm/api/v1alpha1/nodeconfig_types.go:159 at v20260714.
FEATURE_GATES = ["InstanceIdNodeName", "FastImagePull"]
SNAPSHOT = ImageCache("snap-0123456789abcdef0")
ACCOUNT, REGION = "210987654321", "us-west-2"


@cache
def nodeconfig_schema() -> dict[str, Any]:
    """The vendored CRD's schema, strict, with the two rules of nodeadm's Go source it leaves out."""
    schema = copy.deepcopy(crd_schema(NODEADM_API_VERSION, NODEADM_KIND))
    schema["properties"]["apiVersion"]["const"] = NODEADM_API_VERSION
    schema["properties"]["kind"]["const"] = NODEADM_KIND
    schema["required"] = ["apiVersion", "kind"]
    schema["properties"]["spec"]["properties"]["featureGates"]["propertyNames"] = {"enum": FEATURE_GATES}
    return schema


FORMATS = jsonschema.FormatChecker()


@FORMATS.checks("byte", raises=binascii.Error)
def _is_base64(value: object) -> bool:
    """OpenAPI `format: byte` (the cluster's certificateAuthority): base64-encoded data."""
    if isinstance(value, str):
        base64.b64decode(value, validate=True)
    return True


def nodeconfig_problems(config: Any) -> list[str]:
    """Every way `config` breaks the vendored schema, one line each (empty: valid)."""
    validator = jsonschema.Draft7Validator(nodeconfig_schema(), format_checker=FORMATS)
    return [
        f"{'.'.join(str(p) for p in error.absolute_path) or '<document>'}: {error.message}"
        for error in validator.iter_errors(config)
    ]


def node_configs(user_data: str) -> list[Any]:
    """The documents of every nodeadm part of MIME multipart user data, as nodeadm picks them
    (configprovider/mime.go:44-49: a part whose media type is `application/node.eks.aws`)."""
    message = email.message_from_string(user_data)
    assert message.is_multipart(), f"not MIME multipart: {user_data[:80]!r}"
    return [
        yaml.safe_load(part.get_payload())
        for part in message.get_payload()
        if part.get_content_type() == NODEADM_CONTENT_TYPE
    ]


# --- the vendored schema ---------------------------------------------------------------------------------------


def test_the_vendored_crd_is_nodeadms_at_the_release_the_library_pins():
    assert f"v{DEFAULT_AL2023_RELEASE}" == NODEADM_RELEASE, "re-vendor the NodeConfig CRD with the new AL2023 release"
    recorded = re.search(r"\b([0-9a-f]{64})\b", (VENDORED / "SOURCES.md").read_text())
    assert recorded is not None
    assert hashlib.sha256(CRD_FILE.read_bytes()).hexdigest() == recorded.group(1)


# --- pure decisions --------------------------------------------------------------------------------------------

NODE_CONFIG_OPTIONS = list(itertools.product((*LOCAL_STORAGE_STRATEGIES, None), (False, True), (False, True)))


@pytest.mark.parametrize(
    "local_storage,fast_image_pull,containerd_on_image_cache",
    NODE_CONFIG_OPTIONS,
    ids=[f"{s}-fast{int(f)}-cache{int(c)}" for s, f, c in NODE_CONFIG_OPTIONS],
)
def test_every_node_config_option_is_valid(local_storage, fast_image_pull, containerd_on_image_cache):
    config = node_config(
        local_storage=local_storage,
        fast_image_pull=fast_image_pull,
        containerd_on_image_cache=containerd_on_image_cache,
    )
    (parsed,) = node_configs(mime_user_data(config))
    assert parsed == config
    assert nodeconfig_problems(parsed) == []


# (instance type, instance_store, fast_image_pull, image_cache): what GpuNodeGroup and NodePoolOptions accept
# (FastImagePull is refused with an image cache; RAID0 on a type without instance store is refused).
NODE_SHAPES = [
    (instance_type, instance_store, fast, cache)
    for instance_type, instance_store in (("g6e.12xlarge", True), ("g6e.12xlarge", False), ("p3.8xlarge", False))
    for fast, cache in ((False, None), (True, None), (False, SNAPSHOT))
]
SHAPE_IDS = [f"{t}-store{int(s)}-fast{int(f)}-cache{int(c is not None)}" for t, s, f, c in NODE_SHAPES]


@pytest.mark.parametrize("instance_type,instance_store,fast_image_pull,image_cache", NODE_SHAPES, ids=SHAPE_IDS)
def test_managed_node_group_user_data_is_valid(instance_type, instance_store, fast_image_pull, image_cache):
    spec = gpu_node_spec(instance_type, instance_store=instance_store, ami_family="al2023")
    user_data = node_user_data(spec, fast_image_pull=fast_image_pull, image_cache=image_cache)
    (config,) = node_configs(user_data)
    assert nodeconfig_problems(config) == []


@pytest.mark.parametrize("instance_type,instance_store,fast_image_pull,image_cache", NODE_SHAPES, ids=SHAPE_IDS)
def test_karpenter_node_class_user_data_is_valid(instance_type, instance_store, fast_image_pull, image_cache):
    options = NodePoolOptions(
        ami_family="al2023", instance_store=instance_store, fast_image_pull=fast_image_pull, image_cache=image_cache
    )
    spec = node_class(
        cluster_name="c",
        node_role="r",
        instance_store=options.instance_store,
        root_volume_gib=options.root_volume_gib,
        ami_alias=options.alias,
        root_volume_throughput_mibps=1000,
        ami_family="al2023",
        fast_image_pull=options.image_pull_in_parallel,
        image_cache=options.image_cache,
    )
    if spec.user_data is None:
        # Nothing of ours to add: Karpenter's own NodeConfig (cluster, instanceStorePolicy) is the node's.
        assert not fast_image_pull and image_cache is None
        return
    (config,) = node_configs(spec.user_data)
    assert nodeconfig_problems(config) == []


# --- the reference app on AL2023, as deployed ------------------------------------------------------------------


def _al2023_reference(gpu_nodes: str, image_snapshot: str, outdir: str) -> list[Deployment]:
    """The split reference app (tests/split_models.py) on AL2023 nodes: each stack resolved as the deploy
    rehearsal does, after the one before it. `image_snapshot`: `build` (the default: nodes restore a snapshot,
    containerd off the RAID0) or `none` (nodes pull, with FastImagePull)."""
    from app import build_app
    from tests.split_models import split_context

    ctx = split_context(gpu_nodes)
    ctx["fastload:amiFamily"] = "al2023"
    ctx["fastload:imageSnapshot"] = image_snapshot
    if gpu_nodes == "managed":
        for model in ctx["fastload:models"]:  # type: ignore[attr-defined]
            model.pop("bufferedNodes", None)
    assembly = build_app(context=ctx, outdir=outdir).synth()
    deployed: list[Deployment] = []
    for stack in assembly.stacks:
        env = Environment(stack.stack_name, account=ACCOUNT, region=REGION)
        deployed.append(Deployment(stack.template, env, earlier=list(deployed)))
    return deployed


REFERENCE_VARIANTS = [(nodes, snapshot) for nodes in ("managed", "karpenter") for snapshot in ("build", "none")]


@pytest.fixture(scope="module", params=REFERENCE_VARIANTS, ids=[f"{n}-snapshot-{s}" for n, s in REFERENCE_VARIANTS])
def al2023_reference(request, tmp_path_factory) -> tuple[str, str, list[Deployment]]:
    gpu_nodes, image_snapshot = request.param
    outdir = str(tmp_path_factory.mktemp(f"cdk.out-nodeadm-{gpu_nodes}-{image_snapshot}"))
    return gpu_nodes, image_snapshot, _al2023_reference(gpu_nodes, image_snapshot, outdir)


def launch_template_node_configs(deployment: Deployment) -> dict[str, list[Any]]:
    """Launch template logical id -> the NodeConfigs of its (deploy-time, base64-decoded) user data; a template
    whose user data is no MIME message (a plain script, or none) has none."""
    found: dict[str, list[Any]] = {}
    for logical_id, props in deployment.of_type("AWS::EC2::LaunchTemplate").items():
        encoded = props.get("LaunchTemplateData", {}).get("UserData")
        user_data = base64.b64decode(encoded).decode() if encoded else ""
        is_mime = email.message_from_string(user_data).is_multipart()
        found[logical_id] = node_configs(user_data) if is_mime else []
    return found


def al2023_gpu_launch_templates(deployment: Deployment) -> set[str]:
    """Logical ids of the launch templates of the AL2023 NVIDIA managed node groups."""
    by_id = {deployment.ref(lid): lid for lid in deployment.of_type("AWS::EC2::LaunchTemplate")}
    return {
        by_id[group["LaunchTemplate"]["Id"]]
        for group in deployment.of_type("AWS::EKS::Nodegroup").values()
        if group["AmiType"] == "AL2023_x86_64_NVIDIA"
    }


def node_class_node_configs(deployment: Deployment) -> dict[str, list[Any]]:
    """EC2NodeClass name -> the NodeConfigs of its userData, for the AL2023 node classes applied."""
    return {
        obj["metadata"]["name"]: node_configs(obj["spec"]["userData"]) if "userData" in obj["spec"] else []
        for _, obj in deployment.manifests
        if obj["kind"] == "EC2NodeClass" and obj["spec"]["amiSelectorTerms"][0]["alias"].startswith("al2023@")
    }


def test_every_node_config_of_the_al2023_reference_app_is_valid(al2023_reference):
    mode, image_snapshot, deployments = al2023_reference
    configs: dict[str, list[Any]] = {}
    for deployment in deployments:
        stack = deployment.env.stack_name
        templates = launch_template_node_configs(deployment)
        gpu = al2023_gpu_launch_templates(deployment)
        # Every AL2023 GPU node group boots with exactly one NodeConfig of ours; no other template has one.
        assert {lid for lid, found in templates.items() if found} == gpu
        assert all(len(templates[lid]) == 1 for lid in gpu)
        configs |= {f"{stack}/{lid}": found for lid, found in templates.items() if found}
        configs |= {
            f"{stack}/EC2NodeClass/{name}": found for name, found in node_class_node_configs(deployment).items()
        }
    if mode == "managed":
        assert configs and not any("EC2NodeClass" in where for where in configs)
    else:
        # Our NodeConfig is in the EC2NodeClass's userData; no launch template of ours has one.
        assert [where for where in configs if "EC2NodeClass" in where] == list(configs)
        assert all(len(found) == 1 for found in configs.values())
    problems = [f"{where}: {p}" for where, found in configs.items() for c in found for p in nodeconfig_problems(c)]
    assert problems == []
    # Both branches of what the nodes get: containerd kept on the restored snapshot, or FastImagePull.
    gates = [c["spec"].get("featureGates") for found in configs.values() for c in found]
    assert gates == [None if image_snapshot == "build" else {"FastImagePull": True}] * len(gates)


# --- the check can fail --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "broken,where",
    [
        # A misspelt field: nodeadm would drop it and leave the instance store unused.
        ({"instance": {"localStorage": {"stratgy": "RAID0"}}}, "spec.instance.localStorage"),
        # The wrong case: nodeadm's decoding is case-sensitive, so this is dropped too.
        ({"instance": {"LocalStorage": {"strategy": "RAID0"}}}, "spec.instance"),
        # A wrong type: nodeadm's decode fails and the node never joins.
        ({"featureGates": {"FastImagePull": "true"}}, "spec.featureGates.FastImagePull"),
        # An unknown feature gate: nodeadm treats it as off.
        ({"featureGates": {"FastImagePul": True}}, "spec.featureGates"),
        # A value outside an enum.
        (
            {"instance": {"localStorage": {"disabledMounts": ["containerd"]}}},
            "spec.instance.localStorage.disabledMounts.0",
        ),
        # Not base64 where the schema says `format: byte`.
        ({"cluster": {"certificateAuthority": "not base64!"}}, "spec.cluster.certificateAuthority"),
    ],
    ids=["misspelt", "wrong-case", "wrong-type", "unknown-gate", "enum", "format"],
)
def test_a_broken_node_config_fails(broken, where):
    document = {"apiVersion": NODEADM_API_VERSION, "kind": NODEADM_KIND, "spec": broken}
    (parsed,) = node_configs(mime_user_data(document))
    problems = nodeconfig_problems(parsed)
    assert len(problems) == 1 and problems[0].startswith(f"{where}: "), problems


def test_the_strictness_is_ours_not_the_crds():
    """The CRD as published lets a misspelt field through (as nodeadm's decoding does); `_strict` refuses it."""
    misspelt = {"apiVersion": NODEADM_API_VERSION, "kind": NODEADM_KIND, "spec": {"instance": {"localStorag": {}}}}
    published = yaml.safe_load(CRD_FILE.read_text())["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    jsonschema.validate(misspelt, published)
    assert nodeconfig_problems(misspelt) == [
        "spec.instance: Additional properties are not allowed ('localStorag' was unexpected)"
    ]


def test_another_kind_or_group_is_refused():
    for document in (
        {"apiVersion": "node.eks.aws/v1beta1", "kind": NODEADM_KIND},
        {"apiVersion": NODEADM_API_VERSION, "kind": "NodeConfiguration"},
        {"kind": NODEADM_KIND},
    ):
        assert nodeconfig_problems(document), document


# --- the gate we emit is one the node's nodeadm knows ----------------------------------------------------------

OLD = "al2023@v20250819"  # the last release before FAST_IMAGE_PULL_SINCE; built for Kubernetes 1.27-1.33


def test_fast_image_pull_is_off_by_default_on_a_release_without_the_gate():
    assert FAST_IMAGE_PULL_SINCE == "20250821"
    old = NodePoolOptions(ami_family="al2023", ami_alias=OLD, kubernetes_version="1.33")
    new = NodePoolOptions(ami_family="al2023", ami_alias=f"al2023@v{FAST_IMAGE_PULL_SINCE}", kubernetes_version="1.33")
    latest = NodePoolOptions(ami_family="al2023", ami_alias="al2023@latest", kubernetes_version="1.33")
    assert (old.fast_image_pull, new.fast_image_pull, latest.fast_image_pull) == (False, True, True)


def test_fast_image_pull_on_a_release_without_the_gate_is_refused():
    with pytest.raises(FastloadConfigError) as err:
        NodePoolOptions(ami_family="al2023", ami_alias=OLD, kubernetes_version="1.33", fast_image_pull=True)
    assert err.value.field == "fast_image_pull"
    assert f"al2023@v{FAST_IMAGE_PULL_SINCE}" in err.value.accepted


def test_the_reference_app_refuses_a_release_without_the_gate_when_its_nodes_pull():
    from stacks.config import parse_reference_config
    from tests.split_models import CDK_JSON

    ctx = copy.deepcopy(CDK_JSON)
    ctx.update({"fastload:amiFamily": "al2023", "fastload:amiAlias": OLD, "fastload:kubernetesVersion": "1.33"})
    # With a snapshot the nodes do not pull, and with managed node groups EKS picks the AMI release.
    assert parse_reference_config({**ctx, "fastload:imageSnapshot": "build"}).ami_alias == OLD
    managed = {**ctx, "fastload:imageSnapshot": "none", "fastload:gpuNodes": "managed"}
    assert parse_reference_config(managed).ami_alias == OLD
    with pytest.raises(FastloadConfigError) as err:
        parse_reference_config({**ctx, "fastload:imageSnapshot": "none", "fastload:gpuNodes": "karpenter"})
    assert err.value.field == "fastload:amiAlias"


def test_the_vendored_list_has_no_release_before_the_first_with_disabled_mounts():
    """`disabledMounts` (what an image cache writes) arrived in amazon-eks-ami 01348c0 ("expose more local storage
    options", first tagged v20250620): every release the library accepts has it."""
    from fastload_constructs.core.cluster.eks_ami_releases import AL2023_RELEASES

    assert min(AL2023_RELEASES) >= "20250620"
