"""A sheet's snapshot summaries found from its columns before the write, not read back.

:func:`~comparator.catalog.snapshot_summary.summarise_snapshots` groups a snapshot's offers in
SQL once they are stored; over an import of a million offers that was a hash aggregate of
about 2.4 s in PostgreSQL's backend (docs/import.md), and 0.62 s of SQLite per 200,000 offers
(``benchmarks/import_phases.py``, 2026-12-03, load 4.8). The parsed
columns are at hand before the write: here each group's offer count and cheapest offer per
card are found with NumPy (on the import's parsing thread), and the writer inserts the rows
with the offer ids it gave the offers (:mod:`comparator.catalog.offer_ids`).

The same rows as the SQL: groups of equal key values as the database compares them
(PostgreSQL's ``NUMERIC`` by value, SQLite's text by text) within one snapshot; the cheapest
offer is the least price per card, exactly (float ratios order the offers, exact fractions
decide between offers of a group whose floats come within ``1e-12`` of each other and whose
prices or cards differ), then the lowest id (ids follow the rows within a snapshot).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

import numpy as np
import pandas as pd
from sqlalchemy import Connection, Dialect

from comparator.catalog import staged_insert
from comparator.catalog.coded import Coded, copy_text, joined_rows
from comparator.catalog.models import OfferColumns
from comparator.catalog.queries import OFFER
from comparator.catalog.snapshot_summary import GROUP_COLUMNS, SUMMARY
from comparator.errors import CatalogError

_NEAR = 1e-12  # float ratios this close (relatively) are compared exactly
# the columns a summary row takes from its cheapest offer, and the order of a written row
_TAKEN = ("gpu", "billing", "region", "currency", "tax_inclusive", "vat_rate", "time_of_use")
_CELLS = (*_TAKEN, "provider", "cards", "price")
ROW_ORDER = ("snapshot_id", *_CELLS, "offers", "offer_id")


class GroupedSheet(Protocol):
    """What is read of :class:`comparator.catalog.bulk.SheetGroups` (a sheet by provider)."""

    @property
    def columns(self) -> OfferColumns: ...
    @property
    def spans(self) -> Sequence[tuple[str, int, int]]: ...
    @property
    def coded(self) -> Mapping[str, Coded]: ...
    @property
    def summary(self) -> SheetSummary | None: ...
    def texts(self, name: str, convert: Any) -> tuple[np.ndarray, np.ndarray]: ...


@dataclass(frozen=True)
class SheetSummary:
    """Per group of the sheet, in the order of the summary's primary key within a span (so
    that its index is appended to, not searched): its span (provider), its cheapest row, its
    offer count, and its row's cells but the ids (a COPY line's middle on PostgreSQL, else a
    tuple of bound values, made when a write binds them; see :func:`summary_rows`)."""

    span: np.ndarray
    cheapest: np.ndarray
    offers: np.ndarray
    cells: list[Any] | None  # None: not made yet (SQLite: see :func:`summarise_sheet`)


def summarise_sheet(
    dialect: Dialect,
    groups: GroupedSheet,
    rendered: Mapping[str, tuple[np.ndarray, np.ndarray]] | None = None,
) -> SheetSummary:
    """The groups of every span of ``groups`` (its rows sorted by provider). ``rendered``:
    each column's (codes, COPY texts) of every row, where the offers' lines were made."""
    lengths = np.array([end - start for _, start, end in groups.spans], dtype=np.int64)
    span_of_row = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    if not len(span_of_row):
        empty = np.empty(0, dtype=np.int64)
        return SheetSummary(empty, empty, empty, [])
    key = span_of_row
    for name in GROUP_COLUMNS[1:]:  # lexicographic: each code keeps the order of its values
        ranks = value_ranks(dialect, groups, name)
        key, _ = pd.factorize(key * (int(ranks.max()) + 1) + ranks, sort=True)
    ratio = _price_per_card(groups)
    order = np.lexsort((np.arange(len(key)), ratio, key))
    ordered = key[order]
    firsts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    offers = np.diff(np.r_[firsts, len(order)])
    cheapest = order[firsts]
    for group in _needs_exact(groups, order, firsts, offers, ratio):
        block = order[firsts[group] : firsts[group] + offers[group]]
        cheapest[group] = _exact_cheapest(groups, block, ratio)
    # SQLite's bulk write copies a row's cells from its offer: made there only if needed
    cells = _cells(dialect, groups, cheapest, rendered or {}) if copy_text_of(dialect) else None
    return SheetSummary(span_of_row[cheapest], cheapest, offers, cells)


def value_ranks(dialect: Dialect, groups: GroupedSheet, name: str) -> np.ndarray:
    """Each row's rank of its value as the database compares it (bound values: equal ones
    share a rank, ranks in the values' order)."""
    bind = OFFER.c[name].type.bind_processor(dialect)
    codes, values = groups.texts(name, bind or _same)
    by_value, uniques = pd.factorize(values)
    place = {value: rank for rank, value in enumerate(sorted(uniques.tolist()))}
    ranks = np.array([place[value] for value in uniques.tolist()], dtype=np.int64)
    found: np.ndarray = ranks[by_value[codes]]
    return found


