"""An offer whose stock cannot hold any placement tried on it is excluded with the smallest of
them, not the one whose text sorts first (``104 cards need 13 units`` when the job needed 24)."""

from __future__ import annotations

from datetime import timedelta

from comparator.plan.candidates import CandidateBuilder, CandidateOptions, CandidateSet, PriceBasis
from tests.plan.test_plan_machines import CONTEXT, SG, START
from tests.support.factories import make_offer

OPTIONS = CandidateOptions(
    START, START + timedelta(days=4), True, 0, None, PriceBasis("CNY", CONTEXT.fx)
)


def test_a_stock_reason_names_the_smallest_card_count_tried() -> None:
    few = make_offer("few", "hourly", "72", cards=8, stock=2, **SG)  # type: ignore[arg-type]
    result = CandidateSet()
    CandidateBuilder(OPTIONS, result).note_unusable([few], [24, 32, 104], [])
    (reason,) = result.reasons["few"]
    assert str(reason) == "stock: 24 cards need 3 units, 2 available"
