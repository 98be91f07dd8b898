"""An import's sheets parsed while a writer stores the ones before.

Parsing sheet *k + 1* overlaps storing sheet *k*. Sheets large enough are parsed in a child
process (:mod:`comparator.refresh.parse_process`) and this thread writes: the parser and the
writer then do not share the GIL (SQLite's writer holds it between its steps); the first sheet
is parsed in this process while the child parses the second, so that the writer does not
wait a whole sheet's parse with one core idle (docs/import.md, "Fifth round"). Smaller
imports, and systems without ``fork``, parse on this thread while a writer thread stores.
Everything is written in the writer's one transaction: a sheet that fails its checks, a
refused removal, an error of the database or a killed process leaves the catalog as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import nullcontext, suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from queue import Empty, Full, Queue
from typing import Any, Protocol

from sqlalchemy import Connection, Engine

from comparator.catalog.bulk import (
    SheetGroups,
    current_snapshots_of,
    for_the_writer,
    removed_offers_in,
    store_groups_in,
)
from comparator.catalog.db import write_transaction
from comparator.catalog.index_rebuild import indexes_built_after
from comparator.catalog.page_cache import bulk_page_cache
from comparator.catalog.queries import SnapshotResult, store_profiles_in, utc_now
from comparator.domain.profile import ProviderProfile
from comparator.refresh.parse_process import ParsedInChild, worth_a_process

_POLL_S = 0.1  # how often a blocked hand-over looks whether the other side has stopped
Removal = tuple[str, str, int, int, int]  # (file, provider, before, after, gone)


class _Stop:
    """What the parsing thread hands over after the last sheet, or instead of it."""

    def __init__(self, abort: bool) -> None:
        self.abort = abort


class _Handed(Protocol):
    """Where the writer takes each parsed sheet, then a :class:`_Stop`."""

    def get(self) -> tuple[Path, SheetGroups] | _Stop: ...


class _Aborted(Exception):
    """The parsing thread failed: the writer rolls its transaction back."""


class _Refused(Exception):
    """A sheet would remove offers (without ``replace``): the writer rolls back."""


@dataclass
class Written:
    profiles: list[tuple[str, str]]
    snapshots: list[tuple[str, SnapshotResult]]
    removals: list[Removal]  # found without ``replace``: nothing was written


@dataclass(frozen=True)
class SheetStore:
    """The writer's side: profiles first, then each sheet, in one transaction."""

    engine: Engine
    profiles: Sequence[ProviderProfile]
    replace: bool

    def run(self, handed: _Handed) -> Written:
        first = handed.get()  # the write lock is taken once the first sheet is parsed
        if isinstance(first, _Stop) and first.abort:
            raise _Aborted
        written = Written([], [], [])
        # one exclusive lock of all providers, not one per provider: 30,000 profiles would
        # overflow PostgreSQL's lock table (max_locks_per_transaction) in one transaction
        writes_sheets = not isinstance(first, _Stop)
        writes_providers = bool(self.profiles) or writes_sheets
        try:
            with write_transaction(self.engine, all_providers=writes_providers) as conn:
                statuses = store_profiles_in(conn, self.profiles)  # a few statements for all
                written.profiles += list(zip([p.id for p in self.profiles], statuses, strict=True))
                item, fetched_at = first, utc_now()
                # an empty offer table gets its secondary indexes built after the rows;
                # a bulk import on SQLite a larger page cache
                rows = 0 if isinstance(first, _Stop) else first[1].columns.count
                with (
                    bulk_page_cache(conn, rows),
                    indexes_built_after(conn, rows) if writes_sheets else nullcontext(),
                ):
                    while not isinstance(item, _Stop):
                        self._store(conn, *item, written, fetched_at)
                        item = handed.get()
                    if item.abort:
                        raise _Aborted
                    if written.removals:
                        raise _Refused
        except _Refused:  # rolled back: the caller reports the removals
            pass
        return written

    def _store(
        self,
        conn: Connection,
        path: Path,
        groups: SheetGroups,
        written: Written,
        fetched_at: datetime,
    ) -> None:
        current = current_snapshots_of(conn, groups.providers)  # read once for both
        if not self.replace:
            found = removed_offers_in(conn, groups, current)
            written.removals += [(path.name, *r) for r in found]
        if not written.removals:  # once one is refused, the rest is only checked
            stored = store_groups_in(  # under the lock of all providers: alone
                conn, groups, source=path.name, fetched_at=fetched_at, alone=True, current=current
            )
            written.snapshots += [(path.name, r) for r in stored]


class _FromChild:
    """The first sheet parsed here, then the others as :class:`ParsedInChild` gives them
    (the child parses them from the start), then a :class:`_Stop`."""

    def __init__(
        self, first: Path, parse: Callable[[Path], SheetGroups], parsed: ParsedInChild[SheetGroups]
    ) -> None:
        self.first: Path | None = first
        self.parse, self.parsed = parse, parsed

    def get(self) -> tuple[Path, SheetGroups] | _Stop:
        if self.first is not None:  # its error is raised here, before any write
            path, self.first = self.first, None
            return path, self.parse(path)
        item = self.parsed.next_sheet()
        return _Stop(abort=False) if item is None else item


def store_while_parsing(
    store: SheetStore,
    paths: Sequence[Path],
    parse: Callable[[Path], SheetGroups],
    warnings: list[Any],
) -> Written:
    """``parse`` each sheet and hand it to ``store``'s writer (one sheet ahead at most): in a
    child process where :func:`worth_a_process` (the ``warnings`` ``parse`` appends to there
    are brought back into the list), else here, beside a writer thread."""
    if worth_a_process(paths):
        # the first sheet is parsed here while the child parses the second: both cores parse
        # from the start, and the writer does not wait for the child's first sheet
        parsed = ParsedInChild(paths[1:], parse, warnings, for_the_writer)
        try:
            return store.run(_FromChild(paths[0], parse, parsed))
        finally:
            parsed.close()
    handed: Queue[tuple[Path, SheetGroups] | _Stop] = Queue(maxsize=1)
    with ThreadPoolExecutor(1, thread_name_prefix="suanli-import") as pool:
        writer = pool.submit(store.run, handed)
        try:
            for path in paths:
                _hand(handed, (path, parse(path)), writer)
            _hand(handed, _Stop(abort=False), writer)
        except BaseException:
            _hand_abort(handed, writer)
            raise
        return writer.result()


def _hand(
    handed: Queue[tuple[Path, SheetGroups] | _Stop],
    item: tuple[Path, SheetGroups] | _Stop,
    writer: Future[Written],
) -> None:
    """Put ``item`` for the writer; its error, if it stopped, is raised here instead."""
    while True:
        if writer.done():
            writer.result()  # raises the writer's error
            raise RuntimeError("the import's writer stopped before the last sheet")
        try:
            handed.put(item, timeout=_POLL_S)
            return
        except Full:
            continue


def _hand_abort(handed: Queue[tuple[Path, SheetGroups] | _Stop], writer: Future[Written]) -> None:
    """Tell the writer to roll back (it may be storing, waiting or stopped already)."""
    while not writer.done():
        try:
            handed.put(_Stop(abort=True), timeout=_POLL_S)
            break
        except Full:
            with suppress(Empty):  # a sheet still waits: take it back, the stop goes next
                handed.get_nowait()
    with suppress(Exception):  # the parsing error is the one to report
        writer.result()
