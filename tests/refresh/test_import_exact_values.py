"""No silent wrong value: a key given twice is refused, a signed zero is zero, and what a sheet
writes is what the catalog reads back (hypothesis, on SQLite)."""

from __future__ import annotations

import csv
import io
import itertools
import json
import unicodedata
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine

from comparator.catalog import current_offers
from comparator.catalog.db import make_engine, upgrade_schema
from comparator.domain.json_input import first_duplicate, json_object
from comparator.domain.money import parse_decimal
from comparator.domain.profile import load_profile
from comparator.errors import InputError, ProfileError, SheetError
from comparator.i18n import render
from comparator.refresh.importer import import_files
from providers.base import SourceSpec
from providers.http_json import JsonMapping, records_to_sheet
from providers.sheet.parse import KnownCatalog, parse_sheet
from tests.support.refresh_helpers import profile_toml

SHANGHAI = ZoneInfo("Asia/Shanghai")
KNOWN = KnownCatalog({"acme": {"sg-1": "sg-1"}})
COLUMNS = ["provider", "region", "gpu", "cards", "billing", "price", "currency", "vat_rate"]
COLUMNS += ["stock", "source"]


def row(**cells: str) -> dict[str, str]:
    base = dict(
        zip(
            COLUMNS, ["acme", "sg-1", "H100", "8", "hourly", "3.10", "USD", "", "", ""], strict=True
        )
    )
    return {**base, **cells}


# --- a key given twice ----------------------------------------------------------------


def test_a_json_sheet_with_a_price_given_twice_is_refused_naming_row_and_key() -> None:
    first = json.dumps(row())
    second = json.dumps(row()).replace('"price": "3.10"', '"price": "8.5", "price": "85"')
    content = f"[{first}, {second}]".encode()
    with pytest.raises(SheetError) as caught:
        parse_sheet(content, "prices.json", KNOWN)
    english = render(caught.value.msg, "en")
    assert "prices.json: 1 bad row(s), nothing imported" in english
    assert "row 2, column price: expected each key once per object" in english
    assert "第 2 行，price 列：应为每个对象中每个键只出现一次" in render(caught.value.msg, "zh")


def test_a_key_given_twice_at_the_top_of_a_json_sheet_is_refused() -> None:
    content = b'{"decimal": ",", "decimal": ".", "offers": []}'
    with pytest.raises(InputError, match=r"prices\.json: the key 'decimal' is given twice"):
        parse_sheet(content, "prices.json", KNOWN)


def test_an_api_record_with_a_key_given_twice_is_refused_naming_record_and_key() -> None:
    body = b'{"items": [{"price": {"amount": "1"}}, {"price": {"amount": "8.5", "amount": "85"}}]}'
    mapping = JsonMapping.parse({"records": "items", "fields": {"price": "price.amount"}}, "s")
    source = SourceSpec(provider="acme", adapter="http_json", location="https://x.test/p")
    with pytest.raises(InputError) as caught:
        records_to_sheet(body, mapping, source)
    assert render(caught.value.msg, "en").startswith(
        "https://x.test/p: record 2: the key 'price.amount' is given twice"
    )


def test_a_toml_profile_with_a_key_given_twice_is_refused_naming_line_and_key(
    tmp_path: Path,
) -> None:
    path = tmp_path / "acme.toml"
    path.write_text(profile_toml("acme") + 'name = "again"\n', encoding="utf-8")
    with pytest.raises(ProfileError) as caught:
        load_profile(path)
    assert render(caught.value.msg, "en") == (
        f"{path}: not valid TOML (line 9, column 15: a key given twice)"
    )


def test_duplicates_are_found_at_any_depth_without_recursion() -> None:
    deep = "[" * 500 + '{"a": 1, "a": 2}' + "]" * 500
    document = json.loads('{"x": [1, {"y": {"k": 1, "k": 2}}]}', object_pairs_hook=json_object)
    assert first_duplicate(document) == ("x.1.y", "k")
    empty_key = json.loads('[{"": 1, "": 2}]', object_pairs_hook=json_object)
    assert first_duplicate(empty_key) == ("0", "")
    nested = json.loads(deep, object_pairs_hook=json_object)
    assert first_duplicate(nested) == ("0." * 499 + "0", "a")


