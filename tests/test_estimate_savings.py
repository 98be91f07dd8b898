"""Memory savers chosen only when needed, cheapest first, unless the user fixes them (issue 12)."""

from __future__ import annotations

import pytest

from comparator.estimate.estimator import EstimateRequest, estimate


def _choice(result: object, setting: str) -> dict[str, object]:
    doc = result.to_json()  # type: ignore[attr-defined]
    return next(c for c in doc["memory_choices"] if c["setting"] == setting)


def test_13b_full_on_8_a100_does_not_turn_checkpointing_on() -> None:
    """Issue 12: 13B full fine-tuning on 8×A100, seq 2048, ZeRO as needed — memory is ample."""
    result = estimate(
        EstimateRequest(
            model="Llama-2-13b", method="full", gpu="A100-80G", cards=8, seq_len=2048, tokens=10**9
        )
    )
    assert result.fits and result.solution.setup.recompute == "none"
    doc = result.to_json()
    assert doc["grad_ckpt"] is False and doc["recompute"] == "none"
    recompute = _choice(result, "recompute")
    assert recompute["chosen_by"] == "estimator" and recompute["time_factor"] == 1.0
    assert not doc["chunked_loss"] and not doc["offload_optimizer"]


def test_13b_full_with_free_cards_prefers_a_node_without_recomputation() -> None:
    result = estimate(EstimateRequest(model="Llama-2-13b", method="full", tokens=10**9))
    assert result.fits and result.cards <= 8 and result.solution.setup.recompute == "none"


def test_checkpointing_is_chosen_when_activations_do_not_fit_and_costs_a_third() -> None:
    result = estimate(
        EstimateRequest(model="Llama-3.1-70B", method="full", seq_len=4096, tokens=10**9)
    )
    assert result.fits and result.solution.setup.recompute == "full"
    recompute = _choice(result, "recompute")
    assert "activations do not fit" in str(recompute["reason"])
    assert recompute["time_factor"] == pytest.approx(1.33, abs=0.02)
    plain = estimate(
        EstimateRequest(
            model="Llama-3.1-70B",
            method="full",
            seq_len=4096,
            tokens=10**9,
            cards=result.cards,
            grad_ckpt=False,
        )
    )
    assert not plain.fits


def test_selective_recomputation_without_flash_attention() -> None:
    result = estimate(
        EstimateRequest(model="Llama-2-7b", seq_len=8192, flash_attn=False, cards=1, tokens=10**9)
    )
    assert result.fits and result.solution.setup.recompute == "selective"
    assert 1.0 < _choice(result, "recompute")["time_factor"] < 1.15  # type: ignore[operator]


def test_chunked_loss_when_the_logits_are_what_does_not_fit() -> None:
    request = EstimateRequest(
        model="Llama-3.2-1B", method="lora", seq_len=4096, micro_batch=2, cards=1, gpu="4090"
    )
    result = estimate(request)
    assert result.fits and result.solution.setup.chunked_loss
    assert result.solution.setup.recompute == "none"  # cheaper than recomputing
    assert result.memory.logits == 2 * 4096 * 128256 * (2 + 14 / 8)  # bf16 + one fp32 chunk
    assert _choice(result, "chunked_loss")["time_factor"] == 1.0
    plain = {**request.__dict__, "chunked_loss": False, "grad_ckpt": False}
    assert not estimate(EstimateRequest(**plain)).fits


def test_cpu_offload_only_when_asked_for_and_advised_with_its_cost() -> None:
    request = EstimateRequest(model="Llama-2-13b", method="full", cards=1, tokens=10**9)
    on_card = estimate(request)
    assert not on_card.fits and not on_card.solution.setup.offload_optimizer
    advised = next(a for a in on_card.advice if a.action == "offload_optimizer")
    assert advised.fits and advised.cpu_memory_gib > 100
    offloaded = estimate(EstimateRequest(**{**request.__dict__, "offload_optimizer": True}))
    assert offloaded.fits and offloaded.memory.optimizer == 0
    assert _choice(offloaded, "offload_optimizer")["time_factor"] == 1.3
    assert advised.hours == pytest.approx(on_card.hours * 1.3)


def test_user_settings_are_kept_and_reported_as_the_users() -> None:
    result = estimate(EstimateRequest(model="Qwen2.5-7B", grad_ckpt=True, chunked_loss=True))
    assert result.solution.setup.recompute == "full" and result.solution.setup.chunked_loss
    assert _choice(result, "recompute")["chosen_by"] == "user"
    assert _choice(result, "chunked_loss")["reason"] == "set by the user"


@pytest.mark.parametrize(
    ("value", "mode"), [(True, "full"), (False, "none"), ("selective", "selective")]
)
def test_grad_ckpt_spellings(value: bool | str, mode: str) -> None:
    assert (
        estimate(EstimateRequest(model="Qwen2.5-7B", grad_ckpt=value)).solution.setup.recompute
        == mode
    )


def test_cli_flags_fix_the_savers(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from comparator.cli import main

    args = ["estimate", "--model", "Qwen2.5-7B", "--json", "--recompute", "selective"]
    assert main([*args, "--chunked-loss", "--no-offload"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["recompute"], doc["chunked_loss"], doc["offload_optimizer"]) == (
        "selective",
        True,
        False,
    )
    assert {c["chosen_by"] for c in doc["memory_choices"]} == {"user"}
    assert main(["estimate", "--model", "Qwen2.5-7B", "--recompute", "some"]) != 0
    assert "--grad-ckpt" in capsys.readouterr().err
