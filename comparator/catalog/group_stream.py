"""A job's group summaries in a temporary table, read in the order the planner's walk needs
(docs/planner-pruning.md, rule 5).

The job's offers are summarised once per raw group (``GROUP BY``, as
:meth:`comparator.catalog.queries_groups.CatalogGroups.summaries`) into a temporary table;
the planner then asks for the offers per shape (a small aggregate), and for the groups in the
order of a lower bound of their keys, which the database sorts: a cursor streams them, and only
the head the walk reaches becomes Python objects. Also the providers' discounts, read from the
stored profiles without parsing anything else of them.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    Connection,
    Engine,
    Select,
    and_,
    case,
    func,
    insert,
    select,
    tuple_,
)
from sqlalchemy.sql.elements import ColumnElement

from comparator.catalog import group_halves
from comparator.catalog.db import analytic_session, hash_aggregates
from comparator.catalog.group_table import (
    GROUPS,
    SHAPES,
    CreateTableAs,
    G,
    S,
    Tally,
    tally_of,
    tally_rows,
)
from comparator.catalog.queries import PROVIDER
from comparator.domain.offer_filter import GroupSummary
from comparator.domain.offer_source import GroupShape, OrderedGroup, ShapeId, ShapeOrder

# ranks read at first, each next page twice as long: the walk keys 256 groups at a time and
# looks one ahead, so 512 ranks left the README's job at 1M offers a second page (and a
# second sort of every group) for one rank; "Seventh round" of docs/planner-pruning.md
FIRST_PAGE = 1024
PART_CHUNK = 200  # machines per IN list
NO_LINK = "\x1f"  # a stand-in for NULL links (the join tests them exactly too)


MACHINES = (
    "CREATE INDEX suanli_job_machines ON suanli_job_groups (provider, region, gpu, node_cards)"
)


def _shapes_of(tally: Iterable[Tally]) -> list[GroupShape]:
    """The shapes of the fit groups (unfit 0) from the tallies of the table's parts, in
    SQL's order (NULL links first)."""
    merged: dict[tuple[str, int, str | None, str | None], list[int]] = {}
    for r in tally:
        if r[0] == 0:
            totals = merged.setdefault((r[1], r[2], r[3], r[4]), [0, 0, 0])
            totals[0] += r[5]
            totals[1] = max(totals[1], r[6])
            totals[2] += r[7]
    shapes = []
    for key in sorted(merged, key=lambda k: tuple((v is not None, v) for v in k)):
        offers, trial, groups = merged[key]
        shapes.append(GroupShape(*key, offers, trial > 0, groups))
    return shapes


