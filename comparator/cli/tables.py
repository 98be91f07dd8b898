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
3. otherwise, when a column is *keyed* (``key="T"``: long rules such as time-of-use prices),
   the same two steps with that column's values replaced by short keys (``T1``, ``T2`` …) and a
   legend below the table that gives each key's value whole;
4. otherwise a stacked record layout: one block per row, ``header  value`` per line.

Output that is not a terminal (a pipe, a file) and no ``COLUMNS`` set is printed as plain
lines, as ``gh`` does: the title on a line of its own, then the header and one line per row
with tab-separated cells (a cell's lines joined by a space), no padding and no trailing
spaces. ``COLUMNS`` set explicitly forces the terminal layout at that width.

Only rich's public API is used: the table keeps its own columns and rows and builds a
:class:`rich.table.Table` for each layout it tries, measured with
:meth:`rich.measure.Measurement.get`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.style import StyleType
from rich.table import Table
from rich.text import Text

from comparator.cli._common import plain_output
from comparator.cli.markup_text import plain_text
from comparator.cli.table_rows import RowWriter, layouts
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
    key: str = ""  # a prefix: values may be shown as keys (T1, T2 …) with a legend below


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
        self.measured: dict[str, int] = {}  # each distinct text's width, once per table

    def add_column(
        self,
        header: RenderableType = "",
        *,
        kind: ColumnKind = VALUE,
        justify: Justify = "left",
        drop: int = 0,
        key: str = "",
    ) -> None:
        self.columns.append(Col(header, kind, justify, drop, key))

    def add_columns(self, lang: str, columns: tuple[Col, ...]) -> None:
        """Add ``columns`` declared with message ids as headers, shown in ``lang``."""
        for c in columns:
            header = say(lang, str(c.header))
            self.add_column(header, kind=c.kind, justify=c.justify, drop=c.drop, key=c.key)

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


def _widest(out: Console, cells: list[RenderableType], measured: dict[str, int]) -> int:
    """The widest natural width of ``cells``, each distinct text measured once (a column of
    10,000 rows holds a few hundred distinct texts: marks, verdicts, ids) into ``measured``."""
    widest = 1
    for cell in cells:
        if isinstance(cell, str):
            width = measured.get(cell)
            if width is None:
                width = measured[cell] = _text_width(out, cell)
        else:
            width = _natural_width(out, cell)
        widest = max(widest, width)
    return widest


_MARKED = frozenset("[:")  # markup, or an emoji code: rich must read the text


def _text_width(out: Console, cell: str) -> int:
    """rich's measure of a string: its widest line, when no markup or emoji code can change
    it (``Text.__rich_measure__``); else rich's own measure."""
    if _MARKED.intersection(cell):
        return _natural_width(out, cell)
    return max(map(cell_len, cell.splitlines()), default=0)


_BREAK = re.compile(r"(?<=[ /-])")


def _header_words(out: Console, header: RenderableType) -> int:
    """The widest word of a header (it may break after a space, ``/`` or ``-``)."""
    if not isinstance(header, str):
        return _natural_width(out, header)
    return max((cell_len(w.strip()) for w in _BREAK.split(header)), default=1)


def _widths(
    out: Console, table: CliTable, *, break_headers: bool = False, whole_text: bool = False
) -> list[int]:
    """Each column's width in the narrowest layout that shows every value whole.

    Value columns count at their widest cell or header (its widest word with
    ``break_headers``), text columns at ``TEXT_MIN`` (or their widest cell when narrower):
    text folds, CJK text has no spaces to break at anyway. With ``whole_text`` text columns
    count at their widest cell or header too: every column on one line.
    """
    widths = []
    for index, column in enumerate(table.columns):
        widest = _widest(out, table.cells(index), table.measured)
        header = column.header
        if column.kind == TEXT:
            header_width = _natural_width(out, header)
            if whole_text:
                widths.append(max(widest, header_width, 1))
            else:
                widths.append(max(min(widest, TEXT_MIN), min(header_width, TEXT_MIN)))
        else:
            words = _header_words(out, header) if break_headers else _natural_width(out, header)
            widths.append(max(widest, words, 1))
    return widths


def _wrapped_header(header: RenderableType, width: int) -> RenderableType:
    """A header wider than its column, broken into lines at its spaces, ``/`` and ``-``."""
    if not isinstance(header, str) or cell_len(header) <= width:
        return header
    lines: list[str] = []
    for word in _BREAK.split(header):
        if lines and cell_len(lines[-1] + word.rstrip()) <= width:
            lines[-1] += word
        else:
            lines.append(word)
    return "\n".join(line.rstrip() for line in lines)


def _rich(table: CliTable, keep: list[int], widths: list[int]) -> Table:
    """The rich table of the columns ``keep``: values whole and unwrapped, text folding."""
    shown = Table(title=table.title, caption=table.caption, **table.options)
    for index in keep:
        column = table.columns[index]
        if column.kind == TEXT:
            shown.add_column(column.header, justify=column.justify, overflow="fold")
        else:
            header = _wrapped_header(column.header, widths[index])
            width = widths[index]  # its widest cell: rich need not measure the cells again
            shown.add_column(header, justify=column.justify, no_wrap=True, width=width)
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
    """The width of ``table`` with every column shown on one line (its columns at their
    widest cell or header, rich's edges and padding counted by :func:`minimum_width`)."""
    keep = list(range(len(table.columns)))
    return minimum_width(out, table, keep, _widths(out, table, whole_text=True))


Fitted = tuple[list[int], list[int]]  # the columns kept, every column's width


def _fitting(out: Console, table: CliTable, width: int) -> Fitted | None:
    """``table`` in ``width``, headers whole or else broken at their spaces, once droppable
    columns go; None when it cannot fit."""
    for break_headers in (False, True):
        widths = _widths(out, table, break_headers=break_headers)
        keep = list(range(len(table.columns)))
        for index in table.drop_order():
            if minimum_width(out, table, keep, widths) <= width:
                break
            keep.remove(index)
        if minimum_width(out, table, keep, widths) <= width:
            return keep, widths
    return None


CHUNK_ROWS = 1_000
_ACROSS_ROWS = ("show_lines", "row_styles", "show_footer", "expand", "width")


def _print_fitted(out: Console, table: CliTable, fitted: Fitted) -> None:
    """Print the columns kept at their widths; a long table of values only and without edges
    in chunks of rows, which print as the whole table would (rich renders every cell of a
    table before its first line: 30,000 rows of `check` took ~45 s), so its lines come as
    they are made."""
    keep, widths = fitted
    chunked = (
        table.row_count > CHUNK_ROWS
        and all(table.columns[i].kind != TEXT for i in keep)
        and table.options.get("show_edge") is False
        and not any(table.options.get(option) for option in _ACROSS_ROWS)
    )
    if not chunked:
        out.print(_rich(table, keep, widths))
        return
    if _print_rows_as_lines(out, table, keep, widths):
        return
    shows_header = table.options.get("show_header", True)
    for start in range(0, table.row_count, CHUNK_ROWS):
        end = min(start + CHUNK_ROWS, table.row_count)
        part = CliTable(
            title=table.title if start == 0 else None,
            caption=table.caption if end == table.row_count else None,
            **{**table.options, "show_header": start == 0 and shows_header},
        )
        part.columns = table.columns
        part.rows = table.rows[start:end]
        part.row_styles = table.row_styles[start:end]
        out.print(_rich(part, keep, widths))


def _print_rows_as_lines(out: Console, table: CliTable, keep: list[int], widths: list[int]) -> bool:
    """Print a long table's rows as laid-out lines (:mod:`comparator.cli.table_rows`) between
    rich's own title and header and its caption; False, having printed nothing, when its
    options or cells need rich's table."""
    justify = [table.columns[i].justify for i in keep]
    laid_out = layouts(table.options, justify, [widths[i] for i in keep])
    if laid_out is None or any(table.row_styles):
        return False
    writer = RowWriter(out, *laid_out)
    rows = [[row[i] for i in keep] for row in table.rows]
    if not writer.fits(rows):
        return False
    shows_header = table.options.get("show_header", True)
    if table.title or shows_header:
        out.print(_rich(_without_rows(table, title=table.title, header=shows_header), keep, widths))
    for start in range(0, len(rows), CHUNK_ROWS):  # the first lines show while the rest are made
        out.print(writer.lines(rows[start : start + CHUNK_ROWS]), crop=False)
    if table.caption:
        out.print(_rich(_without_rows(table, caption=table.caption, header=False), keep, widths))
    return True


def _without_rows(
    table: CliTable, *, title: str | None = None, caption: str | None = None, header: bool
) -> CliTable:
    """``table``'s columns and options with no rows: its title and header, or its caption."""
    empty = CliTable(title=title, caption=caption, **{**table.options, "show_header": header})
    empty.columns = table.columns
    return empty


def keyed(table: CliTable) -> tuple[CliTable, list[tuple[RenderableType, list[tuple[str, str]]]]]:
    """``table`` with the values of its keyed columns replaced by keys, and the legends:
    per keyed column its header and ``(key, value)`` pairs in order of first appearance."""
    shown = CliTable(title=table.title, caption=table.caption, **table.options)
    shown.columns = list(table.columns)
    shown.rows = [list(row) for row in table.rows]
    shown.row_styles = list(table.row_styles)
    legends = []
    for index, column in enumerate(table.columns):
        if not column.key:
            continue
        keys: dict[str, str] = {}
        for row in shown.rows:
            value = _plain(row[index]).plain
            if value:
                key = keys.setdefault(value, f"{column.key}{len(keys) + 1}")
                row[index] = key
        legends.append((column.header, [(k, v) for v, k in keys.items()]))
    return shown, legends


def print_table(out: Console, table: CliTable) -> None:
    """Print ``table`` without cutting any value: drop droppable columns, key long rules,
    then stack rows; plain tab-separated lines when piped."""
    if plain_output(out):
        print_plain(out, table)
        return
    fitted = _fitting(out, table, out.width)
    if fitted is not None:
        _print_fitted(out, table, fitted)
        return
    if any(column.key for column in table.columns):
        shown, legends = keyed(table)
        fitted = _fitting(out, shown, out.width)
        if fitted is not None:
            _print_fitted(out, shown, fitted)
            _print_legends(out, legends)
            return
    print_stacked(out, table)


def _print_legends(
    out: Console, legends: list[tuple[RenderableType, list[tuple[str, str]]]]
) -> None:
    for header, pairs in legends:
        if not pairs:
            continue
        out.print(_plain(header), style="bold")
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True)
        grid.add_column(no_wrap=True)
        for key, value in pairs:
            grid.add_row(key, Text(value))
        out.print(grid)


