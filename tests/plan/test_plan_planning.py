"""The planner end to end on in-memory offers: exclusions, prices, card counts, pruning, the
objective, monotonicity and the independent validator (every plan goes through it)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

from rich.cells import cell_len

from comparator.catalog.models import OfferView
from comparator.domain.gpus import GPUS
from comparator.domain.job import Job, Requirements, Schedule, Workload
from comparator.domain.money import FxTable
from comparator.estimate.throughput import (
    is_rdma,
    relative_throughput,
    run_hours,
    scale_card_hours,
    throughput_table,
)
from comparator.plan import PlanContext, plan_job
from comparator.plan.candidates import PriceBasis
from comparator.plan.explain.timeline import timeline_lines
from comparator.plan.job_plan import prepare
from comparator.plan.result import PlanResult
from comparator.plan.selection import PlanOptions, _evaluate, choose, lower_bound_cents
from tests.support.factories import make_offer
from tests.support.plan_validate import ValidationContext, validate_plan

D = Decimal
SHANGHAI = ZoneInfo("Asia/Shanghai")
START = datetime(2026, 12, 1, tzinfo=SHANGHAI)
NIGHT = "00:00-08:00*0.5"
CONTEXT = PlanContext(
    today=date(2026, 11, 29), fx=FxTable({"CNY": D(1), "USD": D("7.12")}, date(2026, 11, 27))
)


def job(
    card_hours: int = 64,
    *,
    cards: int | None = None,
    days: int = 7,
    interruptible: bool = True,
    overhead: int = 0,
    spot: bool = False,
    gpus: tuple[str, ...] = (),
    budget: Decimal | None = None,
    gpu: str = "A100-SXM4-80GB",
) -> Job:
    schedule = Schedule(START, START + timedelta(days=days), interruptible, overhead)
    return Job(
        name="test",
        schedule=schedule,
        workload=Workload(D(card_hours), gpu, cards),
        requirements=Requirements(gpus=gpus, spot=spot),
        max_cost=budget,
        source="test.toml",
    )


def sg(offer_id: str, billing: str = "hourly", price: str = "10", **fields: object) -> OfferView:
    """An offer in a Singapore data centre: no Chinese licence needed."""
    fields.setdefault("provider", "sg")
    fields.setdefault("region", "sg-1")
    return make_offer(offer_id, billing, price, country="SG", **fields)  # type: ignore[arg-type]


def planned(
    the_job: Job,
    offers: Sequence[OfferView],
    context: PlanContext = CONTEXT,
) -> PlanResult:
    """Plan and validate every plan of the result independently."""
    result = plan_job(the_job, offers, {}, context)
    check = ValidationContext(
        the_job,
        {o.offer_id: o for o in offers},
        PriceBasis(the_job.currency, context.fx),
        context.multi_node_efficiency,
    )
    for plan in ([result.best] if result.best else []) + result.alternatives:
        assert validate_plan(plan, check) == []
    return result


def reasons(result: PlanResult, offer_id: str) -> str:
    return " ".join(str(r) for e in result.excluded if e.offer_id == offer_id for r in e.reasons)


# --- exclusions --------------------------------------------------------------------------------
def test_spot_needs_an_interruptible_job_that_allows_it() -> None:
    offers = [sg("spot", "spot", "4"), sg("od", "hourly", "10")]
    refused = planned(job(), offers)
    assert "spot" in reasons(refused, "spot")
    assert refused.best is not None and refused.best.segments[0].offer_id == "od"
    allowed = planned(job(spot=True), offers)
    assert allowed.best is not None and allowed.best.segments[0].billing == "spot"
    assert "spot" in reasons(planned(job(spot=True, interruptible=False), offers), "spot")


def test_gpu_requirements_exclude_other_models() -> None:
    offers = [sg("a100", price="10"), sg("h800", price="20", gpu="H800-SXM5-80GB")]
    result = planned(job(gpus=("H800-SXM5-80GB",)), offers)
    assert "not among [requirements] gpus" in reasons(result, "a100")
    assert result.best is not None and result.best.gpu == "H800-SXM5-80GB"


def test_stock_and_network_limits_name_the_reason() -> None:
    """16 cards that an offer out of stock carries (its IB nodes): the stock diagnosis, not
    the error of cards beyond every offer (tests/plan/test_card_supply.py)."""
    offers = [
        sg("few", price="5", stock=4),
        sg("no-ib", price="6", network="eth-25g", provider="other"),
        sg("sold-out", price="7", stock=0, provider="third"),
    ]
    result = planned(job(cards=16), offers)
    assert "stock: 16 cards need 16 units, 4 available" in reasons(result, "few")
    assert "needs an IB/RoCE network" in reasons(result, "no-ib")
    assert "stock: 16 cards need 16 units, 0 available" in reasons(result, "sold-out")
    assert result.best is None and result.binding in ("stock", "network")


def test_bad_time_of_use_excludes_and_provisional_years_plan_with_a_warning() -> None:
    offers = [sg("bad", time_of_use="sunday*0.5"), sg("good", price="12")]
    result = planned(job(), offers)
    assert "expected a day among" in reasons(result, "bad")
    late = dataclasses.replace(
        job(),
        schedule=Schedule(
            datetime(2099, 1, 1, tzinfo=SHANGHAI), datetime(2099, 1, 5, tzinfo=SHANGHAI), True
        ),
    )
    holiday = [sg("holiday", time_of_use="holiday*0.7"), sg("plain", price="12")]
    result = planned(late, holiday)
    assert reasons(result, "holiday") == "" and result.provisional_years == (2099,)
    assert result.best is not None and result.best.segments[0].offer_id == "holiday"


def test_a_gpu_without_a_throughput_figure_cannot_take_scaled_card_hours() -> None:
    result = planned(job(), [sg("k80", gpu="K80"), sg("a100")])
    assert "throughput" in reasons(result, "k80")


def test_a_model_that_does_not_fit_is_excluded_for_memory() -> None:
    model_job = Job(
        name="70b",
        schedule=job().schedule,
        model={"name": "Llama-2-70b"},
        # 8 × 80 GB cannot hold 70B's AdamW states; CPU offload could, but offers do not
        # state host RAM, so the planner does not choose it unless the job asks
        training={"method": "full", "tokens": "1B", "cards": 8},
        source="70b.toml",
    )
    result = planned(model_job, [sg("4090", gpu="RTX4090"), sg("a100")])
    assert result.best is None and result.binding == "memory"
    assert "memory" in reasons(result, "4090") and "GiB" in reasons(result, "a100")
    training = {**(model_job.training or {}), "offload_optimizer": True}
    offloaded = planned(dataclasses.replace(model_job, training=training), [sg("a100")])
    assert offloaded.best is not None and offloaded.best.cards == 8


# --- prices ----------------------------------------------------------------------------------
def test_foreign_and_pre_tax_prices_are_compared_tax_inclusive_in_the_quote_currency() -> None:
    usd = sg("usd", price="2.00", currency="USD", provider="us")
    pre_tax = sg("pretax", price="14.00", tax_inclusive=False, provider="cn")
    result = planned(job(card_hours=10, cards=1), [usd, pre_tax])
    plans = {p.provider: p for p in [result.best, *result.alternatives] if p}
    assert plans["us"].segments[0].unit_price == D("14.2400")  # 2.00 × 7.12
    assert plans["cn"].segments[0].unit_price == D("14.8400")  # 14.00 × 1.06
    assert result.assumptions["fx"]["rates"] == {"USD": "7.12"}
    assert result.best is not None and result.best.provider == "us"
    assert result.best.total_cost == D("142.40")


def test_time_of_use_moves_work_into_cheap_hours() -> None:
    result = planned(job(card_hours=16, cards=1), [sg("tou", price="10", time_of_use=NIGHT)])
    assert result.best is not None and result.best.total_cost == D("80.00")
    assert all(s.start.hour < 8 and s.run_end.hour <= 8 for s in result.best.segments)
    lines = timeline_lines(result.best, SHANGHAI, lang="en")
    assert lines[1].startswith("Tue 12-01 │") and "████████················" in lines[1]
    zh = timeline_lines(result.best, SHANGHAI, lang="zh")
    assert zh[1].startswith("12-01 周二 │") and zh[0].index("│") == cell_len("12-01 周二 ")


# --- card counts, pruning, objectives ---------------------------------------------------------
CATALOG = [
    sg("a-h", "hourly", "11.50", time_of_use=NIGHT, provider="a", cards=1),
    sg("a-d", "daily", "1700", provider="a", cards=8),
    sg("b-h", "hourly", "92", provider="b", cards=8, time_of_use="sat-sun*0.8"),
    sg("b-w", "weekly", "9800", provider="b", cards=8),
    sg("c-h", "hourly", "18", provider="c", gpu="H800-SXM5-80GB"),
    sg("d-h", "hourly", "3.1", provider="d", gpu="L40S", network=None),
]


def test_the_card_count_is_the_best_over_every_fixed_count() -> None:
    free = planned(job(card_hours=200), CATALOG)
    assert free.best is not None
    fixed = [
        planned(job(card_hours=200, cards=n), CATALOG).best
        for n in (1, 2, 3, 4, 5, 6, 7, 8, 16, 24)
    ]
    assert free.best.total_cost == min(p.total_cost for p in fixed if p is not None)


def test_pruning_by_the_lower_bound_never_changes_the_answer() -> None:
    for the_job in (
        job(card_hours=200),
        job(card_hours=500, overhead=1),
        job(card_hours=300, interruptible=False),
    ):
        candidates = prepare(the_job, CATALOG, {}, CONTEXT).built.candidates
        selection = choose(candidates, PlanOptions(top=10))
        exhaustive = {}
        for candidate in candidates:
            evaluated = _evaluate(candidate, PlanOptions())
            bound = lower_bound_cents(candidate.problem)
            if evaluated.cost_cents is not None:
                assert bound is not None and bound <= evaluated.cost_cents
                key = evaluated.key("cost")
                if candidate.pair not in exhaustive or key < exhaustive[candidate.pair]:
                    exhaustive[candidate.pair] = key
        ranked = [selection.best, *selection.alternatives]
        assert [e.key("cost") for e in ranked if e] == sorted(exhaustive.values())
        assert selection.pruned > 0


def test_objective_time_and_the_budget() -> None:
    cheapest = planned(job(card_hours=200), CATALOG)
    fastest = planned(job(card_hours=200), CATALOG, dataclasses.replace(CONTEXT, objective="time"))
    assert cheapest.best is not None and fastest.best is not None
    assert fastest.best.finish <= cheapest.best.finish
    assert fastest.best.total_cost >= cheapest.best.total_cost
    budget = cheapest.best.total_cost * D("1.2")
    bounded = planned(
        job(card_hours=200, budget=budget), CATALOG, dataclasses.replace(CONTEXT, objective="time")
    )
    assert bounded.best is not None and bounded.best.total_cost <= budget
    assert cheapest.best.finish >= bounded.best.finish >= fastest.best.finish
    broke = planned(job(card_hours=200, budget=cheapest.best.total_cost - D("0.01")), CATALOG)
    assert broke.best is None and broke.binding == "budget"


# --- monotonicity ------------------------------------------------------------------------------
def test_a_later_deadline_never_raises_the_cost() -> None:
    costs = [planned(job(card_hours=300, days=days), CATALOG).best for days in (2, 3, 5, 9)]
    found = [p.total_cost for p in costs if p is not None]
    assert len(found) >= 3 and found == sorted(found, reverse=True)


def test_a_lower_price_never_raises_the_cost() -> None:
    before = planned(job(card_hours=300), CATALOG).best
    assert before is not None
    for index, offer in enumerate(CATALOG):
        cheaper = list(CATALOG)
        cheaper[index] = dataclasses.replace(offer, price=offer.price * D("0.7"))
        after = planned(job(card_hours=300), cheaper).best
        assert after is not None and after.total_cost <= before.total_cost


# --- the validator catches broken plans ---------------------------------------------------------
def test_the_validator_catches_every_kind_of_broken_plan() -> None:
    the_job = job(card_hours=16, cards=1)
    offers = [sg("tou", price="10", time_of_use=NIGHT)]
    result = planned(the_job, offers)
    plan = result.best
    assert plan is not None
    check = ValidationContext(
        the_job,
        {o.offer_id: o for o in offers},
        PriceBasis("CNY", CONTEXT.fx),
        CONTEXT.multi_node_efficiency,
    )
    first, *rest = plan.segments
    broken = {
        "cost": dataclasses.replace(
            plan, segments=(dataclasses.replace(first, cost=first.cost - D("0.01")), *rest)
        ),
        "work": dataclasses.replace(plan, segments=tuple(rest)),
        "overlap": dataclasses.replace(
            plan,
            segments=(
                first,
                dataclasses.replace(rest[0], start=first.start + timedelta(hours=1)),
                *rest[1:],
            ),
        ),
        "deadline": dataclasses.replace(
            plan, finish=the_job.schedule.deadline + timedelta(hours=1)
        ),
        "units": dataclasses.replace(plan, cards=3),
    }
    for what, bad in broken.items():
        assert validate_plan(bad, check), what
    spot_offers = [dataclasses.replace(offers[0], billing="spot")]
    spot_check = dataclasses.replace(check, offers={"tou": spot_offers[0]})
    assert any("spot" in p for p in validate_plan(plan, spot_check))
    assert any(
        "not compliant" in p
        for p in validate_plan(plan, dataclasses.replace(check, eligible_ids=frozenset()))
    )


# --- run time --------------------------------------------------------------------------------
def test_card_hours_scale_by_the_throughput_table_and_nodes_cost_efficiency() -> None:
    a100, h800 = GPUS["A100-SXM4-80GB"], GPUS["H800-SXM5-80GB"]
    ratio = relative_throughput(a100) / relative_throughput(h800)  # type: ignore[operator]
    scaled = scale_card_hours(D(100), a100, h800)
    assert scaled is not None and scaled == (D(100) * ratio).quantize(
        D("0.000001"), rounding="ROUND_CEILING"
    )
    assert scaled < 100  # a faster card needs fewer card-hours
    assert scale_card_hours(D(100), a100, GPUS["K80"]) is None
    assert run_hours(D(100), 8, 8, D("0.9")) == 13  # ceil(100 / 8)
    assert run_hours(D(100), 16, 8, D("0.9")) == 7  # ceil(100 / (16 × 0.9)) = ceil(6.94)
    assert is_rdma("IB-400G") and is_rdma("roce-200g") and not is_rdma("eth-25g")
    assert not is_rdma(None)
    rows = {row["gpu"]: row for row in throughput_table(["A100-SXM4-80GB", "H800-SXM5-80GB"])}
    assert rows["H800-SXM5-80GB"]["relative_throughput"] == str(relative_throughput(h800))


def test_resume_overhead_and_pauses_are_checked() -> None:
    from tests.support.plan_validate import resume_problems

    good = [(0, 4, 0), (4, 6, 0), (10, 13, 2)]  # two blocks; the second resume pays 2 slots
    assert resume_problems(good, 2, True, "slots") == (2, [])
    blocks, problems = resume_problems([(0, 4, 0), (10, 13, 0)], 2, True, "slots")
    assert blocks == 2 and problems == ["segment at 10: overhead 0 slots, expected 2"]
    _, problems = resume_problems([(0, 4, 1), (4, 6, 0)], 2, True, "slots")
    assert problems == ["segment at 0: overhead 1 slots, expected 0"]
    _, problems = resume_problems([(0, 4, 0), (10, 13, 0)], 0, False, "h")
    assert problems == ["2 run blocks, but the job may not pause"]


def test_line_items_show_what_a_unit_period_cost_on_average() -> None:
    plan = planned(job(card_hours=16, cards=1), [sg("tou", price="10", time_of_use=NIGHT)]).best
    assert plan is not None
    for segment in plan.segments:
        assert segment.average_unit_price * segment.units * segment.periods == segment.cost
        assert segment.average_unit_price < segment.unit_price  # only cheap night hours were used
        assert segment.to_json()["average_unit_price"] == str(segment.average_unit_price)