class SqlGroupStream:
    """The summaries of ``query`` (grouped by the raw group's six keys, with the columns of
    :func:`comparator.catalog.queries_groups.summary_columns`) behind one connection, which
    :meth:`close` gives back; rule 8's unfit offers ``counted`` by why, or grouped ``apart``
    in the table (by 1 + the index of their kind in ``apart``)."""

    def __init__(
        self,
        engine: Engine,
        query: Select[Any],
        apart: Sequence[str] | None = None,
        counted: Mapping[str, int] | None = None,
        halves: tuple[Select[Any], Select[Any]] | None = None,
    ) -> None:
        """``halves``: ``query`` as two queries of disjoint groups, built at once: on SQLite
        the second by a child process (:func:`~comparator.catalog.group_halves.build_halves`), on PostgreSQL on a
        second connection (:func:`~comparator.catalog.group_halves.copied_halves`)."""
        self.conn: Connection = engine.connect()
        self.known: list[GroupShape] | None = None
        self.indexed = False  # MACHINES built (only where parts are read by machine)
        self.left_out: dict[str, int] = dict(counted or {})
        try:
            analytic_session(self.conn)  # the GROUP BY in memory, no JIT (PostgreSQL)
            for table in (GROUPS, SHAPES):
                table.drop(self.conn, checkfirst=True)
            SHAPES.create(self.conn)
            if halves is not None:
                first, second = _labelled(halves[0]), _labelled(halves[1])
                postgres = engine.dialect.name == "postgresql"
                build = group_halves.copied_halves if postgres else group_halves.build_halves
                tally = build(engine, self.conn, first, second)
            else:
                hash_aggregates(self.conn)  # the join's estimate is far too low (PostgreSQL)
                self.conn.execute(CreateTableAs(GROUPS.name, _labelled(query)))
                hash_aggregates(self.conn, on=False)
                tally = tally_rows(self.conn.execute(tally_of(GROUPS)))
            self.known = _shapes_of(tally)
            if apart is not None:  # rule 8's kinds, grouped apart by 1 + the kind's index
                self._count_unfit(apart, tally)
        except BaseException:
            self.close()
            raise

    def _count_unfit(self, kinds: Sequence[str], tally: Sequence[Tally]) -> None:
        """The offers rule 8 leaves out, grouped apart in the table by why: summed from the
        table's ``tally`` and dropped from the table."""
        for r in tally:
            if r[0] > 0:
                kind = kinds[r[0] - 1]
                self.left_out[kind] = self.left_out.get(kind, 0) + r[5]
        if self.left_out:
            self.conn.execute(GROUPS.delete().where(G.unfit > 0))

    def unfit(self) -> dict[str, int]:
        return self.left_out

    def shapes(self) -> list[GroupShape]:
        assert self.known is not None, "the shapes are tallied as the table is built"
        return self.known

    def providers(self) -> list[str]:
        query = select(G.provider).distinct().order_by(G.provider)
        return [str(p) for p in self.conn.execute(query).scalars()]

    def ordered(
        self, order: Mapping[ShapeId, ShapeOrder], least_discount: float, half_place: float
    ) -> tuple[int, Iterator[OrderedGroup]]:
        rows = [
            {
                "gpu": shape[0],
                "node_cards": shape[1],
                "interconnect": shape[2],
                "network": shape[3],
                "link": o.link,
                "stage": 0 if o.first else 1,
                "card_hours": o.card_hours,
            }
            for shape, o in order.items()
        ]
        if rows:
            self.conn.execute(insert(SHAPES), rows)
        joined = GROUPS.join(SHAPES, _same_shape(self.conn.dialect.name))
        aliased = _aliased(order)
        if aliased:  # raw groups of one machine may merge: count the groups
            keys = (G.provider, G.region, G.gpu, G.node_cards, S.link)
            counted = select(*keys).select_from(joined).distinct().subquery()
            groups = int(self.conn.execute(select(func.count()).select_from(counted)).scalar_one())
        else:  # each raw group is a group
            groups = sum(s.groups for s in self.shapes() if _shape(s) in order)
        least = func.coalesce(G.least, 0.0)
        value = case(
            (S.stage == 0, 0.0),
            else_=S.card_hours * (least_discount * least - half_place * G.most),
        )
        machine = (G.provider, G.region, G.gpu, G.node_cards)
        ranked = select(S.stage, value.label("value"), S.link, *G).select_from(joined)
        ranked = ranked.order_by(S.stage, "value", *machine, G.interconnect, G.network)
        parts = select(S.link, *G).select_from(joined)
        return groups, self._groups(ranked, parts, aliased)

    def _groups(
        self, ranked: Select[Any], parts: Select[Any], aliased: set[ShapeId]
    ) -> Iterator[OrderedGroup]:
        """The groups in the order of their least part (each part ranked by its own order
        value; a group comes with every part of it at its first part's rank): ranks read
        in pages twice as long each time; a raw group whose shape shares its link key with
        another shape comes with the other parts of its machine (read by the index)."""
        emitted: set[tuple[Any, ...]] = set()
        start, size = 0, FIRST_PAGE
        while True:
            page = self.conn.execute(ranked.limit(size).offset(start)).all()
            wanted = [r for r in page if (*r[3:7], r[2]) not in emitted]
            merged = sorted({tuple(r[3:7]) for r in wanted if tuple(r[5:9]) in aliased})
            found = self._parts(merged, parts) if merged else {}
            for r in wanted:
                if (key := (*r[3:7], r[2])) not in emitted:
                    emitted.add(key)
                    group = found[key] if key in found else [summary_of_row(r[3:])]
                    yield OrderedGroup((int(r[0]), float(r[1])), group)
            if len(page) < size:
                return
            start, size = start + size, size * 2

    def _parts(
        self, machines: list[tuple[Any, ...]], parts: Select[Any]
    ) -> dict[tuple[Any, ...], list[GroupSummary]]:
        """The summaries of ``machines``, per (machine, link key), by first offer id."""
        out: dict[tuple[Any, ...], list[GroupSummary]] = {}
        if not self.indexed:  # 0.5-0.8 s over 200,000 groups: built only when needed
            self.conn.exec_driver_sql(MACHINES)
            self.indexed = True
        machine = (G.provider, G.region, G.gpu, G.node_cards)
        for at in range(0, len(machines), PART_CHUNK):
            query = parts.where(tuple_(*machine).in_(machines[at : at + PART_CHUNK]))
            for r in self.conn.execute(query.order_by(G.first_id)):
                out.setdefault((*r[1:5], r[0]), []).append(summary_of_row(r[1:]))
        return out

    def at(self, provider: str, region: str, gpu: str) -> list[GroupSummary]:
        query = select(*G).where((G.provider == provider) & (G.region == region) & (G.gpu == gpu))
        return [summary_of_row(r) for r in self.conn.execute(query)]

    def close(self) -> None:
        """Give the connection back without the temporary tables: on PostgreSQL rolled back
        (they were made in its one transaction, never committed; a failed statement leaves
        nothing else to do there); on SQLite the connection is closed instead, which discards
        them at once (dropping the LoRA job's 180,000 groups on the other shape freed them
        page by page: 44 ms)."""
        if self.conn.closed:
            return
        try:
            if self.conn.dialect.name == "sqlite":
                self.conn.invalidate()  # the pool opens a new one when next asked
                return
            self.conn.rollback()
        finally:
            self.conn.close()


