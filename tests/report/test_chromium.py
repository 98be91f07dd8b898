"""The quote page in headless Chromium: it loads without console errors and paints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from comparator.report import render as report
from tests.support.browser import chromium, console_messages, needs_chromium

DATA = Path(__file__).parents[1] / "data"
SECTIONS = ("summary", "estimate", "plan", "alternatives", "excluded", "compliance", "assumptions")

pytestmark = needs_chromium


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    document = json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))
    path = tmp_path_factory.mktemp("chromium") / "quote.html"
    report.write_report(document, path, None)
    return path


@pytest.mark.slow
def test_chromium_loads_the_page_without_console_errors(page: Path, tmp_path: Path) -> None:
    result = chromium(tmp_path / "profile", "--dump-dom", page.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    assert console_messages(result.stderr) == []
    for section in SECTIONS:
        assert f'id="{section}"' in result.stdout
    assert "&lt;script&gt;alert(1)&lt;/script&gt;某云" in result.stdout


@pytest.mark.slow
def test_the_screenshot_is_not_blank(page: Path, tmp_path: Path) -> None:
    image_module = pytest.importorskip("PIL.Image")
    shot = tmp_path / "quote.png"
    result = chromium(
        tmp_path / "profile", "--window-size=1000,1400", f"--screenshot={shot}", page.as_uri()
    )
    assert result.returncode == 0 and shot.is_file(), result.stderr[-2000:]
    assert console_messages(result.stderr) == []
    with image_module.open(shot) as image:
        pixels = image.convert("RGB").resize((250, 350))
        colours = pixels.getcolors(maxcolors=250 * 350)
    assert colours is not None
    non_white = sum(count for count, rgb in colours if sum(rgb) < 720)
    assert non_white / (250 * 350) > 0.03, "page looks blank"
    assert len(colours) > 50, "page has almost no distinct colours"


def test_a_console_error_would_be_caught(tmp_path: Path) -> None:
    """The check above can fail: a page that logs an error is reported."""
    broken = tmp_path / "broken.html"
    broken.write_text('<html><body><script>console.error("boom")</script></body></html>')
    result = chromium(tmp_path / "profile", "--dump-dom", broken.as_uri())
    assert any("boom" in line for line in console_messages(result.stderr))
