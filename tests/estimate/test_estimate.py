"""The estimator: contract JSON, card/ZeRO search, compute, advice and bad input."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from comparator.errors import InputError, UnknownGpuError, UnknownModelError
from comparator.estimate.estimator import EstimateRequest, estimate, parse_token_count
from comparator.estimate.memory import CUDA_CONTEXT_GIB, NF4_BYTES_PER_PARAM
from comparator.estimate.search import CARD_CANDIDATES
from comparator.estimate.shapes import resolve_model

CONFIGS = Path(__file__).parents[1] / "data" / "hf_configs"
CONTRACT_KEYS = {
    "model",
    "method",
    "precision",
    "gpu",
    "cards",
    "min_cards",
    "zero",
    "fits",
    "memory_gib",
    "tokens",
    "train_flops",
    "mfu",
    "hours",
    "card_hours",
}
MEMORY_PARTS = ("weights", "gradients", "optimizer", "activations", "overhead")


def _json(**kw: object) -> dict[str, object]:
    document = estimate(EstimateRequest(**kw)).to_json()  # type: ignore[arg-type]
    return json.loads(json.dumps(document))  # what --json prints, round-tripped


def test_json_has_the_contract_keys_and_types() -> None:
    doc = _json(model="Llama-2-7b", tokens=10**9)
    assert doc.keys() >= CONTRACT_KEYS
    assert doc["model"]["params"] == 6_738_415_616
    assert {
        "name",
        "params",
        "layers",
        "hidden",
        "heads",
        "kv_heads",
        "intermediate",
        "vocab",
    } <= doc["model"].keys()
    assert doc["gpu"] == {"name": "A100-SXM4-80GB", "memory_gib": 80.0, "peak_tflops": 312.0}
    assert set(doc["memory_gib"]) == {*MEMORY_PARTS, "total"}
    for key in ("train_flops", "mfu", "hours", "card_hours"):
        assert isinstance(doc[key], float)
    assert isinstance(doc["cards"], int) and isinstance(doc["fits"], bool)


@pytest.mark.parametrize(
    "request_kw",
    [
        {"model": "Llama-2-7b", "method": "full", "tokens": 2 * 10**12},
        {"model": "Qwen2.5-72B", "method": "qlora", "tokens": 3 * 10**8, "gpu": "4090"},
        {"model": "Mixtral-8x7B", "method": "lora", "tokens": 10**9, "cards": 3, "zero": 3},
        {"model": "Llama-3.1-70B", "method": "full", "tokens": 10**9, "seq_len": 8192},
    ],
)
def test_total_is_the_exact_sum_and_card_hours_hours_times_cards(request_kw: dict) -> None:
    doc = _json(**request_kw)
    memory = doc["memory_gib"]
    assert memory["total"] == sum(memory[p] for p in MEMORY_PARTS)
    assert doc["card_hours"] == doc["hours"] * doc["cards"]
    usable = (1 - doc["headroom"]) * doc["gpu"]["memory_gib"]
    assert doc["fits"] == (memory["total"] <= usable)


def test_detail_parts_add_up_to_the_contract_parts() -> None:
    doc = _json(model="Qwen2.5-7B", method="qlora", cards=4, zero=3, tokens=10**9)
    d, m = doc["memory_detail_gib"], doc["memory_gib"]
    mib = 1 / 1024
    assert d["base_weights"] + d["adapter_weights"] == pytest.approx(m["weights"], abs=mib)
    assert d["layer_activations"] + d["logits"] == pytest.approx(m["activations"], abs=mib)
    overhead = d["cuda_context"] + d["zero3_gathered"] + d["comm_buckets"] + d["dequant_workspace"]
    assert overhead == pytest.approx(m["overhead"], abs=2 * mib)
    assert d["cuda_context"] == CUDA_CONTEXT_GIB and d["dequant_workspace"] > 0


def test_peft_trainable_parameter_count_for_all_linear_lora() -> None:
    """PEFT prints 39,976,960 trainable params for Llama-2-7b, r=16 on all linear layers."""
    result = estimate(EstimateRequest(model="Llama-2-7b", lora_rank=16))
    assert result.trainable_params == 39_976_960


def test_qlora_keeps_embeddings_and_head_in_16_bit() -> None:
    shape = resolve_model("Llama-2-7b")
    result = estimate(EstimateRequest(model="Llama-2-7b", method="qlora"))
    embeddings = 2 * 32000 * 4096
    expected = (
        shape.quantizable_params * NF4_BYTES_PER_PARAM
        + (shape.params - shape.quantizable_params) * 2
    )
    assert shape.params - shape.quantizable_params == embeddings + 65 * 4096  # + norms
    assert result.memory.base_weights == pytest.approx(expected)


def test_mixed_precision_adamw_is_16_bytes_and_pure_bf16_is_8() -> None:
    on_card = EstimateRequest(model="7B", method="full", cards=1, offload_optimizer=False)
    mixed = estimate(on_card)
    pure = estimate(replace(on_card, pure_bf16=True))

    def states(e: object) -> float:
        m = e.memory  # type: ignore[attr-defined]
        return float(m.base_weights + m.gradients + m.optimizer)

    assert states(mixed) == 16 * 7e9 and states(pure) == 8 * 7e9


@pytest.mark.parametrize(
    ("optimizer", "pure", "bytes_per_param"),
    [
        ("adamw-8bit", False, 6),
        ("adamw-8bit", True, 2),
        ("sgd", False, 8),
        ("sgd", True, 2),
    ],
)
def test_optimizer_state_bytes(optimizer: str, pure: bool, bytes_per_param: int) -> None:
    result = estimate(
        EstimateRequest(
            model="7B",
            method="full",
            optimizer=optimizer,
            pure_bf16=pure,
            cards=1,
            offload_optimizer=False,
        )
    )
    assert result.memory.optimizer == bytes_per_param * 7e9


def test_fp32_doubles_weights_and_activations() -> None:
    bf16 = estimate(EstimateRequest(model="Llama-2-7b", method="lora", cards=1, micro_batch=1))
    fp32 = estimate(
        EstimateRequest(model="Llama-2-7b", method="lora", cards=1, precision="fp32", micro_batch=1)
    )
    assert fp32.memory.base_weights == 2 * bf16.memory.base_weights
    assert fp32.memory.layer_activations == 2 * bf16.memory.layer_activations


def test_moe_memory_counts_all_experts_and_flops_the_active_ones() -> None:
    result = estimate(
        EstimateRequest(model="Mixtral-8x7B", method="full", tokens=10**9, grad_ckpt=False, cards=1)
    )
    shape = result.model
    assert result.memory.base_weights == 2 * 46_702_792_704
    attention = 12 * shape.layers * shape.q_dim * 2048
    assert result.solution.flops_per_token == 6 * shape.active_params + attention
    assert any(n.code == "moe" for n in result.notes)


@pytest.mark.parametrize(
    ("method", "ckpt", "dense"),
    [
        ("full", False, 6),
        ("full", True, 8),
        ("lora", False, 4),
        ("lora", True, 6),
    ],
)
def test_flops_per_token_by_method(method: str, ckpt: bool, dense: int) -> None:
    result = estimate(
        EstimateRequest(
            model="Llama-2-7b", method=method, grad_ckpt=ckpt, seq_len=4096, lora_rank=8
        )
    )
    shape = result.model
    attention = (16 if ckpt else 12) * 32 * 4096 * 4096
    adapters = 0 if method == "full" else (8 if ckpt else 6) * shape.lora_active_dims * 8
    assert result.solution.flops_per_token == dense * shape.params + adapters + attention


def test_hours_follow_flops_peak_and_mfu() -> None:
    result = estimate(
        EstimateRequest(
            model="Qwen2.5-7B",
            tokens=3 * 10**8,
            epochs=3,
            mfu=0.3,
            gpu="H800",
            cards=2,
            safety_factor=1.5,
        )
    )
    expected = result.train_flops * 1.5 / (2 * 989e12 * 0.3) / 3600
    assert result.hours == pytest.approx(expected, rel=1e-12)
    assert result.total_tokens == 9 * 10**8 and result.to_json()["mfu_source"] == "user"


def test_samples_times_average_tokens() -> None:
    by_samples = estimate(EstimateRequest(model="Qwen2.5-7B", samples=52_000, avg_tokens=300))
    by_tokens = estimate(EstimateRequest(model="Qwen2.5-7B", tokens=15_600_000))
    assert by_samples.hours == by_tokens.hours and by_samples.tokens == 15_600_000


def test_without_tokens_only_memory_is_estimated() -> None:
    result = estimate(EstimateRequest(model="Qwen2.5-7B"))
    assert result.hours == 0.0 and result.card_hours == 0.0
    assert [n.code for n in result.notes if n.code == "no_tokens"] == ["no_tokens"]


def test_card_hours_do_not_depend_on_the_card_count_within_a_node() -> None:
    base = EstimateRequest(model="Llama-2-7b", method="full", tokens=10**10, grad_ckpt=True)
    two, eight = estimate(replace(base, cards=2)), estimate(replace(base, cards=8))
    assert two.card_hours == pytest.approx(eight.card_hours, rel=1e-12)
    assert eight.hours == pytest.approx(two.hours / 4, rel=1e-12)
    sixteen = estimate(replace(base, cards=16))  # across nodes: the fitted multi-node factor
    # the published runs show no loss across nodes on the reference network (the fit pins a
    # positive multi-node coefficient at 0); a slower offered network still costs time
    assert sixteen.card_hours >= eight.card_hours


# -- cards and ZeRO ------------------------------------------------------------------------


def test_lora_7b_fits_one_card_without_sharding() -> None:
    result = estimate(EstimateRequest(model="Qwen2.5-7B"))
    assert (result.cards, result.min_cards, result.zero, result.fits) == (1, 1, 0, True)
    assert result.strategy == "single card" and not result.needs_rdma


def test_minimal_cards_and_lowest_stage_for_7b_full() -> None:
    free = EstimateRequest(model="Llama-2-7b", method="full", tokens=10**9)
    result = estimate(free)
    assert result.fits and result.cards == result.min_cards
    chosen = result.solution.setup  # the savers chosen, pinned for the smaller counts
    request = replace(
        free,
        grad_ckpt=chosen.recompute,
        chunked_loss=chosen.chunked_loss,
        offload_optimizer=chosen.offload_optimizer,
    )
    previous = CARD_CANDIDATES[CARD_CANDIDATES.index(result.cards) - 1]
    assert not estimate(replace(request, cards=previous, zero=3)).fits
    for lower in range(result.zero):
        assert not estimate(replace(request, cards=result.cards, zero=lower)).fits


def test_70b_full_fine_tuning_needs_several_nodes_and_rdma() -> None:
    result = estimate(EstimateRequest(model="Llama-3.1-70B", method="full", tokens=10**9))
    assert result.fits and result.cards > 8 and result.cards % 8 == 0
    assert result.nodes == result.cards // 8 and result.needs_rdma and result.zero == 3
    assert any(n.code == "multi_node" and "RDMA" in n.message for n in result.notes)
    assert "RDMA" in result.strategy


def test_headroom_decides_the_fit() -> None:
    request = EstimateRequest(
        model="Llama-2-13b",
        method="lora",
        cards=1,
        gpu="A100-40G",
        seq_len=512,
        grad_ckpt=True,
        chunked_loss=False,
        offload_optimizer=False,
        micro_batch=1,
    )
    total = estimate(request).memory_gib["total"]
    share = total / 40
    assert estimate(replace(request, headroom=round(1 - share - 0.01, 3))).fits
    assert not estimate(replace(request, headroom=round(1 - share + 0.01, 3))).fits


def test_nothing_fits_means_no_min_cards_and_reasons() -> None:
    request = EstimateRequest(
        model="Llama-3.1-8B",
        method="full",
        seq_len=131072,
        grad_ckpt=False,
        micro_batch=4,
        tokens=10**9,
    )
    result = estimate(request)
    assert not result.fits and result.min_cards is None and result.zero == 3
    doc = result.to_json()
    assert "activations" in doc["why_not"] and doc["advice"]
    assert any(a["fits"] for a in doc["advice"]), "some alternative (or the combination) fits"


def test_advice_lists_the_downgrade_paths_with_memory_and_time() -> None:
    request = EstimateRequest(
        model="Llama-2-13b",
        method="full",
        gpu="A100-80G",
        cards=1,
        micro_batch=2,
        seq_len=1024,
        grad_ckpt=False,
        chunked_loss=False,
        offload_optimizer=False,
        tokens=10**9,
    )
    result = estimate(request)
    assert not result.fits
    actions = {a.action for a in result.advice}
    assert {
        "grad_ckpt",
        "micro_batch",
        "lora",
        "qlora",
        "offload_optimizer",
        "more_cards",
    } <= actions
    lora = next(a for a in result.advice if a.action == "lora")
    assert lora.fits and lora.memory_gib < result.memory_gib["total"] and lora.hours > 0
    ckpt = next(a for a in result.advice if a.action == "grad_ckpt")
    assert ckpt.hours > result.hours  # recomputation costs time
    more = next(a for a in result.advice if a.action == "more_cards")
    assert more.cards == result.min_cards and more.fits
    fitting = [a.fits for a in result.advice]
    assert fitting == sorted(fitting, reverse=True)
    combined = next(a for a in result.advice if a.action == "combined")
    assert combined.fits and len(combined.change) >= 2


def test_combined_changes_when_no_single_one_fits() -> None:
    request = EstimateRequest(
        model="Llama-3.1-70B",
        method="full",
        gpu="H800",
        cards=8,
        micro_batch=4,
        grad_ckpt=False,
        chunked_loss=False,
        offload_optimizer=False,
        tokens=10**9,
    )
    result = estimate(request)
    singles = [a for a in result.advice if a.action != "combined"]
    assert singles and not any(a.fits for a in singles)
    combined = result.advice[0]
    assert combined.action == "combined" and combined.fits
    assert combined.change == {"micro_batch": 1, "grad_ckpt": True, "cards": None, "zero": None}
    assert f"cards={combined.cards}" in combined.description and combined.cards > 8


def test_shorter_sequences_are_advised_when_they_help() -> None:
    request = EstimateRequest(
        model="Llama-2-7b", seq_len=32768, grad_ckpt=False, cards=1, tokens=10**9
    )
    result = estimate(request)
    shorter = next(a for a in result.advice if a.action == "shorter_seq")
    assert shorter.fits and shorter.change["seq_len"] < 32768
    doubled = estimate(replace(request, seq_len=2 * shorter.change["seq_len"]))
    assert not doubled.fits  # the longest power-of-two fraction that fits


def test_a_fitting_job_gets_no_advice() -> None:
    assert estimate(EstimateRequest(model="Qwen2.5-7B")).advice == ()


def test_rules_of_thumb_sit_beside_our_numbers() -> None:
    result = estimate(EstimateRequest(model="Llama-2-7b", method="full", tokens=10**9))
    rules = {r["rule"]: r for r in result.rules_of_thumb}
    eighteen = rules["18 bytes per parameter (full fine-tuning)"]
    assert eighteen["value"] == round(18 * 6_738_415_616 / 2**30, 1)
    assert eighteen["ours"] == round(result.memory_gib["total"] * result.cards, 1)
    lora = estimate(EstimateRequest(model="Llama-2-7b", tokens=10**9)).rules_of_thumb
    assert any("1/5" in r["rule"] for r in lora)


# -- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"seq_len": 0}, "--seq-len must be a positive integer, got 0"),
        ({"micro_batch": -1}, "--micro-batch"),
        ({"method": "dora"}, "--method must be one of full, lora, qlora"),
        ({"zero": 4}, "--zero must be 0, 1, 2 or 3"),
        ({"mfu": 1.5}, "--mfu must be in (0, 1]"),
        ({"headroom": 1.0}, "--headroom"),
        ({"tokens": 5, "samples": 5, "avg_tokens": 3}, "--samples cannot be combined"),
        ({"samples": 5}, "--avg-tokens is needed"),
        ({"pure_bf16": True, "precision": "fp32"}, "--pure-bf16 needs precision bf16"),
        ({"lora_rank": 4096}, "--lora-rank 4096 must be smaller than the hidden size 4096"),
        ({"cards": 0}, "--cards"),
    ],
)
def test_bad_settings_raise_one_clear_input_error(change: dict, fragment: str) -> None:
    with pytest.raises(InputError) as caught:
        estimate(EstimateRequest(model="Llama-2-7b", **change))
    assert fragment in str(caught.value)
    assert "\n" not in str(caught.value)


def test_unknown_model_gpu_and_unestimable_gpu() -> None:
    with pytest.raises(UnknownModelError, match="unknown model '7Q'"):
        estimate(EstimateRequest(model="7Q"))
    with pytest.raises(UnknownGpuError, match="unknown GPU 'A1OO-80G'"):
        estimate(EstimateRequest(model="7B", gpu="A1OO-80G"))
    with pytest.raises(InputError, match="priced but not estimated"):
        estimate(EstimateRequest(model="7B", gpu="GTX1660S"))


def test_config_missing_keys_is_an_input_error() -> None:
    with pytest.raises(UnknownModelError, match="missing key 'hidden_size'"):
        estimate(EstimateRequest(model=str(CONFIGS / "missing-hidden-size.json")))


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("2T", 2 * 10**12),
        ("300M", 3 * 10**8),
        ("1.5e9", 1_500_000_000),
        ("52k", 52_000),
        ("3亿", 3 * 10**8),
        ("1,000,000", 10**6),
        ("7B", 7 * 10**9),
        (1000, 1000),
        (2e9, 2 * 10**9),
    ],
)
def test_parse_token_count(text: str | int, count: int) -> None:
    assert parse_token_count(text) == count


@pytest.mark.parametrize("text", ["abc", "-5", "2X", "", "1e999", True])
def test_parse_token_count_rejects(text: object) -> None:
    with pytest.raises(InputError, match="token count"):
        parse_token_count(text)  # type: ignore[arg-type]
