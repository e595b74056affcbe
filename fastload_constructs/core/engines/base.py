"""The engine interface: what one inference server (vLLM, SGLang) decides for its own container and phases.

An `Engine` is the single source of everything that differs between servers: its image, command, flags,
environment, port, probes, cache paths, queue metrics and start-up phases. Everything else (the pod
around the container, node selection, caches and their sync, warm spares, the streamer's transfer) is
engine-neutral and asks the engine registered under the plan's engine name (`core.engines.ENGINES`).

Engines sit below planning: they read a plan through the protocols below (`LaunchPlan`), never import it.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from fastload_constructs.core.catalog import GpuInstance
from fastload_constructs.core.engines.args import check_arg_shape, normalised_flag
from fastload_constructs.core.engines.phases import (
    DeployedCapture,
    EngineFigures,
    PhaseEstimate,
    PhaseInputs,
    PhaseSource,
)
from fastload_constructs.core.errors import FastloadConfigError, require


@dataclass(frozen=True)
class HttpProbe:
    """An HTTP GET probe on the server port."""

    path: str
    period_seconds: int
    failure_threshold: int
    timeout_seconds: int

    @property
    def budget_seconds(self) -> int:
        return self.period_seconds * self.failure_threshold


Probes = tuple[HttpProbe, HttpProbe, HttpProbe]  # startup, readiness, liveness


class ProbeBudget(Protocol):
    """The plan's startup probe: period x failures covers the predicted start-up."""

    @property
    def period_seconds(self) -> int: ...

    @property
    def failure_threshold(self) -> int: ...


class StreamerPlan(Protocol):
    """The plan's Run:ai streamer settings."""

    @property
    def distributed(self) -> bool: ...

    def loader_extra_config(self) -> dict[str, object]: ...


class LaunchPlan(Protocol):
    """The parts of a `ServingPlan` an engine's command line reads."""

    @property
    def instance(self) -> GpuInstance: ...

    @property
    def tensor_parallel_size(self) -> int: ...

    @property
    def gpu_memory_utilization(self) -> float: ...

    @property
    def runtime_overhead_bytes(self) -> int: ...

    @property
    def streamer(self) -> StreamerPlan: ...

    @property
    def startup_probe(self) -> ProbeBudget: ...

    @property
    def max_model_len(self) -> int | None: ...

    @property
    def cudagraph_capture_sizes(self) -> tuple[int, ...] | None: ...

    @property
    def max_num_seqs(self) -> int | None: ...

    @property
    def kv_cache_dtype(self) -> str: ...

    @property
    def sglang_torch_compile(self) -> bool: ...


@dataclass(frozen=True)
class EngineLaunch:
    """What an engine decides about its container for one plan and model path.

    `env` holds the engine's own variables only; the pod adds the streamer's (`core.serving.streamer_env`).
    `compile_factors`: what besides the image, model, TP and GPU changes the compiled artifacts (part of
    the compile-cache key).
    """

    args: tuple[str, ...]
    env: Mapping[str, str]
    probes: Probes
    compile_factors: Mapping[str, str]


_RELEASE = re.compile(r"^v?(\d+)\.(\d+)(\.\d+)?([.+\-a-z0-9]*)$")


def release_numbers(version: object, field: str, accepted: str) -> tuple[int, int]:
    """(major, minor) of a release such as `0.34.0`, `v0.8.5` or `0.11.0rc1`; FastloadConfigError otherwise."""
    match = _RELEASE.match(version.strip()) if isinstance(version, str) else None
    require(match is not None, field, version, accepted)
    assert match is not None
    return int(match[1]), int(match[2])


FiguresT = TypeVar("FiguresT", bound=EngineFigures)

# What every engine's launch module declares (each constant checked against the engine's source there), by the
# `Engine` attribute it becomes: `class XEngine(Engine[XFigures], launch=launch)` reads them all.
LAUNCH_CONSTANTS: Mapping[str, str] = {
    "stock_repository": "STOCK_REPOSITORY",
    "default_release": "DEFAULT_RELEASE",
    "container_name": "CONTAINER_NAME",
    "port": "SERVER_PORT",
    "command": "SERVER_COMMAND",
    "cache_mount_path": "CACHE_MOUNT_PATH",
    "scaling_metrics": "SCALING_METRICS",
    "managed_flags": "MANAGED_FLAGS",
}


