"""Draw docs/architecture.png: what the reference app deploys, read from a synthesis of it.

Synthesises the reference app (app.py with cdk.json's context) with its first model's caches and a warm
spare turned on, so that its server pod has every init container and the publish sidecar, then reads what
the picture shows from the CloudFormation template and the exported Kubernetes manifests: the S3 gateway
endpoint, the Kubernetes version, the system nodes and the controllers' Helm releases, the GPU nodes'
EC2NodeClass (AMI alias, the data volume restored from the node image snapshot and what the snapshot
holds), the server pod's init containers in order and its containers, the node-local cache paths, the
Pod Identity associations, the managed scraper and the ScaledObject's query. Which cdk.json key adds each
init container comes from rendering the pod without it (`core.serving.server_pod.server_spec`). The bucket's
layout comes from the names the staging and cache code use. Only the boxes' places are drawn by hand.

    .venv/bin/python docs/draw_architecture.py [--png docs/architecture.png]
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import re
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from fastload_constructs.core.access.revisions import POINTER_NAME, REVISIONS_FOLDER  # noqa: E402
from fastload_constructs.core.cluster.ami_family import node_os  # noqa: E402
from fastload_constructs.core.naming import INSTANCE_STORE_MOUNTS, STAGE_MANIFEST_NAME  # noqa: E402
from fastload_constructs.core.planning import plan  # noqa: E402
from fastload_constructs.core.planning.serving import Serving  # noqa: E402
from fastload_constructs.core.serving.cache_sharing import DEFAULT_COMPILE_CACHE_PREFIX, model_cache_prefix  # noqa: E402
from fastload_constructs.core.serving.server_pod import server_spec  # noqa: E402
from fastload_constructs.core.settings import settings_of  # noqa: E402
from fastload_constructs.runtime.compile_cache import archive_key  # noqa: E402
from stacks.config import ModelSpec, parse_reference_config  # noqa: E402

# The first model's keys the picture turns on: each adds an init container (or the sidecar) to its pod.
SHOWN_KEYS = {"model_cache": "node-local", "shared_compile_cache": True, "warm_spares": 1}


def _cdk_context() -> dict[str, Any]:
    return dict(json.loads((ROOT / "cdk.json").read_text())["context"])


def _key_name(field: str) -> str:
    """The cdk.json key of a Serving field (`model_cache` -> nodeLocalModelCache)."""
    (record,) = [s for s in settings_of(Serving) if s.name == field]
    assert record.key is not None
    return record.key.name


def _key_value(field: str, value: Any) -> Any:
    return True if field == "model_cache" else value


def shown_context() -> dict[str, Any]:
    """cdk.json's context with SHOWN_KEYS on its first model."""
    context = copy.deepcopy(_cdk_context())
    context["fastload:models"][0].update({_key_name(f): _key_value(f, v) for f, v in SHOWN_KEYS.items()})
    return context


@dataclass(frozen=True)
class Container:
    name: str
    added_by: str | None  # the cdk.json key that adds it; None: every server pod has it


@dataclass(frozen=True)
class Inventory:
    """What the picture shows, each item read from the synthesised app (or the code, where it says so)."""

    stack: str
    kubernetes_version: str
    system_nodes: str
    controllers: tuple[str, ...]  # "karpenter 1.14.1"
    s3_gateway_endpoint: bool
    managed_scraper: bool
    interruption_queue: bool
    pod_identity: tuple[str, ...]  # service accounts with an association
    node_pool: str
    instance_types: tuple[str, ...]
    node_family: str
    ami_alias: str
    instance_store: str
    data_device: str
    snapshot_images: tuple[str, ...]
    fast_snapshot_restore_zones: int
    server: str
    init_containers: tuple[Container, ...]
    containers: tuple[Container, ...]
    cache_paths: tuple[str, ...]
    warm_spare: str | None
    scaling_metric: str
    bucket_layout: tuple[str, ...]
    kinds: tuple[str, ...]  # every Kubernetes kind the app applies, sorted

    def described(self) -> str:
        """The inventory as JSON: stored in the PNG, so a test can tell a stale picture."""
        return json.dumps(dataclasses.asdict(self), sort_keys=True)


def _resources(template: Mapping[str, Any], kind: str) -> list[Mapping[str, Any]]:
    return [r["Properties"] for r in template["Resources"].values() if r["Type"] == kind]


def _manifests(folder: Path) -> Iterator[dict[str, Any]]:
    for path in sorted(folder.glob("*.yaml")):
        yield from (d for d in yaml.safe_load_all(path.read_text()) if d)


