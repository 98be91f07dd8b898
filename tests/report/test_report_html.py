"""The quote page: parsed back as HTML and checked against the document it was rendered from."""

from __future__ import annotations

import copy
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from comparator.i18n import LABELS, REPORT_LANGS
from comparator.report import cost_bars
from comparator.report import render as report
from tests.support.htmltree import Element, parse_html

DATA = Path(__file__).parents[1] / "data"
SECTIONS = ("summary", "estimate", "plan", "alternatives", "excluded", "compliance", "assumptions")
EVIL = "<script>alert(1)</script>某云"


@pytest.fixture
def document() -> dict[str, Any]:
    return json.loads((DATA / "quote_document.json").read_text(encoding="utf-8"))


def render(document: dict[str, Any], lang: str | None = None) -> tuple[str, Element]:
    html = report.render_html(document, lang=lang)
    return html, parse_html(html)


def money_cells(root: Element, table_class: str, column: int) -> list[str]:
    table = root.find_all("table", table_class)[0]
    rows = [r for r in table.find_all("tr") if r.find_all("td")]
    return [r.find_all("td")[column].text().strip() for r in rows]


@pytest.mark.parametrize("lang", REPORT_LANGS)
def test_every_section_is_present_once_in_order(document: dict[str, Any], lang: str) -> None:
    _, root = render(document, lang)
    ids = [e.attrs["id"] for e in root.iter() if e.tag == "section"]
    assert ids == list(SECTIONS)
    assert root.find_all("html")[0].attrs["lang"] == lang


def test_totals_equal_the_plan(document: dict[str, Any]) -> None:
    _, root = render(document)
    best = document["plan"]["best"]
    totals = {e.attrs["data-total"] for e in root.iter() if "data-total" in e.attrs}
    assert totals == {best["total_cost"]}
    segment_costs = money_cells(root, "segments", -1)
    expected = [report.format_money(s["cost"]) for s in best["segments"]]
    assert segment_costs[:-1] == expected
    assert segment_costs[-1] == report.format_money(best["total_cost"])
    assert sum(Decimal(s["cost"]) for s in best["segments"]) == Decimal(best["total_cost"])


def test_alternatives_table_lists_every_plan_with_its_total(document: dict[str, Any]) -> None:
    _, root = render(document)
    plans = [document["plan"]["best"], *document["plan"]["alternatives"]]
    assert money_cells(root, "alternatives", 4) == [
        report.format_money(p["total_cost"]) for p in plans
    ]
    best_cost = Decimal(plans[0]["total_cost"])
    differences = money_cells(root, "alternatives", 5)[1:]
    for plan, cell in zip(plans[1:], differences, strict=True):
        assert cell.startswith("+" + report.format_money(Decimal(plan["total_cost"]) - best_cost))


def test_a_hostile_provider_name_is_escaped_everywhere(document: dict[str, Any]) -> None:
    html, root = render(document)
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;某云" in html
    assert not root.find_all("script")
    cells = [cell.text() for cell in root.by_id("alternatives").find_all("td")]
    assert any(cell.startswith(EVIL + " · ") for cell in cells)
    excluded = root.by_id("excluded").text()
    assert EVIL in excluded


def test_the_page_is_self_contained(document: dict[str, Any]) -> None:
    html, root = render(document)
    assert not root.find_all("link") and not root.find_all("img")
    assert "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in html
    assert len(root.find_all("svg")) == 6  # three charts, each drawn wide and narrow
    assert "@page" in "".join(s.text() for s in root.find_all("style"))


def test_page_numbers_follow_the_language(document: dict[str, Any]) -> None:
    zh_css = "".join(s.text() for s in render(document, "zh-CN")[1].find_all("style"))
    en_css = "".join(s.text() for s in render(document, "en")[1].find_all("style"))
    assert '"第 " counter(page) " 页 / 共 " counter(pages) " 页"' in zh_css
    assert '"Page " counter(page) " of " counter(pages)' in en_css