def _price_per_card(groups: GroupedSheet) -> np.ndarray:
    price_codes, prices = groups.texts("price", float)
    card_codes, cards = groups.texts("cards", float)
    ratio: np.ndarray = (
        prices.astype(np.float64)[price_codes] / cards.astype(np.float64)[card_codes]
    )
    return ratio


def _needs_exact(
    groups: GroupedSheet,
    order: np.ndarray,
    firsts: np.ndarray,
    offers: np.ndarray,
    ratio: np.ndarray,
) -> list[int]:
    """Groups where an offer's float ratio comes within :data:`_NEAR` of the cheapest's while
    its price or cards differ: there the floats may order them wrongly."""
    group_of = np.repeat(np.arange(len(firsts)), offers)
    best = ratio[order[firsts]][group_of]
    near = ratio[order] - best <= _NEAR * np.abs(best)
    near[firsts] = False  # the cheapest by float itself
    prices, cards = groups.columns.values["price"], groups.columns.values["cards"]
    found: set[int] = set()
    for position in np.flatnonzero(near).tolist():
        group = int(group_of[position])
        row, first = int(order[position]), int(order[firsts[group]])
        if prices[row] != prices[first] or cards[row] != cards[first]:
            found.add(group)
    return sorted(found)


def _exact_cheapest(groups: GroupedSheet, block: np.ndarray, ratio: np.ndarray) -> int:
    best = ratio[block[0]]
    near = block[ratio[block] - best <= _NEAR * abs(best)].tolist()
    prices, cards = groups.columns.values["price"], groups.columns.values["cards"]
    return int(min(near, key=lambda row: (Fraction(prices[row]) / cards[row], row)))


def _same(value: Any) -> Any:
    return value


def _cells(
    dialect: Dialect,
    groups: GroupedSheet,
    rows: np.ndarray,
    rendered: Mapping[str, tuple[np.ndarray, np.ndarray]],
) -> list[Any]:
    """The cells of :data:`ROW_ORDER` but the ids and count at ``rows``: COPY text joined by
    tabs on PostgreSQL (psycopg), else tuples of bound values."""
    text = copy_text_of(dialect)
    columns = [
        (rendered[name][0][rows], rendered[name][1])
        if text is not None and name in rendered
        else _bound_at(dialect, groups, name, rows, text)
        for name in _CELLS
    ]
    if text is not None:
        found: list[Any] = joined_rows(columns, "\t").tolist() if len(rows) else []
        return found
    return list(zip(*(texts[codes].tolist() for codes, texts in columns), strict=True))


def copy_text_of(dialect: Dialect) -> Any:
    """:func:`~comparator.catalog.bulk.copy_text` where the summary is COPYed, else None."""
    if dialect.name == "postgresql" and dialect.driver == "psycopg":
        return copy_text
    return None


def summary_rows(
    dialect: Dialect,
    groups: GroupedSheet,
    snapshots: Sequence[tuple[int, int]],
    offer_ids: np.ndarray,
) -> list[tuple[Any, ...]] | list[str]:
    """The summary rows of the spans ``(span index, snapshot id)`` just written, whose offers
    got ``offer_ids`` (in the order of the spans, then of their rows), in
    :data:`ROW_ORDER`: COPY lines on PostgreSQL (psycopg), else tuples of bound values."""
    summary, keep, snapshot_ids, counts, offer_id = _written_groups(
        dialect, groups, snapshots, offer_ids
    )
    made = summary.cells
    if made is None:
        made = _cells(dialect, groups, summary.cheapest, {})
    cells = [made[i] for i in keep.tolist()]
    rows = zip(snapshot_ids, cells, counts, offer_id, strict=True)
    if copy_text_of(dialect) is not None:
        return [f"{sid}\t{middle}\t{n}\t{oid}" for sid, middle, n, oid in rows]
    return [(sid, *middle, n, oid) for sid, middle, n, oid in rows]


