"""Merged XLSX cells: every cell of a merged block reads the block's (top-left) value.

openpyxl's read-only mode ignores ``<mergeCells>``, so rows under a merged currency, stock or
card count used to get the column's default (CNY, unlimited, one card): a USD price read as
CNY. The workbooks are built here with openpyxl (normal mode writes ``<mergeCells>``).
"""

from __future__ import annotations

import io
import zipfile
from decimal import Decimal

from openpyxl import Workbook

from providers.sheet.merged import MergedFill, merged_blocks
from providers.sheet.parse import KnownCatalog, parse_sheet

KNOWN = KnownCatalog({"acme": {"gd-sz-1": "gd-sz-1", "sg-1": "sg-1"}})
HEADER = ["provider", "region", "gpu", "billing", "price", "currency", "stock", "cards"]


def merged_workbook() -> bytes:
    """Rows 2–4: one USD block, one stock block, one card-count block; rows 5–6 CNY, 2 cards."""
    book = Workbook()
    sheet = book.active
    sheet.append(HEADER)
    sheet.append(["acme", "sg-1", "H100", "hourly", "2.50", "USD", 16, 8])
    sheet.append(["acme", "sg-1", "H200", "hourly", "3.10", None, None, None])
    sheet.append(["acme", "sg-1", "A100", "hourly", "1.20", None, None, None])
    sheet.append(["acme", "gd-sz-1", "A800", "monthly", "30000", "CNY", 4, 2])
    sheet.append(["acme", "gd-sz-1", "L40S", "monthly", "9000", None, None, None])
    sheet.merge_cells("F2:F4")  # currency USD
    sheet.merge_cells("G2:G4")  # stock 16
    sheet.merge_cells("H2:H4")  # cards 8
    sheet.merge_cells("F5:F6")
    sheet.merge_cells("G5:H6")  # a block over two columns: both read the top-left 4
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_merged_blocks_fill_currency_stock_and_cards() -> None:
    offers = parse_sheet(merged_workbook(), "merged.xlsx", KNOWN)
    read = [(o.gpu.split("-")[0], o.price, o.currency, o.stock, o.cards) for o in offers]
    assert read == [
        ("H100", Decimal("2.50"), "USD", 16, 8),
        ("H200", Decimal("3.10"), "USD", 16, 8),
        ("A100", Decimal("1.20"), "USD", 16, 8),
        ("A800", Decimal("30000"), "CNY", 4, 4),
        ("L40S", Decimal("9000"), "CNY", 4, 4),
    ]
    assert all(o.tax_inclusive is False for o in offers[:3])  # USD rows: tax-exclusive


def test_the_merge_ranges_are_read_from_the_sheet_xml() -> None:
    with zipfile.ZipFile(io.BytesIO(merged_workbook())) as archive:
        blocks = merged_blocks(archive, "xl/worksheets/sheet1.xml")
    assert sorted(b.ref for b in blocks) == ["F2:F4", "F5:F6", "G2:G4", "G5:H6", "H2:H4"]
    [wide] = [b for b in blocks if b.ref == "G5:H6"]
    assert (wide.min_col, wide.min_row, wide.max_col, wide.max_row) == (7, 5, 8, 6)


def test_a_sheet_without_merges_reads_as_before() -> None:
    book = Workbook()
    book.active.append(HEADER)
    book.active.append(["acme", "sg-1", "H100", "hourly", "2.50", None, None, None])
    buffer = io.BytesIO()
    book.save(buffer)
    [offer] = parse_sheet(buffer.getvalue(), "plain.xlsx", KNOWN)
    assert (offer.currency, offer.stock, offer.cards) == ("CNY", None, 1)


def test_fill_only_touches_rows_inside_a_block() -> None:
    with zipfile.ZipFile(io.BytesIO(merged_workbook())) as archive:
        fill = MergedFill(merged_blocks(archive, "xl/worksheets/sheet1.xml"))
    assert fill.fill(1, ("a",)) == ("a",)
    row2 = fill.fill(2, (1, 2, 3, 4, 5, "USD", 16, 8))
    assert row2 == (1, 2, 3, 4, 5, "USD", 16, 8)
    assert fill.fill(3, (1, 2, 3, 4, 5, None, None)) == (1, 2, 3, 4, 5, "USD", 16, 8)
    assert fill.fill(4, (1,))[5:] == ("USD", 16, 8)
    assert fill.fill(5, (0,) * 8)[5:] == (0, 0, 0)  # the new blocks' own top-left values
    assert fill.fill(7, (9, None)) == (9, None)  # past every block


def test_a_merged_header_stays_one_header() -> None:
    book = Workbook()
    sheet = book.active
    sheet.append([*HEADER, None])
    sheet.append(["acme", "sg-1", "H100", "hourly", "2.50", "USD", 16, 8, "note"])
    sheet.merge_cells("H1:I1")  # "cards" over two columns: the second is no second "cards"
    buffer = io.BytesIO()
    book.save(buffer)
    [offer] = parse_sheet(buffer.getvalue(), "header.xlsx", KNOWN)
    assert (offer.currency, offer.stock, offer.cards) == ("USD", 16, 8)
