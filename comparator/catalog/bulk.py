"""A whole sheet's snapshots stored in bulk: one query, one insert of snapshots, one of offers.

Same rows and the same all-or-nothing transaction as :func:`~comparator.catalog.queries.
store_snapshot_in` called once per provider, without its per-provider round trips (a sheet of
1,000 providers made 3,000 statements) and without a Python step per row and column: a sheet's
rows are grouped by provider once (contiguous slices), and every value is turned into its text
(for the content hash, for PostgreSQL ``COPY``) once per distinct value object, not per cell.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import Connection, Dialect, Engine, insert, select

from comparator.catalog.changes import KEY_FIELDS
from comparator.catalog.coded import Coded, coded, coded_lists, copy_text, joined_rows
from comparator.catalog.copy_order import in_index_order
from comparator.catalog.models import OfferColumns
from comparator.catalog.offer_ids import reserve_offer_ids
from comparator.catalog.queries import (
    CONTENT_FIELDS,
    OFFER,
    OFFER_FIELDS,
    SNAPSHOT,
    SnapshotInfo,
    SnapshotResult,
    current_snapshots,
    lines_sha256,
)
from comparator.catalog.sheet_summary import SheetSummary, insert_summaries, summarise_sheet
from comparator.catalog.staged_insert import insert_columns
from comparator.errors import CatalogError

ANALYZE_AFTER_ROWS = 10_000
COPY_CHUNK_ROWS = 20_000  # offers per write to COPY
_IN_CHUNK = 500  # ids per IN (...) list
COPY_COLUMNS = ("snapshot_id", *OFFER_FIELDS)  # the order of a COPY line's values
WITH_IDS = ("id", *COPY_COLUMNS)  # … where the offers' ids are given (the import's)


def analyze_catalog(engine: Engine) -> None:
    """Refresh the planner statistics of the offer tables after a bulk import: without them
    PostgreSQL planned the `offers` filter over a fresh million rows as a 36 s nested loop."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("ANALYZE offer, pricesnapshot, datacenter")
        else:
            conn.exec_driver_sql("PRAGMA analysis_limit=2000")
            conn.exec_driver_sql("ANALYZE")


@dataclass(frozen=True)
class SheetGroups:
    """A sheet's offers sorted by provider: ``spans`` are (provider, first row, end row)."""

    columns: OfferColumns
    spans: Sequence[tuple[str, int, int]]
    digests: Sequence[str]  # content_sha256 of each span's offers
    coded: Mapping[str, Coded]  # each column's codes into its distinct values
    # each offer's COPY line but its snapshot id, where made ahead (:func:`with_copy_lines`)
    lines: np.ndarray | None = None
    # each group's cheapest offer and count, where found ahead (:func:`with_copy_lines`)
    summary: SheetSummary | None = None
    # elsewhere than PostgreSQL, each column's distinct values bound (by code), made ahead
    bound: Mapping[str, np.ndarray] | None = None
    # the row of each of ``lines``, where they are in COPY's order (:mod:`.copy_order`)
    line_rows: np.ndarray | None = None

    @property
    def providers(self) -> list[str]:
        return [pid for pid, _, _ in self.spans]

    def group(self, index: int) -> OfferColumns:
        _, start, end = self.spans[index]
        return OfferColumns({n: col[start:end] for n, col in self.columns.values.items()})

    def texts(self, name: str, convert: Callable[[Any], Any]) -> tuple[np.ndarray, np.ndarray]:
        """(codes, ``convert`` of each distinct value) of column ``name``."""
        column = self.coded[name]
        return column.codes, column.render(self.columns.values[name], convert)


