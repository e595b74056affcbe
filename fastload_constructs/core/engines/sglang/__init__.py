"""SGLang (`python3 -m sglang.launch_server`): the engine's launch (`launch`) and phases (`phases`)."""

from __future__ import annotations

from fastload_constructs.core.engines.base import Engine
from fastload_constructs.core.engines.sglang import launch, phases
from fastload_constructs.core.engines.sglang.phases import SglangFigures


class SglangEngine(Engine[SglangFigures], launch=launch):
    """SGLang's server, streaming weights with the Run:ai streamer like vLLM."""

    name = "sglang"
    display_name = "SGLang"
    abbreviated_flags = True
    # --enable-torch-compile. Capture sizes and an FP8 KV cache map to flags not yet checked against
    # SGLang's source: cap its capture with extra args (e.g. --cuda-graph-max-bs-decode 64).
    tuning_knobs = frozenset({"sglang_torch_compile"})
    # Standby engines sleep with vLLM's --enable-sleep-mode; FMA's launcher runs vLLM.
    supports_standbys = False
    # SGLang takes its key only as --api-key on the command line, which would sit in the manifest.
    api_key_env = None
    extra_args_example = "['--cuda-graph-max-bs-decode', '64']"
    figures_type = SglangFigures

    probes = staticmethod(launch.probes)
    loader_extra_config = staticmethod(launch.loader_extra_config)
    server_args = staticmethod(launch.sglang_args)
    server_env = staticmethod(launch.sglang_env)
    compile_factors = staticmethod(launch.compile_factors)
    predict = staticmethod(phases.predict)
    note = staticmethod(phases.note)
    phase_source = staticmethod(phases.phase_source)

    def streams_distributed(self, tensor_parallel_size: int, source: str) -> bool:
        """SGLang streams an object-store model distributed by default, straight to the GPU even at TP 1
        (0.5.23 srt/model_loader/loader.py:3997-3998, weight_utils.py:1663-1676): plan what it does."""
        return tensor_parallel_size > 1 or source == "s3"


SGLANG = SglangEngine()

__all__ = ["SGLANG", "SglangEngine", "SglangFigures"]
