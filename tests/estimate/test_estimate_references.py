"""The estimator against published numbers: memory (full, LoRA, QLoRA, ZeRO) and GPU-hours.

Every case names its public source and a tolerance with the reason for it. Estimates use the
estimator's own defaults (MFU table, CUDA context …) — nothing here is fitted per case.

Memory units: the ZeRO paper and LitGPT print decimal GB (10⁹ bytes); LitGPT's "Max GPU RAM"
is ``torch.cuda.max_memory_allocated() / 1e9``, which excludes the CUDA context, so it is
compared with our per-card total minus the CUDA-context part.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from comparator.estimate.estimator import Estimate, EstimateRequest, estimate
from comparator.estimate.memory import GIB

CONFIGS = Path(__file__).parents[1] / "data" / "hf_configs"

ZERO_PAPER = (
    "Rajbhandari et al., ZeRO: Memory Optimizations Toward Training Trillion Parameter "
    "Models (2019), Figure 1: Ψ = 7.5B, N_d = 64, K = 12"
)
LITGPT_A100 = (
    "LitGPT tutorials/resource-tables.md (commit 8641822, 2023-10-20), 'Finetuning with LoRA "
    "on 1 GPU', A100-SXM4-40GB, bf16-true, Alpaca (longest Llama 2 sample 1,304 tokens), r=8"
)
LITGPT_HUB = (
    "LitGPT config_hub/finetune/README.md, bf16-true on Alpaca2k, max_seq_length 512, "
    "1×A10G; LoRA configs use r=32"
)
LLAMA2 = "Touvron et al., Llama 2 (2023), Table 2: 2.0T tokens, seq 4096, A100-80GB GPU-hours"
LLAMA1 = "Touvron et al., LLaMA (2023), Table 15: seq 2048, A100-80GB GPU-hours"
LLAMA31 = "Llama 3.1 model card and Llama 3 paper (2024): 405B, 15.6T tokens, seq 8192, H100"
FALCON180 = (
    "tiiuae/falcon-180B model card (huggingface.co/tiiuae/falcon-180B), training details: "
    "3.5T tokens on up to 4,096 A100 40GB, ~7,000,000 GPU hours; seq 2048"
)
DEEPSEEK_V3 = (
    "DeepSeek-V3 Technical Report, arXiv:2412.19437, Table 1: pre-training 2,664K H800 "
    "GPU-hours for 14.8T tokens, FP8 mixed precision, seq 4096, 2,048 cards"
)


@dataclass(frozen=True)
class Reference:
    case: str
    source: str
    published: float
    tolerance: float  # relative, unless absolute is set
    why: str
    request: dict[str, Any] = field(default_factory=dict)
    absolute: float | None = None

    def run(self) -> Estimate:
        return estimate(EstimateRequest(**self.request))


def _states_gb(e: Estimate) -> float:
    m = e.memory
    return (m.base_weights + m.adapter_weights + m.gradients + m.optimizer) / 1e9


def _allocated_gb(e: Estimate) -> float:
    return (e.memory.total_bytes - e.memory.cuda_context) / 1e9


# -- memory: ZeRO stages ---------------------------------------------------------------------

_ZERO_WHY = "exact arithmetic; the paper rounds to 3 significant figures: ± half its last digit"
ZERO_CASES = [
    Reference(
        f"ZeRO-{stage} model states",
        ZERO_PAPER,
        published,
        0.0,
        _ZERO_WHY,
        {
            "model": "7.5B",
            "method": "full",
            "cards": 64,
            "zero": stage,
            "seq_len": 1,
            "offload_optimizer": False,  # the paper's states are all on the cards
        },
        absolute=half_digit,
    )
    for stage, published, half_digit in (
        (0, 120.0, 0.5),
        (1, 31.4, 0.05),
        (2, 16.6, 0.05),
        (3, 1.9, 0.05),
    )
]


@pytest.mark.parametrize("ref", ZERO_CASES, ids=lambda r: r.case)
def test_zero_paper_model_states_per_card(ref: Reference) -> None:
    result = ref.run()
    assert result.zero == ref.request["zero"] and result.cards == 64
    assert _states_gb(result) == pytest.approx(ref.published, abs=ref.absolute)


# -- memory: measured LoRA / QLoRA / full peaks ----------------------------------------------

_LORA_WHY = (
    "LitGPT adapts q and v only with dropout 0.05 and a fused QKV; we model adapters "
    "on every linear layer without dropout. The saved tensors differ by a few %; 10 %. "
    "Estimated as in-house code: Hugging Face's layers and PEFT's adapters keep more "
    "(docs/estimation.md, 'What autograd saves'), LitGPT's are its own"
)
_QLORA_WHY = (
    "LitGPT's bitsandbytes 4-bit path peaks 15-23 % above NF4 storage plus the "
    "activations we count (its 16-bit LoRA runs agree within 2 %): dequantisation "
    "buffers and bnb bookkeeping we model only as one buffer; 25 %"
)
_FULL_WHY = (
    "measured peak includes PyTorch AdamW's temporary buffers and allocator rounding "
    "that we leave to the headroom; 15 %"
)


def _litgpt(
    model: str, method: str, seq_len: int, micro_batch: int, rank: int, gpu: str
) -> dict[str, Any]:
    return {
        "model": model,
        "method": method,
        "seq_len": seq_len,
        "micro_batch": micro_batch,
        "lora_rank": rank,
        "pure_bf16": True,
        "grad_ckpt": False,
        "gpu": gpu,
        "cards": 1,
        "stack": "other",  # LitGPT's own code, not Hugging Face's modeling code and PEFT
    }


MEASURED_CASES = [
    Reference(
        "Llama 2 7B LoRA mb1",
        LITGPT_A100,
        21.30,
        0.10,
        _LORA_WHY,
        _litgpt("Llama-2-7b", "lora", 1304, 1, 8, "A100-SXM4-40GB"),
    ),
    Reference(
        "Llama 2 7B LoRA mb2",
        LITGPT_A100,
        29.07,
        0.10,
        _LORA_WHY,
        _litgpt("Llama-2-7b", "lora", 1304, 2, 8, "A100-SXM4-40GB"),
    ),
    Reference(
        "Llama 2 13B LoRA mb1",
        LITGPT_A100,
        38.12,
        0.10,
        _LORA_WHY,
        _litgpt("Llama-2-13b", "lora", 1304, 1, 8, "A100-SXM4-40GB"),
    ),
    Reference(
        "Llama 2 7B QLoRA nf4-dq",
        LITGPT_A100,
        13.84,
        0.25,
        _QLORA_WHY,
        _litgpt("Llama-2-7b", "qlora", 1304, 1, 8, "A100-SXM4-40GB"),
    ),
    Reference(
        "Llama 2 13B QLoRA nf4-dq",
        LITGPT_A100,
        22.55,
        0.25,
        _QLORA_WHY,
        _litgpt("Llama-2-13b", "qlora", 1304, 1, 8, "A100-SXM4-40GB"),
    ),
    Reference(
        "llama-2-7b/lora.yaml",
        LITGPT_HUB,
        19.77,
        0.10,
        _LORA_WHY,
        _litgpt("Llama-2-7b", "lora", 512, 2, 32, "A10G"),
    ),
    Reference(
        "mistral-7b/lora.yaml",
        LITGPT_HUB,
        20.66,
        0.10,
        _LORA_WHY,
        _litgpt("Mistral-7B-v0.1", "lora", 512, 2, 32, "A10G"),
    ),
    Reference(
        "llama-3.1-8b/lora.yaml",
        LITGPT_HUB,
        19.73,
        0.10,
        _LORA_WHY,
        _litgpt("Llama-3.1-8B", "lora", 512, 1, 32, "A10G"),
    ),
    Reference(
        "tiny-llama/full.yaml (full fine-tuning)",
        LITGPT_HUB,
        14.10,
        0.15,
        _FULL_WHY,
        _litgpt(str(CONFIGS / "tinyllama-1.1b.json"), "full", 512, 4, 16, "A10G"),
    ),
]


@pytest.mark.parametrize("ref", MEASURED_CASES, ids=lambda r: r.case)
def test_measured_peak_memory(ref: Reference) -> None:
    ours = _allocated_gb(ref.run())
    assert ours == pytest.approx(ref.published, rel=ref.tolerance), (ref.source, ref.why)


@pytest.mark.parametrize(("model", "micro_batch"), [("Llama-2-7b", 4), ("Llama-2-13b", 2)])
def test_runs_litgpt_reports_as_oom_do_not_fit_a_40gb_card(model: str, micro_batch: int) -> None:
    """LITGPT_A100 lists these as OOM on one A100-40GB; with no headroom we agree."""
    request = _litgpt(model, "lora", 1304, micro_batch, 8, "A100-SXM4-40GB")
    assert not estimate(EstimateRequest(**request, headroom=0.0)).fits


def test_korthikanti_activations_without_recomputation() -> None:
    """Korthikanti et al. 2022 (Reducing Activation Recomputation…), eq. 1 and Table 2:
    s·b·h·(34 + 5·a·s/h) bytes per layer for GPT-3 175B (h 12288, a 96, s 2048).

    Tolerance 5 %: we keep fp32 copies of the norms' inputs (+4·h) and no dropout masks
    (−2·h): 36·h instead of 34·h, +1.8 % here. The paper's code is Megatron's, whose GELU is
    fused (Hugging Face's gelu_new, run as written, keeps 6·I more: test_estimate_stacks)."""
    gpt3 = CONFIGS / "gpt3-175b.json"
    request = EstimateRequest(
        model=str(gpt3),
        method="full",
        seq_len=2048,
        grad_ckpt=False,
        flash_attn=False,
        cards=1,
        stack="megatron",
    )
    result = estimate(request)
    s, b, h, a, layers = 2048, 1, 12288, 96, 96
    published = s * b * h * (34 + 5 * a * s / h) * layers
    ours = result.memory.layer_activations - 6 * h * s * b  # without the final norm
    assert ours == pytest.approx(published, rel=0.05)


def test_korthikanti_full_recomputation_keeps_layer_inputs() -> None:
    """Same paper, section 4: with full recomputation only 2·s·b·h·L bytes stay (plus one
    layer being recomputed). Exact apart from that one layer and the final norm."""
    gpt3 = CONFIGS / "gpt3-175b.json"
    with_ckpt = estimate(
        EstimateRequest(model=str(gpt3), method="full", seq_len=2048, grad_ckpt=True, cards=1)
    ).memory.layer_activations
    one_layer = estimate(
        EstimateRequest(model=str(gpt3), method="full", seq_len=2048, grad_ckpt=False, cards=1)
    ).memory.layer_activations
    s, h, layers = 2048, 12288, 96
    per_layer = (one_layer - 6 * h * s) / layers
    assert with_ckpt - per_layer - 6 * h * s == pytest.approx(2 * s * h * layers, rel=1e-12)


# -- compute: published GPU-hours ------------------------------------------------------------

_HOURS_WHY = (
    "published GPU-hours include restarts, evaluation and checkpointing; the MFU "
    "these eight runs imply under our FLOP count spans 0.37-0.55, while the table "
    "holds one value per GPU class (0.45 A100, 0.38 H100): 25 %"
)


def _pretraining(model: str, tokens: float, seq_len: int, gpu: str) -> dict[str, Any]:
    return {
        "model": model,
        "method": "full",
        "grad_ckpt": False,
        "seq_len": seq_len,
        "tokens": int(tokens),
        "gpu": gpu,
        "cards": 2048,
    }


COMPUTE_CASES = [
    Reference(
        "Llama 2 7B",
        LLAMA2,
        184_320,
        0.25,
        _HOURS_WHY,
        _pretraining("Llama-2-7b", 2.0e12, 4096, "A100-80G"),
    ),
    Reference(
        "Llama 2 13B",
        LLAMA2,
        368_640,
        0.25,
        _HOURS_WHY,
        _pretraining("Llama-2-13b", 2.0e12, 4096, "A100-80G"),
    ),
    Reference(
        "Llama 2 70B",
        LLAMA2,
        1_720_320,
        0.25,
        _HOURS_WHY,
        _pretraining("Llama-2-70b", 2.0e12, 4096, "A100-80G"),
    ),
    Reference(
        "LLaMA 7B",
        LLAMA1,
        82_432,
        0.25,
        _HOURS_WHY,
        _pretraining(str(CONFIGS / "llama-2-7b.json"), 1.0e12, 2048, "A100-80G"),
    ),
    Reference(
        "LLaMA 13B",
        LLAMA1,
        135_168,
        0.25,
        _HOURS_WHY,
        _pretraining("Llama-2-13b", 1.0e12, 2048, "A100-80G"),
    ),
    Reference(
        "LLaMA 33B",
        LLAMA1,
        530_432,
        0.25,
        _HOURS_WHY,
        _pretraining(str(CONFIGS / "llama-33b.json"), 1.4e12, 2048, "A100-80G"),
    ),
    Reference(
        "LLaMA 65B",
        LLAMA1,
        1_022_362,
        0.25,
        _HOURS_WHY,
        _pretraining(str(CONFIGS / "llama-65b.json"), 1.4e12, 2048, "A100-80G"),
    ),
    Reference(
        "Llama 3.1 405B",
        LLAMA31,
        30.84e6,
        0.25,
        _HOURS_WHY,
        _pretraining("Llama-3.1-405B", 15.6e12, 8192, "H100"),
    ),
    Reference(
        "Falcon 180B (not in the fit)",
        FALCON180,
        7.0e6,
        0.25,
        _HOURS_WHY,
        {
            **_pretraining(str(CONFIGS / "falcon-180b.json"), 3.5e12, 2048, "A100-40G"),
            "cards": 4096,
        },
    ),
    Reference(
        "DeepSeek-V3 pre-training",
        DEEPSEEK_V3,
        2.664e6,
        0.25,
        _HOURS_WHY,
        {
            **_pretraining(str(CONFIGS / "deepseek-v3.json"), 14.8e12, 4096, "H800"),
            "precision": "fp8",
        },
    ),
]
# Not used as a case: BLOOM-176B's 1,082,990 A100-80GB hours for 366B tokens (Luccioni et al.
# 2022) imply 99 TFLOP/s per GPU, while the BigScience team measured 150 TFLOP/s on the same
# run; the total holds restarts and the 3.5 months' downtime. The estimate (≈707K hours, the
# range 0.45–0.97 × the published total) does not hold it.
# Not used: the Llama 3.1 model card's 8B (1.46M) and 70B (7.0M) H100-hours imply an MFU of
# 0.18 and 0.29 under this FLOP count, far below the 38-43 % Meta reports for the same cluster,
# so those totals evidently include other work.


@pytest.mark.parametrize("ref", COMPUTE_CASES, ids=lambda r: r.case)
def test_published_gpu_hours(ref: Reference) -> None:
    result = ref.run()
    assert result.card_hours == pytest.approx(ref.published, rel=ref.tolerance), ref.why


def test_llama2_7b_calibration_point_is_close() -> None:
    """The domain notes' calibration point: 184,320 A100-80GB hours (Llama 2 paper)."""
    result = COMPUTE_CASES[0].run()
    assert result.card_hours == pytest.approx(184_320, rel=0.15)  # the fit's median error
    assert result.to_json()["mfu_source"] == "fit"
    low, high = (
        result.to_json()["card_hours_range"]["low"],
        result.to_json()["card_hours_range"]["high"],
    )
    assert low <= 184_320 <= high


def test_llama3_405b_training_flops() -> None:
    """Llama 3 paper: 3.8 × 10²⁵ FLOPs (6·Ψ·D). Ours adds the attention term (12·L·q·s per
    token, ≈ 8 % at 8K context): tolerance 10 %; the plain 6·Ψ·D rule within 1 %."""
    result = next(ref for ref in COMPUTE_CASES if ref.case == "Llama 3.1 405B").run()
    assert result.solution.train_flops == pytest.approx(3.8e25, rel=0.10)
    six_psi_d = next(r for r in result.rules_of_thumb if r["unit"] == "FLOPs")["value"]
    assert six_psi_d == pytest.approx(3.8e25, rel=0.01)


def test_reference_units_are_decimal_gigabytes() -> None:
    """Guard for the helpers above: GB here means 10⁹ bytes, not GiB."""
    assert pytest.approx(1.0737, rel=1e-4) == GIB / 1e9
