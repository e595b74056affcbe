"""Run:ai Model Streamer settings: concurrency from the pod's network, host buffer from node RAM."""

from __future__ import annotations

import math
from dataclasses import dataclass

from fastload_constructs.core.catalog import GpuInstance
from fastload_constructs.core.errors import require
from fastload_constructs.core.model import ModelProfile
from fastload_constructs.core.planning.options import TuningOptions
from fastload_constructs.core.planning.serving import StreamSource


@dataclass(frozen=True)
class StreamerSettings:
    """Run:ai Model Streamer settings, as vLLM's --model-loader-extra-config takes them.

    `memory_limit_bytes` is the buffer of ONE streaming process. The distributed
    streamer (runai-model-streamer 0.17, `DistributedStreamer.rank_memory_limit`)
    reads RUNAI_STREAMER_MEMORY_LIMIT as a node total and divides it by the ranks
    on the node, so for distributed streaming the configured value is the
    per-process limit times the ranks sharing it.
    """

    concurrency: int
    memory_limit_bytes: int
    distributed: bool
    ranks: int = 1  # streaming processes of one pod on a node (the TP size)

    @property
    def configured_memory_limit_bytes(self) -> int:
        """What `memory_limit` / RUNAI_STREAMER_MEMORY_LIMIT must say to give each process its limit."""
        return self.memory_limit_bytes * self.ranks if self.distributed else self.memory_limit_bytes

    def loader_extra_config(self) -> dict[str, object]:
        config: dict[str, object] = {
            "concurrency": self.concurrency,
            "memory_limit": self.configured_memory_limit_bytes,
        }
        if self.distributed:
            config["distributed"] = True
        return config


def load_network_mb_s(instance: GpuInstance, opts: TuningOptions) -> tuple[float, float]:
    """(burst, sustained) MB/s one pod's S3 stream can reach: the pod's NIC figures x efficiency."""
    eff = opts.assumptions.network_efficiency
    return instance.pod_burst_gbps * 125 * eff, instance.pod_network_gbps * 125 * eff


def streamer_concurrency(
    instance: GpuInstance, opts: TuningOptions, tp: int = 1, source: StreamSource | None = None
) -> int:
    """Streamer concurrency units per process.

    S3: enough CRT clients to fill the NIC a scaling pod gets, which is the whole node's for the
    first pod on a fresh node (one-GPU pod alone on a 4-GPU node included): ceil(pod NIC while
    bursting x efficiency / TP processes / 120 MB/s per unit), between 4 and 64 (the streamer's sweep
    gains nothing past 32-64). Local NVMe: 16 per device (the streamer's best local setting for one
    disk) shared by the TP processes, at least 8.
    """
    if opts.concurrency is not None:
        return opts.concurrency
    processes = max(1, tp)
    if (source or opts.serving.stream_source) == "local":
        return max(8, min(64, math.ceil(16 * max(1, instance.nvme_count) / processes)))
    burst_mb, _ = load_network_mb_s(instance, opts)
    wanted = math.ceil(burst_mb / processes / opts.assumptions.streamer_mb_per_unit)
    return max(4, min(wanted, 64))


def streamer_memory_limit(
    model: ModelProfile, instance: GpuInstance, tp: int, distributed: bool, opts: TuningOptions
) -> int:
    """Bytes of host buffer per streaming process.

    Bounded by `streamer_ram_fraction` of node RAM split over the processes a
    packed node runs (one per GPU), so TP ranks together never exhaust host
    RAM; no larger than the bytes this process reads; never below the largest
    tensor, which the streamer must hold whole.
    """
    largest = model.largest_tensor_bytes or 0
    budget = int(instance.memory_bytes * opts.streamer_ram_fraction / instance.gpu_count)
    if opts.memory_limit_bytes is not None:
        ceiling = instance.memory_bytes // instance.gpu_count
        require(
            largest <= opts.memory_limit_bytes <= ceiling,
            "memory_limit_bytes",
            opts.memory_limit_bytes,
            f"{largest}..{ceiling} bytes (largest tensor .. node RAM per GPU process)",
        )
        return opts.memory_limit_bytes
    reads = math.ceil(model.total_bytes / tp) if distributed else model.total_bytes
    limit = min(budget, reads)
    require(
        largest <= budget,
        "memory_limit_bytes",
        budget,
        f"at least the largest tensor ({largest} bytes); {instance.name} has too little RAM per GPU",
    )
    return max(limit, largest)
