"""How a model is served: the choices that change what a new replica's start-up does, made once.

`Serving` is given to the planner once (`TuningOptions(serving=...)`) and recorded on
the plan (`plan.serving`). Everything downstream derives from the plan: the server
chart's engine, image, model path and cache containers, the warm spares `ServedModel`
applies, the nodes' image-pull setting in the reference stack. Nothing is entered twice,
so a plan that predicts a warm-spare path always comes with its spares, and a Deployment
built from an image tag is planned for that image's engine release.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from fastload_constructs.core.cluster.ami_family import AMI_FAMILIES, DEFAULT_AMI_FAMILY, AmiFamily, node_os
from fastload_constructs.core.cluster.image_cache import DEFAULT_RESTORE_MODE, RESTORE_MODES, RestoreMode
from fastload_constructs.core.engines import DEFAULT_ENGINE, ENGINE_NAMES, ENGINES, engine_named
from fastload_constructs.core.engines.base import Engine, release_numbers
from fastload_constructs.core.errors import choice, example, mention, require, whole_number_in
from fastload_constructs.core.images import image_repository, image_tag, tagged_release
from fastload_constructs.core.planning.node_paths import MAX_BUFFERED_NODES, check_buffered_nodes
from fastload_constructs.core.planning.pull_modes import PULL_MODES, PullMode, effective_pull_mode
from fastload_constructs.core.planning.standby import MAX_STANDBYS, check_standbys
from fastload_constructs.core.settings import Flag, Key, boolean, check_settings, one_of_choices, optional, setting

ModelCache = Literal["s3", "node-local"]
MODEL_CACHE_MODES: tuple[str, ...] = ("s3", "node-local")
StreamSource = Literal["s3", "local"]
# The default engine's stock image: with another engine, that engine's default image instead.
DEFAULT_IMAGE = DEFAULT_ENGINE.default_image

# Warm spares per model: one bound for the planner's costing, cdk.json, ServedModel and the chart.
MAX_WARM_SPARES = 1000


def check_spares(value: object, field: str = "warm_spares") -> int:
    """A count of warm spares (placeholder GPU pods): a whole number from 0 to MAX_WARM_SPARES."""
    return whole_number_in(value, field, 0, MAX_WARM_SPARES)


def _image(value: object, name: str) -> str:
    image_tag(value, name)  # pinned, not latest
    assert isinstance(value, str)
    return value


def _release(value: object, name: str) -> str:
    accepted = " or ".join(f"{e.default_release} ({e.display_name})" for e in ENGINES.values())
    release_numbers(value, name, f"an engine release such as {accepted}")
    assert isinstance(value, str)
    return value


def _engine(value: object, name: str) -> str:
    return engine_named(value, name).name


def _node_local(value: object, name: str) -> str:
    """cdk.json's `nodeLocalModelCache: true` is the `node-local` model cache."""
    return "node-local" if boolean(value, name) else "s3"


def _source(text: str, name: str) -> str:
    """The command line's `--source local` is the `node-local` model cache."""
    return "node-local" if choice(text, name, ("s3", "local")) == "local" else "s3"


