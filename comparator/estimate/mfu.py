"""Throughput: the fraction of the card's dense peak a job turns into counted FLOPs, with a range.

``efficiency = exp(Σ coefficient × feature)``, fitted by ``scripts/fit_throughput.py`` to the
published runs in ``tests/data/throughput/runs.json`` (MosaicML llm-foundry, Megatron-LM,
Korthikanti et al., torchtune, nanoGPT, llm.c, Llama 1/2/3, DeepSeek-V2/V3, OPT, Hugging
Face's Smol playbook). The coefficients and the fit's error on its own data live in
``mfu_fit.json`` beside this module; ``docs/estimation.md`` explains them.

Features: the GPU class (Hopper/Blackwell, A100-class data centre, PCIe/workstation cards),
log₁₀ of the active parameters in billions (small models keep big cards less busy), FP8 under
Megatron's Transformer Engine (its own coefficient: the stack × precision interaction), mixture
of experts (routing, grouped matmuls and all-to-all traffic: published MoE runs reach a
fraction of the dense ones' utilisation), QLoRA
(dequantising the NF4 weights), FP8 (on cards that have it, against the BF16 peak), several
cards without NVLink, and more than one node. LoRA has no feature of its own: it differs from
full fine-tuning in the FLOPs counted (no weight gradients: 4·Ψ instead of 6·Ψ), not in how
busy the card is — a LoRA coefficient fitted to the three torchtune LoRA runs came out ×1.5,
an artefact of the slow full fine-tuning runs on the same cards, and made the fit worse on the
other sources (median error 14.4 % with it, 11.0 % without).

The efficiency applies to the FLOPs the estimator counts, *recomputation included*
(:func:`~comparator.estimate.compute.flops_per_token`), and was fitted that way: a
checkpointed run is charged its extra forward pass once, as FLOPs, not again as a lower MFU.

``low``/``high`` hours come from the 5th and 95th percentiles of the fit's residuals
(measured over predicted efficiency): the range held that share of the published runs.
The training stack (:mod:`comparator.estimate.stacks`) has one coefficient per stack against
the Hugging Face Trainer (:data:`BASELINE_STACK`).

A card family without cited runs takes its class's coefficients, bounded by a roofline of its
memory bandwidth and by every cited card that beats it on both peak and bandwidth
(:func:`efficiency_detail`); other vendors without runs (AMD, Intel, TPU) are also multiplied
by ``OTHER_VENDOR_FACTOR``, an assumption, not a fit.
"""

from __future__ import annotations

import json
import math
from functools import lru_cache
from importlib import resources
from typing import Any

from comparator.domain.gpus import GPUS, GpuSpec
from comparator.estimate.compute import gpu_class
from comparator.estimate.stacks import DEFAULT_STACK, STACK_IDS, stacks_for

OTHER_VENDOR_FACTOR = 0.8
MIN_EFFICIENCY, MAX_EFFICIENCY = 0.03, 0.8
#: Card families with FP8 tensor cores (Ada, Hopper, Blackwell).
FP8_FAMILIES = frozenset(
    {
        "H100",
        "H800",
        "H200",
        "H20",
        "GH200",
        "B200",
        "B300",
        "L4",
        "L40",
        "L40S",
        "RTX4060",
        "RTX4070",
        "RTX4090",
        "RTX5060",
        "RTX5090",
        "RTX4000-Ada",
        "RTX6000-Ada",
        "RTXPRO6000",
    }
)
#: The stack every other stack's coefficient is measured against (no feature of its own).
BASELINE_STACK = "hf"
STACK_FEATURES = tuple(f"stack_{name}" for name in STACK_IDS if name != BASELINE_STACK)
FEATURES = (
    "hopper",
    "datacenter",
    "workstation",
    "log_size",
    "qlora",
    "fp8",
    "pcie_multi",
    "multi_node",
    "moe",
    "moe_log_size",
    "fp8_megatron",
    *STACK_FEATURES,
)


