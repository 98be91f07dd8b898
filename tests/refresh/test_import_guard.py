"""Guarded imports: a sheet that drops offers needs --replace; odd sheets warn or say why."""

from __future__ import annotations

from pathlib import Path
from typing import Any

ONE_ROW = "provider,region,gpu,billing,price\ndemo-nanshan,gd-sz-1,4090,hourly,1.55\n"


def _offers(cli: Any, db: str, provider: str) -> list[dict[str, Any]]:
    result = cli("offers", "--provider", provider, "--limit", "1000", "--json", db=db)
    offers: list[dict[str, Any]] = result.json()["offers"]
    return offers


def test_a_sheet_that_removes_offers_needs_replace(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    before = len(_offers(cli, demo_db_url, "demo-nanshan"))
    assert before == 15
    sheet = tmp_path / "one.csv"
    sheet.write_text(ONE_ROW, encoding="utf-8")
    refused = cli("import", str(sheet), db=demo_db_url, lang="en")
    assert refused.code == 1
    assert "one.csv → demo-nanshan: 15 → 1 offers (15 gone)" in refused.err
    assert "hint: " in refused.err and "--replace" in refused.err
    assert len(_offers(cli, demo_db_url, "demo-nanshan")) == 15  # nothing written
    in_chinese = cli("import", str(sheet), db=demo_db_url)
    assert "one.csv → demo-nanshan：15 → 1 条报价（15 条将下架）" in in_chinese.err
    assert "hint: " in in_chinese.err and "--replace" in in_chinese.err

    replaced = cli("import", str(sheet), "--replace", db=demo_db_url, lang="en")
    assert replaced.code == 0, replaced.err
    assert len(_offers(cli, demo_db_url, "demo-nanshan")) == 1


def test_a_sheet_that_only_adds_or_reprices_needs_no_flag(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    current = _offers(cli, demo_db_url, "demo-caoyuan")
    header = "provider,region,gpu,cards,billing,price,currency,time_of_use,sku,min_units"
    rows = [
        f"{o['provider']},{o['region']},{o['gpu']},{o['cards']},{o['billing']},"
        f"{o['price']},{o['currency']},{o['time_of_use']},{o.get('sku', '')},"
        f"{o.get('min_units', 1)}"
        for o in current
    ]
    rows.append("demo-caoyuan,nm-wlcb-1,4090,8,hourly,9.99,CNY,,new-sku,1")
    sheet = tmp_path / "more.csv"
    sheet.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    result = cli("import", str(sheet), db=demo_db_url, lang="en")
    assert result.code == 0, result.err
    assert len(_offers(cli, demo_db_url, "demo-caoyuan")) == len(current) + 1


def test_unknown_columns_and_empty_sheets_warn(cli: Any, demo_db_url: str, tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("provider,region,gpu,billing,price,备注x,prise2\n", encoding="utf-8")
    result = cli("import", str(empty), db=demo_db_url, lang="en")
    assert result.code == 0, result.err
    assert "warning: " in result.err
    assert "ignored column(s) no header matches: '备注x', 'prise2'" in result.err
    assert "the sheet has a header but no offers" in result.err
    assert cli("import", str(empty), "--json", db=demo_db_url).json()["warnings"]
    chinese = cli("import", str(empty), db=demo_db_url)
    assert "以下列没有对应的表头，已忽略：'备注x', 'prise2'" in chinese.err
    assert "只有表头、没有报价" in chinese.err and "ignored" not in chinese.err


def test_a_missing_column_names_the_closest_header(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    sheet = tmp_path / "typo.csv"
    sheet.write_text("provider,region,gpu,billing,prise\nx,y,4090,hourly,1\n", encoding="utf-8")
    result = cli("import", str(sheet), db=demo_db_url, lang="en")
    assert result.code == 1
    assert "column price: expected a column named price" in result.err
    assert "closest header found: 'prise'" in result.err


def test_a_fake_xlsx_and_a_gb18030_job_file_say_what_was_expected(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    fake = tmp_path / "prices.xlsx"
    fake.write_text(ONE_ROW, encoding="utf-8")
    result = cli("import", str(fake), db=demo_db_url, lang="en")
    assert result.code == 1
    assert f"error: {fake}: expected an Excel workbook (.xlsx" in result.err
    assert "probably CSV (rename it to .csv)" in result.err
    assert "cannot be determined" not in result.err

    job = tmp_path / "job.toml"
    job.write_bytes('[job]\nname = "客服助手"\n'.encode("gb18030"))
    result = cli("plan", str(job), db=demo_db_url, lang="en")
    assert result.code == 1
    assert f"error: {job}: line 2, column 9: expected UTF-8 text" in result.err
    assert "GB18030" in result.err and "codec" not in result.err
