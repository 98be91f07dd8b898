"""Offers that fit no card count are left out of the group table and counted by why
(docs/planner-pruning.md, rule 8).

The rule's Python form (``unfit_kind``) only leaves out offers that no card count of any group
can use; its SQL form (``unfit_columns``) agrees with it row for row on SQLite and PostgreSQL;
and the quote on a catalog with offers short of stock or without a network finds the unpruned
planner's plans, counting those offers under ``stats.filtered_in_catalog`` (kinds ``stock``,
``network``) instead of listing them — the same counts from the in-memory offer list.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, case, select, update

from comparator.catalog.current_offers import current_query, job_offers, unfit_columns
from comparator.catalog.queries import OFFER, load_profiles
from comparator.catalog.queries_groups import CatalogGroups
from comparator.config import load_settings
from comparator.domain.job import Job, load_job
from comparator.domain.offer_filter import CardFloor, OfferFilter, unfit_kind
from comparator.domain.offer_list import OfferList
from comparator.plan import plan_job
from comparator.plan.candidates import GpuWork, card_counts, fits, least_cards
from comparator.plan.prune.sql_prefilter import card_floors, job_card_floors, job_offer_filter
from comparator.plan.work import WorkTable
from comparator.services.planning import context_from_settings
from tests.catalog.test_scale_queries import demo_engine  # noqa: F401 (a fixture: both databases)
from tests.plan.test_plan_prune import CONTEXT, answer
from tests.support.factories import make_offer

NETWORKS = [None, "", "ib-200g", "roce-100g", "eth-25g"]
JOBS = ["seeds-13b-full-8xa100", "70b-full-multinode", "70b-in-guangdong"]


def _job(name: str, tmp_path: Path) -> Job:
    """An example job, or the 70B one limited to 广东 (a job that names places: on SQLite its
    unfit offers are grouped apart, not filtered)."""
    if name != "70b-in-guangdong":
        return load_job(f"examples/{name}.toml")
    text = Path("examples/70b-full-multinode.toml").read_text(encoding="utf-8")
    path = tmp_path / "job.toml"
    path.write_text(text.replace("[requirements]\n", '[requirements]\nprovinces = ["广东"]\n'))
    job = load_job(path)
    assert job.requirements.provinces == ("广东",)
    return job


@settings(max_examples=300, deadline=None)
@given(
    fixed=st.one_of(st.none(), st.integers(1, 40)),
    min_cards=st.integers(1, 40),
    cards=st.sampled_from([1, 2, 4, 8]),
    node_cards=st.sampled_from([1, 2, 4, 8, 16]),
    stock=st.one_of(st.none(), st.integers(0, 12)),
    network=st.sampled_from(NETWORKS),
    max_nodes=st.integers(1, 8),
)
def test_an_unfit_offer_fits_no_card_count_of_any_group(
    fixed: int | None,
    min_cards: int,
    cards: int,
    node_cards: int,
    stock: int | None,
    network: str | None,
    max_nodes: int,
) -> None:
    """Whatever the group's other offers' networks, no count :func:`card_counts` tries can use
    an offer the floor leaves out; and the planner's own check excludes it too."""
    work = GpuWork("A100-SXM4-80GB", Decimal(100), min_cards, fixed)
    floors = card_floors(WorkTable(work={work.gpu: work}))
    offer = make_offer("1", cards=cards, node_cards=node_cards, stock=stock, network=network)
    kind = unfit_kind(floors, offer.gpu, node_cards, cards, stock, network)
    if kind is None:
        return
    why = fits(offer, least_cards(work))
    assert why is not None and why.text.startswith(kind)
    for networks in ([network], [network, "ib-200g"]):
        for n in card_counts(work, node_cards, networks, max_nodes):
            assert fits(offer, n) is not None


@pytest.mark.slow
@pytest.mark.postgres
def test_the_sql_floors_agree_with_python_row_for_row(demo_engine: Engine) -> None:  # noqa: F811
    """Both databases: every demo offer's kind by ``unfit_columns`` is ``unfit_kind``'s."""
    _short_of_stock_and_network(demo_engine)
    floors = (CardFloor("A100-SXM4-80GB", 16, 1), CardFloor("H800-SXM5-80GB", 3, 2))
    stock, network = unfit_columns(dataclasses.replace(OfferFilter(), card_floors=floors))
    kind = case((stock, "stock"), (network, "network"), else_="")
    query = current_query(OfferFilter(), columns=(OFFER.c.id, kind))
    with demo_engine.connect() as conn:
        by_sql = {str(i): k or None for i, k in conn.execute(query)}
    offers = job_offers(demo_engine, OfferFilter())
    by_python = {
        o.offer_id: unfit_kind(floors, o.gpu, o.node_cards, o.cards, o.stock, o.network)
        for o in offers
    }
    assert by_sql == by_python
    assert {"stock", "network"} <= set(by_python.values())


@pytest.mark.slow
@pytest.mark.postgres
@pytest.mark.parametrize("name", JOBS)
def test_unfit_offers_are_counted_not_read(
    demo_engine: Engine,  # noqa: F811
    name: str,
    tmp_path: Path,
) -> None:
    """Both databases: the streamed quote's plans are the unpruned planner's; the offers the
    floors leave out are counted by why, as many as the unpruned planner excludes for stock
    and network among those the SQL can tell (a NULL or empty network), and none is listed."""
    _short_of_stock_and_network(demo_engine)
    job = _job(name, tmp_path)
    wanted = job_offer_filter(job)
    offers = job_offers(demo_engine, wanted)
    profiles = load_profiles(demo_engine, {o.provider for o in offers})
    context = context_from_settings(load_settings({}), today=CONTEXT.today)
    streamed = plan_job(job, CatalogGroups(demo_engine), None, context)
    unpruned = plan_job(job, offers, profiles, context, prune=False)
    assert answer(streamed)[0] == answer(unpruned)[0]
    floors = job_card_floors(job, context.headroom)
    expected: dict[str, int] = {}
    for o in offers:
        if (
            kind := unfit_kind(floors, o.gpu, o.node_cards, o.cards, o.stock, o.network)
        ) is not None:
            expected[kind] = expected.get(kind, 0) + 1
    assert expected, "the catalog has offers the floors leave out"
    counted = {
        f["kind"]: f["count"]
        for f in streamed.stats["filtered_in_catalog"]
        if f["kind"] in ("stock", "network")
    }
    assert counted == expected
    unfit_ids = {
        o.offer_id
        for o in offers
        if unfit_kind(floors, o.gpu, o.node_cards, o.cards, o.stock, o.network) is not None
    }
    assert not unfit_ids & {e.offer_id for e in streamed.excluded}
    assert unfit_ids <= {e.offer_id for e in unpruned.excluded}  # listed there, by one why
    listed = plan_job(job, OfferList(offers, profiles), None, context)
    assert answer(listed)[0] == answer(unpruned)[0]
    in_memory = {
        f["kind"]: f["count"]
        for f in listed.stats["filtered_in_catalog"]
        if f["kind"] in ("stock", "network")
    }
    assert in_memory == expected


def _short_of_stock_and_network(engine: Engine) -> None:
    """Every third offer down to one unit of stock, every fifth without a network."""
    with engine.begin() as conn:
        ids = sorted(int(i) for i in conn.execute(select(OFFER.c.id)).scalars())
        thirds, fifths = ids[::3], ids[1::5]
        conn.execute(update(OFFER).where(OFFER.c.id.in_(thirds)).values(stock=1))
        conn.execute(update(OFFER).where(OFFER.c.id.in_(fifths)).values(network=None))
