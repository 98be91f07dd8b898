"""Each example job's quote (examples/*.toml on the demo catalog, in both languages) on a phone,
a tablet and a desktop (390, 768, 1280 px) in headless Chromium: nothing wider than the screen
outside a scroll box, no text under 10 px (chart text as drawn), no chart text outside its
chart, no id, time, amount or place broken across lines. Screenshots go to the CI artefacts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import REPO, run_cli
from tests.support.browser import needs_chromium
from tests.support.screens import SCREEN_WIDTHS, measure_screens, screenshot

pytestmark = [*needs_chromium, pytest.mark.slow]

EXAMPLES = sorted(p for p in (REPO / "examples").glob("*.toml") if p.name != "sources.toml")
TODAY = "2026-12-01"


def test_every_example_job_is_tried() -> None:
    assert len(EXAMPLES) >= 4, [p.name for p in EXAMPLES]


def _words(plan: dict[str, object], providers: list[dict[str, str]]) -> list[str]:
    """Places, ids and names of the quote that must each stay on one line."""
    plans = [plan["best"], *plan["alternatives"]] if plan.get("best") else []
    words = {str(p.get(key) or "") for p in plans for key in ("region", "region_name", "gpu")}
    words |= {str(p.get(key) or "") for p in plans for key in ("province", "city")}
    words |= {str(entry["name"]) for entry in providers}
    return sorted(word for word in words if word)


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_quote_fits_every_screen(
    capsys: pytest.CaptureFixture[str], demo_db_url: str, tmp_path: Path, example: Path, lang: str
) -> None:
    html = tmp_path / f"{example.stem}-{lang}.html"
    args = ("quote", str(example), "-o", str(html), "--today", TODAY, "--json")
    result = run_cli(capsys, demo_db_url, *args, lang=lang)
    assert result.code == 0, result.err
    providers = json.loads(run_cli(capsys, demo_db_url, "providers", "--json").out)["providers"]
    words = _words(json.loads(result.out)["plan"], providers)
    found = measure_screens(html, tmp_path, words)
    screenshot(html, tmp_path, {w: found[w]["height"] for w in SCREEN_WIDTHS}, html.stem)
    for width in SCREEN_WIDTHS:
        entry = found[width]
        assert entry["vw"] <= width
        assert entry["charts"] >= 1 and entry["tokens"] > 20, entry
        problems = json.dumps(entry["problems"], ensure_ascii=False, indent=0)
        assert entry["problems"] == [], f"{width} px: {problems}"
