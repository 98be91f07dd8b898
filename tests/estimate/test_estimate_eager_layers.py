"""What one layer of Hugging Face's code keeps for the backward pass, as autograd
saved it (tests/data/activations/saved-bytes.json: benchmarks/saved_activations.py on the CPU;
Llama and Qwen to the byte, Gemma 1-3 within 0.4 %, GPT-NeoX-20B within 0.1 %; the scores of
models that have only eager attention),
and which weights the estimate assumes: fp32 under autocast on one card (the Trainer's mixed
precision), bf16 under DeepSpeed's ZeRO (its bf16 engine) and in pure bf16."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from comparator.estimate.estimator import EstimateRequest, estimate
from comparator.estimate.hf_activations import UNFUSED_GELU_BYTES
from comparator.estimate.memory import (
    TrainingSetup,
    _activation_bytes_per_token_layer,
    _score_bytes_per_token_layer,
)
from comparator.estimate.shapes import resolve_model

DATA = Path(__file__).parents[1] / "data"
MEASURED = json.loads((DATA / "activations" / "saved-bytes.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "row", MEASURED["rows"], ids=lambda r: f"{r['config']}-{r['method']}-{r['weights']}"
)
def test_a_layer_keeps_what_autograd_saved(row: dict[str, Any]) -> None:
    config = str(DATA / "hf_configs" / row["config"])
    request = EstimateRequest(
        model=config,
        method=row["method"],
        lora_rank=16,
        seq_len=384,
        pure_bf16=row["method"] == "full" and row["weights"] == "bf16",
        stack="hf",
        cards=1,
    )
    setup = TrainingSetup(request)
    within = row.get("within_bytes", 0.5)  # Gemma's (1 + w) norms: a few bytes more
    assert _activation_bytes_per_token_layer(resolve_model(config), setup) == pytest.approx(
        row["layer_bytes_per_token"], abs=within
    )


def test_the_trainer_autocasts_fp32_weights_on_one_card_and_deepspeed_holds_bf16() -> None:
    """Full fine-tuning under the Trainer's mixed precision keeps 10·h bytes more per token
    and layer (fp32 norms, one bf16 cast of each linear layer's input) than in bf16; under a
    ZeRO stage (DeepSpeed) and under the deepspeed stack the bf16 figure holds; LoRA's frozen
    bf16 weights never autocast."""
    base = EstimateRequest(
        model="Llama-2-7b", method="full", seq_len=2048, grad_ckpt="none", gpu="H200", cards=1
    )
    tokens, layers, h = 2048, 32, 4096
    alone = estimate(replace(base, stack="hf", zero=0)).memory.layer_activations
    sharded = estimate(replace(base, stack="hf", cards=8, zero=3)).memory.layer_activations
    deepspeed = estimate(replace(base, stack="deepspeed", zero=0)).memory.layer_activations
    assert alone - sharded == 10 * h * tokens * layers
    assert sharded == deepspeed
    lora = replace(base, method="lora", lora_rank=16)
    assert (
        estimate(replace(lora, stack="hf", zero=0)).memory.layer_activations
        == estimate(replace(lora, stack="hf", cards=8, zero=3)).memory.layer_activations
    )


@pytest.mark.parametrize("row", MEASURED["eager_scores"]["rows"], ids=lambda r: r["config"])
def test_a_model_with_only_eager_attention_keeps_its_scores_under_hugging_face_s_code(
    row: dict[str, Any],
) -> None:
    """BLOOM and MPT have no attention in Hugging Face's code but their own eager one: under
    the stacks that run it (hf, deepspeed) each layer keeps what autograd saved of the scores,
    the fp32 softmax and its 16-bit cast, whether or not the job asks for FlashAttention; a
    stack with attention of its own (torchtitan) keeps none with FlashAttention."""
    config = str(DATA / "hf_configs" / row["config"])
    shape = resolve_model(config)
    assert shape.heads == row["heads"]

    def scores(stack: str, flash: bool) -> float:
        request = EstimateRequest(
            model=config, method="lora", lora_rank=16, seq_len=384, stack=stack, cards=1
        )
        setup = TrainingSetup(replace(request, flash_attn=flash))
        return _score_bytes_per_token_layer(shape, setup)

    for stack in ("hf", "deepspeed"):
        assert scores(stack, True) == scores(stack, False) == row["score_bytes_per_token"]
    assert scores("torchtitan", True) == 0


def test_eager_attention_is_noted_and_flash_attention_not_advised() -> None:
    """The estimate says why BLOOM's scores are kept, and does not offer FlashAttention as a
    saver where Hugging Face's code has none."""
    request = EstimateRequest(
        model=str(DATA / "hf_configs" / "bloom-7b1.json"),
        method="lora",
        seq_len=16384,  # does not fit: alternatives are advised
        flash_attn=False,
        gpu="A100-40G",
        cards=1,
        stack="hf",
    )
    bloom = estimate(request)
    llama = estimate(replace(request, model="Llama-2-7b"))
    assert not bloom.solution.fits and not llama.solution.fits
    assert "eager_attention" in {n.code for n in bloom.notes}
    assert "eager_attention" not in {n.code for n in llama.notes}
    advised = {e: {a.action for a in found.advice} for e, found in (("b", bloom), ("l", llama))}
    assert "flash_attn" in advised["l"] and "flash_attn" not in advised["b"]


def test_gelu_fast_keeps_what_autograd_saved_of_gpt_neox_20b_s_mlp() -> None:
    """fc1's output and fc2's input (4 bytes an element) and gelu_fast's six more tensors."""
    row = MEASURED["gelu_fast"]
    assert (4 + UNFUSED_GELU_BYTES["gelu_fast"]) * row["mlp_width"] == row["mlp_bytes_per_token"]
    shape = resolve_model(str(DATA / "hf_configs" / row["config"]))
    assert (shape.unfused_gelu, shape.active_mlp_width) == ("gelu_fast", row["mlp_width"])


def test_gpt_j_s_flash_attention_is_noted_as_on_request_only() -> None:
    """GPT-J's Hugging Face code has FlashAttention 2 but no SDPA: an estimate that assumes
    FlashAttention says it needs asking for; one without it counts the scores and says
    nothing; a stack with attention of its own says nothing either."""
    request = EstimateRequest(
        model=str(DATA / "hf_configs" / "gpt-j-6b.json"), method="lora", seq_len=2048, cards=1
    )

    def codes(**change: Any) -> set[str]:
        return {n.code for n in estimate(replace(request, **change)).notes}

    assert "flash_attention_on_request" in codes(stack="hf")
    assert "flash_attention_on_request" not in codes(stack="hf", flash_attn=False)
    assert "flash_attention_on_request" not in codes(stack="torchtitan", method="full")
    assert "flash_attention_on_request" not in codes(stack="hf", model="Llama-2-7b")
    neo = str(DATA / "hf_configs" / "gpt-neo-125m.json")  # the same in Hugging Face's code
    assert "flash_attention_on_request" in codes(stack="hf", model=neo)
