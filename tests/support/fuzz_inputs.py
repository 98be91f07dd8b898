"""Seeded generators of malformed price sheets (CSV, TSV, JSON, XLSX) and provider profiles (TOML).

Each generator starts from a valid document and applies one or more mutations drawn from a
``random.Random``: hostile cell values (huge, out-of-range, NUL, surrogates, decimal commas,
long text), structural damage (short rows, blank rows, duplicate headers, deep nesting) and
byte damage (flips, truncation, corrupted zip members), keys given twice, signed zeros, objects
and headers far wider than a sheet, workbooks without ``<dimension>``. The same seed gives the
same cases. ``scripts/faults`` (:mod:`tests.support.faults`) runs them, as do the fuzz tests.
"""

from __future__ import annotations

import io
import json
import random
import re
import zipfile
from collections.abc import Callable

PROVIDER = "fuzz-co"
HEADER = [
    "provider",
    "region",
    "gpu",
    "cards",
    "billing",
    "price",
    "currency",
    "stock",
    "observed_at",
    "time_of_use",
    "sku",
]
ROW = [PROVIDER, "sg-1", "H100", "1", "hourly", "3.10", "USD", "8", "2026-11-25", "", "a"]

HOSTILE = [
    "",
    " ",
    "0",
    "-1",
    "1e26",
    "1e999999",
    "-1e999999",
    "9" * 5000,
    str(2**63),
    str(2**31),
    str(2**64 + 1),
    "NaN",
    "Infinity",
    "-0",
    "1,5",
    "12,50",
    "1.234,56",
    "1E+2",
    "1e-30",
    "0.0000000000001",
    "0x10",
    "١٢",
    "１２",
    "\x00",
    "a\x00b",
    "9999-12-31T23:59:59-10:00",
    "0001-01-01T00:00:00+14:00",
    "2026-02-30",
    "2026-11-25T25:00",
    "x" * 3000,
    "=1+1",
    "<script>alert(1)</script>",
    "'; DROP TABLE offer;--",
    "\u202e",
    "null",
    "true",
    "3.10",
    "8",
    "H100",
    "hourly",
    "monthly",
    "00:00-08:00*0.5",
    "00:00-08:00*1e999",
    "25:00-08:00*0.5",
    "sg-1",
    "Singapore",
    "CNY",
    "usd",
    PROVIDER,
    "other-co",
]
EDGE = [  # values at the edge of what is accepted: they reach the database
    "1E+2",
    "3.1",
    "0.000000000001",
    "999999999999",
    "1000000000000",
    "1000000000",
    "100000",
    "1024",
    "2026-11-25T10:00:00+08:00",
    "1990-01-01",
    "2199-12-31T23:59:59+00:00",
    "规格-8卡 ✓",
    "１２",
    " 3.10 ",
    "+5",
    "6%",
    "0",
    "sat-sun*0.8",
    "00:00-08:00*0.5; holiday*0.7",
    "spot",
    "按量",
    "包月",
]
JSON_ONLY = ["\ud800", "\udfff x", "\ud83d"]  # lone surrogates survive only as JSON escapes


def _cell(rng: random.Random, extra: list[str]) -> str:
    return rng.choice(EDGE if rng.random() < 0.4 else HOSTILE + extra)


def _table(rng: random.Random, extra: list[str]) -> list[list[str]]:
    rows = [list(HEADER)] + [list(ROW) for _ in range(rng.randint(0, 4))]
    if len(rows) > 1:
        for i in range(1, len(rows)):
            rows[i][3] = str(i)  # distinct offers
    for _ in range(rng.choice((0, 1, 1, 1, 2, 3))):
        _mutate_table(rng, rows, extra)
    return rows


def _mutate_table(rng: random.Random, rows: list[list[str]], extra: list[str]) -> None:
    if not rows:
        rows.append([])
    kind = rng.randrange(10)
    row = rng.randrange(len(rows))
    if kind <= 3 and len(rows) > 1 and rows[row := rng.randrange(1, len(rows))]:
        rows[row][rng.randrange(len(rows[row]))] = _cell(rng, extra)  # a hostile value
    elif kind == 4:  # a short or long row
        if rng.random() < 0.5:
            del rows[row][rng.randrange(len(rows[row]) + 1) :]
        else:
            rows[row] += [_cell(rng, extra) for _ in range(rng.randint(1, 3))]
    elif kind == 5:  # blank rows
        for _ in range(rng.randint(1, 3)):
            rows.insert(rng.randint(1, len(rows)), [""] * rng.choice((0, 1, len(HEADER))))
    elif kind == 6 and rows[0]:  # header damage: duplicate, rename, drop, hostile
        column = rng.randrange(len(rows[0]))
        rows[0][column] = rng.choice([*HEADER, "单价", "价格", _cell(rng, extra), "price "])
    elif kind == 7:
        del rows[rng.randrange(len(rows)) :]  # down to no rows at all
    elif kind == 8 and len(rows) > 1 and len(rows[row := rng.randrange(1, len(rows))]) > 5:
        rows[row][5] = rng.choice(["1,5", "12,50", "3,10", "1.000,5"])  # a decimal comma
    else:
        rows.append([_cell(rng, extra) for _ in HEADER])