def _written_groups(
    dialect: Dialect,
    groups: GroupedSheet,
    snapshots: Sequence[tuple[int, int]],
    offer_ids: np.ndarray,
) -> tuple[SheetSummary, np.ndarray, list[int], list[int], list[int]]:
    """(the summary, its groups in the spans written, their snapshot ids, offer counts and
    cheapest offers' ids)."""
    summary = groups.summary if groups.summary is not None else summarise_sheet(dialect, groups)
    spans = len(groups.spans)
    written = np.zeros(spans, dtype=bool)
    snapshot_of = np.zeros(spans, dtype=np.int64)
    base = np.zeros(spans, dtype=np.int64)  # a span's rows' position among the written ids
    offset = 0
    for index, snapshot_id in snapshots:
        _, start, end = groups.spans[index]
        written[index], snapshot_of[index], base[index] = True, snapshot_id, offset - start
        offset += end - start
    keep = np.flatnonzero(written[summary.span])
    span = summary.span[keep]
    offer_id = offer_ids[base[span] + summary.cheapest[keep]].tolist()
    counts = summary.offers[keep].tolist()
    return summary, keep, snapshot_of[span].tolist(), counts, offer_id


def _bound_at(
    dialect: Dialect, groups: GroupedSheet, name: str, rows: np.ndarray, text: Any
) -> tuple[np.ndarray, np.ndarray]:
    """(codes, texts) of column ``name`` at ``rows``: only the values those rows hold are
    bound (and made COPY ``text``), once per distinct value object."""
    process = OFFER.c[name].type.bind_processor(dialect) or _same
    column = groups.coded[name]
    used, codes = np.unique(column.codes[rows], return_inverse=True)
    values = groups.columns.values[name]
    texts = np.empty(len(used), dtype=object)
    if text is None:
        texts[:] = [process(values[i]) for i in column.firsts[used].tolist()]
    else:
        texts[:] = [text(process(values[i])) for i in column.firsts[used].tolist()]
    return codes.reshape(-1), texts


def insert_summaries(
    conn: Connection,
    groups: GroupedSheet,
    snapshots: Sequence[tuple[int, int]],
    offer_ids: np.ndarray,
) -> None:
    """Insert the summary rows of the spans just written, in the caller's transaction:
    PostgreSQL ``COPY`` (psycopg), else one ``executemany``."""
    dialect = conn.dialect
    columns = ", ".join(ROW_ORDER)
    if copy_text_of(dialect) is not None:
        lines = summary_rows(dialect, groups, snapshots, offer_ids)
        if not lines:
            return
        raw = conn.connection.driver_connection
        statement = f"COPY {SUMMARY.name} ({columns}) FROM STDIN"
        with raw.cursor() as cursor, cursor.copy(statement) as copy:  # type: ignore[union-attr]
            copy.write("\n".join(lines) + "\n")  # type: ignore[arg-type]
        return
    if dialect.name == "sqlite" and len(offer_ids) >= staged_insert.STAGED_MIN_ROWS:
        _, _, _, counts, offer_id = _written_groups(dialect, groups, snapshots, offer_ids)
        _copied_from_offers(conn, offer_id, counts)
        return
    rows = summary_rows(dialect, groups, snapshots, offer_ids)
    if rows:
        marker = "?" if dialect.paramstyle == "qmark" else "%s"
        marks = ", ".join([marker] * len(ROW_ORDER))
        conn.exec_driver_sql(f"INSERT INTO {SUMMARY.name} ({columns}) VALUES ({marks})", rows)


def _copied_from_offers(conn: Connection, offer_id: list[int], counts: list[int]) -> None:
    """SQLite, a bulk write: each summary row's cells copied from its cheapest offer, just
    stored in this transaction (its values as stored, those the row would bind), by the
    offer's key: each row binds 2 values instead of 13. Over the million offers of
    ``benchmarks/scale_catalog.py`` the 653,112 rows took 1.6-1.7 CPU s against 2.0-2.1 s
    bound (2026-12-03, load 2-4; docs/import.md, "Fourth round")."""
    staged = "suanli_summary_offers"
    conn.exec_driver_sql(f"DROP TABLE IF EXISTS temp.{staged}")
    conn.exec_driver_sql(f"CREATE TEMP TABLE {staged} (offer_id, offers)")
    rows = list(zip(offer_id, counts, strict=True))
    conn.exec_driver_sql(f"INSERT INTO temp.{staged} VALUES (?, ?)", rows)
    cells = ", ".join(f"o.{name}" for name in _CELLS)
    copied = conn.exec_driver_sql(
        f"INSERT INTO {SUMMARY.name} ({', '.join(ROW_ORDER)})"
        f" SELECT o.snapshot_id, {cells}, r.offers, o.id FROM temp.{staged} AS r"
        f" CROSS JOIN {OFFER.name} AS o ON o.id = r.offer_id ORDER BY r.rowid"
    ).rowcount
    conn.exec_driver_sql(f"DROP TABLE temp.{staged}")
    if copied != len(rows):
        raise CatalogError(
            "the summary found {copied} of {expected} cheapest offers; nothing imported",
            copied=copied,
            expected=len(rows),
        )
