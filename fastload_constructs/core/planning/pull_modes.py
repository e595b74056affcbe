"""How the server image gets onto a new node (pure): plain, parallel, lazy or snapshot, one row each.

- plain: containerd pulls and unpacks the layers one by one (kubelet's "Successfully pulled image").
- parallel: SOCI parallel pull and unpack (AL2023 nodeadm `FastImagePull`).
- lazy: SOCI index lazy loading: the container starts at once and fetches file contents when they
  are read, so the cost moves into the engine's imports.
- snapshot: the image is already in containerd's store on a data volume restored from an EBS snapshot
  (`core.cluster.image_cache`; docs/gpu-nodes.md "Image snapshot" for the construct that builds it). How
  fast it reads depends on the restore mode: Fast Snapshot Restore (`fsr`, initialized at creation), a
  provisioned initialization rate (`rate`), or lazy loading from S3 (`lazy`).

Each mode's seconds come from `LoadAssumptions` (cited there).
"""

from __future__ import annotations

from typing import Literal

from fastload_constructs.core.cluster.image_cache import MAX_INITIALIZATION_RATE_MIBPS, RestoreMode
from fastload_constructs.core.planning.assumptions import MB, LoadAssumptions

PullMode = Literal["plain", "parallel", "lazy", "snapshot"]
PULL_MODES: tuple[PullMode, ...] = ("plain", "parallel", "lazy", "snapshot")


def effective_pull_mode(pull_mode: PullMode | None, fast_image_pull: bool) -> PullMode:
    """The mode a plan uses: the one given, else parallel with FastImagePull, else the snapshot the reference
    stack builds (`infra.node_image_snapshot.NodeImageSnapshot`)."""
    if pull_mode is not None:
        return pull_mode
    return "parallel" if fast_image_pull else "snapshot"


def snapshot_image_seconds(
    restore: RestoreMode, image_bytes: int, a: LoadAssumptions, *, rate_mibps: int | None = None, hydrated: bool = False
) -> float:
    """Seconds until the container runs from a snapshot-restored volume: FSR's bound; a provisioned rate's
    measured time, in proportion to the rate; lazy loading's first-touch rate over the image. `hydrated`: the
    volume had time to load (a node that has been up), which FSR and a provisioned rate guarantee and lazy
    loading never does (blocks load only when read)."""
    if restore == "fsr" or (hydrated and restore == "rate"):
        return a.snapshot_image_s
    if restore == "rate":
        rate = rate_mibps if rate_mibps is not None else MAX_INITIALIZATION_RATE_MIBPS
        return a.snapshot_rate_image_s * a.snapshot_rate_reference_mibps / rate
    return image_bytes / (a.snapshot_lazy_mb_s * MB)


def image_phases(
    mode: PullMode,
    image_bytes: int,
    a: LoadAssumptions,
    *,
    restore: RestoreMode = "fsr",
    rate_mibps: int | None = None,
    hydrated: bool = False,
) -> tuple[tuple[str, float], ...]:
    """A new node's image phases for `mode`: `image_pull`, and for lazy loading `lazy_imports`."""
    if mode == "plain":
        return (("image_pull", image_bytes / (a.image_pull_mb_s * MB)),)
    if mode == "parallel":
        return (("image_pull", image_bytes / (a.image_pull_mb_s * a.fast_image_pull_speedup * MB)),)
    if mode == "lazy":
        return (("image_pull", a.lazy_image_pull_s), ("lazy_imports", a.lazy_import_extra_s))
    seconds = snapshot_image_seconds(restore, image_bytes, a, rate_mibps=rate_mibps, hydrated=hydrated)
    return (("image_pull", seconds),)


def describe_pull_mode(mode: PullMode, restore: RestoreMode = "fsr") -> str:
    restores = {
        "fsr": "Fast Snapshot Restore",
        "rate": "a provisioned initialization rate",
        "lazy": "lazy loading from S3",
    }
    return {
        "plain": "plain containerd pull",
        "parallel": "SOCI parallel pull (FastImagePull)",
        "lazy": "SOCI lazy loading (imports fetch on demand)",
        "snapshot": f"image on an EBS snapshot data volume, {restores[restore]}",
    }[mode]
