"""What changed, in every output of `suanli report market`: a provider gone, a new provider, a
licence expiring in 30 days and a source that failed its last refresh appear in the text (both
languages), the HTML and the JSON; the PDF embeds its CJK fonts (pdffonts)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from comparator.i18n import label
from tests.conftest import needs_pdf, run_cli
from tests.support import market_catalog

ARGS = ("report", "market", "--today", market_catalog.TODAY, "--weeks", "3")


@pytest.fixture
def catalog(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> str:
    monkeypatch.setenv("SUANLI_FX_RATES", market_catalog.FX)
    monkeypatch.setenv("COLUMNS", "200")
    market_catalog.build(capsys, sqlite_url, tmp_path).dispose()
    return sqlite_url


@pytest.fixture
def catalog_any(
    any_db_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> str:
    """The three weeks on SQLite and on PostgreSQL."""
    monkeypatch.setenv("SUANLI_FX_RATES", market_catalog.FX)
    market_catalog.build(capsys, any_db_url, tmp_path).dispose()
    return any_db_url


def test_json_lists_what_changed(catalog_any: str, capsys: pytest.CaptureFixture[str]) -> None:
    result = run_cli(capsys, catalog_any, *ARGS, "--json")
    assert result.code == 0, result.err
    changes = result.json()["changes"]
    assert changes["providers_new"] == ["delta"]
    assert changes["providers_gone"] == ["gamma"]
    assert changes["datacenters_new"] == [{"provider": "delta", "region": "delta-gz"}]
    assert changes["datacenters_gone"] == [{"provider": "gamma", "region": "gamma-gz"}]
    assert changes["expiring"] == [
        {
            "provider": "delta",
            "kind": "licence",
            "name": "B1-20200712",
            "valid_until": "2027-01-02",
            "days_left": 30,
        }
    ]
    # W49 against W48: alpha 6 offers, beta 2, delta 2 (10), of which 6 match (alpha's 5
    # SKUs, beta's H800); W48's 7 offers less those 6: gamma's
    assert (changes["offers_added"], changes["offers_removed"]) == (4, 1)
    assert [(s["provider"], s["sku"]) for s in changes["stock_to_zero"]] == [("alpha", "a-4")]
    moves = {(m["provider"], m["old_price"], m["new_price"]) for m in changes["price_moves"]}
    assert ("alpha", "11.5", "11") in moves
    [failed] = result.json()["failed_sources"]
    assert failed["provider"] == "beta" and failed["error"]
    assert failed["last_good_at"].startswith("2026-12-02T09:00:00+08:00")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_text_lists_what_changed(
    catalog: str, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    result = run_cli(capsys, catalog, *ARGS, lang=lang)
    assert result.code == 0, result.err
    out = result.out
    for key in ("mk_providers_new", "mk_providers_gone", "mk_expiring", "mk_failed"):
        assert label(lang, key) in out
    assert f"{label(lang, 'mk_providers_new')}{label(lang, 'colon')}delta" in out
    assert f"{label(lang, 'mk_providers_gone')}{label(lang, 'colon')}gamma" in out
    assert "B1-20200712" in out and "2027-01-02" in out
    assert "beta (2026-W49)" in out and label(lang, "mk_stale") in out


def _html(catalog: str, capsys: Any, tmp_path: Path, lang: str) -> str:
    page = tmp_path / f"market-{lang}.html"
    result = run_cli(capsys, catalog, *ARGS, "-o", str(page), lang=lang)
    assert result.code == 0, result.err
    return page.read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_html_lists_what_changed(
    catalog: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, lang: str
) -> None:
    html = _html(catalog, capsys, tmp_path, lang)
    changes = html.split('id="changes"', 1)[1]
    new = changes.split(label(lang, "mk_providers_new"), 1)[1].split("</dd>", 1)[0]
    gone = changes.split(label(lang, "mk_providers_gone"), 1)[1].split("</dd>", 1)[0]
    assert ">delta<" in new and ">gamma<" in gone
    assert "2027-01-02" in changes and ">30<" in changes
    failed = html.split('id="failed"', 1)[1].split("</section>", 1)[0]
    assert ">beta<" in failed and label(lang, "mk_stale") in failed
    assert html.count("<svg") >= 4  # an index line chart and a spread chart per GPU


needs_poppler = pytest.mark.skipif(shutil.which("pdffonts") is None, reason="no poppler-utils")


@needs_pdf
@needs_poppler
def test_pdf_embeds_cjk_fonts_and_the_changes(
    catalog: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pdf = tmp_path / "market.pdf"
    result = run_cli(capsys, catalog, *ARGS, "--pdf", str(pdf))
    assert result.code == 0, result.err
    fonts = subprocess.run(["pdffonts", str(pdf)], capture_output=True, text=True, check=True)
    cjk = [row for row in fonts.stdout.splitlines()[2:] if "CJK" in row]
    assert cjk and all(row.split()[-5] == "yes" for row in cjk)
    words = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True).stdout
    for whole in ("2027-01-02", "B1-20200712", "10.92", "-0.7 %"):
        assert whole in words
    assert label("zh", "mk_title") in words
