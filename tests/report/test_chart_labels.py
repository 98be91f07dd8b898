"""Chart labels are drawn whole: every bar of the alternatives chart shows its card count (×32
and ×24 never look the same), a long label is shortened in the GPU name or the provider name
first, and the label column is sized from the labels' measured width. In Chromium, no chart
text leaves its SVG (tests/quote/test_quote_screens.py, tests/report/test_market_report_screens.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from comparator.report import charts, cost_bars
from comparator.report import render as report
from comparator.report.chart_text import fit_text, short_gpu, text_width
from tests.conftest import DATA
from tests.support.htmltree import parse_html

NAMES = {"qh": "演示·前海智算", "pc": "演示·鹏城云", "zj": "演示·珠江智算"}
# the six bars of the 70B example on the demo catalog (the issue's ×… case)
SIX = [
    ("qh", "gd-gz-1", "H800-SXM5-80GB", 24, "3456.00"),
    ("pc", "gd-sz-pc", "H100-SXM5-80GB", 24, "4579.20"),
    ("qh", "sh-1", "H100-SXM5-80GB", 24, "5737.50"),
    ("zj", "gd-sz-1", "A100-SXM4-80GB", 32, "7216.00"),
    ("pc", "gd-sz-1", "A100-SXM4-80GB", 48, "8500.80"),
    ("zj", "gd-dg-1", "H800-SXM5-80GB", 32, "9100.00"),
]


def plans(rows: list[tuple[str, str, str, int, str]]) -> list[dict[str, Any]]:
    keys = ("provider", "region", "gpu", "cards", "total_cost")
    return [dict(zip(keys, row, strict=True)) for row in rows]


def drawn(chart: cost_bars.CostChart) -> list[str]:
    return [bar.text for bar in chart.bars]


@pytest.mark.parametrize("size", ["wide", "narrow"])
def test_every_bar_shows_its_card_count(size: str) -> None:
    six = plans(SIX)
    chart = getattr(cost_bars.cost_charts(six[0], six[1:], NAMES), size)
    for bar, plan in zip(chart.bars, six, strict=True):
        assert bar.text.endswith(f"×{plan['cards']}"), bar.text
        assert "…" not in bar.text
        assert bar.label == cost_bars.plan_label(plan, NAMES)  # the whole label, as a tooltip
    assert len(set(drawn(chart))) == len(six)


def test_the_wide_chart_draws_labels_whole_beside_their_bars() -> None:
    six = plans(SIX)
    chart = cost_bars.cost_chart(six[0], six[1:], NAMES)
    assert not chart.stacked
    assert drawn(chart) == [bar.label for bar in chart.bars]
    widest = max(text_width(text, chart.font_size) for text in drawn(chart))
    assert widest < chart.label_width < widest + 12  # sized from the text, not a fixed 300


def test_a_phone_puts_labels_on_their_own_line_with_short_gpu_names() -> None:
    six = plans(SIX)
    chart = cost_bars.cost_chart(six[0], six[1:], NAMES, charts.NARROW_WIDTH, charts.NARROW_FONT)
    assert chart.stacked and chart.label_width == 0
    for bar in chart.bars:
        assert bar.label_y < bar.y  # above its bar
        assert text_width(bar.text, chart.font_size) <= chart.width
    assert "演示·珠江智算 · gd-sz-1 · A100-80GB×32" in drawn(chart)


def test_a_very_long_provider_name_is_cut_before_the_card_count() -> None:
    long_name = {"qh": "演示·前海智算中心有限公司深圳前海深港现代服务业合作区分公司" * 2}
    plan = plans([("qh", "gd-gz-1", "H800-SXM5-80GB", 24, "100.00")])[0]
    chart = cost_bars.cost_chart(plan, [], long_name, charts.NARROW_WIDTH, charts.NARROW_FONT)
    first, second = chart.bars[0].lines
    assert second == "gd-gz-1 · H800-80GB×24" and first.endswith("…")
    assert text_width(first + " · ", chart.font_size) <= chart.width - 4


def test_a_label_too_long_for_a_phone_takes_two_lines_and_loses_nothing() -> None:
    names = {"sg": "Demo · Merlion GPU Cloud International"}
    plan = plans([("sg", "sg-1", "A100-SXM4-80GB", 8, "3477.41")])[0]
    chart = cost_bars.cost_chart(plan, [], names, charts.NARROW_WIDTH, charts.NARROW_FONT)
    bar = chart.bars[0]
    assert bar.lines == ("Demo · Merlion GPU Cloud International", "sg-1 · A100-80GB×8")
    assert bar.label_y + chart.line_height < bar.y  # both lines above the bar


def test_short_gpu_names_keep_model_and_memory() -> None:
    assert short_gpu("H800-SXM5-80GB") == "H800-80GB"
    assert short_gpu("A100-PCIe-40GB") == "A100-40GB"
    assert short_gpu("RTX4090-24GB") == "RTX4090-24GB"
    assert fit_text("abcdef", 10, 1000) == "abcdef"
    assert fit_text("abcdefghijklmnop", 10, 40).endswith("…")


def test_measured_widths_follow_the_font() -> None:
    assert text_width("广州", 10) == pytest.approx(2 * 10 * 1.06)
    assert text_width("W", 10) > text_width("i", 10) * 2
    assert text_width("", 12) == 0


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_the_rendered_charts_keep_every_label_whole(lang: str) -> None:
    """In the page, each bar's drawn label ends with the card count its tooltip names."""
    document = json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))
    root = parse_html(report.render_html(document, lang=lang))
    drawings = root.by_id("alternatives").find_all("svg")
    assert [d.attrs["class"] for d in drawings] == ["wide", "narrow"]
    for drawing in drawings:
        labels = [t.text() for t in drawing.find_all("text", "bar-label")]
        titles = [t.text() for t in drawing.find_all("title")]
        assert labels and len(labels) == len(titles)
        for label, title in zip(labels, titles, strict=True):
            count = re.search(r"×\d+$", title)
            assert count and label.endswith(count.group(0)), (label, title)
            assert "…" not in label.rsplit("·", 1)[-1]
    assert "…" not in "".join(t.text() for t in drawings[0].find_all("text"))
