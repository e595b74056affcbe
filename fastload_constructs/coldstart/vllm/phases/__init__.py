"""One module per start-up phase, each reading a scanned `Timeline`.

    start     process start (container start -> first line) and readiness (server or offline)
    workers   how many GPU workers ran (every phase is the slowest worker's)
    weights   weight_load: seconds, bytes on the GPUs, throughput
    compile   dynamo_transform and graph_compile, and whether the compile cache hit
    graphs    cuda_graph: capture seconds
    engine    kv_cache_profiling and api_server
    failure   for a start that never got ready: which phase was running, and the root cause

Each returns seconds (None when the log has none of the phase) with the `Evidence`
lines they came from; `assemble.py` puts them together into a `ColdStartReport`.
"""
