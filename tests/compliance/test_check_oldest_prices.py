"""`suanli check` judges rule 9 on the oldest price of each data centre, which the catalog
reads with one row per place (issue 29): the reports are those judged on every offer."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

from comparator.compliance import check_providers
from comparator.domain.profile import load_profile
from tests.support.factories import offer_view

DATA = Path(__file__).resolve().parents[1] / "data" / "profiles"
TODAY = date(2026, 11, 29)


def test_oldest_prices_give_the_reports_of_every_offer() -> None:
    profiles = [load_profile(DATA / "northsouth.toml"), load_profile(DATA / "acme.toml")]
    start = datetime.fromisoformat("2026-09-01T10:00:00+08:00")
    offers = [
        offer_view(
            offer_id=str(i),
            provider=profiles[i % 2].id,
            region=profiles[i % 2].datacenters[i % len(profiles[i % 2].datacenters)].id,
            observed_at=start + timedelta(days=7 * (i % 11)),
        )
        for i in range(60)
    ]
    oldest: dict[tuple[str, str], datetime] = {}
    for o in offers:
        place = (o.provider, o.region)
        oldest[place] = min(oldest.get(place, o.observed_at), o.observed_at)
    by_offer = check_providers(profiles, None, today=TODAY, offers=offers)
    by_place = check_providers(profiles, None, today=TODAY, oldest_prices=oldest)
    assert by_place == by_offer
    fresh = [c.status for r in by_offer for d in r.datacenters for c in d.checks]
    assert "warn" in fresh and "pass" in fresh  # some places old, some fresh
    assert any(c.id == "price-freshness" for r in by_place for d in r.datacenters for c in d.checks)
