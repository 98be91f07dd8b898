"""The order in which an import COPYs a sheet's offers on PostgreSQL: its widest index's.

An import into an empty catalog builds offer's secondary indexes after the rows
(:mod:`comparator.catalog.index_rebuild`); each build sorts the whole table by the index's
key. ``ix_offer_snapshot_region_gpu`` is the widest (nine columns): where two rows share a
snapshot, each comparison reads both index tuples (a text first), and its sort was the
larger part of its build. PostgreSQL's quicksort first checks whether its input (and each
part it splits off) is already in order, and returns after that one pass where it is
(PostgreSQL's ``src/include/lib/sort_template.h``: "a check for already-sorted input");
its input is the table in the order the rows were stored. So each provider's offers are
COPYed in this index's order (snapshots are stored in ascending ids, one after the other),
while their ids stay those of the sheet's rows (the summary's cheapest offer, the lowest id
of a tie: all as before). The table is then almost in the index's order: the server puts a
few rows into an earlier page's free space (8 neighbours out of order in 200,000 offers).
Measured on the million-offer catalog (2026-12-03, copies of its offer table in id order
and in this order, serial builds, load 2.0; docs/import.md, "Fifth round"): this index's
build took 1.08 s instead of 1.86 s, and ``ix_offer_snapshot_gpu_place``'s 0.86 s instead
of 1.05 s (a snapshot's rows of one GPU come closer together).

Values are ordered as bound, as Python compares them: a text column by code points, which is
the order of the test server's collation (``C.UTF-8``) and of ``C``. Under a collation that
orders texts otherwise the sort finds its input out of order and sorts it, as it did before.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import Dialect

from comparator.catalog.queries import OFFER
from comparator.catalog.sheet_summary import GroupedSheet, value_ranks

INDEX = "ix_offer_snapshot_region_gpu"


def _index_columns() -> tuple[str, ...]:
    """The columns of :data:`INDEX` after its snapshot id, as the model declares them."""
    (index,) = [i for i in OFFER.indexes if i.name == INDEX]
    names = tuple(column.name for column in index.columns)
    return names[1:] if names[:1] == ("snapshot_id",) else ()


INDEX_COLUMNS = _index_columns()


def in_index_order(dialect: Dialect, groups: GroupedSheet) -> np.ndarray:
    """The rows of ``groups`` (sorted by provider) in the order to COPY them: span by span,
    each span's rows by :data:`INDEX_COLUMNS` (ties in the sheet's order)."""
    lengths = np.array([end - start for _, start, end in groups.spans], dtype=np.int64)
    span_of_row = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    # np.lexsort sorts by its last key first, and is stable: ties keep the sheet's order
    keys = [value_ranks(dialect, groups, name) for name in reversed(INDEX_COLUMNS)]
    keys.append(span_of_row)
    order: np.ndarray = np.lexsort(keys)
    return order
