"""An import COPYs each provider's offers in the order of ``ix_offer_snapshot_region_gpu``
(catalog/copy_order.py), so that the index's build after the rows finds its input sorted;
the offers' ids still follow the sheet's rows."""

from __future__ import annotations

import random
from pathlib import Path

from sqlalchemy import text

from comparator.catalog.copy_order import INDEX_COLUMNS
from comparator.catalog.db import make_engine, upgrade_schema
from comparator.config import load_settings
from comparator.refresh.importer import import_files

REGIONS = ("sg-2", "sg-1", "hk-1")
GPUS = ("L40S", "H100", "4090", "A100 80G")
BILLING = ("hourly", "daily", "monthly")


def _profile(provider: str) -> str:
    centres = "".join(
        f'[[datacenters]]\nid = "{region}"\nname = "Centre {region}"\n\n' for region in REGIONS
    )
    return f'[provider]\nid = "{provider}"\nname = "{provider} cloud"\ncountry = "SG"\n\n{centres}'


def _sheet(path: Path, rows: int) -> list[tuple[str, str]]:
    """A sheet of two providers' offers in shuffled order; (provider, sku) of each row."""
    rng = random.Random(26)
    lines, written = ["provider,region,gpu,cards,billing,price,currency,sku"], []
    for i in range(rows):
        provider, sku = rng.choice(("zeta", "alpha")), f"vm-{rows - i:04d}"
        lines.append(
            f"{provider},{rng.choice(REGIONS)},{rng.choice(GPUS)},{rng.choice((1, 8, 2))},"
            f"{rng.choice(BILLING)},{rng.randint(100, 999) / 10},USD,{sku}"
        )
        written.append((provider, sku))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return written


def test_offers_are_stored_in_the_index_order_with_ids_in_the_sheet_order(
    pg_url: str, tmp_path: Path
) -> None:
    engine = make_engine(pg_url)
    upgrade_schema(engine)
    profiles = []
    for provider in ("alpha", "zeta"):
        profiles.append(tmp_path / f"{provider}.toml")
        profiles[-1].write_text(_profile(provider), encoding="utf-8")
    sheet = tmp_path / "sheet.csv"
    written = _sheet(sheet, 400)
    import_files(engine, [sheet], profiles, timezone=load_settings({}).timezone)
    key = ", ".join(("snapshot_id", *INDEX_COLUMNS))
    with engine.connect() as conn:
        out_of_order = conn.execute(
            text(
                f"SELECT count(*) FROM (SELECT ROW({key}) < lag(ROW({key})) OVER (ORDER BY ctid)"
                " AS back FROM offer) AS pairs WHERE back"
            )
        ).scalar_one()
        moved = conn.execute(  # the table's order is not the ids' (the sheet's) one
            text(
                "SELECT count(*) FROM (SELECT id < lag(id) OVER (ORDER BY ctid) AS back FROM offer) AS p WHERE back"
            )
        ).scalar_one()
        by_id = conn.execute(text("SELECT provider, sku FROM offer ORDER BY id")).all()
    assert out_of_order == 0
    assert moved > 0
    # ids follow the sheet's rows, provider by provider (alpha's snapshot first)
    assert [tuple(row) for row in by_id] == sorted(written, key=lambda row: row[0] == "zeta")