def test_english_report_uses_english_labels(document: dict[str, Any]) -> None:
    _, root = render(document, "en")
    assert root.by_id("summary").find_all("h2")[0].text() == "Summary"
    assert "Why this plan" in root.by_id("summary").text()
    assert "摘要" not in root.text()


def test_document_language_is_the_default(document: dict[str, Any]) -> None:
    document["lang"] = "en"
    _, root = render(document)
    assert root.find_all("html")[0].attrs["lang"] == "en"


def test_the_same_document_renders_to_the_same_bytes(document: dict[str, Any]) -> None:
    assert report.render_html(copy.deepcopy(document)) == report.render_html(document)


def test_why_the_winner_won_names_the_runner_up_and_the_difference(
    document: dict[str, Any],
) -> None:
    _, root = render(document)
    why = root.by_id("summary").find_all("ul", "why")[0].text()
    runner = document["plan"]["alternatives"][0]
    difference = Decimal(runner["total_cost"]) - Decimal(document["plan"]["best"]["total_cost"])
    assert report.format_money(difference) in why
    assert EVIL in why
    assert f"{len(document['plan']['excluded'])} 条报价" in why


def test_no_feasible_plan_still_renders_every_section(document: dict[str, Any]) -> None:
    document["plan"].update(best=None, alternatives=[], message="没有报价能在截止时间前完成")
    _, root = render(document)
    assert [e.attrs["id"] for e in root.iter() if e.tag == "section"] == list(SECTIONS)
    assert "没有报价能在截止时间前完成" in root.by_id("summary").text()
    assert len(root.find_all("svg")) == 2  # the memory chart only (wide and narrow)


def test_a_job_without_estimate_says_so(document: dict[str, Any]) -> None:
    document["estimate"] = None
    _, root = render(document, "en")
    assert "no estimate was made" in root.by_id("estimate").text()


def test_compliance_matrix_has_a_row_per_provider_and_datacenter(
    document: dict[str, Any],
) -> None:
    _, root = render(document)
    matrix = root.by_id("compliance").find_all("table", "matrix")[0]
    rows = [r for r in matrix.find_all("tr") if r.find_all("td")]
    providers = document["compliance"]["providers"]
    assert len(rows) == sum(1 + len(p["datacenters"]) for p in providers)
    findings = root.by_id("compliance").find_all("table", "findings")[0].text()
    assert "许可证只含 B2，不含 B11" in findings
    assert "统一社会信用代码校验通过" not in findings  # passing checks are not findings


def test_stale_prices_are_flagged(document: dict[str, Any]) -> None:
    _, root = render(document)
    stale = root.by_id("assumptions").find_all("tr", "stale")
    assert len(stale) == sum(1 for a in document["price_ages"] if a["stale"])
    assert "已过期" in stale[0].text()


def test_two_hundred_alternatives_chart_the_cheapest_and_list_all(
    document: dict[str, Any],
) -> None:
    template = document["plan"]["alternatives"][0]
    document["plan"]["alternatives"] = [
        dict(template, total_cost=f"{1500 + i}.00", region=f"r{i}") for i in range(200)
    ]
    _, root = render(document)
    section = root.by_id("alternatives")
    for drawing in section.find_all("svg"):
        assert len(drawing.find_all("rect")) == cost_bars.MAX_COST_BARS
    rows = [r for r in section.find_all("table")[0].find_all("tr") if r.find_all("td")]
    assert len(rows) == 201
    assert "201" in section.find_all("figcaption")[0].text()


def test_every_label_has_both_languages() -> None:
    assert all(
        (len(pair) == 2 and all(pair)) or key == "more_suffix" for key, pair in LABELS.items()
    )


def test_templates_are_found_in_the_repository() -> None:
    directory = report.templates_dir()
    assert (directory / "quote.html.j2").is_file()
    assert report.environment().autoescape is True


def _section_text(root: Element, section: str) -> str:
    found = [e for e in root.iter() if e.tag == "section" and e.attrs.get("id") == section]
    return " ".join(found[0].text().split())


