"""Price-sheet parsing (billing.md): headers, encodings, billing words, every bad row reported."""

from __future__ import annotations

import io
import json
from decimal import Decimal

import pandas as pd
import pytest

from comparator.errors import Msg, SheetError
from providers.sheet.parse import KnownCatalog, parse_sheet, parse_sheet_columns
from providers.sheet.read import read_table
from tests.conftest import DATA

KNOWN = KnownCatalog(
    {
        "acme": {"gd-sz-1": "gd-sz-1", "华南-深圳一区": "gd-sz-1", "js-cz-1": "js-cz-1"},
        "demo-qianhai": {x: x for x in ("gd-sz-qh", "gd-gz-1", "sh-1", "sg-1")},
        "demo-nanshan": {x: x for x in ("gd-sz-1", "gd-gz-1", "js-cz-1", "gz-ga-1")},
    }
)
HEADER = "provider,region,gpu,cards,billing,price,currency,time_of_use,stock\n"


def parse(text: str, name: str = "prices.csv") -> list:
    return parse_sheet(text.encode(), name, KNOWN)


def test_english_sheet_with_defaults() -> None:
    [offer] = parse(HEADER + "acme,gd-sz-1,A100 80G,8,包月,45000.00,,,\n")
    assert offer.gpu == "A100-SXM4-80GB"
    assert offer.billing == "monthly"
    assert offer.price == Decimal("45000.00")
    assert offer.currency == "CNY"
    assert offer.stock is None
    assert (offer.cards, offer.node_cards, offer.min_units) == (8, 8, 1)
    assert offer.tax_inclusive is True and offer.vat_rate == Decimal("0.06")
    assert offer.observed_at.tzinfo is not None


def test_prices_keep_every_digit() -> None:
    offers = parse(
        HEADER
        + "acme,gd-sz-1,4090,1,hourly,123456789012.1234,,,\nacme,gd-sz-1,4090,1,hourly,0.0001,,,\n"
    )
    assert [str(o.price) for o in offers] == ["123456789012.1234", "0.0001"]


def test_region_by_name_and_chinese_billing_words() -> None:
    text = (
        HEADER
        + "acme,华南-深圳一区,910B,1,按量,6.5,,,\n"
        + "acme,js-cz-1,H800,8,竞价,90,,,\n"
        + "acme,js-cz-1,L40S,1,包年,30000,,,\n"
    )
    offers = parse(text)
    assert [o.region for o in offers] == ["gd-sz-1", "js-cz-1", "js-cz-1"]
    assert [o.billing for o in offers] == ["hourly", "spot", "yearly"]


def test_gb18030_sheet_with_chinese_headers() -> None:
    content = (DATA / "sheets" / "gb18030_chinese_headers.csv").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        content.decode("utf-8")
    offers = parse_sheet(content, "gb18030_chinese_headers.csv", KNOWN)
    assert offers and all(o.provider.startswith("demo-") for o in offers)


def test_full_width_and_spaced_headers_match() -> None:
    text = "ＰＲＯＶＩＤＥＲ, Region ,卡型,计费 方式,单价\nacme,gd-sz-1,4090,hourly,1.9\n"
    [offer] = parse(text)
    assert offer.gpu == "RTX4090" and offer.price == Decimal("1.9")


def test_three_bad_rows_are_all_reported() -> None:
    content = (DATA / "sheets" / "three_bad_rows.csv").read_bytes()
    with pytest.raises(SheetError) as info:
        parse_sheet(content, "three_bad_rows.csv", KNOWN)
    rows = sorted({p.row for p in info.value.problems})
    assert rows == [3, 5, 7]
    message = str(info.value)
    assert "three_bad_rows.csv" in message and "nothing imported" in message
    assert "column price" in message and "column gpu" in message and "column billing" in message


def test_missing_required_column_names_it() -> None:
    with pytest.raises(SheetError, match="column price: expected a column named price"):
        parse("provider,region,gpu,billing\nacme,gd-sz-1,4090,hourly\n")


