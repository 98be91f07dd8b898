"""The group table built in two halves: on SQLite the second by a child process
(docs/planner-pruning.md, "Sixth round: the quote's wall"), on PostgreSQL on a second
connection, copied in ("Tenth round").

The quotes are those of the table built whole (the same ``--json`` output but the quote
number); an error of the child reaches the user as the same error in the parent would; and
nothing is left behind: no child process, no file, no thread, no connection checked out.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import literal_column
from sqlalchemy.exc import OperationalError, ProgrammingError

import comparator.catalog.group_halves as group_halves
import comparator.catalog.group_stream as group_stream
import comparator.catalog.queries_groups as queries_groups
from comparator.catalog.db import make_engine
from comparator.catalog.group_table import GROUPS
from comparator.catalog.queries_groups import CatalogGroups
from comparator.domain.job import load_job
from comparator.domain.offer_source import GroupPricing
from comparator.plan.prune.sql_prefilter import job_offer_filter
from comparator.plan.prune.streamed import contract_runs, most_runs
from tests.conftest import run_cli
from tests.plan.test_plan_group_stream import group_pricing
from tests.plan.test_plan_prune import CONTEXT

JOBS = [
    "lora-7b-guangdong",
    "storage-upload-windows",
    "seeds-13b-full-8xa100",
    "70b-full-multinode",
]
QUOTE = ("--today", "2026-11-29", "--json")


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The temporary folder the halves' files go to, watched by the test."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setattr(queries_groups, "a_core_idle", lambda: True)  # whatever the load
    return folder


def _quote(capsys: pytest.CaptureFixture[str], url: str, job: str) -> tuple[int, Any, str]:
    result = run_cli(capsys, url, "--lang", "en", "quote", f"examples/{job}.toml", *QUOTE)
    if result.code != 0:
        return result.code, None, result.err
    out = result.json()
    out.pop("quote")
    return result.code, out, result.err


def _nothing_left(folder: Path) -> None:
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)
    assert list(folder.iterdir()) == []
    assert threading.active_count() == 1


@pytest.mark.slow
def test_quotes_from_halves_equal_quotes_from_the_whole_table(
    capsys: pytest.CaptureFixture[str],
    demo_db_url: str,
    private_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The four example jobs: the same ``--json`` output (but the quote number) with the
    table built whole and in halves, and nothing of the halves left after."""
    for job in JOBS:
        monkeypatch.setattr(queries_groups, "SPLIT_PROVIDERS", 10**9)
        whole = _quote(capsys, demo_db_url, job)
        monkeypatch.setattr(queries_groups, "SPLIT_PROVIDERS", 2)
        halves = _quote(capsys, demo_db_url, job)
        assert halves == whole, job
        _nothing_left(private_tmp)


