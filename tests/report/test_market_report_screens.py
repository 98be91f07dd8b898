"""The weekly market report (same templates and styles as the quote) on a phone, a tablet and
a desktop (390, 768, 1280 px) in headless Chromium: nothing wider than the screen outside a
scroll box, no text under 10 px (chart text as drawn), no chart text outside its chart, no id,
date or amount broken across lines. Screenshots go to the CI artefacts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.support import market_catalog
from tests.support.browser import needs_chromium
from tests.support.screens import SCREEN_WIDTHS, measure_screens, screenshot

pytestmark = [*needs_chromium, pytest.mark.slow]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_market_report_fits_every_screen(
    sqlite_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: Any,
    lang: str,
) -> None:
    monkeypatch.setenv("SUANLI_FX_RATES", market_catalog.FX)
    market_catalog.build(capsys, sqlite_url, tmp_path).dispose()
    html = tmp_path / f"market-{lang}.html"
    args = ("report", "market", "--today", market_catalog.TODAY, "-o", str(html))
    result = run_cli(capsys, sqlite_url, *args, lang=lang)
    assert result.code == 0, result.err
    found = measure_screens(html, tmp_path, [])
    screenshot(html, tmp_path, {w: found[w]["height"] for w in SCREEN_WIDTHS}, html.stem)
    for width in SCREEN_WIDTHS:
        entry = found[width]
        assert entry["vw"] <= width
        assert entry["charts"] >= 2 and entry["tokens"] > 5, entry
        problems = json.dumps(entry["problems"], ensure_ascii=False, indent=0)
        assert entry["problems"] == [], f"{width} px: {problems}"
