"""The planner asks the group table for its providers only when some provider states a
discount (docs/planner-pruning.md, "Sixth round: the quote's wall"): the same plan either way,
and a stated discount still read and applied."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import update

from comparator.catalog.db import make_engine
from comparator.catalog.group_stream import SqlGroupStream
from comparator.catalog.queries import PROVIDER
from comparator.config import load_settings
from comparator.domain.job import load_job
from comparator.plan.entry import Later
from comparator.services.planning import context_from_settings, plan_for_job
from tests.plan.test_plan_prune import CONTEXT, answer

JOB = "examples/lora-7b-guangdong.toml"


def test_later_reads_once_and_only_when_asked() -> None:
    calls: list[int] = []

    def read() -> list[str]:
        calls.append(1)
        return ["a", "b"]

    later = Later(read)
    assert calls == []
    assert "a" in later and sorted(later) == ["a", "b"] and len(later) == 2
    assert calls == [1]


@pytest.mark.slow
def test_providers_are_read_only_where_a_discount_is_stated(
    demo_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[int] = []
    providers = SqlGroupStream.providers

    def spied(self: SqlGroupStream) -> Any:
        asked.append(1)
        return providers(self)

    monkeypatch.setattr(SqlGroupStream, "providers", spied)
    engine = make_engine(demo_db_url)
    job = load_job(JOB)
    context = context_from_settings(load_settings({}), today=CONTEXT.today)
    plain, _ = plan_for_job(engine, job, context)
    assert asked == [] and plain.best is not None
    assert not plain.assumptions["discounts"]
    chosen = plain.best.provider
    with engine.begin() as conn:
        conn.execute(update(PROVIDER).where(PROVIDER.c.id == chosen).values(discount="0.5"))
    discounted, _ = plan_for_job(engine, job, context)
    assert asked == [1]
    assert chosen in str(discounted.assumptions["discounts"])
    assert discounted.best is not None and discounted.best.total_cost < plain.best.total_cost
    with engine.begin() as conn:
        conn.execute(update(PROVIDER).values(discount=None))
    again, _ = plan_for_job(engine, job, context)
    assert answer(again) == answer(plain)
    engine.dispose()
