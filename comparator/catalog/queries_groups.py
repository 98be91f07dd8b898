"""The catalog as the planner's :class:`~comparator.domain.offer_source.OfferSource`: a job's
current offers summarised per group in SQL, and read group by group.

The planner's walk (:mod:`comparator.plan.prune.streamed`) needs, before it reads any offer, one row
per (provider, data centre, GPU, node size, interconnect, network) of the job's offers: how
many, the first offer id and a floor of their prices (``GROUP BY`` in the database); it then
reads the offers of the groups it reaches (docs/planner-pruning.md, rule 5).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import threading
from collections.abc import Collection, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    Float,
    Integer,
    String,
    and_,
    bindparam,
    case,
    cast,
    distinct,
    func,
    literal,
    literal_column,
    not_,
    null,
    select,
    true,
    tuple_,
)
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.selectable import FromClause, Select, Subquery
from sqlalchemy.sql.util import find_tables

from comparator.catalog.current_offers import (
    count_current,
    current_query,
    fit_condition,
    job_offers,
    offer_condition,
    unfit_kind_column,
)
from comparator.catalog.db import analytic_session, hash_aggregates, usable_cores
from comparator.catalog.group_stream import (
    SqlGroupStream,
    load_provider_discounts,
    summary_of_row,
)
from comparator.catalog.queries import (
    OFFER,
    PROVIDER,
    load_profiles,
    load_provider_terms,
    offer_view_of,
)
from comparator.domain.billing import HOURLY_MODES, PERIOD_HOURS
from comparator.domain.offer_filter import UNFIT_KINDS, GroupSummary, OfferFilter
from comparator.domain.offer_source import GroupPricing, GroupSummaries, OfferCensus
from comparator.domain.offer_view import OfferView
from comparator.domain.profile import ProviderProfile
from comparator.domain.profile_plan import ProviderTerms

READ_CHUNK = 200  # groups per IN list
SPLIT_PROVIDERS = 100  # the group table is built in two halves from this many providers
NOT_THE_JOBS = 3  # the census's why of a place's offer the job does not keep
GROUP_COLUMNS = (
    OFFER.c.provider,
    OFFER.c.region,
    OFFER.c.gpu,
    OFFER.c.node_cards,
    OFFER.c.interconnect,
    OFFER.c.network,
)


def _factor(
    factors: Mapping[str, float], runs: int, periods: Mapping[str, int] | None, dialect: str
) -> ColumnElement[Any]:
    """``m`` of an offer: its rule's least factor (hourly; 0 for a rule not given) or
    ``max(1/M, min_units/runs)`` (contracts; ``M`` the run slots one period can hold, per
    billing mode in ``periods``, else the period), the larger by the database's own
    function (a ``CASE`` computed the period twice)."""
    hourly = case(factors, value=OFFER.c.time_of_use, else_=0.0) if factors else 0.0
    held = {b: max(1, (periods or {}).get(b, h)) for b, h in PERIOD_HOURS.items()}
    period = 1.0 / case(held, value=OFFER.c.billing, else_=1)
    per_runs = cast(OFFER.c.min_units, Float) / runs
    larger = func.greatest if dialect == "postgresql" else func.max  # SQLite's scalar max
    return case((OFFER.c.billing.in_(HOURLY_MODES), hourly), else_=larger(period, per_runs))


def _rate(rates: Mapping[str, float]) -> ColumnElement[Any]:
    """The exchange rate of an offer's currency: its code as stored first, folded to upper
    case only where that finds none (the import stores upper case: ``upper()`` on every
    offer took 7 of the group table's 140 ms at 1M offers)."""
    folded = case(rates, value=func.upper(OFFER.c.currency), else_=None)
    return case(rates, value=OFFER.c.currency, else_=folded)


def offer_values(pricing: GroupPricing, dialect: str) -> tuple[Any, ...]:
    """What a group's aggregates read of each offer, each computed once (labelled): its group
    keys, id, card count and free trial hours, its machine-hour price in ``pricing.currency``
    (``money``: price, tax and exchange rate) and ``m`` (``factor``, :func:`_factor`); for a
    job that may not pause (``pricing.own_runs``) also whether it bills by the hour, its rule
    and its minimum units (rule 7)."""
    fx, currency = pricing.fx, pricing.currency
    rates = {code: float(fx.rate(code, currency)) for code in fx.rates_cny}
    tax = case((OFFER.c.tax_inclusive, 1.0), else_=1.0 + cast(OFFER.c.vat_rate, Float))
    money = cast(OFFER.c.price, Float) * tax * _rate(rates)
    factor = _factor(pricing.factors, pricing.runs, pricing.periods, dialect)
    values = (
        *GROUP_COLUMNS,
        OFFER.c.id,
        OFFER.c.cards,
        OFFER.c.free_trial_hours,
        money.label("money"),
        factor.label("factor"),
    )
    if not pricing.own_runs:
        return values
    rule: ColumnElement[Any] = OFFER.c.time_of_use
    if dialect == "postgresql":  # SQLite's default (BINARY) is code-point order already
        rule = rule.collate("C")
    hourly = OFFER.c.billing.in_(HOURLY_MODES)
    return (*values, hourly.label("hourly"), rule.label("rule"), OFFER.c.min_units)


def offer_rows(query: Select[Any]) -> Subquery:
    """``query`` (of :func:`offer_values`' columns) as the subquery its groups are summarised
    from, behind ``OFFSET 0``, which neither database flattens into the ``GROUP BY``: each
    offer's price and factor are computed once, not in every aggregate that reads them.
    PostgreSQL's parallel workers compute them while one hash aggregate groups the rows (it
    aggregated in each worker and again in the leader, over nearly as many partial rows as
    groups: 764 → 577 ms for the LoRA job on the other shape); SQLite gains little (its time
    is the ``GROUP BY``'s sort; docs/planner-pruning.md, "Seventh round")."""
    return query.offset(0).subquery("each")


def summary_columns(
    each: Subquery, own_runs: bool, dialect: str, job: ColumnElement[bool] | None = None
) -> tuple[Any, ...]:
    """A group's keys and its job offers' (``job``, a condition on ``each``; all without it)
    count, first id, ``A``, ``M``, free trial hours and what rule 7 reads (NULL unless
    ``own_runs``) — :class:`GroupSummary`'s fields in order — over ``each`` (rows of
    :func:`offer_values`, by :func:`offer_rows`), to be grouped by its six group keys."""
    e = each.c

    def of_job(value: ColumnElement[Any]) -> ColumnElement[Any]:
        return value if job is None else case((job, value), else_=None)

    per_card = e.factor / e.cards
    floor = e.money * per_card
    keys = (*group_keys(each), func.count(of_job(e.id)), func.min(of_job(e.id)))
    most = (func.max(of_job(per_card)), func.max(of_job(e.free_trial_hours)))
    if not own_runs:  # fetched only for jobs that may not pause (0.75 s of the 70B's)
        nulls = (cast(null(), t) for t in (String, String, Float, Float, Float))
        return (*keys, func.min(of_job(floor)), *most, *nulls)
    hourly = func.min(of_job(case((e.hourly, floor))))
    contract = func.min(of_job(case((e.hourly, None), else_=floor)))
    minimum = e.money / e.cards * cast(e.min_units, Float)
    return (
        *keys,
        _lesser(hourly, contract, dialect),  # the least of all: one aggregate fewer to step
        *most,
        func.min(of_job(case((e.hourly, e.rule)))),
        func.max(of_job(case((e.hourly, e.rule)))),
        hourly,
        func.min(of_job(case((e.hourly, None), else_=minimum))),
        contract,
    )


def _lesser(a: ColumnElement[Any], b: ColumnElement[Any], dialect: str) -> ColumnElement[Any]:
    """The smaller of two aggregates, NULL only where both are (``LEAST`` skips NULLs on
    PostgreSQL; SQLite's two-argument ``min`` is NULL where either is). Each aggregate is
    stepped once however often the statement names it (a group's floor over all offers as
    the lesser of its hourly and its contract floors: 132 against 138 ms for half the
    README job's table at 1M offers)."""
    if dialect == "postgresql":
        return func.least(a, b)
    return func.min(func.coalesce(a, b), func.coalesce(b, a))


def group_keys(each: Subquery) -> tuple[Any, ...]:
    """The six group keys of ``each`` (:data:`GROUP_COLUMNS`' names)."""
    return tuple(each.c[c.name] for c in GROUP_COLUMNS)


NO_LINK = "\x1f"  # NULL's stand-in in the read's row values (the rows are checked after)


def _key_values(keys: Collection[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The six group keys of ``keys`` as the read binds them: NULL links as :data:`NO_LINK`
    (besides the machines' index scan: a machine's other raw groups are not fetched)."""
    return sorted({(*k[:4], *(NO_LINK if v is None else v for v in k[4:])) for k in keys})


def _may_split(dialect: str) -> bool:
    """Whether the group table may be built in halves: on PostgreSQL on a second
    connection; on SQLite by a child process, where ``fork`` is and this process runs no
    other thread (a fork copies no other thread, only its locks)."""
    if dialect == "postgresql":
        return True
    return dialect == "sqlite" and hasattr(os, "fork") and threading.active_count() == 1


def a_core_idle() -> bool:
    """Whether the machine has a core to spare: the last minute's load average below the
    cores. The halves cost 0.25-0.5 CPU s more than the whole table (the fork's copied pages,
    the file, the appended rows); on a machine whose cores are all busy they only add that
    (the 70B job on the other shape at a load of 5: 1.54-1.69 s whole, 1.92-2.27 s in
    halves; docs/planner-pruning.md, "Sixth round")."""
    return os.getloadavg()[0] < usable_cores()


def _current_of(query: Select[Any]) -> FromClause:
    """The current snapshots' subquery of a :func:`current_query` (a condition on its
    provider is taken into the subquery: SQLite then reads only those providers' offers)."""
    found = [
        t
        for t in find_tables(query.get_final_froms()[0], include_aliases=True)
        if isinstance(t, Subquery) and t.name == "current"
    ]
    assert len(found) == 1, "current_query reads the current snapshots once"
    return found[0]


def _census(
    conn: Connection, places: OfferFilter, rule: Any, reason: Any
) -> list[tuple[list[str], int, int]]:
    """(rules, why, offers) of the census's scan: on PostgreSQL grouped by rule and why (a
    hash aggregate, in parallel); on SQLite one row of aggregates over a subquery that it
    does not flatten (each offer's why computed once), the rules as a JSON array (a ``GROUP
    BY`` sorted every offer: 2-3x the time of the two scans it replaces)."""
    if conn.dialect.name != "sqlite":
        query = current_query(places, columns=(rule, reason, func.count()))
        rows = conn.execute(query.group_by(literal_column("1"), literal_column("2")))
        return [([] if r is None else [str(r)], int(k), int(n)) for r, k, n in rows]
    inner = current_query(places, columns=(rule.label("rule"), reason.label("why")))
    each = inner.limit(-1).subquery("census")  # LIMIT: a co-routine, not flattened
    kinds = range(1, NOT_THE_JOBS + 1)
    columns = (
        func.json_group_array(distinct(each.c.rule)),
        func.count(),
        *(func.total(case((each.c.why == k, 1), else_=0)) for k in kinds),
    )
    found, offers, *counts = conn.execute(select(*columns)).one()
    rules = [str(r) for r in json.loads(found) if r is not None]
    fit = int(offers) - sum(int(n) for n in counts)
    return [(rules, 0, fit), *(([], k, int(n)) for k, n in zip(kinds, counts, strict=True))]


class CatalogGroups:
    """The current offers and provider profiles behind ``engine``, as the planner asks for them
    (:class:`~comparator.domain.offer_source.OfferSource`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.stream: SqlGroupStream | None = None  # the last group stream (reads use it)
        self.read_queries: dict[OfferFilter, Select[Any]] = {}

    def profiles(self, providers: Collection[str] | None = None) -> dict[str, ProviderProfile]:
        return load_profiles(self.engine, providers)

    def provider_terms(self, providers: Collection[str]) -> dict[str, ProviderTerms]:
        return load_provider_terms(self.engine, providers)

    def provider_discounts(self, providers: Collection[str]) -> dict[str, Decimal]:
        return load_provider_discounts(self.engine, providers)

    def offers(self, wanted: OfferFilter) -> list[OfferView]:
        return job_offers(self.engine, wanted)

    def count(self, wanted: OfferFilter | None = None) -> int:
        return count_current(self.engine, wanted)

    def rules(self, wanted: OfferFilter) -> list[str]:
        """The distinct time-of-use rules of the job's hourly offers."""
        query = current_query(wanted, columns=(OFFER.c.time_of_use,))
        query = query.where(OFFER.c.billing.in_(HOURLY_MODES)).distinct()
        with self.engine.connect() as conn:
            return sorted(str(r) for r in conn.execute(query).scalars())

    def summaries(self, wanted: OfferFilter, pricing: GroupPricing) -> GroupSummaries:
        """One row per group of the job's offers (``wanted`` keeps them, its card floors
        included), floored by ``pricing``, and how many offers the filter's places hold (the
        job's or not: one scan for both)."""
        places = wanted
        job: ColumnElement[bool] = fit_condition(wanted)
        if places.by_place:  # the places' other offers too (NULL in the job's aggregates)
            job = and_(offer_condition(places), job)
            places = dataclasses.replace(places, gpus=(), exclude_spot=False)
        dialect = self.engine.dialect.name
        values = (*offer_values(pricing, dialect), job.label("job"))
        each = offer_rows(current_query(places, columns=values))
        columns = (*summary_columns(each, pricing.own_runs, dialect, each.c.job), func.count())
        query = select(*columns).group_by(*group_keys(each))
        with self.engine.connect() as conn:
            rows = conn.execute(query).all()
        groups = [summary_of_row(r) for r in rows if r[6]]  # drivers give ints, strs, floats
        in_places = sum(int(r[16]) for r in rows) if places is not wanted else None
        return GroupSummaries(groups, in_places)

    def group_stream(
        self, wanted: OfferFilter, pricing: GroupPricing, census: OfferCensus | None = None
    ) -> SqlGroupStream:
        """The job's summaries in a temporary table, read in the walk's order. The offers
        the card floors leave out (rule 8) are not grouped but counted by why (by
        :meth:`census`, asked here unless given) — for a job that names places, grouped
        apart by why and dropped after (a ``WHERE`` on them made SQLite scan every current
        offer instead of the places' ones; on PostgreSQL it spares the census their test)."""
        stream = self._group_stream(wanted, pricing, census)
        self.stream = stream
        return stream

    def _group_stream(
        self, wanted: OfferFilter, pricing: GroupPricing, census: OfferCensus | None
    ) -> SqlGroupStream:
        values = offer_values(pricing, self.engine.dialect.name)
        why = unfit_kind_column(wanted)
        if why is None:
            offers = current_query(wanted, columns=values)
            return self._grouped(offers, pricing)
        if self._apart(wanted):
            offers = current_query(wanted, columns=(*values, why.label("why")))
            return self._grouped(offers, pricing, apart=UNFIT_KINDS)
        found = self.census(wanted) if census is None else census
        offers = current_query(wanted, columns=values).where(why == 0)
        return self._grouped(offers, pricing, counted=found.unfit)

    def _grouped(
        self,
        offers: Select[Any],
        pricing: GroupPricing,
        apart: Sequence[str] | None = None,
        counted: Mapping[str, int] | None = None,
    ) -> SqlGroupStream:
        """The group stream of ``offers`` (rows of :func:`offer_values`, and rule 8's why
        where ``apart`` names its kinds), in halves where :meth:`_halves` splits them."""
        dialect = self.engine.dialect.name

        def grouped(query: Select[Any]) -> Select[Any]:
            each = offer_rows(query)
            unfit = each.c.why if apart is not None else literal(0, Integer)
            columns = (*summary_columns(each, pricing.own_runs, dialect), unfit)
            by = (*group_keys(each), each.c.why) if apart is not None else group_keys(each)
            return select(*columns).group_by(*by)

        split = self._halves(offers)
        halves = None if split is None else (grouped(split[0]), grouped(split[1]))
        return SqlGroupStream(self.engine, grouped(offers), apart, counted, halves=halves)

    def _halves(self, query: Select[Any]) -> tuple[Select[Any], Select[Any]] | None:
        """``query`` (offers of :func:`current_query`, to be grouped by groups of one
        provider each) as two queries of the providers before the middle provider and from
        it on, for a table built on both cores (:class:`SqlGroupStream`; PostgreSQL plans no
        parallel workers for the job's join, which it expects to give a few rows); None on
        SQLite where processes do not fork, when no core is idle (:func:`a_core_idle`) and
        below :data:`SPLIT_PROVIDERS`."""
        if not (_may_split(self.engine.dialect.name) and a_core_idle()):
            return None
        with self.engine.connect() as conn:
            providers = int(conn.execute(select(func.count()).select_from(PROVIDER)).scalar_one())
            if providers < SPLIT_PROVIDERS:
                return None
            middle = select(PROVIDER.c.id).order_by(PROVIDER.c.id).offset(providers // 2)
            split = conn.execute(middle.limit(1)).scalar_one()
        current = _current_of(query)
        return query.where(current.c.provider_id < split), query.where(
            current.c.provider_id >= split
        )

    def _apart(self, wanted: OfferFilter) -> bool:
        """Whether the group table groups rule 8's unfit offers apart (see
        :meth:`group_stream`; grouping apart everywhere was slower for the 70B job, whose
        unfit offers on the other shape made 371,237 rows of groups against 134,000 fit)."""
        return bool(wanted.card_floors) and wanted.by_place

    def census(self, wanted: OfferFilter) -> OfferCensus:
        """One scan for what the group table needs first or beside it (docs/planner-pruning.md,
        "Fourth round"): the distinct rules of the hourly offers ``wanted`` keeps (its card
        floors aside), how many offers stand in its places (every offer there, the job's or
        not), and the offers its card floors leave out, by why (unless the group table
        counts them: :meth:`_apart`). On SQLite, where there is nothing of rule 8's to count
        here, one index-only scan without a ``GROUP BY`` (:meth:`_rules_in_places`)."""
        why = None if self._apart(wanted) else unfit_kind_column(wanted)
        if why is None and wanted.by_place:  # one scan of plain aggregates, no GROUP BY
            return self._rules_in_places(wanted)
        if self.engine.dialect.name == "sqlite" and why is None:  # one index-only scan
            return OfferCensus(self.rules(wanted), 0, {})
        places = wanted
        job: ColumnElement[bool] = true()
        if places.by_place and places.by_offer:  # the places' other offers: counted only
            job = offer_condition(places)
            places = dataclasses.replace(places, gpus=(), exclude_spot=False)
        rule = case((and_(job, OFFER.c.billing.in_(HOURLY_MODES)), OFFER.c.time_of_use))
        reason = case((not_(job), NOT_THE_JOBS), else_=literal(0) if why is None else why)
        rules: set[str] = set()
        unfit: dict[str, int] = {}
        in_places = 0
        with self.engine.connect() as conn:
            analytic_session(conn)  # in memory (PostgreSQL)
            hash_aggregates(conn)  # ten rows of a few hundred thousand: nothing to sort
            for found, kind, offers in _census(conn, places, rule, reason):
                in_places += int(offers)
                rules.update(found)
                if 0 < kind < NOT_THE_JOBS and offers:  # kinds found (SQLite's 0s too)
                    name = UNFIT_KINDS[int(kind) - 1]
                    unfit[name] = unfit.get(name, 0) + int(offers)
        return OfferCensus(sorted(rules), in_places if wanted.by_place else 0, unfit)

    def _rules_in_places(self, wanted: OfferFilter) -> OfferCensus:
        """The census of a job that names places (with nothing of rule 8's to count) in one
        scan of the places' offers: their count, and the distinct rules of the hourly ones
        ``wanted`` keeps, as plain aggregates (at 1M offers: on SQLite 20 ms against 14 + 17
        ms for two index-only scans, a ``GROUP BY`` sorted every offer; on PostgreSQL 23-27
        ms against 37 ms for the hash ``GROUP BY``: docs/planner-pruning.md, "Ninth
        round")."""
        places = OfferFilter(provinces=wanted.provinces, cities=wanted.cities)
        hourly = and_(offer_condition(wanted), OFFER.c.billing.in_(HOURLY_MODES))
        rule = distinct(case((hourly, OFFER.c.time_of_use)))
        sqlite = self.engine.dialect.name == "sqlite"
        rules = func.json_group_array(rule) if sqlite else func.array_agg(rule)
        query = current_query(places, columns=(rules, func.count()))
        with self.engine.connect() as conn:
            found, offers = conn.execute(query).one()
        values = json.loads(found) if sqlite else found or []
        listed = sorted({str(r) for r in values if r is not None})
        return OfferCensus(listed, int(offers), {})

    def read(self, wanted: OfferFilter, groups: Sequence[GroupSummary]) -> list[OfferView]:
        """The job's offers of ``groups``, by offer id, through a client-side cursor (a
        server-side one costs two more round trips a read on PostgreSQL: 0.53-0.70 s against
        0.52-0.56 s for the 13B quote's 97 reads, docs/planner-pruning.md, "Fifth round"); on
        the open group stream's connection (no connection checked out, pinged, given back
        per read), by one statement per filter whose lists are bound at each read (building
        and compiling it took 3-4 ms a read: "Sixth round")."""
        keys = {
            (g.provider, g.region, g.gpu, g.node_cards, g.interconnect, g.network) for g in groups
        }
        machines = sorted({key[:4] for key in keys})
        query = self._read_query(wanted)
        out: list[OfferView] = []
        with self._reading() as conn:
            for start in range(0, len(machines), READ_CHUNK):
                chunk = machines[start : start + READ_CHUNK]
                bound = {
                    "read_providers": sorted({m[0] for m in chunk}),  # their current snapshots
                    "read_machines": chunk,
                    "read_keys": _key_values([key for key in keys if key[:4] in chunk]),
                }
                out += (
                    o
                    for o in map(offer_view_of, conn.execute(query, bound))  # a few hundred rows
                    if (o.provider, o.region, o.gpu, o.node_cards, o.interconnect, o.network)
                    in keys
                )
        out.sort(key=lambda o: int(o.offer_id))
        return out

    def _read_query(self, wanted: OfferFilter) -> Select[Any]:
        """The read's statement for ``wanted``: the offers of the bound providers' current
        snapshots (a condition taken into the snapshots' subquery), machines and group keys
        (NULL links matching through :data:`NO_LINK`: the rows are checked after)."""
        if (query := self.read_queries.get(wanted)) is not None:
            return query
        columns = (OFFER.c.provider, OFFER.c.region, OFFER.c.gpu, OFFER.c.node_cards)
        six = (*GROUP_COLUMNS[:4], *(func.coalesce(c, NO_LINK) for c in GROUP_COLUMNS[4:]))
        query = current_query(wanted)
        current = _current_of(query)
        query = query.where(
            current.c.provider_id.in_(bindparam("read_providers", expanding=True)),
            tuple_(*columns).in_(bindparam("read_machines", expanding=True)),
            fit_condition(wanted),
            tuple_(*six).in_(bindparam("read_keys", expanding=True)),
        )
        self.read_queries[wanted] = query
        return query

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Connection]:
        """The open group stream's connection, else one of the engine's."""
        if self.stream is not None and not self.stream.conn.closed:
            yield self.stream.conn
            return
        with self.engine.connect() as conn:
            yield conn
