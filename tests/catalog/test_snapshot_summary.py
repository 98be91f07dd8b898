"""Every stored snapshot has its summary: per group, the offer count and the cheapest offer
per card, as the market report reads them instead of the offers (docs/market-report.md)."""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import text

from comparator.catalog.db import make_engine
from comparator.catalog.snapshot_summary import GROUP_COLUMNS
from tests.conftest import run_cli


def _rows(engine: Any, query: str) -> list[dict[str, Any]]:
    with engine.connect() as conn:
        return [dict(row) for row in conn.execute(text(query)).mappings()]


def _key(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(
        Decimal(str(row[c]))
        if c == "vat_rate"
        else bool(row[c])
        if c == "tax_inclusive"
        else row[c]
        for c in GROUP_COLUMNS
    )


def test_the_summary_of_each_snapshot_matches_its_offers(
    any_db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(capsys, any_db_url, "init").code == 0  # the demo catalog, imported
    engine = make_engine(any_db_url)
    columns = ", ".join(GROUP_COLUMNS)
    offers = _rows(engine, f"SELECT {columns}, id, price, cards FROM offer")
    summary = _rows(
        engine, f"SELECT {columns}, offers, offer_id, price, cards FROM snapshotsummary"
    )
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    for offer in offers:
        groups[_key(offer)].append(offer)
    assert len(summary) == len(groups) and len(offers) > 50
    for row in summary:
        members = groups[_key(row)]
        cheapest = min(Decimal(str(o["price"])) / o["cards"] for o in members)
        assert row["offers"] == len(members)
        assert Decimal(str(row["price"])) / row["cards"] == cheapest
        assert row["offer_id"] in {o["id"] for o in members}
    per_snapshot = _rows(
        engine,
        "SELECT s.id, s.offers, COALESCE(SUM(g.offers), 0) AS summarised FROM pricesnapshot s"
        " LEFT JOIN snapshotsummary g ON g.snapshot_id = s.id GROUP BY s.id, s.offers",
    )
    assert all(r["offers"] == r["summarised"] for r in per_snapshot)
    engine.dispose()