def for_the_writer(groups: SheetGroups) -> SheetGroups:
    """``groups`` as few bytes to pickle: each column as codes into its distinct values
    (:class:`~comparator.catalog.coded.CodedList`), not a value per row. What a sheet parsed
    in a child process sends the import's writer (:mod:`comparator.refresh.parse_process`)."""
    narrow = {name: Coded(c.codes.astype(np.int32), c.firsts) for name, c in groups.coded.items()}
    values = coded_lists(groups.columns.values, narrow)  # its codes are those of narrow
    return dataclasses.replace(groups, columns=OfferColumns(values), coded=narrow)


def group_sheet(columns: OfferColumns) -> SheetGroups:
    """The sheet grouped by provider (in provider order) with each group's content hash."""
    columns = _sorted_by_provider(columns)
    spans: list[tuple[str, int, int]] = []
    start = 0
    for pid, run in itertools.groupby(columns.values["provider"]):
        end = start + sum(1 for _ in run)
        spans.append((pid, start, end))
        start = end
    known = columns.codes
    codes = {name: coded(values, known.get(name)) for name, values in columns.values.items()}
    groups = SheetGroups(columns, spans, [], codes)
    lines = joined_rows([groups.texts(name, str) for name in CONTENT_FIELDS], "\x1f")
    digests = [lines_sha256(lines[start:end].tolist()) for _, start, end in spans]
    return SheetGroups(columns, spans, digests, codes)


def _sorted_by_provider(columns: OfferColumns) -> OfferColumns:
    """The rows in provider order (stable); the same object when they already are."""
    providers = columns.values["provider"]
    if all(a <= b for a, b in itertools.pairwise(providers)):
        return columns
    order = sorted(range(columns.count), key=providers.__getitem__)
    codes = {name: known[order] for name, known in columns.codes.items()}
    return OfferColumns({n: [col[i] for i in order] for n, col in columns.values.items()}, codes)


def removed_offers_in(
    conn: Connection, groups: SheetGroups, current: Mapping[str, SnapshotInfo] | None = None
) -> list[tuple[str, int, int, int]]:
    """(provider, offers before, offers in the sheet, offers gone) of each provider whose
    current snapshot has offers the sheet lacks (by :data:`KEY_FIELDS`). ``current``: the
    providers' current snapshots where the caller read them (:func:`current_snapshots_of`)."""
    if current is None:
        current = current_snapshots_of(conn, groups.providers)
    changed = {
        pid: i
        for i, pid in enumerate(groups.providers)
        if pid in current and current[pid].content_sha256 != groups.digests[i]
    }
    before = _stored_keys(conn, {current[pid].id: pid for pid in changed})
    found: list[tuple[str, int, int, int]] = []
    for pid, index in changed.items():
        group = groups.group(index)
        keys = zip(*(group.values[name] for name in KEY_FIELDS), strict=True)
        gone = sum((before[pid] - Counter(keys)).values())
        if gone:
            found.append((pid, sum(before[pid].values()), group.count, gone))
    return found


def _stored_keys(conn: Connection, providers_of: dict[int, str]) -> dict[str, Counter[Any]]:
    keys: dict[str, Counter[Any]] = {pid: Counter() for pid in providers_of.values()}
    ids = list(providers_of)
    columns = [OFFER.c[name] for name in KEY_FIELDS]
    for start in range(0, len(ids), _IN_CHUNK):
        query = select(OFFER.c.snapshot_id, *columns).where(
            OFFER.c.snapshot_id.in_(ids[start : start + _IN_CHUNK])
        )
        for row in conn.execute(query):
            keys[providers_of[row[0]]][tuple(row[1:])] += 1
    return keys