def _counted(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """A call counted for each build of ``group_halves.<name>``."""
    build = getattr(group_halves, name)
    calls: list[int] = []

    def counted(*args: Any) -> list[Any]:
        calls.append(1)
        return build(*args)  # type: ignore[no-any-return]

    monkeypatch.setattr(group_halves, name, counted)
    return calls


def _built_both_ways(
    engine: Any, job_name: str, monkeypatch: pytest.MonkeyPatch, rows_of: Any
) -> tuple[Any, Any]:
    """The job's group table built whole, then in halves: (``rows_of`` its rows, its shapes,
    providers and rule 8's counts) each time; each stream closed."""
    source = CatalogGroups(engine)
    job = load_job(f"examples/{job_name}.toml")
    wanted = job_offer_filter(job)
    pricing = group_pricing(source, job, wanted)
    built = []
    for split in (10**9, 2):
        monkeypatch.setattr(queries_groups, "SPLIT_PROVIDERS", split)
        stream = source.group_stream(wanted, pricing)
        try:
            rows = rows_of(stream.conn.execute(GROUPS.select()).all())
            built.append((rows, stream.shapes(), stream.providers(), stream.unfit()))
        finally:
            stream.close()
    return built[0], built[1]


@pytest.mark.slow
def test_the_halves_hold_the_rows_of_the_whole_table(
    demo_db_url: str, private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Row for row (in the table's order per provider, which ``at`` reads), shapes,
    providers and rule 8's counts; the connection given back on close."""
    engine = make_engine(demo_db_url)
    calls = _counted(monkeypatch, "build_halves")

    def by_provider(rows: list[Any]) -> dict[str, list[Any]]:
        found: dict[str, list[Any]] = {}
        for row in rows:
            found.setdefault(row[0], []).append(tuple(row))
        return found

    for name in JOBS:
        whole, halves = _built_both_ways(engine, name, monkeypatch, by_provider)
        assert whole == halves, name
        assert len(calls) == JOBS.index(name) + 1, "the second was built in halves"
        assert len(whole[2]) >= 2, "both halves hold providers"
        assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]
        _nothing_left(private_tmp)
    engine.dispose()


def _locked(*_: Any, **__: Any) -> None:
    raise OperationalError("CREATE TABLE", {}, sqlite3.OperationalError("database is locked"))


@pytest.mark.slow
def test_an_error_of_the_child_reaches_the_user_as_in_the_parent(
    capsys: pytest.CaptureFixture[str],
    demo_db_url: str,
    private_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The child's error is raised in the parent: the command fails with the same message
    and status as when the same error stops the whole table's statement."""
    monkeypatch.setattr(queries_groups, "SPLIT_PROVIDERS", 10**9)
    monkeypatch.setattr(group_stream, "hash_aggregates", _locked)  # before the whole table
    code, _, whole = _quote(capsys, demo_db_url, JOBS[0])
    monkeypatch.undo()
    monkeypatch.setattr(tempfile, "tempdir", str(private_tmp))
    monkeypatch.setattr(queries_groups, "a_core_idle", lambda: True)
    monkeypatch.setattr(queries_groups, "SPLIT_PROVIDERS", 2)
    monkeypatch.setattr(group_halves._Half, "_build", _locked)  # in the child
    code_halves, _, halves = _quote(capsys, demo_db_url, JOBS[0])
    assert code != 0 and "locked" in whole, whole
    assert (code_halves, halves) == (code, whole)
    _nothing_left(private_tmp)


@pytest.mark.slow
def test_an_error_of_the_parent_stops_the_child(
    demo_db_url: str, private_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first half fails: its error is raised, the child is ended and waited for, its
    file removed, the connection given back."""
    monkeypatch.setattr(queries_groups, "SPLIT_PROVIDERS", 2)
    monkeypatch.setattr(CatalogGroups, "_halves", _broken(0))
    engine = make_engine(demo_db_url)
    with pytest.raises(OperationalError, match="no_such_column"):
        CatalogGroups(engine).group_stream(*_first_job())
    assert engine.pool.checkedout() == 0  # type: ignore[attr-defined]
    _nothing_left(private_tmp)
    engine.dispose()


def test_a_busy_machine_builds_the_table_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every core busy: no halves (they would only add their CPU)."""
    monkeypatch.setattr(os, "getloadavg", lambda: (2.0, 2.0, 2.0))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert not queries_groups.a_core_idle()
    engine = make_engine("sqlite://")
    assert CatalogGroups(engine)._halves(None) is None  # type: ignore[arg-type]
    monkeypatch.setattr(os, "getloadavg", lambda: (1.2, 2.0, 2.0))
    assert queries_groups.a_core_idle()


@pytest.fixture
def pg_demo_url(
    capsys: pytest.CaptureFixture[str], pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> str:
    """The demo catalog on PostgreSQL, its group tables built in halves whatever the load."""
    result = run_cli(capsys, pg_url, "init")
    assert result.code == 0, result.err
    monkeypatch.setattr(queries_groups, "a_core_idle", lambda: True)
    return pg_url


def _no_thread_left(engine: Any = None) -> None:
    assert threading.active_count() == 1
    if engine is not None:
        assert engine.pool.checkedout() == 0


@pytest.mark.slow
def test_postgresql_quotes_from_halves_equal_quotes_from_the_whole_table(
    capsys: pytest.CaptureFixture[str], pg_demo_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL builds the second half on a second connection and copies it in: the four
    example jobs quote the same as from the table built whole."""
    calls = _counted(monkeypatch, "copied_halves")
    for job in JOBS:
        monkeypatch.setattr(queries_groups, "SPLIT_PROVIDERS", 10**9)
        whole = _quote(capsys, pg_demo_url, job)
        monkeypatch.setattr(queries_groups, "SPLIT_PROVIDERS", 2)
        halves = _quote(capsys, pg_demo_url, job)
        assert whole[0] == 0, whole[2]
        assert halves == whole, job
        assert len(calls) == JOBS.index(job) + 1, "the second was built in halves"
        _no_thread_left()


@pytest.mark.slow
def test_postgresql_halves_hold_the_rows_of_the_whole_table(
    pg_demo_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Row for row, every value as the database gives it back (text, integers, floats to
    the bit through COPY's text form), shapes, providers and rule 8's counts."""
    engine = make_engine(pg_demo_url)
    for name in JOBS:
        whole, halves = _built_both_ways(engine, name, monkeypatch, lambda r: sorted(r, key=repr))
        assert whole == halves, name
        assert len(whole[2]) >= 2, "both halves hold providers"
        _no_thread_left(engine)
    engine.dispose()


def _first_job() -> tuple[Any, GroupPricing]:
    """The first example job's offer filter and a plain pricing of its groups."""
    job = load_job(f"examples/{JOBS[0]}.toml")
    pricing = GroupPricing(job.currency, CONTEXT.fx, {}, most_runs(job), contract_runs(job))
    return job_offer_filter(job), pricing


def _broken(which: int) -> Any:
    """``CatalogGroups._halves`` with half ``which`` reading a column that does not exist."""
    halves = CatalogGroups._halves

    def broken(self: CatalogGroups, query: Any) -> Any:
        found = halves(self, query)
        assert found is not None
        wrong = found[which].where(literal_column("no_such_column") == 1)
        return (wrong, found[1]) if which == 0 else (found[0], wrong)

    return broken


@pytest.mark.parametrize("which", [0, 1])
def test_postgresql_an_error_of_either_half_reaches_the_caller(
    pg_demo_url: str, monkeypatch: pytest.MonkeyPatch, which: int
) -> None:
    """The first half's error (on the table's connection) or the second's (on the thread's)
    is raised by ``group_stream``; the other half is waited for, and both connections are
    given back."""
    monkeypatch.setattr(queries_groups, "SPLIT_PROVIDERS", 2)
    monkeypatch.setattr(CatalogGroups, "_halves", _broken(which))
    engine = make_engine(pg_demo_url)
    with pytest.raises(ProgrammingError, match="no_such_column"):
        CatalogGroups(engine).group_stream(*_first_job())
    _no_thread_left(engine)
    engine.dispose()
