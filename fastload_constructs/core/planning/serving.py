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
from typing import Any, Literal

from fastload_constructs.core.engines import DEFAULT_ENGINE, ENGINES, engine_named
from fastload_constructs.core.engines.base import Engine
from fastload_constructs.core.errors import one_of, require, whole_number_in
from fastload_constructs.core.images import image_repository, tagged_release
from fastload_constructs.core.planning.pull_modes import PULL_MODES, PullMode, effective_pull_mode
from fastload_constructs.core.planning.standby import check_standbys

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


@dataclass(frozen=True)
class Serving:
    """How one model is served. Every field is checked here, once.

    - `engine`: `vllm` or `sglang` (`core.engines.ENGINE_NAMES`), the server the pods run. Default: `vllm`.
    - `image`: the pinned server image (`latest` refused). Its tag is the engine release the
      plan is made for (`vllm/vllm-openai:v0.8.5` plans 0.8.5's compile and CUDA-graph behaviour).
      Default: `vllm/vllm-openai:v0.34.0`; with `engine="sglang"`, `lmsysorg/sglang:v0.5.23`.
    - `engine_release`: the engine's release, only for an image whose tag names none (a digest, a
      custom tag). Default: None, read from the tag.
    - `model_cache`: `s3` (stream from S3) or `node-local` (copy to the node's NVMe once, stream
      from there). Default: `s3`.
    - `shared_compile_cache`: restore torch.compile's cache from S3 on a fresh node and publish it.
      Default: False.
    - `warm_spares`: placeholder pods of the model's shape holding a GPU node path-ready. Default: 0.
    - `fast_image_pull`: the nodes pull with nodeadm FastImagePull (SOCI parallel pull and unpack).
      Default: True.
    - `pull_mode`: how the image reaches a fresh node, `plain`, `parallel` (SOCI parallel pull), `lazy`
      (SOCI lazy loading) or `snapshot` (an EBS snapshot data volume holding the image,
      core.cluster.image_cache); see core.planning.pull_modes. Default: None, `parallel` with
      `fast_image_pull` and `plain` without. When given, `fast_image_pull` must be True for `parallel`
      and False for the others (with a snapshot the SOCI snapshotter would unpack the image again).
    - `standbys`: sleeping vLLM engines woken on scale-out, on FMA (planning/standby.py for the path and
      its idle cost, serving/standby.py for the objects). All replicas of the model then run through FMA.
      Default: 0.
    """

    image: str = DEFAULT_IMAGE
    engine_release: str | None = None
    model_cache: ModelCache = "s3"
    shared_compile_cache: bool = False
    warm_spares: int = 0
    fast_image_pull: bool = True
    pull_mode: PullMode | None = None
    standbys: int = 0
    engine: str = DEFAULT_ENGINE.name

    def __post_init__(self) -> None:
        engine = engine_named(self.engine, "serving.engine")
        if self.image == DEFAULT_IMAGE:
            # The default image is the engine's: an SGLang model never runs the vLLM image by default.
            object.__setattr__(self, "image", engine.default_image)
        # Another engine's stock image would run this engine's command in it, and the plan would read its
        # tag as this engine's release.
        repository = image_repository(self.image) if isinstance(self.image, str) else None
        for other in ENGINES.values():
            require(
                other is engine or other.stock_repository != repository,
                "image",
                self.image,
                f"an image of engine {self.engine!r} ({repository} is {other.display_name}'s stock image: set "
                "engine= or another image)",
            )
        self._check_release(engine)
        one_of("serving.model_cache", self.model_cache, MODEL_CACHE_MODES)
        for name in ("shared_compile_cache", "fast_image_pull"):
            value = getattr(self, name)
            require(isinstance(value, bool), f"serving.{name}", value, "True or False")
        check_spares(self.warm_spares, "serving.warm_spares")
        if self.pull_mode is not None:
            one_of("serving.pull_mode", self.pull_mode, PULL_MODES)
            parallel = self.pull_mode == "parallel"
            require(
                self.fast_image_pull == parallel,
                "serving.fast_image_pull",
                self.fast_image_pull,
                f"{parallel} with pull_mode {self.pull_mode} (FastImagePull is the parallel pull; with a snapshot "
                "its SOCI snapshotter would unpack the cached image again)",
            )
        check_standbys(self.standbys, "serving.standbys")
        require(
            self.standbys == 0 or self.warm_spares == 0,
            "serving.standbys",
            self.standbys,
            "0 with warm_spares (a standby already holds the engine warm; choose one)",
        )
        require(
            engine.supports_standbys or self.standbys == 0,
            "serving.standbys",
            self.standbys,
            f"0 with engine {self.engine!r} (standby engines sleep with vLLM's --enable-sleep-mode)",
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
                f"(e.g. engine_release={engine.default_release!r})",
            )
        else:
            engine.check_release(self.engine_release, "serving.engine_release")
            require(
                tagged is None or tagged == self.engine_release.lstrip("v"),
                "serving.engine_release",
                self.engine_release,
                f"None: the image tag already names {engine.display_name} {tagged}",
            )

    @property
    def image_pull_mode(self) -> PullMode:
        """The pull mode planned: `pull_mode`, else parallel with FastImagePull and plain without."""
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
