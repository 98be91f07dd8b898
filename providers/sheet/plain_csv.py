"""Small CSV sheets without quotes, read without pandas: the same table, a tenth of the CPU.

``pandas.read_csv`` costs about half a millisecond before the first row, and building its frame
and factorizing each column as many again: for a refresh of 10,000 sheets of 100 rows that
was most of the parse. A sheet with no quote character, no NUL and no lone carriage return has
one reading only — each line split at the separator — so :func:`plain_cells` reads it with
``str.split`` and gives the cells exactly as the pandas path does (a row shorter than the
header padded with missing cells). Any other sheet (quotes, a row wider than the first, more
than :data:`PLAIN_MAX_BYTES`) gets None and goes through pandas as before.
"""

from __future__ import annotations

import numpy as np

PLAIN_MAX_BYTES = 1 << 20  # larger sheets: pandas' C parser is the faster one


def plain_cells(raw: bytes, sep: str) -> list[list[str]] | None:
    """Each column's cells (the header's first; a missing cell is empty, as pandas reads it
    with ``keep_default_na=False``); None when the sheet is not a plain one (see the
    module's text)."""
    if len(raw) > PLAIN_MAX_BYTES or b'"' in raw or b"\x00" in raw:
        return None
    text = raw.decode("utf-8")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
        if "\r" in text:  # a lone CR ends a line for pandas: leave it to pandas
            return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the last line's end
    if not lines or not lines[0].strip():
        return None  # pandas finds no columns, or skips leading blank lines: its call
    records = [line.split(sep) for line in lines]
    width = len(records[0])
    if any(len(record) > width for record in records):
        return None  # pandas' error decides
    padding = [""] * width
    return [list(column) for column in zip(*((r + padding)[:width] for r in records), strict=True)]


def factorized(cells: list[str]) -> tuple[np.ndarray, list[str]]:
    """``pandas.factorize`` of a column's cells: codes in order of first appearance, and the
    distinct texts."""
    seen: dict[str, int] = {}
    codes = [seen.setdefault(cell, len(seen)) for cell in cells]
    return np.array(codes, dtype=np.intp), list(seen)