def store_groups_in(
    conn: Connection,
    groups: SheetGroups,
    *,
    source: str | Mapping[str, str],
    fetched_at: datetime | Mapping[str, datetime],
    alone: bool = False,
    current: Mapping[str, SnapshotInfo] | None = None,
) -> list[SnapshotResult]:
    """:func:`store_snapshot_in` for every provider of a sheet at once: their current
    snapshots read in one query, the new snapshots inserted in one statement and all their
    offers in one bulk insert — the same rows, inside the caller's one transaction.

    ``source`` and ``fetched_at`` are the sheet's, or each provider's (a refresh batch of
    several sources: :mod:`comparator.refresh.batch_store`). ``alone``: the caller holds every
    provider's lock (an import of sheets), so no other session writes offers meanwhile
    (:func:`~comparator.catalog.offer_ids.reserve_offer_ids`). ``current``: the providers'
    current snapshots where the caller read them in this transaction (an import's check of
    removals did), else read here."""
    if current is None:
        current = current_snapshots_of(conn, groups.providers)
    results: list[SnapshotResult | None] = []
    new: list[int] = []
    for index, (pid, _, _) in enumerate(groups.spans):
        old = current.get(pid)
        if old is not None and old.content_sha256 == groups.digests[index]:
            results.append(SnapshotResult(pid, old.id, "unchanged", old.offers))
        else:
            results.append(None)
            new.append(index)
    if new:
        rows = [
            {"provider_id": groups.spans[i][0], "source": _of(source, groups.spans[i][0])}
            | {"content_sha256": groups.digests[i]}
            | {"fetched_at": _of(fetched_at, groups.spans[i][0])}
            | {"offers": groups.spans[i][2] - groups.spans[i][1]}
            for i in new
        ]
        statement = insert(SNAPSHOT).returning(SNAPSHOT.c.id, sort_by_parameter_order=True)
        ids = [int(i) for i in conn.execute(statement, rows).scalars()]
        for index, snapshot_id in zip(new, ids, strict=True):
            pid, start, end = groups.spans[index]
            results[index] = SnapshotResult(pid, snapshot_id, "succeeded", end - start)
        written = list(zip(new, ids, strict=True))
        count = sum(groups.spans[i][2] - groups.spans[i][1] for i in new)
        offer_ids = reserve_offer_ids(conn, count, alone=alone)
        insert_offers(conn, groups, written, offer_ids)
        insert_summaries(conn, groups, written, offer_ids)
    return [r for r in results if r is not None]


def _of(value: Any, provider: str) -> Any:
    return value[provider] if isinstance(value, Mapping) else value


def current_snapshots_of(conn: Connection, providers: Sequence[str]) -> dict[str, SnapshotInfo]:
    """The current snapshot of each of ``providers`` that has one, in queries of 500."""
    found: dict[str, SnapshotInfo] = {}
    for start in range(0, len(providers), _IN_CHUNK):
        chunk = providers[start : start + _IN_CHUNK]
        newest = select(current_snapshots(chunk).subquery().c.id)
        query = select(
            SNAPSHOT.c.provider_id, SNAPSHOT.c.id, SNAPSHOT.c.offers, SNAPSHOT.c.content_sha256
        ).where(SNAPSHOT.c.id.in_(newest))
        for pid, sid, offers, sha in conn.execute(query):
            found[pid] = SnapshotInfo(int(sid), int(offers), str(sha))
    return found


def insert_offers(
    conn: Connection,
    groups: SheetGroups,
    snapshots: Sequence[tuple[int, int]],
    offer_ids: np.ndarray,
) -> None:
    """The offers of the spans ``(span index, snapshot id)``, with ``offer_ids`` (in the
    order of the spans, then of their rows): PostgreSQL ``COPY … FROM STDIN`` fed text in
    chunks, SQLite with few bound parameters per row (:mod:`comparator.catalog.staged_insert`),
    else one ``executemany``; each column's values are bound (its type's bind processor) once
    per distinct value."""
    dialect = conn.dialect
    if dialect.name == "postgresql" and dialect.driver == "psycopg":
        chunks, count = copy_payload(dialect, groups, snapshots, offer_ids)
        copy_offers(conn.connection.driver_connection, chunks, count, columns=WITH_IDS)
        return
    rows, snapshot_codes = _rows_of(groups.spans, snapshots)
    columns = [
        ("id", np.arange(len(rows)), _objects(offer_ids.tolist())),
        ("snapshot_id", snapshot_codes, _objects([sid for _, sid in snapshots])),
        *((name, *_bound(dialect, groups, name, rows)) for name in OFFER_FIELDS),
    ]
    if dialect.name == "sqlite":  # few bound parameters per row (catalog/staged_insert.py)
        insert_columns(conn, OFFER.name, columns)
        return
    marker = "?" if dialect.paramstyle == "qmark" else "%s"
    sql = (
        f"INSERT INTO {OFFER.name} ({_quoted(dialect)}) "
        f"VALUES ({', '.join([marker] * len(WITH_IDS))})"
    )
    bound = [values[codes].tolist() for _, codes, values in columns]
    conn.exec_driver_sql(sql, list(zip(*bound, strict=True)))


