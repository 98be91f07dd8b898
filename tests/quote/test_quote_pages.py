"""Each example job's quote as A4 PDF pages (examples/*.toml on the demo catalog, both
languages): no box reaches beyond its page's content box (WeasyPrint's laid-out boxes), and
pdftotext reads every id, place, GPU × cards (in the tables and the chart's labels), amount
and time whole."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from comparator.report import cost_bars
from comparator.report import render as report
from comparator.report.chart_text import short_gpu
from tests.conftest import REPO, needs_pdf, run_cli

pytestmark = [needs_pdf, pytest.mark.slow]

EXAMPLES = sorted(p for p in (REPO / "examples").glob("*.toml") if p.name != "sources.toml")


def boxes_beyond_the_page(html: str) -> tuple[bytes, list[tuple[int, str, float]]]:
    """The PDF, and (page, element, points beyond) for each box wider than its page allows."""
    import weasyprint

    rendered = weasyprint.HTML(string=html, base_url=str(report.templates_dir())).render()
    beyond = []
    for number, page in enumerate(rendered.pages, start=1):
        box = page._page_box
        left, right = box.content_box_x(), box.content_box_x() + box.width
        for inner in box.descendants():
            if not hasattr(inner, "border_width") or inner.element is None:
                continue
            x0, x1 = inner.border_box_x(), inner.border_box_x() + inner.border_width()
            if x0 < left - 0.5 or x1 > right + 0.5:
                name = f"{inner.element_tag}.{inner.element.get('class')}"
                beyond.append((number, name, round(max(left - x0, x1 - right), 1)))
    pdf = rendered.write_pdf()
    assert isinstance(pdf, bytes)
    return pdf, beyond


def whole_tokens(plan: dict[str, Any]) -> set[str]:
    plans = [plan["best"], *plan["alternatives"]] if plan.get("best") else []
    found = {f"{p['gpu']} × {p['cards']}" for p in plans}
    found |= {str(p[k]) for p in plans for k in ("region", "region_name", "city") if p.get(k)}
    found |= {report.format_money(p["total_cost"]) for p in plans}
    found |= {report.format_short_when(p["finish"]) for p in plans}
    found |= {f"#{e['offer_id']}" for e in plan.get("excluded") or [] if e.get("offer_id")}
    return found


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_the_quote_pages_keep_within_a4_and_tokens_whole(
    capsys: pytest.CaptureFixture[str], demo_db_url: str, tmp_path: Path, example: Path, lang: str
) -> None:
    html = tmp_path / "quote.html"
    args = ("quote", str(example), "-o", str(html), "--today", "2026-12-01", "--json")
    result = run_cli(capsys, demo_db_url, *args, lang=lang)
    assert result.code == 0, result.err
    pdf, beyond = boxes_beyond_the_page(html.read_text(encoding="utf-8"))
    assert beyond == [], beyond[:10]
    path = tmp_path / "quote.pdf"
    path.write_bytes(pdf)
    text = subprocess.run(
        ["pdftotext", "-raw", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    tokens = whole_tokens(json.loads(result.out)["plan"])
    assert len(tokens) > 10
    for token in sorted(tokens):
        if token.startswith("#"):
            assert re.search(rf"(?<![\w#]){re.escape(token)}(?![\w-])", text), token
        else:
            assert token in text, f"{token!r} is broken across lines or missing"
    plan = json.loads(result.out)["plan"]
    for bar in [p for p in [plan["best"], *plan["alternatives"]] if p][: cost_bars.MAX_COST_BARS]:
        # the alternatives chart's label: the GPU name may be shortened, the card count never
        drawn = {f"{gpu}×{bar['cards']}" for gpu in (bar["gpu"], short_gpu(bar["gpu"]))}
        assert any(label in text for label in drawn), drawn
