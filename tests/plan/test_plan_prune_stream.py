"""Streaming by group never changes the plans (docs/planner-pruning.md, rule 5).

The streamed planner reads a group's offers only when the walk reaches the group's summary
key. On random catalogs (the pruning property test's) its best plan and alternatives equal
the unpruned planner's, to the cent, and so do the exclusions of every offer it read; on the
demo catalog in SQLite and PostgreSQL the catalog's own summaries (GROUP BY) give the same.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from comparator.catalog.current_offers import job_offers
from comparator.catalog.queries import load_profiles
from comparator.catalog.queries_groups import CatalogGroups
from comparator.config import load_settings
from comparator.domain.billing import HOURLY_MODES
from comparator.domain.job import Job, load_job
from comparator.domain.offer_filter import GroupSummary
from comparator.domain.offer_source import GroupPricing
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.plan import PlanContext, plan_job
from comparator.plan.job_plan import prepare
from comparator.plan.prune.pruning import READ_BATCH
from comparator.plan.prune.sql_prefilter import job_card_floors, job_offer_filter
from comparator.plan.prune.streamed import (
    contract_runs,
    most_runs,
    plan_streamed,
    rule_floors,
)
from comparator.plan.result import PlanResult
from comparator.services.planning import context_from_settings, plan_for_job
from tests.catalog.test_scale_queries import demo_engine  # noqa: F401 (a fixture: the demo in both databases)
from tests.plan.test_plan_prune import CONTEXT, a_job, answer, catalog, dominated_ids, offer_fields

EXAMPLES = ["lora-7b-guangdong", "seeds-13b-full-8xa100", "70b-full-multinode"]


def summaries_of(
    offers: Sequence[OfferView],
    factors: Mapping[str, float],
    runs: int,
    periods: Mapping[str, int] | None = None,
) -> list[GroupSummary]:
    """What the catalog's GROUP BY returns, computed here from the offers themselves (CNY
    only: the random catalogs have one currency); ``periods``: the run slots a contract
    period can hold, per billing mode (``stream.contract_runs``)."""
    rows: dict[tuple[str, str, str, int, str | None, str | None], list[OfferView]] = {}
    for o in offers:
        key = (o.provider, o.region, o.gpu, o.node_cards, o.interconnect, o.network)
        rows.setdefault(key, []).append(o)
    out = []
    for key, group in rows.items():
        floors, factors_per_card, hourly, minima, contracts = [], [], [], [], []
        for o in group:
            tax = 1.0 if o.tax_inclusive else 1.0 + float(o.vat_rate)
            if o.billing in HOURLY_MODES:
                m = factors.get(o.time_of_use, 0.0)
                hourly.append((o.time_of_use, float(o.price) * tax * m / o.cards))
            else:
                held = (periods or {}).get(o.billing, o.period_hours)
                m = max(1 / held, o.min_units / runs)
                minima.append(float(o.price) * tax * o.min_units / o.cards)
                contracts.append(float(o.price) * tax * m / o.cards)
            floors.append(float(o.price) * tax * m / o.cards)
            factors_per_card.append(m / o.cards)
        rules = {rule for rule, _ in hourly}
        out.append(
            GroupSummary(
                *key,
                offers=len(group),
                first_offer_id=min(int(o.offer_id) for o in group),
                least_per_card=min(floors),
                most_factor_per_card=max(factors_per_card),
                free_trial=any(o.free_trial_hours for o in group),
                hourly_rules=(min(rules), max(rules)) if rules else None,
                least_hourly_per_card=min((v for _, v in hourly), default=None),
                least_minimum_per_card=min(minima, default=None),
                least_contract_per_card=min(contracts, default=None),
            )
        )
    return out


def streamed(
    job: Job,
    offers: list[OfferView],
    context: PlanContext,
    profiles: Mapping[str, ProviderProfile] | None = None,
) -> tuple[PlanResult, list[OfferView]] | None:
    rules = sorted({o.time_of_use for o in offers if o.billing in HOURLY_MODES})
    schedule = job.schedule
    factors = rule_floors(rules, schedule.earliest_start, schedule.deadline, schedule.run_windows)
    summaries = summaries_of(offers, factors, most_runs(job), contract_runs(job))

    def read(groups: Sequence[GroupSummary]) -> list[OfferView]:
        wanted = {
            (g.provider, g.region, g.gpu, g.node_cards, g.interconnect, g.network) for g in groups
        }
        return [
            o
            for o in offers
            if (o.provider, o.region, o.gpu, o.node_cards, o.interconnect, o.network) in wanted
        ]

    given = profiles or {}
    streamed = plan_streamed(
        job, summaries, read, given, lambda ps: _some(given, ps), context, factors=factors
    )
    return None if streamed is None else streamed[:2]


def _some(
    profiles: Mapping[str, ProviderProfile], providers: Collection[str]
) -> dict[str, ProviderProfile]:
    return {p: profiles[p] for p in providers if p in profiles}


def agree(
    streamed_result: PlanResult,
    read: list[OfferView],
    unpruned: PlanResult,
    dominated: frozenset[str],
) -> None:
    """The same plans; the exclusions of exactly the offers read."""
    plans, excluded, binding = answer(streamed_result, dominated)
    all_plans, all_excluded, all_binding = answer(unpruned, dominated)
    assert (plans, binding) == (all_plans, all_binding)
    ids = {o.offer_id for o in read}
    assert isinstance(excluded, list) and isinstance(all_excluded, list)
    assert excluded == [e for e in all_excluded if e[0] in ids]


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(offer_fields, min_size=1, max_size=40),
    card_hours=st.integers(4, 300),
    days=st.integers(1, 4),
    interruptible=st.booleans(),
    budget=st.sampled_from([None, None, 500, 5000]),
    top=st.integers(0, 3),
)
def test_streamed_and_unpruned_planners_agree(
    rows: list[tuple[object, ...]],
    card_hours: int,
    days: int,
    interruptible: bool,
    budget: int | None,
    top: int,
) -> None:
    offers = catalog(rows)
    job = a_job(card_hours, days, interruptible, budget)
    context = PlanContext(today=CONTEXT.today, fx=CONTEXT.fx, top=top)
    unpruned = plan_job(job, offers, {}, context, prune=False)
    got = streamed(job, offers, context)
    if got is None:  # no plan: the caller plans over every offer
        assert unpruned.best is None
        return
    result, read = got
    agree(result, read, unpruned, dominated_ids(job, offers, context))
    assert result.stats["offers_not_read"] == len(offers) - len(read)


def test_groups_beyond_the_bound_are_never_read() -> None:
    cheap = (0, 0, "A100-SXM4-80GB", 1, "hourly", 800, None, 1, "", None)
    dear = [(p, 1, "A100-SXM4-80GB", 1, "hourly", 5000 + p, None, 1, "", None) for p in range(30)]
    offers = catalog([cheap, *dear])
    job = a_job(16, 3, True, None)
    context = PlanContext(today=CONTEXT.today, fx=CONTEXT.fx, top=0)
    got = streamed(job, offers, context)
    assert got is not None
    result, read = got
    agree(result, read, plan_job(job, offers, {}, context, prune=False), frozenset())
    assert len(read) <= READ_BATCH  # one batch of groups: the cheapest is among them
    assert result.stats["groups_not_read"] == len(offers) - len(read)


def walked_offers(
    engine: Engine, job: Job, profiles: Mapping[str, ProviderProfile], context: PlanContext
) -> list[OfferView] | None:
    """The offers the walk read from the catalog's own summaries and reads (None: not
    streamed)."""
    source, wanted = CatalogGroups(engine), job_offer_filter(job)
    wanted = dataclasses.replace(wanted, card_floors=job_card_floors(job, context.headroom))
    factors = rule_floors(source.rules(wanted), job.schedule.earliest_start, job.schedule.deadline)
    # the aggregates of rule 7 too, on both databases (and of the block-length floor)
    blocks = not job.schedule.interruptible or job.schedule.restart_overhead_hours > 0
    runs, periods = most_runs(job), contract_runs(job)
    pricing = GroupPricing(job.currency, context.fx, factors, runs, periods, blocks)
    summaries = source.summaries(wanted, pricing).groups

    def read(groups: Sequence[GroupSummary]) -> list[OfferView]:
        return source.read(wanted, groups)

    got = plan_streamed(
        job, summaries, read, profiles, lambda ps: _some(profiles, ps), context, factors=factors
    )
    return None if got is None else got[1]


@pytest.mark.slow
def test_the_catalog_summaries_stream_to_the_unpruned_optimum(demo_engine: Engine) -> None:  # noqa: F811
    """Both databases: the example jobs on the demo catalog, streamed from the catalog's
    GROUP BY and group reads, against the unpruned planner over every offer, at top 0 (the
    walk then leaves the most groups unread) and the default."""
    settings_ = load_settings({})
    streamed_any = False
    for name in EXAMPLES:
        job = load_job(f"examples/{name}.toml")
        offers = job_offers(demo_engine, job_offer_filter(job))
        profiles = load_profiles(demo_engine, {o.provider for o in offers})
        for top in (0, 5):
            context = context_from_settings(settings_, top=top, today=CONTEXT.today)
            result, loaded = plan_for_job(demo_engine, job, context)
            assert {o.offer_id for o in loaded.offers} <= {o.offer_id for o in offers}
            unpruned = plan_job(job, offers, profiles, context, prune=False)
            lazy = prepare(job, offers, profiles, context, prune=True).lazy
            assert lazy is not None
            for group in lazy.groups:
                lazy.undominated(group)
            walked = walked_offers(demo_engine, job, profiles, context)
            if walked is not None:
                streamed_any = True
                agree(result, walked, unpruned, frozenset(lazy.dominated))
            assert answer(result)[0] == answer(unpruned)[0], name
    assert streamed_any