class Engine(ABC, Generic[FiguresT]):
    """One inference server: one subclass and one instance per engine, registered in `core.engines`.

    Attributes (each engine sets every one; `tests/test_engines.py` checks):
    `name` (cdk.json's `engine`, the pods' `app.kubernetes.io/name`), `display_name`, `stock_repository`
    and `default_release` (its default image), `container_name`, `port`, `command`, `cache_mount_path`
    (the compile-cache volume's mount), `scaling_metrics` (the autoscaling metric keys -> its Prometheus
    names), `managed_flags` (what the plan sets: refused in extra args), `abbreviated_flags` (its parser
    takes a unique prefix of a flag), `tuning_knobs` (the engine-specific `TuningOptions` it reads),
    `supports_standbys` (sleep mode for standby engines), `api_key_env` (the variable it reads its API
    key from, None: no such variable), `extra_args_example` (for messages), `figures_type` (its
    `EngineFigures`). The launch module's constants arrive with `launch=` (`LAUNCH_CONSTANTS`).
    """

    def __init_subclass__(cls, *, launch: object = None, **kwargs: object) -> None:
        """`launch`: the engine's launch module, whose constants (`LAUNCH_CONSTANTS`) become its attributes."""
        super().__init_subclass__(**kwargs)
        if launch is not None:
            for attribute, constant in LAUNCH_CONSTANTS.items():
                setattr(cls, attribute, getattr(launch, constant))

    name: str
    display_name: str
    stock_repository: str
    default_release: str
    container_name: str
    port: int
    command: tuple[str, ...]
    cache_mount_path: str
    scaling_metrics: Mapping[str, str]
    managed_flags: tuple[str, ...]
    abbreviated_flags: bool
    tuning_knobs: frozenset[str]
    supports_standbys: bool
    api_key_env: str | None
    extra_args_example: str
    figures_type: type[FiguresT]

    @property
    def default_image(self) -> str:
        """The stock image of the default release (its tag is the release the plan is made for)."""
        return f"{self.stock_repository}:v{self.default_release}"

    @property
    def default_figures(self) -> FiguresT:
        """The engine's cited figures (each field's default)."""
        return self.figures_type()

    def check_release(self, version: object, field: str) -> None:
        """Refuse what is no release of this engine."""
        release_numbers(version, field, f"a release of {self.display_name} such as {self.default_release}")

    def sets_managed_flag(self, arg: str) -> bool:
        """Whether `arg` sets a flag the plan owns (a unique prefix of one too, where the parser takes it)."""
        flag = normalised_flag(arg)
        if flag in self.managed_flags:
            return True
        prefix = self.abbreviated_flags and flag.startswith("--") and len(flag) > 3
        return prefix and any(m.startswith(flag) for m in self.managed_flags)

    def check_extra_args(self, extra_args: object, field: str = "extra_args") -> tuple[str, ...]:
        """Extra server arguments: the shape every engine needs, and no flag the plan sets."""
        args = check_arg_shape(extra_args, field, self.extra_args_example)
        managed = ", ".join(self.managed_flags) + (" or their prefixes" if self.abbreviated_flags else "")
        for i, arg in enumerate(args):
            require(
                not self.sets_managed_flag(arg),
                f"{field}[{i}]",
                arg,
                f"{self.display_name} flags other than {managed} (those come from the plan)",
            )
        return args

    def streams_distributed(self, tensor_parallel_size: int, source: str) -> bool:
        """Whether the streamer runs distributed when the options leave it to the engine: with TP > 1."""
        return tensor_parallel_size > 1

    def figures(self, figures: EngineFigures) -> FiguresT:
        """`figures` as this engine's own; FastloadConfigError when they are another engine's."""
        if not isinstance(figures, self.figures_type):
            raise FastloadConfigError(
                f"assumptions.engine_figures.{self.name}", type(figures).__name__, self.figures_type.__name__
            )
        return figures

    def launch(
        self, plan: LaunchPlan, *, model_path: str, served_model_name: str, extra_args: Sequence[str] = ()
    ) -> EngineLaunch:
        """The server's arguments, its own environment, probes and compile factors for `plan`.

        `model_path`: the s3:// URI or the node-local copy's folder; `extra_args`: the user's, refused
        when they set a flag the plan owns.
        """
        extra = self.check_extra_args(extra_args)
        args = self.server_args(plan, model_path=model_path, served_model_name=served_model_name, extra_args=extra)
        env = self.server_env()
        return EngineLaunch(
            args=args, env=env, probes=self.probes(plan.startup_probe), compile_factors=self.compile_factors(args, env)
        )

    def predict_phases(self, inputs: PhaseInputs) -> PhaseEstimate:
        """Seconds per start-up phase: the streamer's transfer plus the engine's own costs."""
        return self.predict(inputs, self.figures(inputs.figures))

    def deployed_capture(self, inputs: PhaseInputs) -> DeployedCapture | None:
        """The CUDA graphs the pod captures, where the engine's plan names them (None: it does not)."""
        return None

    def phase_note(self, inputs: PhaseInputs, predicted: PhaseEstimate) -> str:
        """The plan's line about the engine's compile and CUDA graphs, and what it does not model."""
        return self.note(inputs, predicted, self.figures(inputs.figures))

    @abstractmethod
    def probes(self, budget: ProbeBudget) -> Probes:
        """(startup, readiness, liveness) on the server's own endpoints; startup within the plan's budget."""

    @abstractmethod
    def loader_extra_config(self, streamer: StreamerPlan) -> dict[str, object]:
        """The `--model-loader-extra-config` the server is given (the plan's streamer settings)."""

    @abstractmethod
    def server_args(
        self, plan: LaunchPlan, *, model_path: str, served_model_name: str, extra_args: Sequence[str]
    ) -> tuple[str, ...]:
        """The arguments after `command`, ending with `extra_args` (already checked)."""

    @abstractmethod
    def server_env(self) -> dict[str, str]:
        """The engine's own environment variables (its cache roots)."""

    @abstractmethod
    def compile_factors(self, args: Sequence[str], env: Mapping[str, str]) -> dict[str, str]:
        """What besides the image, model, TP and GPU can change the engine's compiled artifacts."""

    @abstractmethod
    def predict(self, inputs: PhaseInputs, figures: FiguresT) -> PhaseEstimate:
        """The phases from the engine's own figures (`predict_phases` resolves them)."""

    @abstractmethod
    def note(self, inputs: PhaseInputs, predicted: PhaseEstimate, figures: FiguresT) -> str:
        """The phase note from the engine's own figures (`phase_note` resolves them)."""

    @abstractmethod
    def phase_source(self, phase: str, *, warm_compile: bool) -> PhaseSource | None:
        """Where the engine's figure for `phase` comes from (None: a phase the engine does not own)."""


__all__ = [
    "LAUNCH_CONSTANTS",
    "Engine",
    "EngineLaunch",
    "HttpProbe",
    "LaunchPlan",
    "ProbeBudget",
    "Probes",
    "StreamerPlan",
    "release_numbers",
]