def test_unknown_provider_and_region_are_rejected() -> None:
    with pytest.raises(SheetError) as info:
        parse(HEADER + "nobody,gd-sz-1,4090,1,hourly,1,,,\nacme,mars-1,4090,1,hourly,1,,,\n")
    columns = {(p.row, p.column) for p in info.value.problems}
    assert columns == {(2, "provider"), (3, "region")}


def test_time_of_use_only_on_hourly_rows() -> None:
    with pytest.raises(SheetError, match="time_of_use"):
        parse(HEADER + "acme,gd-sz-1,4090,1,monthly,1000,,00:00-08:00*0.5,\n")


def test_malformed_time_of_use_is_rejected() -> None:
    with pytest.raises(SheetError, match="row 2, column time_of_use"):
        parse(HEADER + "acme,gd-sz-1,4090,1,hourly,2,,25:00-08:00*x,\n")


def test_json_sheet() -> None:
    rows = [
        {"provider": "acme", "region": "gd-sz-1", "gpu": "H20", "billing": "daily", "price": 120.5}
    ]
    [offer] = parse_sheet(json.dumps(rows).encode(), "p.json", KNOWN)
    assert offer.price == Decimal("120.5") and offer.billing == "daily"


def test_json_rows_are_numbered_by_position() -> None:
    rows = [
        {"provider": "acme", "region": "gd-sz-1", "gpu": "H20", "billing": "daily", "price": p}
        for p in (1, 0)
    ]
    with pytest.raises(SheetError, match="row 2, column price"):
        parse_sheet(json.dumps(rows).encode(), "p.json", KNOWN)


def test_xlsx_sheet() -> None:
    frame = pd.DataFrame(
        [
            {
                "服务商": "acme",
                "机房": "gd-sz-1",
                "卡型": "A800",
                "计费方式": "包周",
                "单价": "3000.10",
            }
        ]
    )
    buffer = io.BytesIO()
    frame.to_excel(buffer, index=False)
    [offer] = parse_sheet(buffer.getvalue(), "p.xlsx", KNOWN)
    assert offer.gpu == "A800-SXM4-80GB" and offer.price == Decimal("3000.10")


def test_usd_rows_default_to_tax_exclusive() -> None:
    [offer] = parse(HEADER + "acme,gd-sz-1,H100,8,hourly,23.92,usd,,\n")
    assert offer.currency == "USD" and offer.tax_inclusive is False and offer.vat_rate == 0


def _workbook(rows: list[list[object]]) -> bytes:
    """An XLSX as openpyxl writes it (a workbook saved by Excel reads alike)."""
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def test_an_xlsx_sheet_has_only_its_own_columns() -> None:
    """openpyxl pads each row it reads with empty cells up to the widest it is asked for:
    the sheet keeps only the cells up to the last one filled (every import warned of 248
    columns with no header, and each row held 257 cells)."""
    header = ["provider", "region", "gpu", "cards", "billing", "price", "currency"]
    row: list[object] = ["acme", "gd-sz-1", "A800", 8, "hourly", 12.5, "CNY"]
    content = _workbook([header, row, [*row[:6], None]])
    table = read_table(content, "p.xlsx")
    assert table.headers == header
    warnings: list[Msg] = []
    offers = parse_sheet_columns(content, "p.xlsx", KNOWN, warnings=warnings).offers()
    assert len(offers) == 2 and not warnings
    stray = _workbook([header, [*row, None, "a note"]])  # a value under no header
    warnings = []
    parse_sheet_columns(stray, "p.xlsx", KNOWN, warnings=warnings)
    assert read_table(stray, "p.xlsx").headers == [*header, "", ""]
    assert [str(w) for w in warnings] == [
        str(
            Msg(
                "{path}: ignored column(s) no header matches: {names}",
                path="p.xlsx",
                names="'', ''",
            )
        )
    ]
