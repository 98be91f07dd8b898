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

import contextlib
import os
import pickle
import shutil
import signal
import tempfile
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Float,
    Integer,
    MetaData,
    Select,
    String,
    Table,
    and_,
    case,
    func,
    insert,
    select,
    tuple_,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.base import Executable
from sqlalchemy.sql.elements import ClauseElement, ColumnElement

from comparator.catalog.db import analytic_session, hash_aggregates, lock_timeout_s, make_engine
from comparator.catalog.queries import PROVIDER
from comparator.domain.offer_filter import GroupSummary
from comparator.domain.offer_source import GroupShape, OrderedGroup, ShapeId, ShapeOrder

# ranks read at first, each next page twice as long: the walk keys 256 groups at a time and
# looks one ahead, so 512 ranks left the README's job at 1M offers a second page (and a
# second sort of every group) for one rank; "Seventh round" of docs/planner-pruning.md
FIRST_PAGE = 1024
PART_CHUNK = 200  # machines per IN list
NO_LINK = "\x1f"  # a stand-in for NULL links (the join tests them exactly too)

_META = MetaData()
GROUPS = Table(
    "suanli_job_groups",
    _META,
    Column("provider", String),
    Column("region", String),
    Column("gpu", String),
    Column("node_cards", Integer),
    Column("interconnect", String),
    Column("network", String),
    Column("offers", Integer),
    Column("first_id", Integer),
    Column("least", Float),
    Column("most", Float),
    Column("trial", Integer),
    Column("rule_least", String),  # rule 7's (NULL unless the job may not pause)
    Column("rule_greatest", String),
    Column("least_hourly", Float),
    Column("least_minimum", Float),
    Column("least_contract", Float),
    Column("unfit", Integer),  # 0, or 1 + the index of why rule 8 leaves the row's offers out
    prefixes=["TEMPORARY"],
)
SHAPES = Table(
    "suanli_job_shapes",
    _META,
    Column("gpu", String),
    Column("node_cards", Integer),
    Column("interconnect", String),
    Column("network", String),
    Column("link", String),
    Column("stage", Integer),
    Column("card_hours", Float),
    prefixes=["TEMPORARY"],
)
G, S = GROUPS.c, SHAPES.c


MACHINES = (
    "CREATE INDEX suanli_job_machines ON suanli_job_groups (provider, region, gpu, node_cards)"
)
# (unfit, GPU, node size, interconnect, network, offers, most trial hours, groups)
Tally = tuple[int, str, int, str | None, str | None, int, int, int]


def _tally(table: Table) -> Select[Any]:
    """The groups of ``table`` (:data:`GROUPS`' columns) per rule 8's why and shape: its
    counts of unfit offers and its shapes in one small scan, run on each half where it is
    built (at 1M offers the shapes and the counts took 20 + 4 ms after the build, one core
    idle; docs/planner-pruning.md, "Ninth round")."""
    c = table.c
    keys = (c.unfit, c.gpu, c.node_cards, c.interconnect, c.network)
    return select(*keys, func.sum(c.offers), func.max(c.trial), func.count()).group_by(*keys)


def _tally_rows(rows: Iterable[Any]) -> list[Tally]:
    """:func:`_tally`'s rows as plain tuples (pickled by the child process, merged after)."""
    return [
        (int(r[0]), str(r[1]), int(r[2]), r[3], r[4], int(r[5]), int(r[6] or 0), int(r[7]))
        for r in rows
    ]


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
        """``halves``: ``query`` as two queries of disjoint groups (SQLite: the table is built
        from both at once, one on a thread of its own: :func:`_build_halves`)."""
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
                tally = _build_halves(engine, self.conn, first, second)
            else:
                hash_aggregates(self.conn)  # the join's estimate is far too low (PostgreSQL)
                self.conn.execute(CreateTableAs(GROUPS.name, _labelled(query)))  # in parallel (PG)
                hash_aggregates(self.conn, on=False)
                tally = _tally_rows(self.conn.execute(_tally(GROUPS)))
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
        """Give the connection back without the temporary tables: on PostgreSQL dropped; on
        SQLite the connection is closed instead, which discards them at once (dropping the
        LoRA job's 180,000 groups on the other shape freed them page by page: 44 ms)."""
        if self.conn.closed:
            return
        try:
            if self.conn.dialect.name == "sqlite":
                self.conn.invalidate()  # the pool opens a new one when next asked
                return
            for table in (SHAPES, GROUPS):
                table.drop(self.conn, checkfirst=True)
            self.conn.rollback()
        finally:
            self.conn.close()


def _labelled(query: Select[Any]) -> Select[Any]:
    """``query``'s columns named as :data:`GROUPS`'s."""
    return query.with_only_columns(
        *(c.label(t.name) for c, t in zip(query.selected_columns, G, strict=True))
    )


PART_SCHEMA = "suanli_part"  # the second half's database, attached while it is built and read


