"""A card count beyond any offer is an error naming `[workload] cards` (or `--cards`) with the
largest count and a hint, exit 1 (2 for the flag); a count some offer carries but cannot rent
now stays the stock diagnosis, exit 4 (README, "Sane values")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

JOB = """name = "big"
[workload]
gpu = "H100"
card_hours = 5000
cards = {cards}
[schedule]
earliest_start = 2026-12-01T00:00:00+08:00
deadline = 2026-12-20T00:00:00+08:00
"""


def _job(tmp_path: Path, cards: int) -> str:
    path = tmp_path / f"cards-{cards}.toml"
    path.write_text(JOB.format(cards=cards), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("cards", [65, 1000])
def test_more_cards_than_any_demo_offer_rents_is_an_error(
    cli: Any, demo_db_url: str, tmp_path: Path, cards: int
) -> None:
    """The demo catalog's largest: 8 RoCE nodes of 8 Ascend 910B (demo-caoyuan, stock 8)."""
    result = cli("plan", _job(tmp_path, cards), "--today", "2026-12-01", db=demo_db_url, lang="en")
    assert result.code == 1, (result.out, result.err)
    error, hint = result.err.strip().splitlines()
    assert f"[workload] cards = {cards}" in error and "the most is 64" in error
    assert "demo-caoyuan/nm-wlcb-1" in error
    assert hint.startswith("hint: set [workload] cards to 64 or fewer")
    assert "`suanli offers --gpu Ascend-910B`" in hint
    zh = cli("plan", _job(tmp_path, cards), "--today", "2026-12-01", db=demo_db_url, lang="zh")
    assert zh.code == 1 and "[workload] cards" in zh.err and "最多为 64" in zh.err


def test_a_count_an_offer_carries_but_cannot_rent_now_stays_stock(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    """64 cards: only the non-compliant demo-caoyuan rents 64; the others lack stock."""
    result = cli(
        "plan", _job(tmp_path, 64), "--today", "2026-12-01", "--json", db=demo_db_url, lang="en"
    )
    assert result.code == 4, result.err
    plan = result.json()["plans"][0]
    assert plan["binding"] == "stock" and "64 cards need 8 units" in plan["message"]


def test_quote_refuses_it_before_a_quote_is_written(
    cli: Any, demo_db_url: str, tmp_path: Path
) -> None:
    out = tmp_path / "q.html"
    job = _job(tmp_path, 1000)
    result = cli("quote", job, "--today", "2026-12-01", "-o", str(out), db=demo_db_url, lang="en")
    assert result.code == 1 and "[workload] cards = 1000" in result.err
    assert not out.exists()


def test_estimate_cards_beyond_any_placement_names_the_flag(cli: Any) -> None:
    result = cli("estimate", "--model", "7B", "--cards", "20000", lang="en")
    assert result.code == 2
    error, hint = result.err.strip().splitlines()
    assert error.startswith("error: --cards 20000 cards: more than any placement offers")
    assert "at most 16,384" in error
    assert hint == (
        "hint: give at most 16,384 cards, or leave the count out: the estimate finds the "
        "fewest cards that fit"
    )
