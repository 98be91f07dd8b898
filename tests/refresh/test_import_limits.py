"""The reported hostile cells: each is one message naming row and column, and writes nothing."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from comparator.catalog import current_offers
from comparator.catalog.db import make_engine, upgrade_schema
from comparator.errors import InputError, SheetError
from providers.sheet.parse import KnownCatalog, parse_sheet, parse_sheet_columns
from tests.support.fuzz_inputs import PROFILE, PROVIDER

KNOWN = KnownCatalog({PROVIDER: {"sg-1": "sg-1"}})
HEADER = "provider,region,gpu,cards,billing,price,currency,stock,observed_at"


def csv(*rows: str) -> bytes:
    return ("\n".join([HEADER, *rows]) + "\n").encode()


ROW = f"{PROVIDER},sg-1,H100,1,hourly,3.10,USD,8,2026-11-25"


@pytest.mark.parametrize(
    ("row", "column"),
    [
        (ROW.replace(",8,", f",{2**63},"), "stock"),
        (ROW.replace(",8,", f",{2**31},"), "stock"),
        (ROW.replace(",8,", ",1e999999,"), "stock"),
        (ROW.replace(",1,hourly", f",{'9' * 5000},hourly"), "cards"),
        (ROW.replace("3.10", "1e26"), "price"),
        (ROW.replace("3.10", "1e999999"), "price"),
        (ROW.replace("3.10", '"1,5"'), "price"),
        (ROW.replace("2026-11-25", "9999-12-31T23:59:59-10:00"), "observed_at"),
        (ROW.replace("H100,", "H100,") + "\x00", "observed_at"),
    ],
)
def test_hostile_cells_are_row_and_column_messages(row: str, column: str) -> None:
    with pytest.raises(SheetError) as caught:
        parse_sheet(csv(row), "p.csv", KNOWN)
    message = str(caught.value)
    assert f"row 2, column {column}" in message and len(message) < 600, message


def test_a_long_cell_is_cut_in_the_message() -> None:
    with pytest.raises(SheetError) as caught:
        parse_sheet(csv(ROW.replace("3.10", "9" * 2_000_000)), "p.csv", KNOWN)
    assert len(str(caught.value)) < 600 and "characters)" in str(caught.value)


def test_a_decimal_comma_is_an_error_unless_declared() -> None:
    with pytest.raises(SheetError, match='declares decimal = ","'):
        parse_sheet(csv(ROW.replace("3.10", '"1,5"')), "p.csv", KNOWN)
    [offer] = parse_sheet_columns(
        csv(ROW.replace("3.10", '"1,5"')), "p.csv", KNOWN, decimal=","
    ).offers()
    assert offer.price == Decimal("1.5")
    rows = [{**dict(zip(HEADER.split(","), ROW.split(","), strict=True)), "price": "12,50"}]
    document = json.dumps({"decimal": ",", "offers": rows}).encode()
    [offer] = parse_sheet(document, "p.json", KNOWN)
    assert offer.price == Decimal("12.50")
    with pytest.raises(SheetError, match="decimal point"):
        parse_sheet(json.dumps(rows).encode(), "p.json", KNOWN)  # never 1250


def test_blank_rows_keep_row_numbers_and_duplicate_headers_are_refused() -> None:
    bad = ROW.replace("3.10", "-1")
    with pytest.raises(SheetError, match="row 4, column price"):
        parse_sheet(csv(ROW, "", bad), "p.csv", KNOWN)
    assert len(parse_sheet(csv(ROW, ",,,,", "", ROW.replace(",1,", ",2,")), "p.csv", KNOWN)) == 2
    duplicate = HEADER.replace("currency", "price") + "\n" + ROW + "\n"
    with pytest.raises(SheetError, match="one column for price"):
        parse_sheet(duplicate.encode(), "p.csv", KNOWN)


@pytest.mark.parametrize(
    "content",
    [b"", b"provider\tregion\n", b"a\tb\tc\nx\n", b"\t\t\n\t\n"],
    ids=["empty", "header-only", "short-row", "blank"],
)
def test_broken_tsv_is_a_message(content: bytes) -> None:
    with pytest.raises(InputError):
        parse_sheet(content, "p.tsv", KNOWN)


def test_truncated_xlsx_and_deep_json_are_messages() -> None:
    import io

    from openpyxl import Workbook

    book = Workbook()
    book.active.append(HEADER.split(","))  # type: ignore[union-attr]
    buffer = io.BytesIO()
    book.save(buffer)
    for cut in (10, len(buffer.getvalue()) // 2, len(buffer.getvalue()) - 30):
        with pytest.raises(InputError, match=r"p\.xlsx"):
            parse_sheet(buffer.getvalue()[:cut], "p.xlsx", KNOWN)
    with pytest.raises(InputError, match="nested"):
        parse_sheet(b"[" * 100_000 + b"]" * 100_000, "p.json", KNOWN)


def test_one_canonical_decimal_on_both_databases(any_db_url: str, tmp_path: Path) -> None:
    from comparator.refresh.importer import import_files
    from tests.refresh.test_fuzz_inputs import SHANGHAI

    engine = make_engine(any_db_url)
    upgrade_schema(engine)
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE.format(id=PROVIDER), encoding="utf-8")
    sheet = tmp_path / "p.csv"
    sheet.write_bytes(
        csv(ROW.replace("3.10", "1E+2"), ROW.replace("3.10", "2.50").replace(",1,", ",2,"))
    )
    import_files(engine, [sheet], [profile], timezone=SHANGHAI)
    prices = sorted(str(o.price) for o in current_offers(engine))
    assert prices == ["100", "2.50"]
    engine.dispose()


def test_a_far_away_xlsx_cell_is_read_quickly() -> None:
    import io
    import time

    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(HEADER.split(","))
    sheet.append(ROW.split(","))
    sheet.cell(1_048_576, 1, PROVIDER)  # a 1.7 KB file whose last row is the sheet's last
    buffer = io.BytesIO()
    book.save(buffer)
    started = time.monotonic()
    with pytest.raises(SheetError, match="row 1048576"):
        parse_sheet(buffer.getvalue(), "far.xlsx", KNOWN)
    assert time.monotonic() - started < 10


@pytest.mark.slow
def test_a_rejected_sheet_leaves_no_provider_behind(tmp_path: Path) -> None:
    from comparator.catalog.queries import known_regions
    from comparator.refresh.importer import import_files
    from tests.refresh.test_fuzz_inputs import SHANGHAI

    engine = make_engine(f"sqlite:///{tmp_path / 'catalog.db'}")
    upgrade_schema(engine)
    profile = tmp_path / "p.toml"
    profile.write_text(PROFILE.format(id=PROVIDER), encoding="utf-8")
    sheet = tmp_path / "bad.csv"
    sheet.write_bytes(csv(ROW.replace("3.10", "-1")))
    with pytest.raises(SheetError, match="nothing imported"):
        import_files(engine, [sheet], [profile], timezone=SHANGHAI)
    assert known_regions(engine) == {}
    wide = tmp_path / "wide.csv"
    wide.write_bytes(b"," * 100_000 + b"\n")
    with pytest.raises(InputError, match=r"wide\.csv: 100001 columns"):
        import_files(engine, [wide], [], timezone=SHANGHAI)
    engine.dispose()