def _bytes_damage(rng: random.Random, data: bytes) -> bytes:
    if not data or rng.random() < 0.6:
        return data
    kind = rng.randrange(4)
    if kind == 0:
        return data[: rng.randrange(len(data))]
    buffer = bytearray(data)
    if kind == 1:
        for _ in range(rng.randint(1, 8)):
            buffer[rng.randrange(len(buffer))] = rng.randrange(256)
        return bytes(buffer)
    if kind == 2:
        at = rng.randrange(len(buffer))
        return (
            bytes(buffer[:at]) + bytes(rng.randrange(256) for _ in range(16)) + bytes(buffer[at:])
        )
    return rng.choice([b"", b"\xef\xbb\xbf", b"\xff\xfe", "价格\n".encode("gb18030")]) + data


def csv_case(rng: random.Random) -> bytes:
    return csv_case_and_encoding(rng)[0]


def csv_case_and_encoding(rng: random.Random, sep: str | None = None) -> tuple[bytes, str]:
    """A CSV case and the encoding its text was written in (what a reader must decode it as,
    or refuse it)."""
    rows = _table(rng, [])
    if rows and rng.random() < 0.02:  # a header far wider than a sheet may be
        rows[0] += [f"c{i}" for i in range(rng.choice(WIDE_COUNTS))]
    sep = sep or ("\t" if rng.random() < 0.1 else ",")
    quote = rng.random() < 0.3
    lines = [sep.join(f'"{c}"' if quote and rng.random() < 0.5 else c for c in row) for row in rows]
    text = "\n".join(lines) + ("\n" if rng.random() < 0.8 else "")
    encoding = rng.choice(["utf-8", "utf-8", "gb18030", "utf-16", "shift_jis", "big5"])
    data = text.encode(encoding, errors="replace")
    return _bytes_damage(rng, data), encoding


def tsv_case(rng: random.Random) -> bytes:
    return csv_case_and_encoding(rng, "\t")[0]


WIDE_COUNTS = (300, 300, 5_000, 5_000, 1_000_000)  # keys or columns; a sheet has at most 256


def json_case(rng: random.Random) -> bytes:
    kind = rng.randrange(12)
    if kind == 10:  # one object with far more keys than a sheet has columns
        wide = {f"k{i}": "1" for i in range(rng.choice(WIDE_COUNTS))}
        return json.dumps(wide if rng.random() < 0.5 else [wide]).encode()
    if kind == 0:  # deep nesting
        depth = rng.choice([100, 1000, 50_000, 200_000])
        return ("[" * depth + "]" * depth).encode()
    if kind == 1:
        return rng.choice(
            [b"{}", b"null", b"[1,2]", b'{"offers": 5}', b'[{"a": {"b": [1]}}]', b"", b"[]"]
        )
    rows = _table(rng, JSON_ONLY)
    header = rows[0] if rows else []
    records: list[object] = []
    for row in rows[1:]:
        record: dict[str, object] = {}
        for key, value in zip(header, row, strict=False):
            record[key] = _json_value(rng, value)
        records.append(record)
    document: object = {"offers": records} if rng.random() < 0.3 else records
    text = json.dumps(document, ensure_ascii=rng.random() < 0.5)
    if kind == 2:  # numbers JSON cannot hold in a double
        text = text.replace('"3.10"', rng.choice(["1e999999", "9" * 5000, "-0", "1E+2", "3.1"]))
    if kind == 11:
        text = _key_twice(rng, text, header)
    return _bytes_damage(rng, text.encode("utf-8", errors="surrogatepass"))


def _key_twice(rng: random.Random, text: str, header: list[str]) -> str:
    """``text`` with a key given twice: in the first object, or at the top."""
    if text.startswith('{"offers"') and rng.random() < 0.3:
        return text[:-1] + rng.choice([', "offers": []', ', "decimal": ","', ', "decimal": "."'])
    key = rng.choice(header or ["price"])
    value = rng.choice(["85", "8.5", "", "-0", "H100", PROVIDER])
    at = text.find("}")
    if at < 0:
        return text
    pair = json.dumps(key) + ": " + json.dumps(value)
    return text[:at] + (", " if text[at - 1] != "{" else "") + pair + text[at:]


def _json_value(rng: random.Random, value: str) -> object:
    roll = rng.random()
    if roll < 0.015:
        return rng.choice([None, True, 1.5, 2**70, [1], {"x": 1}, -3, 1e308])
    if roll < 0.04 and value.lstrip("-").isdigit() and len(value) < 30:
        return int(value)
    return value


