"""Columns as codes into their distinct values, and rows of text built from them in bulk.

A parsed sheet shares one object per distinct cell text, so a million rows hold a few
thousand distinct values per column (prices aside). Turning values into text (for the
content hash, for PostgreSQL ``COPY``, for SQLite's parameters) is done once per distinct
value object, and a row's line is joined from a few pieces: neighbouring columns whose
combinations stay few are joined once per combination, not once per row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any, overload

import numpy as np
import pandas as pd

# neighbouring columns are joined per distinct combination while there are at most this
# fraction of the rows' count of them; past it a row joins one more piece instead
_MERGE_FRACTION = 8


@dataclass(frozen=True)
class Coded:
    """A column's rows as codes: rows holding the same value object share a code;
    ``firsts[code]`` is the first row holding it."""

    codes: np.ndarray
    firsts: np.ndarray

    def render(self, values: Sequence[Any], convert: Callable[[Any], Any]) -> np.ndarray:
        """``convert`` of each distinct value, as an object array indexed by code."""
        rendered = np.empty(len(self.firsts), dtype=object)
        rendered[:] = [convert(values[i]) for i in self.firsts.tolist()]
        return rendered

    def take(self, rows: np.ndarray) -> Coded:
        """The column's codes at ``rows`` (the distinct values stay those of the whole)."""
        return Coded(self.codes[rows], self.firsts)


class CodedList(Sequence[Any]):
    """A column as the codes of its rows into its distinct values (``distinct[code]``): what
    a sheet parsed in a child process sends the writer, instead of a value per row."""

    __slots__ = ("codes", "distinct")

    def __init__(self, codes: np.ndarray, distinct: Sequence[Any]) -> None:
        self.codes = codes
        self.distinct = distinct

    def __len__(self) -> int:
        return len(self.codes)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> list[Any]: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            distinct = self.distinct
            return [distinct[code] for code in self.codes[index].tolist()]
        return self.distinct[int(self.codes[index])]

    def __iter__(self) -> Iterator[Any]:
        return iter(self[:])

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with a column of Decimals (prices) as their texts: ``str`` gives a
        Decimal's exact digits and exponent back (``Decimal("3.10")`` stays ``3.10``), and
        a sheet's 59,000 distinct prices pickled and unpickled in about 0.04 s of CPU instead
        of 0.09 s as Decimal objects (2026-12-03, docs/import.md, "Fourth round")."""
        kinds = {type(value) for value in self.distinct}
        if Decimal in kinds and kinds <= {Decimal, type(None)}:
            texts = [None if value is None else str(value) for value in self.distinct]
            return (_with_decimals, (self.codes, texts))
        return (CodedList, (self.codes, self.distinct))


def _with_decimals(codes: np.ndarray, texts: list[str | None]) -> CodedList:
    """A :class:`CodedList` of Decimals pickled as texts (:meth:`CodedList.__reduce__`)."""
    return CodedList(codes, [None if text is None else Decimal(text) for text in texts])


def coded_lists(
    columns: Mapping[str, Sequence[Any]], codes: Mapping[str, Coded]
) -> dict[str, CodedList]:
    """Each column as a :class:`CodedList` of its :class:`Coded` codes (its distinct value
    objects taken at each code's first row; a code no row holds gets None)."""
    found: dict[str, CodedList] = {}
    for name, values in columns.items():
        firsts = codes[name].firsts.tolist()
        found[name] = CodedList(codes[name].codes, [values[i] if i >= 0 else None for i in firsts])
    return found


def coded(values: Sequence[Any], codes: np.ndarray | None = None) -> Coded:
    """The codes of a column, one per distinct value *object*: equal values that are
    different objects (``Decimal("3.10")`` and ``Decimal("3.1")``) keep their own code, so
    each keeps its own text. ``codes``: ones known already (rows of a code hold one object),
    as a parsed sheet's; the codes need not be consecutive."""
    if codes is None:
        ids = np.fromiter(map(id, values), dtype=np.int64, count=len(values))
        codes, _ = pd.factorize(ids)
    firsts = np.full(codes.max() + 1 if len(codes) else 0, -1, dtype=np.int64)
    firsts[codes[::-1]] = np.arange(len(codes) - 1, -1, -1)
    return Coded(codes.astype(np.int64, copy=False), firsts)


def per_distinct(values: list[Any], convert: Callable[[Any], Any]) -> list[Any]:
    """``convert(v)`` of every value, computed once per distinct value object."""
    column = coded(values)
    result: list[Any] = column.render(values, convert)[column.codes].tolist()
    return result


def joined_rows(columns: Sequence[tuple[np.ndarray, np.ndarray]], sep: str) -> np.ndarray:
    """Each row's texts joined by ``sep``: ``columns`` are ``(codes, texts)``, a row's text
    in a column being ``texts[codes[row]]``. An object array of one ``str`` per row."""
    rows = len(columns[0][0])
    if rows == 0:
        return np.empty(0, dtype=object)
    limit = max(rows // _MERGE_FRACTION, 1)
    runs: list[tuple[np.ndarray, np.ndarray]] = []
    codes, texts = columns[0]
    for next_codes, next_texts in columns[1:]:
        width = len(next_texts)
        pairs, keys = pd.factorize(codes.astype(np.int64, copy=False) * width + next_codes)
        if len(keys) <= limit:
            codes, texts = pairs, texts[keys // width] + (sep + next_texts)[keys % width]
        else:
            runs.append((codes, texts))
            codes, texts = next_codes, sep + next_texts
    runs.append((codes, texts))
    first_codes, first_texts = runs[0]
    line: np.ndarray = first_texts[first_codes]
    for run_codes, run_texts in runs[1:]:
        line = line + run_texts[run_codes]
    return line


_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def copy_text(value: Any) -> str:
    """A bound value in PostgreSQL's COPY text format (``\\N`` is NULL)."""
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, int | Decimal):  # no character to escape
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value).translate(_COPY_ESCAPES)
