"""What every engine's phase model takes and gives: seconds per start-up phase of one server pod.

The planner works out what does not depend on the engine (the Run:ai streamer's transfer of the weights
over the narrowest pipe, `core.planning.phases`) and hands it to the engine with the model, the GPU and
the options; the engine adds its own costs (process start, model set-up around the stream, compile,
CUDA graphs, KV cache and server) from its own cited figures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from fastload_constructs.core.catalog import GpuInstance
from fastload_constructs.core.model import ModelProfile

# How a phase's figure was obtained: fitted to published start-ups, measured by a publication of that step,
# modelled from a component's published throughput, or a prior that no published row isolates.
Basis = Literal["fitted", "measured", "prior", "model"]


@dataclass(frozen=True)
class PhaseSource:
    """One phase's figure: how it was obtained, what it rests on, and where to check it."""

    basis: Basis
    text: str
    urls: tuple[str, ...]

    def line(self, phase: str, seconds: float) -> str:
        return f"{phase} {seconds:.1f} s ({self.basis}): {self.text}; " + " ".join(self.urls)


@dataclass(frozen=True)
class PhaseEstimate:
    """Predicted seconds per start-up phase of the pod; `total_s` is their sum."""

    process_start_s: float
    weight_load_s: float
    compile_s: float
    cuda_graph_s: float
    kv_and_server_s: float
    load_throughput_mb_s: float

    @property
    def total_s(self) -> float:
        return self.process_start_s + self.weight_load_s + self.compile_s + self.cuda_graph_s + self.kv_and_server_s

    @property
    def dominant_phase(self) -> str:
        phases = {
            "process_start": self.process_start_s,
            "weight_load": self.weight_load_s,
            "compile": self.compile_s,
            "cuda_graph": self.cuda_graph_s,
            "kv_and_server": self.kv_and_server_s,
        }
        return max(phases, key=phases.__getitem__)


@dataclass(frozen=True)
class DeployedCapture:
    """The CUDA graphs a pod captures, as the plan states them: the batch sizes, how many graphs they make
    (FULL_AND_PIECEWISE doubles some) and the max_num_seqs the engine runs with."""

    sizes: tuple[int, ...]
    graphs: int
    max_num_seqs: int


@dataclass(frozen=True)
class EngineFigures:
    """An engine's fixed costs and per-unit rates, each field with its cited source (one subclass per engine).

    `LoadAssumptions.engine_figures` carries calibrated ones by engine name; an engine without them uses
    its defaults (the subclass's field defaults).
    """


class TuningKnobs(Protocol):
    """The `TuningOptions` an engine's phases read (each engine reads the knobs it supports)."""

    @property
    def cudagraph_capture_sizes(self) -> tuple[int, ...] | None: ...

    @property
    def max_num_seqs(self) -> int | None: ...

    @property
    def sglang_torch_compile(self) -> bool: ...


@dataclass(frozen=True)
class PhaseInputs:
    """What an engine's phase model needs about one start-up.

    `transfer_s` and `transfer_mb_s` are the streamer's transfer of the weights onto the GPUs (or a
    calibrated throughput), without the engine's own set-up around it; `instance` None: the GPU is not
    known (calibration from a log of an instance type outside the catalog); `tensor_parallel_size`: the
    ranks the model is split over.
    """

    model: ModelProfile
    instance: GpuInstance | None
    release: str
    options: TuningKnobs
    figures: EngineFigures
    warm_compile: bool
    transfer_s: float
    transfer_mb_s: float
    tensor_parallel_size: int = 1


__all__ = ["Basis", "DeployedCapture", "EngineFigures", "PhaseEstimate", "PhaseInputs", "PhaseSource", "TuningKnobs"]
