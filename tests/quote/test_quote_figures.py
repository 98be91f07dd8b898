"""One set of figures from estimate to quote (issue 23, item 4): for every example job on the
demo catalog, the quote's GPU table (卡型算力表), the plan text and `plan --json` give the
same MFU, speed and card-hours per GPU, and the line items add up to them."""

from __future__ import annotations

import math
import re
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from comparator.plan.figures import figure_texts
from tests.support.htmltree import parse_html

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
JOBS = sorted(
    p for p in EXAMPLES.glob("*.toml") if "schedule" in tomllib.loads(p.read_text("utf-8"))
)
TODAY = "2026-11-29"


def _hours(a: str, b: str) -> float:
    from datetime import datetime

    return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds() / 3600


def _check_line_items(plan: dict[str, Any]) -> None:
    """The line items run the billed hours, which are the figures' card-hours over the cards
    rounded up, and the range's expected hours are the figures' compute hours."""
    figures = plan["figures"]
    assert figures["gpu"] == plan["gpu"] and figures["cards"] == plan["cards"]
    assert figures["run_hours"] == plan["work_hours"]
    assert plan["work_hours"] == max(1, math.ceil(plan["card_hours"] / plan["cards"] - 1e-9))
    assert figures["card_hours"] == float(
        Decimal(repr(plan["card_hours"])).quantize(Decimal("0.1"), "ROUND_HALF_UP")
    )
    ran = sum(block_hours for s in plan["segments"] for block_hours in _run_hours(s))
    assert ran - plan["overhead_hours"] == plan["work_hours"] and ran == plan["run_hours"]
    if "work_hours_range" in plan:
        assert plan["work_hours_range"]["expected"] == figures["compute_hours"]
        assert plan["card_hours_range"]["expected"] == figures["card_hours"]


def _run_hours(segment: dict[str, Any]) -> list[float]:
    return [_hours(b["start"], b["end"]) for b in segment["run_blocks"]]


def _html_rows(path: Path) -> list[list[str]]:
    root = parse_html(path.read_text(encoding="utf-8"))
    table = next(e for e in root.iter() if e.tag == "table" and "throughput" in e.attrs["class"])
    rows = [r.find_all("td") for r in table.find_all("tr")]
    return [[cell.text().strip() for cell in row] for row in rows if row]


def _expected_cells(row: dict[str, Any]) -> list[str]:
    text = figure_texts(row)
    return [
        f"{row['gpu']} × {row['cards']}",
        text["bf16_tflops"],
        text["mfu"],
        text["effective_tflops"],
        text["relative"],
        text["tokens_per_s_per_card"],
        text["card_hours"],
        f"{text['compute_hours']} → {row['run_hours']} h",
        text["memory_share"],
        text["compute_share"],
    ]


@pytest.mark.parametrize("job", JOBS, ids=lambda p: p.stem)
def test_quote_plan_text_and_json_give_the_same_figures(
    cli: Any, demo_db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, job: Path
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # table cells on one line each
    planned = cli("plan", str(job), "--json", "--today", TODAY, db=demo_db_url, lang="en")
    assert planned.code == 0, planned.err
    plan = planned.json()["plans"][0]
    shown = [plan["best"], *plan["alternatives"]]
    rows = plan["assumptions"]["throughput"]
    for item in shown:
        _check_line_items(item)
        assert item["figures"] in rows  # the GPU table holds every priced placement

    html = tmp_path / "quote.html"
    quoted = cli("quote", str(job), "-o", str(html), "--json", "--today", TODAY, db=demo_db_url)
    assert quoted.code == 0, quoted.err
    document_plan = quoted.json()["plan"]
    assert [p["figures"] for p in [document_plan["best"], *document_plan["alternatives"]]] == [
        p["figures"] for p in shown
    ]
    assert _html_rows(html) == [_expected_cells(row) for row in rows]

    text = cli("plan", str(job), "--today", TODAY, db=demo_db_url, lang="en")
    assert text.code == 4 or text.code == 0, text.err
    lines = text.out.splitlines()
    for row in rows:
        cells = _expected_cells(row)
        assert any(all(cell in line for cell in cells) for line in lines), cells
    best = figure_texts(plan["best"]["figures"])
    summary = f"MFU {best['mfu']} · Tokens/s per card {best['tokens_per_s_per_card']}"
    assert summary in text.out
    assert re.search(
        rf"Card-hours {re.escape(best['card_hours'])} · .* {re.escape(best['compute_hours'])} "
        rf"→ {plan['best']['work_hours']} h",
        text.out,
    )
