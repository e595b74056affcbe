"""The model's size as the server_args line states it, to check the "mem usage" SGLang prints against.

The parameter count comes from the model's name ("Llama-3.1-70B-Instruct": 70e9; "Nemotron-3-Super-120B-A12B":
120e9, its active count A12B aside); the bytes per parameter from the quantization the name or the arguments
give (4-bit: NVFP4, MXFP4, AWQ, GPTQ, INT4, W4A16; 8-bit: FP8, INT8, W8A8), else the dtype (bfloat16 and
float16, and SGLang's default "auto": 2 bytes; float32: 4). A name without a count gives no size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from fastload_constructs.coldstart.figures import GIB
from fastload_constructs.coldstart.sglang.patterns import (
    MODEL_DTYPE,
    MODEL_PATH,
    MODEL_QUANTIZATION,
    PARAMETERS_IN_NAME,
)

_FOUR_BIT = re.compile(r"fp4|awq|gptq|int4|w4a\d+|4bit", re.IGNORECASE)
_EIGHT_BIT = re.compile(r"fp8|int8|w8a8|8bit", re.IGNORECASE)
_DTYPE_BYTES = {"float32": 4.0, "float": 4.0}


@dataclass(frozen=True)
class ModelSize:
    """The size the server args state: parameters, bytes each, and what they were read from."""

    parameters: float
    bytes_per_parameter: float
    said: str  # "120B parameters in 4 bits (nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4)"

    @property
    def gib(self) -> float:
        return self.parameters * self.bytes_per_parameter / GIB


def model_size(server_args: str | None) -> ModelSize | None:
    """The model's size from the server_args line; None when its name states no parameter count."""
    path = MODEL_PATH.search(server_args or "")
    if server_args is None or path is None:
        return None
    name = path["path"].rstrip("/").rsplit("/", 1)[-1]
    counts = PARAMETERS_IN_NAME.findall(name)
    if not counts:
        return None
    quantization = MODEL_QUANTIZATION.search(server_args)
    dtype = MODEL_DTYPE.search(server_args)
    precision = f"{name} {quantization['quantization'] if quantization else ''}"
    if _FOUR_BIT.search(precision):
        width, said = 0.5, "4 bits"
    elif _EIGHT_BIT.search(precision):
        width, said = 1.0, "8 bits"
    else:
        width = _DTYPE_BYTES.get(dtype["dtype"] if dtype else "auto", 2.0)
        said = f"{width * 8:.0f} bits"
    billions = float(counts[0])
    return ModelSize(billions * 1e9, width, f"{billions:g}B parameters in {said} ({path['path']})")