def _labelled(query: Select[Any]) -> Select[Any]:
    """``query``'s columns named as :data:`GROUPS`'s."""
    return query.with_only_columns(
        *(c.label(t.name) for c, t in zip(query.selected_columns, G, strict=True))
    )


def _same_shape(dialect: str) -> ColumnElement[bool]:
    """A group's row joined to its shape's; on PostgreSQL the links also as equalities on a
    stand-in for NULL, so that it hashes all four keys (on ``IS NOT DISTINCT FROM`` alone it
    hashed GPU and node size and filtered 581,104 of 761,700 pairs after: the LoRA job, other
    shape), besides the exact test (SQLite probes an index on the shapes it builds itself)."""
    links = [(G.interconnect, S.interconnect), (G.network, S.network)]
    exact = [g.is_not_distinct_from(s) for g, s in links]
    if dialect == "postgresql":
        exact += [func.coalesce(g, NO_LINK) == func.coalesce(s, NO_LINK) for g, s in links]
    return and_(G.gpu == S.gpu, G.node_cards == S.node_cards, *exact)


def _shape(s: GroupShape) -> ShapeId:
    return (s.gpu, s.node_cards, s.interconnect, s.network)


def _aliased(order: Mapping[ShapeId, ShapeOrder]) -> set[ShapeId]:
    """The shapes that share their GPU, node size and link key with another shape: one
    machine's raw groups of those shapes are one group."""
    by_link: dict[tuple[str, int, str], list[ShapeId]] = {}
    for shape, o in order.items():
        by_link.setdefault((shape[0], shape[1], o.link), []).append(shape)
    return {shape for shapes in by_link.values() if len(shapes) > 1 for shape in shapes}


def summary_of_row(r: Any) -> GroupSummary:
    """A row of :data:`GROUPS` (or of the query behind it: its columns in order) as a
    summary."""
    rules = None if r[11] is None else (r[11], r[12])
    return GroupSummary(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        r[6],
        r[7],
        r[8],
        r[9] or 0.0,
        bool(r[10]),
        rules,
        r[13],
        r[14],
        r[15],
    )


def load_provider_discounts(engine: Engine, providers: Collection[str]) -> dict[str, Decimal]:
    """The discount of each of ``providers`` whose stored profile states one: the column the
    import writes beside the document (its field parser's value as text), read only where it
    is set (most providers state none; parsing each document's ``provider`` table for it took
    0.2-0.4 s of PostgreSQL at 10,000 providers: docs/planner-pruning.md, "Fifth round")."""
    stated = PROVIDER.c.discount.is_not(None)
    query = select(PROVIDER.c.id, PROVIDER.c.discount).where(stated).order_by(PROVIDER.c.id)
    with engine.connect() as conn:
        rows = conn.execute(query).all()
    if not rows:  # ``providers`` not even asked (it may be read only when iterated)
        return {}
    wanted = set(providers)
    return {str(pid): Decimal(text) for pid, text in rows if pid in wanted}