# --- a signed zero ----------------------------------------------------------------------


@pytest.mark.parametrize("written", ["-0", "-0.0", "-0%", "-0.00", "－０", "-0E+3"])
def test_a_signed_zero_vat_rate_is_stored_as_zero(written: str) -> None:
    for content, name in sheets([row(vat_rate=written)]):
        [offer] = parse_sheet(content, name, KNOWN)
        assert offer.vat_rate == 0 and not offer.vat_rate.is_signed(), (name, offer.vat_rate)


def test_a_signed_zero_is_zero_wherever_a_number_is_parsed() -> None:
    for text in ("-0", "-0.0", "-0e5", -0.0, "+0"):
        value = parse_decimal(text)
        assert value is not None and value == 0 and not value.is_signed()


def test_a_signed_zero_in_a_profile_is_stored_as_zero(tmp_path: Path) -> None:
    path = tmp_path / "acme.toml"
    text = profile_toml("acme") + "storage_price_gb_month = -0.0\nfree_storage_gb = -0\n"
    path.write_text(text, encoding="utf-8")
    storage = load_profile(path).datacenters[0].storage
    assert storage.price_gb_month is not None and storage.free_gb is not None
    assert not storage.price_gb_month.is_signed() and not storage.free_gb.is_signed()


# --- what a sheet writes is what the catalog reads back ------------------------------------


