"""The planner uses every layout the estimator finds (issue 23, item 6): a tensor / context /
pipeline layout that fits on an offer's machine makes the offer feasible, and the plan states
it; an offer whose machines are too small for it is excluded naming the layout."""

from __future__ import annotations

import dataclasses
import math
import tomllib
from datetime import date
from decimal import Decimal
from pathlib import Path

from comparator.domain.job import Job, parse_job
from comparator.domain.money import FxTable
from comparator.estimate.estimator import estimate
from comparator.i18n import msg_from_json, render
from comparator.plan import PlanContext, plan_job
from comparator.plan.work import _request, work_table
from comparator.plan.work_hours import node_group
from tests.support.plan_fixtures import make_offer

D = Decimal
CONTEXT = PlanContext(today=date(2026, 11, 29), fx=FxTable({"CNY": D(1)}, date(2026, 11, 27)))
JOB = Path(__file__).parents[1] / "data" / "long-seq-7b-full.toml"
A100 = "A100-SXM4-80GB"


def _job() -> Job:
    return parse_job(tomllib.loads(JOB.read_text("utf-8")), str(JOB))


def _machine(offer_id: str, cards: int, node_cards: int, **fields: object) -> object:
    """Machines in Singapore (no Chinese licence needed), no RDMA network between them."""
    return make_offer(
        offer_id,
        "hourly",
        "88",
        provider="sg",
        region="sg-1",
        cards=cards,
        node_cards=node_cards,
        country="SG",
        network=None,
        **fields,  # type: ignore[arg-type]
    )


def test_seven_b_at_131072_tokens_plans_on_one_8_card_a100_machine() -> None:
    job = _job()
    # data parallelism alone cannot hold it on any card count …
    request = _request(job, A100, CONTEXT.headroom)
    assert not estimate(request).fits
    # … but the estimator's layout on 8 cards does
    on_eight = estimate(dataclasses.replace(request, cards=8))
    layout = on_eight.layout
    assert layout is not None and layout.fits and layout.tp * layout.cp > 1

    result = plan_job(job, [_machine("m", 8, 8, stock=1)], {}, CONTEXT)
    assert result.best is not None, result.message
    best = result.best
    assert best.gpu == A100 and best.cards == 8 and best.nodes == 1
    assert best.card_hours == D(repr(layout.card_hours))
    assert best.work_hours == math.ceil(layout.hours)
    stated = best.to_json()["figures"]["layout"]
    assert (stated["tp"], stated["cp"], stated["pp"], stated["dp"]) == (
        layout.tp,
        layout.cp,
        layout.pp,
        layout.dp,
    )
    text = render(msg_from_json(stated["text_msg"]), "en")
    assert text == f"TP {layout.tp} × CP {layout.cp} × PP {layout.pp} × DP {layout.dp} on 8 cards"


def test_machines_too_small_for_the_layout_are_excluded_naming_it() -> None:
    job = _job()
    group = node_group(work_table(job, [A100]).work[A100].layout)
    assert group > 1
    small = _machine("one-card", 1, 1, stock=64)
    result = plan_job(job, [small], {}, CONTEXT)
    assert result.best is None
    (excluded,) = [e for e in result.excluded if e.offer_id == "one-card"]
    assert excluded.kind == "memory"
    reason = render(excluded.reasons[0], "en")
    assert "data parallelism cannot hold the job" in reason
    assert f"needs {group} cards in one machine" in reason and "TP " in reason
    assert result.binding == "memory"
