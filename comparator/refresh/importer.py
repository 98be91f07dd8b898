"""`suanli import` and `suanli init --demo`: profiles and price sheets from files into the catalog.

Every file is read and validated before anything is written; then the profiles and all the
sheets' snapshots are written in one transaction that takes the write lock first (a bounded
wait), so concurrent imports queue instead of failing, and an import that fails writes nothing.
Identical concurrent imports make one snapshot: the second finds the first's content current.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import Engine
from sqlalchemy.exc import DataError, OperationalError, StatementError

from comparator.catalog.bulk import (
    ANALYZE_AFTER_ROWS,
    SheetGroups,
    analyze_catalog,
    group_sheet,
    store_groups_in,
    with_copy_lines,
)
from comparator.catalog.db import write_transaction
from comparator.catalog.models import OfferColumns
from comparator.catalog.queries import SnapshotResult, known_regions, utc_now
from comparator.domain.profile import ProviderProfile, load_profile
from comparator.errors import InputError, Msg, MsgList, os_reason
from comparator.refresh.pipeline import SheetStore, store_while_parsing
from providers import KnownCatalog, parse_sheet_columns, read_sheet_file

DEMO_DIR = Path(__file__).resolve().parents[2] / "providers" / "demo"
SHEET_SUFFIXES = (".csv", ".tsv", ".xlsx", ".xlsm", ".json")


@dataclass(frozen=True)
class ImportResult:
    profiles: Sequence[tuple[str, str]]  # (provider id, created|updated|unchanged)
    snapshots: Sequence[tuple[str, SnapshotResult]]  # (file, result)
    warnings: Sequence[Msg] = ()  # what the sheets have that import ignores

    def to_json(self) -> dict[str, object]:
        return {
            "warnings": [str(w) for w in self.warnings],
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
            raise InputError(
                "{path}: no such file",
                path=path,
                hint=Msg(
                    "give the path of an existing price sheet (.csv, .xlsx, .json) or profile (.toml)"
                ),
            )
    return result


def split_files(files: Sequence[Path]) -> tuple[list[Path], list[Path]]:
    """TOML files are profiles, the others price sheets; unknown suffixes are an error."""
    profiles = [f for f in files if f.suffix.lower() == ".toml"]
    sheets = [f for f in files if f.suffix.lower() != ".toml"]
    for sheet in sheets:
        if sheet.suffix.lower() not in SHEET_SUFFIXES:
            raise InputError(
                "{sheet}: expected a price sheet (.csv, .xlsx, .json) or a profile (.toml)",
                sheet=sheet,
                hint=Msg("name a sheet .csv, .xlsx or .json and a provider profile .toml"),
            )
    return profiles, sheets


class RemovesOffersError(InputError):
    """A sheet that would drop offers from a provider's current snapshot, without --replace.

    ``removals`` holds ``(file, provider, offers before, offers in the sheet, offers gone)``.
    """

    def __init__(self, removals: Sequence[tuple[str, str, int, int, int]]) -> None:
        self.removals = list(removals)
        lines = [
            Msg(
                "{file} → {provider}: {before} → {after} offers ({gone} gone)",
                file=f,
                provider=p,
                before=before,
                after=after,
                gone=gone,
            )
            for f, p, before, after, gone in removals
        ]
        super().__init__(
            "importing would remove offers from the current snapshot: {removals}",
            hint=Msg(
                "a sheet is the provider's whole price list; pass --replace to import it "
                "anyway (the removed offers stay in `suanli history`)"
            ),
            removals=MsgList(lines),
        )


def import_files(
    engine: Engine,
    sheets: Sequence[Path],
    profiles: Sequence[Path],
    *,
    timezone: ZoneInfo,
    decimal: str | None = None,
    replace: bool = False,
) -> ImportResult:
    """Import profiles, then sheets: every file is checked before anything is written.

    A sheet is a provider's whole price list: offers of the current snapshot that it lacks are
    gone afterwards. Unless ``replace`` is true, such a sheet is refused with the count
    (``15 → 1 offers (14 gone)``) before anything, profiles included, is written.
    """
    parsed_profiles = [load_profile(p) for p in _existing(profiles)]
    sheet_paths = _existing(sheets)
    warnings: list[Msg] = []
    known = KnownCatalog(_with_profiles(known_regions(engine), parsed_profiles))

    def parse(path: Path) -> SheetGroups:  # beside the writer (a thread or a child process)
        groups = group_sheet(_parse(path, known, timezone, decimal, warnings))
        return with_copy_lines(engine.dialect, groups)

    try:
        written = store_while_parsing(
            SheetStore(engine, parsed_profiles, replace), sheet_paths, parse, warnings
        )
    except (DataError, StatementError) as exc:  # a value the checks let through: still a message
        if isinstance(exc, OperationalError):
            raise
        names = ", ".join(str(p) for p in [*profiles, *sheet_paths])
        reason = str(getattr(exc, "orig", exc)).splitlines()[0][:200]
        raise InputError(
            "{names}: the database refused a value ({reason}); nothing imported",
            names=names,
            reason=reason,
            hint=Msg(
                "fix the value named and import again (README, section Price sheets, gives each column's range)"
            ),
        ) from None
    if written.removals:
        raise RemovesOffersError(written.removals)
    stored = sum(r.offers for _, r in written.snapshots if r.status == "succeeded")
    if stored >= ANALYZE_AFTER_ROWS:
        analyze_catalog(engine)
    return ImportResult(written.profiles, written.snapshots, warnings)


def _with_profiles(
    regions: dict[str, dict[str, str]], profiles: Sequence[ProviderProfile]
) -> dict[str, dict[str, str]]:
    """The stored data centres, with those of the profiles about to be stored."""
    merged = {pid: dict(names) for pid, names in regions.items()}
    for profile in profiles:
        names: dict[str, str] = {}
        for dc in profile.datacenters:  # as known_regions reads them back once stored
            if dc.name:
                names.setdefault(dc.name, dc.id)
            names[dc.id] = dc.id
        merged[profile.id] = names
    return merged


def _parse(
    path: Path,
    known: KnownCatalog,
    timezone: ZoneInfo,
    decimal: str | None,
    warnings: list[Msg],
) -> OfferColumns:
    try:
        content = read_sheet_file(path)  # no further than the sheet limit
    except OSError as exc:
        raise InputError(
            "{path}: cannot read the sheet ({reason})",
            path=path,
            reason=os_reason(exc),
            hint=Msg(
                "check that the file can be read (its permissions, and that no program holds it locked)"
            ),
        ) from None
    return parse_sheet_columns(
        content, str(path), known, timezone=timezone, decimal=decimal, warnings=warnings
    )


def store_sheet(engine: Engine, offers: OfferColumns, source: str) -> list[SnapshotResult]:
    """One snapshot per provider of the sheet, all in one transaction."""
    groups = with_copy_lines(engine.dialect, group_sheet(offers))
    with write_transaction(engine, *(f"provider:{pid}" for pid in groups.providers)) as conn:
        return store_groups_in(conn, groups, source=source, fetched_at=utc_now())


def demo_files(directory: Path = DEMO_DIR) -> tuple[list[Path], list[Path]]:
    """The bundled demo catalog: (sheets, profiles)."""
    profiles = sorted(directory.glob("*.toml"))
    sheets = sorted(p for p in directory.iterdir() if p.suffix.lower() in SHEET_SUFFIXES)
    return sheets, profiles


def load_demo(engine: Engine, *, timezone: ZoneInfo) -> ImportResult:
    sheets, profiles = demo_files()
    return import_files(engine, sheets, profiles, timezone=timezone, replace=True)