def _objects(values: list[Any]) -> np.ndarray:
    """``values`` as a NumPy array of Python objects."""
    found = np.empty(len(values), dtype=object)
    found[:] = values
    return found


def _quoted(dialect: Dialect) -> str:
    return ", ".join(dialect.identifier_preparer.quote(n) for n in WITH_IDS)


def with_copy_lines(dialect: Dialect, groups: SheetGroups) -> SheetGroups:
    """``groups`` prepared for the writer now (on the import's parsing thread): each group's
    summary (:func:`~comparator.catalog.sheet_summary.summarise_sheet`), and on PostgreSQL
    each offer's COPY line but its ids, so that the writer only puts the ids in front;
    elsewhere each column's distinct values bound, so that the writer only stages them."""
    if not (dialect.name == "postgresql" and dialect.driver == "psycopg"):
        bound = {name: _processed(dialect, groups, name)[1] for name in OFFER_FIELDS}
        return dataclasses.replace(groups, summary=summarise_sheet(dialect, groups), bound=bound)
    rows = np.arange(groups.columns.count)
    cells = [_bound(dialect, groups, name, rows, copy_text) for name in OFFER_FIELDS]
    lines = joined_rows(cells, "\t") if cells and len(rows) else np.empty(0, dtype=object)
    summary = summarise_sheet(dialect, groups, dict(zip(OFFER_FIELDS, cells, strict=True)))
    order = in_index_order(dialect, groups)  # the rows in COPY's order; their ids stay
    line_rows = order.astype(np.int32)
    return dataclasses.replace(groups, lines=lines[order], summary=summary, line_rows=line_rows)


def copy_payload(
    dialect: Dialect,
    groups: SheetGroups,
    snapshots: Sequence[tuple[int, int]],
    offer_ids: np.ndarray | None = None,
) -> tuple[Iterator[str], int]:
    """The offers of the spans ``(span index, snapshot id)`` in COPY's text format, one line
    per offer in the order of :data:`COPY_COLUMNS` (of :data:`WITH_IDS` with ``offer_ids``),
    in chunks of :data:`COPY_CHUNK_ROWS` lines made as they are read (the server ingests one
    while the next is made); and the count of offers."""
    if groups.lines is not None:
        return _prefixed_chunks(groups.lines, groups, snapshots, offer_ids)
    rows, snapshot_codes = _rows_of(groups.spans, snapshots)
    snapshot_ids = np.array([str(sid) for _, sid in snapshots], dtype=object)
    cells = [(snapshot_codes, snapshot_ids)]
    if offer_ids is not None:
        id_texts = np.array([str(i) for i in offer_ids.tolist()], dtype=object)
        cells.insert(0, (np.arange(len(rows)), id_texts))
    cells += [_bound(dialect, groups, name, rows, copy_text) for name in OFFER_FIELDS]

    def chunks() -> Iterator[str]:
        for start in range(0, len(rows), COPY_CHUNK_ROWS):
            part = [(codes[start : start + COPY_CHUNK_ROWS], texts) for codes, texts in cells]
            yield "\n".join(joined_rows(part, "\t").tolist()) + "\n"

    return chunks(), len(rows)


