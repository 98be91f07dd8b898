"""An import's sheets parsed in a child process (comparator/refresh/parse_process.py).

The child is used for large imports only (``PROCESS_MIN_BYTES``); here it is lowered to 0 so
that small real sheets go through the child, and each result is compared with the same
import parsed on a thread (the path small imports take).
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from comparator.catalog.db import make_engine, upgrade_schema
from comparator.config import load_settings
from comparator.errors import SheetError
from comparator.refresh import parse_process
from comparator.refresh.importer import import_files
from comparator.refresh.parse_process import ParsedInChild, worth_a_process
from tests.support.refresh_helpers import profile_toml

ZONE = load_settings({}).timezone


def _pid_of(path: Path) -> tuple[int, str]:
    return os.getpid(), path.name


def test_the_child_parses_every_sheet_in_order_and_brings_its_warnings(tmp_path: Path) -> None:
    paths = [tmp_path / f"s{i}.csv" for i in range(3)]
    warnings: list[str] = []

    def parse(path: Path) -> tuple[int, str]:
        warnings.append(f"seen {path.name}")
        return _pid_of(path)

    parsed = ParsedInChild(paths, parse, warnings)
    try:
        got = [parsed.next_sheet() for _ in range(4)]
    finally:
        parsed.close()
    assert got[3] is None
    assert [(path, name) for path, (_, name) in got[:3]] == [(p, p.name) for p in paths]  # type: ignore[misc]
    assert {pid for _, (pid, _) in got[:3]} != {os.getpid()}  # type: ignore[misc]
    assert warnings == ["seen s0.csv", "seen s1.csv", "seen s2.csv"]


def test_a_sheet_the_child_cannot_parse_is_parsed_here_with_its_own_error(tmp_path: Path) -> None:
    """The error is raised here as parse raises it (not a pickled copy); a sheet that only
    the child failed on is parsed here, and so is every sheet after it."""
    parent = os.getpid()
    paths = [tmp_path / name for name in ("a.csv", "only-child-fails.csv", "c.csv", "bad.csv")]

    def parse(path: Path) -> tuple[int, str]:
        if path.name == "bad.csv":
            raise SheetError(str(path), [])
        if path.name == "only-child-fails.csv" and os.getpid() != parent:
            raise MemoryError
        return _pid_of(path)

    parsed = ParsedInChild(paths, parse, [])
    try:
        first, second, third = (parsed.next_sheet() for _ in range(3))
        with pytest.raises(SheetError, match=r"bad\.csv: 0 bad row"):
            parsed.next_sheet()
    finally:
        parsed.close()
    assert first is not None and first[1][0] != parent
    assert second == (paths[1], (parent, "only-child-fails.csv"))
    assert third == (paths[2], (parent, "c.csv"))


def test_a_killed_child_leaves_the_sheets_to_this_process(tmp_path: Path) -> None:
    paths = [tmp_path / f"s{i}.csv" for i in range(3)]
    parent = os.getpid()

    def parse(path: Path) -> tuple[int, str]:
        if path.name != "s0.csv" and os.getpid() != parent:
            time.sleep(60)  # the child is killed while it parses the second sheet
        return _pid_of(path)

    parsed = ParsedInChild(paths, parse, [])
    try:
        first = parsed.next_sheet()
        os.kill(parsed._child.pid, signal.SIGKILL)
        rest = [parsed.next_sheet(), parsed.next_sheet(), parsed.next_sheet()]
    finally:
        parsed.close()
    assert first is not None and rest[2] is None
    assert [name for _, (_, name) in rest[:2]] == ["s1.csv", "s2.csv"]  # type: ignore[misc]
    assert rest[1] == (paths[2], (os.getpid(), "s2.csv"))


def test_only_two_sheets_or_more_of_enough_bytes_are_worth_a_child(tmp_path: Path) -> None:
    small, big = tmp_path / "small.csv", tmp_path / "big.csv"
    small.write_text("x" * 10, encoding="utf-8")
    big.write_text("x" * parse_process.PROCESS_MIN_BYTES, encoding="utf-8")
    assert not worth_a_process([big])
    assert not worth_a_process([small, small])
    assert worth_a_process([small, big])


def _catalog(url: str, tmp_path: Path) -> tuple[Engine, list[Path]]:
    engine = make_engine(url)
    upgrade_schema(engine)
    profiles = []
    for name in ("a", "b"):
        path = tmp_path / f"{name}.toml"
        path.write_text(profile_toml(name), encoding="utf-8")
        profiles.append(path)
    return engine, profiles


def _sheet(path: Path, provider: str, prices: list[str], extra: str = "") -> Path:
    head = "provider,region,gpu,cards,billing,price,currency" + (",note" if extra else "")
    rows = [
        f"{provider},sg-1,H100,{cards},hourly,{price},USD" + (f",{extra}" if extra else "")
        for cards, price in enumerate(prices, 1)
    ]
    path.write_text("\n".join([head, *rows]) + "\n", encoding="utf-8")
    return path


def _stored(engine: Engine) -> list[tuple[str, ...]]:
    """Every offer and summary row as text, without ids (the same import gives the same
    rows; PostgreSQL's NUMERIC and SQLite's text print alike)."""
    with engine.connect() as conn:
        offers = conn.execute(
            text(
                "SELECT provider, region, gpu, cards, billing, price, currency, source "
                "FROM offer ORDER BY provider, cards"
            )
        ).all()
        summary = conn.execute(
            text(
                "SELECT provider, gpu, billing, region, offers, cards, price "
                "FROM snapshotsummary ORDER BY provider, gpu, billing, region"
            )
        ).all()
    return [tuple(str(v) for v in r) for r in [*offers, *summary]]


def test_an_import_parsed_in_the_child_stores_what_a_thread_stores(
    any_db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, profiles = _catalog(any_db_url, tmp_path)
    sheets = [
        _sheet(tmp_path / "one.csv", "a", ["2.5", "3.10", "1.25"], extra="x"),
        _sheet(tmp_path / "two.csv", "b", ["7", "6.5"]),
    ]
    monkeypatch.setattr(parse_process, "PROCESS_MIN_BYTES", 0)
    in_child = import_files(engine, sheets, profiles, timezone=ZONE)
    stored_by_child = _stored(engine)
    engine.dispose()

    monkeypatch.setattr(parse_process, "PROCESS_MIN_BYTES", 1 << 40)
    other, _ = _catalog(f"sqlite:///{tmp_path / 'thread.db'}", tmp_path)
    on_thread = import_files(other, sheets, profiles, timezone=ZONE)
    assert stored_by_child == _stored(other)
    other.dispose()
    summary = [(f, r.provider, r.status, r.offers) for f, r in in_child.snapshots]
    assert summary == [("one.csv", "a", "succeeded", 3), ("two.csv", "b", "succeeded", 2)]
    assert [str(w) for w in in_child.warnings] == [str(w) for w in on_thread.warnings]
    assert any("ignored column" in str(w) for w in in_child.warnings)


@pytest.mark.parametrize("bad_first", [False, True])  # the first sheet is parsed here
def test_a_bad_sheet_parsed_in_the_child_leaves_nothing(
    any_db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad_first: bool
) -> None:
    engine, profiles = _catalog(any_db_url, tmp_path)
    good = _sheet(tmp_path / "good.csv", "a", ["2.5", "3"])
    bad = _sheet(tmp_path / "bad.csv", "b", ["7", "seven"])
    monkeypatch.setattr(parse_process, "PROCESS_MIN_BYTES", 0)
    with pytest.raises(SheetError) as raised:
        import_files(engine, [bad, good] if bad_first else [good, bad], profiles, timezone=ZONE)
    assert "bad.csv: 1 bad row(s), nothing imported" in str(raised.value)
    assert "row 3, column price" in str(raised.value)
    with engine.connect() as conn:
        counts = [
            conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one()
            for table in (
                "provider",
                "pricesnapshot",
                "currentsnapshot",
                "offer",
                "snapshotsummary",
            )
        ]
    assert counts == [0, 0, 0, 0, 0]
    engine.dispose()
