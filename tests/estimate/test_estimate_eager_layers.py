"""What one Llama-family layer of Hugging Face's code keeps for the backward pass, as autograd
saved it (tests/data/activations/saved-bytes.json: benchmarks/saved_activations.py on the CPU;
Llama and Qwen to the byte, Gemma 1-3 within 0.4 %),
and which weights the estimate assumes: fp32 under autocast on one card (the Trainer's mixed
precision), bf16 under DeepSpeed's ZeRO (its bf16 engine) and in pure bf16."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from comparator.estimate.estimator import EstimateRequest, estimate
from comparator.estimate.memory import TrainingSetup, _activation_bytes_per_token_layer
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
