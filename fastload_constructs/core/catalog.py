"""GPU instance facts the tuning decisions are derived from.

Sources (re-check before relying on a number; AWS revises them):
  * GPU memory: the EC2 API's `DescribeInstanceTypes` `GpuInfo.Gpus[].MemoryInfo.SizeInMiB`
    (A10G and L4 report 22,888 MiB, L40S 45,776 MiB: the usable memory, not the marketing 24/48 GB).
  * Network: the EC2 API's `NetworkInfo` as AWS publishes it per size in the EC2 User Guide,
    "Amazon EC2 instance network bandwidth" (docs.aws.amazon.com/ec2/latest/instancetypes/ac.html,
    columns "Baseline / Burst bandwidth (Gbps)"); the baselines here are the figures Karpenter generates
    from that page (github.com/aws/karpenter-provider-aws, pkg/providers/instancetype/zz_generated.bandwidth.go).
    Sizes sold "up to N Gbps" burst to N for "a limited time, typically from 5 to 60 minutes" (same guide)
    and fall back to the baseline; g7e.2xlarge's 50 Gbps is not burstable.
  * Multi-card types (p4d, p5, p5e, p5en, g6e.24/48xlarge, g7e.12xlarge and up): the headline is the sum
    over every network card, most of it EFA for collective traffic. One pod's S3 stream goes through the
    primary ENA interface on network card 0, which carries at most that card's bandwidth
    (EC2 User Guide, "Network cards": p4d 4 x 100 Gbps, p5/p5e 32 x 100 Gbps, p5en 16 x 200 Gbps;
    g6e.24xlarge 2 x 100, g6e.48xlarge 4 x 100). `primary_card_gbps` holds it.
  * vCPUs, memory, instance store: EC2 Instance Types Guide, "Accelerated computing" specifications;
    p5-class instance store is 8 x 3,800 GB.
  * NVIDIA CUDA GPUs list (developer.nvidia.com/cuda-gpus) for compute capability.
G7e figures are from the launch announcement (2026) and are the least checked: its GPU MiB is
96 GiB as announced, not an API figure.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Literal

from fastload_constructs.core.errors import FastloadConfigError
from fastload_constructs.core.settings import Flag, Key, Setting

GIB = 1024**3
MIB = 1024**2


@dataclass(frozen=True)
class GpuInstance:
    """One EC2 GPU instance type, as far as serving a model on it is concerned."""

    name: str
    gpu_model: str
    gpu_count: int
    gpu_memory_mib: int  # per GPU, as the EC2 API reports it
    vcpu: int
    memory_gib: float
    network_baseline_gbps: float  # published baseline (the sustained rate)
    network_burst_gbps: float | None  # "up to" burst, None when the size does not burst
    nvme_count: int
    nvme_gb_each: int  # decimal GB, as AWS lists instance store
    cuda_capability: str
    # What one ENA interface on network card 0 can carry: the most one pod's S3 stream gets.
    primary_card_gbps: float | None = None

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
    def gpu_memory_gib(self) -> float:
        """Memory of one GPU in GiB (the API's MiB / 1024)."""
        return self.gpu_memory_mib / 1024

    @property
    def gpu_memory_bytes(self) -> int:
        """Memory of one GPU in bytes."""
        return self.gpu_memory_mib * MIB

    @property
    def memory_bytes(self) -> int:
        return int(self.memory_gib * GIB)

    @property
    def network_burst(self) -> bool:
        """True when sold as "up to" a burst above the baseline."""
        return self.network_burst_gbps is not None

    @property
    def network_gbps(self) -> float:
        """AWS's headline figure: the burst for "up to" sizes, else the baseline."""
        return self.network_burst_gbps if self.network_burst_gbps is not None else self.network_baseline_gbps

    @property
    def sustained_network_gbps(self) -> float:
        """Bandwidth a long transfer keeps: the published baseline."""
        return self.network_baseline_gbps

    @property
    def pod_network_gbps(self) -> float:
        """Sustained bandwidth one pod's S3 stream can use: the baseline, capped by the primary card."""
        cap = self.primary_card_gbps
        return min(self.network_baseline_gbps, cap) if cap is not None else self.network_baseline_gbps

    @property
    def pod_burst_gbps(self) -> float:
        """Bandwidth one pod's stream can use while burst credit lasts (the baseline where none)."""
        burst = self.network_burst_gbps if self.network_burst_gbps is not None else self.network_baseline_gbps
        cap = self.primary_card_gbps
        return min(burst, cap) if cap is not None else burst


def _family(
    gpu_model: str,
    gpu_memory_mib: int,
    cuda_capability: str,
    rows: list[tuple[str, int, int, float, float, float | None, int, int]],
    primary_card_gbps: dict[str, float] | None = None,
) -> dict[str, GpuInstance]:
    """Expand one family's table: (size, gpus, vcpu, RAM GiB, baseline Gbps, burst Gbps or None, NVMe n, NVMe GB)."""
    out: dict[str, GpuInstance] = {}
    for name, gpus, vcpu, ram, baseline, burst, nvme_n, nvme_gb in rows:
        out[name] = GpuInstance(
            name=name,
            gpu_model=gpu_model,
            gpu_count=gpus,
            gpu_memory_mib=gpu_memory_mib,
            vcpu=vcpu,
            memory_gib=ram,
            network_baseline_gbps=baseline,
            network_burst_gbps=burst,
            nvme_count=nvme_n,
            nvme_gb_each=nvme_gb,
            cuda_capability=cuda_capability,
            primary_card_gbps=(primary_card_gbps or {}).get(name),
        )
    return out


CATALOG: dict[str, GpuInstance] = {
    # G4dn: NVIDIA T4, 15,360 MiB (the driver's figure; the API's not re-checked here).
    **_family(
        "T4",
        15360,
        "7.5",
        [
            ("g4dn.xlarge", 1, 4, 16, 5, 25, 1, 125),
            ("g4dn.2xlarge", 1, 8, 32, 10, 25, 1, 225),
            ("g4dn.4xlarge", 1, 16, 64, 20, 25, 1, 225),
            ("g4dn.8xlarge", 1, 32, 128, 50, None, 1, 900),
            ("g4dn.12xlarge", 4, 48, 192, 50, None, 1, 900),
            ("g4dn.16xlarge", 1, 64, 256, 50, None, 1, 900),
        ],
    ),
    # G5: NVIDIA A10G, 22,888 MiB (Ampere, 8.6).
    **_family(
        "A10G",
        22888,
        "8.6",
        [
            ("g5.xlarge", 1, 4, 16, 2.5, 10, 1, 250),
            ("g5.2xlarge", 1, 8, 32, 5, 10, 1, 450),
            ("g5.4xlarge", 1, 16, 64, 10, 25, 1, 600),
            ("g5.8xlarge", 1, 32, 128, 25, None, 1, 900),
            ("g5.12xlarge", 4, 48, 192, 40, None, 1, 3800),
            ("g5.16xlarge", 1, 64, 256, 25, None, 1, 1900),
            ("g5.24xlarge", 4, 96, 384, 50, None, 1, 3800),
            ("g5.48xlarge", 8, 192, 768, 100, None, 2, 3800),
        ],
    ),
    # G6: NVIDIA L4, 22,888 MiB (Ada, 8.9).
    **_family(
        "L4",
        22888,
        "8.9",
        [
            ("g6.xlarge", 1, 4, 16, 2.5, 10, 1, 250),
            ("g6.2xlarge", 1, 8, 32, 5, 10, 1, 450),
            ("g6.4xlarge", 1, 16, 64, 10, 25, 1, 600),
            ("g6.8xlarge", 1, 32, 128, 25, None, 2, 450),
            ("g6.12xlarge", 4, 48, 192, 40, None, 4, 940),
            ("g6.16xlarge", 1, 64, 256, 25, None, 2, 940),
            ("g6.24xlarge", 4, 96, 384, 50, None, 4, 940),
            ("g6.48xlarge", 8, 192, 768, 100, None, 8, 940),
        ],
    ),
    # G6e: NVIDIA L40S, 45,776 MiB (Ada, 8.9).
    **_family(
        "L40S",
        45776,
        "8.9",
        [
            ("g6e.xlarge", 1, 4, 32, 2.5, 20, 1, 250),
            ("g6e.2xlarge", 1, 8, 64, 5, 20, 1, 450),
            ("g6e.4xlarge", 1, 16, 128, 20, None, 1, 600),
            ("g6e.8xlarge", 1, 32, 256, 25, None, 1, 900),
            ("g6e.12xlarge", 4, 48, 384, 100, None, 2, 1900),
            ("g6e.16xlarge", 1, 64, 512, 35, None, 1, 1900),
            ("g6e.24xlarge", 4, 96, 768, 200, None, 2, 1900),
            ("g6e.48xlarge", 8, 192, 1536, 400, None, 4, 1900),
        ],
        primary_card_gbps={"g6e.24xlarge": 100, "g6e.48xlarge": 100},
    ),
    # G7e: NVIDIA RTX PRO 6000 Blackwell Server Edition, 96 GiB as announced (Blackwell, 12.0).
    **_family(
        "RTX PRO 6000",
        98304,
        "12.0",
        [
            ("g7e.2xlarge", 1, 8, 64, 50, None, 1, 1900),
            ("g7e.4xlarge", 1, 16, 128, 50, None, 1, 1900),
            ("g7e.8xlarge", 1, 32, 256, 100, None, 1, 1900),
            ("g7e.12xlarge", 2, 48, 512, 400, None, 2, 1900),
            ("g7e.24xlarge", 4, 96, 1024, 800, None, 4, 1900),
            ("g7e.48xlarge", 8, 192, 2048, 1600, None, 8, 1900),
        ],
        primary_card_gbps={"g7e.12xlarge": 200, "g7e.24xlarge": 200, "g7e.48xlarge": 200},
    ),
    # P3: NVIDIA V100, 16,384 MiB (Volta, 7.0). EBS only: no instance store.
    **_family(
        "V100",
        16384,
        "7.0",
        [
            ("p3.2xlarge", 1, 8, 61, 2.5, 10, 0, 0),
            ("p3.8xlarge", 4, 32, 244, 10, None, 0, 0),
            ("p3.16xlarge", 8, 64, 488, 25, None, 0, 0),
        ],
    ),
    # P4d / P4de: NVIDIA A100 40,960 / 81,920 MiB (Ampere, 8.0); 4 network cards of 100 Gbps.
    **_family(
        "A100",
        40960,
        "8.0",
        [("p4d.24xlarge", 8, 96, 1152, 400, None, 8, 1000)],
        primary_card_gbps={"p4d.24xlarge": 100},
    ),
    **_family(
        "A100",
        81920,
        "8.0",
        [("p4de.24xlarge", 8, 96, 1152, 400, None, 8, 1000)],
        primary_card_gbps={"p4de.24xlarge": 100},
    ),
    # P5: NVIDIA H100, 81,920 MiB (Hopper, 9.0); p5.48xlarge has 32 network cards of 100 Gbps.
    **_family(
        "H100",
        81920,
        "9.0",
        [
            ("p5.4xlarge", 1, 16, 256, 100, None, 1, 3800),
            ("p5.48xlarge", 8, 192, 2048, 3200, None, 8, 3800),
        ],
        primary_card_gbps={"p5.48xlarge": 100},
    ),
    # P5e / P5en: NVIDIA H200, 144,384 MiB = 141 GiB (not re-checked against the API) (Hopper, 9.0);
    # p5e has 32 network cards of 100 Gbps, p5en 16 of 200 Gbps.
    **_family(
        "H200",
        144384,
        "9.0",
        [("p5e.48xlarge", 8, 192, 2048, 3200, None, 8, 3800)],
        primary_card_gbps={"p5e.48xlarge": 100},
    ),
    **_family(
        "H200",
        144384,
        "9.0",
        [("p5en.48xlarge", 8, 192, 2048, 3200, None, 8, 3800)],
        primary_card_gbps={"p5en.48xlarge": 200},
    ),
}


def known_instance_types() -> list[str]:
    return sorted(CATALOG)


def lookup(instance_type: str, field: str = "instance_type") -> GpuInstance:
    """Return the facts for `instance_type`, or fail naming the closest known types."""
    if not isinstance(instance_type, str):
        raise FastloadConfigError(field, instance_type, "a GPU instance type such as g6e.2xlarge")
    key = instance_type.strip().lower()
    if key in CATALOG:
        return CATALOG[key]
    close = difflib.get_close_matches(str(key), CATALOG, n=4, cutoff=0.5)
    hint = ", ".join(close) if close else ", ".join(known_instance_types())
    raise FastloadConfigError(field, instance_type, f"a known GPU instance type (closest: {hint})")


def _instance_type(value: object, name: str) -> str:
    return lookup(value, name).name  # type: ignore[arg-type]  # lookup names a non-string too


INSTANCE_TYPE = Setting(
    check=_instance_type,
    accepted="a GPU instance type of the catalog (fastload_constructs/core/catalog.py), e.g. g6e.2xlarge",
    doc="EC2 instance type, e.g. g6e.12xlarge.",
    key=Key("instanceType"),
    flag=Flag("--instance"),
    name="instance_type",
    path="instance_type",
)
"""The instance type a model is planned for and served on: cdk.json's `instanceType`, `--instance`."""
# --- GPU models: memory bandwidth and host link --------------------------------------------------------
# CUDA-graph capture runs the model once per captured size, reading every weight from GPU memory
# (`memory_gb_s`); waking a sleeping engine copies its weights back over the host link (`host_link`).
# Keyed by `GpuInstance.gpu_model` and memory (the A100 has two). NVIDIA's data sheets, "GPU memory
# bandwidth" and "interconnect":
#   T4 320 GB/s, PCIe Gen3 x16 (nvidia.com/en-us/data-center/tesla-t4);
#   A10G 600 GB/s, PCIe Gen4 x16 (the A10's sheet, nvidia.com/en-us/data-center/products/a10-gpu; AWS's
#     A10G shares its memory system, aws.amazon.com/ec2/instance-types/g5);
#   L4 300 GB/s, PCIe Gen4 x16 (nvidia.com/en-us/data-center/l4);
#   L40S 864 GB/s, PCIe Gen4 x16 (nvidia.com/en-us/data-center/l40s);
#   RTX PRO 6000 Blackwell Server Edition 1,597 GB/s, PCIe Gen5 x16
#     (nvidia.com/en-us/data-center/rtx-pro-6000-blackwell-server-edition);
#   V100 SXM2 900 GB/s, PCIe Gen3 to the host (nvidia.com/en-us/data-center/v100);
#   A100 SXM4 40 / 80 GB 1,555 / 2,039 GB/s, PCIe Gen4 to the host (nvidia.com/en-us/data-center/a100);
#   H100 SXM5 3.35 TB/s and H200 SXM 4.8 TB/s, PCIe Gen5 to the host (nvidia.com/en-us/data-center/h100, /h200).

HostLink = Literal["pcie3", "pcie4", "pcie5"]


@dataclass(frozen=True)
class GpuSpec:
    """One GPU model's memory bandwidth (GB/s, decimal) and its link to the host."""

    memory_gb_s: float
    host_link: HostLink


# (catalog gpu_model, memory in MiB or None for any) -> spec
_SPECS: dict[tuple[str, int | None], GpuSpec] = {
    ("T4", None): GpuSpec(320.0, "pcie3"),
    ("A10G", None): GpuSpec(600.0, "pcie4"),
    ("L4", None): GpuSpec(300.0, "pcie4"),
    ("L40S", None): GpuSpec(864.0, "pcie4"),
    ("RTX PRO 6000", None): GpuSpec(1597.0, "pcie5"),
    ("V100", None): GpuSpec(900.0, "pcie3"),
    ("A100", 40960): GpuSpec(1555.0, "pcie4"),
    ("A100", 81920): GpuSpec(2039.0, "pcie4"),
    ("H100", None): GpuSpec(3350.0, "pcie5"),
    ("H200", None): GpuSpec(4800.0, "pcie5"),
}


def gpu_spec(instance: GpuInstance) -> GpuSpec:
    """The spec of `instance`'s GPU (every catalog GPU has one: tests/test_catalog.py checks)."""
    spec = _SPECS.get((instance.gpu_model, instance.gpu_memory_mib)) or _SPECS.get((instance.gpu_model, None))
    if spec is None:
        raise KeyError(f"no GPU spec for {instance.gpu_model} ({instance.gpu_memory_mib} MiB)")
    return spec