@dataclass(frozen=True)
class Serving:
    """How one model is served. Every field is a `core.settings.Setting`, checked here, once."""

    settings_prefix: ClassVar[str] = "serving."

    image: str = setting(
        DEFAULT_IMAGE,
        check=_image,
        accepted="a pinned image reference (not latest)",
        doc="The pinned server image; its tag is the engine release planned for (another engine: its own).",
        key="image",
        flag="--image",
        error_name="image",  # as every image check names it (core.images)
    )
    """The pinned server image (`latest` refused). Its tag is the engine release the plan is made for
    (`vllm/vllm-openai:v0.8.5` plans 0.8.5's compile and CUDA-graph behaviour). Default:
    `vllm/vllm-openai:v0.34.0`; with `engine="sglang"`, `lmsysorg/sglang:v0.5.23`."""
    engine_release: str | None = setting(
        check=optional(_release),
        accepted="a release such as 0.34.0",
        doc="The image's engine release, only when its tag names none (a digest).",
        key=Key("engineRelease", former="vllmVersion"),
        flag=Flag("--engine-release", former="--vllm-version"),
    )
    """The engine's release, only for an image whose tag names none (a digest, a custom tag). Default: None,
    read from the tag."""
    model_cache: ModelCache = setting(
        "s3",
        check=one_of_choices(MODEL_CACHE_MODES),
        accepted="s3 or node-local",
        doc="Where the streamer reads weights: S3, or a node-local NVMe copy made once per node.",
        key=Key("nodeLocalModelCache", read=_node_local, accepted="true (node-local) or false (s3)", default=False),
        flag=Flag("--source", read=_source, choices=("s3", "local")),
        choices=MODEL_CACHE_MODES,
    )
    """`s3` (stream from S3) or `node-local` (copy to the node's NVMe once, stream from there). Default: `s3`."""
    shared_compile_cache: bool = setting(
        False,
        check=boolean,
        accepted="true or false",
        doc="Restore torch.compile's cache from S3 on fresh nodes, and publish it.",
        key="sharedCompileCache",
        flag="--shared-compile-cache",
        kind=bool,
    )
    """Restore torch.compile's cache from S3 on a fresh node and publish it. Default: False."""
    warm_spares: int = setting(
        0,
        check=check_spares,
        accepted=f"a whole number from 0 to {MAX_WARM_SPARES}",
        doc="Placeholder pods holding a GPU node path-ready (warm headroom).",
        key="warmSpares",
        flag="--warm-spares",
        kind=int,
    )
    """Placeholder pods of the model's shape holding a GPU node path-ready. Default: 0."""
    fast_image_pull: bool = setting(
        False,
        check=boolean,
        accepted="true or false",
        doc="AL2023 nodeadm FastImagePull (SOCI parallel pull) on the node: the parallel pull mode.",
        flag="--fast-image-pull/--no-fast-image-pull",
        kind=bool,
    )
    """The AL2023 nodes pull with nodeadm FastImagePull (SOCI parallel pull and unpack), which is the `parallel`
    pull mode. Default: False (the image comes on a snapshot)."""
    pull_mode: PullMode | None = setting(
        check=optional(one_of_choices(PULL_MODES)),
        accepted=" or ".join(PULL_MODES),
        doc="How the image reaches a fresh node (default: snapshot, or parallel with --fast-image-pull).",
        flag="--pull-mode",
        choices=PULL_MODES,
    )
    """How the image reaches a fresh node, `plain`, `parallel` (SOCI parallel pull), `lazy` (SOCI lazy
    loading) or `snapshot` (an EBS snapshot data volume holding the image, core.cluster.image_cache); see
    core.planning.pull_modes. When given, `fast_image_pull` must be True for `parallel` and False for the
    others (with a snapshot the SOCI snapshotter would unpack the image again); `parallel` and `lazy` are
    SOCI's, on AL2023 nodes only. Default: None, `parallel` with `fast_image_pull`, else `snapshot`."""
    ami_family: AmiFamily = setting(
        DEFAULT_AMI_FAMILY,
        check=one_of_choices(AMI_FAMILIES),
        accepted=" or ".join(AMI_FAMILIES),
        doc="The GPU nodes' OS: Bottlerocket NVIDIA (device plugin built in) or AL2023 NVIDIA.",
        flag="--ami",
        choices=AMI_FAMILIES,
    )
    """The OS of the GPU nodes the pods land on (`core.cluster.ami_family`): `bottlerocket` (its NVIDIA
    variant runs the device plugin itself) or `al2023` (the plugin is a DaemonSet pulled after the node joins).
    It decides the fresh node's phases and where the node-local caches live. Default: `bottlerocket`."""
    image_restore: RestoreMode = setting(
        DEFAULT_RESTORE_MODE,
        check=one_of_choices(RESTORE_MODES),
        accepted=" or ".join(RESTORE_MODES),
        doc="How a snapshot-restored image volume loads: fsr (Fast Snapshot Restore), rate (provisioned), lazy.",
        flag="--restore-mode",
        choices=RESTORE_MODES,
    )
    """With the snapshot pull mode, how the restored volume's blocks arrive (`core.cluster.image_cache`): `fsr`
    (Fast Snapshot Restore: initialized at creation, billed per Availability Zone hour, limited credits),
    `rate` (a provisioned initialization rate, 300 MiB/s, paid per volume) or `lazy` (from S3 on first read).
    Default: `fsr`."""
    buffered_nodes: int = setting(
        0,
        check=check_buffered_nodes,
        accepted=f"a whole number from 0 to {MAX_BUFFERED_NODES}",
        doc="GPU nodes Karpenter keeps up and empty for this model's pod (a CapacityBuffer).",
        key="bufferedNodes",
        flag="--buffered-nodes",
        kind=int,
    )
    """GPU nodes Karpenter keeps launched and empty for this model's pod shape (a CapacityBuffer,
    `core.serving.capacity_buffer`): a new replica there pays only the image and its own start. Each costs
    its GPUs all day. Default: 0."""
    standbys: int = setting(
        0,
        check=check_standbys,
        accepted=f"a whole number from 0 to {MAX_STANDBYS}",
        doc="Sleeping vLLM engines woken on scale-out (FMA): add the standby path and its idle cost.",
        key="standbys",
        flag="--standbys",
        kind=int,
    )
    """Sleeping vLLM engines woken on scale-out, on FMA (planning/standby.py for the path and its idle cost,
    serving/standby.py for the objects). All replicas of the model then run through FMA. Default: 0."""
    engine: str = setting(
        DEFAULT_ENGINE.name,
        check=_engine,
        accepted=" or ".join(ENGINE_NAMES),
        doc="The server the pods run.",
        key="engine",
        flag="--engine",
        choices=ENGINE_NAMES,
    )
    """`vllm` or `sglang` (`core.engines.ENGINE_NAMES`), the server the pods run. Default: `vllm`."""

    def __post_init__(self) -> None:
        check_settings(self)
        engine = engine_named(self.engine)
        if self.image == DEFAULT_IMAGE:
            # The default image is the engine's: an SGLang model never runs the vLLM image by default.
            object.__setattr__(self, "image", engine.default_image)
        # Another engine's stock image would run this engine's command in it, and the plan would read its
        # tag as this engine's release.
        repository = image_repository(self.image)
        for other in ENGINES.values():
            require(
                other is engine or other.stock_repository != repository,
                "image",
                self.image,
                f"an image of engine {self.engine!r} ({repository} is {other.display_name}'s stock image: "
                f"use {example('serving.engine', other.name)} or another image)",
            )
        self._check_release(engine)
        self._check_pull_mode()
        require(
            self.standbys == 0 or self.warm_spares == 0,
            "serving.standbys",
            self.standbys,
            f"0 with {mention('serving.warm_spares')} (a standby already holds the engine warm; choose one)",
        )
        require(
            engine.supports_standbys or self.standbys == 0,
            "serving.standbys",
            self.standbys,
            f"0 with engine {self.engine!r} (standby engines sleep with vLLM's --enable-sleep-mode)",
        )

    def _check_pull_mode(self) -> None:
        """A pull mode given decides FastImagePull: on for the parallel pull only; SOCI's modes on AL2023 only."""
        soci = self.image_pull_mode in ("parallel", "lazy")
        require(
            not soci or node_os(self.ami_family).supports_fast_image_pull,
            "serving.pull_mode" if self.pull_mode is not None else "serving.fast_image_pull",
            self.pull_mode if self.pull_mode is not None else self.fast_image_pull,
            f"snapshot or plain on {self.ami_family} nodes (SOCI's parallel and lazy pulls are AL2023 nodeadm "
            f"features: {example('serving.ami_family', 'al2023')} for them)",
        )
        if self.pull_mode is None:
            return
        parallel = self.pull_mode == "parallel"
        require(
            self.fast_image_pull == parallel,
            "serving.fast_image_pull",
            self.fast_image_pull,
            f"{parallel} with {mention('serving.pull_mode')} {self.pull_mode} (FastImagePull is the parallel pull; "
            "with a snapshot its SOCI snapshotter would unpack the cached image again)",
        )

    def _check_release(self, engine: Engine[Any]) -> None:
        """The release planned for: the image tag's, else `engine_release`; never both, never two different."""
        tagged = tagged_release(self.image)
        if self.engine_release is None:
            require(
                tagged is not None,
                "serving.engine_release",
                None,
                f"the {engine.display_name} release of {self.image!r}, whose tag names none "
                f"(e.g. {example('serving.engine_release', engine.default_release)})",
            )
        else:
            require(
                tagged is None or tagged == self.engine_release.lstrip("v"),
                "serving.engine_release",
                self.engine_release,
                f"None: the image tag already names {engine.display_name} {tagged}",
            )

    @property
    def image_pull_mode(self) -> PullMode:
        """The pull mode planned: `pull_mode`, else parallel with FastImagePull and the snapshot without."""
        return effective_pull_mode(self.pull_mode, self.fast_image_pull)

    @property
    def engine_version(self) -> str:
        """The engine release this model runs (vLLM's, or SGLang's): the image tag's, else `engine_release`."""
        version = self.engine_release if self.engine_release is not None else tagged_release(self.image)
        assert version is not None  # __post_init__ refused an image without one
        return version.lstrip("v")

    @property
    def stream_source(self) -> StreamSource:
        """Where the serving pod's streamer reads weights from."""
        return "local" if self.model_cache == "node-local" else "s3"


__all__ = [
    "DEFAULT_IMAGE",
    "MAX_WARM_SPARES",
    "MODEL_CACHE_MODES",
    "ModelCache",
    "Serving",
    "StreamSource",
    "check_spares",
]
