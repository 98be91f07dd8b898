"""Utilisation and the memory band in `plan` and the quote (issue 23, item 8): the seeds'
≥ 60 % compute rule and 85–95 % memory band on the best plan, and the shown plan that fits
better with its cost."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from comparator.plan.figures import memory_band

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
LORA = EXAMPLES / "lora-7b-guangdong.toml"
TODAY = "2026-11-29"


@pytest.mark.parametrize(
    ("share", "band"),
    [
        (0.5, "waste"),
        (0.6999, "waste"),
        (0.70, "low"),
        (0.849, "low"),
        (0.85, "healthy"),
        (0.9499, "healthy"),
        (0.95, "high"),
        (0.98, "oom_risk"),
        (None, None),
    ],
)
def test_the_memory_band(share: float | None, band: str | None) -> None:
    assert memory_band(share) == band


def test_plan_and_quote_show_the_band_and_a_better_fit(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    planned = cli("plan", str(LORA), "--json", "--today", TODAY, db=demo_db_url, lang="en")
    assert planned.code == 0, planned.err
    plan = planned.json()["plans"][0]
    best, advice = plan["best"], plan["utilisation"]
    assert advice["memory_share"] == best["figures"]["memory_share"]
    assert advice["memory_band"] == memory_band(best["figures"]["memory_share"])
    assert advice["compute_ok"] == (best["figures"]["compute_share"] >= 0.6)
    better = advice["better"]
    if advice["memory_band"] != "healthy" or not advice["compute_ok"]:
        # the cheapest shown plan in the band, with its own cost and the difference
        fitting = [
            a
            for a in plan["alternatives"]
            if a["figures"]["memory_band"] == "healthy" and a["figures"]["compute_ok"]
        ]
        if fitting:
            cheapest = min(fitting, key=lambda a: Decimal(a["total_cost"]))
            assert better["total_cost"] == cheapest["total_cost"]
            assert Decimal(better["difference"]) == Decimal(cheapest["total_cost"]) - Decimal(
                best["total_cost"]
            )
    else:
        assert better is None

    text = cli("plan", str(LORA), "--today", TODAY, db=demo_db_url, lang="en").out
    flat = " ".join(text.split())
    share = f"{best['figures']['memory_share'] * 100:.0f} %"
    assert f"memory in use {share} of each card (aim 85–95 %" in flat
    if better is not None:
        assert f"a better fit: {better['cards']} × {better['gpu']} at {better['provider']}" in flat

    html = tmp_path / "quote.html"
    quoted = cli("quote", str(LORA), "-o", str(html), "--today", TODAY, db=demo_db_url)
    assert quoted.code == 0, quoted.err
    page = " ".join(html.read_text(encoding="utf-8").split())
    assert f"每卡显存占用 {share}（目标 85–95 %" in page
    if better is not None:
        assert f"更合适的方案：{better['provider']} 的 {better['cards']} × {better['gpu']}" in page
