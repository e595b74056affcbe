"""How the vLLM image gets onto a fresh node (pure): plain, parallel, lazy or snapshot, one row each.

- plain: containerd pulls and unpacks the layers one by one (kubelet's "Successfully pulled image").
- parallel: SOCI parallel pull and unpack (nodeadm `FastImagePull`, what the reference stack sets).
- lazy: SOCI index lazy loading: the container starts at once and fetches file contents when they
  are read, so the cost moves into vLLM's imports.
- snapshot: the image is already in containerd's store on a data volume restored from an EBS
  snapshot (with Fast Snapshot Restore, so its blocks need no first-read hydration); see
  `core.cluster.image_cache` for the volume and docs/gpu-nodes.md "Image cache snapshot" for the job that builds it.

Each mode's seconds come from `LoadAssumptions` (cited there).
"""

from __future__ import annotations

from typing import Literal

from fastload_constructs.core.planning.assumptions import MB, LoadAssumptions

PullMode = Literal["plain", "parallel", "lazy", "snapshot"]
PULL_MODES: tuple[PullMode, ...] = ("plain", "parallel", "lazy", "snapshot")


def effective_pull_mode(pull_mode: PullMode | None, fast_image_pull: bool) -> PullMode:
    """The mode a plan uses: the one given, else parallel with FastImagePull and plain without."""
    if pull_mode is not None:
        return pull_mode
    return "parallel" if fast_image_pull else "plain"


def image_phases(mode: PullMode, image_bytes: int, a: LoadAssumptions) -> tuple[tuple[str, float], ...]:
    """The fresh node's image phases for `mode`: `image_pull`, and for lazy loading `lazy_imports`."""
    if mode == "plain":
        return (("image_pull", image_bytes / (a.image_pull_mb_s * MB)),)
    if mode == "parallel":
        return (("image_pull", image_bytes / (a.image_pull_mb_s * a.fast_image_pull_speedup * MB)),)
    if mode == "lazy":
        return (("image_pull", a.lazy_image_pull_s), ("lazy_imports", a.lazy_import_extra_s))
    return (("image_pull", a.snapshot_image_s),)


def describe_pull_mode(mode: PullMode) -> str:
    return {
        "plain": "plain containerd pull",
        "parallel": "SOCI parallel pull (FastImagePull)",
        "lazy": "SOCI lazy loading (imports fetch on demand)",
        "snapshot": "image on an EBS snapshot data volume",
    }[mode]