def sheets(rows: list[dict[str, str]]) -> Iterator[tuple[bytes, str]]:
    """The rows as a CSV and as a JSON sheet."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(COLUMNS)
    writer.writerows([r[c] for c in COLUMNS] for r in rows)
    yield buffer.getvalue().encode("utf-8"), "prices.csv"
    yield json.dumps(rows, ensure_ascii=False).encode("utf-8"), "prices.json"


PRICES = st.decimals(
    min_value=Decimal("0.0001"), max_value=Decimal("999999999"), places=4, allow_nan=False
)
RATES = st.decimals(min_value=Decimal(0), max_value=Decimal("0.9999"), places=4)
TEXT = st.text(
    st.characters(categories=["L", "N", "P", "S", "Zs"], exclude_characters="\x1e"), max_size=40
).map(str.strip)
ROWS = st.fixed_dictionaries(
    {
        "gpu": st.sampled_from(["H100", "A100", "4090", "L40S"]),
        "cards": st.integers(1, 64).map(str),
        "billing": st.sampled_from(["hourly", "daily", "weekly", "monthly", "yearly", "spot"]),
        "price": PRICES.map(str),
        "currency": st.sampled_from(["USD", "CNY", "SGD"]),
        "vat_rate": st.one_of(RATES.map(str), st.sampled_from(["", "-0", "-0.0", "6%", "0"])),
        "stock": st.one_of(st.just(""), st.integers(0, 10**6).map(str)),
        "source": TEXT,
    }
)
# cells a person might write that are nearly right: signs, exponents, full-width digits,
# commas, many places, spaces, percent signs
NEAR_NUMBERS = st.one_of(
    st.from_regex(r"\A[ +\-]?[0-9０-９]{1,6}([.,][0-9]{0,14})?([eE][+\-]?[0-9]{1,2})?%? ?\Z"),
    st.sampled_from(["-0", "0", "1e400", "NaN", "Infinity", "0x10", "1_000", "٣", "1.5.2"]),
)


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, Path]]:
    folder = tmp_path_factory.mktemp("exact")
    engine = make_engine(f"sqlite:///{folder / 'catalog.db'}")
    upgrade_schema(engine)
    profile = folder / "acme.toml"
    profile.write_text(profile_toml("acme"), encoding="utf-8")
    import_files(engine, [], [profile], timezone=SHANGHAI)
    yield engine, folder
    engine.dispose()


_COUNTER = itertools.count()


def import_and_read_back(
    catalog: tuple[Engine, Path], content: bytes, name: str
) -> tuple[list[dict[str, Any]], str]:
    """The current offers after importing the sheet, and the file name it was imported as
    (with ``:unchanged`` when it held an earlier snapshot's priced offers)."""
    engine, folder = catalog
    path = folder / f"{next(_COUNTER)}-{name}"
    path.write_bytes(content)
    result = import_files(engine, [path], [], timezone=SHANGHAI, replace=True)
    status = result.snapshots[0][1].status
    offers = current_offers(engine, provider="acme")
    return [
        {
            "cards": o.cards,
            "billing": o.billing,
            "price": o.price,
            "currency": o.currency,
            "vat_rate": o.vat_rate,
            "stock": o.stock,
            "source": o.source,
        }
        for o in offers
    ], path.name + ("" if status == "succeeded" else f":{status}")


def expected_offer(cells: dict[str, str], sheet_name: str) -> dict[str, Any]:
    rate = cells["vat_rate"]
    if rate.endswith("%"):
        vat = Decimal(rate[:-1]) / 100
    elif rate:
        vat = abs(Decimal(rate))
    else:
        vat = Decimal("0.06") if cells["currency"] == "CNY" else Decimal(0)
    return {
        "cards": int(cells["cards"]),
        "billing": cells["billing"],
        "price": Decimal(cells["price"]),
        "currency": cells["currency"],
        "vat_rate": vat,
        "stock": int(cells["stock"]) if cells["stock"] else None,
        "source": cells["source"] or sheet_name,  # an empty source names the sheet
    }


def key(offer: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in offer.values())


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=st.lists(ROWS, min_size=1, max_size=6), as_json=st.booleans())
def test_valid_sheets_round_trip_exactly(
    catalog: tuple[Engine, Path], rows: list[dict[str, str]], as_json: bool
) -> None:
    cells = [row(**r) for r in rows]
    content, name = list(sheets(cells))[as_json]
    got, imported_as = import_and_read_back(catalog, content, name)
    want = [expected_offer(c, imported_as) for c in cells]
    if imported_as.endswith(":unchanged"):  # an earlier example's priced offers: its
        # snapshot stays current, with its sources (content_sha256 leaves "where from" out)
        got = [{**o, "source": ""} for o in got]
        want = [{**o, "source": ""} for o in want]
    assert sorted(map(key, got)) == sorted(map(key, want))  # str(): digits and scale too
    for offer in got:
        assert not offer["vat_rate"].is_signed() and str(offer["price"]) in {
            c["price"] for c in cells
        }


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    price=st.one_of(PRICES.map(str), NEAR_NUMBERS),
    rate=st.one_of(RATES.map(str), NEAR_NUMBERS),
    stock=st.one_of(st.integers(0, 10**6).map(str), NEAR_NUMBERS),
    as_json=st.booleans(),
)
def test_near_valid_sheets_are_refused_or_stored_exactly(
    catalog: tuple[Engine, Path], price: str, rate: str, stock: str, as_json: bool
) -> None:
    cells = row(price=price, vat_rate=rate, stock=stock, source="exact")
    content, name = list(sheets([cells]))[as_json]
    try:
        [offer], _ = import_and_read_back(catalog, content, name)
    except InputError as exc:
        assert name in str(exc)
        event("refused")
        return
    event("stored")
    assert offer["price"] == written_number(price) and offer["price"] > 0
    wrote_rate = written_number(rate.strip().rstrip("%"))
    assert offer["vat_rate"] == (wrote_rate / 100 if rate.strip().endswith("%") else wrote_rate)
    assert not offer["vat_rate"].is_signed()
    assert offer["stock"] == (int(written_number(stock)) if stock.strip() else None)


def written_number(text: str) -> Decimal:
    return Decimal(unicodedata.normalize("NFKC", text).strip())
