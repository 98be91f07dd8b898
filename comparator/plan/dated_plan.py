"""From a solved candidate to a dated plan: its optimal schedule (kept, or solved again) as
dated segments, with the data bill, on the candidate's slot grid (pure)."""

from __future__ import annotations

from decimal import Decimal

from comparator.domain.links import parse_network
from comparator.domain.offer_view import OfferView
from comparator.errors import PlanError
from comparator.plan.bill import bill_lines
from comparator.plan.candidates import Candidate
from comparator.plan.dp.dp_solver import solve_schedule
from comparator.plan.dp.problem import ScheduleResult
from comparator.plan.result import Plan, PlanSegment, RunBlock
from comparator.plan.selection import Evaluated


def solved_schedule(evaluated: Evaluated) -> ScheduleResult:
    """The optimal schedule behind ``evaluated`` (its kept layers, or solved again)."""
    assert evaluated.diagonal is not None
    if evaluated.schedule is not None:
        return evaluated.schedule
    profile = evaluated.profile or solve_schedule(evaluated.candidate.problem)
    return profile.schedule(evaluated.diagonal)


def to_plan(candidate: Candidate, schedule: ScheduleResult, currency: str) -> Plan:
    """Dated segments of ``schedule`` on ``candidate``'s slot grid."""
    grid = candidate.grid
    segments = tuple(
        PlanSegment(
            offer_id=(offer_id := candidate.trials.get(s.key, s.key)),
            billing=candidate.offers[offer_id].billing,
            start=grid.at(s.start),
            end=grid.at(s.end),
            units=candidate.units[offer_id],
            periods=s.periods,
            unit_price=candidate.unit_prices[offer_id],
            cost=s.cost,
            run_end=grid.at(s.run_end),
            overhead_hours=s.overhead_slots,
            free_trial=s.key in candidate.trials,
            runs=tuple(RunBlock(grid.at(a), grid.at(b), o) for a, b, o in s.blocks),
        )
        for s in schedule.segments
    )
    sample: OfferView = next(iter(candidate.offers.values()))
    network = parse_network(sample.network)
    start, finish = grid.at(schedule.start), grid.at(schedule.finish)
    bill = bill_lines(candidate.bill, start, finish)
    total = sum((s.cost for s in segments), Decimal(0)) + sum((b.cost for b in bill), Decimal(0))
    if total != schedule.cost + Decimal(candidate.bill.fixed_cents) / 100:
        raise PlanError("internal error: the bill does not add up to the plan's cost")
    return Plan(
        provider=candidate.provider,
        provider_name=sample.provider_name,
        region=candidate.region,
        region_name=sample.region_name,
        province=sample.province,
        city=sample.city,
        gpu=candidate.gpu,
        cards=candidate.cards,
        node_cards=candidate.node_cards,
        currency=currency,
        total_cost=total,
        start=start,
        finish=finish,
        run_hours=schedule.run_slots,
        work_hours=candidate.run_hours,
        card_hours=candidate.priced_card_hours or candidate.work.card_hours_on(candidate.cards),
        segments=segments,
        bill=bill,
        hours_range=candidate.work.hours_range,
        network_kind=network.kind if network else None,
        network_gbps=network.gbps if network else None,
    )


def realise(evaluated: Evaluated, currency: str) -> Plan:
    return to_plan(evaluated.candidate, solved_schedule(evaluated), currency)
