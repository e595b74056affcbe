"""The throughput and fixed-cost figures every prediction rests on, each with its source.

Override any of them, or load a calibrated set fitted to your own logs
(`fastload calibrate`, `planning.calibration`).
"""

from __future__ import annotations

from dataclasses import dataclass

MB = 1000**2


@dataclass(frozen=True)
class LoadAssumptions:
    """Throughput and fixed-cost figures a prediction rests on, each from a cited source.

    Override any of them, or load a calibrated set fitted to your own logs (`fastload calibrate`,
    `load_assumptions`). The formulas that use them are documented where they are applied.
    """

    # --- Run:ai streamer on S3 -------------------------------------------------------------------
    # One concurrency unit is an AWS CRT S3 client (runai-model-streamer cpp/s3/client/client.cc:
    # Aws::S3Crt::S3CrtClient per unit), which opens many connections of its own; a unit is NOT one
    # 90 MB/s HTTP connection. Per unit, the streamer's published S3 sweep (Llama-3-8B, 16.06 GB,
    # g5.12xlarge; github.com/run-ai/runai-model-streamer docs/src/benchmarks.md, Appendix C) gives
    # 16.06e9 / 28.24 s / 4 = 142, / 8.45 s / 16 = 119, / 4.88 s / 32 = 103 MB/s: 120 MB/s mid-range.
    streamer_mb_per_unit: float = 120.0
    # Share of the pod's network an S3 stream reaches. The same sweep saturates at 3.2-3.3 GB/s
    # (concurrency 32: 4.88 s, 64: 5.01 s) on g5.12xlarge's 40 Gbps (5,000 MB/s): 0.65.
    network_efficiency: float = 0.65
    # "Up to" sizes burst "for a limited time, typically from 5 to 60 minutes" (EC2 User Guide,
    # instance network bandwidth): plan the burst for the first 5 minutes only, the baseline after.
    burst_window_s: float = 300.0
    # vLLM's own work around the stream (allocating the model, post-processing weights): "Model
    # loading took 0.90 s" for "Loading weights took 0.69 s" (vllm issue #20264); 31.73 s for a
    # 30.41 s stream (v0.34 log in tests/fixtures). Seconds added to every weight load.
    weight_load_fixed_s: float = 1.5
    # --- node-local NVMe and PCIe --------------------------------------------------------------
    # Sequential read of one instance-store NVMe device, MB/s: assumed (AWS publishes IOPS, not MB/s,
    # for g5/g6/g6e instance store); bench/gpu_load.py measures it on a real node.
    nvme_mb_per_device: float = 2000.0
    # One streamer thread reading a local file: 16.06e9 B in 47.56 s (gp3) and 43.71 s (io2) at
    # concurrency 1 in the streamer's sweep (docs/src/benchmarks.md, Appendices A-B): 350 MB/s.
    streamer_local_mb_per_thread: float = 350.0
    # Host-to-device copy per GPU, MB/s: PCIe Gen4 x16 is 31.5 GB/s raw (PCI-SIG); pinned copies reach
    # ~20-25 GB/s; 12 GB/s leaves margin for pageable buffers. bench/gpu_load.py measures it.
    pcie_mb_per_gpu: float = 12000.0
    # --- fixed engine costs --------------------------------------------------------------------
    # Container start to the weights starting to load: Python imports, config, engine and worker
    # spawn, distributed init. vLLM 0.34 log (tests/fixtures/vllm_logs/cold_v0.34_s3_tp1.log): 16 s
    # from the first line to "Loading model", plus imports before the first line; vllm issue #20264
    # reports ~30 s it cannot find in its log. 25 s.
    process_start_s: float = 25.0
    # KV-cache profiling and allocation, warmup and the API server: "init engine ... took 34.11 s"
    # less 17 s graphs and 7.51 s compile = 9.6 s (vllm issue #20264); 68.84 - 48.31 - 15 = 5.5 s
    # (v0.34 fixture log). 8 s.
    kv_and_server_s: float = 8.0
    # --- torch.compile (cold) ------------------------------------------------------------------
    # Dynamo traces every decoder layer: 4.60 s for Llama-3-8B's 32 layers (vllm PR #11005 log,
    # 0.144 s/layer) and 10 s on L40S (tensorfuse.io/docs/blogs/reducing_gpu_cold_start, 0.31 s/layer):
    # 0.21 s/layer (geometric mean).
    dynamo_s_per_layer: float = 0.21
    # Inductor compiles the piecewise graphs, shape-generic, so its cost grows with the number of
    # layers, not their width: 14.77 s / 32 layers (PR #11005) and 42 s / 32 layers (tensorfuse):
    # 0.78 s per layer (geometric mean), after a fixed 2 s of setup.
    inductor_s_per_layer: float = 0.78
    inductor_fixed_s: float = 2.0
    # torch.compile on a cache hit ("Directly load the compiled graph(s) ... took X s"): Dynamo's
    # bytecode transform is not cached and runs again, per layer, then the artifact loads. Dynamo on a
    # hit: 11.75 s / 80 layers (Llama-3-70B TP4), 16.74 s / 94 (Qwen3-235B TP8; anyscale/ray-serve-llm-
    # perf-examples replica_initialization/experiment_terminal_output/*-compile-cache.txt, vLLM ~0.11),
    # 5.03 s / 32 (Llama-3-8B, vllm PR #16848): 0.16 s per layer (geometric mean 0.160).
    compile_warm_dynamo_s_per_layer: float = 0.16
    # The artifact load itself: 3.83 s (70B), 5.53 s (235B) (same anyscale logs), 4.19 s (vllm PR #16848,
    # v1 0.8), 5.96 s (AOT load, noonghunna/club-3090 issue #142): 4 s, for the v1 releases and recent ones.
    # Replaces 8 s / 2.5 s totals, which left Dynamo out on recent releases (issue 26: 3x too fast).
    compile_warm_v1_s: float = 4.0
    compile_warm_recent_s: float = 4.0
    # --- CUDA graphs -----------------------------------------------------------------------------
    # Piecewise capture (v1 and later: one graph per piece between attention ops, every layer):
    # Llama-3-8B's 67 sizes took 15 s (PR #11005, -O3: 0.0070 s per size-layer) and 54 s on L40S
    # (tensorfuse: 0.025): 0.013 s per graph per layer (geometric mean).
    cuda_graph_s_per_graph_layer: float = 0.013
    # A full-model graph per size (vLLM 0.x eager-compile path, and the FULL decode graphs recent
    # releases add): 67 sizes in 10 s for Llama-3-8B without torch.compile (PR #11005): 0.0047.
    cuda_graph_full_s_per_graph_layer: float = 0.0047
    cuda_graph_fixed_s: float = 1.0
    # Hopper and newer GPUs (CUDA capability >= 9.0) capture far faster than the two figures above
    # (GPU unstated, L40S). Measured less the fixed second, over the model above, on H100: 2.8 / 33.1
    # (Llama-3.1-8B, 67 sizes x 0.057 s, vllm PR #22897), 15 / 82.9 (Llama-3-70B TP4, "Graph capturing
    # finished in 16 secs", anyscale/ray-serve-llm-perf-examples llama70b-base.txt) and 8 / 52.9
    # (Qwen3-32B, "CUDA graph capture [9s", llm-d guides/gke-pod-snapshots/benchmark-results/
    # vllm-qwen3-32b-h100.md): 0.13 (geometric mean).
    cuda_graph_hopper_factor: float = 0.13
    # --- fresh node -----------------------------------------------------------------------------
    # Pending pod to a registered GPU node (Karpenter: NodeClaim created -> launched -> registered).
    # GPU nodes boot slower than CPU nodes (the 26-40 s of karpenter.sh's NodeClaim example is a
    # c5a.2xlarge): g6.12xlarge created -> launched 2.8 s, launched -> registered 76.5 s (Karpenter
    # controller log, gnosia93/training-on-eks, Karpenter 1.8-era, EKS 1.34); "~70 seconds vs ~80 seconds
    # from instance launch to node registration" (aws/karpenter-provider-aws issue #6128): 78 s.
    node_launch_s: float = 78.0
    # Registered -> initialized: the NVIDIA device plugin starts on the node and registers
    # `nvidia.com/gpu`, and only then does kube-scheduler bind the pod (karpenter-provider-aws #1914):
    # 61.0 s on the g6.12xlarge above (`allocatable` shows `nvidia.com/gpu: 4`); a GPU node "may show
    # as ready but still require about a minute to allocate GPU resources" (cloudpilot-ai/
    # karpenter-provider-gcp PR #148): 60 s.
    gpu_registration_s: float = 60.0
    # Image pull + unpack of the AWS vLLM DLC, 9,354,342,327 B: 2m10.8s with containerd's default
    # pull, 39.6 s with SOCI parallel pull on AL2023 (nodeadm FastImagePull) (aws-samples/
    # karpenter-blueprints, blueprints/soci-snapshotter/README.md): 71.5 MB/s, 3.3x faster in parallel.
    image_pull_mb_s: float = 71.5
    fast_image_pull_speedup: float = 3.3
    # SOCI lazy loading: the pull itself is a manifest and index, 1.8 s (vLLM v0.26.0, 8.91 GB, llm-d
    # guides/gke-pod-snapshots/benchmark-results/vllm-qwen3-32b-h100.md), 2.6 s (vllm-openai:v0.19.1,
    # 9.61 GB, llm-d guides/pod-snapshot/README.md), 4.5 s (5.59 GB, ai-on-gke tutorial events): 2.6 s.
    lazy_image_pull_s: float = 2.6
    # ... but every file vLLM imports is fetched when first read: "Python & CUDA library imports
    # (on-demand via gcfs) 73s" before "Loading model from scratch" (same llm-d benchmark, GKE image
    # streaming, the published lazy-loading measurement for a vLLM image), of which process_start's
    # 25 s is what imports from a local disk cost anyway: 48 s more.
    lazy_import_extra_s: float = 48.0
    # The image already on an EBS data volume restored from a snapshot with Fast Snapshot Restore:
    # "pod starts up in less than 5 seconds" for a 9.5 GB (20.4 GB unpacked) image (aws-ia.github.io/
    # terraform-aws-eks-blueprints/patterns/machine-learning/ml-container-cache): 5 s, the bound.
    snapshot_image_s: float = 5.0
    # --- calibration (fastload calibrate) --------------------------------------------------------
    # Measured stream throughput per (instance type, source), replacing the modelled one.
    measured_throughput_mb_s: tuple[tuple[str, str, float], ...] = ()
    # Measured / modelled ratios for the architecture-driven phases (1 = as modelled): cold compile
    # and CUDA-graph capture. (A warm compile is calibrated as compile_warm_*_s itself.)
    compile_scale: float = 1.0
    cuda_graph_scale: float = 1.0

    def measured_throughput(self, instance_type: str, source: str) -> float | None:
        for name, src, mb_s in self.measured_throughput_mb_s:
            if name == instance_type and src == source:
                return mb_s
        return None
