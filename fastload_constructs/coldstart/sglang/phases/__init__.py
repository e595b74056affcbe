"""One module per start-up phase of an SGLang log, each reading a `Scan`.

    start     readiness ("fired up and ready to roll", after the warm-up) and process start
    workers   how many GPUs the server ran on (every phase is the slowest rank's)
    weights   weight_load: seconds, and the bytes on the GPUs
    model_size  the model's size the server args state, to check "mem usage" against
    pool      kv_cache_profiling: the KV pool sized and allocated
    graphs    cuda_graph: capture seconds (torch.compile, when on, runs inside it)
    server    api_server: the engine ready -> the server ready
    failure   for a start that never got ready: which phase was running, and the root cause

Each returns seconds (None when the log has none of the phase) with the `Evidence` lines they came
from; `assemble.py` puts them together into a `ColdStartReport`.
"""