class _Half:
    """The second half of the group table, built by a child process (``fork``) into a
    database file of its own (a temporary table is its connection's only). A process, not a
    thread: two of SQLite's threads in one process contend for its global mutexes (the two
    halves on two threads took 1.46-1.52 s and 1.9-2.6 CPU s, one after the other 1.46-1.61 s,
    in two processes 0.82-0.84 s). The child's tally of its half, or its error, comes back
    pickled through a pipe."""

    def __init__(self, engine: Engine, query: Select[Any], path: Path) -> None:
        self.url = engine.url.render_as_string(hide_password=False)
        self.timeout_s = lock_timeout_s(engine)
        self.query, self.path = query, path
        self.pid = 0
        self.pipe = -1

    def start(self) -> None:
        reading, writing = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: builds its half, reports, and leaves at once
            os.close(reading)
            code = 0
            try:
                _send(writing, self._build())
            except BaseException as exc:
                code = 1
                _send(writing, exc)
            finally:
                os._exit(code)
        os.close(writing)
        self.pid, self.pipe = pid, reading

    def _build(self) -> list[Tally]:
        engine = make_engine(self.url, self.timeout_s)
        with engine.connect() as conn:
            raw: Any = conn.connection.dbapi_connection
            _attach(raw, self.path)
            raw.execute(f"PRAGMA {PART_SCHEMA}.journal_mode = OFF")
            raw.execute(f"PRAGMA {PART_SCHEMA}.synchronous = OFF")
            conn.execute(CreateTableAs(GROUPS.name, self.query, schema=PART_SCHEMA))
            conn.commit()
            part = GROUPS.to_metadata(MetaData(), schema=PART_SCHEMA)
            return _tally_rows(conn.execute(_tally(part)))

    def stop(self) -> None:
        """End the child (the caller failed)."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGTERM)

    def finish(self) -> list[Tally]:
        """Wait for the child: the tally of its half, once written; its error raised."""
        with os.fdopen(self.pipe, "rb") as pipe:
            sent = pipe.read()
        _, status = os.waitpid(self.pid, 0)
        found: list[Tally] | BaseException | None = pickle.loads(sent) if sent else None
        if isinstance(found, BaseException):
            raise found
        if status != 0 or found is None:
            raise RuntimeError(f"the group table's second half failed (status {status})")
        return found


def _send(pipe: int, found: list[Tally] | BaseException) -> None:
    """``found`` pickled into ``pipe`` (an error's text in a RuntimeError if it does not
    pickle)."""
    try:
        data = pickle.dumps(found)
    except Exception:
        data = pickle.dumps(RuntimeError(str(found)))
    with os.fdopen(pipe, "wb") as out:
        out.write(data)


def _attach(raw: Any, path: Path) -> None:
    raw.execute(f"ATTACH DATABASE ? AS {PART_SCHEMA}", (str(path),))


def _build_halves(
    engine: Engine, conn: Connection, first: Select[Any], second: Select[Any]
) -> list[Tally]:
    """The group table from two queries of disjoint groups at once (SQLite): the first into
    the table on ``conn``, the second by a child process into a file, appended after (the
    ``GROUP BY`` of the LoRA job on the other shape: 1.5-1.6 s on one core, 0.8-0.9 s on two,
    docs/planner-pruning.md, "Sixth round"); the tallies of both halves, each taken where
    it is built. The child's error is raised here; nothing of it is left running or on
    disk."""
    folder = Path(tempfile.mkdtemp(prefix="suanli-groups-"))
    try:
        half = _Half(engine, second, folder / "half.db")
        half.start()
        try:
            conn.execute(CreateTableAs(GROUPS.name, first))
            tally = _tally_rows(conn.execute(_tally(GROUPS)))
        except BaseException:
            half.stop()
            with contextlib.suppress(Exception):  # the child's end: this error is the one
                half.finish()
            raise
        tally += half.finish()
        conn.commit()  # ATTACH needs no transaction open
        raw: Any = conn.connection.dbapi_connection
        _attach(raw, half.path)
        try:
            raw.execute(f"INSERT INTO temp.{GROUPS.name} SELECT * FROM {PART_SCHEMA}.{GROUPS.name}")
        finally:
            raw.execute(f"DETACH DATABASE {PART_SCHEMA}")
        return tally
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class CreateTableAs(Executable, ClauseElement):
    """``CREATE TEMPORARY TABLE name AS query`` (or ``CREATE TABLE schema.name AS query``):
    PostgreSQL plans parallel workers for it (not for ``INSERT … SELECT``); the columns are
    the query's labels."""

    inherit_cache = False

    def __init__(self, name: str, query: Select[Any], schema: str | None = None) -> None:
        self.name, self.query, self.schema = name, query, schema


@compiles(CreateTableAs)
def _create_table_as(element: CreateTableAs, compiler: Any, **kw: Any) -> str:
    name = compiler.preparer.quote(element.name)
    query = compiler.process(element.query, **kw)
    if element.schema is not None:
        return f"CREATE TABLE {compiler.preparer.quote(element.schema)}.{name} AS {query}"
    return f"CREATE TEMPORARY TABLE {name} AS {query}"


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
