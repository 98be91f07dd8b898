"""`suanli import` and `suanli init --demo`: profiles and price sheets from files into the catalog.

Profiles are stored first, then sheets. A sheet is validated whole before anything is written,
and all of its providers' snapshots are written in one transaction.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import Engine

from comparator.catalog.bulk import ANALYZE_AFTER_ROWS, analyze_catalog, store_snapshots_in
from comparator.catalog.models import OfferColumns
from comparator.catalog.queries import (
    SnapshotResult,
    known_regions,
    store_profile,
    utc_now,
)
from comparator.domain.profile import load_profile
from comparator.errors import InputError
from providers.sheet.parse import KnownCatalog, parse_sheet_columns

DEMO_DIR = Path(__file__).resolve().parents[2] / "providers" / "demo"
SHEET_SUFFIXES = (".csv", ".tsv", ".xlsx", ".xlsm", ".json")


@dataclass(frozen=True)
class ImportResult:
    profiles: Sequence[tuple[str, str]]  # (provider id, created|updated|unchanged)
    snapshots: Sequence[tuple[str, SnapshotResult]]  # (file, result)

    def to_json(self) -> dict[str, object]:
        return {
            "profiles": [{"provider": pid, "status": status} for pid, status in self.profiles],
            "snapshots": [
                {
                    "file": name,
                    "provider": r.provider,
                    "status": r.status,
                    "snapshot_id": str(r.snapshot_id),
                    "offers": r.offers,
                }
                for name, r in self.snapshots
            ],
        }


def _existing(paths: Iterable[Path]) -> list[Path]:
    result = list(paths)
    for path in result:
        if not path.is_file():
            raise InputError(f"{path}: no such file")
    return result


def split_files(files: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """TOML files are profiles, the others price sheets; unknown suffixes are an error."""
    profiles = [f for f in files if f.suffix.lower() == ".toml"]
    sheets = [f for f in files if f.suffix.lower() != ".toml"]
    for sheet in sheets:
        if sheet.suffix.lower() not in SHEET_SUFFIXES:
            raise InputError(
                f"{sheet}: expected a price sheet (.csv, .xlsx, .json) or a profile (.toml)"
            )
    return profiles, sheets


def import_files(
    engine: Engine, sheets: Sequence[Path], profiles: Sequence[Path], *, timezone: ZoneInfo
) -> ImportResult:
    """Import profiles, then sheets. Every file is checked before the first write of its kind."""
    parsed_profiles = [load_profile(p) for p in _existing(profiles)]
    sheet_paths = _existing(sheets)
    profile_results = [(p.id, store_profile(engine, p)) for p in parsed_profiles]
    known = KnownCatalog(known_regions(engine))
    parsed = [(path, _parse(path, known, timezone)) for path in sheet_paths]
    snapshot_results = [
        (path.name, r) for path, offers in parsed for r in store_sheet(engine, offers, path.name)
    ]
    if sum(r.offers for _, r in snapshot_results if r.status == "succeeded") >= ANALYZE_AFTER_ROWS:
        analyze_catalog(engine)
    return ImportResult(profile_results, snapshot_results)


def _parse(path: Path, known: KnownCatalog, timezone: ZoneInfo) -> OfferColumns:
    return parse_sheet_columns(path.read_bytes(), str(path), known, timezone=timezone)


def store_sheet(engine: Engine, offers: OfferColumns, source: str) -> list[SnapshotResult]:
    """One snapshot per provider of the sheet, all in one transaction."""
    fetched_at = utc_now()
    with engine.begin() as conn:
        return store_snapshots_in(conn, offers.by_provider(), source=source, fetched_at=fetched_at)


def demo_files(directory: Path = DEMO_DIR) -> tuple[list[Path], list[Path]]:
    """The bundled demo catalog: (sheets, profiles)."""
    profiles = sorted(directory.glob("*.toml"))
    sheets = sorted(p for p in directory.iterdir() if p.suffix.lower() in SHEET_SUFFIXES)
    return sheets, profiles


def load_demo(engine: Engine, *, timezone: ZoneInfo) -> ImportResult:
    sheets, profiles = demo_files()
    return import_files(engine, sheets, profiles, timezone=timezone)