def test_warnings_about_the_recommended_plan_are_in_the_summary(document: dict[str, Any]) -> None:
    best = document["plan"]["best"]
    report_ = next(
        r for r in document["compliance"]["providers"] if r["provider"] == best["provider"]
    )
    report_["checks"].append(
        {
            "id": "licence-valid",
            "status": "warn",
            "message_zh": "许可证 2027-01-20 到期，仅剩 43 天",
            "message_en": "licence expires 2027-01-20, in 43 days",
            "evidence": "B1-1",
        }
    )
    for lang, words in (("zh-CN", "许可证 2027-01-20 到期，仅剩 43 天"), ("en", "in 43 days")):
        _, root = render(document, lang)
        summary = _section_text(root, "summary")
        assert LABELS["attention"][0 if lang == "zh-CN" else 1] in summary
        assert words in summary


def test_places_restart_overhead_and_epochs_are_explained(document: dict[str, Any]) -> None:
    best = document["plan"]["best"]
    best.update(
        region_name="深圳一号机房", province="广东", city="深圳", work_hours=30, overhead_hours=2
    )
    document["job"]["restart_overhead_hours"] = 1
    document["estimate"].update(epochs=3, total_tokens=document["estimate"]["tokens"] * 3)
    _, root = render(document, "en")
    plan = _section_text(root, "plan")
    assert f"{best['region']} 深圳一号机房 广东 深圳" in plan
    assert "compute 30 h + restart overhead 2 h, each resume costs 1 h" in plan
    estimate = _section_text(root, "estimate")
    assert "× 3 epochs =" in estimate and "a range rather than a number" in estimate


def test_the_compliance_grid_has_a_legend_and_english_glosses_official_terms(
    document: dict[str, Any],
) -> None:
    document["job"].setdefault("requirements", {})["invoice"] = "专票"
    _, root = render(document, "en")
    legend = [e for e in root.iter() if e.tag == "p" and "legend" in e.attrs.get("class", "")]
    assert legend, "the compliance grid has no legend"
    words = " ".join(legend[-1].text().split())
    for word in ("✓", "pass", "!", "warn", "✗", "fail", "·", "not applicable"):
        assert word in words
    assert "专票 (special VAT invoice)" in _section_text(root, "summary")
    _, root = render(document, "zh-CN")
    assert "special VAT" not in _section_text(root, "summary")


@pytest.mark.parametrize("lang", REPORT_LANGS)
def test_hours_show_low_expected_and_high_with_their_reason(
    document: dict[str, Any], lang: str
) -> None:
    """Issue 12: the estimate and the plan carry the fit's range; the quote shows it."""
    document["estimate"]["hours_range"] = {"low": 24.8, "expected": 36.0, "high": 53.3}
    document["estimate"]["card_hours_range"] = {"low": 198.4, "expected": 288.0, "high": 426.4}
    document["plan"]["best"]["work_hours_range"] = {"low": 25.5, "expected": 37, "high": 54.8}
    document["plan"]["best"]["card_hours_range"] = {"low": 198.4, "expected": 288, "high": 426.4}
    _, root = render(document, lang)
    notes = [p.text() for p in root.find_all("p", "hours-range")]
    assert len(notes) == 2
    assert "24.8 / 36.0 / 53.3 h" in notes[0] and "198.4 / 288.0 / 426.4" in notes[0]
    assert "25.5 / 37.0 / 54.8 h" in notes[1]
    assert all(("5%–95%" in n) if lang.startswith("zh") else ("95th" in n) for n in notes)
    summary = root.find_all("span", "hours-span")
    assert len(summary) == 1 and "25.5–54.8 h" in summary[0].text()


def test_providers_left_out_of_a_national_quote_are_counted(document: dict[str, Any]) -> None:
    """A document whose compliance section left providers out says how many, by status."""
    html, _ = render(document, "en")
    assert LABELS["compliance_omitted"][1] not in html
    document["compliance"]["omitted"] = {"providers": 1877, "by_status": {"pass": 1870, "warn": 7}}
    html, _ = render(document, "en")
    assert f"{LABELS['compliance_omitted'][1]}: 1877 · pass 1870 · warn 7" in html


