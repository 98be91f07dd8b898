"""The seeds' 60 % rule: warn when a placement leaves rented memory or compute idle (issue 12)."""

from __future__ import annotations

from comparator.estimate.estimator import EstimateRequest, estimate


def _note(result: object, code: str) -> dict[str, object] | None:
    notes = result.to_json()["notes"]  # type: ignore[attr-defined]
    return next((n for n in notes if n["code"] == code), None)


def test_a_big_card_for_a_small_job_suggests_a_smaller_card_with_its_cost() -> None:
    result = estimate(EstimateRequest(model="Qwen2.5-7B", method="qlora", gpu="H100", tokens=10**9))
    note = _note(result, "low_memory_utilisation")
    assert note is not None and note["memory_share"] < 0.6  # type: ignore[operator]
    suggestion = note["suggestion"]
    assert isinstance(suggestion, dict)
    assert suggestion["gpu"] == "RTX4090" and suggestion["card_hours"] > 0


def test_too_many_fixed_cards_suggest_the_estimators_own_placement() -> None:
    result = estimate(
        EstimateRequest(model="Qwen2.5-7B", method="lora", gpu="A100-80G", cards=8, tokens=10**9)
    )
    note = _note(result, "low_memory_utilisation")
    assert note is not None
    assert note["suggestion"]["cards"] == 1  # type: ignore[index]


def test_pcie_cards_that_mostly_wait_get_a_compute_warning() -> None:
    result = estimate(
        EstimateRequest(model="Llama-2-7b", method="lora", gpu="4090", cards=4, tokens=10**9)
    )
    note = _note(result, "low_compute_utilisation")
    assert note is not None and note["compute_share"] < 0.6  # type: ignore[operator]
    suggestion = note["suggestion"]
    assert isinstance(suggestion, dict) and suggestion["cards"] < 4
    assert suggestion["card_hours"] < result.card_hours


def test_a_well_sized_placement_has_no_utilisation_warning() -> None:
    result = estimate(
        EstimateRequest(model="Llama-2-13b", method="full", gpu="A100-80G", cards=8, tokens=10**9)
    )
    assert _note(result, "low_memory_utilisation") is None
    assert _note(result, "low_compute_utilisation") is None