def _one(documents: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    (found,) = [d for d in documents if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    return found


def _added_by(model: ModelSpec) -> dict[str, str]:
    """Container name -> the cdk.json key that adds it to the server pod, each key alone on a pod with
    none of SHOWN_KEYS (absent: every server pod has it)."""

    defaults = {f: getattr(Serving(), f) for f in SHOWN_KEYS}

    def names(**serving: Any) -> set[str]:
        chosen = dataclasses.replace(model.serving, **{**defaults, **serving})
        options = dataclasses.replace(model.options, serving=chosen)
        spec = server_spec(
            plan(model.profile, model.instance_type, options),
            model_name=model.name,
            model_uri=f"s3://bucket/{model.s3_prefix}",
            region="us-east-1",
            options=model.server_options(),
        )
        return {c.name for c in (*spec.init_containers, *spec.sidecars)}

    base = names()
    return {name: _key_name(f) for f, v in SHOWN_KEYS.items() for name in names(**{f: v}) - base}


def _bucket_layout(model: ModelSpec) -> tuple[str, ...]:
    """The model bucket's keys, from the names the staging, revision and compile-cache code use."""
    cache = model_cache_prefix(DEFAULT_COMPILE_CACHE_PREFIX, model.name)
    revision, pointer = f"{REVISIONS_FOLDER}/<id>/", POINTER_NAME
    width = max(len(revision), len(pointer)) + 2
    return (
        f"{model.s3_prefix}/",
        f"  {revision:<{width}}a staged revision, never rewritten ({STAGE_MANIFEST_NAME} last)",
        f"  {pointer:<{width}}the revision new pods load",
        f"{archive_key(cache, '<key>')}   compile-cache archives",
    )


def _gpu_node_facts(documents: list[dict[str, Any]]) -> dict[str, Any]:
    node_class = _one(documents, "EC2NodeClass")
    pool = next(d for d in documents if d["kind"] == "NodePool" and "standby" not in d["metadata"]["name"])
    labels = pool["spec"]["template"]["metadata"]["labels"]
    requirements = {r["key"]: r["values"] for r in pool["spec"]["template"]["spec"]["requirements"]}
    (data,) = [m for m in node_class["spec"]["blockDeviceMappings"] if "snapshotID" in m["ebs"]]
    family = node_os(labels["fastload.io/ami-family"])
    return {
        "node_pool": pool["metadata"]["name"],
        "instance_types": tuple(requirements["node.kubernetes.io/instance-type"]),
        "node_family": family.display_name,
        "ami_alias": node_class["spec"]["amiSelectorTerms"][0]["alias"],
        "instance_store": INSTANCE_STORE_MOUNTS[family.family],
        "data_device": data["deviceName"],
    }


def _server_pod_facts(documents: list[dict[str, Any]], model: ModelSpec) -> dict[str, Any]:
    added = _added_by(model)
    spec = _one(documents, "Deployment", model.name)["spec"]["template"]["spec"]
    mounts = [v["hostPath"]["path"] for v in spec["volumes"] if "hostPath" in v]
    spares = [
        d["metadata"]["name"] for d in documents if d["kind"] == "Deployment" and d["metadata"]["name"] != model.name
    ]
    query = _one(documents, "ScaledObject")["spec"]["triggers"][0]["metadata"]["query"]
    return {
        "server": model.name,
        "init_containers": tuple(Container(c["name"], added.get(c["name"])) for c in spec["initContainers"]),
        "containers": tuple(Container(c["name"], added.get(c["name"])) for c in spec["containers"]),
        "cache_paths": tuple(mounts),
        "warm_spare": spares[0] if spares else None,
        "scaling_metric": re.sub(r"^\w+\(([\w:]+)\{.*$", r"\1", query),
    }


def inventory() -> Inventory:
    """Synthesise the reference app with SHOWN_KEYS on and read the picture's contents from it."""
    with tempfile.TemporaryDirectory(prefix="fastload-architecture-") as folder:
        return _read_synthesis(Path(folder))


def _read_synthesis(out: Path) -> Inventory:
    from app import build_app
    from fastload_constructs.infra.manifest_export import synth_with_manifests

    context = shown_context()
    model = parse_reference_config(context).models[0]
    synth_with_manifests(build_app(context=copy.deepcopy(context), outdir=str(out)))
    (template_path,) = out.glob("*.template.json")
    template = json.loads(template_path.read_text())
    documents = list(_manifests(out / "manifests"))
    (cluster,) = _resources(template, "AWS::EKS::Cluster")
    (system,) = _resources(template, "AWS::EKS::Nodegroup")
    (snapshot,) = _resources(template, "Custom::NodeImageSnapshot")
    helm = _resources(template, "Custom::AWSCDK-EKS-HelmChart")
    endpoints = _resources(template, "AWS::EC2::VPCEndpoint")
    return Inventory(
        stack=template_path.name.removesuffix(".template.json"),
        kubernetes_version=cluster["Version"],
        system_nodes=", ".join(system["InstanceTypes"]),
        controllers=tuple(f"{h['Release']} {h['Version']}" for h in helm if not h["Release"].endswith("-crd")),
        s3_gateway_endpoint=any(
            e["VpcEndpointType"] == "Gateway" and ".s3" in json.dumps(e["ServiceName"]) for e in endpoints
        ),
        managed_scraper=bool(_resources(template, "AWS::APS::Scraper")),
        interruption_queue=bool(_resources(template, "AWS::SQS::Queue")),
        pod_identity=tuple(a["ServiceAccount"] for a in _resources(template, "AWS::EKS::PodIdentityAssociation")),
        snapshot_images=tuple(snapshot["Images"]),
        fast_snapshot_restore_zones=len(snapshot.get("FastSnapshotRestoreZones", [])),
        bucket_layout=_bucket_layout(model),
        kinds=tuple(sorted({d["kind"] for d in documents})),
        **_gpu_node_facts(documents),
        **_server_pod_facts(documents, model),
    )


# ------------------------------------------------------------------------------------------------------------
# The picture: boxes placed by hand on a 120 x 84 grid, every word from the inventory.

FONT = 10.5
SMALL = FONT - 2  # the smallest text drawn: still readable at README width
COLOURS = {
    "aws": "#fff4e5",
    "vpc": "#eef6ee",
    "cluster": "#e8eef8",
    "system": "#f5f5f5",
    "node": "#ffffff",
    "pod": "#f1ecf8",
    "init": "#dfe9f7",
    "optional": "#fbfbfb",
    "container": "#d9ead3",
    "store": "#fdf0d5",
}


def _box(ax: Any, x: float, y: float, w: float, h: float, colour: str, *, dashed: bool = False, z: int = 1) -> None:
    from matplotlib.patches import FancyBboxPatch

    ax.add_patch(
        FancyBboxPatch(
            (x, y),
            w,
            h,
            boxstyle="round,pad=0.2,rounding_size=0.8",
            facecolor=COLOURS[colour],
            edgecolor="#555555",
            linewidth=1.0,
            linestyle="--" if dashed else "-",
            zorder=z,
        )
    )


def _text(ax: Any, x: float, y: float, text: str, *, size: float = FONT, bold: bool = False, **kw: Any) -> None:
    ax.text(x, y, text, fontsize=size, weight="bold" if bold else "normal", va="top", zorder=5, **kw)


def _arrow(
    ax: Any,
    start: tuple[float, float],
    end: tuple[float, float],
    label: str = "",
    *,
    rotation: float = 0,
    at: float = 0.5,
) -> None:
    """An arrow from `start` to `end`, its label `at` that fraction of the way."""
    ax.annotate(
        "",
        xy=end,
        xytext=start,
        arrowprops={"arrowstyle": "-|>", "color": "#333333", "linewidth": 1.3, "shrinkA": 0, "shrinkB": 0},
        zorder=6,
    )
    if label:
        x, y = start[0] + at * (end[0] - start[0]), start[1] + at * (end[1] - start[1])
        box = {"facecolor": "white", "edgecolor": "none", "pad": 1.0, "alpha": 0.9}
        ax.text(x, y, label, fontsize=SMALL, ha="center", va="center", zorder=7, bbox=box, rotation=rotation)


def _under(path: str, root: str) -> str:
    """A cache path below the instance store, its cache key (a hex digest) written `<key>`."""
    return re.sub(r"/[0-9a-f]{12,}$", "/<key>", path.removeprefix(root).lstrip("/"))


def _container(ax: Any, x: float, top: float, width: float, height: float, c: Container, lines: list[str]) -> None:
    """A container box: its name, then smaller lines; dashed, with the key that adds it, when a key does."""
    colour = "optional" if c.added_by else ("container" if c.name == "vllm" else "init")
    _box(ax, x, top - height, width, height, colour, dashed=c.added_by is not None, z=4)
    _text(ax, x + 0.7, top - 0.35, c.name, size=FONT - 0.5, bold=c.name == "vllm")
    extra = [*lines, *([f"with {c.added_by}"] if c.added_by else [])]
    for i, line in enumerate(extra):
        _text(ax, x + 0.7, top - 2.55 - 1.95 * i, line, size=SMALL, color="#444444", style="italic")


def _pod(ax: Any, inv: Inventory) -> None:
    _box(ax, 45, 29.0, 47, 24.7, "pod", z=3)
    _text(ax, 46, 53.3, f"server pod · Deployment {inv.server}", bold=True, size=FONT - 0.5)
    top = 50.6
    for i, c in enumerate(inv.init_containers, 1):
        _container(ax, 46.3, top, 23, 4.3, dataclasses.replace(c, name=f"{i} {c.name}"), [])
        top -= 4.8
    server, *sidecars = inv.containers
    _container(ax, 71.8, 50.6, 19.5, 7.2, server, ["the engine, streaming", "from S3 or the NVMe copy"])
    for sidecar in sidecars:
        _container(ax, 71.8, 41.4, 19.5, 9.2, sidecar, ["beside the server:", "publishes the cache"])
    _arrow(ax, (69.6, 47.0), (71.6, 47.0))


def _gpu_node(ax: Any, inv: Inventory) -> None:
    _box(ax, 43, 26, 50.5, 47.5, "node", z=2)
    _text(ax, 44, 73.0, f"GPU node · {', '.join(inv.instance_types)}", bold=True)
    _text(ax, 44, 70.6, f"NodePool {inv.node_pool} · {inv.node_family}", size=FONT - 1.5)
    _text(ax, 44, 68.6, f"{inv.ami_alias} · device plugin built in", size=FONT - 1.5)
    _box(ax, 45, 61.0, 47, 5.3, "store", z=3)
    more = len(inv.snapshot_images) - 1
    images = inv.snapshot_images[0] + (f" + {more} more image{'s' if more > 1 else ''}" if more else "")
    _text(ax, 46, 65.9, f"data volume {inv.data_device} from the node image snapshot", size=FONT - 1)
    _text(ax, 46, 63.4, f"already holds {images}", size=SMALL)
    _box(ax, 45, 54.7, 47, 5.3, "store", z=3)
    caches = ", ".join(_under(p, inv.instance_store) for p in sorted(inv.cache_paths))
    _text(ax, 46, 59.6, f"instance-store NVMe, RAID0 at {inv.instance_store}", size=FONT - 1)
    _text(ax, 46, 57.1, f"node-local caches: {caches}", size=SMALL)
    _pod(ax, inv)
    if inv.warm_spare:
        _text(ax, 44, 28.4, f"warm spare: Deployment {inv.warm_spare}", size=SMALL)


def _cluster(ax: Any, inv: Inventory) -> None:
    _box(ax, 19, 18, 78, 63.5, "vpc")
    _text(ax, 20, 81.0, "VPC · private subnets", bold=True)
    _box(ax, 21, 24, 74, 53.5, "cluster")
    _text(ax, 22, 77.0, f"EKS cluster · Kubernetes {inv.kubernetes_version}", bold=True)
    _box(ax, 22.3, 51, 19.2, 22.5, "system", z=2)
    _text(ax, 23, 73.0, "system nodes", bold=True)
    _text(ax, 23, 70.6, inv.system_nodes, size=FONT - 1)
    controllers = dict(c.split(" ", 1) for c in inv.controllers)
    _box(ax, 23, 61.2, 17.8, 6.3, "node", z=3)
    _text(ax, 23.6, 67.0, f"Karpenter {controllers.get('karpenter', '')}", size=FONT - 0.5)
    _text(ax, 23.6, 64.4, ", ".join(k for k in ("NodePool", "EC2NodeClass") if k in inv.kinds), size=SMALL)
    _box(ax, 23, 52.2, 17.8, 7.6, "node", z=3)
    _text(ax, 23.6, 59.3, f"KEDA {controllers.get('keda', '')}", size=FONT - 0.5)
    _text(ax, 23.6, 56.7, "ScaledObject on" if "ScaledObject" in inv.kinds else "no ScaledObject", size=SMALL)
    _text(ax, 23.6, 54.8, inv.scaling_metric, size=SMALL - 0.5)
    _gpu_node(ax, inv)
    _box(ax, 76, 16.3, 19, 4.2, "store", z=3)
    _text(
        ax,
        85.5,
        19.7,
        "S3 gateway endpoint" if inv.s3_gateway_endpoint else "no S3 endpoint",
        bold=True,
        ha="center",
        size=FONT - 0.5,
    )


def _aws_services(ax: Any, inv: Inventory) -> None:
    _box(ax, 1, 49, 16, 25, "aws")
    _text(ax, 1.8, 73.3, "Amazon Managed\nPrometheus", bold=True, linespacing=1.2, size=FONT - 0.5)
    _box(ax, 2, 61.0, 14, 4.4, "node", z=3)
    _text(ax, 2.6, 64.6, "managed scraper" if inv.managed_scraper else "no scraper", size=FONT - 1.5)
    _box(ax, 2, 51.5, 14, 4.4, "node", z=3)
    _text(ax, 2.6, 55.1, "workspace", size=FONT - 1.5)
    _arrow(ax, (9, 60.8), (9, 56.1))
    _box(ax, 1, 24, 16, 20.5, "aws")
    _text(ax, 1.8, 43.8, "Amazon EC2", bold=True)
    _text(ax, 1.8, 41.0, "a GPU instance\nper NodeClaim", size=FONT - 1.5, linespacing=1.25)
    if inv.interruption_queue:
        _text(ax, 1.8, 34.5, "interruption queue\n(SQS, EventBridge)", size=FONT - 2, linespacing=1.25)
    _box(ax, 99, 57, 20, 17, "aws")
    _text(ax, 99.8, 73.3, "node image\nsnapshot (EBS)", bold=True, linespacing=1.2)
    zones = inv.fast_snapshot_restore_zones
    restore = f"\nFast Snapshot Restore\nin {zones} zones" if zones else ""
    _text(ax, 99.8, 67.8, "built by the stack" + restore, size=FONT - 1.5, linespacing=1.25)
    _box(ax, 99, 30, 20, 23.5, "aws")
    _text(ax, 99.8, 52.8, "EKS Pod Identity", bold=True)
    _text(ax, 99.8, 50.1, "a role for each\nservice account:", size=FONT - 1.5, linespacing=1.25)
    _text(ax, 99.8, 45.2, "\n".join(inv.pod_identity), size=SMALL, linespacing=1.5)
    _box(ax, 19, 1.0, 100, 12.8, "aws")
    _text(ax, 20, 13.4, "model bucket (S3)", bold=True)
    _text(ax, 20, 10.8, "\n".join(inv.bucket_layout), size=SMALL + 0.5, family="monospace", linespacing=1.4)


def _flows(ax: Any) -> None:
    _arrow(ax, (22.9, 62.5), (16.8, 44.6), "NodeClaim", rotation=71, at=0.33)
    _arrow(ax, (17.2, 27.5), (43, 27.5), "launches, joins")
    _arrow(ax, (22.9, 56), (16.2, 54.4))
    _arrow(ax, (17.2, 50.0), (45, 38.5), "scrapes /metrics", at=0.45)
    _arrow(ax, (31.5, 51.9), (44.8, 48.5), "HPA: replicas", rotation=-15, at=0.45)
    _arrow(ax, (99, 64.5), (92.2, 64.5))
    _arrow(ax, (99, 42.4), (92.2, 42.4), "credentials", at=0.5)
    _arrow(ax, (85.5, 28.8), (85.5, 20.7), "weights, caches")
    _arrow(ax, (85.5, 16.1), (85.5, 14.0))


def title(inv: Inventory) -> str:
    keys = [c.added_by for c in (*inv.init_containers, *inv.containers) if c.added_by]
    named = ", ".join(dict.fromkeys(keys))
    return f"What the reference app deploys (dashed: what {named} add)"


def draw(inv: Inventory, path: Path) -> Any:
    """The architecture picture of `inv`; returns the matplotlib figure (also saved to `path`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(12, 8.4))
    ax.set_xlim(0, 120)
    ax.set_ylim(0, 84)
    ax.axis("off")
    _text(ax, 0.5, 84.5, title(inv), size=FONT + 0.5, bold=True)
    _aws_services(ax, inv)
    _cluster(ax, inv)
    _flows(ax)
    fig.tight_layout(pad=0.3)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, metadata={"Description": inv.described()})
    return fig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--png", type=Path, default=ROOT / "docs" / "architecture.png")
    args = parser.parse_args(argv)
    draw(inventory(), args.png)
    print(f"picture: {args.png}")
    return 0


if __name__ == "__main__":
    from fastload_constructs.jsii_node import use_packaged_node

    use_packaged_node()
    raise SystemExit(main())
