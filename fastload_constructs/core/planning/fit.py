"""Does the model fit the GPU: weights, runtime overhead and the KV cache for the context, per rank."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from fastload_constructs.core.catalog import CATALOG, GIB, GpuInstance
from fastload_constructs.core.errors import FastloadConfigError, is_whole_number, mention, require
from fastload_constructs.core.model import DTYPE_BYTES, ModelProfile
from fastload_constructs.core.planning.options import TuningOptions


@dataclass(frozen=True)
class KvFit:
    """The memory one GPU must hold, from the architecture: weights + overhead + KV for the context."""

    usable_bytes: int  # GPU memory x gpu_memory_utilization
    weights_bytes: int  # this rank's slice
    overhead_bytes: int
    kv_bytes_per_token: int  # on one rank
    max_model_len: int
    kv_sequences: int

    @property
    def kv_needed_bytes(self) -> int:
        return self.kv_bytes_per_token * self.max_model_len * self.kv_sequences

    @property
    def kv_available_bytes(self) -> int:
        return self.usable_bytes - self.weights_bytes - self.overhead_bytes

    @property
    def fits(self) -> bool:
        return self.kv_available_bytes >= self.kv_needed_bytes

    @property
    def max_tokens(self) -> int:
        """Tokens the KV cache can hold on this rank (vLLM's "GPU KV cache size")."""
        return max(0, self.kv_available_bytes // self.kv_bytes_per_token)


def weight_capacity_per_gpu(instance: GpuInstance, opts: TuningOptions) -> int:
    """Bytes of weights one GPU may hold when the architecture is unknown: vLLM's share less the KV reserve."""
    usable = instance.gpu_memory_bytes * opts.gpu_memory_utilization
    return int(usable * (1 - opts.kv_cache_reserve_fraction))


def tensor_parallel_candidates(instance: GpuInstance) -> list[int]:
    """Powers of two that divide the GPU count: the TP sizes vLLM shards cleanly across."""
    return [tp for tp in (1, 2, 4, 8, 16) if tp <= instance.gpu_count and instance.gpu_count % tp == 0]


def _kv_element_bytes(model: ModelProfile, kv_cache_dtype: str) -> float:
    """KV-cache element size: vLLM's kv_cache_dtype "auto" follows the model's dtype (FP8 checkpoints
    keep a 16-bit KV cache unless told otherwise); "fp8" is one byte."""
    if kv_cache_dtype == "fp8":
        return 1.0
    return 2.0 if DTYPE_BYTES.get(model.dtype, 2) < 2 else float(DTYPE_BYTES[model.dtype])


def kv_fit(
    model: ModelProfile, instance: GpuInstance, tp: int, opts: TuningOptions, kv_cache_dtype: str | None = None
) -> KvFit | None:
    """The memory check vLLM makes at start-up, for one rank; None without an architecture.

    vLLM refuses to start when the KV cache cannot hold one sequence of max_model_len tokens
    ("... is larger than the maximum number of tokens that can be stored in KV cache").
    Per GPU: weights / TP + runtime overhead + KV bytes per token x max_model_len x kv_sequences
    <= GPU memory x gpu_memory_utilization. `kv_cache_dtype` weighs another KV-cache dtype than the options'.
    """
    arch = model.architecture
    if arch is None:
        return None
    context = opts.max_model_len if opts.max_model_len is not None else arch.max_position_embeddings
    return KvFit(
        usable_bytes=int(instance.gpu_memory_bytes * opts.gpu_memory_utilization),
        weights_bytes=math.ceil(model.total_bytes / tp),
        overhead_bytes=opts.runtime_overhead_bytes,
        kv_bytes_per_token=arch.kv_bytes_per_token(_kv_element_bytes(model, kv_cache_dtype or opts.kv_cache_dtype), tp),
        max_model_len=context,
        kv_sequences=opts.kv_sequences,
    )


def _fits(
    model: ModelProfile, instance: GpuInstance, tp: int, opts: TuningOptions, kv_dtype: str | None = None
) -> bool:
    fit = kv_fit(model, instance, tp, opts, kv_dtype)
    if fit is None:
        return model.total_bytes / tp <= weight_capacity_per_gpu(instance, opts)
    return fit.fits


def _smallest_fitting_tp(
    model: ModelProfile, instance: GpuInstance, opts: TuningOptions, kv_dtype: str | None = None
) -> int | None:
    """`kv_dtype`: weigh another KV-cache dtype than the options' (a way out the message suggests)."""
    return next((tp for tp in tensor_parallel_candidates(instance) if _fits(model, instance, tp, opts, kv_dtype)), None)


def what_would_fit(model: ModelProfile, instance: GpuInstance, opts: TuningOptions) -> list[str]:
    """Ways out of a misfit: a TP, a larger instance type, FP8, a shorter context."""
    ways: list[str] = []
    tp = _smallest_fitting_tp(model, instance, opts)
    if tp is not None:
        ways.append(f"{mention('tensor_parallel_size')} {tp}")
    return (
        ways + _another_instance(model, instance, opts) + _fp8(model, instance, opts) + _shorter(model, instance, opts)
    )


def _another_instance(model: ModelProfile, instance: GpuInstance, opts: TuningOptions) -> list[str]:
    """The smallest other instance type that holds the model (same family first, then fewer vCPUs)."""
    bigger = []
    for other in CATALOG.values():
        other_tp = None if other.name == instance.name else _smallest_fitting_tp(model, other, opts)
        if other_tp is not None:
            key = (other.gpu_count * other.gpu_memory_mib, other.family != instance.family, other.vcpu, other.name)
            bigger.append((key, other_tp))
    if not bigger:
        return []
    (*_, name), other_tp = min(bigger)
    return [f"instance type {name} (TP {other_tp})"]


def _fp8(model: ModelProfile, instance: GpuInstance, opts: TuningOptions) -> list[str]:
    """FP8 weights and KV cache for a 16- or 32-bit checkpoint, else an FP8 KV cache where it is not one."""
    if model.dtype in ("BF16", "F16", "F32"):
        fp8_bytes = int(model.total_bytes / DTYPE_BYTES[model.dtype])
        fp8 = dataclasses.replace(model, total_bytes=fp8_bytes, dtype="F8_E4M3")
        fp8_tp = _smallest_fitting_tp(fp8, instance, opts, "fp8")
        return [f"FP8 weights and KV cache (TP {fp8_tp})"] if fp8_tp is not None else []
    if opts.kv_cache_dtype != "fp8" and model.architecture is not None:
        kv8_tp = _smallest_fitting_tp(model, instance, opts, "fp8")
        return [f"{mention('kv_cache_dtype')} fp8 (TP {kv8_tp})"] if kv8_tp is not None else []
    return []


def _shorter(model: ModelProfile, instance: GpuInstance, opts: TuningOptions) -> list[str]:
    """The longest context (a multiple of 256 tokens) the smallest TP that holds any fits."""
    if model.architecture is None:
        return []
    for cand in tensor_parallel_candidates(instance):
        fit = kv_fit(model, instance, cand, opts)
        if fit is not None and fit.max_tokens // opts.kv_sequences >= 1:
            tokens = fit.max_tokens // opts.kv_sequences
            return [f"{mention('max_model_len')} <= {tokens // 256 * 256} (TP {cand})"] if tokens >= 256 else []
    return []


def _misfit_message(model: ModelProfile, instance: GpuInstance, tp: int | None, opts: TuningOptions) -> str:
    fit = kv_fit(model, instance, tp or instance.gpu_count, opts)
    if fit is not None:
        need = (
            f"{fit.weights_bytes / GIB:.1f} GiB weights + {fit.overhead_bytes / GIB:.1f} GiB overhead + "
            f"{fit.kv_needed_bytes / GIB:.1f} GiB KV for {fit.kv_sequences} x {fit.max_model_len} tokens "
            f"> {fit.usable_bytes / GIB:.1f} GiB per GPU"
        )
    else:
        limit = weight_capacity_per_gpu(instance, opts)
        need = (
            f"{model.total_bytes / (tp or instance.gpu_count) / GIB:.1f} GiB weights per GPU > {limit / GIB:.1f} GiB "
            f"({opts.kv_cache_reserve_fraction:.0%} of {mention('gpu_memory_utilization')} "
            f"{opts.gpu_memory_utilization} kept for KV cache)"
        )
    ways = what_would_fit(model, instance, opts)
    fix = "; ".join(ways) if ways else "nothing in the catalog fits"
    return f"a model that fits {instance.name} ({instance.gpu_count} x {instance.gpu_model}): {need}; would fit: {fix}"


def choose_tensor_parallel(model: ModelProfile, instance: GpuInstance, opts: TuningOptions) -> int:
    """The user's TP after checks, else the smallest TP whose per-GPU memory fits.

    Smallest, because each extra rank costs all-reduce traffic on every token
    and leaves fewer GPUs for other replicas on the node. "Fits" means weights plus the
    KV cache for max_model_len x kv_sequences (see kv_fit) when the architecture is known.
    """
    if opts.tensor_parallel_size is not None:
        tp = opts.tensor_parallel_size
        require(
            is_whole_number(tp) and 1 <= tp <= instance.gpu_count and instance.gpu_count % tp == 0,
            "tensor_parallel_size",
            tp,
            f"a divisor of {instance.name}'s {instance.gpu_count} GPUs: "
            + ", ".join(str(d) for d in range(1, instance.gpu_count + 1) if instance.gpu_count % d == 0),
        )
        if not _fits(model, instance, tp, opts):
            raise FastloadConfigError("tensor_parallel_size", tp, _misfit_message(model, instance, tp, opts))
        return tp
    tp_fit = _smallest_fitting_tp(model, instance, opts)
    if tp_fit is None:
        field_name, value = _misfit_field(model, opts)
        raise FastloadConfigError(field_name, value, _misfit_message(model, instance, None, opts))
    return tp_fit


def _misfit_field(model: ModelProfile, opts: TuningOptions) -> tuple[str, object]:
    """What a misfit names: the context with an architecture, else the size as it was given: the parameters
    of a profile made from them (`--params 70e9` reads 70e9), the bytes of one read from its files."""
    if model.architecture is not None:
        return "max_model_len", opts.max_model_len or model.architecture.max_position_embeddings
    if model.parameter_count is not None and not model.shards:
        return "model.parameter_count", model.parameter_count
    return "model.total_bytes", model.total_bytes
