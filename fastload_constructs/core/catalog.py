"""GPU instance facts the tuning decisions are derived from.

Sources (re-check before relying on a number; AWS revises them):
  * Amazon EC2 Instance Types Guide, "Accelerated computing" specifications
    (docs.aws.amazon.com/ec2/latest/instancetypes/ac.html): GPUs, GPU memory,
    vCPUs, memory, network bandwidth, instance store volumes.
  * Product pages aws.amazon.com/ec2/instance-types/{g4,g5,g6,g6e,g7e,p3,p4,p5}/.
  * NVIDIA CUDA GPUs list (developer.nvidia.com/cuda-gpus) for compute capability.

Network figures are AWS's headline; sizes sold as "up to N Gbps" are marked
`network_burst=True` because their sustained baseline is a fraction of N.
G7e figures are from the launch announcement (2026) and are the least checked.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from fastload_constructs.core.errors import FastloadConfigError

GIB = 1024**3


@dataclass(frozen=True)
class GpuInstance:
    """One EC2 GPU instance type, as far as serving a model on it is concerned."""

    name: str
    gpu_model: str
    gpu_count: int
    gpu_memory_gib: float  # per GPU
    vcpu: int
    memory_gib: float
    network_gbps: float
    network_burst: bool  # True when sold as "up to network_gbps"
    nvme_count: int
    nvme_gb_each: int  # decimal GB, as AWS lists instance store
    cuda_capability: str

    @property
    def family(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def size(self) -> str:
        return self.name.split(".", 1)[1]

    @property
    def has_instance_store(self) -> bool:
        return self.nvme_count > 0

    @property
    def instance_store_gb(self) -> int:
        return self.nvme_count * self.nvme_gb_each

    @property
    def gpu_memory_bytes(self) -> int:
        """Memory of one GPU in bytes."""
        return int(self.gpu_memory_gib * GIB)

    @property
    def memory_bytes(self) -> int:
        return int(self.memory_gib * GIB)

    @property
    def sustained_network_gbps(self) -> float:
        """Bandwidth to plan a long transfer on.

        "Up to" sizes burst to the headline and fall back to a baseline that AWS
        publishes per size (roughly a quarter of the burst for the sizes here);
        we plan on that quarter so a probe budget is never sized on burst credit.
        """
        return self.network_gbps / 4 if self.network_burst else self.network_gbps


def _family(
    gpu_model: str,
    gpu_memory_gib: float,
    cuda_capability: str,
    rows: list[tuple[str, int, int, float, float, bool, int, int]],
) -> dict[str, GpuInstance]:
    """Expand one family's table: (size, gpus, vcpu, ram GiB, Gbps, burst, nvme n, nvme GB)."""
    out: dict[str, GpuInstance] = {}
    for name, gpus, vcpu, ram, gbps, burst, nvme_n, nvme_gb in rows:
        out[name] = GpuInstance(
            name=name,
            gpu_model=gpu_model,
            gpu_count=gpus,
            gpu_memory_gib=gpu_memory_gib,
            vcpu=vcpu,
            memory_gib=ram,
            network_gbps=gbps,
            network_burst=burst,
            nvme_count=nvme_n,
            nvme_gb_each=nvme_gb,
            cuda_capability=cuda_capability,
        )
    return out