def test_excluded_offers_are_counted_by_why(document: dict[str, Any]) -> None:
    """#25: "15 offers were excluded as non-compliant" when 7 were short of stock."""
    excluded = document["plan"]["excluded"]
    kinds = ["compliance"] * 8 + ["stock"] * 7
    document["plan"]["excluded"] = [
        {**excluded[i % len(excluded)], "kind": kind} for i, kind in enumerate(kinds)
    ]
    _, root = render(document)
    assert "15 条报价被排除：不合规 8；库存不足 7" in root.by_id("excluded").text()
    _, root = render(document, "en")
    text = root.by_id("excluded").text()
    assert "15 offers were excluded: non-compliant 8; short of stock 7" in text
    assert "as non-compliant" not in root.text()


def test_the_compliance_grid_shows_a_providers_status_in_this_quote(
    document: dict[str, Any],
) -> None:
    """A provider whose data centre a plan uses passes there, though another of its data
    centres fails: the grid shows ``quote_status`` (quotes stored before it: ``status``)."""
    first = document["compliance"]["providers"][0]
    first.update(status="fail", quote_status="pass")
    _, root = render(document)
    matrix = root.by_id("compliance").find_all("table", "matrix")[0]
    row = next(r for r in matrix.find_all("tr") if r.find_all("td"))
    assert "status-pass" in row.find_all("td")[1].attrs["class"]
    del first["quote_status"]
    _, root = render(document)
    matrix = root.by_id("compliance").find_all("table", "matrix")[0]
    row = next(r for r in matrix.find_all("tr") if r.find_all("td"))
    assert "status-fail" in row.find_all("td")[1].attrs["class"]


def test_a_national_scale_quote_lists_the_first_exclusions_of_each_kind(
    document: dict[str, Any],
) -> None:
    """6,801 exclusions made a 4.8 MB page: every one is counted by why, the first 20 of each
    kind are listed, the rest are named by the command whose JSON holds them all."""
    from comparator.domain.report_bounds import EXCLUDED_PER_KIND

    item = document["plan"]["excluded"][0]

    def page_of(count: int) -> tuple[str, Element]:
        copied = copy.deepcopy(document)
        copied["plan"]["excluded"] = [
            {**item, "offer_id": str(90_000 + i), "kind": "stock" if i % 3 else "network"}
            for i in range(count)
        ]
        return render(copied, "en")

    small, _ = page_of(30)
    html, root = page_of(6_000)
    larger, _ = page_of(60_000)
    assert len(larger) - len(html) < 20 and len(html) < len(small) + 4_000  # only counts grow
    text = root.by_id("excluded").text()
    assert "6000 offers were excluded: short of stock 4000; no network across machines 2000" in text
    listed = {e.attrs.get("class") and e.text() for e in root.by_id("excluded").iter()}
    assert sum(1 for t in listed if t and t.startswith("#9")) == 2 * EXCLUDED_PER_KIND
    unlisted = 6_000 - 2 * EXCLUDED_PER_KIND
    assert f"{unlisted:,} more excluded offers are counted above but not listed" in text
    assert f"suanli quote --show {document['number']} --json, key plan.excluded." in text


def test_snapshot_ids_show_as_runs_and_a_count(document: dict[str, Any]) -> None:
    document["snapshot_ids"] = [str(i) for i in range(1, 10_001) if i != 5000] + ["x-7"]
    _, root = render(document, "en")
    text = root.by_id("assumptions").text()
    assert "10,000 snapshots: 1–4999, 5001–10000, x-7" in text
    document["snapshot_ids"] = [str(i) for i in range(1, 400, 2)]  # 200 runs of one
    _, root = render(document, "en")
    text = root.by_id("assumptions").text()
    assert "200 snapshots: 1, 3, 5" in text and ", 79, further snapshots not listed 160" in text
