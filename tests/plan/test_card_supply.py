"""The most cards an offer can rent, and the line between a card count beyond any offer (an
error in the job file) and one the offers carry but cannot rent now (the stock diagnosis)."""

from __future__ import annotations

import math
from datetime import datetime

import pytest

from comparator.domain.job import Job, Schedule, Workload
from comparator.domain.zones import DEFAULT_TIMEZONE
from comparator.errors import JobFileError
from comparator.plan.explain.card_supply import check_card_supply, offer_supply
from tests.support.factories import make_offer


def test_an_offer_rents_its_stock_within_one_node_unless_it_has_rdma() -> None:
    assert offer_supply(make_offer("a", cards=8, stock=4, network="ib-200g")) == 32
    assert offer_supply(make_offer("b", cards=1, stock=200, network=None)) == 8  # one node
    assert offer_supply(make_offer("c", cards=1, stock=None, network="ib-200g")) == math.inf
    assert offer_supply(make_offer("d", cards=1, stock=None, network=None)) == 8


def test_an_offer_out_of_stock_counts_with_its_machines() -> None:
    assert offer_supply(make_offer("e", cards=8, stock=0, network="roce-200g")) == math.inf
    assert offer_supply(make_offer("f", cards=8, stock=0, network=None)) == 8


def _job(cards: int | None) -> Job:
    start = datetime(2026, 12, 1, tzinfo=DEFAULT_TIMEZONE)
    return Job(
        name="big",
        schedule=Schedule(start, datetime(2026, 12, 20, tzinfo=DEFAULT_TIMEZONE)),
        workload=Workload(card_hours=None, gpu="H100", cards=cards),
        source="big.toml",
    )


def test_more_cards_than_any_offer_rents_names_the_key_and_the_largest() -> None:
    offers = [
        make_offer("1", cards=8, stock=4, network="ib-200g"),
        make_offer("2", cards=1, stock=200, network=None, provider="q", region="s"),
    ]
    check_card_supply(_job(32), offers)  # one offer rents 32: planned (or stock, exit 4)
    check_card_supply(_job(None), offers)  # the planner chooses the count
    with pytest.raises(JobFileError) as caught:
        check_card_supply(_job(33), offers)
    text = str(caught.value)
    assert "[workload] cards = 33" in text and "the most is 32" in text and "offer 1" in text
    assert caught.value.hint is not None and "32 or fewer" in str(caught.value.hint)
    check_card_supply(_job(1000), [*offers, make_offer("3", stock=0, network="ib-200g")])


def test_a_training_card_count_is_checked_and_named_too() -> None:
    job = _job(None)
    trained = Job(name=job.name, schedule=job.schedule, training={"cards": 40}, source="model.toml")
    with pytest.raises(JobFileError) as caught:
        check_card_supply(trained, [make_offer("1", cards=8, stock=4, network="ib-200g")])
    assert "[training] cards = 40" in str(caught.value)
