"""Training FLOPs and the default model-FLOPs utilisation (MFU) table.

FLOPs per trained token (Ψ = active parameters, L layers, s sequence length, q = heads × head
size, Ψ_A = active LoRA adapter parameters):

===================  ==========================  ====================================
method               dense matmuls               attention scores (non-causal count)
===================  ==========================  ====================================
full                 6·Ψ  (8·Ψ with recompute)   12·L·q·s  (16·L·q·s with recompute)
lora / qlora         4·Ψ + 6·Ψ_A  (6·Ψ + 8·Ψ_A)   same
===================  ==========================  ====================================

LoRA skips the frozen weights' gradients (the 2·Ψ of the backward pass); QLoRA's
dequantisation work is not FLOPs counted here but shows in its lower MFU.

``hours = train_flops × safety_factor / (cards × peak dense BF16 FLOP/s × MFU) / 3600``.
The MFU applies to ``train_flops`` as counted above (recomputation included).

The estimator's efficiency comes from the fit in :mod:`comparator.estimate.mfu`. The per-class
table below (``MFU_TABLE``) remains for the planner's conversion of ``[workload]`` card-hours
between GPUs (:mod:`comparator.estimate.throughput`) and for scaling a user's ``--mfu`` across
methods in the advice:

* A100-class full training 0.45 — Llama 2 7B/13B/70B (2.0T tokens, 184,320 / 368,640 /
  1,720,320 A100-80GB GPU-hours) imply 0.45 / 0.43 / 0.46 under this FLOP count
  (≈ 0.40 under plain 6·Ψ·D, the figure usually quoted);
* Hopper/Blackwell full training 0.38 — Llama 3.1 405B (15.6T tokens, 30.84M H100 GPU-hours)
  implies 0.375; Meta reports 38–43 % BF16 MFU. The higher peak is harder to saturate;
* PCIe/workstation cards (RTX, L40S, A10, A40 …) 0.35, other vendors (Ascend, AMD, Intel,
  TPU) 0.30 — conservative: software stacks and interconnects are less tuned;
* LoRA runs at 0.85 × the full-training figure (small adapter matmuls, frozen-weight
  bookkeeping); QLoRA at 0.6 × LoRA: LitGPT's A100 resource table times 7B/13B NF4 runs at
  1.6–2.0 × the 16-bit LoRA step time, from dequantising every weight twice per step.
"""

from __future__ import annotations

from comparator.domain.gpus import GpuSpec
from comparator.estimate.architecture import ModelShape

SECONDS_PER_HOUR = 3600.0
#: ZeRO-Offload: the CPU Adam step and the PCIe traffic stretch a step by about this much.
OFFLOAD_TIME_FACTOR = 1.3

_HOPPER = frozenset({"H100", "H800", "H200", "H20", "GH200", "B200", "B300"})
_DATACENTER = frozenset({"A100", "A800", "A30", "V100", "P100"})
_FULL_MFU = {"hopper": 0.38, "datacenter": 0.45, "workstation": 0.35, "other": 0.30}
LORA_MFU_FACTOR = 0.85
QLORA_MFU_FACTOR = 0.6 * LORA_MFU_FACTOR


def _mfu_row(full: float) -> dict[str, float]:
    return {
        "full": full,
        "lora": round(full * LORA_MFU_FACTOR, 2),
        "qlora": round(full * QLORA_MFU_FACTOR, 2),
    }


#: GPU class → method → default MFU.
MFU_TABLE: dict[str, dict[str, float]] = {
    gpu_class: _mfu_row(full) for gpu_class, full in _FULL_MFU.items()
}


def gpu_class(gpu: GpuSpec) -> str:
    """hopper | datacenter | workstation | other (the rows of ``MFU_TABLE``)."""
    if gpu.vendor != "NVIDIA":
        return "other"
    if gpu.family in _HOPPER:
        return "hopper"
    if gpu.family in _DATACENTER:
        return "datacenter"
    return "workstation"


def default_mfu(gpu: GpuSpec, method: str) -> float:
    return MFU_TABLE[gpu_class(gpu)][method]


def flops_per_token(
    shape: ModelShape, method: str, recompute: str, seq_len: int, lora_rank: int
) -> float:
    """Training FLOPs per token (forward + backward, + the forward work recomputed).

    ``recompute``: ``none``; ``selective`` repeats the attention-score forward (4·L·q·s);
    ``op`` (op-level selective, torchtitan) repeats every other matmul's forward (Ψ more);
    ``full`` repeats the whole forward (2·Ψ more, and the attention forward).
    """
    again = _RECOMPUTED_FORWARD.get(recompute, 0)  # share of the matmul forward (2·Ψ) again
    scores = 4 if recompute in ("selective", "full") else 0
    attention = float((12 + scores) * shape.layers * shape.q_dim * seq_len)
    if method == "full":
        return (6 + 2 * again) * float(shape.active_params) + attention
    adapters = shape.lora_active_dims * lora_rank
    dense = (4 + 2 * again) * float(shape.active_params) + (6 + 2 * again) * adapters
    return dense + attention


#: The share of the matmul forward pass each recomputation mode repeats.
_RECOMPUTED_FORWARD = {"none": 0.0, "selective": 0.0, "op": 0.5, "full": 1.0}


def training_hours(
    train_flops: float, cards: int, peak_tflops: float, mfu: float, safety_factor: float
) -> float:
    """Wall-clock hours on ``cards`` cards."""
    flops_per_second = cards * peak_tflops * 1e12 * mfu
    return train_flops * safety_factor / flops_per_second / SECONDS_PER_HOUR
