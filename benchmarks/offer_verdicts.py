"""How long `suanli offers` spends judging the listed offers under the default policy.

Each provider is checked once (its own checks, the service facts, each data centre's) and every
offer then reads its data centre's verdict (``evaluate_offers``). Prints seconds for P providers
× D data centres × N offers each, the pure core only (no database).
Run:  .venv/bin/python benchmarks/offer_verdicts.py [--providers 200] [--offers 500]
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from comparator.compliance import evaluate_offers  # noqa: E402
from comparator.domain.offer_view import OfferView  # noqa: E402
from comparator.domain.profile import load_profile  # noqa: E402

PROFILE = REPO / "tests" / "data" / "profiles" / "northsouth.toml"
SHANGHAI = ZoneInfo("Asia/Shanghai")


def offers_of(provider: str, regions: list[str], count: int) -> list[OfferView]:
    return [
        OfferView(
            offer_id=f"{provider}-{i}",
            snapshot_id="1",
            provider=provider,
            provider_name=provider,
            region=regions[i % len(regions)],
            region_name="",
            country="CN",
            province="广东",
            city="广州",
            mainland=True,
            gpu="A100-SXM4-80GB",
            cards=8,
            node_cards=8,
            billing="hourly",
            price=Decimal(60 + i % 7),
            currency="CNY",
            time_of_use="",
            stock=None,
            min_units=1,
            interconnect="nvlink",
            network="ib-200g",
            tax_inclusive=True,
            vat_rate=Decimal("0.06"),
            observed_at=datetime(2026, 11, 25, 10, minute=i % 60, tzinfo=SHANGHAI),
            source="bench",
        )
        for i in range(count)
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--providers", type=int, default=200)
    parser.add_argument("--offers", type=int, default=500, help="offers per provider")
    args = parser.parse_args()
    base = load_profile(PROFILE)
    regions = [dc.id for dc in base.datacenters]
    profiles = {f"p{k}": dataclasses.replace(base, id=f"p{k}") for k in range(args.providers)}
    offers = [o for pid in profiles for o in offers_of(pid, regions, args.offers)]
    began = time.perf_counter()
    judged = evaluate_offers(offers, profiles, None, today=date(2026, 11, 29))
    seconds = time.perf_counter() - began
    print(
        f"{len(offers):,} offers of {len(profiles)} providers × {len(regions)} data centres: "
        f"{seconds:.2f} s ({len(judged.eligible):,} eligible, {len(judged.excluded):,} excluded)"
    )


if __name__ == "__main__":
    main()