@lru_cache(maxsize=1)
def fit() -> dict[str, Any]:
    """The stored fit: coefficients, residual quantiles and the error on its own runs."""
    text = resources.files("comparator.estimate").joinpath("mfu_fit.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def features(
    gpu: GpuSpec,
    active_params: float,
    method: str,
    precision: str,
    cards: int,
    nvlink: bool | None = None,
    stack: str | None = None,
    moe: bool = False,
) -> dict[str, float]:
    """The model's inputs for one job (0/1 flags and the log size).

    ``nvlink``: whether the cards are linked by NVLink/HCCS (None: the registry's answer);
    ``stack``: the training stack (None: :data:`~comparator.estimate.stacks.DEFAULT_STACK`).
    """
    linked = gpu.has_nvlink if nvlink is None else nvlink
    kind = gpu_class(gpu)
    size = min(max(active_params / 1e9, 0.1), 2000.0)
    chosen = f"stack_{stack or DEFAULT_STACK}"
    return {
        **{name: float(name == chosen) for name in STACK_FEATURES},
        "hopper": float(kind == "hopper"),
        "datacenter": float(kind in ("datacenter", "other")),
        "workstation": float(kind == "workstation"),
        "log_size": math.log10(size),
        "qlora": float(method == "qlora"),
        "fp8": float(precision == "fp8"),
        "pcie_multi": float(cards > 1 and not linked),
        "multi_node": float(cards > 8),
        "moe": float(moe),
        "moe_log_size": float(moe) * math.log10(size),  # small experts fare worst
        # Transformer Engine runs every GEMM in FP8 (Megatron/NeMo); torchao's float8
        # (torchtitan) only the linear layers, with dynamic scaling: FP8 gains differ by stack
        "fp8_megatron": float(precision == "fp8" and chosen == "stack_megatron"),
    }


@lru_cache(maxsize=4096)
def efficiency(
    gpu: GpuSpec,
    active_params: float,
    method: str,
    precision: str,
    cards: int,
    nvlink: bool | None = None,
    stack: str | None = None,
    moe: bool = False,
) -> float:
    """Expected counted-FLOPs utilisation of the dense BF16 peak (bounded, see
    :func:`efficiency_detail`)."""
    return efficiency_detail(gpu, active_params, method, precision, cards, nvlink, stack, moe)[0]


def _fitted(
    gpu: GpuSpec,
    active_params: float,
    method: str,
    precision: str,
    cards: int,
    nvlink: bool | None,
    stack: str | None,
    moe: bool,
) -> float:
    coefficients: dict[str, float] = fit()["coefficients"]
    values = features(gpu, active_params, method, precision, cards, nvlink, stack, moe)
    return math.exp(sum(coefficients[name] * values[name] for name in FEATURES))


def cited_runs(gpu: GpuSpec) -> int:
    """How many published runs of the fit were measured on this card's family."""
    cited: dict[str, int] = fit()["cited_gpus"]
    return cited.get(gpu.family, 0)


def roofline_efficiency(gpu: GpuSpec) -> float | None:
    """The highest efficiency the card's memory bandwidth allows: the most FLOPs per byte of
    bandwidth any cited BF16 run reached (``max_flops_per_byte``), times the bandwidth, over
    the peak. None without a known bandwidth."""
    if not gpu.bandwidth_gbs or not gpu.bf16_tflops:
        return None
    per_byte = float(fit()["max_flops_per_byte"])
    return per_byte * gpu.bandwidth_gbs * 1e9 / (gpu.bf16_tflops * 1e12)


def _siblings(gpu: GpuSpec) -> tuple[GpuSpec, ...]:
    """Cited cards that beat ``gpu`` on both peak FLOP/s and memory bandwidth."""
    peak, bandwidth = gpu.bf16_tflops or 0.0, gpu.bandwidth_gbs or 0.0
    return tuple(
        spec
        for spec in GPUS.values()
        if cited_runs(spec)
        and spec.name != gpu.name
        and (spec.bf16_tflops or 0.0) >= peak
        and (spec.bandwidth_gbs or 0.0) >= bandwidth
    )


