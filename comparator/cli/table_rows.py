"""The rows of a long table as text lines, laid out as rich lays out its table's rows.

rich renders a table cell by cell, each through its padding, wrapping and cropping machinery:
~20 µs a cell, so `check` of 10,000 providers (90,000 rows of 11 cells) took 28 s in a
terminal. A long table of values (one line per cell, no edges, no row styles, a whitespace
column divider) needs none of it: each cell is its text justified in the column's width
between the column's paddings, the same for every row. :class:`RowWriter` writes those lines
as rich's segments, each distinct cell's made once; the title, header and caption stay
rich's. The output is the bytes rich's table prints (tests/cli/test_cli_long_output.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.console import Console, RenderableType
from rich.padding import Padding
from rich.segment import Segment, Segments
from rich.text import Text

#: The table options the fast layout handles; any other (a table style, borders with a
#: style, row styles, lines between rows, edges, a fixed width) leaves the table to rich.
_HANDLED_OPTIONS = frozenset(
    {
        "box",
        "padding",
        "pad_edge",
        "collapse_padding",
        "show_edge",
        "show_header",
        "header_style",
        "title_justify",
        "title_style",
        "caption_justify",
        "caption_style",
    }
)
_JUSTIFIED = ("default", "left", "center", "right")


@dataclass(frozen=True)
class ColumnLayout:
    """One shown column: its content width, justification and paddings."""

    width: int
    justify: str
    left: int
    right: int


def layouts(
    options: dict[str, Any], justify: Sequence[str], widths: Sequence[int]
) -> tuple[list[ColumnLayout], str] | None:
    """Each shown column's layout and the divider between columns, as rich's table would
    pad them (``Table._get_cells``: collapsed padding, no padding at the edges without
    ``pad_edge``); None when the options ask for what only rich's table draws."""
    if set(options) - _HANDLED_OPTIONS or options.get("show_edge", True):
        return None
    top, right, bottom, left = Padding.unpack(options.get("padding", (0, 1)))
    shape = options.get("box", box.HEAVY_HEAD)
    divider = _divider(shape)
    if top or bottom or divider is None or any(j not in _JUSTIFIED for j in justify):
        return None
    last = len(widths) - 1
    shown = []
    for index, (width, how) in enumerate(zip(widths, justify, strict=True)):
        pad_left, pad_right = left, right
        if options.get("collapse_padding", False) and index > 0:
            pad_left = max(0, pad_left - pad_right)
        if not options.get("pad_edge", True):
            pad_left = 0 if index == 0 else pad_left
            pad_right = 0 if index == last else pad_right
        shown.append(ColumnLayout(width, how, pad_left, pad_right))
    return shown, divider


def _divider(shape: box.Box | None) -> str | None:
    """The text between two cells of a row: the box's vertical when it is the same
    whitespace on every kind of row (the header's, the middle ones', the last one's)."""
    if shape is None:
        return ""
    verticals = {shape.head_vertical, shape.mid_vertical, shape.foot_vertical}
    vertical = verticals.pop()
    return vertical if not verticals and not vertical.strip() else None


class RowWriter:
    """Rows of cells as lines of segments, each distinct (column, cell) laid out once."""

    def __init__(self, out: Console, columns: list[ColumnLayout], divider: str) -> None:
        self.out, self.columns = out, columns
        self.divider = Segment(divider)
        self.made: dict[tuple[int, str], list[Segment]] = {}

    def fits(self, rows: Sequence[Sequence[RenderableType]]) -> bool:
        """Whether every cell is a one-line text that fits its column (else rich renders the
        table); the cells are laid out on the way, once each."""
        return all(
            self._cell(index, column, cell) is not None
            for row in rows
            for index, (column, cell) in enumerate(zip(self.columns, row, strict=True))
        )

    def lines(self, rows: Sequence[Sequence[RenderableType]]) -> Segments:
        """The rows' lines (after :meth:`fits`)."""
        segments: list[Segment] = []
        for row in rows:
            for index, (column, cell) in enumerate(zip(self.columns, row, strict=True)):
                if index and self.divider.text:
                    segments.append(self.divider)
                made = self._cell(index, column, cell)
                assert made is not None, "lines() before fits()"
                segments += made
            segments.append(_NEW_LINE)
        return Segments(segments)

    def _cell(self, index: int, column: ColumnLayout, cell: RenderableType) -> list[Segment] | None:
        key = (index, cell) if isinstance(cell, str) else None
        if key is not None and key in self.made:
            return self.made[key]
        made = self._laid_out(column, cell)
        if key is not None and made is not None:
            self.made[key] = made
        return made

    def _laid_out(self, column: ColumnLayout, cell: RenderableType) -> list[Segment] | None:
        """The cell's padded, justified segments, as rich makes them: ``Lines.justify`` pads
        inside the text (in its style) and right-strips it when centred or right-aligned;
        ``default`` leaves the padding to the line (unstyled), as the column's paddings are."""
        if isinstance(cell, str):
            text = self.out.render_str(cell, highlight=False)
        elif isinstance(cell, Text) and cell.justify is None and cell.overflow is None:
            text = cell.copy()  # (a text's own justify or overflow overrides the column's)
        else:
            return None
        if "\n" in text.plain or text.cell_len > column.width:
            return None
        if column.justify in ("center", "right"):
            text.rstrip()
        excess = column.width - text.cell_len
        if column.justify == "center":
            text.pad_left(excess // 2)
            text.pad_right(excess - excess // 2)
        elif column.justify == "right":
            text.pad_left(excess)
        elif column.justify == "left":
            text.pad_right(excess)
        after = column.width - text.cell_len + column.right
        made = [Segment(" " * column.left)] if column.left else []
        made += Text().join([text]).render(self.out)  # its own style as a span, as rich joins
        return [*made, Segment(" " * after)] if after else made


_NEW_LINE = Segment.line()
