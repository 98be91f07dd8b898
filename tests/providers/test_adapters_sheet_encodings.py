"""Sheets that are not UTF-8: a confident guess is read and named, a doubtful one is refused.

The sheets are encoded here with Python's codecs (Big5, Shift-JIS, GB18030) from text with
Traditional Chinese, Japanese and Simplified Chinese region and source names; a region name
only matches when it was decoded right, and the source text is compared as written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from comparator.errors import InputError, Msg
from comparator.i18n import render
from providers.sheet.encoding import decode_sheet
from providers.sheet.parse import KnownCatalog, parse_sheet, parse_sheet_columns
from tests.conftest import DATA

KNOWN = KnownCatalog(
    {
        "demo-taipei": {"tw-tpe-1": "tw-tpe-1", "台北一區資料中心": "tw-tpe-1"},
        "demo-tokyo": {"jp-tyo-1": "jp-tyo-1", "東京第一データセンター": "jp-tyo-1"},
        "acme": {"gd-sz-1": "gd-sz-1", "华南-深圳一区": "gd-sz-1"},
    }
)
HEADER = "provider,region,gpu,cards,billing,price,currency,source\n"
BIG5_ROWS = [
    (
        "demo-taipei",
        "台北一區資料中心",
        "H100",
        "8",
        "hourly",
        "88.50",
        "TWD",
        "台灣雲端運算報價單",
    ),
    ("demo-taipei", "台北一區資料中心", "A100", "8", "monthly", "52000", "TWD", "機房牌價，含稅"),
    ("demo-taipei", "台北一區資料中心", "4090", "1", "hourly", "12.5", "TWD", "業務窗口：陳先生"),
]
SJIS_ROWS = [
    (
        "demo-tokyo",
        "東京第一データセンター",
        "H100",
        "8",
        "hourly",
        "620",
        "JPY",
        "さくらクラウド料金表",
    ),
    (
        "demo-tokyo",
        "東京第一データセンター",
        "A100",
        "8",
        "monthly",
        "980000",
        "JPY",
        "税込価格です",
    ),
    ("demo-tokyo", "東京第一データセンター", "L40S", "1", "hourly", "310", "JPY", "株式会社テスト"),
]
GB_ROWS = [
    ("acme", "华南-深圳一区", "H800", "8", "hourly", "58.5", "CNY", "华南机房报价，含税"),
    ("acme", "华南-深圳一区", "A100", "8", "monthly", "42000", "CNY", "联系人：王经理"),
]


def csv_bytes(rows: list[tuple[str, ...]], encoding: str) -> bytes:
    return (HEADER + "".join(",".join(row) + "\n" for row in rows)).encode(encoding)


def stored(content: bytes, name: str) -> list[tuple[str, str]]:
    return [(o.region, o.source) for o in parse_sheet(content, name, KNOWN)]


def expected(rows: list[tuple[str, ...]], region: str) -> list[tuple[str, str]]:
    return [(region, row[7]) for row in rows]


def decoded_right_or_refused_naming(
    content: bytes, name: str, family: str, rows: list[tuple[str, ...]], region: str
) -> str:
    """'read' when the sheet's text came out exactly as written, 'refused' when the error
    names ``family``; anything else (mojibake stored, another encoding assumed) fails."""
    try:
        offers = stored(content, name)
    except InputError as exc:
        assert family in render(exc.msg, "en") and family in render(exc.msg, "zh")
        assert "UTF-8" in render(exc.msg, "en")
        return "refused"
    assert offers == expected(rows, region)
    assert decode_sheet(content, name).encoding == family
    return "read"


def test_a_gb18030_sheet_is_read_and_the_guess_named() -> None:
    content = csv_bytes(GB_ROWS, "gb18030")
    warnings: list[Msg] = []
    columns = parse_sheet_columns(content, "华南.csv", KNOWN, warnings=warnings)
    assert [(o.region, o.source) for o in columns.offers()] == expected(GB_ROWS, "gd-sz-1")
    [note] = warnings
    assert render(note, "en") == (
        "华南.csv: not UTF-8; read as GB18030 (detected); if names look wrong, save the sheet as UTF-8"
    )
    assert "已按检测到的 GB18030 读取" in render(note, "zh")


def test_the_gb18030_sheet_with_chinese_headers_is_still_read() -> None:
    content = (DATA / "sheets" / "gb18030_chinese_headers.csv").read_bytes()
    assert decode_sheet(content, "x.csv").encoding == "GB18030"


def test_a_big5_sheet_is_read_as_big5() -> None:
    content = csv_bytes(BIG5_ROWS, "big5")
    assert decoded_right_or_refused_naming(content, "tw.csv", "Big5", BIG5_ROWS, "tw-tpe-1") == (
        "read"
    )


def test_a_shift_jis_sheet_is_read_as_shift_jis_never_as_gb18030() -> None:
    content = csv_bytes(SJIS_ROWS, "shift_jis")
    outcome = decoded_right_or_refused_naming(content, "jp.csv", "Shift-JIS", SJIS_ROWS, "jp-tyo-1")
    assert outcome == "read"


@pytest.mark.parametrize(
    ("rows", "encoding", "family", "region"),
    [
        (BIG5_ROWS[:1], "big5", "Big5", "tw-tpe-1"),
        (SJIS_ROWS[:1], "shift_jis", "Shift-JIS", "jp-tyo-1"),
        (GB_ROWS[:1], "gb18030", "GB18030", "gd-sz-1"),
    ],
)
def test_a_one_row_sheet_is_read_right_or_refused_naming_its_encoding(
    rows: list[tuple[str, ...]], encoding: str, family: str, region: str
) -> None:
    content = csv_bytes(rows, encoding)
    decoded_right_or_refused_naming(content, "short.csv", family, rows, region)


def test_a_short_big5_sheet_that_reads_as_shift_jis_too_is_refused_naming_both() -> None:
    # charset-normalizer finds this row as plausible in cp932 (Shift-JIS) as in Big5
    content = csv_bytes(
        [("demo-taipei", "tw-tpe-1", "H100", "8", "hourly", "8", "TWD", "台北算力雲端服務")], "big5"
    )
    with pytest.raises(InputError) as caught:
        stored(content, "tw.csv")
    english = render(caught.value.msg, "en")
    assert english.startswith("tw.csv: not UTF-8 text; it looks like ")
    assert "Big5" in english and "save it again as UTF-8" in english
    assert "看起来是" in render(caught.value.msg, "zh")


def test_a_json_sheet_in_big5_is_read_as_big5() -> None:
    records = [dict(zip(HEADER.strip().split(","), row, strict=True)) for row in BIG5_ROWS]
    content = json.dumps(records, ensure_ascii=False).encode("big5")
    outcome = decoded_right_or_refused_naming(content, "tw.json", "Big5", BIG5_ROWS, "tw-tpe-1")
    assert outcome == "read"


@pytest.mark.parametrize(
    "content",
    [
        "provider,region\nacme,Zürich Süd\n".encode("latin-1"),
        bytes(range(128, 256)) * 4,
        "provider,region\nacme,서울 데이터센터\n".encode("euc-kr"),
    ],
    ids=["latin-1", "binary", "korean"],
)
def test_other_encodings_are_refused_naming_the_file(content: bytes) -> None:
    with pytest.raises(InputError) as caught:
        parse_sheet(content, "odd.csv", KNOWN)
    english = render(caught.value.msg, "en")
    assert english.startswith("odd.csv: not UTF-8 text") and "UTF-8 (Excel" in english


def test_import_reports_the_guess(cli: Any, sqlite_url: str, tmp_path: Path) -> None:
    assert cli("init").code == 0
    sheet = tmp_path / "prices.csv"
    sheet.write_bytes((DATA / "sheets" / "gb18030_chinese_headers.csv").read_bytes())
    english = cli("import", str(sheet), "--replace", lang="en")
    assert english.code == 0, english.err
    assert f"{sheet}: not UTF-8; read as GB18030 (detected)" in english.out + english.err
    chinese = cli("import", str(sheet), "--json")
    assert chinese.code == 0, chinese.err
    assert any("GB18030" in w for w in chinese.json()["warnings"])
