"""The market report's HTML at 390 px (a phone) and 1280 px in headless Chromium: nothing
leaves the viewport, no text spills out of its box, no cells overlap (the quote's own
measurement, tests/quote/test_quote_layout.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.quote.test_quote_layout import measure
from tests.support import market_catalog
from tests.support.browser import needs_chromium

pytestmark = needs_chromium


@pytest.fixture
def page(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> dict[str, Path]:
    monkeypatch.setenv("SUANLI_FX_RATES", market_catalog.FX)
    market_catalog.build(capsys, sqlite_url, tmp_path).dispose()
    pages = {}
    for lang in ("zh", "en"):
        html = tmp_path / f"market-{lang}.html"
        args = ("report", "market", "--today", market_catalog.TODAY, "-o", str(html))
        result = run_cli(capsys, sqlite_url, *args, lang=lang)
        assert result.code == 0, result.err
        pages[lang] = html
    return pages


@pytest.mark.parametrize("width", [390, 1280])
def test_nothing_leaves_the_viewport(page: dict[str, Path], tmp_path: Path, width: int) -> None:
    for lang, html in page.items():
        found = measure(html, width, tmp_path / f"profile-{lang}")
        assert found["vw"] <= width
        assert found["problems"] == [], (lang, json.dumps(found["problems"], ensure_ascii=False))
