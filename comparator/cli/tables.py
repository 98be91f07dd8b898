"""Tables that never cut a number, a price, an id or a rule.

Every column of a CLI table is a *value* column (ids, numbers, prices, dates, rules: shown
whole, never wrapped, never ``…``) unless the command declares it a *text* column by adding it
with ``overflow="fold"`` (descriptions, reasons: they may wrap). :func:`print_table` then fits
the table to the terminal in three steps:

1. the whole table, when every value fits at its full width and every text column at its
   longest word;
2. otherwise the same table without the low-value columns the command names in ``drop``
   (dropped in that order, one at a time, until it fits);
3. otherwise a stacked record layout: one block per row, ``header  value`` per line.

Output that is not a terminal (a pipe, a file) uses the full line: the table is printed at its
natural width, whatever ``COLUMNS`` would say, unless ``COLUMNS`` is set explicitly.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence

from rich.console import Console, RenderableType
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

_HUGE = 100_000
TEXT_MIN = 16


def is_text_column(column: Column) -> bool:
    """Text columns are the ones added with ``overflow="fold"``; every other is a value."""
    return column.overflow == "fold"


def _natural_width(out: Console, renderable: RenderableType) -> int:
    return Measurement.get(out, out.options.update_width(_HUGE), renderable).maximum


def _protect(out: Console, table: Table) -> Table:
    """A copy whose value columns are at least as wide as their widest cell, never wrapped."""
    fitted = copy.copy(table)
    fitted.columns = []
    for index, column in enumerate(table.columns):
        column = copy.copy(column)
        column._index = index
        column._cells = list(column._cells)
        if not is_text_column(column):
            widest = max(
                [
                    _natural_width(out, column.header),
                    *(_natural_width(out, c) for c in column._cells),
                ]
            )
            column.no_wrap = True
            column.min_width = max(widest, column.min_width or 0)
            column.max_width = None
        fitted.columns.append(column)
    return fitted


def _without(table: Table, header: str) -> Table:
    smaller = copy.copy(table)
    smaller.columns = [c for c in table.columns if c.header != header]
    for index, column in enumerate(smaller.columns):
        column._index = index
    return smaller


def minimum_width(out: Console, table: Table) -> int:
    """The narrowest width at which ``table`` shows every value whole.

    Value columns count at their widest cell, text columns at ``TEXT_MIN`` (or their widest
    cell when narrower): text folds, CJK text has no spaces to break at anyway.
    """
    total = table._extra_width
    for column in table.columns:
        padding = table._get_padding_width(column._index)
        if is_text_column(column):
            widest = max((_natural_width(out, c) for c in column._cells), default=1)
            header = _natural_width(out, column.header)
            total += max(min(widest, TEXT_MIN), min(header, TEXT_MIN)) + padding
        else:
            total += (column.min_width or 1) + padding
    return total


def _pipe_width() -> bool:
    return "COLUMNS" not in os.environ


def print_table(out: Console, table: Table, *, drop: Sequence[str] = ()) -> None:
    """Print ``table`` without cutting any value: drop ``drop`` columns, then stack rows."""
    fitted = _protect(out, table)
    if not out.is_terminal and _pipe_width():
        saved = out.width
        out.width = max(minimum_width(out, fitted), _natural_width(out, fitted), saved)
        try:
            out.print(fitted)
        finally:
            out.width = saved
        return
    width = out.width
    for header in drop:
        if minimum_width(out, fitted) <= width:
            break
        fitted = _without(fitted, header)
    if minimum_width(out, fitted) <= width:
        out.print(fitted)
        return
    print_stacked(out, table)


def print_stacked(out: Console, table: Table) -> None:
    """One block per row: the first cell as its heading, then ``header  value`` lines."""
    if table.title:
        out.print(table.title, style="bold")
    columns = table.columns
    for row_index in range(table.row_count):
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="dim", no_wrap=True)
        grid.add_column(overflow="fold")
        for column in columns[1:]:
            cell = column._cells[row_index]
            grid.add_row(_plain(column.header), cell)
        heading = Text.assemble(("─ ", "dim"), _plain(columns[0].header), " ")
        heading.append_text(_plain(columns[0]._cells[row_index]))
        out.print(heading, style="bold")
        out.print(grid)
    if table.caption:
        out.print(table.caption, style="dim")


def _plain(renderable: RenderableType) -> Text:
    if isinstance(renderable, Text):
        return renderable
    if isinstance(renderable, str):
        return Text.from_markup(renderable)
    return Text(str(renderable))
