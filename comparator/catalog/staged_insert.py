"""Many rows into one SQLite table with few bound parameters per row.

SQLite's ``executemany`` binds every parameter of every row: the ``sqlite3`` module checks,
converts and copies each one. An offer has 21 columns, and over the million offers of
``benchmarks/scale_catalog.py`` binding them cost more than storing them: the offers'
``executemany`` into the offer table without its secondary indexes took 3.8-5.2 CPU s (and
1.2-1.6 s more to build its tuples), the same insert with every column but the two ids as a
literal 1.2 s; staged as here 2.1-2.6 s (and 1.1-1.2 s to prepare), each measured over the
ten parsed sheets in one process, 2026-12-03, load 2-4 (docs/import.md, "Fourth round").

Most columns of a sheet repeat a few values. Here neighbouring columns whose combinations stay
few (at most a row count / :data:`FEW_FRACTION`) are written once per combination into a
temporary table, each row is staged with only its combinations' keys beside the columns whose
values vary (an id, a price), and one ``INSERT … SELECT`` joins them into the table in the rows'
order (the same ids in the same order: the table is appended to). The staged columns have no
declared type, so no affinity: each value reaches the table as it was bound, and the table's
own affinity applies once, as with ``executemany`` (``tests/catalog/test_staged_insert.py``
compares the two). The temporary tables live in the caller's transaction and are dropped
before this returns (a failure rolls them back with everything else).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import Connection

STAGED_MIN_ROWS = 2_000  # fewer rows are bound row by row (temporary tables cost DDL)
FEW_FRACTION = 8  # a combination table holds at most rows / FEW_FRACTION combinations
_STAGED = "suanli_staged"
_COMBO = "suanli_combo_"

# (column name, codes, values): a row's value is values[codes[row]]; values an object array
Column = tuple[str, np.ndarray, np.ndarray]


def insert_columns(conn: Connection, table: str, columns: Sequence[Column]) -> None:
    """Insert the rows of ``columns`` into the SQLite ``table``, in the caller's transaction."""
    rows = len(columns[0][1]) if columns else 0
    if rows == 0:
        return
    quote = conn.dialect.identifier_preparer.quote
    names = ", ".join(quote(name) for name, _, _ in columns)
    if rows < STAGED_MIN_ROWS:
        marks = ", ".join(["?"] * len(columns))
        bound = [values[codes].tolist() for _, codes, values in columns]
        rows_bound = list(zip(*bound, strict=True))
        conn.exec_driver_sql(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows_bound)
        return
    groups = few_combinations([codes for _, codes, _ in columns], max(rows // FEW_FRACTION, 1))
    staged: list[list[Any]] = []  # each staged column's value per row
    selected: list[str] = []  # each column's expression, in the order of ``columns``
    joins: list[str] = []
    for index, (members, key) in enumerate(groups):
        if len(members) == 1:
            _, codes, values = columns[members[0]]
            staged.append(values[codes].tolist())
            selected.append(f"r.p{len(staged) - 1}")
            continue
        staged.append(key.tolist())
        combo = f"{_COMBO}{index}"
        _write_combinations(conn, combo, [columns[m] for m in members], key)
        joins.append(f" CROSS JOIN temp.{combo} AS c{index} ON c{index}.k = r.p{len(staged) - 1}")
        selected += [f"c{index}.v{position}" for position in range(len(members))]
    _create(conn, _STAGED, [f"p{i}" for i in range(len(staged))])
    marks = ", ".join(["?"] * len(staged))
    conn.exec_driver_sql(
        f"INSERT INTO temp.{_STAGED} VALUES ({marks})", list(zip(*staged, strict=True))
    )
    conn.exec_driver_sql(
        f"INSERT INTO {table} ({names}) SELECT {', '.join(selected)}"
        f" FROM temp.{_STAGED} AS r{''.join(joins)} ORDER BY r.rowid"
    )
    for name in [_STAGED, *(f"{_COMBO}{i}" for i, (m, _) in enumerate(groups) if len(m) > 1)]:
        conn.exec_driver_sql(f"DROP TABLE temp.{name}")


def few_combinations(codes: Sequence[np.ndarray], limit: int) -> list[tuple[list[int], np.ndarray]]:
    """Neighbouring columns (by their ``codes``, each ``0 <= code < `` its values' count)
    grouped while their combinations number at most ``limit``: (the group's column
    positions, each row's combination key 0..k-1 where the group has two columns or more)."""
    found: list[tuple[list[int], np.ndarray]] = []
    members, key = [0], codes[0].astype(np.int64, copy=False)
    for index in range(1, len(codes)):
        column = codes[index].astype(np.int64, copy=False)  # codes: 0 <= code < their values
        width = int(column.max()) + 1
        merged, combinations = pd.factorize(key * width + column)
        if len(combinations) <= limit:
            members, key = [*members, index], merged.astype(np.int64)
        else:
            found.append((members, key))
            members, key = [index], column
    found.append((members, key))
    return found


def _write_combinations(
    conn: Connection, name: str, members: Sequence[Column], key: np.ndarray
) -> None:
    """The temporary table ``name`` (k, v0, v1, …): each combination's values, once."""
    firsts = np.zeros(int(key.max()) + 1, dtype=np.int64)  # each key's first row
    firsts[key[::-1]] = np.arange(len(key) - 1, -1, -1)
    keys = np.arange(len(firsts))
    values = [member_values[codes[firsts]].tolist() for _, codes, member_values in members]
    _create(conn, name, ["k INTEGER PRIMARY KEY", *(f"v{i}" for i in range(len(members)))])
    marks = ", ".join(["?"] * (len(members) + 1))
    conn.exec_driver_sql(
        f"INSERT INTO temp.{name} VALUES ({marks})",
        list(zip(keys.tolist(), *values, strict=True)),
    )


def _create(conn: Connection, name: str, columns: Sequence[str]) -> None:
    conn.exec_driver_sql(f"DROP TABLE IF EXISTS temp.{name}")
    conn.exec_driver_sql(f"CREATE TEMP TABLE {name} ({', '.join(columns)})")