def _line(cells: list[RenderableType], texts: dict[str, str]) -> str:
    """The cells as one tab-separated line; ``texts`` keeps each distinct markup's plain
    text (a 10,000-row table repeats its marks and verdicts)."""
    shown = []
    for cell in cells:
        text = texts.get(cell) if isinstance(cell, str) else None
        if text is None:
            text = " ".join(_plain_text(cell).split())
            if isinstance(cell, str):
                texts[cell] = text
        shown.append(text)
    return "\t".join(shown).rstrip()


def print_plain(out: Console, table: CliTable) -> None:
    """The table as plain lines for a pipe: the title, the header and one tab-separated line
    per row, no padding, no trailing spaces; nothing wraps, whatever the console's width."""
    texts: dict[str, str] = {}
    lines = [] if not table.title else [_plain_text(table.title)]
    lines.append(_line([c.header for c in table.columns], texts))
    lines += [_line(row, texts) for row in table.rows]
    if table.caption:
        lines.append(_plain_text(table.caption))
    out.file.write("".join(f"{line}\n" for line in lines))  # rich would expand the tabs


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


def _plain_text(renderable: RenderableType) -> str:
    """What :func:`_plain` holds as text (markup without building its styles)."""
    return plain_text(renderable) if isinstance(renderable, str) else _plain(renderable).plain


def _plain(renderable: RenderableType) -> Text:
    if isinstance(renderable, Text):
        return renderable
    if isinstance(renderable, str):
        return Text.from_markup(renderable)
    return Text(str(renderable))
