"""vLLM (`vllm serve`): the engine's launch (`launch`), release families (`releases`) and phases (`phases`)."""

from __future__ import annotations

from fastload_constructs.core.engines.base import Engine
from fastload_constructs.core.engines.phases import PhaseEstimate, PhaseInputs
from fastload_constructs.core.engines.vllm import launch, phases
from fastload_constructs.core.engines.vllm.phases import VllmFigures
from fastload_constructs.core.engines.vllm.releases import release_family


class VllmEngine(Engine[VllmFigures], launch=launch):
    """vLLM's OpenAI-compatible server, streaming weights with the Run:ai streamer."""

    name = "vllm"
    display_name = "vLLM"
    abbreviated_flags = False
    tuning_knobs = frozenset({"cudagraph_capture_sizes", "kv_cache_dtype", "max_num_seqs"})
    # Standby engines sleep with vLLM's --enable-sleep-mode (core/serving/standby.py).
    supports_standbys = True
    api_key_env = launch.API_KEY_ENV
    extra_args_example = "['--max-num-seqs', '64']"
    figures_type = VllmFigures

    probes = staticmethod(launch.probes)
    loader_extra_config = staticmethod(launch.loader_extra_config)
    server_args = staticmethod(launch.vllm_args)
    server_env = staticmethod(launch.vllm_env)
    compile_factors = staticmethod(launch.compile_factors)
    predict = staticmethod(phases.predict)
    deployed_capture = staticmethod(phases.deployed_capture)
    phase_source = staticmethod(phases.phase_source)

    def check_release(self, version: object, field: str) -> None:
        release_family(version, field)

    def note(self, inputs: PhaseInputs, predicted: PhaseEstimate, figures: VllmFigures) -> str:
        return phases.note(inputs, predicted)


VLLM = VllmEngine()

__all__ = ["VLLM", "VllmEngine", "VllmFigures"]
