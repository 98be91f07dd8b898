"""Merged cells of an XLSX sheet, which openpyxl's read-only mode does not read.

A merged block (``<mergeCell ref="F2:F9"/>``) keeps its value in its top-left cell only; the
other cells are empty in the file. Price sheets merge a currency, a stock or a card count over
the rows it applies to, so the reader gives every cell of the block the top-left cell's value
(:class:`MergedFill`) instead of reading the others as empty (the column's default: CNY,
unlimited stock, one card).

The ``<mergeCells>`` element follows ``<sheetData>`` in the sheet's XML, so it is found by
streaming the decompressed part once, in chunks, without parsing the rows again.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field

from providers.parse_deadline import check_parse_deadline

_CHUNK = 2**20
_OPEN = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?mergeCells[\s>/]")
_CLOSE = re.compile(
    rb"</(?:[A-Za-z_][\w.-]*:)?mergeCells\s*>|<(?:[A-Za-z_][\w.-]*:)?mergeCells[^>]*/>"
)
_REF = re.compile(
    rb"<(?:[A-Za-z_][\w.-]*:)?mergeCell\s[^>]*?\bref\s*=\s*[\"']([A-Za-z0-9:$]+)[\"']"
)
_RANGE = re.compile(r"([A-Z]{1,3})([0-9]{1,7}):([A-Z]{1,3})([0-9]{1,7})")


def _column(letters: str) -> int:
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - ord("A") + 1
    return number


@dataclass(frozen=True)
class Block:
    """A merged range, 1-based and inclusive, as ``F2:F9`` names it."""

    ref: str
    min_col: int
    min_row: int
    max_col: int
    max_row: int


def merged_blocks(archive: zipfile.ZipFile, part: str) -> list[Block]:
    """The merged ranges of the sheet stored at ``part`` of the workbook (none: [])."""
    tail = b""
    found = b""
    with archive.open(part.lstrip("/")) as stream:
        while chunk := stream.read(_CHUNK):
            check_parse_deadline()
            if found:
                found += chunk
            else:
                text = tail + chunk
                at = text.find(b"mergeCells")  # memchr speed; the regex only near a hit
                if at < 0:
                    tail = text[-64:]
                    continue
                opening = _OPEN.search(text, max(text.rfind(b"<", 0, at), 0))
                if opening is None:
                    tail = text[-64:]
                    continue
                found = text[opening.start() :]
            if _CLOSE.search(found):
                break
    blocks = []
    for match in _REF.finditer(found):
        ref = match.group(1).decode("ascii").replace("$", "").upper()
        parts = _RANGE.fullmatch(ref)
        if parts is None:
            continue  # a one-cell "merge" (or a whole-row/column one) fills nothing
        first_col, first_row = _column(parts[1]), int(parts[2])
        last_col, last_row = _column(parts[3]), int(parts[4])
        blocks.append(
            Block(
                ref,
                min(first_col, last_col),
                min(first_row, last_row),
                max(first_col, last_col),
                max(first_row, last_row),
            )
        )
    return blocks


@dataclass
class MergedFill:
    """Fills the cells of merged blocks, row by row, with each block's top-left value."""

    blocks: list[Block]
    _active: list[tuple[Block, object]] = field(default_factory=list)
    _next: int = 0

    def __post_init__(self) -> None:
        self.blocks = sorted(self.blocks, key=lambda b: b.min_row)

    def fill(self, number: int, values: tuple[object, ...]) -> tuple[object, ...]:
        """Row ``number``'s values with its merged cells filled (rows come in order)."""
        self._active = [(b, v) for b, v in self._active if b.max_row >= number]
        while self._next < len(self.blocks) and self.blocks[self._next].min_row <= number:
            block = self.blocks[self._next]
            self._next += 1
            if block.min_row == number:  # a block whose first row was skipped stays empty
                top_left = values[block.min_col - 1] if block.min_col <= len(values) else None
                self._active.append((block, top_left))
        if not self._active:
            return values
        cells = list(values)
        for block, value in self._active:
            if len(cells) < block.max_col:
                cells.extend([None] * (block.max_col - len(cells)))
            cells[block.min_col - 1 : block.max_col] = [value] * (block.max_col - block.min_col + 1)
        return tuple(cells)
