"""Tables that never cut a number, a price, an id or a rule.

A CLI table is a :class:`CliTable` whose columns are declared with their kind: a *value*
column (ids, numbers, prices, dates, rules: shown whole, never wrapped, never ``…``; the
default) or a *text* column (``kind=TEXT``: descriptions, reasons; they may wrap). A column
may also be declared droppable (``drop=1`` goes first, then ``drop=2`` …). Nothing here reads
a header's words: what a column is, the command says when it adds it.

:func:`print_table` fits the table to the terminal in three steps:

1. the whole table, when every value fits at its full width and every text column at its
   longest word;
2. otherwise the same table without its droppable columns (dropped in their order, one at a
   time, until it fits);
3. otherwise a stacked record layout: one block per row, ``header  value`` per line.

Output that is not a terminal (a pipe, a file) uses the full line: the table is printed at its
natural width, whatever ``COLUMNS`` would say, unless ``COLUMNS`` is set explicitly.

Only rich's public API is used: the table keeps its own columns and rows and builds a
:class:`rich.table.Table` for each layout it tries, measured with
:meth:`rich.measure.Measurement.get`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.style import StyleType
from rich.table import Table
from rich.text import Text

from comparator.i18n import say

_HUGE = 100_000
TEXT_MIN = 16

ColumnKind = Literal["value", "text"]
VALUE: ColumnKind = "value"
TEXT: ColumnKind = "text"
Justify = Literal["default", "left", "center", "right", "full"]


@dataclass(frozen=True)
class Col:
    """A column as declared: its header (shown as given), kind, alignment and drop order."""

    header: RenderableType = ""
    kind: ColumnKind = VALUE
    justify: Justify = "left"
    drop: int = 0  # 0: always shown; 1, 2, …: dropped in that order when the table is too wide


class CliTable:
    """Columns declared with their kind, rows of cells, and the options of rich's ``Table``.

    ``options`` are passed to :class:`rich.table.Table` as they are (``box``, ``show_lines``,
    ``title_justify``, ``min_width`` …).
    """

    def __init__(
        self, *, title: str | None = None, caption: str | None = None, **options: Any
    ) -> None:
        self.title = title
        self.caption = caption
        self.options = options
        self.columns: list[Col] = []
        self.rows: list[list[RenderableType]] = []
        self.row_styles: list[StyleType | None] = []

    def add_column(
        self,
        header: RenderableType = "",
        *,
        kind: ColumnKind = VALUE,
        justify: Justify = "left",
        drop: int = 0,
    ) -> None:
        self.columns.append(Col(header, kind, justify, drop))

    def add_columns(self, lang: str, columns: tuple[Col, ...]) -> None:
        """Add ``columns`` declared with message ids as headers, shown in ``lang``."""
        for c in columns:
            self.add_column(say(lang, str(c.header)), kind=c.kind, justify=c.justify, drop=c.drop)

    def add_row(self, *cells: RenderableType | None, style: StyleType | None = None) -> None:
        shown = [("" if c is None else c) for c in cells]
        self.rows.append(shown + [""] * (len(self.columns) - len(shown)))
        self.row_styles.append(style)

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def cells(self, index: int) -> list[RenderableType]:
        """The cells of column ``index``, top to bottom."""
        return [row[index] for row in self.rows]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        """Printed as it is (every column, values whole), for a caller that needs no fitting."""
        yield _rich(self, list(range(len(self.columns))), _widths(console, self))

    def drop_order(self) -> list[int]:
        """The indexes of the droppable columns, in the order they go."""
        droppable = [(c.drop, i) for i, c in enumerate(self.columns) if c.drop > 0]
        return [i for _, i in sorted(droppable)]


def _natural_width(out: Console, renderable: RenderableType) -> int:
    return Measurement.get(out, out.options.update_width(_HUGE), renderable).maximum


def _widths(out: Console, table: CliTable) -> list[int]:
    """Each column's width in the narrowest layout that shows every value whole.

    Value columns count at their widest cell or header, text columns at ``TEXT_MIN`` (or their
    widest cell when narrower): text folds, CJK text has no spaces to break at anyway.
    """
    widths = []
    for index, column in enumerate(table.columns):
        widest = max((_natural_width(out, c) for c in table.cells(index)), default=1)
        header = _natural_width(out, column.header)
        if column.kind == TEXT:
            widths.append(max(min(widest, TEXT_MIN), min(header, TEXT_MIN)))
        else:
            widths.append(max(widest, header, 1))
    return widths


def _rich(table: CliTable, keep: list[int], widths: list[int]) -> Table:
    """The rich table of the columns ``keep``: values whole and unwrapped, text folding."""
    shown = Table(title=table.title, caption=table.caption, **table.options)
    for index in keep:
        column = table.columns[index]
        if column.kind == TEXT:
            shown.add_column(column.header, justify=column.justify, overflow="fold")
        else:
            shown.add_column(
                column.header, justify=column.justify, no_wrap=True, min_width=widths[index]
            )
    for row, style in zip(table.rows, table.row_styles, strict=True):
        shown.add_row(*(row[index] for index in keep), style=style)
    return shown


def minimum_width(out: Console, table: CliTable, keep: list[int], widths: list[int]) -> int:
    """The narrowest width at which the columns ``keep`` show every value whole.

    Measured on a table of the same borders and padding whose columns have exactly those
    widths, so rich itself counts the edges and the padding.
    """
    options = {k: v for k, v in table.options.items() if k not in ("min_width", "width")}
    probe = Table(**options)
    for index in keep:
        probe.add_column(width=widths[index])
    return _natural_width(out, probe)


def natural_width(out: Console, table: CliTable) -> int:
    """The width of ``table`` with every column shown on one line."""
    keep = list(range(len(table.columns)))
    return _natural_width(out, _rich(table, keep, _widths(out, table)))


def _pipe_width() -> bool:
    return "COLUMNS" not in os.environ


def print_table(out: Console, table: CliTable) -> None:
    """Print ``table`` without cutting any value: drop droppable columns, then stack rows."""
    widths = _widths(out, table)
    keep = list(range(len(table.columns)))
    if not out.is_terminal and _pipe_width():
        fitted = _rich(table, keep, widths)
        saved = out.width
        natural = _natural_width(out, fitted)
        out.width = max(minimum_width(out, table, keep, widths), natural, saved)
        try:
            out.print(fitted)
        finally:
            out.width = saved
        return
    width = out.width
    for index in table.drop_order():
        if minimum_width(out, table, keep, widths) <= width:
            break
        keep.remove(index)
    if minimum_width(out, table, keep, widths) <= width:
        out.print(_rich(table, keep, widths))
        return
    print_stacked(out, table)


def print_stacked(out: Console, table: CliTable) -> None:
    """One block per row: the first cell as its heading, then ``header  value`` lines."""
    if table.title:
        out.print(table.title, style="bold")
    columns = table.columns
    for row in table.rows:
        grid = Table.grid(padding=(0, 2))
        grid.add_column(style="dim", no_wrap=True)
        grid.add_column(overflow="fold")
        for column, cell in zip(columns[1:], row[1:], strict=True):
            grid.add_row(_plain(column.header), cell)
        heading = Text.assemble(("─ ", "dim"), _plain(columns[0].header), " ")
        heading.append_text(_plain(row[0]))
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