def xlsx_case(rng: random.Random) -> bytes:
    from openpyxl import Workbook

    rows = _table(rng, [])
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    for r, row in enumerate(rows, 1):
        for c, value in enumerate(row, 1):
            cell_value: object = value.replace("\x00", "")
            roll = rng.random()
            if roll < 0.05 and value.replace(".", "", 1).isdigit() and len(value) < 20:
                cell_value = float(value)
            elif roll < 0.07:
                cell_value = rng.choice([True, 2**62, -1.5, "=A1*2", None])
            try:
                sheet.cell(r, c, cell_value)
            except (ValueError, TypeError):
                sheet.cell(r, c, "?")
    if rng.random() < 0.1:  # a far cell: the whole sheet is padded up to it (1 s at row 2^20)
        far_row = rng.choice([5000, 5000, 5000, 1_048_576])
        sheet.cell(far_row, rng.choice([1, 200, 16384]), "far away")
    buffer = io.BytesIO()
    book.save(buffer)
    data = buffer.getvalue()
    if rng.random() < 0.1:  # no <dimension>: openpyxl sizes the sheet by reading it whole
        data = _without_dimension(data)
    if rng.random() < 0.3:
        data = _damage_member(rng, data)
    return _bytes_damage(rng, data)


def _without_dimension(data: bytes) -> bytes:
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dest:
        for name in source.namelist():
            content = source.read(name)
            if name.startswith("xl/worksheets/"):
                content = re.sub(rb"<dimension [^>]*/>", b"", content)
            dest.writestr(name, content)
    return out.getvalue()


def _damage_member(rng: random.Random, data: bytes) -> bytes:
    """Rewrite the zip with one member's XML cut, garbled or replaced by hostile XML."""
    source = zipfile.ZipFile(io.BytesIO(data))
    names = source.namelist()
    target = rng.choice(names)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dest:
        for name in names:
            content = source.read(name)
            if name == target:
                content = rng.choice(
                    [
                        content[: len(content) // 2],
                        content.replace(b">", b"", 3),
                        b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">'
                        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><x>&b;</x>',
                        b"",
                        content.replace(b'r="A1"', b'r="XFD1048576"'),
                    ]
                )
                if rng.random() < 0.3:
                    continue  # the member is missing altogether
            dest.writestr(name, content)
    return out.getvalue()


PROFILE = """[provider]
id = "{id}"
name = "Fuzz Co"
country = "SG"
website = "https://fuzz.example"
support_response_minutes = 60
registered_capital_cny = 1000000
invoice_types = ["invoice"]

[[certifications]]
name = "ISO27001"
valid_until = 2028-02-29

[[datacenters]]
id = "sg-1"
name = "Singapore"
region = "Singapore"

[[licenses]]
number = "B1-20230001"
services = ["B11"]
valid_until = 2029-01-01
last_annual_report = 2025
"""
TOML_VALUES = [
    '"ok"',
    "30",
    "2030-01-01",
    '"sg-2"',
    '"https://example.com/x"',
    '"ISO27001"',
    '["invoice", "专票"]',
    '""',
    '"\\u0000"',
    '"a\\u0000b"',
    '"' + "x" * 300 + '"',
    '"' + "x" * 3000 + '"',
    str(2**63),
    str(2**63 - 1),
    "-1",
    "-0",
    "-0.0",
    "+0",
    "-0e0",
    "1e999",
    "inf",
    "nan",
    "9999-12-31",
    "0001-01-01",
    "1979-05-27T07:32:00-08:00",
    "[" * 40 + "]" * 40,
    "[" * 2000 + "]" * 2000,
    "{ a = { b = { c = 1 } } }",
    "true",
    "[1, 2]",
    '["B11", 3]',
    '"广东"',
    '"\\ud800"',
    '"CN"',
    '"XX"',
]


def toml_case(rng: random.Random) -> bytes:
    lines = PROFILE.format(id=rng.choice([PROVIDER, PROVIDER, "x" * 65, "a b", ""])).splitlines()
    for _ in range(rng.choice((0, 1, 1, 2, 3))):
        i = rng.randrange(len(lines))
        if "=" in lines[i] and rng.random() < 0.8:
            key = lines[i].split("=", 1)[0].strip()
            lines[i] = f"{key} = {rng.choice(TOML_VALUES)}"
        elif rng.random() < 0.5:
            lines.insert(i, rng.choice(["[[datacenters]]", "[provider]", "x = 1", "[[filings]]"]))
        else:
            del lines[i]
    data = ("\n".join(lines) + "\n").encode()
    if rng.random() < 0.1:
        data = b"\xef\xbb\xbf" + data
    return _bytes_damage(rng, data) if rng.random() < 0.3 else data


GENERATORS: dict[str, tuple[str, Callable[[random.Random], bytes]]] = {
    "csv": (".csv", csv_case),
    "json": (".json", json_case),
    "xlsx": (".xlsx", xlsx_case),
    "toml": (".toml", toml_case),
}
SHEET_GENERATORS: dict[str, tuple[str, Callable[[random.Random], bytes]]] = {
    **{fmt: GENERATORS[fmt] for fmt in ("csv", "json", "xlsx")},
    "tsv": (".tsv", tsv_case),
}
