"""TP × PP × CP × DP when data parallelism cannot hold the job; FlashAttention advised (issue 12)."""

from __future__ import annotations

import pytest

from comparator.estimate.estimator import EstimateRequest, estimate
from comparator.estimate.memory import memory_inputs
from comparator.estimate.parallel import _memory_gib

LONG = EstimateRequest(
    model="Llama-3.1-70B", method="full", seq_len=32768, flash_attn=False, tokens=10**9
)


def test_a_long_sequence_without_flash_attention_gets_a_layout_and_the_advice_to_turn_it_on() -> (
    None
):
    result = estimate(LONG)
    assert not result.fits  # ZeRO shards states, never a card's own activations
    doc = result.to_json()
    actions = {a["action"]: a for a in doc["advice"]}
    assert actions["parallelism"]["fits"]
    flash = actions["flash_attn"]  # 128K-vocabulary logits at 32K tokens still need TP on top
    assert flash["memory_gib"] < result.memory_gib["total"] / 5
    layout = doc["parallelism"]
    assert layout["fits"] and layout["tp"] * layout["cp"] <= 8  # TP and CP inside a node
    assert layout["cards"] == layout["tp"] * layout["pp"] * layout["cp"] * layout["dp"]
    assert layout["sequence_parallel"] == (layout["tp"] > 1)
    assert layout["time_factor"] > 1  # all-reduces and the pipeline bubble cost time
    assert layout["memory_gib"] <= result.usable_memory_gib


def test_korthikanti_tensor_and_context_parallel_divide_the_activations() -> None:
    result = estimate(LONG)
    inputs = memory_inputs(result.model, result.solution.setup)
    one = _memory_gib(inputs, 1, 1, 1, 1)
    tp8 = _memory_gib(inputs, 8, 1, 1, 1)
    activations = (inputs.layer_activation_bytes + inputs.logits_bytes) / 2**30
    states = inputs.total_weight_bytes + inputs.trainable_params * (
        inputs.grad_bytes + inputs.optimizer_bytes
    )
    assert one - tp8 == pytest.approx((activations + states / 2**30) * 7 / 8)
    cp2 = _memory_gib(inputs, 1, 1, 2, 1)
    assert one - cp2 == pytest.approx(activations / 2)
    pp4 = _memory_gib(inputs, 1, 4, 1, 1)  # 1F1B: the first stage keeps pp micro-batches
    assert one - pp4 == pytest.approx(states / 2**30 * 3 / 4)


def test_a_job_that_fits_data_parallel_reports_that_layout() -> None:
    result = estimate(EstimateRequest(model="Llama-2-13b", method="full", cards=8, tokens=10**9))
    layout = result.to_json()["parallelism"]
    assert (layout["tp"], layout["pp"], layout["cp"], layout["dp"]) == (1, 1, 1, 8)
    assert layout["hours"] == result.hours