@lru_cache(maxsize=4096)
def efficiency_detail(
    gpu: GpuSpec,
    active_params: float,
    method: str,
    precision: str,
    cards: int,
    nvlink: bool | None = None,
    stack: str | None = None,
    moe: bool = False,
) -> tuple[float, dict[str, Any]]:
    """The efficiency and where it comes from (``estimate --json``'s ``efficiency_source``).

    A card with cited runs takes the fit. A card without any is bounded twice: by the roofline
    of its memory bandwidth (:func:`roofline_efficiency`), and by every cited card that beats
    it on both peak and bandwidth — it never delivers more FLOP/s than such a sibling would on
    the same job.
    """
    value = _fitted(gpu, active_params, method, precision, cards, nvlink, stack, moe)
    runs = cited_runs(gpu)
    source: dict[str, Any] = {
        "gpu": gpu.family,
        "cited_runs": runs,
        "basis": "cited_runs" if runs else "class_fit",
        "gpu_class": gpu_class(gpu),
        "bound_by": None,
        "bandwidth_gbs": gpu.bandwidth_gbs,
    }
    if not runs:
        if gpu_class(gpu) == "other":
            value *= OTHER_VENDOR_FACTOR
        roof = roofline_efficiency(gpu)
        if roof is not None and roof < value:
            value, source["basis"] = roof, "roofline"
            source["bound_by"] = f"memory bandwidth {gpu.bandwidth_gbs:g} GB/s"
        peak = gpu.bf16_tflops or 0.0
        for sibling in _siblings(gpu):
            args = (method, precision, cards, nvlink, stack, moe)
            other = efficiency(sibling, active_params, *args)
            ceiling = other * (sibling.bf16_tflops or 0.0) / peak if peak else value
            if ceiling < value:
                value, source["basis"], source["bound_by"] = ceiling, "sibling", sibling.name
    value = min(max(value, MIN_EFFICIENCY), MAX_EFFICIENCY)
    return value, source


def stack_spread(
    gpu: GpuSpec,
    active_params: float,
    method: str,
    precision: str,
    cards: int,
    nvlink: bool | None = None,
    moe: bool = False,
) -> tuple[float, float]:
    """(fastest, slowest) hours of the stacks that can run ``method``, relative to the default
    stack's: the range an estimate that names no stack widens to."""
    args = (method, precision, cards, nvlink)
    base = efficiency(gpu, active_params, *args, DEFAULT_STACK, moe)
    ratios = [
        base / efficiency(gpu, active_params, *args, stack.id, moe) for stack in stacks_for(method)
    ]
    return min(ratios), max(ratios)


def micro_batch_factor(gpu: GpuSpec, hidden: int, tokens: int) -> float:
    """The share of the fitted efficiency a micro-batch of ``tokens`` tokens can reach (≤ 1).

    Roofline of one ``[tokens × h] · [h × h]`` 16-bit matmul: ``tokens·h / (2·tokens + h)``
    FLOPs per byte of weights and activations moved, against the card's ridge point (dense
    peak over memory bandwidth). The published runs of the fit all ran compute-bound (a
    thousand tokens or more per micro-batch), so the factor is 1 there and only short
    micro-batches pay: 256 tokens of a 4096-wide model reach 77 % on an H100.
    """
    if not gpu.bandwidth_gbs or not gpu.bf16_tflops or tokens <= 0:
        return 1.0
    ridge = gpu.bf16_tflops * 1e12 / (gpu.bandwidth_gbs * 1e9)
    intensity = tokens * hidden / (2 * tokens + hidden)
    return min(1.0, intensity / ridge)


def hours_range_factors() -> tuple[float, float]:
    """(low, high) multipliers of the expected hours: the fit's 95th/5th residual percentiles."""
    quantiles: dict[str, float] = fit()["residual_log_quantiles"]
    return math.exp(-quantiles["p95"]), math.exp(-quantiles["p05"])