def _prefixed_chunks(
    lines: np.ndarray,
    groups: SheetGroups,
    snapshots: Sequence[tuple[int, int]],
    offer_ids: np.ndarray | None,
) -> tuple[Iterator[str], int]:
    """The ``lines`` made ahead, each with its snapshot id (and offer id) in front; a line's
    offer id is its row's (``line_rows``): the ids follow the rows, whatever the lines' order."""
    spans = groups.spans
    rows = np.arange(len(lines)) if groups.line_rows is None else groups.line_rows

    def chunks() -> Iterator[str]:
        parts: list[str] = []
        size = written = 0
        for index, snapshot_id in snapshots:
            _, start, end = spans[index]
            if offer_ids is None:
                parts.append(
                    f"{snapshot_id}\t" + f"\n{snapshot_id}\t".join(lines[start:end].tolist())
                )
            else:
                ids = offer_ids[rows[start:end] - start + written].tolist()
                tail = f"\t{snapshot_id}\t"
                parts.append(
                    "\n".join(
                        [
                            f"{i}{tail}{line}"
                            for i, line in zip(ids, lines[start:end].tolist(), strict=True)
                        ]
                    )
                )
            written += end - start
            size += end - start
            if size >= COPY_CHUNK_ROWS:
                yield "\n".join(parts) + "\n"
                parts, size = [], 0
        if parts:
            yield "\n".join(parts) + "\n"

    return chunks(), sum(spans[i][2] - spans[i][1] for i, _ in snapshots)


def copy_offers(
    raw: Any,
    chunks: Iterable[str],
    rows: int,
    table: str = OFFER.name,
    columns: Sequence[str] = COPY_COLUMNS,
) -> None:
    """COPY ``chunks`` (of :func:`copy_payload`) into ``table`` on the psycopg connection
    ``raw``, in the caller's transaction, and check that it stored ``rows`` offers."""
    names = ", ".join(f'"{name}"' for name in columns)
    with raw.cursor() as cursor:
        with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
            for chunk in chunks:
                copy.write(chunk)
        _check_count(cursor.rowcount, rows)


def _rows_of(
    spans: Sequence[tuple[str, int, int]], snapshots: Sequence[tuple[int, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the spans to store, and each row's position in ``snapshots``."""
    ranges = [np.arange(spans[i][1], spans[i][2]) for i, _ in snapshots]
    lengths = [len(r) for r in ranges]
    rows = np.concatenate(ranges) if ranges else np.empty(0, dtype=np.int64)
    return rows, np.repeat(np.arange(len(snapshots)), lengths)


def _check_count(copied: int, expected: int) -> None:
    """The one set-based check of what COPY stored (the offer table has no foreign key)."""
    if copied != expected:
        raise CatalogError(
            "COPY stored {copied} offers of {expected}; nothing imported",
            copied=copied,
            expected=expected,
        )


def _bound(
    dialect: Dialect,
    groups: SheetGroups,
    name: str,
    rows: np.ndarray,
    then: Callable[[Any], Any] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(codes at ``rows``, each distinct value as the driver takes it, then ``then``'d)."""
    if then is None and groups.bound is not None:  # bound ahead (:func:`with_copy_lines`)
        return groups.coded[name].codes[rows], groups.bound[name]
    codes, texts = _processed(dialect, groups, name, then)
    return codes[rows], texts


def _processed(
    dialect: Dialect, groups: SheetGroups, name: str, then: Callable[[Any], Any] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(codes, each distinct value as the driver takes it, then ``then``'d) of ``name``."""
    process = OFFER.c[name].type.bind_processor(dialect)
    bind: Callable[[Any], Any] = process or _same
    return groups.texts(name, (lambda v: then(bind(v))) if then else bind)


def _same(value: Any) -> Any:
    return value