CATALOG: dict[str, GpuInstance] = {
    # G4dn: NVIDIA T4 16 GiB (Turing, 7.5).
    **_family(
        "T4",
        16,
        "7.5",
        [
            ("g4dn.xlarge", 1, 4, 16, 25, True, 1, 125),
            ("g4dn.2xlarge", 1, 8, 32, 25, True, 1, 225),
            ("g4dn.4xlarge", 1, 16, 64, 25, True, 1, 225),
            ("g4dn.8xlarge", 1, 32, 128, 50, False, 1, 900),
            ("g4dn.12xlarge", 4, 48, 192, 50, False, 1, 900),
            ("g4dn.16xlarge", 1, 64, 256, 50, False, 1, 900),
        ],
    ),
    # G5: NVIDIA A10G 24 GiB (Ampere, 8.6).
    **_family(
        "A10G",
        24,
        "8.6",
        [
            ("g5.xlarge", 1, 4, 16, 10, True, 1, 250),
            ("g5.2xlarge", 1, 8, 32, 10, True, 1, 450),
            ("g5.4xlarge", 1, 16, 64, 25, True, 1, 600),
            ("g5.8xlarge", 1, 32, 128, 25, False, 1, 900),
            ("g5.12xlarge", 4, 48, 192, 40, False, 1, 3800),
            ("g5.16xlarge", 1, 64, 256, 25, False, 1, 1900),
            ("g5.24xlarge", 4, 96, 384, 50, False, 1, 3800),
            ("g5.48xlarge", 8, 192, 768, 100, False, 2, 3800),
        ],
    ),
    # G6: NVIDIA L4 24 GiB (Ada, 8.9).
    **_family(
        "L4",
        24,
        "8.9",
        [
            ("g6.xlarge", 1, 4, 16, 10, True, 1, 250),
            ("g6.2xlarge", 1, 8, 32, 10, True, 1, 450),
            ("g6.4xlarge", 1, 16, 64, 25, True, 1, 600),
            ("g6.8xlarge", 1, 32, 128, 25, False, 2, 450),
            ("g6.12xlarge", 4, 48, 192, 40, False, 4, 940),
            ("g6.16xlarge", 1, 64, 256, 25, False, 2, 940),
            ("g6.24xlarge", 4, 96, 384, 50, False, 4, 940),
            ("g6.48xlarge", 8, 192, 768, 100, False, 8, 940),
        ],
    ),
    # G6e: NVIDIA L40S 48 GiB (Ada, 8.9).
    **_family(
        "L40S",
        48,
        "8.9",
        [
            ("g6e.xlarge", 1, 4, 32, 20, True, 1, 250),
            ("g6e.2xlarge", 1, 8, 64, 20, True, 1, 450),
            ("g6e.4xlarge", 1, 16, 128, 20, False, 1, 600),
            ("g6e.8xlarge", 1, 32, 256, 25, False, 1, 900),
            ("g6e.12xlarge", 4, 48, 384, 100, False, 2, 1900),
            ("g6e.16xlarge", 1, 64, 512, 35, False, 1, 1900),
            ("g6e.24xlarge", 4, 96, 768, 200, False, 2, 1900),
            ("g6e.48xlarge", 8, 192, 1536, 400, False, 4, 1900),
        ],
    ),
    # G7e: NVIDIA RTX PRO 6000 Blackwell Server Edition 96 GiB (Blackwell, 12.0).
    **_family(
        "RTX PRO 6000",
        96,
        "12.0",
        [
            ("g7e.2xlarge", 1, 8, 64, 50, True, 1, 1900),
            ("g7e.4xlarge", 1, 16, 128, 50, False, 1, 1900),
            ("g7e.8xlarge", 1, 32, 256, 100, False, 1, 1900),
            ("g7e.12xlarge", 2, 48, 512, 400, False, 2, 1900),
            ("g7e.24xlarge", 4, 96, 1024, 800, False, 4, 1900),
            ("g7e.48xlarge", 8, 192, 2048, 1600, False, 8, 1900),
        ],
    ),
    # P3: NVIDIA V100 16 GiB (Volta, 7.0). EBS only: no instance store.
    **_family(
        "V100",
        16,
        "7.0",
        [
            ("p3.2xlarge", 1, 8, 61, 10, True, 0, 0),
            ("p3.8xlarge", 4, 32, 244, 10, False, 0, 0),
            ("p3.16xlarge", 8, 64, 488, 25, False, 0, 0),
        ],
    ),
    # P4d / P4de: NVIDIA A100 40 / 80 GiB (Ampere, 8.0).
    **_family("A100", 40, "8.0", [("p4d.24xlarge", 8, 96, 1152, 400, False, 8, 1000)]),
    **_family("A100", 80, "8.0", [("p4de.24xlarge", 8, 96, 1152, 400, False, 8, 1000)]),
    # P5: NVIDIA H100 80 GiB (Hopper, 9.0).
    **_family(
        "H100",
        80,
        "9.0",
        [
            ("p5.4xlarge", 1, 16, 256, 100, False, 1, 3840),
            ("p5.48xlarge", 8, 192, 2048, 3200, False, 8, 3840),
        ],
    ),
    # P5e / P5en: NVIDIA H200 141 GiB (Hopper, 9.0).
    **_family("H200", 141, "9.0", [("p5e.48xlarge", 8, 192, 2048, 3200, False, 8, 3840)]),
    **_family("H200", 141, "9.0", [("p5en.48xlarge", 8, 192, 2048, 3200, False, 8, 3840)]),
}


def known_instance_types() -> list[str]:
    return sorted(CATALOG)


def lookup(instance_type: str, field: str = "instance_type") -> GpuInstance:
    """Return the facts for `instance_type`, or fail naming the closest known types."""
    key = instance_type.strip().lower() if isinstance(instance_type, str) else instance_type
    if key in CATALOG:
        return CATALOG[key]
    close = difflib.get_close_matches(str(key), CATALOG, n=4, cutoff=0.5)
    hint = ", ".join(close) if close else ", ".join(known_instance_types())
    raise FastloadConfigError(field, instance_type, f"a known GPU instance type (closest: {hint})")
